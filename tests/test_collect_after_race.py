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


def _collections_at_lines(game=GAME):
    """[(event name, the board's collections when its line reached the host)] of `game`."""
    head = {"seed": "1", "game": "quiz", "players": 6, "options": {}, "flash": {}}
    seen = []
    holder = []

    def sink(ns, line):
        if holder and holder[0].app is not None and line.startswith("{"):
            seen.append((json.loads(line)["ev"], holder[0].app.board.collections))

    sim = runner.Simulation.__new__(runner.Simulation)
    holder.append(sim)
    runner.Simulation.__init__(sim, head, sink)
    sim.run(parse(game, 6, CONTROLS))
    return seen


def test_each_race_is_followed_by_one_collection_before_its_judgement():
    seen = _collections_at_lines()
    races = [i for i, (name, _) in enumerate(seen) if name == "race"]
    judges = [i for i, (name, _) in enumerate(seen) if name == "judge"]
    assert len(races) == 2 and len(judges) == 2
    for race, judge in zip(races, judges, strict=True):
        assert seen[judge][1] == seen[race][1] + 1, seen  # one collection between them


def test_a_decision_s_lines_are_followed_by_a_collection_before_the_next_command():
    """Not only a race: every decision's lines, once out, are followed by one collection
    (App._collect_after_lines, ~20 ms later), so the next command (here a new game after a new
    game, and a judgement after the race's) starts with gc_threshold bytes to allocate from:
    on the emulated chip the automatic collection had fallen inside `new_game` -> `game`."""
    seen = _collections_at_lines(timeline(
        {"at_us": 100 * MS, "send": {"cmd": "new_game", "game": "difference", "players": 4}},
        {"at_us": 400 * MS, "send": {"cmd": "new_game", "game": "redblack", "players": 4}},
        {"at_us": 700 * MS, "send": {"cmd": "new_game", "game": "quiz", "players": 4}},
    ))
    games = [count for name, count in seen if name == "game"]
    assert len(games) == 3, seen
    assert games[1] == games[0] + 1 and games[2] == games[1] + 1, seen


def test_the_collection_after_a_new_game_comes_after_its_journal_s_compaction(monkeypatch):
    """A new game's snapshot is appended to the journal and the file compacted in idle passes
    after its lines (refbox.journal.Journal._append_snapshot): the collection after the lines
    waits for the compaction's last piece (its rename), so the next command's threshold is
    whole (App._collect_after_lines). Here the collection is due at once after the lines (on
    the chip the compaction's pieces take longer than gc_after_lines_us)."""
    from refbox.app import App

    monkeypatch.setattr(App, "gc_after_lines_us", 0)
    head = {"seed": "1", "game": "quiz", "players": 4, "options": {}, "flash": {}}
    seen = []
    sims = []  # (the boot's lines come before the Simulation is made: not counted)

    def renames():
        return sum(1 for _, kind, _ in sims[0].fs.trace if kind == "rename")

    def sink(ns, line):
        if sims and line.startswith('{"ev":"game"'):
            seen.append(("game", renames()))

    sim = runner.Simulation(head, sink)
    sims.append(sim)

    def watch(_):
        board = sim.app.board
        board_collect = board.collect

        def collect():
            seen.append(("collect", renames()))
            board_collect()

        board.collect = collect

    sim.world.at(50 * MS * 1000, watch, None)
    sim.run(parse(timeline(
        {"at_us": 100 * MS, "send": {"cmd": "new_game", "game": "difference", "players": 4}},
        {"at_us": 400 * MS, "send": {"cmd": "new_game", "game": "redblack", "players": 4}},
        {"at_us": 700 * MS, "send": {"cmd": "new_game", "game": "quiz", "players": 4}},
    ), 4, CONTROLS))
    games = [i for i, (kind, _) in enumerate(seen) if kind == "game"]
    assert len(games) == 3, seen
    for first, then in zip(games, games[1:], strict=False):
        between = [renames for kind, renames in seen[first + 1 : then] if kind == "collect"]
        assert len(between) == 1, seen  # one collection between two new games...
        assert between[0] > seen[first][1], seen  # ...after the compaction's rename
        assert seen[then][1] == between[0], seen  # (no flash work after it)
