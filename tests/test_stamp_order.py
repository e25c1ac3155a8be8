"""Stamps decide, never the loop (issue 39; docs/architecture.md "One ordered stream").

Every input carries its instant (a press or a release its PIO stamp, a control its debounced
edge, a console line its arrival tick, a game timer its deadline) and the referee takes them in
that order. So a decision cannot depend on when the loop noticed an input, nor on a line that
arrived meanwhile. Each of the issue's five cases is played twice or more:
- as a differential check: the timeline with one extra read-only line (`state`) or one refused
  line (an unknown control name) slipped in at each point of a grid of µs around the case's rule
  instant, one line a run; once the slipped line's answer is taken out, the device's stream must
  be the stream without it (every decision, its order and its lines);
- as the rule the docs state, by stamps alone (who is judged, where the false-start boundary
  lies, which press is a call).
The runs use the simulator's CPU model of the chip (`cpu_model`): the loop's passes fall as on
the board, journal saves and collections taking their modelled time.
"""

import json
import os

import pytest
from helpers import run_raw, timeline
from slips import KINDS, answers_removed, first_difference, slip

MS = 1000
STATE, BOGUS = KINDS[0], KINDS[1]

pytestmark = pytest.mark.cpu_model


def _run(head, records, interpreter="cpython"):
    end = max(r["at_us"] for r in records) + 600 * MS  # the same end with or without a slip
    records = list(records) + [{"at_us": end, "host": "read"}]
    return run_raw(timeline(*records), interpreter=interpreter, **head)


def _events(lines, *kinds):
    out = [json.loads(line) for _, line in lines]
    return [ev for ev in out if not kinds or ev["ev"] in kinds]


def _slips_change_nothing(head, records, at_us, offsets_us, interpreter="cpython"):
    """Slip one line (a `state`, then a refused control, alternately) at `at_us` + each of
    `offsets_us`, one a run; every stream, its answer taken out, must be the plain one. Returns
    the plain stream."""
    plain = _run(head, records, interpreter)
    without = [line for _, line in plain]
    for i, off in enumerate(offsets_us):
        kind = (STATE, BOGUS)[i % 2]
        mixed_records, slipped = slip(records, [at_us + off], [kind])
        mixed = _run(head, mixed_records, interpreter)
        kept = [line for _, line in answers_removed(mixed, slipped)]
        assert kept == without, "%s slipped at %+d µs (%s): %s" % (
            kind[0], off, interpreter, first_difference(without, kept))
    return plain


HANDLER_US = 23  # µs from a control's edge to its handler's stamp in the simulator (CPU model)
GRID = range(-3000, 3001, 500)  # µs around a rule instant: a line every 0.5 ms


# ------------------------------------------------------------------ 1. a late judgement
def _late_judge(judge_after_us):
    head = dict(game="quiz", players=4, seed="1", bounce="none",
                options={"answer_s": 2, "answer_timeout": "wrong", "next_in_line": True})
    deadline = 300 * MS + 2000 * MS  # P1's floor from its press at 300 ms, 2 s to answer
    records = [
        {"at_us": 100 * MS, "send": {"cmd": "arm"}},
        {"at_us": 300 * MS, "press": 1}, {"at_us": 300 * MS + 500, "press": 2},
        {"at_us": 400 * MS, "release": 1}, {"at_us": 400 * MS, "release": 2},
        {"at_us": deadline + judge_after_us, "send": {"cmd": "judge", "correct": True}},
    ]
    return head, records, deadline


@pytest.mark.parametrize("after_us", [700, 1700])
def test_a_late_judgement_never_lands_on_the_next_player(after_us):
    """P1's answer time runs out (answer_timeout "wrong", next_in_line: the floor passes to P2);
    a `judge` meant for P1 arrives 0.7 / 1.7 ms later. It is refused whatever line came before
    it, and P2 is never judged by it (issue 39 case 1)."""
    head, records, deadline = _late_judge(after_us)
    plain = _slips_change_nothing(head, records, deadline + after_us, range(-2500, 1, 500))
    judged = [(ev["player"], ev["correct"]) for ev in _events(plain, "judge")]
    assert judged[0] == (1, False)  # the time-out's
    assert (2, True) not in judged  # (P2's own time runs out later: judged wrong then)
    errors = [ev["detail"] for ev in _events(plain, "error")]
    assert len(errors) == 1 and "ran out" in errors[0]


# ------------------------------------------------------------------ 2. the false-start boundary
def _arm_sweep(arm, deltas_ms):
    """{press ms after ARM: "W" (won the race) | "F" (a false start)} for a plain quiz armed at
    200 ms by the ARM button (`arm` "control") or the `arm` line."""
    head = dict(game="quiz", players=4, seed="1", bounce="none", options={})
    action = {"control": "arm"} if arm == "control" else {"send": {"cmd": "arm"}}
    out = {}
    for d in deltas_ms:
        records = [dict({"at_us": 200 * MS}, **action), {"at_us": 200 * MS + d * MS, "press": 2},
                   {"at_us": 600 * MS, "release": 2}]
        evs = _events(_run(head, records), "race", "lockout")
        won = [ev for ev in evs if ev["ev"] == "race" and ev["winner"] == 2]
        false = [ev for ev in evs if ev["ev"] == "lockout" and ev["player"] == 2]
        assert len(won) + len(false) == 1, evs
        out[d] = "W" if won else "F"
    return out


@pytest.mark.parametrize("arm,cue_ms", [("control", (10, 10.2)), ("line", (0, 6))])
def test_the_false_start_boundary_is_one_instant(arm, cue_ms):
    """A press before the cue is a false start, one at or after it counts (the fate changes once),
    and the cue is the ARM input's own instant, never the end of the save before the race
    (issue 39 case 2): the ARM button's press once debounced (10 ms after its edge handler
    stamped the contact closing, a few µs after it closed), the `arm` line's arrival tick (the
    pass that read it, which the CPU model puts up to ~5 ms after the host sent it)."""
    lo, hi = cue_ms
    deltas = [-4, -1, lo - 1, lo - 0.1, hi, hi + 1, hi + 5] + list(range(20, 80, 4))
    if arm == "line":
        deltas += [1, 2, 3, 4, 5]
    fates = _arm_sweep(arm, sorted(set(deltas)))
    order = "".join(fates[d] for d in sorted(fates))
    assert order == "F" * order.count("F") + "W" * order.count("W"), fates  # changes once
    assert all(fates[d] == "F" for d in fates if d < lo)
    assert all(fates[d] == "W" for d in fates if d >= hi)


# ------------------------------------------------------------------ 3. read mark against buzz
@pytest.mark.parametrize("after_us", [-1.5, 1.5, 300])
def test_the_read_mark_and_a_buzz_by_their_stamps(after_us):
    """Interrupt variant: the reader's ARM (the read mark) and P4's buzz `after_us` after it.
    A buzz stamped before the mark is an interrupt (the mark then comes after the race and is
    refused); one after it is not. No `state` line changes which (issue 39 case 3)."""
    head = dict(game="quiz", players=4, seed="1", bounce="none", options={"interrupt": -5})
    # the ARM button closed at 300 ms; its edge handler stamped it HANDLER_US later (the CPU
    # model's interrupt latency), and its press counts 10 ms after that stamp
    mark = 310 * MS + HANDLER_US
    records = [{"at_us": 100 * MS, "send": {"cmd": "arm"}}, {"at_us": 300 * MS, "control": "arm"},
               {"at_us": mark + after_us, "press": 4}, {"at_us": 700 * MS, "release": 4},
               {"at_us": 800 * MS, "control": "no"}]
    plain = _slips_change_nothing(head, records, mark, GRID)
    evs = _events(plain, "read", "race", "judge")
    judge = [ev for ev in evs if ev["ev"] == "judge"]
    assert [ev["player"] for ev in judge] == [4]
    assert judge[0]["interrupt"] is (after_us < 0)
    kinds = [ev["ev"] for ev in evs]
    assert kinds[:2] == (["race", "judge"] if after_us < 0 else ["read", "race"])


# ------------------------------------------------------------------ 4. Déglingo after a time-out
@pytest.mark.parametrize("after_us", [-300, 50, 400])
def test_a_press_after_deglingos_time_out_is_the_next_rounds(after_us):
    """Déglingo, 3 players, a 3 s timer from P1's call at 100 ms: the round times out at 3.1 s
    and round 2's eyes-closed phase begins at that instant. P2 (round 2's active player) presses
    `after_us` after it: before it an observer's buzz in round 1 (a race P2 wins), after it round
    2's "Déglingo!" call. No line changes which (issue 39 case 4)."""
    head = dict(game="deglingo", players=3, seed="1", bounce="none", options={"timer": 3})
    timeout = 3100 * MS
    records = [{"at_us": 100 * MS, "press": 1}, {"at_us": 150 * MS, "release": 1},
               {"at_us": timeout + after_us, "press": 2},
               {"at_us": timeout + 200 * MS, "release": 2}]
    plain = _slips_change_nothing(head, records, timeout, GRID)
    evs = _events(plain, "race", "deglingo", "round_over")
    if after_us < 0:
        assert [ev["ev"] for ev in evs][:2] == ["deglingo", "race"] and evs[1]["winner"] == 2
    else:
        assert [(ev["ev"], ev.get("round")) for ev in evs] == [
            ("deglingo", 1), ("round_over", 1), ("deglingo", 2)]


# ------------------------------------------------------------------ 5. a reopened race
@pytest.mark.parametrize("after_ms", [0.5, 30])
@pytest.mark.parametrize("how", ["no", "time_up"])
def test_a_press_after_the_race_reopens_counts(how, after_ms):
    """P1 wins and is judged wrong, by NO (its press counts 10 ms after the contact closed at
    500 ms) or by its answer time running out (answer_s 2, answer_timeout "wrong"); the race
    reopens for the others at that instant. P2's press `after_ms` later wins the floor, never a
    false start, whatever line came near it (issue 39 case 5)."""
    options = {} if how == "no" else {"answer_s": 2, "answer_timeout": "wrong"}
    head = dict(game="quiz", players=4, seed="1", bounce="none", options=options)
    records = [{"at_us": 100 * MS, "send": {"cmd": "arm"}}, {"at_us": 300 * MS, "press": 1},
               {"at_us": 350 * MS, "release": 1}]
    if how == "no":
        reopen = 510 * MS
        records.append({"at_us": 500 * MS, "control": "no"})
    else:
        reopen = 2300 * MS
    records += [{"at_us": reopen + after_ms * MS, "press": 2},
                {"at_us": reopen + 300 * MS, "release": 2}]
    plain = _slips_change_nothing(head, records, reopen, GRID)
    evs = _events(plain, "race", "lockout")
    assert [(ev["ev"], ev.get("winner", ev.get("player"))) for ev in evs][:3] == [
        ("race", 1), ("lockout", 1), ("race", 2)]


# ------------------------------------------------------------------ both interpreters
@pytest.mark.micropython
@pytest.mark.parametrize("case", ["judge", "arm", "read", "deglingo", "reopen"])
def test_the_cases_on_micropython(case):
    """One timeline of each case, a `state` slipped in near its rule instant: the unix port
    writes the same bytes as CPython."""
    if case == "judge":
        head, records, at = _late_judge(700)
        at += 700
    elif case == "arm":
        head = dict(game="quiz", players=4, seed="1", bounce="none", options={})
        records = [{"at_us": 200 * MS, "control": "arm"}, {"at_us": 225 * MS, "press": 2},
                   {"at_us": 600 * MS, "release": 2}]
        at = 210 * MS
    elif case == "read":
        head = dict(game="quiz", players=4, seed="1", bounce="none", options={"interrupt": -5})
        records = [{"at_us": 100 * MS, "send": {"cmd": "arm"}},
                   {"at_us": 300 * MS, "control": "arm"}, {"at_us": 310024.5, "press": 4},
                   {"at_us": 700 * MS, "release": 4}]
        at = 310 * MS
    elif case == "deglingo":
        head = dict(game="deglingo", players=3, seed="1", bounce="none", options={"timer": 3})
        records = [{"at_us": 100 * MS, "press": 1}, {"at_us": 150 * MS, "release": 1},
                   {"at_us": 3100050, "press": 2}, {"at_us": 3300 * MS, "release": 2}]
        at = 3100 * MS
    else:
        head = dict(game="quiz", players=4, seed="1", bounce="none", options={})
        records = [{"at_us": 100 * MS, "send": {"cmd": "arm"}}, {"at_us": 300 * MS, "press": 1},
                   {"at_us": 350 * MS, "release": 1}, {"at_us": 500 * MS, "control": "no"},
                   {"at_us": 510500, "press": 2}, {"at_us": 800 * MS, "release": 2}]
        at = 510 * MS
    for off in (-1000, 0):
        mixed_records, slipped = slip(records, [at + off], [STATE])
        mp = _run(head, mixed_records, "micropython")
        assert mp == _run(head, mixed_records)
        kept = [line for _, line in answers_removed(mp, slipped)]
        assert kept == [line for _, line in _run(head, records, "micropython")]


# ------------------------------------------------------------------ CPU time changes nothing
# The same timeline on a chip four times faster (x0.25), as fast as the model's (x1) and four
# times slower (x4), and with the flash's write stalls four times longer: the same decisions.
# Only the lines' times may differ, and what depends on them alone: a `state`'s answer and the
# prompts (which decide nothing), the cue's instant of an `arm` line (the tick the loop read it,
# `armed` t_us/t_ns). A power cut is a race between the cut and the CPU (what was saved before
# it), so a timeline is compared up to its first cut.
NOT_DECISIONS = ("state", "buttons", "done", "hello", "name", "menu")


def _decisions(lines):
    out = []
    for _, line in lines:
        ev = json.loads(line)
        if ev["ev"] in NOT_DECISIONS:
            continue
        if ev["ev"] == "armed":
            del ev["t_us"], ev["t_ns"]
        out.append(ev)
    return out


def _scaled(head, records, interpreter="cpython", **scales):
    from helpers import CONTROLS
    from tablebuzz.sim import simulate
    from tablebuzz.sim.timeline import parse

    head = dict(head, **scales)
    return simulate.run(head, parse(timeline(*records), head["players"], CONTROLS), interpreter)


def _examples():
    from test_errors_change_nothing import EXAMPLES, _example, _head

    out = {}
    for path in EXAMPLES:
        setup, records = _example(path)
        cut = [r["at_us"] for r in records if "power" in r]
        if cut:
            records = [r for r in records if r["at_us"] < cut[0]]
        out[path.stem] = (dict(_head(setup), bounce="typical"), records)
    return out


EXAMPLES = _examples()
# `make test`: one example of each game; TABLEBUZZ_SLIP=full every example
SCALED = sorted(EXAMPLES) if os.environ.get("TABLEBUZZ_SLIP") == "full" else [
    "quiz_tournament", "quizbowl_naqt", "difference_6p", "deglingo_4p", "redblack_2p",
    "diddly_2p", "evidence_4p"]


@pytest.mark.parametrize("name", SCALED)
def test_cpu_time_changes_no_decision(name):
    head, records = EXAMPLES[name]
    base = _decisions(_scaled(head, records))
    for scale in (0.25, 4):
        scaled = _decisions(_scaled(head, records, cpu_scale=scale))
        assert scaled == base, "x%s: %s" % (scale, first_difference(base, scaled))


@pytest.mark.parametrize("name", ["quiz_tournament", "deglingo_4p", "evidence_4p"])
def test_longer_flash_stalls_change_no_decision(name):
    head, records = EXAMPLES[name]
    base = _decisions(_scaled(head, records, flash={}))
    slow = _decisions(_scaled(head, records, flash={"stall_scale": 4}))
    assert slow == base, first_difference(base, slow)


def test_the_cases_decide_alike_at_every_cpu_speed():
    """The five cases' timelines at x0.25 and x4 decide as at x1."""
    cases = [_late_judge(700)[:2]]
    head = dict(game="quiz", players=4, seed="1", bounce="none", options={"interrupt": -5})
    cases.append((head, [{"at_us": 100 * MS, "send": {"cmd": "arm"}},
                         {"at_us": 300 * MS, "control": "arm"},
                         {"at_us": 310 * MS + HANDLER_US + 300, "press": 4},
                         {"at_us": 700 * MS, "release": 4}, {"at_us": 800 * MS, "control": "no"}]))
    head = dict(game="deglingo", players=3, seed="1", bounce="none", options={"timer": 3})
    cases.append((head, [{"at_us": 100 * MS, "press": 1}, {"at_us": 150 * MS, "release": 1},
                         {"at_us": 3100050, "press": 2}, {"at_us": 3300 * MS, "release": 2}]))
    head = dict(game="quiz", players=4, seed="1", bounce="none", options={})
    cases.append((head, [{"at_us": 100 * MS, "send": {"cmd": "arm"}},
                         {"at_us": 300 * MS, "press": 1}, {"at_us": 350 * MS, "release": 1},
                         {"at_us": 500 * MS, "control": "no"}, {"at_us": 510500, "press": 2},
                         {"at_us": 800 * MS, "release": 2}]))
    for head, records in cases:
        records = records + [{"at_us": max(r["at_us"] for r in records) + 600 * MS,
                              "host": "read"}]
        base = _decisions(_scaled(head, records))
        for scale in (0.25, 4):
            scaled = _decisions(_scaled(head, records, cpu_scale=scale))
            assert scaled == base, "%s x%s: %s" % (head["game"], scale,
                                                   first_difference(base, scaled))


@pytest.mark.micropython
def test_a_slower_chip_is_the_same_bytes_on_micropython():
    head, records = EXAMPLES["quiz_tournament"]
    cpython = _scaled(head, records, cpu_scale=4)
    assert _scaled(head, records, "micropython", cpu_scale=4) == cpython


def test_tablebuzz_sim_takes_the_cpu_scale():
    """`tablebuzz sim --cpu-scale X` (the documented option): the same decisions as without it,
    the lines later on a slower chip."""
    import subprocess
    import sys
    from pathlib import Path

    script = str(Path(__file__).parents[1] / "examples" / "quiz_demo.jsonl")

    def sim(*more):
        proc = subprocess.run(
            [sys.executable, "-m", "tablebuzz.cli", "sim", "--script", script, "--stamp", *more],
            capture_output=True, text=True, check=True)
        stamped = [line.split(" ", 1) for line in proc.stdout.splitlines()]
        return [float(us) for us, _ in stamped], [(0, line) for _, line in stamped]

    plain_us, plain = sim()
    slow_us, slow = sim("--cpu-scale", "4")
    assert _decisions(slow) == _decisions(plain)
    assert slow_us[-1] > plain_us[-1]
