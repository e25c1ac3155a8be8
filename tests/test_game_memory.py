"""A change of game that does not fit in the heap (issue 24: a CircuitPython Pico ran out at the
fifth new_game in a row; issue 38: on the emulated stock RP2040 Evidence found no room after
Diddly). The next game's module is retried once after the other games' modules are released and
the garbage collected (refbox.games.game_class). If it still does not fit, the game in play ends
as the change of game ends it anyway, leaves RAM, and the set-up is made again
(Referee.new_game): the same lines as a change of game with room. Only a set-up that fits
nowhere is refused (`no_memory`), the board then in the menu.

Differential: each change of game is played with and without the heap running out, and the lines
must be the same."""

import builtins
import json

import pytest
from helpers import CONTROLS, bare_referee, timeline
from refbox.games.base import Game, GameError
from refbox.ticks import Stamp
from tablebuzz.sim import runner
from tablebuzz.sim.timeline import parse


def _failing_import(monkeypatch, module, times):
    """Importing `module` raises MemoryError the first `times` times; returns [times left]."""
    real = builtins.__import__
    left = [times]

    def fake(name, *args, **kwargs):
        if name == module and left[0] > 0:
            left[0] -= 1
            raise MemoryError("memory allocation failed, allocating 2048 bytes")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    return left


def _quiz_then(monkeypatch, fails):
    """A referee with a quiz in play (one tossup judged), then `new_game` diddly with its import
    failing `fails` times: (referee, lines from the change of game on, error or None, times the
    journal was told to let go)."""
    ref, out = bare_referee()
    let_go = []
    ref.letting_go = lambda: let_go.append(1)
    ref.new_game("quiz", 4, {})
    ref.command("arm", {})
    ref.press(1, Stamp(500_000))
    ref.tick(600_000, Stamp(600_000), Stamp(600_000))
    ref.command("judge", {"correct": True})
    assert ref.game.scores[1] > 0
    del out[:]
    left = _failing_import(monkeypatch, "refbox.games.diddly", fails)
    error = None
    try:
        ref.new_game("diddly", 2, {})
    except GameError as e:
        error = e
    assert left == [0]  # it did run out, as often as asked
    return ref, out, error, len(let_go)


def test_a_game_that_fits_once_the_garbage_is_collected_starts(monkeypatch):
    ref, out, error, let_go = _quiz_then(monkeypatch, 1)
    assert error is None and let_go == 0
    assert ref.game.name == "diddly"
    assert [name for name, _ in out] == ["game_over", "game", "score", "buttons"][:len(out)]


@pytest.mark.parametrize("fails", [2, 3])
def test_a_game_with_no_room_beside_the_one_in_play_ends_it_and_starts(monkeypatch, fails):
    roomy = _quiz_then(monkeypatch, 0)
    monkeypatch.undo()
    tight = _quiz_then(monkeypatch, fails)
    assert tight[2] is None and tight[3] == 1  # started; the journal let the quiz go
    assert tight[0].game.name == "diddly" and tight[0].menu is None
    assert tight[1] == roomy[1]  # the very same lines, game_over (abandoned) included
    over = dict(tight[1])["game_over"]
    assert over["abandoned"] is True and over["game"] == "quiz"


def test_a_game_that_fits_nowhere_is_refused_from_the_menu(monkeypatch):
    ref, out, error, let_go = _quiz_then(monkeypatch, 4)
    assert error.code == "no_memory" and "diddly" in error.detail
    assert let_go == 1
    assert ref.game is None and ref.menu is not None  # never in neither
    assert [name for name, _ in out] == ["game_over", "menu"]  # the quiz's end was told
    assert dict(out)["game_over"]["abandoned"] is True


def test_from_the_menu_a_game_that_does_not_fit_is_refused_and_the_menu_stands(monkeypatch):
    ref, out = bare_referee()
    ref.open_menu()
    menu = ref.menu
    del out[:]
    _failing_import(monkeypatch, "refbox.games.diddly", 2)
    with pytest.raises(GameError) as refused:
        ref.new_game("diddly", 2, {})
    assert refused.value.code == "no_memory"
    assert ref.menu is menu and ref.game is None and out == []  # the caller sends the error


def test_a_game_whose_making_runs_out_lets_the_one_in_play_go_and_starts(monkeypatch):
    roomy = _quiz_then(monkeypatch, 0)
    monkeypatch.undo()
    from refbox.games.diddly import Diddly

    left = [1]

    def tight_init(self, *args):
        if left[0]:
            left[0] -= 1
            raise MemoryError("memory allocation failed, allocating 1148 bytes")
        Game.__init__(self, *args)

    monkeypatch.setattr(Diddly, "__init__", tight_init)
    tight = _quiz_then(monkeypatch, 0)
    assert left == [0] and tight[2] is None and tight[3] == 1
    assert tight[1] == roomy[1]


def test_a_bad_set_up_with_room_leaves_the_game_in_play_untouched():
    ref, out = bare_referee()
    ref.new_game("quiz", 4, {})
    game, log = ref.game, list(ref.game.log)
    before = list(out)
    with pytest.raises(GameError) as refused:
        ref.new_game("diddly", 2, {"columns": 99})
    assert refused.value.code == "bad_option"
    assert ref.game is game and ref.game.log == log and ref.game.phase != "over"
    assert out == before


# ---------------------------------------------------------------- the board, its journal on files
def _night(folder, *records):
    """The lines (event dicts) of a board powered up on the journal in `folder` (real files)
    playing `records`."""
    head = {"seed": "ab12", "flash": {"dir": str(folder) + "/"}}
    lines = runner.run(head, parse(timeline(*records), 4, CONTROLS))
    return [json.loads(line) for _, line in lines if line.startswith("{")]


QUIZ = [
    {"at_us": 200_000, "send": {"cmd": "new_game", "game": "quiz", "players": 4}},
    {"at_us": 400_000, "send": {"cmd": "arm"}},
    {"at_us": 500_000, "press": 2},
    {"at_us": 560_000, "release": 2},
    {"at_us": 800_000, "send": {"cmd": "judge", "correct": True}},
    {"at_us": 1_200_000, "send": {"cmd": "new_game", "game": "diddly", "players": 2}},
]


@pytest.mark.parametrize("fails", [0, 2, 4])
def test_the_journal_holds_what_the_room_saw_after_a_change_with_no_room(
    monkeypatch, tmp_path, fails
):
    folder = tmp_path / "flash"
    folder.mkdir()
    _failing_import(monkeypatch, "refbox.games.diddly", fails)
    first = _night(folder, *QUIZ)
    monkeypatch.undo()
    evs = [e["ev"] for e in first]
    assert "internal" not in {e.get("code") for e in first if e["ev"] == "error"}
    assert evs.count("game_over") == 1  # the quiz ended, its seed revealed
    again = _night(folder, {"at_us": 300_000, "send": {"cmd": "state"}})  # powered up anew
    resumed = [e for e in again if e["ev"] == "resume"]
    if fails < 4:
        assert "diddly" in [e.get("game") for e in first if e["ev"] == "game"]
        assert [e["game"] for e in resumed] == ["diddly"]
    else:  # refused: the board was in the menu, and powers up there, not in the ended quiz
        assert [e["code"] for e in first if e["ev"] == "error"] == ["no_memory"]
        assert resumed == [] and "menu" in [e["ev"] for e in again]


def test_the_game_let_go_leaves_ram(monkeypatch, tmp_path):
    """Once let go, nothing holds the game in play (the referee, the App, the journal): its
    module's code can be collected before the next game's is loaded."""
    import gc
    import weakref

    from refbox.referee import Referee

    real, gone = Referee._let_go, []

    def watched(self):
        old = weakref.ref(self.game)
        real(self)
        gc.collect()
        gone.append(old() is None)

    monkeypatch.setattr(Referee, "_let_go", watched)
    _failing_import(monkeypatch, "refbox.games.diddly", 2)
    folder = tmp_path / "flash"
    folder.mkdir()
    first = _night(folder, *QUIZ)
    assert gone == [True]
    assert [e["game"] for e in first if e["ev"] == "game"] == ["quiz", "diddly"]


def test_warming_after_power_up_changes_no_line():
    """The board's warming (App.warm: each game's module imported once at a safe moment after
    power-up, refbox.games.warm) sends nothing and decides nothing: the same lines with and
    without it, a race and a change of game among them. Only when they leave may change (a
    command read during a warming pass waits for it, as for any pass that blocks)."""
    from refbox.games import GAME_ORDER

    records = QUIZ + [{"at_us": 1_500_000, "send": {"cmd": "new_game", "game": "evidence",
                                                    "players": 4}}]
    runs = []
    for warmed in (False, True):
        lines = []
        sim = runner.Simulation({"seed": "ab12"}, lambda t, line, lines=lines: lines.append(
            (t, line)))
        if warmed:
            sim.app.warm = list(GAME_ORDER)
        sim.run(parse(timeline(*records), 4, CONTROLS))
        assert sim.app.warm == []
        runs.append([line for _, line in lines])
    assert runs[0] == runs[1]
    assert '"game":"evidence"' in "".join(runs[1])


def test_a_retry_that_runs_out_making_the_game_leaves_the_menu_and_no_game_line(monkeypatch):
    """The next game fits beside nothing: let go, made again, and its tie-break generator finds
    no heap (the game itself was made). Nothing of it was held: the board is in the menu, and no
    `game` line names a game the board does not hold."""
    from refbox import referee as referee_module

    def no_heap(seed):
        raise MemoryError("memory allocation failed, allocating 64 bytes")

    ref, out = bare_referee()
    ref.new_game("quiz", 4, {})
    del out[:]
    _failing_import(monkeypatch, "refbox.games.diddly", 2)
    monkeypatch.setattr(referee_module, "Prng", no_heap)
    with pytest.raises(GameError) as refused:
        ref.new_game("diddly", 2, {})
    assert refused.value.code == "no_memory"
    assert ref.game is None and ref.menu is not None
    assert [name for name, _ in out] == ["game_over", "menu"]


def test_letting_go_that_runs_out_leaves_the_menu(monkeypatch):
    ref, out = bare_referee()

    def no_heap():
        raise MemoryError("memory allocation failed, allocating 32 bytes")

    ref.letting_go = no_heap
    ref.new_game("quiz", 4, {})
    _failing_import(monkeypatch, "refbox.games.diddly", 2)
    with pytest.raises(GameError):
        ref.new_game("diddly", 2, {})
    assert ref.game is None and ref.menu is not None  # never neither
    ref.command("state", {})  # the loop's next passes run
    ref.prompts()


def test_players_refused_from_the_catalogue_leave_the_game_in_play(monkeypatch):
    """A tight heap ends the game in play only for a set-up that may be right: the player count
    is checked from the catalogue first."""
    ref, out = bare_referee()
    ref.new_game("quiz", 4, {})
    game = ref.game
    _failing_import(monkeypatch, "refbox.games.diddly", 2)
    with pytest.raises(GameError) as refused:
        ref.new_game("diddly", 9, {})
    assert refused.value.code == "bad_players"
    assert ref.game is game and game.phase != "over"


def test_a_refused_change_after_a_failed_save_saves_the_menu(monkeypatch):
    """Saving had stopped (a write failed: `not_saved`); the refused change of game leaves the
    board in the menu, and the journal tries again and holds it: a power-up opens the menu, not
    the quiz whose seed the room has seen."""
    from tablebuzz.sim.flashfs import FlashFS

    class Flaky(FlashFS):
        writes = 0

        def open(self, name, mode):
            if "r" not in mode:
                self.writes += 1
                if self.writes == 2:  # the quiz's first save after its start
                    raise OSError(5, "EIO")
            return FlashFS.open(self, name, mode)

    fs = Flaky()
    _failing_import(monkeypatch, "refbox.games.diddly", 4)
    lines = []
    runner.Simulation({"seed": "ab12", "flash": {}}, lambda t, line: lines.append(line),
                      fs=fs).run(parse(timeline(*QUIZ), 4, CONTROLS))
    monkeypatch.undo()
    codes = [json.loads(line).get("code") for line in lines if '"error"' in line]
    assert codes == ["not_saved", "no_memory"], codes
    again = []
    runner.Simulation({"seed": "ab12", "flash": {}}, lambda t, line: again.append(line),
                      fs=fs).run(parse(timeline({"at_us": 300_000, "send": {"cmd": "state"}}),
                                       4, CONTROLS))
    evs = [json.loads(line)["ev"] for line in again if line.startswith("{")]
    assert "resume" not in evs and "menu" in evs
