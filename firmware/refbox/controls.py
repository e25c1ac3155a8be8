"""Shared control buttons, polled from the loop and debounced by time (they need no µs timing).

A control counts as pressed once its pin has read low on every poll for `debounce_us`, and as
released once it has read high for as long; one press gives one action however long it is held.
"""

from refbox.ticks import ticks_diff


class ControlButtons:
    debounce_us = 10000

    def __init__(self, names):
        self.names = names
        self._down = [False] * len(names)  # debounced state
        self._changed_at = [None] * len(names)  # tick when the raw level first differed from it
        self._raw_all_up = True

    def is_idle(self):
        """True when every control is released, raw and debounced: nothing to poll for."""
        if not self._raw_all_up:
            return False
        for i in range(len(self.names)):
            if self._down[i] or self._changed_at[i] is not None:
                return False
        return True

    def poll(self, levels, now):
        """`levels` has bit i high when control i is released; returns the names pressed at tick
        `now`."""
        pressed = []
        every = (1 << len(self.names)) - 1
        self._raw_all_up = (levels & every) == every
        for i in range(len(self.names)):
            raw_down = not (levels >> i) & 1
            if raw_down == self._down[i]:
                self._changed_at[i] = None
            elif self._changed_at[i] is None:
                self._changed_at[i] = now
            elif ticks_diff(now, self._changed_at[i]) >= self.debounce_us:
                self._down[i] = raw_down
                self._changed_at[i] = None
                if raw_down:
                    pressed.append(self.names[i])
        return pressed
