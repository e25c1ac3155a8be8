"""A change of game that does not fit in the heap (issue 24: a CircuitPython Pico ran out at the
fifth new_game in a row): the next game's module is retried once after the other games' modules
are released and the garbage collected, and if it still does not fit the board refuses with
`no_memory` and the game in play goes on untouched (refbox.games.game_class)."""

import builtins

import pytest
from helpers import bare_referee
from refbox.games.base import GameError


def _failing_import(monkeypatch, module, times):
    """Importing `module` raises MemoryError the first `times` times."""
    real = builtins.__import__
    left = [times]

    def fake(name, *args, **kwargs):
        if name == module and left[0] > 0:
            left[0] -= 1
            raise MemoryError("memory allocation failed, allocating 2048 bytes")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    return left


def test_a_game_that_fits_once_the_garbage_is_collected_starts(monkeypatch):
    ref, out = bare_referee()
    ref.new_game("quiz", 4, {})
    left = _failing_import(monkeypatch, "refbox.games.diddly", 1)
    ref.new_game("diddly", 2, {})
    assert left == [0]  # it did run out once
    assert ref.game.name == "diddly"
    assert [name for name, _ in out].count("game") == 2


def test_a_game_that_does_not_fit_is_refused_and_the_game_in_play_goes_on(monkeypatch):
    ref, out = bare_referee()
    ref.new_game("quiz", 4, {})
    game, log = ref.game, list(ref.game.log)
    before = list(out)
    _failing_import(monkeypatch, "refbox.games.diddly", 2)
    with pytest.raises(GameError) as refused:
        ref.new_game("diddly", 2, {})
    assert refused.value.code == "no_memory"
    assert "open the menu" in refused.value.detail
    assert ref.game is game and ref.game.log == log and ref.game.phase != "over"
    assert out == before  # not a line: the caller sends the error
