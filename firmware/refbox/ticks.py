"""Wrap-safe tick arithmetic, identical to MicroPython's `time.ticks_diff` / `time.ticks_add`.

MicroPython's `ticks_us()` counts modulo 2**30 µs (about 17.9 minutes). Every time in the core is
such a tick; compare them only through `ticks_diff`, which is valid while the true distance is
within ±2**29 µs. Source: MicroPython docs, `time.ticks_diff`; tablebuzz design notes "One
timeline".
"""

from refbox.compat import const

TICKS_PERIOD = const(1 << 30)
TICKS_MAX = const((1 << 30) - 1)
_TICKS_HALF = const(1 << 29)


def ticks_diff(end, start):
    """Signed distance `end - start` in ticks (µs), for ticks taken within ±2**29 of each other."""
    return ((end - start + _TICKS_HALF) & TICKS_MAX) - _TICKS_HALF


def ticks_add(ticks, delta):
    """The tick `delta` µs after `ticks` (delta may be negative), wrapped into 0..2**30-1."""
    return (ticks + delta) & TICKS_MAX


class Stamp:
    """A capture time: a µs tick plus the nanoseconds inside that µs (0..999).

    The PIO timestamper resolves 56 ns, finer than a tick; keeping the sub-µs part apart keeps
    every integer small (no big ints on the board) while `diff_ns` stays wrap-safe.
    """

    __slots__ = ("us", "ns")

    def __init__(self, us, ns=0):
        self.us = us
        self.ns = ns

    # ticks_diff / ticks_add written out: these run for every capture edge, and a call costs
    # ~10 µs on the chip (bench/README.md "bench_chip_latency.py")
    def diff_ns(self, earlier):
        """Nanoseconds from `earlier` to this stamp (negative if this one is earlier)."""
        us = ((self.us - earlier.us + _TICKS_HALF) & TICKS_MAX) - _TICKS_HALF
        return us * 1000 + self.ns - earlier.ns

    def after_ns(self, delta_ns):
        """A new stamp `delta_ns` (>= 0 or < 0) after this one."""
        total = self.ns + delta_ns
        return Stamp((self.us + total // 1000) & TICKS_MAX, total % 1000)

    def __eq__(self, other):
        return isinstance(other, Stamp) and self.us == other.us and self.ns == other.ns

    def __repr__(self):
        return "Stamp(%d, %d)" % (self.us, self.ns)
