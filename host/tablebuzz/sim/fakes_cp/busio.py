"""Fake `busio` (CircuitPython 10.2.1 shared-bindings/busio/I2C.c, ports/raspberrypi/common-hal/
busio/I2C.c): I2C on the simulated world's bus, for the real adafruit_bus_device and
adafruit_ssd1306 to run on. MicroPython-subset code (it also runs under the unix ports).

As on the chip:
- I2C(scl, sda, *, frequency=100000, timeout=255): the pins must be an I2C pair (SCL odd, SDA
  even, the same peripheral: GPn // 2 % 2) else ValueError "Invalid pins"; frequency at most
  1 MHz; both pins free (ValueError "GPn in use"). The port checks the lines are pulled up
  (CIRCUITPY_REQUIRE_I2C_PULLUPS): here they are when a device is on the bus (an SSD1306 module
  carries its own pull-ups), else RuntimeError "No pull up found on SDA or SCL; check your
  wiring", as a Pico with nothing on those pins gives;
- every transfer needs the lock (try_lock / unlock), else RuntimeError "Function requires lock";
- writeto(address, buffer, *, start=0, end=None): an absent address gives OSError(19), ENODEV
  (the pico-sdk's PICO_ERROR_GENERIC on the address NACK); a zero-length write is the port's
  bit-banged probe (the RP2040 cannot do one), as probe(address) is;
- readfrom_into: the simulated devices are write-only (an SSD1306 on I2C cannot be read), so it
  gives OSError(19) for an absent address and OSError(5), EIO, for one there.
Each transfer holds the loop for the bus time (world.i2c_transfer, as the fake machine.I2C).
"""

import microcontroller
from tablebuzz.sim import world as _world

_ENODEV = 19
_EIO = 5


class I2C:
    def __init__(self, scl, sda, *, frequency=100000, timeout=255):
        if not (
            scl.id % 2 == 1 and sda.id % 2 == 0 and (scl.id // 2) % 2 == (sda.id // 2) % 2
        ):
            raise ValueError("Invalid pins")
        if frequency > 1000000:
            raise ValueError("frequency must be 1000000 or less")
        microcontroller.claim(scl, self)
        try:
            microcontroller.claim(sda, self)
        except ValueError:
            microcontroller.release(scl, self)
            raise
        if not _world.current.i2c_devices:  # nothing holds the lines up
            microcontroller.release(scl, self)
            microcontroller.release(sda, self)
            raise RuntimeError("No pull up found on SDA or SCL; check your wiring")
        self._scl = scl
        self._sda = sda
        self.frequency = frequency
        self.timeout = timeout
        self._locked = False
        self._deinited = False

    def deinit(self):
        if not self._deinited:
            microcontroller.release(self._scl, self)
            microcontroller.release(self._sda, self)
            self._deinited = True

    def deinited(self):
        return self._deinited

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.deinit()

    def try_lock(self):
        self._check()
        if self._locked:
            return False
        self._locked = True
        return True

    def unlock(self):
        self._check()
        self._locked = False

    def _check(self):
        if self._deinited:
            raise ValueError("Object has been deinitialized and can no longer be used.")

    def _check_lock(self):
        self._check()
        if not self._locked:
            raise RuntimeError("Function requires lock")

    def probe(self, address):
        """True if `address` answers a zero-length write."""
        self._check_lock()
        return self._write(address, b"") == 0

    def scan(self):
        """The addresses 0x08..0x77 that answer (one probe each)."""
        self._check_lock()
        return [a for a in range(0x08, 0x78) if self._write(a, b"") == 0]

    def writeto(self, address, buffer, *, start=0, end=None):
        self._check_lock()
        data = bytes(memoryview(buffer)[start : len(buffer) if end is None else end])
        status = self._write(address, data)
        if status:
            raise OSError(status)

    def readfrom_into(self, address, buffer, *, start=0, end=None):
        self._check_lock()
        n = (len(buffer) if end is None else end) - start
        if n < 1:
            raise ValueError("buffer length must be >= 1")
        w = _world.current
        present = address in w.i2c_devices
        w.i2c_transfer(1, 0, self.frequency)
        raise OSError(_EIO if present else _ENODEV)

    def writeto_then_readfrom(self, address, out_buffer, in_buffer, **kwargs):
        self._check_lock()
        status = self._write(address, bytes(out_buffer))
        if status:
            raise OSError(status)
        self.readfrom_into(address, in_buffer)

    def _write(self, address, data):
        """0, or the errno the port's write returns: the bytes reach the device when it is
        there, and the bus time is charged either way (the address byte alone when absent)."""
        w = _world.current
        device = w.i2c_devices.get(address)
        w.i2c_transfer(1, len(data) if device is not None else 0, self.frequency)
        if device is None:
            return _ENODEV
        if data:
            device.write(data)
        return 0


class SPI:
    """The name only (adafruit_bus_device's spi_device annotates with it, and CPython evaluates
    annotations): the board has nothing on SPI, so the simulator models no SPI bus."""

    def __init__(self, clock, MOSI=None, MISO=None, half_duplex=False):  # noqa: N803 - CP's names
        raise NotImplementedError("the simulator models no SPI bus")


class UART:
    """The name only, as SPI: the board has nothing on a UART."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("the simulator models no UART")
