"""Fake `watchdog` (CircuitPython 10.2.1 shared-bindings/watchdog): WatchDogMode, and the
WatchDogTimer that `microcontroller.watchdog` is. The world keeps its timeout (None when off) and
its last feed, as the MicroPython fake's machine.WDT does: the simulator's watchdog model
(tablebuzz.sim.runner) resets the board when a pass hangs longer than the timeout."""

from tablebuzz.sim import world as _world

_MAX_S = 8.388  # ports/raspberrypi/common-hal/watchdog/WatchDogTimer.c: the RP2040's limit


class WatchDogMode:
    RAISE = "RAISE"
    RESET = "RESET"


class WatchDogTimer:
    def __init__(self):
        self._timeout = 0.0
        self._mode = None

    @property
    def timeout(self):
        return self._timeout

    @timeout.setter
    def timeout(self, seconds):
        if seconds <= 0 or seconds > _MAX_S:
            raise ValueError("timeout must be in 0..%s s" % _MAX_S)
        self._timeout = seconds

    @property
    def mode(self):
        return self._mode

    @mode.setter
    def mode(self, mode):
        w = _world.current
        self._mode = mode
        if mode is None:
            w.watchdog_ms = None
        else:
            w.watchdog_ms = int(self._timeout * 1000)
            w.watchdog_fed = w.now

    def feed(self):
        if self._mode is None:
            raise ValueError("WatchDogTimer is not running")
        w = _world.current
        w.watchdog_fed = w.now

    def deinit(self):
        self.mode = None
