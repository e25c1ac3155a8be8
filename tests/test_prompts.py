"""Prompts: every phase says which control does what (Referee.buttons), menu values carry their
units, a 2-player Déglingo shows its real target."""

import pytest
from helpers import bare_referee, events, run_sim, timeline
from refbox.games.base import GameError, parse_options
from refbox.games.deglingo import Deglingo
from refbox.games.diddly import Diddly
from refbox.games.evidence import Evidence
from refbox.games.quiz import Quiz
from refbox.games.redblack import RedBlack
from refbox.menu import Menu


def _game(cls, players, **given):
    return cls(players, parse_options(cls.OPTIONS, given))


def test_every_meaning_fits_a_display_line():
    """A prompt line is the control (up to 4 letters), a space and the meaning: 16 characters."""
    games = [
        _game(Quiz, 4),
        _game(RedBlack, 3),
        _game(Diddly, 3, columns=4),
        _game(Evidence, 3),
        _game(Deglingo, 2, target=12),
        _game(Deglingo, 4),
    ]
    for game in games:
        shown = game.buttons()
        assert shown, game.name
        for control, meaning in shown:
            assert len(control) + 1 + len(meaning) <= 16, (game.name, control, meaning)


def test_red_or_black_prompts_follow_the_round():
    game = _game(RedBlack, 2)
    assert game.buttons() == [("YES", "red"), ("NO", "black")]
    game.round = 4
    assert game.buttons() == [("ARM", "next suit"), ("NO", "prev suit"), ("YES", "spades")]
    game.record(("cursor", 2))
    assert game.buttons()[-1] == ("YES", "diamonds")


def test_two_player_deglingo_prompt_never_shows_the_secret_count():
    game = _game(Deglingo, 2, target=12)
    before = game.buttons()
    for _ in range(2):
        game.control_entry("yes")  # the secret count, entered silently
    assert (
        game.buttons()
        == before
        == [
            ("YES", "+1 replaced"),
            ("NO", "clear"),
            ("P1", "Deglingo!"),
        ]
    )


def test_menu_values_carry_units_and_meanings():
    menu = Menu(6, "quiz")
    assert menu.text("game") == "Quiz" and menu.text("players") == "6 players"
    menu.step = 2  # format: a preset of the options after it
    assert menu.label() == "format" and menu.text() == "plain"
    menu.step = 3  # false_start (after the format)
    assert menu.text() == "250 ms"
    assert Quiz.option_text("target", 0) == "no target"
    assert Quiz.option_text("false_start", "race") == "until decided"
    assert Quiz.option_text("false_start", "off") == "no lockout"
    assert Deglingo.option_text("timer", 0) == "no timer"
    assert Deglingo.option_text("timer", 30) == "30 s"
    assert Diddly.option_text("columns", 4) == "4 columns"
    assert Menu(6, "redblack").text("game") == "Red or Black"
    assert menu.buttons() == [("ARM", "next"), ("NO", "previous"), ("YES", "ok"), ("UNDO", "back")]


def test_the_menu_event_says_the_value_in_words():
    result = run_sim(
        timeline(
            {"at_us": 1000, "send": {"cmd": "menu"}},
            {"at_us": 200000, "control": "yes"},
            {"at_us": 400000, "control": "yes"},
        )
    )
    assert [m["text"] for m in events(result, "menu")] == ["Quiz", "6 players", "plain"]


def test_two_player_deglingo_shows_and_plays_to_twelve():
    # menu: deglingo (ARM twice), 2 players (NO from 6 wraps... step down to 2), then target
    script = [{"at_us": 1000, "send": {"cmd": "menu"}}]
    t = 200000
    for name in ["arm", "arm", "yes", "no", "no", "no", "no", "yes", "yes"]:
        script.append({"at_us": t, "control": name})
        t += 200000
    result = run_sim(timeline(*script))
    last = events(result, "menu")[-1]
    assert (last["step"], last["value"], last["text"], last["of"]) == (
        "target",
        "12",
        "12 points",
        1,
    )
    script += [{"at_us": t, "control": "yes"}, {"at_us": t + 200000, "control": "yes"}]
    result = run_sim(timeline(*script))
    game = events(result, "game")[-1]
    assert game["players"] == 2 and game["options"]["target"] == 12


def test_two_player_deglingo_refuses_another_target():
    ref, out = bare_referee()
    with pytest.raises(GameError) as e:
        ref.new_game("deglingo", 2, {"target": 5})
    assert e.value.code == "bad_option" and "12 points" in e.value.detail
    ref.new_game("deglingo", 2, {})
    assert [f for n, f in out if n == "game"][0]["options"]["target"] == 12
    ref.new_game("deglingo", 3, {"target": 7})
    assert [f for n, f in out if n == "game"][-1]["options"]["target"] == 7


def test_game_over_prompts_rematch_and_menu():
    ref, _ = bare_referee()
    ref.new_game("quiz", 2, {})
    assert ref.buttons() == [("ARM", "arm buzzers")]
    ref.command("end", {})
    assert ref.buttons() == [("YES", "play again"), ("ARM", "menu")]
