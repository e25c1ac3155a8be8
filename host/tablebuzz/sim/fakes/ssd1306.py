"""Fake `ssd1306` for the simulator: the interface of micropython-lib's driver
(micropython/drivers/display/ssd1306), which `make flash` installs on the board and which is not
part of this repository.

`SSD1306_I2C(width, height, i2c, addr=0x3C, external_vcc=False)` is a framebuf.FrameBuffer over
`buffer` (MONO_VLSB, a byte per column per 8-row page); `show()` sends the whole buffer,
`write_cmd(byte)` one command (control byte 0x80), `write_data(buf)` a data stream (control byte
0x40, one `writevto`), plus poweroff(), poweron(), contrast(), invert(), rotate(). It talks to the
bus as the real driver does, so the simulated panel (tablebuzz.sim.oled) sees the same kinds of
transfers and the fake `machine.I2C` charges their time. Commands: SSD1306 datasheet rev 1.1,
section 9 (command table) and the application note's initialisation sequence.
"""

import framebuf

_DISPLAY_OFF = 0xAE
_DISPLAY_ON = 0xAF
_MEMORY_MODE = 0x20  # + 0x00: horizontal addressing
_COLUMN_RANGE = 0x21  # + start, end
_PAGE_RANGE = 0x22  # + start, end
_START_LINE = 0x40
_CONTRAST = 0x81  # + level
_CHARGE_PUMP = 0x8D  # + 0x14 on (internal VCC), 0x10 off
_SEGMENT_REMAP = 0xA0  # | 1: column 127 is SEG0
_FOLLOW_RAM = 0xA4
_NORMAL = 0xA6  # | 1: inverted
_MULTIPLEX = 0xA8  # + height - 1
_COM_SCAN = 0xC0  # | 8: from COM[N-1] to COM0
_OFFSET = 0xD3  # + 0
_CLOCK = 0xD5  # + 0x80
_PRECHARGE = 0xD9  # + 0xF1 (internal VCC) or 0x22
_COM_PINS = 0xDA  # + 0x12 (64 rows) or 0x02 (32 rows)
_VCOM_LEVEL = 0xDB  # + 0x30


class SSD1306(framebuf.FrameBuffer):
    def __init__(self, width, height, external_vcc):
        self.width = width
        self.height = height
        self.external_vcc = external_vcc
        self.pages = height // 8
        self.buffer = bytearray(self.pages * width)
        super().__init__(self.buffer, width, height, framebuf.MONO_VLSB)
        self.init_display()

    def init_display(self):
        external = self.external_vcc
        sequence = (
            _DISPLAY_OFF,
            _CLOCK, 0x80,
            _MULTIPLEX, self.height - 1,
            _OFFSET, 0x00,
            _START_LINE,
            _CHARGE_PUMP, 0x10 if external else 0x14,
            _MEMORY_MODE, 0x00,
            _SEGMENT_REMAP | 1,
            _COM_SCAN | 8,
            _COM_PINS, 0x02 if self.width > 2 * self.height else 0x12,
            _CONTRAST, 0xFF,
            _PRECHARGE, 0x22 if external else 0xF1,
            _VCOM_LEVEL, 0x30,
            _FOLLOW_RAM,
            _NORMAL,
            _DISPLAY_ON,
        )  # fmt: skip
        for byte in sequence:
            self.write_cmd(byte)
        self.fill(0)
        self.show()

    def poweroff(self):
        self.write_cmd(_DISPLAY_OFF)

    def poweron(self):
        self.write_cmd(_DISPLAY_ON)

    def contrast(self, contrast):
        self.write_cmd(_CONTRAST)
        self.write_cmd(contrast)

    def invert(self, invert):
        self.write_cmd(_NORMAL | (invert & 1))

    def rotate(self, rotate):
        self.write_cmd(_COM_SCAN | ((rotate & 1) << 3))
        self.write_cmd(_SEGMENT_REMAP | (rotate & 1))

    def show(self):
        first = (128 - self.width) // 2  # a narrower panel sits in the middle columns
        for byte in (_COLUMN_RANGE, first, first + self.width - 1, _PAGE_RANGE, 0, self.pages - 1):
            self.write_cmd(byte)
        self.write_data(self.buffer)


class SSD1306_I2C(SSD1306):  # noqa: N801 - the real driver's name
    def __init__(self, width, height, i2c, addr=0x3C, external_vcc=False):
        self.i2c = i2c
        self.addr = addr
        self._command = bytearray(2)
        self._data = [b"\x40", None]
        super().__init__(width, height, external_vcc)

    def write_cmd(self, cmd):
        self._command[0] = 0x80  # Co = 1, D/C# = 0: one command byte follows
        self._command[1] = cmd
        self.i2c.writeto(self.addr, self._command)

    def write_data(self, buf):
        self._data[1] = buf  # Co = 0, D/C# = 1: the rest is display RAM
        self.i2c.writevto(self.addr, self._data)
