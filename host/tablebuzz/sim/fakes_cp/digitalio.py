"""Fake `digitalio` (CircuitPython 10.2.1 shared-bindings/digitalio): DigitalInOut on the
simulated world's wires. `value` reads the wire's real level (pull-ups keep an open contact
high), never a constant. The pin is claimed while the object lives, as on the chip."""

import microcontroller
from tablebuzz.sim import world as _world


class Direction:
    INPUT = "INPUT"
    OUTPUT = "OUTPUT"


class Pull:
    UP = "UP"
    DOWN = "DOWN"


class DriveMode:
    PUSH_PULL = "PUSH_PULL"
    OPEN_DRAIN = "OPEN_DRAIN"


class DigitalInOut:
    def __init__(self, pin):
        microcontroller.claim(pin, self)
        self._pin = pin
        self._direction = Direction.INPUT
        self.pull = None
        self._deinited = False

    @property
    def pin(self):
        return self._pin

    def deinit(self):
        if not self._deinited:
            microcontroller.release(self._pin, self)
            self._deinited = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.deinit()

    def switch_to_input(self, pull=None):
        self._direction = Direction.INPUT
        self.pull = pull

    def switch_to_output(self, value=False, drive_mode=DriveMode.PUSH_PULL):
        self._direction = Direction.OUTPUT
        self.value = value

    @property
    def direction(self):
        return self._direction

    @direction.setter
    def direction(self, value):
        if value == Direction.OUTPUT:
            self.switch_to_output()
        else:
            self.switch_to_input()

    @property
    def value(self):
        self._check()
        return bool(_world.current.level(self._pin.id))

    @value.setter
    def value(self, v):
        self._check()
        if self._direction != Direction.OUTPUT:
            raise AttributeError("Cannot set value when direction is input.")
        _world.current.set_level(self._pin.id, 1 if v else 0)

    def _check(self):
        if self._deinited:
            raise ValueError("Object has been deinitialized and can no longer be used.")
