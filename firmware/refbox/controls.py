"""Shared control buttons, polled from the loop and debounced by time (they need no µs timing).

A control counts as pressed once its pin has read low on every poll for `debounce_us`, and as
released once it has read high for as long; one press gives one action however long it is held.
Controls with a long-press meaning (`hold_names`: UNDO, which returns to the menu) act on release
instead, or give "NAME:hold" once held for `hold_us`.
"""

from refbox.ticks import ticks_diff


class ControlButtons:
    debounce_us = 10000
    hold_us = 2000000

    def __init__(self, names, hold_names=("undo",)):
        self.names = names
        self.hold = [name in hold_names for name in names]
        self._down = [False] * len(names)  # debounced state
        self._down_at = [0] * len(names)  # tick when the debounced press began
        self._held = [False] * len(names)  # the hold action has fired for this press
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
        """`levels`: bit i high when control i is released. Returns the actions at tick `now`."""
        actions = []
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
                    self._down_at[i] = now
                    self._held[i] = False
                    if not self.hold[i]:
                        actions.append(self.names[i])
                elif self.hold[i] and not self._held[i]:
                    actions.append(self.names[i])
            if self.hold[i] and self._down[i] and not self._held[i]:
                if ticks_diff(now, self._down_at[i]) >= self.hold_us:
                    self._held[i] = True
                    actions.append(self.names[i] + ":hold")
        return actions
