"""A host's text costs the board no heap for good (refbox.protocol "text").

On MicroPython every character taken out of a str one at a time (`text[i]`, `for ch in text`,
`min(text)`) is made through a qstr, which is never freed: a board that walked the names, notes,
ids and lines it was sent a character at a time kept every new character it saw, ~10 bytes each,
and on a stock heap in pieces the next qstr pool found no block, after which any new name raised
MemoryError (refbox.games.warm). Metamorphic: the same session played on the unix port twice, its
texts made once of one repeated character and once of hundreds of different ones, ends with the
same count of qstrs, and the same lines but for the texts."""

import json
import os
import re
import subprocess

import pytest
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse

pytestmark = pytest.mark.micropython

CONTROLS = ["arm", "yes", "no", "undo"]
_QSTRS = re.compile(r"qstr pool: n_pool=(\d+), n_qstr=(\d+)")


def _texts(distinct):
    """A source of texts: each call gives `n` characters, all different from every earlier one
    (CJK, Cyrillic, Greek, emoji) when `distinct`, else "é" each time."""
    planes = iter([chr(c) for c in range(0x4E00, 0x4E00 + 2000)]
                  + [chr(c) for c in range(0x0400, 0x0480)]
                  + [chr(c) for c in range(0x1F600, 0x1F640)])

    def take(n):
        return "".join(next(planes) for _ in range(n)) if distinct else "é" * n

    return take


def _session(distinct):
    """The timeline's commands: names, notes, ids, unknown commands, escapes and broken JSON,
    every text of them from `_texts(distinct)`."""
    take = _texts(distinct)
    sends = []
    for player in range(1, 5):
        sends.append({"cmd": "act", "action": "name", "player": player, "text": take(16)})
    sends.append({"cmd": "act", "action": "protest", "text": take(100)})
    sends.append({"cmd": "act", "action": "name", "player": 1, "text": take(15) + "\t"})
    sends.append({"cmd": "state", "id": take(12)})
    sends.append({"cmd": take(40)})
    sends.append({"cmd": "act", "action": take(30)})
    for _ in range(3):
        sends.append(take(1))  # a line that is no JSON at all: one character
    lines = []
    for send in sends:
        if isinstance(send, str):
            lines.append(send)  # sent raw below
        else:
            lines.append(json.dumps(send, ensure_ascii=False))
    lines.append('{"cmd":"act","action":"name","player":2,"text":"%s\\n"}' % take(10))
    lines.append('{"cmd": %s}' % take(1))
    return lines


def _run(distinct):
    """(n_qstr at the end, the board's lines) for the session on the unix port."""
    header = {"seed": "1", "game": "quiz", "players": 4, "options": {}, "cpu": "off"}
    text = "".join(json.dumps({"at_us": 100_000 * (i + 1), "send_raw": line}) + "\n"
                   for i, line in enumerate(_session(distinct)))
    records = parse(text, 4, CONTROLS)
    feed = [json.dumps(header)] + [json.dumps(r, ensure_ascii=False) for r in records]
    code = ("from tablebuzz.sim.runner import main; main(); import micropython; "
            "micropython.qstr_info()")
    cmd = simulate.micropython_command(code, root=simulate.HOST.parent)
    proc = subprocess.run(cmd, input="\n".join(feed) + "\n", capture_output=True,
                          encoding="utf-8", cwd=str(simulate.HOST.parent),
                          env=dict(os.environ, MICROPYPATH=""))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout.splitlines()
    (found,) = [m for m in map(_QSTRS.match, out) if m]
    return int(found.group(2)), [line.partition(" ")[2] for line in out if not _QSTRS.match(line)]


def _skeleton(line):
    """An event line with its texts' characters past ASCII (and their escapes, and what a
    refusal's detail made "?" of them) taken out."""
    return re.sub(r"(\\u[0-9a-f]{4})+|\?+", "", line)


def test_texts_of_any_characters_leave_the_same_qstrs():
    plain, plain_lines = _run(distinct=False)
    varied, varied_lines = _run(distinct=True)
    assert len(plain_lines) == len(varied_lines) > 10
    assert [_skeleton(a) for a in plain_lines] == [_skeleton(b) for b in varied_lines]
    assert varied - plain == 0, (plain, varied)
