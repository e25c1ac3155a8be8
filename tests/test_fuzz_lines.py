"""Raw byte lines, well-formed or not, get byte-identical answers from the firmware under CPython
and under the MicroPython unix port (docs/protocol.md "Framing"): UTF-8 is validated by the
firmware itself (refbox.protocol.is_utf8), error details never depend on dict order, and no line
makes the referee fail (`internal`) or write more than 512 bytes."""

import json

import pytest
from helpers import run_raw, timeline
from hypothesis import given, settings
from hypothesis import strategies as st
from refbox.games import GAME_ORDER

MS = 1000

JSON_BITS = [b",", b"}", b"{", b'"', b"\\", b"\\u", b"\\ud800", b"07", b"1.5"]
BAD_UTF8 = [
    b"\xed\xa0\x80",  # an encoded surrogate (U+D800)
    b"\xed\xbf\xbf",  # U+DFFF
    b"\xc0\xaf",  # overlong "/"
    b"\xe0\x80\xaf",  # overlong, 3 bytes
    b"\xf0\x80\x80\xaf",  # overlong, 4 bytes
    b"\xf4\x90\x80\x80",  # U+110000
    b"\xf8\x88\x80\x80\x80",  # a 5-byte form
    b"\x80",  # a stray continuation byte
    b"\xe2\x82",  # cut short
    b"\xff",
]
GOOD_UTF8 = ["é", "€", "\U0001f600", "\u00a0", "ß", "\u0131"]
COMMANDS = ["hello", "state", "new_game", "arm", "judge", "undo", "end", "menu", "act", "control"]
FIELDS = ["game", "players", "options", "correct", "action", "player", "value", "values", "text"]
FIELDS += ["name", "cmd", "zz", "aa", "points", "\u00e9"]

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.sampled_from(["red", "black", "claim", "count", "quiz", "evidence", "bogus", "arm", "yes"]),
    st.text(max_size=8),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(FIELDS), inner, max_size=4)
    ),
    max_leaves=8,
)


@st.composite
def command_bytes(draw):
    """A command object (often nearly valid), as UTF-8 bytes."""
    obj = {"cmd": draw(st.sampled_from(COMMANDS + ["bogus"]))}
    obj.update(draw(st.dictionaries(st.sampled_from(FIELDS), json_value, max_size=4)))
    if obj["cmd"] == "new_game" and draw(st.booleans()):
        obj["game"] = draw(st.sampled_from(GAME_ORDER))
    keys = list(obj)
    if draw(st.booleans()):
        keys.reverse()  # the same object, its keys in another order
    pairs = [json.dumps(k) + ":" + json.dumps(obj[k], ensure_ascii=False) for k in keys]
    return ("{" + ",".join(pairs) + "}").encode()


@st.composite
def mangled(draw):
    """A command with bytes inserted, replaced or cut: bad UTF-8, control bytes, stray JSON."""
    data = bytearray(draw(command_bytes()))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        piece = draw(
            st.one_of(
                st.sampled_from(BAD_UTF8),
                st.sampled_from([g.encode() for g in GOOD_UTF8]),
                st.sampled_from(JSON_BITS),
                st.binary(min_size=1, max_size=3),
            )
        )
        how = draw(st.sampled_from(["insert", "replace", "cut"]))
        if how == "insert":
            data[at:at] = piece
        elif how == "replace":
            data[at : at + len(piece)] = piece
        else:
            del data[at:]
    return bytes(data)


def _one_line(data):
    """No newline inside (it would end the line) and no Ctrl-C (it stops the firmware)."""
    return bytes(b for b in data if b not in (3, 10, 13))


line_bytes = st.one_of(command_bytes(), mangled(), st.binary(min_size=1, max_size=40)).map(
    _one_line
)


def _run(lines, game, interpreter):
    recs = [{"at_us": 2 * MS * (i + 1), "send_hex": line.hex()} for i, line in enumerate(lines)]
    recs = [r for r, line in zip(recs, lines, strict=True) if line]
    recs.append({"at_us": 2 * MS * (len(lines) + 2), "send": {"cmd": "state"}})
    return run_raw(timeline(*recs), players=3, game=game, interpreter=interpreter)


def _check_lines(out):
    for _, line in out:
        assert len(line.encode()) <= 512
        ev = json.loads(line)
        assert not (ev["ev"] == "error" and ev["code"] == "internal"), line


# 4 examples a game, 24 in all (it was 20 over games drawn at random, so a game could get none):
# one test a game, which the runners spread; each example starts the unix port (~0.3 s)
@pytest.mark.micropython
@pytest.mark.parametrize("game", GAME_ORDER)
@settings(max_examples=4)
@given(lines=st.lists(line_bytes, min_size=5, max_size=30))
def test_raw_lines_get_the_same_bytes_on_both_interpreters(lines, game):
    cpython = _run(lines, game, "cpython")
    _check_lines(cpython)
    assert _run(lines, game, "micropython") == cpython


@given(st.lists(line_bytes, min_size=5, max_size=30), st.sampled_from(GAME_ORDER))
def test_raw_lines_never_break_the_referee(lines, game):
    _check_lines(_run(lines, game, "cpython"))


def _errors(out):
    return [json.loads(line) for _, line in out if '"ev":"error"' in line]


@pytest.mark.micropython
def test_malformed_utf8_is_refused_alike():
    head = b'{"cmd":"act","action":"red","text":"'
    lines = [head + bad + b'"}' for bad in BAD_UTF8]
    lines.append(head + "é€\U0001f600".encode() + b'"}')  # well-formed: not bad_encoding
    cpython = _run(lines, "redblack", "cpython")
    assert _run(lines, "redblack", "micropython") == cpython
    codes = [e["code"] for e in _errors(cpython)]
    assert codes[: len(BAD_UTF8)] == ["bad_encoding"] * len(BAD_UTF8)
    assert "bad_encoding" not in codes[len(BAD_UTF8) :]


@pytest.mark.micropython
def test_error_details_do_not_depend_on_key_order():
    lines = [
        b'{"cmd":"state","zz":1,"aa":2}',
        b'{"aa":2,"cmd":"state","zz":1}',
        b'{"cmd":"new_game","game":"quiz","options":{"zz":1,"aa":2}}',
        b'{"cmd":"new_game","game":"quiz","options":{"aa":2,"zz":1}}',
    ]
    cpython = _run(lines, "quiz", "cpython")
    assert _run(lines, "quiz", "micropython") == cpython
    details = [e["detail"] for e in _errors(cpython)]
    assert details[0] == details[1] == "state has no field aa"
    assert details[2] == details[3] and details[2].startswith("no option aa")
