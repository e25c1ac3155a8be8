"""A simulated SSD1306 128x64 panel on the I2C bus: it takes the bytes a driver sends and keeps
the display RAM (GDDRAM) as the glass shows it. MicroPython-subset code (it also runs under the
unix port).

The protocol (SSD1306 datasheet rev 1.1, section 8.1.5 "I2C-bus Write data" and section 10.1):
each write starts with a control byte: Co = bit 7 (1: one byte follows, then another control
byte), D/C# = bit 6 (1: display RAM data, 0: commands). Data bytes go to the RAM at the current
column and page and advance the column inside the column range; past its end the column returns
to the range start and the page advances inside the page range (horizontal addressing, mode 0x00;
page addressing, mode 0x02, stays on its page). Commands are parsed with their argument bytes;
those that change what is shown are modelled (display on/off, inversion, contrast, addressing
mode, ranges, page-mode start addresses, segment remap, COM scan direction); the rest are
accepted and kept in `settings`.
"""

WIDTH = 128
PAGES = 8
ADDRESS = 0x3C

# command -> number of argument bytes (datasheet section 9, command table)
_ARGS = {
    0x20: 1, 0x21: 2, 0x22: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2,
    0x81: 1, 0x8D: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1,
}  # fmt: skip


class Ssd1306Panel:
    address = ADDRESS

    def __init__(self):
        self.ram = bytearray(WIDTH * PAGES)
        self.on = False
        self.inverted = False
        self.contrast = 0x7F
        self.mode = 0x02  # page addressing at reset
        self.col_start, self.col_end = 0, WIDTH - 1
        self.page_start, self.page_end = 0, PAGES - 1
        self.column = 0
        self.page = 0
        self.seg_remap = False
        self.com_flip = False
        self.settings = {}
        self.writes = 0  # transfers received
        self.data_bytes = 0  # RAM bytes received
        self._cmd = []  # a command whose arguments are still coming

    # -------------------------------------------------------------------- the bus side
    def write(self, data):
        """One I2C write transfer to this address (the bytes after the address byte)."""
        self.writes += 1
        i = 0
        n = len(data)
        while i < n:
            control = data[i]
            i += 1
            single = control & 0x80
            is_data = control & 0x40
            end = i + 1 if single else n
            while i < end and i < n:
                if is_data:
                    self._ram_byte(data[i])
                else:
                    self._command_byte(data[i])
                i += 1

    def _ram_byte(self, value):
        self.data_bytes += 1
        self.ram[self.page * WIDTH + self.column] = value
        if self.mode == 0x00 or self.mode == 0x01:
            if self.mode == 0x00:  # horizontal: along the page, then the next page
                if self.column >= self.col_end:
                    self.column = self.col_start
                    self.page = self.page_start if self.page >= self.page_end else self.page + 1
                else:
                    self.column += 1
            else:  # vertical: down the pages, then the next column
                if self.page >= self.page_end:
                    self.page = self.page_start
                    last = self.column >= self.col_end
                    self.column = self.col_start if last else self.column + 1
                else:
                    self.page += 1
        elif self.column < WIDTH - 1:  # page addressing: the column stops at the end
            self.column += 1

    def _command_byte(self, value):
        cmd = self._cmd
        cmd.append(value)
        if len(cmd) - 1 < _ARGS.get(cmd[0], 0):
            return  # arguments still to come
        self._cmd = []
        self._apply(cmd)

    def _apply(self, cmd):
        op = cmd[0]
        if op == 0xAE or op == 0xAF:
            self.on = op == 0xAF
        elif op == 0xA6 or op == 0xA7:
            self.inverted = op == 0xA7
        elif op == 0x81:
            self.contrast = cmd[1]
        elif op == 0x20:
            self.mode = cmd[1] & 3
        elif op == 0x21:
            self.col_start, self.col_end = cmd[1] & 0x7F, cmd[2] & 0x7F
            self.column = self.col_start
        elif op == 0x22:
            self.page_start, self.page_end = cmd[1] & 7, cmd[2] & 7
            self.page = self.page_start
        elif 0xB0 <= op <= 0xB7:
            self.page = op & 7
        elif op <= 0x0F:
            self.column = (self.column & 0xF0) | op
        elif op <= 0x1F:
            self.column = (self.column & 0x0F) | ((op & 0x0F) << 4)
        elif op == 0xA0 or op == 0xA1:
            self.seg_remap = op == 0xA1
        elif op == 0xC0 or op == 0xC8:
            self.com_flip = op == 0xC8
        else:
            self.settings[op] = list(cmd[1:])

    # -------------------------------------------------------------------- the glass side
    def pixel(self, x, y):
        """1 if pixel (x, y) of the picture is lit (x 0..127 left to right, y 0..63 top down), as
        a driver's framebuffer coordinates map with the usual segment remap and COM flip."""
        if not self.on:
            return 0
        bit = (self.ram[(y >> 3) * WIDTH + x] >> (y & 7)) & 1
        return bit ^ 1 if self.inverted else bit

    def rows(self):
        """The picture as 64 strings of 128 characters: '#' lit, '.' dark."""
        out = []
        for y in range(PAGES * 8):
            out.append("".join(["#" if self.pixel(x, y) else "." for x in range(WIDTH)]))
        return out
