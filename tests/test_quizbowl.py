"""Quizbowl in the quiz (issue 22): the `format` presets, powers, tossup/bonus cycles with
bounce-backs, the bonus and computation timers on the deadline rule, overtime then sudden death,
and jump pads (`trigger` "release"). The pure core (a Referee, no simulator); every game is also
refolded from its log, the path undo, replay and resume take, and must give the same state.
"""

import pytest
from refbox.games.quiz import FORMATS, Quiz
from refbox.menu import Menu
from refbox.ticks import Stamp
from test_quiz_rules import SETTLE_US, Table, refolded, same_state

NAQT_TEAMS = [[1, 2, 3, 4], [5, 6, 7, 8]]
# a house format with bounce-backs: NAQT's options under `plain` (NAQT and ACF read none)
HOUSE = dict(FORMATS["naqt"], format="plain")


def bowl_state(game):
    same_state(game, refolded(game))
    copy = refolded(game)
    keys = ("bonus_points", "control", "parts", "part_at", "part_up", "extra", "compute")
    assert [getattr(copy, k) for k in keys] == [getattr(game, k) for k in keys]
    return game


def naqt(**options):
    return Table(8, format="naqt", teams=NAQT_TEAMS, **options)


def buzz(table, player, after_us=500):
    """`player` (1-based) presses `after_us` after now; time for the race's decision."""
    table.ref.press(player - 1, Stamp(table.t + after_us))
    table.advance(after_us + SETTLE_US)


def test_a_format_presets_the_options_and_the_set_up_names_win():
    options = naqt(questions=24).events("game")[-1]["options"]
    for name, value in FORMATS["naqt"].items():
        if name != "questions":
            assert options[name] == value, name
    assert options["questions"] == 24 and options["format"] == "naqt"
    assert options["interrupt"] == -5 and options["power"] == 15 and options["bonus"] == 10
    acf = Table(2, format="acf").events("game")[-1]["options"]
    assert (acf["buzz_s"], acf["questions"], acf["bonus"], acf["bonus_s"]) == (5, 20, 10, 5)
    jeopardy = Table(3, format="jeopardy").events("game")[-1]["options"]
    assert jeopardy["false_start"] == 250 and jeopardy["interrupt"] == 0
    assert jeopardy["bonus"] == 0
    bad = Table(2)
    bad.send("new_game", game="quiz", players=2, options={"format": "nfl"})
    assert bad.errors() == ["bad_option"] and bad.game.options["format"] == "plain"


def test_the_menu_format_sets_the_options_after_it():
    menu = Menu(8, "quiz")
    menu.control("yes")  # game
    menu.control("yes")  # players
    assert menu.position()[0] == "format"
    menu.control("arm")  # plain -> naqt
    assert menu.text() == "naqt"
    assert menu.choice["buzz_s"] == 3 and menu.choice["bonus"] == 10
    assert Quiz.option_text("bonus", 0) == "no bonuses" and Quiz.option_label("bonus_s") == (
        "bonus time")


def test_powers_negs_and_a_bonus_credit_the_team():
    table = Table(8, teams=NAQT_TEAMS, **HOUSE)
    table.control("arm")  # the reading starts: the buzzers are open (interrupt variant)
    buzz(table, 2)
    table.send("judge", correct=True, points=15)  # before the power mark
    judge = table.events("judge")[-1]
    assert (judge["points"], judge["power"]) == (15, True)
    assert table.game.phase == "bonus" and table.events("bonus")[-1]["team"] == 1
    table.send("bonus", parts=[True, False, True])
    scored = table.events("bonus_scored")[-1]
    assert scored["parts"] == [1, None, 1] and scored["points"] == [10, 0, 10]
    assert table.events("score")[-1]["teams"] == [35, 0]
    assert table.game.phase == "ready" and table.game.question == 2
    # tossup 2: a neg (a wrong interrupt, -5), then team 1 after the reading's end gets it
    table.control("arm")
    buzz(table, 6)
    table.control("no")
    assert table.events("judge")[-1]["points"] == -5 and table.events("judge")[-1]["interrupt"]
    table.send("act", action="read")  # the reading ended: 3 s for team 1 to buzz
    buzz(table, 1, 1000)
    table.control("yes")
    assert table.events("judge")[-1]["points"] == 10
    # the bonus bounces back: part 2 to team 2
    table.send("bonus", parts=[False, 2, True], values=[10, 10, 10])
    assert table.events("score")[-1]["teams"] == [35 + 10 + 10, -5 + 10]
    assert table.errors() == []
    bowl_state(table.game)


def test_bad_judgements_and_bonuses_are_refused_and_change_nothing():
    table = naqt()
    table.send("bonus", parts=[True])
    assert table.errors() == ["not_now"]  # no bonus is being played
    table.control("arm")
    buzz(table, 1)
    table.send("judge", correct=False, points=5)  # a wrong answer cannot earn points
    table.send("judge", correct=True, points=1001)
    assert table.errors() == ["not_now", "bad_value", "bad_value"]
    assert table.game.phase == "answering" and table.game.log[-1][0] == "win"
    table.send("judge", correct=True)
    log = list(table.game.log)
    for parts in ([], [True] * 7, ["yes"], [1], [3], [True, False]):
        kw = {"values": [10]} if parts == [True, False] else {}
        table.send("bonus", parts=parts, **kw)
    assert table.errors()[3:] == ["bad_value"] * 6  # [1]: team 1 controls; [3]: no team 3
    assert table.game.log == log and table.game.phase == "bonus"
    table.send("judge", correct=True, points=0)  # a judgement in the bonus
    table.send("arm")  # the next tossup cannot start before the bonus
    assert table.errors()[-2:] == ["not_now", "not_now"]
    bowl_state(table.game)


def test_bonus_parts_judged_from_the_box_with_their_time_on_the_deadline_rule():
    table = naqt()
    table.control("arm")
    buzz(table, 7)
    table.control("yes")
    assert table.game.buttons() == [("ARM", "part read"), ("YES", "part right"),
                                    ("NO", "part wrong")]
    table.control("arm")  # part 1 read: 5 s to confer
    read_at = table.t
    assert table.events("timer")[-1] == {"ev": "timer", "timer": "bonus", "player": None,
                                         "ms": 5000}
    table.advance(4_999_000)
    assert not table.events("time_up")
    table.advance(1000)
    assert table.events("time_up")[-1] == {"ev": "time_up", "timer": "bonus", "player": None}
    assert table.game.log[-1] == ("part_up", read_at + 5_000_000, 0)  # the deadline, not now
    table.control("yes")
    table.control("no")
    assert [ev["team"] for ev in table.events("part")] == [2, None]
    table.control("yes")
    assert table.events("bonus_scored")[-1]["points"] == [10, 0, 10]
    assert table.game.team_scores() == [0, 30] and table.game.phase == "ready"
    bowl_state(table.game)


def test_undo_takes_back_the_bonus_then_the_tossup():
    table = naqt()
    table.control("arm")
    buzz(table, 3)
    table.send("judge", correct=True, points=15)
    table.send("bonus", parts=[True, True, True])
    assert table.game.team_scores() == [45, 0]
    table.send("undo")
    assert table.game.phase == "bonus" and table.game.team_scores() == [15, 0]
    bowl_state(table.game)
    table.send("undo")
    assert table.game.phase in ("racing", "answering") and table.game.team_scores() == [0, 0]
    assert table.errors() == []


def test_a_computation_tossup_has_its_own_buzz_window():
    table = naqt()
    table.send("arm", compute=True)
    table.send("act", action="read")
    assert table.events("timer")[-1]["ms"] == 10000
    table.advance(9_000_000)
    assert not table.events("dead")
    table.advance(1_100_000)
    assert table.events("dead")[-1]["reason"] == "time"
    table.control("arm")  # an ordinary tossup: 3 s
    table.send("act", action="read")
    assert table.events("timer")[-1]["ms"] == 3000
    bowl_state(table.game)


def test_a_tie_after_the_tossups_plays_overtime_then_sudden_death():
    table = Table(2, format="naqt", questions=2, overtime=1, bonus=0)
    for player in (1, 2):  # one tossup each: 10 - 10 after 2
        table.control("arm")
        buzz(table, player)
        table.control("yes")
    assert table.events("overtime")[-1] == {"ev": "overtime", "questions": 1, "players": [1, 2]}
    assert table.game.phase == "ready" and table.game.extra == 3
    table.control("arm")  # the overtime tossup goes dead: still tied
    table.send("act", action="read")
    table.advance(3_100_000)
    assert table.events("sudden_death")[-1]["players"] == [1, 2]
    table.control("arm")
    buzz(table, 2)
    table.control("yes")
    assert table.game.phase == "over"
    assert table.events("game_over")[-1]["ranking"][0]["player"] == 2
    bowl_state(table.game)


def test_overtime_reads_no_bonuses():
    table = Table(2, format="naqt", questions=1, overtime=3)
    table.control("arm")  # tossup 1 goes dead: 0 - 0
    table.send("act", action="read")
    table.advance(3_100_000)
    assert table.game.extra == 4 and table.events("overtime")
    table.control("arm")
    buzz(table, 1)
    table.control("yes")
    assert table.game.phase == "ready" and not table.events("bonus")  # no bonus in overtime
    assert table.game.team_scores() == [10, 0]
    bowl_state(table.game)


@pytest.mark.parametrize("trigger", ["press", "release"])
def test_jump_pads_race_on_the_release(trigger):
    table = Table(3, trigger=trigger)
    for p in range(3):  # everyone stands on their pad before the question
        table.ref.press(p, Stamp(table.t + 10 + p))
    table.advance(SETTLE_US)
    table.control("arm")
    base = table.t
    table.ref.release(2, Stamp(base + 300))  # P3 jumps first
    table.ref.release(0, Stamp(base + 900))
    table.advance(6000)
    race = table.events("race")
    if trigger == "release":
        assert race[-1]["winner"] == 3 and table.game.answering == 2
    else:
        assert race == []  # the standing presses came before the cue: no race yet


NAQT_SIM = [
    {"at_us": 100000, "control": "arm"},  # tossup 1: the reading starts
    {"at_us": 200000, "press": 2},
    {"at_us": 250000, "release": 2},
    {"at_us": 400000, "send": {"cmd": "judge", "correct": True, "points": 15}},  # a power
    {"at_us": 500000, "control": "arm"},  # bonus part 1 read
    {"at_us": 700000, "power": "off"},  # the power is cut in the bonus
    {"at_us": 1200000, "power": "on"},
    {"at_us": 1800000, "control": "yes"},
    {"at_us": 1900000, "control": "no"},
    {"at_us": 2000000, "control": "yes"},
    {"at_us": 2200000, "control": "arm"},  # tossup 2
    {"at_us": 2300000, "press": 3},
    {"at_us": 2350000, "release": 3},
    {"at_us": 2500000, "control": "no"},  # a neg
    {"at_us": 2600000, "send": {"cmd": "act", "action": "read"}},
    {"at_us": 2700000, "press": 1},
    {"at_us": 2750000, "release": 1},
    {"at_us": 2900000, "control": "yes"},
    {"at_us": 3000000, "send": {"cmd": "bonus", "parts": [False, 2, True]}},
    {"at_us": 3100000, "control": "undo"},
    {"at_us": 3400000, "send": {"cmd": "bonus", "parts": [True, True, True]}},
    {"at_us": 3500000, "send": {"cmd": "end"}},
]
# "flash": a journal, so the power cut resumes
NAQT_SIM_SETUP = {"options": dict(HOUSE, teams=[[1, 2], [3, 4]]), "flash": {}}


def test_a_naqt_game_through_the_simulator_survives_a_power_cut_in_the_bonus():
    from helpers import events, run_sim, timeline

    result = run_sim(timeline(*NAQT_SIM), players=4, **NAQT_SIM_SETUP)
    assert events(result, "resume") and not events(result, "error")
    assert [ev["points"] for ev in events(result, "judge")] == [15, -5, 10]
    assert [ev["points"] for ev in events(result, "bonus_scored")] == [
        [10, 0, 10], [0, 10, 10], [10, 10, 10]]
    assert events(result, "team_ranking")[-1]["ranking"][0] == {"place": 1, "team": 1,
                                                                 "score": 35 + 40}


@pytest.mark.micropython
def test_the_naqt_game_gives_the_same_bytes_on_both_interpreters():
    from helpers import run_raw, timeline

    text = timeline(*NAQT_SIM)
    cpython = run_raw(text, players=4, **NAQT_SIM_SETUP)
    assert run_raw(text, players=4, interpreter="micropython", **NAQT_SIM_SETUP) == cpython


def test_the_widest_game_and_resume_lines_stay_inside_512_bytes():
    """Every quiz option at its widest (the `resume` line repeats them all with the log's
    length): the new quizbowl options must leave room under the 512-byte line limit."""
    from refbox.protocol import encode_event

    widest = {"false_start": 60000, "target": 9999, "questions": 999, "points": 1000,
              "wrong_points": -1000, "interrupt": -1000, "buzz_s": 300, "answer_s": 300,
              "answer_timeout": "wrong", "power": 1000, "bonus": 1000, "parts": 6,
              "bonus_s": 300, "compute_s": 300, "overtime": 9, "trigger": "release",
              "format": "jeopardy", "next_in_line": False, "sudden_death": False,
              "teams": [[p] for p in range(1, 9)]}
    options = Table(8, **widest).game.options
    assert sorted(options) == sorted(widest)
    fields = (("game", "quiz"), ("players", 8), ("options", options), ("commit", "f" * 64),
              ("log", 99999))
    assert len(encode_event("resume", fields)) < 512


def test_the_host_tells_the_bonus_in_words():
    from helpers import run_sim, timeline
    from tablebuzz.views.eventlog import Narrator

    narrator = Narrator()
    lines = [narrator.line(ev) for _, ev in run_sim(timeline(*NAQT_SIM), players=4,
                                                     **NAQT_SIM_SETUP)]
    assert "judge: P2 correct, a power (+15 points)" in lines
    assert "bonus: team 1 plays the bonus of tossup 1 (3 parts of 10 points)" in lines
    assert "timer: 5 s for the bonus part" in lines
    assert "bonus part 2: missed" in lines
    assert ("bonus of tossup 2: part 1 missed; part 2 team 2 +10 (bounced back); part 3 team 1 +10"
            in lines)
