"""Persist before emit (docs/architecture.md "The journal"): a decision's lines reach the host only
once the journal holds it; the race path and lockouts go out at once."""

import json

import pytest
from helpers import CONTROLS, timeline
from refbox.app import AT_ONCE, NEUTRAL
from refbox.arbiter import ARMED, DECIDED
from refbox.journal import PATH, read
from tablebuzz.sim import runner
from tablebuzz.sim.timeline import parse

MS = 1000


def _play(text, check, **header):
    """Run `text` with a simulated littlefs; `check(sim, event)` at each line the host takes."""
    head = {"seed": "1", "game": "quiz", "players": 6, "options": {}, "flash": {}}
    head.update(header)
    holder = []

    def sink(ns, line):
        if holder and line.startswith("{"):
            check(holder[0], json.loads(line))

    sim = runner.Simulation.__new__(runner.Simulation)
    holder.append(sim)
    runner.Simulation.__init__(sim, head, sink)
    sim.run(parse(text, 6, CONTROLS))
    return sim


def _saved(sim):
    return read(sim.fs.files.get(PATH, b""))[0]


GAME = timeline(
    {"at_us": 100 * MS, "send": {"cmd": "arm"}},
    {"at_us": 300 * MS, "press": 2},
    {"at_us": 380 * MS, "release": 2},
    {"at_us": 500 * MS, "send": {"cmd": "judge", "correct": False}},  # the race reopens
    {"at_us": 700 * MS, "press": 4},
    {"at_us": 780 * MS, "release": 4},
    {"at_us": 900 * MS, "control": "yes"},
    {"at_us": 925 * MS, "press": 5},  # a false start while the judgement is being saved
    {"at_us": 1000 * MS, "release": 5},
    {"at_us": 1200 * MS, "send": {"cmd": "act", "action": "adjust", "player": 1, "value": 3}},
    {"at_us": 1400 * MS, "control": "undo"},
    {"at_us": 1600 * MS, "send": {"cmd": "state"}},
    {"at_us": 1800 * MS, "send": {"cmd": "new_game", "game": "difference", "players": 4}},
)


@pytest.mark.parametrize("cpu", ["on", "off"])
def test_every_decision_line_leaves_once_the_journal_holds_it(cpu):
    seen = []

    def check(sim, ev):
        if sim.app is None:
            return  # the boot's own lines (the header's game): the App is not up yet
        seen.append(ev["ev"])
        if ev["ev"] in AT_ONCE or ev["ev"] in NEUTRAL:
            return
        saved = _saved(sim)
        game = sim.app.referee.game
        assert saved.game == game.name, ev
        assert [list(e) for e in saved.log] == [list(e) for e in game.log], ev

    _play(GAME, check, cpu=cpu)
    for name in ("judge", "score", "adjust", "undo", "game", "race", "armed", "lockout"):
        assert name in seen


def test_a_false_start_lockout_goes_out_before_the_journal_holds_it():
    found = []

    def check(sim, ev):
        if ev["ev"] == "lockout":
            found.append([lock[0] for lock in _saved(sim).locked[1:]])

    _play(timeline({"at_us": 100 * MS, "press": 3}, {"at_us": 180 * MS, "release": 3}), check)
    assert found == [[]]  # sent at once: the save that keeps it comes after


@pytest.mark.parametrize("cpu", ["on", "off"])
def test_the_leds_show_a_decision_once_the_journal_holds_it(cpu):
    """A decision shows on the LEDs when its lines go out, after the save (App._show): a frame
    drawn before it would show the table what a power cut then takes back. The race path is the
    exception, as for its lines: the winner lights at once."""
    frames = {"checked": 0}

    def check(sim, ev):
        app = sim.app
        if app is None or getattr(app, "_frames_checked", False):
            return
        app._frames_checked = True
        show = app.board.show

        def checked_show(frame):
            referee = app.referee
            game = referee.game
            racing = referee.arbiter.phase in (ARMED, DECIDED) or app._racing or app._held
            if game is not None and not racing and app._unsaved == []:
                saved = _saved(sim)
                assert [list(e) for e in saved.log] == [list(e) for e in game.log]
                frames["checked"] += 1
            assert app._unsaved == [], app._unsaved  # no decision line waits for the journal
            return show(frame)

        app.board.show = checked_show

    _play(GAME, check, cpu=cpu)
    assert frames["checked"] > 5, frames
