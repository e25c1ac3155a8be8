"""The `race` line goes out first (issue 20, docs/protocol.md "Order of lines around a race").

While a race is being decided the App holds every line; the `race` line leaves first, the LEDs
are rendered, then the held lines follow in their order. These tests play the example games and
compare with the same games played by an App that sends every line at once (the order before
issue 20): the same lines, only each `race` line moved ahead of the lines held for it.
"""

import json
from pathlib import Path

import pytest
from helpers import CONTROLS, run_raw, timeline
from refbox import app as app_module
from refbox.protocol import encode_event
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse, read_setup

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _at_once(self, name, fields=()):
    """App.emit as it was before lines were held: encoded and queued at once (a `race`: its line
    is out already: App.announce, given it by the referee at the race's decision)."""
    if name == "race":
        return
    self._dirty = True
    self._save_due = True
    self._stale = True
    if name != "buttons":
        self._prompts_due = True
    self.board.write_line(encode_event(name, fields))
    if not self._outbox.careful:
        self.board.flush()


def _play(name):
    text = (EXAMPLES / name).read_text()
    header = read_setup(text)
    header.setdefault("seed", "1")
    records = parse(text, header.get("players", 6), CONTROLS)
    return [line for _, line in simulate.run(header, records)]


@pytest.mark.parametrize(
    "name",
    ["quiz_demo.jsonl", "quiz_tournament.jsonl", "deglingo_4p.jsonl", "difference_6p.jsonl"],
)
def test_only_race_lines_move_and_only_earlier(name, monkeypatch):
    held = _play(name)
    monkeypatch.setattr(app_module.App, "emit", _at_once)
    at_once = _play(name)
    assert sorted(held) == sorted(at_once)  # the same lines, none lost or changed
    races = [line for line in held if json.loads(line)["ev"] == "race"]
    assert races, "the example has races"
    others = [line for line in held if json.loads(line)["ev"] != "race"]
    assert others == [line for line in at_once if json.loads(line)["ev"] != "race"]
    for race in races:  # a race line only ever moves ahead
        assert held.index(race) <= at_once.index(race)


def test_a_crowd_race_line_comes_before_its_press_lines():
    presses = [{"at_us": 600000 + 7 * i, "press": p} for i, p in enumerate((4, 2, 6, 1, 5, 3))]
    releases = [{"at_us": 700000 + i, "release": p} for i, p in enumerate((4, 2, 6, 1, 5, 3))]
    lines = run_raw(timeline({"at_us": 300000, "control": "arm"}, *presses, *releases))
    evs = [json.loads(line)["ev"] for _, line in lines]
    first = evs.index("race")
    # every press of the race after it, in stamp order, the runner-up's with the margin (the
    # `buttons` prompt may come before presses still being confirmed when the race was decided)
    after = [json.loads(line) for _, line in lines[first + 1 :]]
    race_lines = [ev for ev in after if ev["ev"] in ("press", "margin")]
    assert [ev["ev"] for ev in race_lines] == ["press", "press", "margin"] + ["press"] * 4
    assert [ev["player"] for ev in race_lines] == [4, 2, 2, 6, 1, 5, 3]
    race = json.loads(lines[first][1])
    assert race["winner"] == 4 and race["margin_ns"] is None  # decided from the stamps
    margin = race_lines[2]
    assert (margin["winner"], margin["player"], margin["margin_ns"]) == (4, 2, 7000)
    assert "press" not in evs[evs.index("armed") : first]


@pytest.mark.parametrize(
    "name",
    ["quiz_demo.jsonl", "quiz_tournament.jsonl", "quizbowl_naqt.jsonl", "deglingo_4p.jsonl",
     "difference_6p.jsonl"],
)
def test_the_race_line_is_written_at_its_decision_alone(name, monkeypatch):
    """The race line has one moment: the arbiter's decision (Referee.arbiter_events), from the
    stamps and the press horizon. Every App.announce comes with the arbiter just decided for
    exactly that race (its winner, first stamp, margin and tie in Referee.last_race), once a
    race. (Before, a lone press's race was announced while the race was still open.)"""
    from refbox.arbiter import DECIDED

    seen = []
    announce = app_module.App.announce

    def checked(self, fields):
        ref = self.referee
        got = dict(fields)
        assert ref.arbiter.phase == DECIDED, "a race line before its decision"
        assert ref.last_race == (got["winner"] - 1, got["margin_ns"],
                                 [p - 1 for p in got["tied"]])
        first = ref.arbiter._winner_stamp
        assert (got["t_us"], got["t_ns"]) == (first.us, first.ns)
        seen.append((got["winner"], got["t_us"], got["t_ns"]))
        return announce(self, fields)

    monkeypatch.setattr(app_module.App, "announce", checked)
    lines = [json.loads(line) for line in _play(name)]
    races = [(ev["winner"], ev["t_us"], ev["t_ns"]) for ev in lines if ev["ev"] == "race"]
    assert races and races == seen  # each race line written once, by its decision


@pytest.mark.parametrize("cpu", ["off", "on"])
def test_a_race_handed_over_before_a_control_is_announced_only_at_its_decision(cpu):
    """P3 presses 1 ms before a NO counts (its contact closed at 1 s, debounced 10 ms): by
    their instants the press comes first and wins, and the NO then judges P3 wrong (issue 39:
    a control acts at its own instant, never at the pass that took it). No `internal` error,
    and the reopened race's tie is announced as one. (Before the stream was ordered this was
    a press handed over in the NO's pass, announced early, then cancelled by it: found by a
    differential fuzz of Referee.announce_alone.)"""
    records = [{"at_us": 300000, "control": "arm"}, {"at_us": 1000000, "control": "no"},
               {"at_us": 1009000, "press": 3}, {"at_us": 1100000, "release": 3},
               {"at_us": 2000000, "send": {"cmd": "arm"}}, {"at_us": 2500000, "press": 1},
               {"at_us": 2500000, "press": 2}, {"at_us": 2600000, "release": 1},
               {"at_us": 2600000, "release": 2}]
    lines = [json.loads(line) for _, line in
             run_raw(timeline(*records), players=4, cpu=cpu, bounce="none")]
    evs = [ev["ev"] for ev in lines]
    assert not [ev for ev in lines if ev["ev"] == "error" and ev["code"] == "internal"]
    races = [ev for ev in lines if ev["ev"] == "race"]
    assert [ev["winner"] for ev in races] == [3, 1] and races[1]["tied"] == [1, 2]
    judged = [(ev["player"], ev["correct"]) for ev in lines if ev["ev"] == "judge"]
    assert judged == [(3, False)] and "dead" not in evs
