"""No control press is ever lost (issue 19 item 2): a press of ARM, YES, NO or UNDO of 30 ms or
more counts, after a power cut, during a journal write, a gc or a `new_game`, and while the loop
is stalled for up to 500 ms; on both interpreters.

Each press here has one answer of its own that the host sees, so counting answers counts presses:
in a quiz nobody buzzes in, ARM opens the race (`armed`) and NO then cancels it (`dead`, reason
`cancel`), so ARM and NO alternate, each with its line. The `armed` that a resume sends for a
race that was open is not an answer to a press and is not counted.
"""

import json

import pytest
from helpers import CONTROLS, timeline
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse

MS = 1000
HEAD = {"seed": "1", "game": "quiz", "players": 6, "options": {}, "flash": {}}


def _run(records, interpreter="cpython"):
    text = timeline(*records)
    lines = simulate.run(dict(HEAD), parse(text, 6, CONTROLS), interpreter)
    return [(ns, json.loads(line)) for ns, line in lines]


def _answers(result):
    """(ARM answers, NO answers): `armed` lines not sent by a resume, `dead` cancels."""
    resumed_at = {ns for ns, ev in result if ev["ev"] == "resume"}
    arms = [ns for ns, ev in result if ev["ev"] == "armed" and ns not in resumed_at]
    nos = [ns for ns, ev in result if ev["ev"] == "dead" and ev["reason"] == "cancel"]
    return len(arms), len(nos)


def _alternating(start_us, count, hold_ms, gap_ms):
    """ARM, NO, ARM, ... `count` presses of `hold_ms`, one every `gap_ms`."""
    out = []
    for i in range(count):
        name = "arm" if i % 2 == 0 else "no"
        out.append({"at_us": start_us + i * gap_ms * MS, "control": name, "hold_ms": hold_ms})
    return out


def _counts(presses):
    return (
        len([p for p in presses if p["control"] == "arm"]),
        len([p for p in presses if p["control"] == "no"]),
    )


def _case(name):
    """(records, the control presses whose answers are counted)."""
    if name == "after_a_power_cut":
        # the issue's case: a 6-player quiz, one power cut, then 19 presses of 120 ms
        cut = [{"at_us": 300 * MS, "power": "off"}, {"at_us": 800 * MS, "power": "on"}]
        presses = _alternating(1500 * MS, 19, 120, 400)
        return cut + presses, presses
    if name == "during_journal_writes":
        # each NO cancels a question: a decision, saved at once; the next ARM comes in the write
        # and the gc after it (a few ms to 20 ms after the NO is seen), held 30 ms
        presses = []
        t = 200 * MS
        for i in range(8):
            presses.append({"at_us": t, "control": "arm", "hold_ms": 30})
            presses.append({"at_us": t + 200 * MS, "control": "no", "hold_ms": 30})
            t += 200 * MS + (41 + 3 * i) * MS  # the next ARM 11..32 ms after the NO acted
        return presses, presses
    if name == "during_new_game":
        records = [{"at_us": 200 * MS, "send": {"cmd": "new_game", "game": "quiz"}}]
        presses = [{"at_us": 200 * MS + 2 * MS, "control": "arm", "hold_ms": 30}]
        presses.append({"at_us": 600 * MS, "control": "no", "hold_ms": 30})
        return records + presses, presses
    if name == "loop_stalled_500_ms":
        # the loop stops 500 ms (a gc or a long write): a 30 ms press inside it must count
        records, presses = [], []
        for i, name_ in enumerate(("arm", "no", "arm", "no")):
            at = (300 + 900 * i) * MS
            records.append({"at_us": at, "gc_us": 500 * MS})
            presses.append({"at_us": at + (100 + 50 * i) * MS, "control": name_, "hold_ms": 30})
        return records + presses, presses
    raise KeyError(name)


CASES = ("after_a_power_cut", "during_journal_writes", "during_new_game", "loop_stalled_500_ms")


@pytest.mark.parametrize("name", CASES)
def test_every_control_press_is_answered(name):
    records, presses = _case(name)
    result = _run(records)
    assert _answers(result) == _counts(presses), [ev for _, ev in result if ev["ev"] != "state"]


@pytest.mark.micropython
@pytest.mark.parametrize("name", CASES)
def test_every_control_press_is_answered_on_micropython(name):
    records, presses = _case(name)
    result = _run(records, "micropython")
    assert result == _run(records)  # the same bytes
    assert _answers(result) == _counts(presses)


def test_the_count_sees_a_lost_press():
    """The check can fail: a press too short for the debounce (5 ms) is no press, and is
    missing from the count."""
    presses = _alternating(200 * MS, 4, 120, 400)
    presses[2]["hold_ms"] = 5
    assert _answers(_run(presses)) == (1, 1)
