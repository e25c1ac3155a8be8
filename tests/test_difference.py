"""Difference through the simulator: whole games for 2, 3 and 6 players, and the rule details.

Rules: shared/rules/000_a67c491cd46e781e.txt and shared/rules/README.md section "difference".
"""


import pytest
from helpers import events, run_cli, run_raw, run_sim, timeline
from scripts import CARDS, difference_game


def _new_game(players, **options):
    return {
        "at_us": 1000,
        "send": {"cmd": "new_game", "game": "difference", "players": players, "options": options},
    }


@pytest.mark.parametrize("players", [2, 3, 6])
def test_full_game_to_a_final_ranking(players, tmp_path):
    records, expected = difference_game(players)
    script = tmp_path / "difference.jsonl"
    script.write_text(timeline(*records))
    args = ["--script", str(script), "--seed", "d1ff", "--game", "difference"]
    evs = run_cli(args + ["--players", str(players)])
    game = [e for e in evs if e["ev"] == "game"][0]
    assert game["options"] == {
        "advanced": False,
        "beginner": False,
        "false_start": 250,
        "play_on": True,
        "retry_after_wrong": False,
    }
    first_score = [e for e in evs if e["ev"] == "score"][0]
    assert first_score == {"ev": "score", "scores": [CARDS[players]] * players, "unit": "cards",
                           "places": [0] * players}
    assert [e["reason"] for e in evs if e["ev"] == "lockout"][0] == "false_start"
    assert any(e["ev"] == "race" and e["tie"] for e in evs)
    assert any(e["ev"] == "undo" for e in evs)
    over = [e for e in evs if e["ev"] == "game_over"]
    assert len(over) == 1 and not over[0]["abandoned"]
    assert [(r["place"], r["player"], r["score"]) for r in over[0]["ranking"]] == expected
    errors = [e for e in evs if e["ev"] == "error"]
    assert errors == []


def test_wrong_answer_locks_out_until_the_reference_changes():
    result = run_sim(
        timeline(
            _new_game(3),
            {"at_us": 10000, "control": "arm"},
            {"at_us": 100000, "press": 1},
            {"at_us": 150000, "release": 1},
            {"at_us": 300000, "control": "no"},
            {"at_us": 400000, "press": 1},  # locked: ignored
            {"at_us": 400500, "press": 2},
            {"at_us": 450000, "release": 1},
            {"at_us": 450000, "release": 2},
            {"at_us": 600000, "control": "yes"},  # P2's card becomes the reference: P1 is back
        )
    )
    assert [e["winner"] for e in events(result, "race")] == [1, 2]
    assert events(result, "armed")[-1]["players"] == [1, 2, 3]
    assert events(result, "score")[-1]["scores"] == [8, 7, 8]


def test_retry_after_wrong_keeps_the_player_in():
    result = run_sim(
        timeline(
            _new_game(2, retry_after_wrong=True),
            {"at_us": 10000, "control": "arm"},
            {"at_us": 100000, "press": 1},
            {"at_us": 150000, "release": 1},
            {"at_us": 300000, "control": "no"},
            {"at_us": 400000, "press": 1},
            {"at_us": 450000, "release": 1},
        )
    )
    assert [e["winner"] for e in events(result, "race")] == [1, 1]
    assert events(result, "lockout") == []


def test_beginner_puts_the_card_under_the_pile_once():
    result = run_sim(
        timeline(
            _new_game(2, beginner=True),
            {"at_us": 10000, "control": "arm"},
            {"at_us": 100000, "press": 2},
            {"at_us": 150000, "release": 2},
            {"at_us": 300000, "press": 2},
            {"at_us": 350000, "release": 2},  # again: skip
            {"at_us": 500000, "press": 2},
            {"at_us": 550000, "release": 2},
            {"at_us": 700000, "press": 2},
            {"at_us": 750000, "release": 2},  # skip the next card
            {"at_us": 900000, "control": "undo"},  # take the second skip back
            {"at_us": 1100000, "control": "yes"},
        )
    )
    assert [e["cards"] for e in events(result, "skip")] == [12, 12]
    assert events(result, "score")[-1]["scores"] == [12, 11]


def test_first_to_zero_without_play_on_ends_the_game():
    script = [_new_game(2, play_on=False), {"at_us": 10000, "control": "arm"}]
    t = 100000
    for _ in range(12):
        script += [
            {"at_us": t, "press": 1},
            {"at_us": t + 50000, "release": 1},
            {"at_us": t + 200000, "control": "yes"},
        ]
        t += 400000
    result = run_sim(timeline(*script))
    over = events(result, "game_over")[-1]
    assert over["ranking"] == [
        {"place": 1, "player": 1, "score": 0},
        {"place": 2, "player": 2, "score": 12},
    ]
    assert events(result, "finished") == [{"ev": "finished", "player": 1, "place": 1}]


def test_menu_chooses_difference_with_the_controls():
    result = run_sim(
        timeline(
            {"at_us": 1000, "send": {"cmd": "menu"}},
            {"at_us": 200000, "control": "arm"},  # game: quiz -> difference
            {"at_us": 400000, "control": "yes"},  # players
            {"at_us": 600000, "control": "no"},  # 6 -> 5
            {"at_us": 800000, "control": "no"},  # 5 -> 4
            {"at_us": 1000000, "control": "yes"},  # false_start
            {"at_us": 1200000, "control": "yes"},  # retry_after_wrong
            {"at_us": 1400000, "control": "arm"},  # -> on
            {"at_us": 1600000, "control": "yes"},  # beginner
            {"at_us": 1800000, "control": "yes"},  # advanced
            {"at_us": 2000000, "control": "yes"},  # play_on
            {"at_us": 2200000, "control": "yes"},  # start
        )
    )
    menu = events(result, "menu")
    assert [(m["step"], m["value"]) for m in menu][:3] == [
        ("game", "quiz"),
        ("game", "difference"),
        ("players", "6"),
    ]
    game = events(result, "game")[-1]
    assert game["game"] == "difference" and game["players"] == 4
    assert game["options"]["retry_after_wrong"] is True


def test_holding_undo_returns_to_the_menu_and_reveals_the_seed():
    result = run_sim(
        timeline(
            _new_game(2),
            {"at_us": 10000, "control": "arm"},
            {"at_us": 100000, "press": 1},
            {"at_us": 150000, "release": 1},
            {"at_us": 300000, "control": "yes"},
            {"at_us": 600000, "control": "undo", "hold_ms": 2500},
        )
    )
    assert events(result, "undo") == []  # the hold is not an undo
    over = events(result, "game_over")[-1]
    assert over["abandoned"] is True and len(over["seed"]) == 32
    assert events(result, "menu")[-1]["step"] == "game"


@pytest.mark.micropython
@pytest.mark.parametrize("players", [2, 6])
def test_same_events_under_micropython(players):
    records, _ = difference_game(players)
    text = timeline(*records)
    header = {"game": "difference"}
    cpython = run_raw(text, players=players, seed="d1ff", **header)
    micropython = run_raw(text, players=players, seed="d1ff", interpreter="micropython", **header)
    assert micropython == cpython
