"""Boundaries are monotonic (issue 39 "Proofs"): a press swept across a rule instant, in 1 ms
steps and in 1 µs steps around it, changes fate once, at that instant.

The instants, each an input's instant or a fixed offset from one (docs/architecture.md "One
ordered stream"), read off the device's own lines: the cue (`armed` t_us/t_ns, the ARM button's
debounced press), the buzz window's close (the cue + buzz_s), a false start's lockout end (its
`press` stamp + 250 ms), the answer time's end (the winning press's stamp + answer_s, the race
reopening there with answer_timeout "wrong"), Déglingo's timer (the call's stamp + timer).
Steps of 1, 2, 3 ms and 1, 2, 3 µs on each side (never on the instant itself: a stamp there is
one PIO sample away from either side).
"""

import json

import pytest
from helpers import run_raw, timeline

MS = 1000
STEPS_US = [-3000, -2000, -1000, -3, -2, -1, 1, 2, 3, 1000, 2000, 3000]


def _lines(head, records):
    end = max(r["at_us"] for r in records) + 400 * MS
    text = timeline(*records, {"at_us": end, "host": "read"})
    return [json.loads(line) for _, line in run_raw(text, **head)]


def _at(ev):
    return ev["t_us"] + ev["t_ns"] / 1000


def _quiz(options=None):
    return dict(game="quiz", players=4, seed="1", bounce="none", options=options or {})


def _cue():
    head = _quiz()
    base = [{"at_us": 200 * MS, "control": "arm"}]
    (armed,) = [ev for ev in _lines(head, base) if ev["ev"] == "armed"]

    def fate(evs):
        return "won" if [ev for ev in evs if ev["ev"] == "race"] else "false start"

    return head, base, _at(armed), 2, fate


def _buzz_window():
    head = _quiz({"buzz_s": 1, "false_start": "off"})
    base = [{"at_us": 200 * MS, "control": "arm"}]
    (armed,) = [ev for ev in _lines(head, base) if ev["ev"] == "armed"]

    def fate(evs):
        return "won" if [ev for ev in evs if ev["ev"] == "race"] else "dead"

    return head, base, _at(armed) + 1000 * MS, 2, fate


def _lockout_end():
    head = _quiz()
    base = [{"at_us": 50 * MS, "press": 1}, {"at_us": 60 * MS, "release": 1},
            {"at_us": 100 * MS, "control": "arm"}]
    (early,) = [ev for ev in _lines(head, base) if ev["ev"] == "press"]

    def fate(evs):
        locks = [ev for ev in evs if ev["ev"] == "lockout" and ev["player"] == 1]
        return "locked again" if len(locks) == 2 else "counted"

    return head, base, _at(early) + 250 * MS, 1, fate


def _answer_time():
    head = _quiz({"answer_s": 2, "answer_timeout": "wrong", "false_start": "off"})
    base = [{"at_us": 100 * MS, "control": "arm"}, {"at_us": 300 * MS, "press": 1},
            {"at_us": 350 * MS, "release": 1}]
    (race,) = [ev for ev in _lines(head, base) if ev["ev"] == "race"]

    def fate(evs):
        return "won" if [ev for ev in evs if ev["ev"] == "race" and ev["winner"] == 2] else "-"

    return head, base, _at(race) + 2000 * MS, 2, fate


def _deglingo_timer():
    head = dict(game="deglingo", players=4, seed="1", bounce="none", options={"timer": 3})
    base = [{"at_us": 100 * MS, "press": 1}, {"at_us": 150 * MS, "release": 1}]
    (call,) = [ev for ev in _lines(head, base) if ev["ev"] == "press"]

    def fate(evs):
        return "won" if [ev for ev in evs if ev["ev"] == "race"] else "timed out"

    return head, base, _at(call) + 3000 * MS, 3, fate


SCENARIOS = {"cue": _cue, "buzz_window": _buzz_window, "lockout_end": _lockout_end,
             "answer_time": _answer_time, "deglingo_timer": _deglingo_timer}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_press_changes_fate_once_at_the_rule_instant(name):
    head, base, instant, player, fate = SCENARIOS[name]()
    fates = []
    for step in STEPS_US:
        at = instant + step
        records = base + [{"at_us": at, "press": player}, {"at_us": at + 80 * MS,
                                                            "release": player}]
        fates.append(fate(_lines(head, records)))
    before, after = fates[:len(fates) // 2], fates[len(fates) // 2:]
    assert len(set(before)) == 1 and len(set(after)) == 1 and before[0] != after[0], (
        "%s around %.3f µs: %s" % (name, instant, list(zip(STEPS_US, fates, strict=True))))


@pytest.mark.micropython
@pytest.mark.parametrize("name", ["cue", "deglingo_timer"])
def test_the_same_fates_on_micropython(name):
    """1 µs and 1 ms on each side of the instant: the unix port writes CPython's bytes."""
    head, base, instant, player, _ = SCENARIOS[name]()
    for step in (-1000, -1, 1, 1000):
        at = instant + step
        records = base + [{"at_us": at, "press": player}, {"at_us": at + 80 * MS,
                                                            "release": player}]
        text = timeline(*records, {"at_us": at + 400 * MS, "host": "read"})
        assert run_raw(text, interpreter="micropython", **head) == run_raw(text, **head)
