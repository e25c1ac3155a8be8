"""The display on CircuitPython: refbox.oled's Oled (the same layout, the same diff of what
changed, the same CHUNK-column pieces one a loop pass) over Adafruit's `adafruit_ssd1306`
driver (SSD1306_I2C, 2.12.24, with adafruit_framebuf and adafruit_bus_device's I2CDevice).

Why this driver and not `adafruit_displayio_ssd1306`: displayio refreshes the panel from the
CircuitPython core's background tasks, a whole dirty area at once (~23 ms of I2C for a full
frame at 400 kHz) at times the code does not choose, so a race could wait on the display;
adafruit_ssd1306 gives the frame as a bytearray and the bus as an I2CDevice, so the loop sends
one chunk when refbox.app says it may (App.can_block: no race open), as on MicroPython. And it is
plain Python, so the simulator runs the real driver over a fake busio.I2C.

What differs from MicroPython's driver, and how the bytes stay the same:
- the frame is `driver.buffer[1:]` (its byte 0 is the data control byte 0x40, for show());
- adafruit_framebuf's text() draws a 5x8 font read from a font5x8.bin file, not MicroPython's
  8x8 one, so text is drawn here from `font`: MicroPython framebuf's 8x8 glyphs for the codes
  32..127, 8 column bytes each (MONO_VLSB: a byte per column, bit 0 the top row), the bytes that
  framebuf.text writes; `tablebuzz flash --circuitpython` puts them on the drive as FONT_FILE.
  As framebuf.text, a string is drawn byte by byte of its UTF-8 (a code outside 32..127 is 127)
  and cut at the panel's right edge;
- there is no writevto on busio.I2C: a chunk is copied behind a 0x40 in a CHUNK + 1 bytearray
  and written as one transfer (the same bytes on the bus as micropython-lib's write_data).
"""

from refbox.compat import const
from refbox.oled import CHUNK, Oled

FONT_FILE = "/refbox/font8x8.bin"
FIRST = const(32)  # the first code the font has
LAST = const(127)  # its last, drawn for every code it does not have
FONT_BYTES = (LAST - FIRST + 1) * 8
_WIDTH = const(128)


class FontError(Exception):
    """The font is missing or not MicroPython framebuf's 8x8 glyphs (a sentence for people)."""


def read_font(path=FONT_FILE):
    """The font's bytes from `path` (FONT_BYTES long). Raises FontError."""
    try:
        with open(path, "rb") as f:
            font = f.read()
    except OSError:
        raise FontError(
            "the display's font %s is not on the board: tablebuzz flash --circuitpython puts it "
            "there" % path
        ) from None
    check_font(font)
    return font


def check_font(font):
    if len(font) != FONT_BYTES:
        raise FontError(
            "the display's font has %d bytes, not %d: flash the firmware again"
            % (len(font), FONT_BYTES)
        )


class OledCP(Oled):
    """A 128 x 64 SSD1306 behind `driver` (adafruit_ssd1306.SSD1306_I2C, initialised: its
    init_display() cleared the panel), drawing text from `font` (FONT_BYTES bytes, read_font).
    Raises FontError for a font of the wrong size."""

    def __init__(self, driver, font):
        check_font(font)
        self._font = memoryview(font)
        self._chunk = bytearray(CHUNK + 1)  # 0x40 (Co = 0, D/C# = 1: display data), a chunk
        self._chunk[0] = 0x40
        super().__init__(driver, memoryview(driver.buffer)[1:])

    def _make_scratch(self):
        return None  # the scratch line is drawn into directly (_glyphs)

    def _glyphs(self, dest, at, text):
        """`text` at scale 1 into `dest` from offset `at`, up to the end of that page's 128
        columns: a slice copy of each glyph's 8 column bytes."""
        font = self._font
        end = at + _WIDTH
        for code in text.encode():
            if at >= end:
                break
            if code < FIRST or code > LAST:
                code = LAST
            glyph = (code - FIRST) * 8
            n = min(8, end - at)
            dest[at : at + n] = font[glyph : glyph + n]
            at += 8

    def _text(self, text, row):
        self._glyphs(self.frame, row * _WIDTH, text)

    def _scratch_text(self, text):
        line = self._line
        line[0:_WIDTH] = self._blank
        self._glyphs(line, 0, text)

    def _send(self, window, start):
        """The command write `window`, then the chunk at frame offset `start` behind 0x40, each
        one transfer through the driver's I2CDevice (which locks the bus around them). Raises
        OSError if the panel stopped answering."""
        chunk = self._chunk
        chunk[1:] = self._buffer[start : start + CHUNK]
        device = self.driver.i2c_device
        with device:
            device.write(window)
            device.write(chunk)
