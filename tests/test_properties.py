"""Property tests of arbitration through the whole simulated capture path (CPython lane).

Random races with contact bounce, IRQ latency jitter, LED writes that mask interrupts, gc pauses
and noise glitches (ESD-like spikes of 50 ns up to closures of 0.9 ms: never reported as presses).
With PIO capture the earliest true contact closure wins whenever it leads by at
least two sampling periods (2 x 56 ns: after another pin's change the PIO spends one extra period
pushing); closer presses are a tie or correctly ordered, never inverted; no station number is
favoured.
"""

from collections import Counter

from helpers import events, run_sim, timeline
from hypothesis import assume, given
from hypothesis import strategies as st
from refbox.arbiter import Arbiter
from refbox.prng import Prng, seed_from_hex
from refbox.ticks import Stamp

PERIOD_NS = 56
ARM_US = 20000

gap_ns = st.one_of(
    st.just(0),
    st.integers(1, 55),
    st.integers(56, 600),
    st.integers(600, 50000),
    st.integers(50000, 3000000),
)


@st.composite
def races(draw, max_players=6):
    n = draw(st.integers(2, max_players))
    stations = draw(st.permutations(range(1, 7)))[:n]
    gaps = draw(st.lists(gap_ns, min_size=n - 1, max_size=n - 1))
    start_ns = (ARM_US + 30000) * 1000 + draw(st.integers(0, 10**8))
    times, t = [start_ns], start_ns
    for g in gaps:
        t += g
        times.append(t)
    idle = [s for s in range(1, 7) if s not in stations]
    noise = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["mask", "gc", "glitch"]))
        at_ns = draw(st.integers(ARM_US * 1000, times[-1] + 5 * 10**6))
        if kind == "glitch" and idle:
            noise.append(
                {
                    "at_us": at_ns / 1000,
                    "glitch": draw(st.sampled_from(idle)),
                    "width_ns": draw(
                        st.one_of(st.integers(50, 5000), st.integers(5000, 900000))
                    ),
                }
            )
        elif kind == "mask":
            noise.append({"at_us": at_ns // 1000, "mask_us": draw(st.integers(30, 500))})
        elif kind == "gc":
            noise.append({"at_us": at_ns // 1000, "gc_us": draw(st.integers(500, 13000))})
    noise = _noise_not_presses(noise)
    header = {
        "bounce": draw(st.sampled_from(["typical", "worn", "none"])),
        "pixels": draw(st.sampled_from(["pio", "cpu"])),
        "seed": "%x" % draw(st.integers(1, 2**64)),
        "ticks_origin_us": draw(st.sampled_from([0, (1 << 30) - 40000, 123456789])),
    }
    return list(zip(stations, times, strict=True)), noise, header


def _noise_not_presses(noise):
    """Keep the noise the debouncer's rule calls noise (refbox.debounce): on one station, a glitch
    only once the one before has been judged noise, open more than 5 times its width (plus the
    pin-IRQ path's ~50 µs stretch) and more than 200 µs (closer closures add up like bounce)."""
    kept, free_at = [], {}
    for rec in sorted(noise, key=lambda r: r["at_us"]):
        if "glitch" in rec:
            start = rec["at_us"] * 1000
            if start < free_at.get(rec["glitch"], -(10**12)):
                continue
            width = rec["width_ns"]
            free_at[rec["glitch"]] = start + width + max(300000, 6 * (width + 50000))
        kept.append(rec)
    return kept


def _script(presses, noise):
    recs = [{"at_us": ARM_US, "send": {"cmd": "arm"}}]
    for station, t_ns in presses:
        recs.append({"at_us": _us(t_ns), "press": station})
        recs.append({"at_us": _us(t_ns + 200_000_000), "release": station})
    return timeline(*(recs + noise))


def _us(t_ns):
    return t_ns // 1000 if t_ns % 1000 == 0 else float("%d.%03d" % divmod(t_ns, 1000))


@given(races())
def test_pio_capture_finds_the_earliest_closure(race):
    presses, noise, header = race
    result = run_sim(_script(presses, noise), **header)
    (decision,) = events(result, "race")
    ordered = sorted(presses, key=lambda p: p[1])
    first_station, first_t = ordered[0]
    lead = ordered[1][1] - first_t
    if lead >= 2 * PERIOD_NS:
        assert decision["winner"] == first_station and not decision["tie"]
    if decision["tie"]:
        assert first_station in decision["tied"]
        times = dict(presses)
        assert all(times[p] - first_t < 2 * PERIOD_NS for p in decision["tied"])
    else:
        assert decision["winner"] == first_station  # never inverted
    pressed = {s for s, _ in presses}
    assert {ev["player"] for ev in events(result, "press")} == pressed  # noise is never a press
    overflowed = [e for e in events(result, "error") if e["code"] == "capture_overflow"]
    if not overflowed and decision["margin_ns"] is not None and not decision["tie"]:
        assert abs(decision["margin_ns"] - lead) < 2 * PERIOD_NS


@given(races(max_players=3), st.integers(1, 5))
def test_relabelling_stations_relabels_the_winner(race, shift):
    presses, _, header = race
    header["bounce"] = "none"
    assume(len({t for _, t in presses}) == len(presses))
    first = run_sim(_script(presses, []), **header)
    moved = [((s - 1 + shift) % 6 + 1, t) for s, t in presses]
    second = run_sim(_script(moved, []), **header)
    a, b = events(first, "race")[0], events(second, "race")[0]
    if not a["tie"] and not b["tie"]:
        assert b["winner"] == (a["winner"] - 1 + shift) % 6 + 1
        assert (
            a["margin_ns"] == b["margin_ns"]
            or abs(a["margin_ns"] - b["margin_ns"]) < 2 * PERIOD_NS
        )


def test_exact_ties_are_drawn_fairly():
    wins = Counter()
    for seed in range(600):
        arb = Arbiter(Prng(seed_from_hex("%x" % (seed + 1))))
        out = []
        arb.arm(Stamp(0), range(6))
        for station in (0, 2, 5):
            arb.press(station, Stamp(100, 56), out)
        arb.tick(Stamp(10000), out)
        wins[out[0][1]] += 1
        assert out[0][3] == [0, 2, 5]
    assert set(wins) == {0, 2, 5}
    assert all(150 < n < 250 for n in wins.values()), wins  # 200 expected; > 5 sigma to fail


@given(st.integers(1, 5), st.integers(0, (1 << 30) - 1), st.integers(2 * PERIOD_NS, 4_000_000_000))
def test_margin_is_exact_across_counter_and_tick_wraps(later_station, origin, gap):
    result = run_sim(
        timeline(
            {"at_us": 1000, "send": {"cmd": "arm"}},
            {"at_us": 100000, "press": 6},
            {"at_us": _us(100_000_000 + gap), "press": later_station},
        ),
        bounce="none",
        ticks_origin_us=origin,
    )
    decision = events(result, "race")[0]
    assert decision["winner"] == 6
    margin = decision["margin_ns"]
    if margin is None:
        margin = events(result, "margin")[0]["margin_ns"]
    assert abs(margin - gap) < 2 * PERIOD_NS
