"""USB keyboard mode: a race's winner types their station's key (docs/usb-keyboard.md).

Pure core (no `machine`, no `usb`): which key each station types, read from the board's
`usb_keyboard.json` (`parse_keys`), and the `Typist`, which turns each race winner into a key
press and its release on a HID keyboard interface: micropython-lib's
`usb.device.keyboard.KeyboardInterface` on the board (refbox.board.start_usb_keyboard), with
its `send_keys(down_keys, timeout_ms)`, `busy()` and `is_open()`.

The App calls `race(winner)` when the race line goes out, and `service()` once a pass after the
race line, the winner's LED and the held lines (refbox.app): the key never goes ahead of them,
and `service()` never waits for the host (it sends only when the interrupt endpoint is free,
with a 0 ms timeout; otherwise the next pass tries again).

Key names are micropython-lib's `KeyCode` names (usb-device-keyboard 0.1.1), whose values are
the HID Usage Tables' Keyboard/Keypad page (0x07) usage IDs (HID Usage Tables 1.5, §10): "A"-"Z",
"N0"-"N9" (the number row), "F1"-"F12", "KP_0"-"KP_9", "SPACE", "ENTER", ... A key may be a list
of names: modifiers (negative values, as KeyCode gives them: "LEFT_SHIFT") with one key.
"""

# HID usage IDs of the Keyboard/Keypad page; modifiers negated (bit of the report's byte 0), as
# micropython-lib's KeyCode has them
KEY_CODES = {
    "ENTER": 40, "ESCAPE": 41, "BACKSPACE": 42, "TAB": 43, "SPACE": 44, "MINUS": 45,
    "EQUAL": 46, "OPEN_BRACKET": 47, "CLOSE_BRACKET": 48, "BACKSLASH": 49, "HASH": 50,
    "SEMICOLON": 51, "QUOTE": 52, "GRAVE": 53, "COMMA": 54, "DOT": 55, "SLASH": 56,
    "CAPS_LOCK": 57, "PRINTSCREEN": 70, "SCROLL_LOCK": 71, "PAUSE": 72, "INSERT": 73,
    "HOME": 74, "PAGEUP": 75, "DELETE": 76, "END": 77, "PAGEDOWN": 78, "RIGHT": 79,
    "LEFT": 80, "DOWN": 81, "UP": 82, "KP_NUM_LOCK": 83, "KP_DIVIDE": 84, "KP_MULTIPLY": 85,
    "KP_AT": 85, "KP_MINUS": 86, "KP_PLUS": 87, "KP_ENTER": 88, "KP_0": 98,
    "LEFT_CTRL": -0x01, "LEFT_SHIFT": -0x02, "LEFT_ALT": -0x04, "LEFT_UI": -0x08,
    "RIGHT_CTRL": -0x10, "RIGHT_SHIFT": -0x20, "RIGHT_ALT": -0x40, "RIGHT_UI": -0x80,
}
for _i in range(26):
    KEY_CODES["ABCDEFGHIJKLMNOPQRSTUVWXYZ"[_i]] = 4 + _i  # A = 4 ... Z = 29
for _i in range(1, 10):
    KEY_CODES["N%d" % _i] = 29 + _i  # N1 = 30 ... N9 = 38
    KEY_CODES["KP_%d" % _i] = 88 + _i  # KP_1 = 89 ... KP_9 = 97
KEY_CODES["N0"] = 39
for _i in range(1, 13):
    KEY_CODES["F%d" % _i] = 57 + _i  # F1 = 58 ... F12 = 69

MOST_KEYS = 6  # keys held at once in the boot keyboard's report (its 6-byte array)


class KeyConfigError(ValueError):
    """A usb_keyboard.json the firmware cannot use (one line, said at boot as an `error`)."""


def default_keys(stations):
    """{station: (code,)}: station k types the number row's k (1-9), as most quiz programs
    that take a keyboard expect."""
    return {s: (KEY_CODES["N%d" % (s % 10)],) for s in range(1, min(stations, 9) + 1)}


def parse_keys(config, stations):
    """{station (1-based): (code, ...)} from usb_keyboard.json's object: {"keys": {"1": "A",
    "2": ["LEFT_SHIFT", "B"], ...}}; without "keys", `default_keys`. A station left out types
    nothing. Raises KeyConfigError (an unknown name, a station out of 1..stations, too many
    keys)."""
    if not isinstance(config, dict):
        raise KeyConfigError("usb_keyboard.json: not a JSON object")
    if "keys" not in config:
        return default_keys(stations)
    keys = config["keys"]
    if not isinstance(keys, dict):
        raise KeyConfigError('usb_keyboard.json: "keys" is not an object')
    out = {}
    for name, value in keys.items():
        try:
            station = int(name)
        except ValueError:
            station = 0
        if not 1 <= station <= stations:
            raise KeyConfigError("usb_keyboard.json: station %r is not 1..%d" % (name, stations))
        names = value if isinstance(value, list) else [value]
        codes = []
        for key in names:
            code = KEY_CODES.get(key) if isinstance(key, str) else None
            if code is None:
                raise KeyConfigError("usb_keyboard.json: station %d: unknown key %r (names as "
                                     "micropython-lib's KeyCode: A, N1, F1, SPACE...)"
                                     % (station, key))
            codes.append(code)
        if len([c for c in codes if c > 0]) > MOST_KEYS:
            raise KeyConfigError("usb_keyboard.json: station %d: more than %d keys"
                                 % (station, MOST_KEYS))
        out[station] = tuple(codes)
    return out


class Typist:
    """Types each race winner's key on `keyboard` (see the module doc): a press report, then an
    all-keys-up report, each sent when the host has taken the one before.

    `keys`: parse_keys' {station: codes}. `typed`: taps whose release went out; `dropped`:
    taps not typed (no host has opened the keyboard, or `most_waiting` taps were already
    waiting: a host that stopped polling)."""

    most_waiting = 4  # taps waiting for the host at most

    def __init__(self, keys, keyboard):
        self.keys = keys
        self.keyboard = keyboard
        self._reports = []  # what is still to send: codes of a press, () for its release
        self.pending = False  # a report waits (the App keeps stepping meanwhile)
        self.typed = 0
        self.dropped = 0

    def race(self, winner):
        """The race went to `winner` (1-based station; None: nobody): queue its tap."""
        codes = self.keys.get(winner)
        if codes is None:
            return
        if len(self._reports) >= 2 * self.most_waiting:
            self.dropped += 1
            return
        self._reports.append(codes)
        self._reports.append(())
        self.pending = True

    def service(self):
        """Send the next report if the host has taken the last one; never waits."""
        keyboard = self.keyboard
        reports = self._reports
        if not reports:
            return
        if not keyboard.is_open():  # no host configured the keyboard: nobody to type to
            self.dropped += (len(reports) + 1) // 2
            reports.clear()
            self.pending = False
            return
        if keyboard.busy():
            return  # the host has not polled the last report yet: next pass
        if keyboard.send_keys(reports[0], 0):
            if not reports.pop(0):
                self.typed += 1
            self.pending = bool(reports)
