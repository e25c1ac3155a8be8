"""Shared control buttons, captured by their edges and debounced by time (they need no µs timing).

The board stamps every edge of every control pin in a hard interrupt (refbox.board.ControlEdges:
(control, level, µs tick) records in a preallocated ring), so a press is known by its edges, not
by a level the loop happened to read: a press made while the loop is stalled (a journal write, a
gc, a new game, up to 500 ms and more) is counted when the loop comes back, in the order and with
the lengths its edges give (issue 19: no control press of 30 ms or more is ever lost).
A control counts as pressed once its contact has stayed closed for `debounce_us` (bounce gaps
restart the count), and as released once it has stayed open for as long; one press gives one
action however long it is held. Controls with a long-press meaning (`hold_names`: UNDO, which
returns to the menu) act on release instead, or give "NAME:hold" once held for `hold_us`.
A flash write masks every interrupt (refbox.journal, design notes "Timing facts"): a press made
wholly inside one leaves its edges latched in the GPIO interrupt status, and the handler runs
once when the write ends and reads the level back as it was. Such a record (the same level again,
a closure in between) counts as one tap when it falls inside a window the loop declared masked
(`masked_since`) and the control had been quiet for `debounce_us` before it; anywhere else the
same record is a bounce or a spike shorter than the interrupt latency, and counts for nothing.
Fast entry (`repeat_names`: ARM and NO): held, they repeat as "NAME:repeat", the first REPEAT[0]
µs after the press, then faster and faster (REPEAT: the gap before each repeat, the last one
kept), like a keyboard's auto-repeat. The referee takes a repeat as one more press where a number
or a value is being stepped (the menu, a score, a count) and ignores it elsewhere. With this
schedule a held control gives 12 steps in 1.55 s and 25 a second after that: 40 steps in 2.7 s
(README.md "Fast entry").
Every action carries its instant (`stamps`, µs ticks, one per action appended): a press the tick
its debounce ended (the closing edge + `debounce_us`), a release-acting control's likewise, a
repeat or a hold the tick it fell due, a latched tap the tick its handler ran. The referee takes
the action at that instant in the ordered stream of inputs (docs/architecture.md "One ordered
stream"), never at the pass that noticed it.
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
    latch_slack_us = 1000

    def __init__(self, names, hold_names=("undo",), repeat_names=("arm", "no")):
        self.names = names
        n = len(names)
        self.hold = [name in hold_names for name in names]
        self.repeat = [name in repeat_names for name in names]
        self._raw = [False] * n  # the contact's level as the last edge left it: True = closed
        self._raw_at = [0] * n  # tick of that edge
        self._down = [False] * n  # debounced state
        self._down_at = [0] * n  # tick when the debounced press began
        self._held = [False] * n  # the hold action has fired for this press (or it is spent)
        self.stamps = []  # the µs tick of each action appended since the caller cleared it
        self._next_repeat = [0] * n  # tick of the next repeat while held
        self._repeats = [0] * n  # repeats given during this press
        self._windows = []  # [from, to] µs ticks of recent masked spells (to None while open)
        self.latched = 0  # taps counted from latched edges (a press inside a masked write)

    def held_at_boot(self, levels):
        """Controls already down at power-up (`levels`: bit i high when control i is released)
        count as pressed and spent: letting go gives no action (the safe-boot gesture is not also
        an UNDO), and a held ARM or NO gives no repeats (its press began before any tick the
        board has: it repeated from tick 0, hundreds of steps at once after a resume, whose
        clock goes on from the last save: soak night 16, 320 Diddly entries in one pass)."""
        for i in range(len(self.names)):
            if not (levels >> i) & 1:
                self._raw[i] = self._down[i] = True
                self._held[i] = True

    def is_idle(self):
        """True when every control is released, raw and debounced: nothing to wait for."""
        for i in range(len(self.names)):
            if self._down[i] or self._raw[i]:
                return False
        return True

    def masked_since(self, tick):
        """The loop is about to mask every interrupt (a journal write) at µs `tick`, until
        `unmasked`: a latched closure stamped in that spell is a press made during the write.
        The last four spells are kept for the edges not yet taken."""
        windows = self._windows
        windows.append([tick, None])
        if len(windows) > 4:
            windows.pop(0)

    def unmasked(self, tick):
        """The write is over at µs `tick`, read after it returned. The handlers of latched edges
        run as soon as it lets the interrupts back, one after the other (~45 µs each, design
        notes): the spell ends `latch_slack_us` later, room for every pin's handler."""
        for window in self._windows:
            if window[1] is None:
                window[1] = ticks_add(tick, self.latch_slack_us)

    def _window(self, tick):
        """The masked spell [from, to] holding µs `tick`, or None."""
        for window in self._windows:
            if ticks_diff(tick, window[0]) >= 0:
                if window[1] is None or ticks_diff(window[1], tick) >= 0:
                    return window
        return None

    def edge(self, i, closed, tick, actions):
        """Control i's contact read `closed` (bool) at µs `tick` in its edge handler; what the
        controls did up to that tick is appended to `actions` (names, in time order)."""
        self._advance(tick, actions)
        if closed != self._raw[i]:
            self._raw[i] = closed
            self._raw_at[i] = tick
            return
        # the same level again: the opposite edge came and went before the handler ran
        window = None if closed or self._down[i] else self._window(tick)
        if window is None:
            return  # a bounce or a spike inside the interrupt latency: no press
        if ticks_diff(window[0], self._raw_at[i]) < self.debounce_us:
            return  # the contact was still settling when the write began (a release bounce)
        self.latched += 1
        self._raw_at[i] = tick
        actions.append(self.names[i])  # one tap (UNDO too: a short press acts on release)
        self.stamps.append(tick)

    def resync(self, levels, tick, actions):
        """Edges were lost (the ring was full): take the levels read now (`levels`: bit i high when
        control i is released) as edges at `tick`."""
        for i in range(len(self.names)):
            self.edge(i, not (levels >> i) & 1, tick, actions)

    def poll(self, now, actions):
        """Append to `actions` what the controls do by tick `now` with time alone (a debounce
        ending, a repeat, a hold)."""
        self._advance(now, actions)
        windows = self._windows
        while windows and windows[0][1] is not None and ticks_diff(now, windows[0][1]) > 1000000:
            windows.pop(0)  # edges are taken within a pass or two: an old spell holds none

    def _advance(self, t, actions):
        for i in range(len(self.names)):
            self._settle(i, t, actions)

    def _settle(self, i, t, actions):
        """Control i up to tick `t`: the debounce of its last edge, then its repeats and hold."""
        if self._raw[i] != self._down[i] and ticks_diff(t, self._raw_at[i]) >= self.debounce_us:
            at = ticks_add(self._raw_at[i], self.debounce_us)
            down = self._down[i] = self._raw[i]
            if down:
                self._down_at[i] = at
                self._held[i] = False
                self._repeats[i] = 0
                self._next_repeat[i] = ticks_add(at, REPEAT[0])
                if not self.hold[i]:
                    actions.append(self.names[i])
                    self.stamps.append(at)
            elif self.hold[i] and not self._held[i]:
                actions.append(self.names[i])
                self.stamps.append(at)
        if not self._down[i]:
            return
        if self.repeat[i] and not self._held[i]:  # (held at boot: spent, no fast entry)
            while ticks_diff(t, self._next_repeat[i]) >= 0 and self._raw[i]:
                count = self._repeats[i] = self._repeats[i] + 1
                gap = REPEAT[min(count, len(REPEAT) - 1)]
                self.stamps.append(self._next_repeat[i])
                self._next_repeat[i] = ticks_add(self._next_repeat[i], gap)
                actions.append(self.names[i] + ":repeat")
        if self.hold[i] and not self._held[i] and ticks_diff(t, self._down_at[i]) >= self.hold_us:
            self._held[i] = True
            actions.append(self.names[i] + ":hold")
            self.stamps.append(ticks_add(self._down_at[i], self.hold_us))
