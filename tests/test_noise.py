"""Noise immunity through the whole simulated capture path (PIO) on both interpreters: a closure
that does not stay closed the way a finger press does is never a press, never a false start,
never wins; real bounce keeps its first edge.
Thresholds: refbox.debounce, docs/architecture.md "Debounce and noise"."""

import pytest
from helpers import events, run_raw, run_sim, timeline
from hypothesis import given, settings
from hypothesis import strategies as st

MS = 1000


def _noise(station, start_us, widths_us):
    """Spikes on `station`, each followed by an opening long enough to make it noise: more than 5
    times its width plus the pin-IRQ path's stretch (~50 µs), and more than 200 µs."""
    recs, t = [], start_us
    for w in widths_us:
        recs.append({"at_us": t, "glitch": station, "width_ns": int(w * 1000)})
        t += w + max(300, 6 * (w + 50))
    return recs, t


@pytest.mark.parametrize("widths", [[50], [900], [50] * 60, [0.05, 3, 200, 700, 10, 900]])
def test_noise_never_wins_never_false_starts(widths):
    early, _ = _noise(3, 5 * MS, widths)  # before ARM: would be a false start
    during, end = _noise(3, 100 * MS, widths)  # racing: would win
    recs = early + during + [
        {"at_us": 60 * MS, "control": "arm"},
        {"at_us": end + 2 * MS, "press": 1},
        {"at_us": end + 100 * MS, "release": 1},
    ]
    result = run_sim(timeline(*recs))
    assert [ev["player"] for ev in events(result, "press")] == [1]
    assert events(result, "lockout") == []
    (race,) = events(result, "race")
    assert race["winner"] == 1


def test_a_worn_switch_drop_out_keeps_the_first_edge():
    """Closed 0.8 ms, dropped out 3 ms, then closed for good: one press, at its first edge."""
    recs = [
        {"at_us": 10 * MS, "control": "arm"},
        {"at_us": 200 * MS, "glitch": 2, "width_ns": 800000},
        {"at_us": 200 * MS + 3800, "press": 2},
        {"at_us": 200 * MS + 3000, "press": 4},  # later than P2's first edge
        {"at_us": 300 * MS, "release": 2},
        {"at_us": 300 * MS, "release": 4},
    ]
    result = run_sim(timeline(*recs), bounce="none")
    presses = events(result, "press")
    assert [p["player"] for p in presses] == [2, 4]
    assert abs(presses[0]["t_us"] - 200 * MS) < 30
    assert events(result, "race")[0]["winner"] == 2


spike_widths = st.lists(
    st.one_of(st.integers(1, 100), st.integers(100, 900)), min_size=1, max_size=6
)


@st.composite
def noisy_races(draw):
    presses = draw(st.lists(st.integers(0, 20000), min_size=2, max_size=3))  # µs after 100 ms
    recs = [{"at_us": 20 * MS, "control": "arm"}]
    t = 100 * MS
    for i, gap in enumerate(presses):
        recs.append({"at_us": t + gap, "press": i + 1})
        recs.append({"at_us": t + gap + 150 * MS, "release": i + 1})
    for station in (4, 5, 6):
        noise, _ = _noise(station, draw(st.integers(30 * MS, 125 * MS)), draw(spike_widths))
        recs += noise
    header = {
        "bounce": draw(st.sampled_from(["typical", "worn"])),
        "seed": "%x" % draw(st.integers(1, 2**32)),
    }
    return sorted(recs, key=lambda r: r["at_us"]), presses, header


def _check(result, presses, header):
    assert {ev["player"] for ev in events(result, "press")} == set(range(1, len(presses) + 1))
    assert events(result, "lockout") == []
    (race,) = events(result, "race")
    first = min(range(len(presses)), key=lambda i: presses[i]) + 1
    lead = sorted(presses)[1] - min(presses)
    if lead >= 1:
        assert race["winner"] == first and not race["tie"]


@given(noisy_races())
def test_noise_on_other_stations_changes_no_race(race):
    recs, presses, header = race
    _check(run_sim(timeline(*recs), **header), presses, header)


@pytest.mark.micropython
@settings(max_examples=6)
@given(noisy_races())
def test_noise_is_judged_alike_on_micropython(race):
    recs, presses, header = race
    text = timeline(*recs)
    cpython = run_raw(text, **header)
    assert run_raw(text, interpreter="micropython", **header) == cpython
    import json

    _check([(ns, json.loads(line)) for ns, line in cpython], presses, header)
