"""Fake `supervisor` (CircuitPython 10.2.1 shared-bindings/supervisor): ticks_ms() on the world's
clock (ms, wraps at 2**29 as supervisor_ticks_ms does) and the runtime flags the firmware reads."""

from tablebuzz.sim import world as _world

_TICKS_MS_MASK = (1 << 29) - 1


def ticks_ms():
    return _world.current.ticks_ms() & _TICKS_MS_MASK


class _Runtime:
    autoreload = True
    serial_connected = True
    usb_connected = True


runtime = _Runtime()


def reload():
    raise RuntimeError("supervisor.reload(): the simulator does not restart code.py")
