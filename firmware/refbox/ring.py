"""A preallocated ring of (value, µs tick) records filled by an interrupt handler and read by the
loop: refbox.board's pin-IRQ capture and control edges use it, and so does refbox.board_cp for the
keypad's events. Interpreter-neutral (no `machine`)."""

import array

from refbox.compat import const

_RING_SIZE = const(256)  # a power of two


class CaptureRing:
    """GPIO snapshots (value, µs tick) written by the pin-IRQ fallback's handler, read by the
    loop.

    Preallocated: `put` never allocates, so it is safe in a hard IRQ. When full, new snapshots are
    counted in `lost` and dropped (the loop then re-reads the levels).
    """

    def __init__(self, size=_RING_SIZE):
        self.mask = size - 1
        self.values = array.array("I", [0] * size)
        self.ticks = array.array("I", [0] * size)
        self.head = 0
        self.tail = 0
        self.lost = 0

    def put(self, value, tick):
        head = self.head
        following = (head + 1) & self.mask
        if following == self.tail:
            self.lost += 1
            return
        self.values[head] = value
        self.ticks[head] = tick
        self.head = following

    def pending(self):
        return self.head != self.tail

    def pop(self):
        tail = self.tail
        record = (self.values[tail], self.ticks[tail])
        self.tail = (tail + 1) & self.mask
        return record
