"""Fake `microcontroller` (CircuitPython 10.2.1 shared-bindings/microcontroller): Pin, cpu, nvm,
reset. A Pin is a GPIO number; the world (tablebuzz.sim.world.current) holds its level.
"""

from tablebuzz.sim import world as _world

_NVM_BYTES = 4096  # CIRCUITPY_INTERNAL_NVM_SIZE on the raspberrypi port


class Pin:
    """One RP2040 GPIO (`board.GPn`); CircuitPython pins cannot be constructed by user code,
    board.py's are the only ones."""

    def __init__(self, gpio):
        self.id = gpio

    def __repr__(self):
        return "board.GP%d" % self.id

    def __hash__(self):
        return self.id

    def __eq__(self, other):
        return isinstance(other, Pin) and other.id == self.id


class _Processor:
    @property
    def frequency(self):
        return _world.current.sys_hz

    @property
    def uid(self):
        return b"\xe6\x60\x38\x36\x5f\x43\x12\x34"


cpu = _Processor()
nvm = bytearray(_NVM_BYTES)


def reset():
    raise RuntimeError("microcontroller.reset(): the simulator does not reset the chip")


def claim(pin, owner):
    """Claim `pin` for `owner` as CircuitPython's pin claiming does: ValueError "GPn in use"
    if another object holds it (shared-bindings/microcontroller/Pin.c raise_ValueError_invalid
    _pin... `validate_pin_free`)."""
    claims = _claims()
    holder = claims.get(pin.id)
    if holder is not None and holder is not owner:
        raise ValueError("%r in use" % pin)
    claims[pin.id] = owner


def release(pin, owner):
    claims = _claims()
    if claims.get(pin.id) is owner:
        del claims[pin.id]


def _claims():
    w = _world.current
    claims = getattr(w, "cp_claims", None)
    if claims is None or getattr(w, "cp_claims_epoch", None) != w.origin_ns:
        claims = {}  # a power cut frees every pin: the claims live as long as one boot
        w.cp_claims = claims
        w.cp_claims_epoch = w.origin_ns
    return claims


def _watchdog():
    from watchdog import WatchDogTimer

    return WatchDogTimer()


watchdog = _watchdog()  # the chip's one watchdog (shared-bindings/microcontroller: `watchdog`)
