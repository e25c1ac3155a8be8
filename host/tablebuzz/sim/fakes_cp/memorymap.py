"""Fake `memorymap` (CircuitPython 10.2.1 shared-bindings/memorymap/AddressRange.c): an
AddressRange over the two registers the firmware reads, TIMER TIMERAWL (the µs timer) and SIO
GPIO_IN. A 4-byte aligned slice is one 32-bit read returning a new bytearray, as on the chip.
Any other address raises rather than pretending."""

from tablebuzz.sim import world as _world

_TIMERAWL = 0x40054028
_GPIO_IN = 0xD0000004


class AddressRange:
    def __init__(self, *, start, length):
        if start not in (_TIMERAWL, _GPIO_IN) or length != 4:
            raise NotImplementedError("the simulator maps TIMERAWL and GPIO_IN only (4 bytes)")
        self._start = start

    def __len__(self):
        return 4

    def __getitem__(self, index):
        if not isinstance(index, slice) or (index.start or 0) != 0 or index.stop != 4:
            raise NotImplementedError("the simulator reads these registers as whole words")
        w = _world.current
        if self._start == _TIMERAWL:
            now = w.now if w.now >= w.cpu_until else w.cpu_until
            value = ((w.origin_ns + now) // 1000) & 0xFFFFFFFF
        else:
            value = w.levels
        return bytearray(value.to_bytes(4, "little"))
