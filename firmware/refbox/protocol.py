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

    def __init__(self, code, detail, cid=None):
        super().__init__(code)
        self.code = code
        self.detail = detail
        self.cid = cid  # the command's `id`, when it had a valid one: the refusal echoes it


# ------------------------------------------------------------------------------------ text
# A host's text is looked at through its UTF-8 bytes, never a character at a time: on MicroPython
# each character taken from a str (`text[i]`, `for ch in text`, `min(text)`) is made through a
# qstr (v1.28.0 py/objstrunicode.c `str_subscr`, py/objstr.c `str_it_iternext`:
# `mp_obj_new_str_via_qstr`), so every new character a host sent was interned for good: ~10 bytes
# of heap each, never freed (a few hundred names in other scripts: tens of KB), and on a stock
# heap in pieces the next qstr pool may find no block at all, after which every new name raises
# MemoryError (refbox.games.warm). tests/test_host_text.py counts the qstrs on the unix port.


def code_points(text):
    """The code points of str `text`, a list of ints, decoded from its UTF-8 bytes (a str's are
    always well-formed). CPython's lone surrogates, which have no UTF-8, come by ord()."""
    try:
        raw = text.encode()
    except ValueError:  # CPython: a lone surrogate (MicroPython's str has none)
        return [ord(ch) for ch in text]
    points = []
    for b in raw:  # (ints: a bytes object's items make no str)
        if b & 0xC0 == 0x80:  # a continuation byte: six more bits of the last code point
            points[-1] = (points[-1] << 6) | (b & 0x3F)
        elif b < 0x80:
            points.append(b)
        elif b < 0xE0:
            points.append(b & 0x1F)
        elif b < 0xF0:
            points.append(b & 0x0F)
        else:
            points.append(b & 0x07)
    return points


def printable_ascii(text):
    """True if every character of str `text` is printable ASCII, U+0020..U+007E ("" is): C loops
    over its bytes (code_points says why not a character at a time)."""
    try:
        raw = text.encode()
    except ValueError:  # CPython: a lone surrogate
        return False
    return not raw or (len(raw) == len(text) and min(raw) >= 0x20 and max(raw) < 0x7F)


def printable_text(text, longest):
    """`text` with every character but printable ASCII as "?" (one a character), cut to
    `longest` characters ("..." its last three when cut): an error's detail, which may echo
    what a host sent."""
    if printable_ascii(text) and len(text) <= longest:
        return text
    safe = bytearray()
    for o in code_points(text[: longest + 1]):
        safe.append(o if 0x20 <= o < 0x7F else 0x3F)
    if len(safe) > longest:
        safe = safe[: longest - 3] + b"..."
    return safe.decode()


# ------------------------------------------------------------------------------------ encoding
# Encoding is on the race path: the `race` line must leave within milliseconds of the first press.
# On the emulated RP2040 (bench/README.md) every Python-level step costs 10-100 µs: a loop over a
# line's characters cost ~3 ms (issue 20), one str(int) call ~85 µs, while one `%` format with
# all of a line's values costs ~150 µs. So an event line is one `%` format: its text around the
# values (name, keys) is built once per event name and kept (_SHAPES), ints go in as they are,
# other values as their JSON text; a str is checked by C loops over its bytes (_encode_str).
_SHAPES_MAX = const(96)  # event names kept at most (the firmware has fewer): bounded RAM
# event name -> (keys, format): the last shape of that event's line. The race path's lines start
# written out (tests/test_core.py checks them against `_shape`): building a shape costs ~3.7 ms
# on the emulated chip, which the first race after every boot paid inside its race line.
_SHAPES = {
    "race": (
        ["winner", "margin_ns", "tie", "tied", "t_us", "t_ns"],
        '{"ev":"race","winner":%s,"margin_ns":%s,"tie":%s,"tied":%s,"t_us":%s,"t_ns":%s}',
    ),
    "press": (["player", "t_us", "t_ns"], '{"ev":"press","player":%s,"t_us":%s,"t_ns":%s}'),
    "margin": (
        ["winner", "player", "margin_ns"],
        '{"ev":"margin","winner":%s,"player":%s,"margin_ns":%s}',
    ),
    "armed": (
        ["players", "doing", "t_us", "t_ns"],
        '{"ev":"armed","players":%s,"doing":%s,"t_us":%s,"t_ns":%s}',
    ),
}
_STRS_MAX = const(64)  # short str values kept encoded at most
_STR_KEPT_LEN = const(16)  # characters: longer texts (details, names typed in) are not kept
_STRS = {}  # str -> its JSON text
_DICTS_MAX = const(24)  # dict shapes kept at most (bounded RAM; past it, made per dict)
# a dict's keys in its own iteration order -> (its keys sorted, the `%` format of its JSON text):
# a dict is then one `%` format, as an event line is. The games' options and a ranking's entries
# ({"place", "player", "score"}) repeat their shapes: 3-4 times faster than key by key on the
# unix port (a quiz's 20 options: ~83 -> ~22 µs; ~5 ms on the emulated chip at 200 MHz)
_DICTS = {}


def _encode_str(text):
    """JSON text of str `text` (ASCII only: the rest as \\u escapes, surrogate pairs above
    U+FFFF). Short texts are kept once encoded (names, units, reasons repeat)."""
    found = _STRS.get(text)
    if found is not None:
        return found
    # printable ASCII is copied as it is, tested by C loops over the bytes: 0.6 ms for a
    # 64-character commitment on the emulated chip, 2.7 ms a character at a time
    if printable_ascii(text) and '"' not in text and "\\" not in text:
        found = '"' + text + '"'
    if found is None:
        found = _escaped(text)
    if len(text) <= _STR_KEPT_LEN and len(_STRS) < _STRS_MAX:
        _STRS[text] = found
    return found


def _escaped(text):
    out = ['"']
    for o in code_points(text):  # (not a str a character: code_points says why)
        if o == 0x22:
            out.append('\\"')
        elif o == 0x5C:
            out.append("\\\\")
        elif 0x20 <= o < 0x7F:
            out.append("%c" % o)
        elif o > 0xFFFF:
            o -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
        else:
            out.append("\\u%04x" % o)
    out.append('"')
    return "".join(out)


def encode_value(value):
    """JSON text of None, bool, int, str, list/tuple or dict (keys sorted). Floats raise
    TypeError. An int or str item of a list, tuple or dict is encoded in place (a journal
    record's entries are tuples of ints and short str; on the chip a call costs ~20 µs), and
    each level of nesting is one frame (a loop, no comprehension's frame: the journal saves deep
    in the loop's calls, and the chip's C stack is small)."""
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
    if value.__class__ is Encoded:
        return value.text
    if isinstance(value, dict):
        return _encode_dict(value)
    if isinstance(value, list) and value and value[0].__class__ is int:
        text = str(value)  # one C call; a list of ints prints as JSON plus spaces
        if not text.strip("0123456789-,[] "):
            return text.replace(" ", "")
    if not isinstance(value, (list, tuple)):
        raise TypeError("protocol values are int, str, bool, None, lists and dicts")
    parts = []
    for v in value:  # (a ranking's dicts straight to their shape: ~0.1 ms a dict on the chip)
        c = v.__class__
        parts.append(
            str(v) if c is int else _encode_str(v) if c is str
            else _encode_dict(v) if c is dict else encode_value(v)
        )
    return "[%s]" % ",".join(parts)


def _encode_dict(value):
    """encode_value of dict `value` (str keys, in sorted order) through its shape, kept while
    fewer than _DICTS_MAX are (past that a new shape is made for the one dict)."""
    order = tuple(value)
    shape = _DICTS.get(order)
    if shape is None:
        keys = sorted(order)
        text = ",".join([_encode_str(k).replace("%", "%%") + ":%s" for k in keys])
        shape = (keys, "{" + text + "}")
        if len(_DICTS) < _DICTS_MAX:
            _DICTS[order] = shape
    values = []
    for k in shape[0]:
        v = value[k]
        c = v.__class__
        values.append(v if c is int else _encode_str(v) if c is str else encode_value(v))
    return shape[1] % tuple(values)


class Encoded:
    """A value (`value`) with its JSON text made once (`text`: encode_value(value)), which
    encode_value and encode_event put in as it is. A game's options never change in a game, and
    its `game` line and each of its snapshots carry them (refbox.games.base.Game.encoded_options):
    a quiz's 20 options took ~8 ms to encode on the emulated RP2040 at 200 MHz, three times in a
    `new_game` (the line, the snapshot's sum, its write)."""

    def __init__(self, value):
        self.value = value
        self.text = encode_value(value)

    def __eq__(self, other):  # (two runs' events compared: the same text is the same value)
        return other.__class__ is Encoded and other.text == self.text

    def __repr__(self):
        return "Encoded(%s)" % self.text


def _shape(name, keys):
    """The `%` format of an event line with these keys: every value a %s."""
    parts = ['{"ev":', _encode_str(name).replace("%", "%%")]
    for key in keys:
        parts.append(",")
        parts.append(_encode_str(key).replace("%", "%%"))
        parts.append(":%s")
    parts.append("}")
    return "".join(parts)


def encode_event(name, fields=()):
    """One event line (str, no newline): {"ev": name, then `fields` pairs in their order}."""
    keys = []
    values = []  # type: list
    for key, value in fields:
        keys.append(key)
        if value.__class__ is int:
            values.append(value)  # formatted by % itself (a bool's class is bool)
        elif value is None:
            values.append("null")
        else:
            values.append(encode_value(value))
    shape = _SHAPES.get(name)
    if shape is None or shape[0] != keys:
        shape = (keys, _shape(name, keys))
        if len(_SHAPES) < _SHAPES_MAX:
            _SHAPES[name] = shape
    return shape[1] % tuple(values)


# The `race` line's keys, in the order refbox.referee gives them, and its bytes: the line every
# player waits for is one bytes `%` format with its newline (no key walked, no shape looked up, no
# str to encode): ~0.2 ms on the emulated RP2040 where encode_event, put_line and the drain took
# ~1.4 ms (issue 20). tests/test_core.py checks it gives encode_event's bytes.
RACE_KEYS = ("winner", "margin_ns", "tie", "tied", "t_us", "t_ns")
_RACE_LINE = b'{"ev":"race","winner":%d,"margin_ns":%d,"tie":%s,"tied":%s,"t_us":%d,"t_ns":%d}\n'
_RACE_LINE_NULL = (
    b'{"ev":"race","winner":%d,"margin_ns":null,"tie":%s,"tied":%s,"t_us":%d,"t_ns":%d}\n'
)


def encode_race(fields):
    """The `race` line as bytes, "\n" included, from its `fields` ((key, value) pairs in the order
    of RACE_KEYS: winner int, margin_ns int or None, tie bool, tied list of ints, t_us, t_ns
    ints): the bytes of encode_event("race", fields) + "\n" (docs/protocol.md `race`). Other
    fields (a caller out of step) go the general way."""
    if len(fields) != 6 or fields[3][0] != "tied":
        return encode_event("race", fields).encode() + b"\n"
    tied = fields[3][1]
    listed = b"[]" if not tied else encode_value(tied).encode()
    tie = b"true" if fields[2][1] else b"false"
    margin = fields[1][1]
    if margin is None:
        return _RACE_LINE_NULL % (fields[0][1], tie, listed, fields[4][1], fields[5][1])
    return _RACE_LINE % (fields[0][1], margin, tie, listed, fields[4][1], fields[5][1])


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
        """The items that `data` (bytes) completes, in order. Each stretch between two line ends
        is taken whole (bytes.find and one extend, C loops): on the chip a Python step per byte
        cost ~30 µs, ~1 ms for a `judge` line before it could run."""
        out = []  # type: list
        n = len(data)
        start = 0
        while start < n:
            end = data.find(b"\n", start)
            cr = data.find(b"\r", start, n if end < 0 else end)
            if cr >= 0:
                end = cr
            elif end < 0:
                end = n
            if end > start and not self._discarding:
                buf = self._buf
                if end - start > self.max_line - len(buf):
                    self._discarding = True  # past MAX_LINE: dropped up to the line's end
                    self._buf = bytearray()
                else:
                    buf.extend(data[start:end])
            if end == n:
                break
            if self._discarding:  # LF ends a line; so does CR (the console sends CR LF)
                self._discarding = False
                out.append(
                    ProtocolError("line_too_long", "lines are at most %d bytes" % self.max_line)
                )
            elif self._buf:
                out.append(bytes(self._buf))
            self._buf = bytearray()
            start = end + 1
        return out


# ------------------------------------------------------------------------------------ commands
# name -> ((field, kind, required), ...); kinds: "int", "bool", "str", "obj"
COMMANDS = {
    "hello": (),
    "state": (),
    "new_game": (("game", "str", True), ("players", "int", False), ("options", "obj", False)),
    "arm": (("points", "int", False), ("compute", "bool", False)),
    "judge": (("correct", "bool", True), ("points", "int", False), ("power", "bool", False)),
    "bonus": (("parts", "list", True), ("values", "list", False)),
    "undo": (),
    "end": (),
    "menu": (),
    "act": (
        ("action", "str", True),
        ("player", "int", False),
        ("team", "int", False),
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


# ------------------------------------------------------------------------------------ strict JSON
# MicroPython's json.loads takes things CPython's refuses (07, [1,], {"a":1,}) and CPython's takes
# NaN and Infinity: a command is checked against the JSON grammar first (RFC 8259), with integer
# numbers only, so the board, the unix port and CPython answer every line alike.
_MAX_DEPTH = const(16)


def _skip_space(t, i):
    n = len(t)
    while i < n and t[i] in b" \t\n\r":
        i += 1
    return i


def _json_string(t, i):
    i += 1  # the opening quote
    end = t.find(b'"', i)  # a string without escapes or control characters: C loops alone
    if end >= i:
        seg = t[i:end]
        if not seg or (b"\\" not in seg and min(seg) >= 0x20):
            return end + 1
    n = len(t)
    while i < n:
        ch = t[i]
        if ch == 0x22:  # "
            return i + 1
        if ch == 0x5C:  # \
            nxt = t[i + 1 : i + 2]
            if nxt == b"u":
                digits = t[i + 2 : i + 6]
                if len(digits) != 4 or digits.strip(b"0123456789abcdefABCDEF"):
                    raise ValueError("bad \\u escape")
                if digits[:1] in (b"d", b"D") and digits[1:2] in b"89abcdefABCDEF":
                    # surrogate escapes decode differently on the two interpreters: send the
                    # character itself (UTF-8) instead
                    raise ValueError("surrogate \\u escapes are not taken")
                i += 6
                continue
            if not nxt or nxt not in b'"\\/bfnrt':
                raise ValueError("bad escape")
            i += 2
            continue
        if ch < 0x20:
            raise ValueError("control character in a string")
        i += 1  # (a byte of a character past ASCII: is_utf8 checked the line)
    raise ValueError("unterminated string")


def _json_number(t, i):
    n = len(t)
    if t[i] == 0x2D:  # -
        i += 1
    if i >= n or not 0x30 <= t[i] <= 0x39:
        raise ValueError("bad number")
    if t[i] == 0x30:  # 0
        i += 1
    else:
        while i < n and 0x30 <= t[i] <= 0x39:
            i += 1
    if i < n and t[i] in b".eE0123456789":
        raise ValueError("numbers are integers without leading zeros")
    return i


def _json_value(t, i, depth):
    """Index after the JSON value starting at (or after spaces from) `i` in the UTF-8 bytes `t`
    (ints, no str a character: code_points says why). Raises ValueError."""
    i = _skip_space(t, i)
    if i >= len(t):
        raise ValueError("a value is missing")
    ch = t[i]
    if ch == 0x7B or ch == 0x5B:  # { [
        if depth >= _MAX_DEPTH:
            raise ValueError("nested too deep")
        close = 0x7D if ch == 0x7B else 0x5D  # } ]
        i = _skip_space(t, i + 1)
        if i < len(t) and t[i] == close:
            return i + 1
        while True:
            if ch == 0x7B:
                i = _skip_space(t, i)
                if i >= len(t) or t[i] != 0x22:
                    raise ValueError("a key is a string")
                i = _skip_space(t, _json_string(t, i))
                if i >= len(t) or t[i] != 0x3A:  # :
                    raise ValueError("a colon is missing")
                i += 1
            i = _skip_space(t, _json_value(t, i, depth + 1))
            if i < len(t) and t[i] == 0x2C:  # ,
                i += 1
                continue
            if i < len(t) and t[i] == close:
                return i + 1
            raise ValueError("a comma or a closing bracket is missing")
    if ch == 0x22:
        return _json_string(t, i)
    if ch == 0x2D or 0x30 <= ch <= 0x39:
        return _json_number(t, i)
    for word in (b"true", b"false", b"null"):
        if t[i : i + len(word)] == word:
            return i + len(word)
    raise ValueError("not a JSON value")


_WORDS = ("@", "true", "false", "null")  # a flat object's values but integers ("@": a string)


def _flat_object(text):
    """True if `text` is certainly strict JSON: one flat object, spaces its only whitespace,
    string keys, each value a string without escapes, an integer without leading zeros, true,
    false or null (`arm`, `judge` and most commands). False says nothing: check_json's grammar
    then decides.

    Why: the grammar walks a line a character at a time, 0.5-1.6 ms a command on the emulated
    RP2040 at 200 MHz; this takes 0.3-0.9 ms. The strings are cut out by one split (with no
    backslash, no quote is inside one) and the rest is checked an item at a time, by C loops
    (split, strip). A nested line is left at once (a desk's `new_game` has its options)."""
    if "\\" in text or "[" in text or text.count("{") != 1 or min(text.encode()) < 0x20:
        return False  # (escapes, lists, nested objects, tabs, newlines; bytes: min over a str
        # makes a str per character, ~0.5 ms a line on the chip)
    parts = text.split('"')
    if not len(parts) & 1:
        return False  # an unclosed string
    outside = parts[0::2]
    skeleton = "@".join(outside).strip(" ")  # each string now one "@"
    if skeleton.count("@") != len(outside) - 1:
        return False  # an "@" outside the strings
    if skeleton[:1] != "{" or skeleton[-1:] != "}":
        return False
    for item in skeleton[1:-1].split(","):
        key, _, value = item.partition(":")  # (a second ":" stays in `value`: refused there)
        if key.strip(" ") != "@":
            return False
        value = value.strip(" ")
        if value in _WORDS:
            continue
        digits = value[1:] if value[:1] == "-" else value
        if not digits or digits.strip("0123456789") or (digits[0] == "0" and digits != "0"):
            return False
    return True


def check_json(text):
    """Raise ValueError unless `text` is one strict JSON value (integers only, depth <= 16)."""
    if _flat_object(text):
        return  # (the grammar's answer, by a shorter way)
    t = text.encode()  # (the grammar reads bytes: code_points says why)
    end = _skip_space(t, _json_value(t, 0, 0))
    if end != len(t):
        raise ValueError("text after the value")


def is_utf8(data):
    """True if `data` (bytes) is well-formed UTF-8 (RFC 3629, Unicode 15 table 3-7): no overlong
    forms, no encoded surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no stray or missing
    continuation bytes. Checked here because MicroPython's bytes.decode accepts all of those while
    CPython's refuses them: both interpreters must answer a line alike."""
    if not data or max(data) < 0x80:
        return True  # ASCII (one C loop): every line a desk sends
    i = 0
    n = len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            i += 1
            continue
        if 0xC2 <= b <= 0xDF:
            need, low, high = 1, 0x80, 0xBF
        elif b == 0xE0:
            need, low, high = 2, 0xA0, 0xBF  # E0 80..9F would be overlong
        elif 0xE1 <= b <= 0xEC or b == 0xEE or b == 0xEF:
            need, low, high = 2, 0x80, 0xBF
        elif b == 0xED:
            need, low, high = 2, 0x80, 0x9F  # ED A0..BF would encode a surrogate
        elif b == 0xF0:
            need, low, high = 3, 0x90, 0xBF  # F0 80..8F would be overlong
        elif 0xF1 <= b <= 0xF3:
            need, low, high = 3, 0x80, 0xBF
        elif b == 0xF4:
            need, low, high = 3, 0x80, 0x8F  # F4 90.. would be above U+10FFFF
        else:
            return False  # C0, C1 (overlong), F5..FF (beyond U+10FFFF), a stray continuation
        if i + need >= n:
            return False  # cut short
        c = data[i + 1]
        if not low <= c <= high:
            return False
        for k in range(i + 2, i + 1 + need):
            if not 0x80 <= data[k] <= 0xBF:
                return False
        i += 1 + need
    return True


MAX_ID = const(0x3FFFFFFF)  # a command id is an int 0..2**30 - 1 (a small int everywhere)
MAX_ID_CHARS = const(16)  # or a string of at most 16 printable ASCII characters


def command_id(obj):
    """The `id` of command object `obj` (docs/protocol.md "Command ids"): None if it has none,
    else the int or str. Raises ProtocolError bad_field for any other id."""
    if "id" not in obj:
        return None
    cid = obj["id"]
    if isinstance(cid, int) and cid is not True and cid is not False and 0 <= cid <= MAX_ID:
        return cid
    if isinstance(cid, str) and 0 < len(cid) <= MAX_ID_CHARS and printable_ascii(cid):
        return cid
    raise ProtocolError(
        "bad_field",
        "id: an int 0..%d or up to %d printable ASCII characters" % (MAX_ID, MAX_ID_CHARS),
    )


def parse_command(line):
    """Parse one command line (bytes) into (name, args dict, id or None).

    Raises ProtocolError with code bad_encoding, bad_json, not_object, missing_field,
    unknown_command, unknown_field or bad_field; once the line is a JSON object with a valid
    `id`, the error carries it (`cid`) so the refusal names the command it refuses.
    """
    if not is_utf8(line):
        raise ProtocolError("bad_encoding", "lines are UTF-8 JSON")
    text = line.decode("utf-8")
    # the refusals are raised outside the except clauses (no chained exception on CPython, as
    # `from None` would give): mpy-cross's native emitter has neither `raise ... from` nor a
    # bare `raise` (tablebuzz.link.flash.NATIVE)
    bad = None
    obj = None
    try:
        check_json(text)
    except ValueError as e:
        bad = "not JSON: %s" % e.args[0]
    if bad is None:
        try:
            obj = json.loads(text)
        except (ValueError, TypeError):  # MicroPython: ValueError; CPython: JSONDecodeError
            bad = "not a JSON object"
    if bad is not None:
        raise ProtocolError("bad_json", bad)
    if not isinstance(obj, dict):
        raise ProtocolError("not_object", "a command is a JSON object")
    cid = command_id(obj)
    try:
        name, args = _fields(obj)
    except ProtocolError as e:
        e.cid = cid
        raise e
    return name, args, cid


def _fields(obj):
    """(name, args) of command object `obj`, checked against COMMANDS. Raises ProtocolError."""
    name = obj.get("cmd")
    if not isinstance(name, str):
        raise ProtocolError("missing_field", 'a command needs "cmd"')
    spec = COMMANDS.get(name)
    if spec is None:
        raise ProtocolError("unknown_command", "unknown cmd %s" % name[:32])
    args = {}
    known = ["cmd", "id"]
    for field, kind, required in spec:
        known.append(field)
        if field in obj:
            value = obj[field]
            if not _kind_ok(value, kind):
                raise ProtocolError("bad_field", "%s: %s must be %s" % (name, field, kind))
            args[field] = value
        elif required:
            raise ProtocolError("missing_field", "%s needs %s" % (name, field))
    unknown = [key for key in obj if key not in known]
    if unknown:
        unknown.sort()  # the first in sorted order: dict order differs between interpreters
        raise ProtocolError("unknown_field", "%s has no field %s" % (name, unknown[0][:32]))
    return name, args
