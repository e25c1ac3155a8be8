"""Fake `pwmio` (CircuitPython 10.2.1 shared-bindings/pwmio/PWMOut.c): PWMOut on a pin; what it
sounds is recorded in the world (`World.tones`) as the MicroPython fake machine.PWM does."""

import microcontroller
from tablebuzz.sim import world as _world


class PWMOut:
    def __init__(self, pin, *, duty_cycle=0, frequency=500, variable_frequency=False):
        if not 0 <= duty_cycle <= 0xFFFF:
            raise ValueError("duty_cycle must be 0-65535")
        if frequency <= 0:
            raise ValueError("frequency must be at least 1")
        microcontroller.claim(pin, self)
        self._pin = pin
        self._duty = duty_cycle
        self._frequency = frequency
        self._variable = variable_frequency
        self._deinited = False
        self._note()

    @property
    def duty_cycle(self):
        return self._duty

    @duty_cycle.setter
    def duty_cycle(self, value):
        self._check()
        if not 0 <= value <= 0xFFFF:
            raise ValueError("duty_cycle must be 0-65535")
        self._duty = value
        self._note()

    @property
    def frequency(self):
        return self._frequency

    @frequency.setter
    def frequency(self, value):
        self._check()
        if not self._variable:
            raise AttributeError(
                "Cannot vary frequency on a timer that is already in use"
                " (PWMOut(variable_frequency=True) to change it)"
            )
        if value <= 0:
            raise ValueError("frequency must be at least 1")
        self._frequency = value
        self._note()

    def deinit(self):
        if not self._deinited:
            self._duty = 0
            self._note()
            microcontroller.release(self._pin, self)
            self._deinited = True

    def _check(self):
        if self._deinited:
            raise ValueError("Object has been deinitialized and can no longer be used.")

    def _note(self):
        _world.current.record_tone(self._frequency if self._duty else 0)
