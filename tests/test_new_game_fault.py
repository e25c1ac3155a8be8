"""A game that cannot be made (a MemoryError on the chip's full heap, seen on the emulated RP2040
at a `new_game`) is refused with `no_memory` and leaves the referee in a state its loop can run:
the menu it was in, or, after a game in play (let go and tried again: Referee.new_game), the menu.
Before, the menu was gone with no game in its place, and every pass after raised
AttributeError ('NoneType' object has no attribute 'phase') until a reset."""

import pytest
from helpers import bare_referee
from refbox.games.base import GameError


def _failing_once(monkeypatch, times=1):
    from refbox import referee

    real = referee.game_class
    failed = []

    def game_class(name):
        cls = real(name)
        if len(failed) >= times:
            return cls

        class Full(cls):
            def __init__(self, *args):
                failed.append(name)
                raise MemoryError("memory allocation failed, allocating 1600 bytes")

        return Full

    monkeypatch.setattr(referee, "game_class", game_class)
    return failed


def test_a_game_that_cannot_be_made_leaves_the_menu_open_and_the_next_try_plays(monkeypatch):
    ref, out = bare_referee()
    ref.open_menu()
    failed = _failing_once(monkeypatch)
    with pytest.raises(GameError) as refused:
        ref.new_game("difference", 4, {})
    assert refused.value.code == "no_memory"
    assert failed == ["difference"]
    assert ref.menu is not None and ref.game is None
    assert ref.doing() == "set-up menu: choose the game on the box"
    ref.new_game("difference", 4, {})
    assert ref.menu is None and ref.game.phase != "over"
    assert out[-1][0] != "error" and any(name == "game" for name, _ in out)


def test_a_game_that_cannot_be_made_after_another_is_made_once_that_one_is_let_go(monkeypatch):
    ref, out = bare_referee()
    ref.new_game("quiz", 4, {})
    failed = _failing_once(monkeypatch)
    ref.new_game("difference", 4, {})
    assert failed == ["difference"]
    assert ref.game.name == "difference" and ref.game.phase != "over"
    assert [name for name, _ in out].count("game_over") == 1  # its commitment honoured


def test_a_game_that_cannot_be_made_even_then_leaves_the_menu_open(monkeypatch):
    ref, out = bare_referee()
    ref.new_game("quiz", 4, {})
    failed = _failing_once(monkeypatch, times=2)
    with pytest.raises(GameError) as refused:
        ref.new_game("difference", 4, {})
    assert refused.value.code == "no_memory"
    assert failed == ["difference", "difference"]
    assert ref.game is None and ref.doing() == "set-up menu: choose the game on the box"
    assert [name for name, _ in out].count("game_over") == 1  # its commitment honoured
