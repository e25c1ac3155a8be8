"""The widgets both terminal screens share (the simulator's and a board's): a station's buzzer
and LED, the control buttons, the marker bar, the optional display in braille, and the layout
(`screen_widgets`, `SCREEN_CSS`)."""

from rich.text import Text
from textual.widgets import RichLog, Static

LOG_LINES = 500
# (key, control name, label) of each control button
CONTROL_KEYS = (("a", "arm", "ARM"), ("y", "yes", "YES"), ("n", "no", "NO"), ("u", "undo", "UNDO"))
OFF_RGB = (48, 48, 48)  # an unlit LED is drawn dark grey so its shape stays visible


def hex_colour(rgb):
    """(r, g, b) 0..255 as "#rrggbb"."""
    return "#%02x%02x%02x" % rgb


class Buzzer(Static):
    """One station: the arcade button in the player's colour and its LED as the firmware drives
    it."""

    DEFAULT_CSS = """
    Buzzer {
        width: 1fr;
        height: 7;
        border: round #555555;
        border-title-align: center;
        border-subtitle-align: center;
        text-align: center;
        content-align: center middle;
    }
    """

    def __init__(self, station, colour, **kwargs):
        super().__init__(**kwargs)
        self.station = station
        self.colour = colour
        self.level = "off"  # off / dim / full / white / on / blink / tie: for people and tests
        self.rgb = (0, 0, 0)  # the LED as it looks now (display colour; (0, 0, 0) = off)
        self.pressed = False
        self.in_game = True
        self._shown = None

    def on_mount(self):
        self.border_title = "P%d" % (self.station + 1)
        self._paint()

    def show(self, rgb, level, pressed, in_game):
        self.rgb, self.level, self.pressed, self.in_game = rgb, level, pressed, in_game
        self._paint()

    def _paint(self):
        key = (self.rgb, self.level, self.pressed, self.in_game)
        if key == self._shown or not self.is_mounted:
            return  # nothing changed: no redraw, no flicker
        self._shown = key
        player = hex_colour(self.colour) if self.in_game else "#555555"
        self.styles.border = ("heavy" if self.pressed else "round", player)
        self.styles.border_title_color = player
        self.styles.border_title_style = "bold reverse" if self.pressed else "bold"
        self.border_subtitle = ("key %d" % (self.station + 1)) if self.in_game else "unused"
        lit = self.rgb != (0, 0, 0)
        led = hex_colour(self.rgb if lit else OFF_RGB)
        text = Text("\n", justify="center")
        for row in ("▄█████▄", "███████", "▀█████▀"):
            text.append(row + "\n", style=led)
        label = {
            "off": "off",
            "dim": "dim",
            "full": "LIT",
            "white": "WHITE",
            "blink": "BLINK",
            "tie": "TIE WIN",
            "on": "on",
        }.get(self.level, "?")
        if self.pressed:
            text.append("▼ %s ▼" % label, style="bold reverse " + player)
        else:
            text.append(label, style=("bold " + led) if lit else "#777777")
        self.update(text)


_BRAILLE_DOTS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))  # [row][column]


def braille(pixel, width=128, height=64):
    """A 1-bit picture as braille text, 2 x 4 pixels a character: `pixel(x, y)` is 1 when lit."""
    rows = []
    for y0 in range(0, height, 4):
        row = []
        for x0 in range(0, width, 2):
            bits = 0
            for dy in range(4):
                for dx in range(2):
                    if pixel(x0 + dx, y0 + dy):
                        bits |= _BRAILLE_DOTS[dy][dx]
            row.append(chr(0x2800 + bits))
        rows.append("".join(row))
    return "\n".join(rows)


class OledView(Static):
    """The optional SSD1306 display as the simulated panel shows it (tablebuzz.sim.oled): its
    128 x 64 pixels in braille. Key o shows or hides it (shown at start on a wide terminal)."""

    DEFAULT_CSS = """
    OledView {
        width: 68;
        height: 18;
        border: round #3a4450;
        border-title-color: #8899aa;
        background: #000000;
        color: #8fd8ff;
        padding: 0 1;
    }
    """

    def __init__(self, panel, **kwargs):
        super().__init__(**kwargs)
        self.panel = panel
        self.picture = ""  # the braille text shown
        self._ram = None

    def on_mount(self):
        self.border_title = "display"
        self.refresh_picture()

    def refresh_picture(self):
        ram = bytes(self.panel.ram)
        key = (ram, self.panel.on, self.panel.inverted)
        if key == self._ram or not self.is_mounted:
            return
        self._ram = key
        self.picture = braille(self.panel.pixel)
        self.update(Text(self.picture))


class ControlButton(Static):
    DEFAULT_CSS = """
    ControlButton {
        width: 1fr;
        height: 3;
        border: round #666666;
        text-align: center;
        color: #dddddd;
    }
    """

    def __init__(self, key, name, label, **kwargs):
        super().__init__(**kwargs)
        self.key, self.control, self.label = key, name, label
        self.pressed = False
        self._shown = None

    def on_mount(self):
        self._paint()

    def show(self, pressed):
        self.pressed = pressed
        self._paint()

    def _paint(self):
        if self._shown == self.pressed or not self.is_mounted:
            return
        self._shown = self.pressed
        self.styles.border = ("heavy", "#ffd75f") if self.pressed else ("round", "#666666")
        text = Text()
        text.append(" %s " % self.key, style="bold black on #ffd75f")
        text.append(" " + self.label, style="bold reverse" if self.pressed else "bold")
        self.update(text)


class MarkerBar(Static):
    DEFAULT_CSS = """
    MarkerBar {
        width: 34;
        height: 3;
        border: round #555555;
        border-title-color: #999999;
        padding: 0 1;
    }
    """

    def __init__(self, count, **kwargs):
        super().__init__(**kwargs)
        self.pixels = [(0, 0, 0)] * count
        self._shown = None

    def on_mount(self):
        self.border_title = "marker bar"
        self.show(self.pixels)

    def show(self, pixels):
        self.pixels = list(pixels)
        if self.pixels == self._shown or not self.is_mounted:
            return
        self._shown = self.pixels
        text = Text()
        for i, rgb in enumerate(self.pixels):
            text.append(
                "██" if rgb != (0, 0, 0) else "▒▒",
                style=hex_colour(rgb if rgb != (0, 0, 0) else OFF_RGB),
            )
            if i + 1 < len(self.pixels):
                text.append(" ")
        self.update(text)


def screen_widgets(pinmap, stations):
    """The widgets both screens share (the simulator's and a board's): title, one Buzzer per
    station, the control buttons, scores, the event log, the key help."""
    log = RichLog(id="log", max_lines=LOG_LINES, wrap=False, auto_scroll=True)
    log.border_title = "events"
    log.can_focus = False
    return {
        "title": Static(id="title"),
        "buzzers": [
            Buzzer(i, pinmap.PLAYER_COLOURS[i], id="buzzer%d" % (i + 1)) for i in range(stations)
        ],
        "controls": [
            ControlButton(key, name, label, id="control_" + name)
            for key, name, label in CONTROL_KEYS
        ],
        "scores": Static(id="scores"),
        "log": log,
        "help": Static(id="help"),
    }


# The layout both screens share: title, buzzers, the bottom row, scores, log, help.
SCREEN_CSS = """
    Screen { background: #101418; }
    #title { height: 1; background: #1f3a5f; color: #ffffff; }
    #buzzers { height: 7; }
    #bottom { height: 3; }
    #scores { height: 1; padding: 0 1; }
    #log {
        height: 1fr;
        border: round #3a4450;
        border-title-color: #8899aa;
        background: #101418;
        scrollbar-size-vertical: 1;
    }
    #help { height: 1; background: #26303a; color: #c0c8d0; }
    #middle { height: 1fr; }
    #helppanel {
        height: auto;
        border: round #ffd75f;
        background: #1a2028;
        color: #e0e6ec;
        padding: 0 1;
    }
"""
