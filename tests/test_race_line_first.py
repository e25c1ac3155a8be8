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
    is out already, App.announce, given it by the referee's one writer, Referee._say_race)."""
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
def test_races_announced_early_are_the_races_decided(name, monkeypatch):
    """Referee._announce_early sends a race before the game's hooks for its deciding press: the
    decision that follows must be that race (no `internal` error says otherwise), each race line
    goes out once, and the early way is the one these games' lone winners take."""
    from refbox import referee as referee_module

    announced = []
    early = referee_module.Referee._announce_early

    def recording(self, station, stamp):
        done = early(self, station, stamp)
        if done:
            announced.append((station + 1, stamp.us, stamp.ns))
        return done

    monkeypatch.setattr(referee_module.Referee, "_announce_early", recording)
    lines = [json.loads(line) for line in _play(name)]
    assert not [ev for ev in lines if ev["ev"] == "error" and ev["code"] == "internal"]
    races = [(ev["winner"], ev["t_us"], ev["t_ns"]) for ev in lines if ev["ev"] == "race"]
    assert len(races) == len(set(races))  # none sent twice
    assert announced and set(announced) <= set(races)


def test_a_hook_that_ends_an_announced_race_is_reported(monkeypatch):
    from refbox.games import quiz

    def ending(self, player, stamp):  # a (broken) game hook: the press ends the question
        return self._cancel_entry()

    monkeypatch.setattr(quiz.Quiz, "buzz_entry", ending)
    presses = [{"at_us": 300000, "control": "arm"}, {"at_us": 600000, "press": 2},
               {"at_us": 700000, "release": 2}]
    lines = [json.loads(line) for _, line in run_raw(timeline(*presses))]
    errors = [ev for ev in lines if ev["ev"] == "error" and ev["code"] == "internal"]
    assert errors and "announced" in errors[0]["detail"]


@pytest.mark.parametrize(
    "name",
    ["quiz_demo.jsonl", "quiz_tournament.jsonl", "quizbowl_naqt.jsonl", "deglingo_4p.jsonl",
     "difference_6p.jsonl"],
)
def test_a_press_alone_in_its_pass_changes_no_line_by_announcing_at_once(name, monkeypatch):
    """Referee.announce_alone announces a race in the pass that accepted its press, before the
    hand-over that decides it: the same lines in the same order as without it (only when they
    leave), and it is the way the quiz's lone winners take."""
    from refbox import referee as referee_module

    announced = []
    alone = referee_module.Referee.announce_alone

    def recording(self, station, stamp, press_horizon):
        done = alone(self, station, stamp, press_horizon)
        if done:
            announced.append((station + 1, stamp.us, stamp.ns))
        return done

    monkeypatch.setattr(referee_module.Referee, "announce_alone", recording)
    at_once = _play(name)
    monkeypatch.setattr(referee_module.Referee, "announce_alone", lambda *a: False)
    handed_over = _play(name)
    assert at_once == handed_over
    lines = [json.loads(line) for line in at_once]
    assert not [ev for ev in lines if ev["ev"] == "error" and ev["code"] == "internal"]
    races = {(ev["winner"], ev["t_us"], ev["t_ns"]) for ev in lines if ev["ev"] == "race"}
    assert set(announced) <= races
    if name.startswith("quiz"):  # (the card games' timers are asked every pass: never at once)
        assert announced



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
