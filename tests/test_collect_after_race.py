"""The loop collects the garbage once after each race is decided, saved and its lines out
(App._after_race), so the judgement that follows never meets MicroPython's automatic collection:
on the emulated chip it fell inside most judgements (~8 ms at 200 MHz; bench/README.md
"bench_budget_chip.py")."""

import json

from helpers import CONTROLS, timeline
from tablebuzz.sim import runner
from tablebuzz.sim.timeline import parse

MS = 1000

GAME = timeline(
    {"at_us": 100 * MS, "send": {"cmd": "arm"}},
    {"at_us": 300 * MS, "press": 2},
    {"at_us": 380 * MS, "release": 2},
    {"at_us": 500 * MS, "send": {"cmd": "judge", "correct": False}},  # the race reopens
    {"at_us": 700 * MS, "press": 4},
    {"at_us": 780 * MS, "release": 4},
    {"at_us": 900 * MS, "send": {"cmd": "judge", "correct": True}},
)


def _collections_at_lines():
    """[(event name, the board's collections when its line reached the host)] of GAME."""
    head = {"seed": "1", "game": "quiz", "players": 6, "options": {}, "flash": {}}
    seen = []
    holder = []

    def sink(ns, line):
        if holder and holder[0].app is not None and line.startswith("{"):
            seen.append((json.loads(line)["ev"], holder[0].app.board.collections))

    sim = runner.Simulation.__new__(runner.Simulation)
    holder.append(sim)
    runner.Simulation.__init__(sim, head, sink)
    sim.run(parse(GAME, 6, CONTROLS))
    return seen


def test_each_race_is_followed_by_one_collection_before_its_judgement():
    seen = _collections_at_lines()
    races = [i for i, (name, _) in enumerate(seen) if name == "race"]
    judges = [i for i, (name, _) in enumerate(seen) if name == "judge"]
    assert len(races) == 2 and len(judges) == 2
    for race, judge in zip(races, judges, strict=True):
        assert seen[judge][1] == seen[race][1] + 1, seen  # one collection between them
