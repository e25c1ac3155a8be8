"""Protocol v1: newline-delimited JSON between the device and the host (see docs/protocol.md).

Events leave as one line each, keys in a fixed order ("ev" first, then the event's own order;
nested objects sorted), integers only, ASCII only: the bytes are identical under CPython and
MicroPython, whose `json.dumps` differ (dict order, non-ASCII). Commands arrive as lines of at most
MAX_LINE bytes; every malformed, oversized or unknown line becomes a ProtocolError with a stable
code, never an exception that escapes the loop.
"""

import json

from refbox.compat import const

MAX_LINE = const(512)


class ProtocolError(Exception):
    """A command line the device rejects: `code` (stable, machine-readable) and `detail` (for
    people)."""

    def __init__(self, code, detail):
        super().__init__(code)
        self.code = code
        self.detail = detail


# ------------------------------------------------------------------------------------ encoding
def _encode_str(text):
    out = ['"']
    for ch in text:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif 0x20 <= o < 0x7F:
            out.append(ch)
        elif o > 0xFFFF:
            o -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
        else:
            out.append("\\u%04x" % o)
    out.append('"')
    return "".join(out)


def encode_value(value):
    """JSON text of None, bool, int, str, list/tuple or dict (keys sorted). Floats raise
    TypeError."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _encode_str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join([encode_value(v) for v in value]) + "]"
    if isinstance(value, dict):
        keys = sorted(value)
        return "{" + ",".join([_encode_str(k) + ":" + encode_value(value[k]) for k in keys]) + "}"
    raise TypeError("protocol values are int, str, bool, None, lists and dicts")


def encode_event(name, fields=()):
    """One event line (str, no newline): {"ev": name, then `fields` pairs in their order}."""
    parts = ['{"ev":', _encode_str(name)]
    for key, value in fields:
        parts.append(",")
        parts.append(_encode_str(key))
        parts.append(":")
        parts.append(encode_value(value))
    parts.append("}")
    return "".join(parts)


# ------------------------------------------------------------------------------------ line framing
class LineAssembler:
    """Cuts a byte stream into lines of at most MAX_LINE bytes.

    `feed(data)` returns a list of items, each either the bytes of one line (ended by LF or CR,
    empty lines dropped) or a ProtocolError for a line that was too long (its bytes are discarded
    up to the next newline, so the next line is read cleanly).
    """

    def __init__(self, max_line=MAX_LINE):
        self.max_line = max_line
        self._buf = bytearray()
        self._discarding = False

    def feed(self, data):
        out = []  # type: list
        for b in data:
            if b == 10 or b == 13:  # LF ends a line; so does CR (the console sends CR LF)
                if self._discarding:
                    self._discarding = False
                    out.append(
                        ProtocolError(
                            "line_too_long", "lines are at most %d bytes" % self.max_line
                        )
                    )
                elif self._buf:
                    out.append(bytes(self._buf))
                self._buf = bytearray()
            elif self._discarding:  # the rest of a line that was too long
                continue
            elif len(self._buf) >= self.max_line:
                self._discarding = True
                self._buf = bytearray()
            else:
                self._buf.append(b)
        return out


# ------------------------------------------------------------------------------------ commands
# name -> ((field, kind, required), ...); kinds: "int", "bool", "str", "obj"
COMMANDS = {
    "hello": (),
    "state": (),
    "new_game": (("game", "str", True), ("players", "int", False), ("options", "obj", False)),
    "arm": (),
    "judge": (("correct", "bool", True),),
    "undo": (),
    "end": (),
    "menu": (),
    "act": (
        ("action", "str", True),
        ("player", "int", False),
        ("value", "int", False),
        ("values", "list", False),
        ("text", "str", False),
    ),
    "control": (("name", "str", True),),
}


def _kind_ok(value, kind):
    if kind == "bool":
        return value is True or value is False
    if kind == "int":
        return isinstance(value, int) and value is not True and value is not False
    if kind == "str":
        return isinstance(value, str)
    if kind == "list":
        return isinstance(value, list)
    return isinstance(value, dict)


def _has_non_json_constant(text):
    """True if NaN or Infinity stand outside a string: CPython's json takes them, MicroPython's
    does not, so the device refuses them itself and both interpreters answer alike."""
    in_string = escaped = False
    for i in range(len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "N" and text[i : i + 3] == "NaN" or ch == "I" and text[i : i + 8] == "Infinity":
            return True
    return False


def parse_command(line):
    """Parse one command line (bytes) into (name, args dict).

    Raises ProtocolError with code bad_encoding, bad_json, not_object, missing_field,
    unknown_command, unknown_field or bad_field.
    """
    try:
        text = line.decode("utf-8")
    except (UnicodeError, ValueError):
        raise ProtocolError("bad_encoding", "lines are UTF-8 JSON") from None
    if _has_non_json_constant(text):
        raise ProtocolError("bad_json", "NaN and Infinity are not JSON")
    try:
        obj = json.loads(text)
    except (ValueError, TypeError):  # MicroPython: ValueError; CPython: JSONDecodeError
        raise ProtocolError("bad_json", "not a JSON object") from None
    if not isinstance(obj, dict):
        raise ProtocolError("not_object", "a command is a JSON object")
    name = obj.get("cmd")
    if not isinstance(name, str):
        raise ProtocolError("missing_field", 'a command needs "cmd"')
    spec = COMMANDS.get(name)
    if spec is None:
        raise ProtocolError("unknown_command", "unknown cmd %s" % name[:32])
    args = {}
    known = ["cmd"]
    for field, kind, required in spec:
        known.append(field)
        if field in obj:
            value = obj[field]
            if not _kind_ok(value, kind):
                raise ProtocolError("bad_field", "%s: %s must be %s" % (name, field, kind))
            args[field] = value
        elif required:
            raise ProtocolError("missing_field", "%s needs %s" % (name, field))
    for key in obj:
        if key not in known:
            raise ProtocolError(
                "unknown_field", "%s has no field %s" % (name, key[:32])
            )
    return name, args
