"""The arbiter on its own: presses with stamps in, decisions out (no clock, no hardware)."""

from refbox.arbiter import ARMED, DECIDED, Arbiter
from refbox.prng import Prng, seed_from_hex
from refbox.ticks import Stamp


def _arbiter(false_start=250):
    arb = Arbiter(Prng(seed_from_hex("7")))
    arb.false_start = false_start
    return arb


def _race(arb, presses, arm_us=1000, until_us=None):
    out = []
    arb.arm(Stamp(arm_us), range(6))
    for player, us, ns in presses:
        arb.press(player, Stamp(us, ns), out)
    last = max(us for _, us, _ in presses) if presses else arm_us
    arb.tick(Stamp(until_us if until_us is not None else last + 10000), out)
    return out


def test_earliest_stamp_wins_with_margin_in_ns():
    out = _race(_arbiter(), [(4, 5000, 0), (1, 5000, 56), (2, 7000, 0)])
    assert out == [("race", 4, 56, [], Stamp(5000, 0))]


def test_equal_stamps_are_a_tie_broken_by_the_prng():
    out = _race(_arbiter(), [(5, 5000, 112), (0, 5000, 112)])
    kind, winner, margin, tied, _ = out[0]
    assert kind == "race" and tied == [0, 5] and winner in (0, 5) and margin == 0


def test_decided_once_the_press_horizon_has_passed_the_first_press():
    arb = _arbiter()
    out = []
    arb.arm(Stamp(0), range(6))
    arb.press(3, Stamp(100), out)
    arb.tick(Stamp(99), out)  # an earlier press may still come: a closure judged from 99 µs on
    assert out == [] and arb.phase == ARMED
    arb.press(2, Stamp(99, 500), out)  # accepted late, closed earlier: it wins
    arb.tick(Stamp(99, 500), out)  # a press stamped with it may still come: a tie
    assert out == [] and arb.phase == ARMED
    arb.tick(Stamp(99, 501), out)  # 1 ns later: nothing can come at or before it
    assert out == [("race", 2, 500, [], Stamp(99, 500))] and arb.phase == DECIDED


def test_a_press_after_the_decision_gives_the_margin():
    arb = _arbiter()
    out = []
    arb.arm(Stamp(0), range(6))
    arb.press(4, Stamp(100), out)
    arb.tick(Stamp(100, 1), out)
    assert out == [("race", 4, None, [], Stamp(100))]
    arb.press(1, Stamp(100, 56), out)  # the runner-up, handed over after the decision
    arb.press(2, Stamp(103), out)  # the margin is announced once
    assert out[1:] == [("margin", 4, 1, 56)]


def test_tied_presses_are_all_known_before_the_decision():
    arb = _arbiter()
    out = []
    arb.arm(Stamp(0), range(6))
    arb.press(5, Stamp(200, 112), out)
    arb.tick(Stamp(200, 112), out)  # the horizon at the stamp: a tied press may still come
    arb.press(0, Stamp(200, 112), out)
    arb.tick(Stamp(200, 113), out)
    kind, winner, margin, tied, _ = out[0]
    assert kind == "race" and tied == [0, 5] and winner in (0, 5) and margin == 0


def test_false_start_locks_out_and_each_early_press_restarts_it():
    arb = _arbiter()
    out = []
    arb.ready()
    arb.press(2, Stamp(0), out)
    arb.press(2, Stamp(200000), out)  # pressed again during the lockout: restart
    assert out == [("lockout", 2, "false_start", 250), ("lockout", 2, "false_start", 250)]
    arb.arm(Stamp(300000), range(6))
    arb.press(2, Stamp(400000), out)  # still locked (until 450 ms): restarts again, no entry
    arb.tick(Stamp(400000 + 3000), out)
    assert out[-1] == ("lockout", 2, "false_start", 250)
    arb.tick(Stamp(650000), out)
    assert out[-1] == ("unlock", 2)
    arb.press(2, Stamp(700000), out)
    arb.tick(Stamp(710000), out)
    assert out[-1][:2] == ("race", 2)


def test_press_that_began_before_the_cue_is_a_false_start():
    out = _race(_arbiter(), [(1, 999, 999), (3, 1200, 0)], arm_us=1000)
    assert out[0] == ("lockout", 1, "false_start", 250)
    assert out[1][:2] == ("race", 3)


def test_false_start_race_and_off_options():
    arb = _arbiter("race")
    out = []
    arb.ready()
    arb.press(0, Stamp(0), out)
    assert out == [("lockout", 0, "false_start", None)]
    out = _race(arb, [(0, 9000000, 0), (1, 9000001, 0)], arm_us=5000000)
    assert [o[0] for o in out] == ["lockout", "race"] and out[1][1] == 1  # still out
    out = []
    arb.arm(Stamp(20000000), range(6), out)  # the race reopens after a wrong answer
    arb.press(0, Stamp(20100000), out)
    assert out == [("lockout", 0, "false_start", None)] and arb.is_locked(0)
    arb.question += 1  # the next question
    out = []
    arb.arm(Stamp(30000000), range(6), out)
    assert out == [("unlock", 0)] and not arb.is_locked(0)
    arb = _arbiter("off")
    out = []
    arb.ready()
    arb.press(0, Stamp(0), out)
    assert out == []


def test_margin_reported_when_runner_up_presses_after_the_decision():
    arb = _arbiter()
    out = _race(arb, [(2, 5000, 0)])
    assert out == [("race", 2, None, [], Stamp(5000))]
    arb.press(4, Stamp(180000, 500), out)
    arb.press(1, Stamp(190000), out)  # only the first later press is the runner-up
    assert out[1:] == [("margin", 2, 4, 175000500)]


def test_decisions_are_correct_across_the_ticks_wrap():
    top = (1 << 30) - 1
    out = _race(_arbiter(), [(0, 5, 0), (1, top - 3, 0)], arm_us=top - 100, until_us=10000)
    assert out[0][:3] == ("race", 1, 9000)  # 2**30-4 -> 5 is 9 µs
