"""Fake `framebuf` for CPython (the unix port and the board have the real one, which wins).

MONO_VLSB only, the format the SSD1306 driver uses: pixel (x, y) is bit y % 8 of byte
(y // 8) * stride + x. The methods the firmware uses behave as MicroPython's extmod/modframebuf.c
documents them: clipping at the edges, `text` in the 8x8 font (read from the real framebuf by
tablebuzz.sim.font8x8), each byte of the string's UTF-8 outside 32..127 drawn as glyph 127, only
set pixels drawn. tests/test_display.py draws the same pictures here and on the unix port and
compares the bytes.
"""

MONO_VLSB = 0
MVLSB = MONO_VLSB
MONO_HLSB = 3
MONO_HMSB = 4
RGB565 = 1
GS2_HMSB = 5
GS4_HMSB = 2
GS8 = 6


class FrameBuffer:
    def __init__(self, buffer, width, height, format, stride=None):
        if format != MONO_VLSB:
            raise ValueError("the simulator's framebuf models MONO_VLSB only")
        self.buf = buffer
        self.width = width
        self.height = height
        self.stride = width if stride is None else stride
        if len(buffer) < ((height + 7) // 8) * self.stride:
            raise ValueError("buffer too small")

    def _set(self, x, y, c):
        i = (y >> 3) * self.stride + x
        bit = 1 << (y & 7)
        if c:
            self.buf[i] |= bit
        else:
            self.buf[i] &= ~bit & 0xFF

    def fill(self, c):
        value = 0xFF if c else 0
        for i in range((self.height + 7) // 8 * self.stride):
            self.buf[i] = value

    def pixel(self, x, y, c=None):
        if 0 <= x < self.width and 0 <= y < self.height:
            if c is None:
                return (self.buf[(y >> 3) * self.stride + x] >> (y & 7)) & 1
            self._set(x, y, c)
        return None

    def fill_rect(self, x, y, w, h, c):
        if h < 1 or w < 1 or x + w <= 0 or y + h <= 0 or y >= self.height or x >= self.width:
            return
        x_end = min(self.width, x + w)
        y_end = min(self.height, y + h)
        x = max(x, 0)
        y = max(y, 0)
        for yy in range(y, y_end):
            for xx in range(x, x_end):
                self._set(xx, yy, c)

    def hline(self, x, y, w, c):
        self.fill_rect(x, y, w, 1, c)

    def vline(self, x, y, h, c):
        self.fill_rect(x, y, 1, h, c)

    def rect(self, x, y, w, h, c, f=False):
        if f:
            self.fill_rect(x, y, w, h, c)
            return
        self.fill_rect(x, y, w, 1, c)
        self.fill_rect(x, y + h - 1, w, 1, c)
        self.fill_rect(x, y, 1, h, c)
        self.fill_rect(x + w - 1, y, 1, h, c)

    def text(self, s, x, y, c=1):
        from tablebuzz.sim.font8x8 import glyphs

        font = glyphs()
        for code in s.encode("utf-8"):
            if code < 32 or code > 127:
                code = 127
            columns = font[code]
            for j in range(8):
                if 0 <= x < self.width:
                    line = columns[j]
                    yy = y
                    while line:
                        if line & 1 and 0 <= yy < self.height:
                            self._set(x, yy, c)
                        line >>= 1
                        yy += 1
                x += 1

    def scroll(self, xstep, ystep):
        raise NotImplementedError("the simulator's framebuf does not model scroll")

    def blit(self, fbuf, x, y, key=-1, palette=None):
        raise NotImplementedError("the simulator's framebuf does not model blit")

    def line(self, x1, y1, x2, y2, c):
        raise NotImplementedError("the simulator's framebuf does not model line")
