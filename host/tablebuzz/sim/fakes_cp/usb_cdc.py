"""Fake `usb_cdc` (CircuitPython 10.2.1 shared-bindings/usb_cdc, shared-module/usb_cdc/Serial.c):
the `data` channel, enabled by boot.py, carries the protocol; `console` keeps the REPL.

`Serial` is backed by the simulator's console model (tablebuzz.sim.runner.FakeConsole, found as
`World.usb_console`): the same 256-byte TX FIFO (CFG_TUD_CDC_TX_BUFSIZE=256 in
ports/raspberrypi/Makefile) and the same host. `write` with `write_timeout` 0 writes what fits
now and returns the count, as `common_hal_usb_cdc_serial_write` does; `None` (wait forever) or a
positive timeout wait for the host on the world's clock. A 0x03 byte is only a byte here: on
CircuitPython Ctrl-C interrupts from the console channel, not from the data channel.
"""

from tablebuzz.sim import world as _world


class Serial:
    def __init__(self):
        self.timeout = 1.0
        self.write_timeout = None

    @staticmethod
    def _port():
        port = getattr(_world.current, "usb_console", None)
        if port is None:
            raise OSError(19)  # ENODEV: no simulated USB host
        port.interrupt_char = None  # the data channel: 0x03 is data (the console has Ctrl-C)
        return port

    @property
    def connected(self):
        return True

    @property
    def in_waiting(self):
        return self._port().waiting()

    @property
    def out_waiting(self):
        return self._port().tx_used()

    def read(self, size=-1):
        port = self._port()
        n = port.waiting()
        if size is not None and size >= 0:
            n = min(n, size)
        if self.timeout != 0 and n < (size or 0):
            raise NotImplementedError("the simulator reads only what is waiting (timeout=0)")
        return port.take(n)

    def readinto(self, buf):
        data = self.read(len(buf))
        buf[: len(data)] = data
        return len(data)

    def write(self, buf):
        port = self._port()
        if self.write_timeout == 0:
            return port.write_nowait(buf)
        port.write(buf, 0, len(buf))
        return len(buf)

    def flush(self):
        return None

    def reset_input_buffer(self):
        port = self._port()
        port.take(port.waiting())


console = Serial()
data = None  # until boot.py enables it (usb_cdc.enable(data=True)); the simulator enables it
_enabled = {"console": True, "data": False}


def enable(*, console=True, data=False):
    """boot.py only on the chip: takes effect at the next USB enumeration."""
    _enabled["console"] = console
    _enabled["data"] = data


def disable():
    enable(console=False, data=False)


def _simulated_boot():
    """The simulator's power-up: the channels boot.py asked for (data on by default, as the
    firmware's boot.py enables it)."""
    global data
    data = Serial()
    return data
