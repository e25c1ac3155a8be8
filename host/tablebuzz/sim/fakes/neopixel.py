"""Fake `neopixel`: the built-in CPU driver, which masks every interrupt ~30 µs a pixel while it
writes."""

from tablebuzz.sim import world as _world


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self._pixels = [(0, 0, 0)] * n

    def __len__(self):
        return self.n

    def __setitem__(self, i, colour):
        self._pixels[i] = tuple(colour)

    def __getitem__(self, i):
        return self._pixels[i]

    def fill(self, colour):
        for i in range(self.n):
            self._pixels[i] = tuple(colour)

    def write(self):
        w = _world.current
        w.record_frame("cpu", list(self._pixels))
        ns = w.neopixel_ns_per_pixel * self.n
        w.mask_interrupts(ns)
        # the write blocks the CPU that long too (machine.bitstream): a clock read after it shows
        # the time it took, as after a flash write
        if w.cpu_until < w.now + ns:
            w.cpu_until = w.now + ns
