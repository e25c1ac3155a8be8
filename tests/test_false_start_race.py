"""false_start "race": the early presser is out until the next question (the next ARM that opens
a new race), also out of the race reopened after a wrong answer. Quiz and Difference here (the
arbiter's lockout); Déglingo's own lockout in test_deglingo.py."""

import pytest
from helpers import events, run_raw, run_sim, timeline

MS = 1000


def _script(arm_again):
    recs = [
        {"at_us": 10 * MS, "press": 1},  # before the cue: a false start
        {"at_us": 60 * MS, "release": 1},
        {"at_us": 100 * MS, "control": "arm"},
        {"at_us": 200 * MS, "press": 2},
        {"at_us": 260 * MS, "release": 2},
        {"at_us": 400 * MS, "control": "no"},  # P2 wrong: the race reopens for P3 (and P1?)
        {"at_us": 600 * MS, "press": 1},  # still out: restarts nothing, wins nothing
        {"at_us": 660 * MS, "release": 1},
        {"at_us": 700 * MS, "press": 3},
        {"at_us": 760 * MS, "release": 3},
        {"at_us": 900 * MS, "control": "yes"},  # P3 right: the next question
    ]
    if arm_again:
        recs.append({"at_us": 1000 * MS, "control": "arm"})
    recs += [{"at_us": 1100 * MS, "press": 1}, {"at_us": 1160 * MS, "release": 1}]
    return timeline(*recs)


@pytest.mark.parametrize("game", ["quiz", "difference"])
def test_out_until_the_next_question_also_when_the_race_reopens(game):
    text = _script(arm_again=game == "quiz")  # Difference re-arms by itself on a new card
    result = run_sim(text, players=3, game=game, options={"false_start": "race"})
    assert [r["winner"] for r in events(result, "race")] == [2, 3, 1]
    p1 = [(ev["ev"], ev.get("reason")) for _, ev in result if ev.get("player") == 1]
    p1 = [e for e in p1 if e[0] in ("lockout", "unlock")]
    assert p1 == [("lockout", "false_start"), ("lockout", "false_start"), ("unlock", None)]


@pytest.mark.micropython
def test_race_lockouts_are_the_same_bytes_on_micropython():
    for game in ("quiz", "difference"):
        text = _script(arm_again=game == "quiz")
        head = {"players": 3, "game": game, "options": {"false_start": "race"}}
        assert run_raw(text, interpreter="micropython", **head) == run_raw(text, **head)
