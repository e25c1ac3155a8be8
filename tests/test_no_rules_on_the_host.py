"""No game rule and no option default on the host (issue 36): the device is the one source of both.
A guard reads every Python module under host/ and every page's JavaScript, and fails on a second
copy: an option's value defaulted on the host (`options.target || 5`, `.get("timer", 0)`), a
rule's number written out ("first to 12", `[None] * 5` rounds, `right * points`, a penalty total
worked out as given - received), a power's value or points decided on the host, how a game is
won ("lowest total wins"), a phase's words (the board's `doing` says what is happening). The
names come from the firmware's own option specs, so a new option is guarded without a change
here."""

import re

import pytest
from refbox.games import CATALOG, game_class
from tablebuzz.paths import REPO

HOST = REPO / "host" / "tablebuzz"
SOURCES = sorted(p for p in HOST.rglob("*") if p.suffix in (".py", ".js")
                 and "fakes" not in p.parts and "sim" not in p.parts)
OPTIONS = sorted({spec[0] for name, *_ in CATALOG for spec in game_class(name).OPTIONS})
NAMES = "|".join(OPTIONS)

LITERAL = r"(?:-?\d|[\"'])"  # a number or a string written out
RULES = [
    # (what, pattern, only on lines holding this word or None)
    ("an option's default in JavaScript",
     r"(?:options|\bo)\.(?:%s)\s*(?:\|\||\?\?)\s*%s" % (NAMES, LITERAL), None),
    ("an option's default", r"\.(?:give_line|ace|equal)\s*(?:\|\||\?\?)", None),
    ("an option's default in Python",
     r"\.get\(\s*[\"'](?:%s)[\"']\s*,\s*%s" % (NAMES, LITERAL), "options"),
    ("an option's default in Python",
     r"\.get\(\s*[\"'](?:%s)[\"']\s*\)\s*or\s+%s" % (NAMES, LITERAL), "options"),
    ("an option's default in Python",
     r"\[[\"'](?:give_line|ace|equal)[\"']\]\s*or\s+%s" % LITERAL, None),
    ("a target written out", r"first to \d", None),
    ("a count of rounds, cards or columns written out", r"\[None\]\s*\*\s*\d", None),
    ("a loop over a rule's count", r"<=\s*\d+\s*;", None),
    ("a bonus credit worked out", r"\*\s*\w+\.points\b", None),
    ("a penalty total worked out", r"given\[[^\]]+\]\s*-\s*\w+\.received", None),
    ("a power's value taken from the options (the board's `question` says it)",
     r"\boptions\.power\b", None),
    ("a power's points sent by the host (the board gives them: `judge` with `power`)",
     r"points:\s*power\b", None),
    ("how a game is won written out", r"\b(?:lowest|highest|most|fewest) \w+ wins?\b", None),
    ("a phase's words written out (the board's `doing` says them)",
     r"(?:\bp|phase)\s*===\s*[\"'][a-z_]+[\"'][^)]*\)\s*return\s+[\"'`(\w]", None),
    ("a phase's words made from its name",
     r"phase\w*(?:[\"']\])?\.replace\(|\bp\.replace\(/_/g", None),
]


def findings(text):
    """[(what, line number, line)] of `text` that restate a rule or an option default."""
    out = []
    for line_no, line in enumerate(text.splitlines(), 1):
        for what, pattern, word in RULES:
            if (word is None or word in line) and re.search(pattern, line):
                out.append((what, line_no, line.strip()))
    return out


def test_the_guard_knows_the_options_and_finds_the_copies_it_is_for():
    assert {"target", "points", "timer", "teams", "power"} <= set(OPTIONS)
    for copy in ('"first to " + (g.options.target || 5) + " points"',
                 "const points = () => g.options.points || 1;",
                 'v["timer_s"] = (ev.get("options") or {}).get("timer", 0)',
                 'x = options.get("power") or 15',
                 'give_line = v["give_line"] or "top"',
                 'const give = v.give_line || "top";',
                 'v["lines"] = {"top": [None] * 8}',
                 '"team " + board.team + " +" + right * board.points',
                 "String(v.given[p - 1] - v.received[p - 1])",
                 "for (let r = 1; r <= 5; r++) {",
                 "return g.options.power;  // the board's power value",
                 'cmd({ cmd: "judge", correct: true, points: power }, "a power")',
                 '"Diddly · round " + v.round + " · lowest total wins · ★ dealer"',
                 'if (p === "racing") return "armed: buzz!";',
                 'if (p === "answering" && game.answering) return who(game.answering) + " has"',
                 'return p.replace(/_/g, " ");',
                 'g["phase"].replace("_", " ")'):
        assert findings(copy), copy
    for fine in ('teams = (ev.get("options") or {}).get("teams") or []',
                 "g.options.target !== undefined ? g.options.target : null",
                 'ev.get("points")', 'teams = ev["options"].get("teams") or teams',
                 'str(ev.get("commit", ""))',
                 'cmd({ cmd: "judge", correct: true, power: true }, "a power")',
                 "return g.view.power;  // the board's", '(g.wins ? " · " + g.wins : "")',
                 'const racing = g.phase === "racing" || g.phase === "answering";'):
        assert not findings(fine), fine


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(HOST)) for p in SOURCES])
def test_no_game_rule_or_option_default_on_the_host(path):
    found = findings(path.read_text(encoding="utf-8"))
    assert not found, "\n".join("%s:%d %s: %s" % (path.name, n, what, line)
                                for what, n, line in found)
