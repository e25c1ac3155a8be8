"""The display side of the board: draws a picture (refbox.screen) into an SSD1306 driver's frame
buffer and sends it to the panel a piece at a time.

The driver is micropython-lib's `ssd1306.SSD1306_I2C` (found by refbox.board, which owns the
I2C bus); it is a framebuf.FrameBuffer over `buffer`, a byte per column per 8-row page. Sending
the whole frame (the driver's show()) holds the loop ~23 ms at 400 kHz, so only what changed is
sent, CHUNK columns of one page per call (~0.96 ms on the bus: one 7-byte command write setting
the column and page range, one data write of CHUNK bytes). Only the lines that changed are
rendered, one a call, before their pages' chunks go out: the App calls `work` only at a safe
moment (App.can_block: no race open) and at most once a loop pass. Big text (scale 2 or
3) is the font's glyphs magnified by writing the buffer's bytes directly (a byte of the font
column becomes `scale` bytes, one per page), so it costs a few table look-ups per column.

Oled is the whole of it on MicroPython; three methods touch the driver (`_text`: a scale-1 line
into the frame, `_scratch_text`: a line into the 128-byte scratch for magnifying, `_send`: one
chunk on the bus), and refbox.oled_cp overrides just those for CircuitPython's Adafruit driver,
which has no MicroPython framebuf: the frames and the chunks are the same bytes on both.
"""

from refbox.compat import const

CHUNK = const(32)  # columns sent per call: 32 data bytes + 7 command bytes = ~0.96 ms at 400 kHz
_WIDTH = const(128)


def _spread_table(scale):
    """nibble -> int with each of its 4 bits repeated `scale` times (bit 0 first). 16 entries:
    a 256-entry table took ~20 ms to build on the chip, in one loop pass."""
    table = []
    for nibble in range(16):
        value = 0
        for bit in range(4):
            if nibble >> bit & 1:
                value |= ((1 << scale) - 1) << (bit * scale)
        table.append(value)
    return table


class Oled:
    """A 128 x 64 SSD1306 behind `driver` (ssd1306.SSD1306_I2C, already initialised: its
    init_display() cleared the panel)."""

    def __init__(self, driver, frame=None):
        self.driver = driver
        self.pages = driver.height // 8
        # the frame: a byte per column per page, page 0 first (the driver's framebuffer)
        self.frame = driver.buffer if frame is None else frame
        self.picture = None  # the picture last drawn into the buffer
        self._buffer = memoryview(self.frame)
        self._lines = []  # the layout drawn last, [(first page, scale, text)]: the panel was
        # cleared by the driver's init_display()
        # control byte 0x00 (a stream of commands), then: column range, page range
        self._window = bytearray(b"\x00\x21\x00\x1f\x22\x00\x00")
        self._todo = []  # lines still to render into the buffer: (first page, scale, text)
        self._dirty = []  # buffer offsets of the chunks still to send, in order
        self._blank = bytes(_WIDTH)  # one blank page
        self._line = bytearray(_WIDTH)  # scratch: one 8-pixel text line for magnifying
        self._scratch = self._make_scratch()
        self._tables = {}  # scale -> _spread_table(scale)
        self.transfers = 0  # chunks sent so far

    def _make_scratch(self):
        import framebuf  # MicroPython's (refbox.oled_cp needs none)

        return framebuf.FrameBuffer(self._line, _WIDTH, 8, framebuf.MONO_VLSB)

    def _text(self, text, row):
        """`text` at scale 1 into the frame's page `row` (cleared before), from column 0."""
        self.driver.text(text, 0, row * 8, 1)

    def _scratch_text(self, text):
        """`text` at scale 1 into the 128-byte scratch line `_line`, cleared first."""
        scratch = self._scratch
        scratch.fill(0)
        scratch.text(text, 0, 0, 1)

    def pending(self):
        """True while part of the picture drawn is not on the panel yet (work() has more to do)."""
        return len(self._todo) > 0 or len(self._dirty) > 0

    def _layout(self, picture):
        """[(first page, scale, text)] of the lines of `picture` that fit the panel."""
        lines = []
        row = 0
        for scale, text in picture:
            if row + scale > self.pages:
                break
            lines.append((row, scale, text))
            row += scale
        return lines

    def _owners(self, lines):
        owner = [None] * self.pages  # per page: the line drawn across it
        for line in lines:
            for page in range(line[0], line[0] + line[1]):
                owner[page] = line
        return owner

    def draw(self, picture):
        """Plan `picture` ((scale, text) lines, refbox.screen): the lines that differ from those
        drawn before (same text, scale and place: kept) are queued to be rendered, their pages
        cleared and their chunks queued to be sent, by work(). Only what changed is drawn and
        sent: a new prompt line costs one page, 4 chunks."""
        lines = self._layout(picture)
        owner = self._owners(lines)
        before = self._owners(self._lines)
        changed = [page for page in range(self.pages) if owner[page] != before[page]]
        self.picture = picture
        self._lines = lines
        buffer = self.frame
        blank = self._blank
        for page in changed:  # a slice copy: framebuf's fill_rect goes pixel by pixel
            buffer[page * _WIDTH : (page + 1) * _WIDTH] = blank
        todo = self._todo
        for line in lines:
            if line[2] and line[0] in changed:  # a line's pages change together
                todo.append(line)
        dirty = self._dirty
        for page in changed:
            for start in range(page * _WIDTH, (page + 1) * _WIDTH, CHUNK):
                if start not in dirty:
                    dirty.append(start)

    def _big(self, text, row, scale):
        table = self._tables.get(scale)
        if table is None:
            table = self._tables[scale] = _spread_table(scale)
        self._scratch_text(text)
        line = self._line
        buffer = self.frame
        columns = min(len(text) * 8, _WIDTH // scale)
        top = row * _WIDTH
        # unrolled by scale: this runs for every column of every big line drawn
        if scale == 2:
            for j in range(columns):
                byte = line[j]
                value = table[byte & 15] | table[byte >> 4] << 8
                at = top + 2 * j
                buffer[at] = buffer[at + 1] = value & 0xFF
                at += _WIDTH
                buffer[at] = buffer[at + 1] = value >> 8
        else:
            for j in range(columns):
                byte = line[j]
                value = table[byte & 15] | table[byte >> 4] << 12
                at = top + 3 * j
                buffer[at] = buffer[at + 1] = buffer[at + 2] = value & 0xFF
                at += _WIDTH
                buffer[at] = buffer[at + 1] = buffer[at + 2] = (value >> 8) & 0xFF
                at += _WIDTH
                buffer[at] = buffer[at + 1] = buffer[at + 2] = value >> 16

    def work(self):
        """One piece of the picture planned by draw(): render the next line into the buffer (at
        most 16 characters, or a big line of up to 8), or once all are rendered send the next
        chunk (~0.96 ms on the bus). Raises OSError if the panel stopped answering."""
        if self._todo:
            row, scale, text = self._todo.pop(0)
            if scale == 1:
                self._text(text, row)
            else:
                self._big(text, row, min(scale, 3))
            return
        self.send_one()

    def send_one(self):
        """Send the next queued chunk (one command write, one data write on the bus: ~0.96 ms at
        400 kHz). Raises OSError if the panel stopped answering."""
        start = self._dirty.pop(0)
        page = start // _WIDTH
        column = start % _WIDTH
        window = self._window
        window[2] = column
        window[3] = column + CHUNK - 1
        window[5] = page
        window[6] = page
        self._send(window, start)
        self.transfers += 1

    def _send(self, window, start):
        """The command write `window` (column and page range), then the chunk at frame offset
        `start` as display data (micropython-lib's write_data: control byte 0x40 first)."""
        driver = self.driver
        driver.i2c.writeto(driver.addr, window)
        driver.write_data(self._buffer[start : start + CHUNK])
