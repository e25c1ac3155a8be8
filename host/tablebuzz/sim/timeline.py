"""Read a simulator timeline (JSON lines) into validated, time-ordered records.

Each line is one object with "at_us" (µs from the start of the run; an integer, or a number with
up to three decimals = ns; may exceed 2**30) and exactly one action:
  {"press": P} / {"release": P}   player P's contact closes / opens (1-based); it stays closed
                                  until released
  {"control": NAME}               a control is pressed and released 120 ms later ("hold_ms": N
                                  holds it longer: UNDO held 2 s returns to the menu)
  {"send": {...}}                 a protocol command from the host; {"send_raw": "text"} any line
  {"send_hex": "7b22..."}         any bytes, in hex (also malformed UTF-8), then a newline
  {"glitch": P, "width_ns": W}    a noise pulse on player P's open contact (default 500 ns)
  {"mask_us": N}                  interrupts masked N µs (as a CPU NeoPixel or flash write)
  {"gc_us": N}                    a gc.collect() pause of N µs
  {"power": "off"} / {"power": "on"}  cut the board's power / power it up again: it boots from
                                  main.py with its flash as the cut left it (the board starts
                                  powered; off and on alternate; what happens while off is
                                  ignored by the board, the contacts still move)
  {"host": "stall"} / {"host": "read"}  the host stops reading the USB console (connected, its
                                  buffers full) / reads again (the default): the board's output
                                  then waits in its bounded queue (docs/architecture.md)
  {"hang": true}                  the firmware's next loop pass never returns (a bug that loops
                                  forever): the watchdog resets the board 8 s after that pass
                                  fed it and the game resumes from the journal; Ctrl-C stops it
Blank lines and lines starting with "#" are skipped. Lines go in time order (a line earlier than
the one before it is an error); records at the same time keep their file order. Errors raise
TimelineError naming the line.

The first line (after comments) may be the set-up line, so that the file plays as is:
  {"setup": {"game": "deglingo", "players": 2, "options": {"timer": 3}, "seed": "1"}}
("display": true attaches the simulated SSD1306); every key optional; `tablebuzz sim` flags given
on the command line win over it.
"""

import json
from decimal import Decimal, InvalidOperation

MAX_AT_US = 10**12
MAX_MASK_US = 100000  # design notes: a 16-pixel CPU write masks 0.5 ms, a flash write a few ms
MAX_GC_US = 1000000  # design notes: gc.collect() 0.5-12.7 ms
SETUP_KEYS = ("game", "players", "options", "seed", "display")
ACTIONS = (
    "press",
    "release",
    "control",
    "send",
    "send_raw",
    "send_hex",
    "glitch",
    "mask_us",
    "gc_us",
    "power",
    "host",
    "hang",
)


class TimelineError(ValueError):
    """A timeline line that cannot be run: `line_no` (1-based) and the reason."""

    def __init__(self, line_no, reason):
        super().__init__("line %d: %s" % (line_no, reason))
        self.line_no = line_no
        self.reason = reason


def _at_ns(value, line_no):
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise TimelineError(line_no, '"at_us" must be a number of µs')
    try:
        ns = Decimal(value) * 1000
    except InvalidOperation:
        raise TimelineError(line_no, '"at_us" must be a number of µs') from None
    if ns != ns.to_integral_value():
        raise TimelineError(line_no, '"at_us" has at most three decimals (ns)')
    if ns < 0:
        raise TimelineError(line_no, '"at_us" must not be negative')
    if ns > MAX_AT_US * 1000:
        raise TimelineError(line_no, '"at_us" is at most %d (about 11.6 days)' % MAX_AT_US)
    return int(ns)


def _player(value, players, line_no, key):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TimelineError(line_no, '"%s" takes a player number' % key)
    if not 1 <= value <= players:
        raise TimelineError(line_no, "player %d is not in this %d-player game" % (value, players))
    return value


def _bounded(value, line_no, key, high):
    value = _positive_int(value, line_no, key)
    if value > high:
        raise TimelineError(line_no, '"%s" is at most %d on a real board' % (key, high))
    return value


def _positive_int(value, line_no, key):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise TimelineError(line_no, '"%s" takes a positive integer' % key)
    return value


def _lines(text):
    """(line number, JSON object) for every line that is not blank or a comment."""
    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            obj = json.loads(line, parse_float=Decimal)
        except ValueError as e:
            raise TimelineError(
                line_no, "not JSON (%s)" % e.msg if hasattr(e, "msg") else "not JSON"
            ) from None
        if not isinstance(obj, dict):
            raise TimelineError(line_no, "each line is a JSON object")
        yield line_no, obj


def read_setup(text):
    """The set-up line's dict ({} if the timeline has none): "game" (str), "players" (int),
    "options" (object), "seed" (hex str), all optional. Raises TimelineError."""
    for line_no, obj in _lines(text):
        if "setup" not in obj:
            return {}
        setup = obj["setup"]
        if len(obj) != 1 or not isinstance(setup, dict):
            raise TimelineError(line_no, 'the set-up line is {"setup": {...}} alone')
        extra = sorted(set(setup) - set(SETUP_KEYS))
        if extra:
            raise TimelineError(
                line_no,
                "unknown set-up key(s): %s (keys: %s)" % (", ".join(extra), ", ".join(SETUP_KEYS)),
            )
        for key, kind, what in (
            ("game", str, "a game name"),
            ("players", int, "a number of players"),
            ("options", dict, "an object of game options"),
            ("seed", str, "a hex string"),
            ("display", bool, "true or false"),
        ):
            value = setup.get(key)
            wrong = isinstance(value, bool) != (kind is bool) or not isinstance(value, kind)
            if key in setup and wrong:
                raise TimelineError(line_no, 'set-up "%s" takes %s' % (key, what))
        try:
            return json.loads(json.dumps(setup, default=_no_floats(line_no)))
        except TypeError:
            raise TimelineError(line_no, "set-up options carry integers only") from None
    return {}


def parse(text, players, controls):
    """Records [{"t": ns, "k": kind, ...}] in time order, from timeline `text` (its set-up
    line, if any, is read by read_setup).

    `players` is the number of stations in play (1..N), `controls` the control names.
    Raises TimelineError.
    """
    records = []
    first = True
    for line_no, obj in _lines(text):
        if "setup" in obj:
            if not first:
                raise TimelineError(line_no, "the set-up line must come before every action")
            read_setup(text)  # checked there
            first = False
            continue
        first = False
        if "at_us" not in obj:
            raise TimelineError(line_no, 'missing "at_us"')
        actions = [k for k in obj if k in ACTIONS]
        if len(actions) != 1:
            raise TimelineError(line_no, "each line needs exactly one of: " + ", ".join(ACTIONS))
        allowed = {"at_us", actions[0]}
        if actions[0] == "glitch":
            allowed.add("width_ns")
        if actions[0] == "control":
            allowed.add("hold_ms")
        extra = set(obj) - allowed
        if extra:
            raise TimelineError(line_no, "unknown key(s) here: " + ", ".join(sorted(extra)))
        kind = actions[0]
        value = obj[kind]
        rec = {"t": _at_ns(obj["at_us"], line_no), "line_no": line_no}
        if kind in ("press", "release"):
            rec.update(k=kind, p=_player(value, players, line_no, kind))
        elif kind == "glitch":
            rec.update(k="glitch", p=_player(value, players, line_no, kind))
            rec["ns"] = _positive_int(obj.get("width_ns", 500), line_no, "width_ns")
        elif kind == "control":
            if value not in controls:
                raise TimelineError(
                    line_no, "unknown control %r (controls: %s)" % (value, ", ".join(controls))
                )
            rec.update(k="control", name=value)
            hold_ms = _positive_int(obj.get("hold_ms", 120), line_no, "hold_ms")
            rec["hold_ns"] = hold_ms * 10**6
        elif kind == "send":
            if not isinstance(value, dict):
                raise TimelineError(line_no, '"send" takes a protocol command object')
            # raw UTF-8, as a host would send it (surrogate \u escapes are refused by the device)
            text = json.dumps(
                value, separators=(",", ":"), ensure_ascii=False, default=_no_floats(line_no)
            )
            rec.update(k="send", line=text)
        elif kind == "send_raw":
            if not isinstance(value, str):
                raise TimelineError(line_no, '"send_raw" takes a string')
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                reason = '"send_raw" holds a lone surrogate (not UTF-8)'
                raise TimelineError(line_no, reason) from None
            rec.update(k="send", line=value)
        elif kind == "send_hex":
            try:
                data = bytes.fromhex(value) if isinstance(value, str) else None
            except ValueError:
                data = None
            if data is None or 3 in data:
                reason = '"send_hex" takes hex digits (bytes; 03, Ctrl-C, is not sent)'
                raise TimelineError(line_no, reason)
            rec.update(k="send_bytes", hex=data.hex())
        elif kind == "mask_us":  # a NeoPixel or flash write: milliseconds at most
            rec.update(k="mask", ns=_bounded(value, line_no, kind, MAX_MASK_US) * 1000)
        elif kind == "gc_us":  # a gc.collect(): ~13 ms with 60 KB live on the board
            rec.update(k="gc", ns=_bounded(value, line_no, kind, MAX_GC_US) * 1000)
        elif kind == "power":
            if value not in ("off", "on"):
                raise TimelineError(line_no, '"power" is "off" or "on"')
            rec.update(k="power", on=value == "on")
        elif kind == "hang":
            if value is not True:
                reason = '"hang" takes true (the next loop pass never returns)'
                raise TimelineError(line_no, reason)
            rec.update(k="hang")
        elif kind == "host":
            if value not in ("stall", "read"):
                raise TimelineError(line_no, '"host" takes "stall" or "read"')
            rec.update(k="host", reading=value == "read")
        if records and rec["t"] < records[-1]["t"]:
            before = records[-1]
            raise TimelineError(
                line_no,
                "at_us %s comes before line %d's %s: lines go in time order"
                % (_us_text(rec["t"]), before["line_no"], _us_text(before["t"])),
            )
        records.append(rec)
    _check_contacts(records)
    _check_power(records)
    return records


def _us_text(ns):
    """ns as the µs a timeline writes: 690000 or 690000.840."""
    return "%d" % (ns // 1000) if ns % 1000 == 0 else "%d.%03d" % (ns // 1000, ns % 1000)


def _check_power(records):
    powered = True  # the board starts powered
    for rec in records:
        if rec["k"] == "power":
            if rec["on"] == powered:
                state = "on" if powered else "off"
                raise TimelineError(rec["line_no"], "the power is already %s then" % state)
            powered = rec["on"]


def _no_floats(line_no):
    def default(value):
        if isinstance(value, Decimal):
            if value == value.to_integral_value():
                return int(value)
            raise TimelineError(line_no, "protocol commands carry integers only")
        raise TypeError(type(value).__name__)

    return default


def _check_contacts(records):
    closed = set()
    for rec in records:
        if rec["k"] == "press":
            if rec["p"] in closed:
                raise TimelineError(
                    rec["line_no"], "player %d is already pressed (release first)" % rec["p"]
                )
            closed.add(rec["p"])
        elif rec["k"] == "release":
            if rec["p"] not in closed:
                raise TimelineError(rec["line_no"], "player %d is not pressed" % rec["p"])
            closed.discard(rec["p"])
