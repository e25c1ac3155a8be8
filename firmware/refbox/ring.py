"""A preallocated ring of (value, µs tick) records filled by an interrupt handler and read by the
loop: refbox.board's control edges use it, and so does refbox.board_cp for the keypad's events.
Interpreter-neutral (no `machine`)."""

import array

from refbox.compat import const

_RING_SIZE = const(256)  # a power of two


class CaptureRing:
    """Records (value, µs tick, info) written by an interrupt handler (a control pin's edge),
    read by the loop. `info` is 0 where a ring does not use it.

    Preallocated: `put` never allocates, so it is safe in a hard IRQ. When full, new snapshots are
    counted in `lost` and dropped (the loop then re-reads the levels).
    """

    def __init__(self, size=_RING_SIZE):
        self.mask = size - 1
        self.values = array.array("I", [0] * size)
        self.ticks = array.array("I", [0] * size)
        self.infos = array.array("H", [0] * size)
        self.head = 0
        self.tail = 0
        self.lost = 0
        self.info = 0  # the info of the record `pop` returned last

    def put(self, value, tick, info=0):
        head = self.head
        following = (head + 1) & self.mask
        if following == self.tail:
            self.lost += 1
            return
        self.values[head] = value
        self.ticks[head] = tick
        self.infos[head] = info
        self.head = following

    def pending(self):
        return self.head != self.tail

    def pop(self):
        """(value, tick) of the oldest record; its info is then in `info`."""
        tail = self.tail
        record = (self.values[tail], self.ticks[tail])
        self.info = self.infos[tail]
        self.tail = (tail + 1) & self.mask
        return record
