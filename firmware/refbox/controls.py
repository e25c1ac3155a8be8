"""Shared control buttons, polled from the loop and debounced by time (they need no µs timing).

A control counts as pressed once its pin has read low on every poll for `debounce_us`, and as
released once it has read high for as long; one press gives one action however long it is held.
Controls with a long-press meaning (`hold_names`: UNDO, which returns to the menu) act on release
instead, or give "NAME:hold" once held for `hold_us`.
Fast entry (`repeat_names`: ARM and NO): held, they repeat as "NAME:repeat", the first REPEAT[0]
µs after the press, then faster and faster (REPEAT: the gap before each repeat, the last one
kept), like a keyboard's auto-repeat. The referee takes a repeat as one more press where a number
or a value is being stepped (the menu, a score, a count) and ignores it elsewhere. With this
schedule a held control gives 12 steps in 1.55 s and 25 a second after that: 40 steps in 2.7 s
(README.md "Fast entry").
"""

from refbox.ticks import ticks_add, ticks_diff

# µs before each repeat of a held ARM / NO: 400 ms, then 150 ms x5, 80 ms x5, then 40 ms
REPEAT = (400000, 150000, 150000, 150000, 150000, 150000, 80000, 80000, 80000, 80000, 80000, 40000)


def repeat_steps(held_us):
    """How many actions a repeating control gives when held `held_us` µs (the press included)."""
    steps, t, i = 1, 0, 0
    while True:
        t += REPEAT[i]
        if t > held_us:
            return steps
        steps += 1
        if i + 1 < len(REPEAT):
            i += 1


class ControlButtons:
    debounce_us = 10000
    hold_us = 2000000

    def __init__(self, names, hold_names=("undo",), repeat_names=("arm", "no")):
        self.names = names
        self.hold = [name in hold_names for name in names]
        self.repeat = [name in repeat_names for name in names]
        self._down = [False] * len(names)  # debounced state
        self._down_at = [0] * len(names)  # tick when the debounced press began
        self._held = [False] * len(names)  # the hold action has fired for this press
        self._next_repeat = [0] * len(names)  # tick of the next repeat while held
        self._repeats = [0] * len(names)  # repeats given during this press
        self._changed_at = [None] * len(names)  # tick when the raw level first differed from it
        self._raw_all_up = True

    def held_at_boot(self, levels):
        """Controls already down at power-up (`levels` as for poll) count as pressed and spent:
        letting go gives no action (the safe-boot gesture is not also an UNDO)."""
        for i in range(len(self.names)):
            if not (levels >> i) & 1:
                self._down[i] = True
                self._held[i] = True

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
                    self._repeats[i] = 0
                    self._next_repeat[i] = ticks_add(now, REPEAT[0])
                    if not self.hold[i]:
                        actions.append(self.names[i])
                elif self.hold[i] and not self._held[i]:
                    actions.append(self.names[i])
            if self.repeat[i] and self._down[i]:
                if ticks_diff(now, self._next_repeat[i]) >= 0:
                    count = self._repeats[i] = self._repeats[i] + 1
                    gap = REPEAT[min(count, len(REPEAT) - 1)]
                    self._next_repeat[i] = ticks_add(self._next_repeat[i], gap)
                    actions.append(self.names[i] + ":repeat")
            if self.hold[i] and self._down[i] and not self._held[i]:
                if ticks_diff(now, self._down_at[i]) >= self.hold_us:
                    self._held[i] = True
                    actions.append(self.names[i] + ":hold")
        return actions
