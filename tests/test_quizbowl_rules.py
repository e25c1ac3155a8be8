"""Quizbowl by the book (issue 37): the quiz's rules checked against the rule books they cite.

NAQT: "Correct Rules of Quizbowl" (the Gameplay Rules current as of August 1, 2023,
naqt.com/rules/; docs/quizbowl.md quotes each point):
- one neg per tossup: only the first team to interrupt wrongly loses 5 points; a second team's
  wrong interrupt scores nothing;
- sudden death: tossups until one is answered right (that team wins) or a neg (that team loses);
- no bounce-backs: a bonus part the controlling team misses is dead (ACF reads none either);
- a power (15) only for a correct answer at or before the power mark: never on a buzz after the
  reader passed the mark (`act power_mark`) or finished the tossup (`act read`);
- 3 seconds to begin an answer once recognised (2 s until the 2022-23 season).
The pure core first (a Referee, as tests/test_quiz_rules.py drives it), then one timeline of all
of them through the simulator on CPython and on the MicroPython unix port, compared byte for byte.
"""

import pytest
from refbox.games.quiz import FORMATS
from refbox.ticks import Stamp
from test_quiz_rules import SETTLE_US, Table, refolded, same_state

TEAMS = [[1, 2], [3, 4], [5, 6]]


def buzz(table, player, after_us=500):
    """`player` (1-based) presses `after_us` after now; time for the race's decision."""
    table.ref.press(player - 1, Stamp(table.t + after_us))
    table.advance(after_us + SETTLE_US)


def checked(table):
    """The game refolded from its log (undo, replay, resume) is the same game."""
    same_state(table.game, refolded(table.game))
    assert refolded(table.game).negged == table.game.negged
    return table


# ------------------------------------------------------------------ one neg per tossup
@pytest.mark.parametrize("fmt", ["naqt", "acf"])
def test_only_the_first_teams_wrong_interrupt_is_a_neg(fmt):
    """NAQT: the 5-point penalty is for the first team to interrupt wrongly; the second team's
    wrong answer, interrupt or not, scores nothing."""
    table = Table(6, format=fmt, teams=TEAMS, bonus=0)
    table.control("arm")  # the reading starts: the buzzers are open
    buzz(table, 1)
    assert table.game.buttons()[1] == ("NO", "wrong -5")
    table.control("no")
    buzz(table, 3)  # still before the reading's end: an interrupt too
    assert table.game.buttons()[1] == ("NO", "wrong")
    table.control("no")
    judged = table.events("judge")
    assert [(j["points"], j["interrupt"]) for j in judged] == [(-5, True), (0, True)]
    assert table.game.team_scores() == [-5, 0, 0]
    table.send("act", action="read")
    buzz(table, 5)
    table.control("yes")
    assert table.game.team_scores() == [-5, 0, 10]
    checked(table)
    # the next tossup: a neg is the first team's again
    table.control("arm")
    buzz(table, 4)
    table.control("no")
    assert table.events("judge")[-1]["points"] == -5
    checked(table)


def test_a_second_neg_given_by_hand_is_refused_and_changes_nothing():
    table = Table(4, format="naqt", teams=[[1, 2], [3, 4]])
    table.control("arm")
    buzz(table, 2)
    table.send("judge", correct=False, points=-5)
    buzz(table, 4)
    log = list(table.game.log)
    table.send("judge", correct=False, points=-5)
    assert table.errors() == ["bad_value"] and table.game.log == log
    table.send("judge", correct=False)
    assert table.game.team_scores() == [-5, 0]
    checked(table)


def test_both_teams_wrong_after_the_reading_is_no_neg_and_the_tossup_dies():
    table = Table(4, format="naqt", teams=[[1, 2], [3, 4]])
    table.control("arm")
    table.send("act", action="read")
    buzz(table, 1)
    table.control("no")
    buzz(table, 3)
    table.control("no")
    assert [j["points"] for j in table.events("judge")] == [0, 0]
    assert table.events("dead")[-1]["reason"] == "wrong" and table.game.question == 2
    checked(table)


# ------------------------------------------------------------------ sudden death
@pytest.mark.parametrize("fmt", ["naqt", "acf"])
def test_a_neg_in_sudden_death_loses_the_game(fmt):
    """NAQT: in sudden death an incorrect interrupt loses (ACF's tiebreaker too)."""
    table = Table(4, format=fmt, teams=[[1, 2], [3, 4]], questions=1, overtime=0)
    table.control("arm")  # tossup 1 goes dead: 0-0, sudden death
    table.send("act", action="read")
    table.advance(6_000_000)
    assert table.events("sudden_death")
    table.control("arm")
    buzz(table, 3)
    table.control("no")  # a neg
    assert table.game.phase == "over"
    over = table.events("game_over")[-1]
    assert table.events("team_ranking")[-1]["ranking"][0] == {"place": 1, "team": 1, "score": 0}
    assert over["ranking"][0]["score"] == 0
    checked(table)


def test_a_neg_in_a_three_team_sudden_death_leaves_the_other_two_level():
    table = Table(6, format="naqt", teams=TEAMS, questions=1, overtime=0, bonus=0)
    table.control("arm")
    table.send("act", action="read")
    table.advance(4_000_000)
    assert table.events("sudden_death")[-1]["players"] == [1, 2, 3, 4, 5, 6]
    table.control("arm")
    buzz(table, 5)
    table.control("no")
    assert table.game.phase == "ready" and table.events("sudden_death")[-1]["players"] == [
        1, 2, 3, 4]
    table.control("arm")
    buzz(table, 2)
    table.control("yes")
    assert table.game.phase == "over" and table.game.team_scores() == [10, 0, -5]
    checked(table)


def test_a_wrong_answer_after_the_reading_in_sudden_death_plays_on():
    table = Table(4, format="naqt", teams=[[1, 2], [3, 4]], questions=1, overtime=0)
    table.control("arm")
    table.send("act", action="read")
    table.advance(4_000_000)
    table.control("arm")
    table.send("act", action="read")
    buzz(table, 1)
    table.control("no")  # no neg after the reading: team 2 may still answer
    assert table.game.phase == "racing" and table.game.eligible() == [2, 3]
    buzz(table, 4)
    table.control("yes")
    assert table.game.phase == "over" and table.game.team_scores() == [0, 10]
    checked(table)


# ------------------------------------------------------------------ bounce-backs
@pytest.mark.parametrize("fmt", ["naqt", "acf"])
def test_no_bounce_backs_under_naqt_and_acf(fmt):
    table = Table(4, format=fmt, teams=[[1, 2], [3, 4]])
    table.control("arm")
    buzz(table, 1)
    table.control("yes")
    log = list(table.game.log)
    table.send("bonus", parts=[True, 2, False])
    assert table.errors() == ["bad_value"] and table.game.log == log
    assert table.game.phase == "bonus"
    table.send("bonus", parts=[True, False, False])
    assert table.game.team_scores() == [20, 0]


def test_a_house_format_keeps_bounce_backs():
    table = Table(4, teams=[[1, 2], [3, 4]], **dict(FORMATS["naqt"], format="plain"))
    table.control("arm")
    buzz(table, 1)
    table.control("yes")
    table.send("bonus", parts=[True, 2, False])
    assert table.errors() == [] and table.game.team_scores() == [20, 10]


# ------------------------------------------------------------------ powers
def test_the_board_gives_its_power_value_and_refuses_it_past_the_mark():
    """`judge` with `power` true (the reader's call from the packet: the buzz came before the
    power mark): the board gives its format's power value, says that value in each tossup's
    `question`, and refuses it past the power mark or where the format has no powers."""
    table = Table(4, format="naqt", teams=[[1, 2], [3, 4]], bonus=0)
    table.control("arm")
    assert table.events("question")[-1]["power"] == 15
    buzz(table, 1)
    table.send("judge", correct=True, power=True)
    assert (table.events("judge")[-1]["points"], table.events("judge")[-1]["power"]) == (15, True)
    table.control("arm")
    table.send("act", action="power_mark")
    buzz(table, 3)
    log = list(table.game.log)
    table.send("judge", correct=True, power=True)
    table.send("judge", correct=False, power=True)
    table.send("judge", correct=True, power=True, points=15)
    assert table.errors() == ["bad_value"] * 3 and table.game.log == log
    plain = Table(2)
    plain.control("arm")
    assert plain.events("question")[-1]["power"] == 0
    buzz(plain, 1)
    plain.send("judge", correct=True, power=True)
    assert plain.errors() == ["bad_value"] and plain.game.scores == [0, 0]
    checked(table)


def test_a_power_only_for_a_buzz_before_the_power_mark():
    """NAQT: 15 points for a correct answer at or before the power mark; the press stamp
    decides (a buzz before the mark judged after it is still a power)."""
    table = Table(4, format="naqt", teams=[[1, 2], [3, 4]], bonus=0)
    table.control("arm")
    buzz(table, 1)  # before the mark
    table.send("act", action="power_mark")  # the reader passes the mark while P1 answers: late
    assert table.errors() == ["not_now"]
    table.send("judge", correct=True, points=15)
    assert table.events("judge")[-1]["power"] is True
    # tossup 2: the reader marks the power mark, then P3 buzzes
    table.control("arm")
    table.send("act", action="power_mark")
    assert table.events("power_mark")[-1] == {"ev": "power_mark", "question": 2}
    buzz(table, 3)
    log = list(table.game.log)
    table.send("judge", correct=True, points=15)
    assert table.errors()[-1] == "bad_value" and table.game.log == log
    table.send("judge", correct=True)
    assert table.events("judge")[-1]["points"] == 10
    # tossup 3: read to the end, then a buzz: never a power
    table.control("arm")
    table.send("act", action="read")
    buzz(table, 2)
    table.send("judge", correct=True, points=15)
    assert table.errors()[-1] == "bad_value"
    table.send("judge", correct=True, points=10)
    assert table.game.team_scores() == [25, 10]
    checked(table)


def test_a_buzz_stamped_before_the_reading_ended_keeps_its_power():
    """The judgement comes after the `read` line; the press was stamped before it."""
    table = Table(4, format="naqt", teams=[[1, 2], [3, 4]], bonus=0)
    table.control("arm")
    table.ref.press(0, Stamp(table.t + 100))
    table.t += 200
    table.ref.now = table.t
    table.send("act", action="read")  # the reading's end arrives before the race's decision
    table.advance(SETTLE_US)
    assert table.game.answering == 0
    table.send("judge", correct=True, points=15)
    assert table.errors() == [] and table.game.team_scores() == [15, 0]


# ------------------------------------------------------------------ timing
def test_three_seconds_to_begin_an_answer_under_naqt():
    """NAQT (from 2022-23): 3 s to begin an answer once recognised."""
    assert FORMATS["naqt"]["answer_s"] == 3
    table = Table(4, format="naqt", teams=[[1, 2], [3, 4]])
    table.control("arm")
    buzz(table, 1)
    assert table.events("timer")[-1] == {"ev": "timer", "timer": "answer", "player": 1,
                                         "ms": 3000}
    table.advance(2_990_000)
    assert not table.events("time_up")
    table.advance(20_000)
    assert table.events("time_up")[-1]["timer"] == "answer"


# ------------------------------------------------------------------ both interpreters
RULES_SIM = [
    {"at_us": 100000, "control": "arm"},  # tossup 1: two wrong interrupts, one neg
    {"at_us": 200000, "press": 1},
    {"at_us": 250000, "release": 1},
    {"at_us": 300000, "control": "no"},
    {"at_us": 400000, "press": 3},
    {"at_us": 450000, "release": 3},
    {"at_us": 500000, "control": "no"},
    {"at_us": 600000, "control": "arm"},  # tossup 2: the power mark, then a buzz: no power
    {"at_us": 700000, "send": {"cmd": "act", "action": "power_mark"}},
    {"at_us": 800000, "press": 3},
    {"at_us": 850000, "release": 3},
    {"at_us": 900000, "send": {"cmd": "judge", "correct": True, "points": 15}},  # refused
    {"at_us": 1000000, "control": "yes"},
    {"at_us": 1100000, "send": {"cmd": "bonus", "parts": [True, 1, False]}},  # refused
    {"at_us": 1200000, "send": {"cmd": "bonus", "parts": [False, False, False]}},
    {"at_us": 1300000, "control": "arm"},  # tossup 3: a power, 10-10 after 3: sudden death
    {"at_us": 1400000, "press": 1},
    {"at_us": 1450000, "release": 1},
    {"at_us": 1500000, "send": {"cmd": "judge", "correct": True, "points": 15}},
    {"at_us": 1600000, "send": {"cmd": "bonus", "parts": [False, False, False]}},
    {"at_us": 1650000, "send": {"cmd": "act", "action": "protest", "team": 2,
                                "text": "the power mark was misread"}},
    {"at_us": 1700000, "control": "arm"},  # sudden death: a neg loses
    {"at_us": 1800000, "press": 4},
    {"at_us": 1850000, "release": 4},
    {"at_us": 1900000, "control": "no"},
]
RULES_SETUP = {"options": {"format": "naqt", "teams": [[1, 2], [3, 4]], "questions": 3,
                           "overtime": 0}}


def test_the_rules_timeline_through_the_simulator():
    from helpers import events, run_sim, timeline

    result = run_sim(timeline(*RULES_SIM), players=4, **RULES_SETUP)
    assert [e["code"] for e in events(result, "error")] == ["bad_value", "bad_value"]
    assert [(j["points"], j["interrupt"]) for j in events(result, "judge")] == [
        (-5, True), (0, True), (10, False), (15, False), (-5, True)]
    assert events(result, "power_mark") == [{"ev": "power_mark", "question": 2}]
    assert events(result, "sudden_death")[-1]["players"] == [1, 2, 3, 4]
    assert events(result, "protest") == [{"ev": "protest", "question": 3, "team": 2,
                                          "note": "the power mark was misread"}]
    assert events(result, "team_ranking")[-1]["ranking"] == [
        {"place": 1, "team": 1, "score": 10}, {"place": 2, "team": 2, "score": 5}]


@pytest.mark.micropython
def test_the_rules_give_the_same_bytes_on_both_interpreters():
    from helpers import run_raw, timeline

    text = timeline(*RULES_SIM)
    cpython = run_raw(text, players=4, **RULES_SETUP)
    assert run_raw(text, players=4, interpreter="micropython", **RULES_SETUP) == cpython


# ------------------------------------------------------------------ protests
def test_a_protest_is_logged_on_the_question_and_kept_by_undo():
    """NAQT: protests are lodged with the moderator and ruled on by the tournament director:
    the box records them (no score change); an UNDO of the judgement before keeps them."""
    table = Table(4, format="naqt", teams=[[1, 2], [3, 4]], bonus=0)
    table.control("arm")
    buzz(table, 3)
    table.control("no")
    table.send("act", action="protest", team=2, text="  'Lincoln' was acceptable  ")
    assert table.events("protest") == [{"ev": "protest", "question": 1, "team": 2,
                                        "note": "'Lincoln' was acceptable"}]
    table.send("undo")
    assert ("protest", 1, 1, "'Lincoln' was acceptable") in table.game.log
    assert [e[0] for e in table.game.log[-3:]] == ["win", "protest", "untimed"]
    checked(table)
    log = list(table.game.log)
    for bad in ({}, {"text": ""}, {"text": "x" * 101}, {"text": "a\x07b"},
                {"text": "ok", "team": 3}):
        table.send("act", action="protest", **bad)
    assert table.errors() == ["bad_value"] * 5 and table.game.log == log
