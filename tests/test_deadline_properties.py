"""Property tests: at every timer of every game, the decision follows the stamps, never when the
loop saw the press (docs/architecture.md "Deadlines").

For each timer a scenario puts the deciding input `offset` µs (-5..+5 ms, never 0) from the
deadline, with contact bounce, noise spikes on a station that plays no part and, in the
MicroPython lane, both interpreters (byte-identical). The expected outcome depends only
on the sign of the offset. Timers covered:
- quiz: the false-start lockout end (250 ms), the ARM cue, the buzz window (`buzz_s`), the answer
  time (`answer_s`, with `answer_timeout: "wrong"`, judged by a host `judge` line);
- Difference: the false-start lockout end;
- Déglingo: the observers' timer (`timer`), the false-start lockout end (counted from the call);
- Evidence: the last player's countdown, the 1 s hold (tap or hold), the `commit: "pause"` gap.
Red or Black and Diddly have no timer (no race, no countdown): nothing to cover there.
"""

import json

import pytest
from helpers import CONTROLS, events, timeline
from hypothesis import given, settings
from hypothesis import strategies as st
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse

MS = 1000
NOISE_STATION = 6  # plays in none of the scenarios


def _us(ns):
    return ns // 1000 if ns % 1000 == 0 else float("%d.%03d" % divmod(ns, 1000))


def _tap(recs, player, at_us, hold_us=60 * MS):
    recs.append({"at_us": at_us, "press": player})
    recs.append({"at_us": at_us + hold_us, "release": player})


def _names(evs, *keep):
    return [e["ev"] for e in evs if e["ev"] in keep]


# Each scenario: (game, players, options, build(offset_us, learnt) -> records, learn, check).
# `learn(evs)` gives a deadline that follows from the ARM button's instant (not written in the
# script: the simulator's handler latency adds to it); None when it follows from the script's
# own stamps.


def _check_lockout_end(evs, off, late, other):
    """Before the end (off < 0) the `late` player's press restarts the lockout and `other` wins;
    at or after it, `late` races and wins."""
    winners = [r["winner"] for r in events(evs, "race")]
    locks = [e for e in events(evs, "lockout") if e["player"] == late]
    assert winners == ([other] if off < 0 else [late]), (winners, off)
    assert len(locks) == (2 if off < 0 else 1)


def _lockout(game):
    def build(off, _):
        recs = []
        _tap(recs, 1, 10 * MS)  # a false start: out until 10 ms + 250 ms
        recs.append({"at_us": 100 * MS, "control": "arm"})
        _tap(recs, 1, 260 * MS + off)
        _tap(recs, 2, 280 * MS)
        return recs

    def check(evs, off):
        _check_lockout_end(evs, off, 1, 2)

    return game, 3, {"false_start": 250}, build, None, check


# The ARM button's cue (docs/architecture.md "One ordered stream") is its press once debounced:
# 10 ms after the last bounce of its contact, as its edge handler stamped it (20-25 µs after
# the edge in the simulator), whatever the save before the race takes; the `armed` line says
# it (t_us, t_ns).


def _quiz_cue():
    def build(off, arm_us):
        recs = [{"at_us": 100 * MS, "control": "arm"}]
        if arm_us is not None:
            _tap(recs, 1, arm_us + off)
            _tap(recs, 2, arm_us + 30 * MS)
        return recs

    def learn(evs):
        (armed,) = [e for _, e in evs if e["ev"] == "armed"]
        return armed["t_us"] + armed["t_ns"] / 1000  # the cue: the ARM input's own instant

    def check(evs, off):
        winners = [r["winner"] for r in events(evs, "race")]
        early = [e for e in events(evs, "lockout") if e["player"] == 1]
        assert winners == ([2] if off < 0 else [1]) and len(early) == (off < 0)

    return "quiz", 3, {}, build, learn, check


def _quiz_buzz_window():
    def build(off, arm_us):
        recs = [{"at_us": 100 * MS, "control": "arm"}]
        if arm_us is not None:
            _tap(recs, 1, arm_us + 1000 * MS + off)
        recs.append({"at_us": 1400 * MS, "send": {"cmd": "state"}})
        return recs

    def check(evs, off):
        winners = [r["winner"] for r in events(evs, "race")]
        dead = [e["reason"] for e in events(evs, "dead")]
        assert (winners, dead) == (([1], []) if off < 0 else ([], ["time"])), (winners, dead)

    return "quiz", 3, {"buzz_s": 1}, build, _quiz_cue()[4], check


def _quiz_answer_time():
    def build(off, _):
        recs = [{"at_us": 100 * MS, "control": "arm"}]
        _tap(recs, 1, 300 * MS)  # the floor from this press's stamp: 6 s to answer (a warning
        judge = {"cmd": "judge", "correct": True}  # 5 s before the end, at 1 s)
        recs.append({"at_us": 300 * MS + 6000 * MS + off, "send": judge})
        return recs

    def check(evs, off):
        judged = [(j["player"], j["correct"]) for j in events(evs, "judge")]
        refused = [e["code"] for e in events(evs, "error")]
        if off < 0:
            assert judged == [(1, True)] and refused == [] and not events(evs, "time_up")
        else:
            assert judged == [(1, False)] and refused == ["not_now"]

    options = {"answer_s": 6, "answer_timeout": "wrong"}
    return "quiz", 3, options, build, None, check


def _deglingo_timer():
    def build(off, _):
        recs = []
        _tap(recs, 1, 100 * MS)  # the call: the 3 s timer runs from its stamp
        _tap(recs, 2, 3100 * MS + off, 150 * MS)
        recs.append({"at_us": 3600 * MS, "send": {"cmd": "state"}})
        return recs

    def check(evs, off):
        winners = [r["winner"] for r in events(evs, "race")]
        how = [r["how"] for r in events(evs, "round_over")]
        assert (winners, how) == (([2], []) if off < 0 else ([], ["time"])), (winners, how)

    return "deglingo", 3, {"timer": 3}, build, None, check


def _deglingo_lockout():
    def build(off, _):
        recs = []
        _tap(recs, 3, 50 * MS)  # eyes closed: a false start, locked 250 ms from the call
        _tap(recs, 1, 100 * MS)  # the call
        _tap(recs, 3, 350 * MS + off)
        _tap(recs, 2, 370 * MS)
        return recs

    def check(evs, off):
        _check_lockout_end(evs, off, 3, 2)

    return "deglingo", 3, {"false_start": 250}, build, None, check


def _evidence_countdown():
    def build(off, _):
        recs = [{"at_us": 10 * MS, "control": "arm"}]
        _tap(recs, 1, 100 * MS)
        _tap(recs, 1, 250 * MS, 1200 * MS)  # marker 2, committed at 1.25 s: countdown to 4.25 s
        _tap(recs, 2, 4250 * MS + off, 1200 * MS)
        return recs

    def check(evs, off):
        claims = [(c["player"], c["marker"]) for c in events(evs, "claim")]
        sat = [e["player"] for e in events(evs, "sit_out")]
        assert (claims, sat) == (([(1, 2), (2, 1)], []) if off < 0 else ([(1, 2)], [2]))

    return "evidence", 2, {}, build, None, check


def _evidence_hold():
    def build(off, _):
        recs = [{"at_us": 10 * MS, "control": "arm"}]
        _tap(recs, 1, 100 * MS, 1000 * MS + off)  # released just before / after the 1 s hold
        recs.append({"at_us": 2000 * MS, "send": {"cmd": "state"}})
        return recs

    def check(evs, off):
        claims = [(c["player"], c["marker"]) for c in events(evs, "claim")]
        assert claims == ([] if off < 0 else [(1, 1)]), (claims, off)

    return "evidence", 2, {}, build, None, check


def _evidence_pause():
    def build(off, _):
        recs = [{"at_us": 10 * MS, "control": "arm"}]
        _tap(recs, 1, 100 * MS)
        _tap(recs, 1, 1600 * MS + off)  # the next press before / after the 1.5 s pause
        recs.append({"at_us": 3500 * MS, "send": {"cmd": "state"}})
        return recs

    def check(evs, off):
        claims = [(c["player"], c["marker"]) for c in events(evs, "claim")]
        assert claims == ([(1, 2)] if off < 0 else [(1, 1)]), (claims, off)

    return "evidence", 2, {"commit": "pause"}, build, None, check


SCENARIOS = {
    "quiz_lockout": _lockout("quiz"),
    "quiz_cue": _quiz_cue(),
    "quiz_buzz_window": _quiz_buzz_window(),
    "quiz_answer_time": _quiz_answer_time(),
    "difference_lockout": _lockout("difference"),
    "deglingo_timer": _deglingo_timer(),
    "deglingo_lockout": _deglingo_lockout(),
    "evidence_countdown": _evidence_countdown(),
    "evidence_hold": _evidence_hold(),
    "evidence_pause": _evidence_pause(),
}


@st.composite
def conditions(draw):
    offset = draw(st.one_of(st.integers(-5000, -1), st.integers(1, 5000)))
    header = {
        "bounce": draw(st.sampled_from(["typical", "worn", "none"])),
        "seed": "%x" % draw(st.integers(1, 2**32)),
    }
    spikes = draw(st.lists(st.tuples(st.integers(-6000, 6000), st.integers(50, 300000))))
    return offset, header, spikes


def _play(name, offset, header, spikes, interpreter="cpython"):
    game, players, options, build, learn, _ = SCENARIOS[name]
    head = dict(header, game=game, players=players, options=options)
    learnt = None
    if learn is not None:
        first = _run(build(offset, None), head)
        learnt = learn([(ns, json.loads(line)) for ns, line in first])
    recs = build(offset, learnt)
    deciding = max(r["at_us"] for r in recs if "press" in r or "send" in r)
    busy_until = -(10**9)
    for at, width in sorted(spikes):  # noise near the deadline, on a station out of play
        start = deciding * 1000 + at * 1000
        if start < busy_until:
            continue
        recs.append({"at_us": _us(start), "glitch": NOISE_STATION, "width_ns": width})
        busy_until = start + width + max(300000, 6 * (width + 50000))
    recs.sort(key=lambda r: r["at_us"])
    return _run(recs, head, interpreter)


def _run(recs, head, interpreter="cpython"):
    # parsed for all 6 stations: the noise station is wired but not in the game
    return simulate.run(head, parse(timeline(*recs), 6, CONTROLS), interpreter)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@settings(max_examples=20)
@given(conditions())
def test_the_decision_follows_the_stamps(name, cond):
    offset, header, spikes = cond
    lines = _play(name, offset, header, spikes)
    evs = [(ns, json.loads(line)) for ns, line in lines]
    assert not [e for _, e in evs if e["ev"] == "press" and e["player"] == NOISE_STATION]
    SCENARIOS[name][5](evs, offset)


@pytest.mark.micropython
@pytest.mark.parametrize("name", sorted(SCENARIOS))
@settings(max_examples=3)
@given(conditions())
def test_the_decision_is_the_same_bytes_on_micropython(name, cond):
    offset, header, spikes = cond
    cpython = _play(name, offset, header, spikes)
    assert _play(name, offset, header, spikes, interpreter="micropython") == cpython
    SCENARIOS[name][5]([(ns, json.loads(line)) for ns, line in cpython], offset)
