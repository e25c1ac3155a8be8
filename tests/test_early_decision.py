"""A race is decided as soon as its winner is proven (issue 20; docs/architecture.md "Debounce and
noise, settle window, decision time"): once the press horizon has passed the earliest accepted
press. These properties check that the rule names the same winner and the same tie as the fixed
2 ms settle window it replaced, for every press set that window decided right (every press of the
race inside it), and that the margin it no longer waits for comes in a `margin` line: the gap to
the runner-up, from the stamps."""

from helpers import races, run_sim, timeline
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from refbox.arbiter import Arbiter
from refbox.prng import Prng, seed_from_hex
from refbox.ticks import Stamp

SEED = "7"
SETTLE_NS = 2_000_000  # the window the rule replaced (Arbiter.settle_us = 2000)

# up to 8 players, each pressing once, at ns offsets inside the old window: equal offsets tie
presses_in_window = st.lists(
    st.tuples(st.integers(0, 7), st.integers(0, SETTLE_NS - 1)),
    min_size=1,
    max_size=8,
    unique_by=lambda p: p[0],
)


def settle_window(presses):
    """The replaced rule, for presses [(player, ns after the cue)] all inside its window:
    (winner, tied players, margin ns) with the tie drawn as the arbiter draws it."""
    first = min(ns for _, ns in presses)
    tied = sorted(p for p, ns in presses if ns == first)
    later = sorted(ns - first for _, ns in presses if ns > first)
    if len(tied) > 1:
        return tied[Prng(seed_from_hex(SEED)).below(len(tied))], tied, 0
    return tied[0], [], later[0] if later else None


def proven(presses):
    """The arbiter as the referee drives it: presses handed over in stamp order, each after a
    tick at its stamp (every earlier press is known then), and a tick 1 ns after the last.
    (winner, tied, margin from the race line or else from the margin event), and the events."""
    arb = Arbiter(Prng(seed_from_hex(SEED)))
    cue = Stamp(1000)
    arb.arm(cue, range(8))
    out = []
    last = cue
    for player, ns in sorted(presses, key=lambda p: (p[1], p[0])):
        stamp = cue.after_ns(ns)
        arb.tick(stamp, out)
        arb.press(player, stamp, out)
        last = stamp
    arb.tick(last.after_ns(1), out)
    (race,) = [e for e in out if e[0] == "race"]
    margin = race[2]
    if margin is None:
        margins = [e for e in out if e[0] == "margin"]
        margin = margins[0][3] if margins else None
    return (race[1], race[3], margin), out


@given(presses_in_window)
@settings(max_examples=300, deadline=None)
def test_the_proven_winner_and_tie_are_the_settle_windows(presses):
    winner, tied, margin = settle_window(presses)
    (got_winner, got_tied, got_margin), out = proven(presses)
    assert (got_winner, got_tied) == (winner, tied)
    assert got_margin == margin  # in the race line for a tie (0), else in the margin event
    assert out[0][0] == "race"  # decided before any later press was handed over
    assert [e[0] for e in out].count("margin") == (1 if margin else 0)


@given(presses_in_window)
@settings(max_examples=100, deadline=None)
def test_no_decision_while_an_earlier_or_equal_press_may_still_come(presses):
    arb = Arbiter(Prng(seed_from_hex(SEED)))
    cue = Stamp(1000)
    arb.arm(cue, range(8))
    out = []
    first = min(ns for _, ns in presses)
    for player, ns in presses:
        if ns == first:
            arb.press(player, cue.after_ns(ns), out)
    arb.tick(cue.after_ns(first), out)  # a press stamped with the first may still come
    assert out == []
    arb.tick(cue.after_ns(first + 1), out)
    assert [e[0] for e in out] == ["race"]


# A simulated table: the presses' µs offsets after one cue, bounce and capture as on the board.
presses_us = st.lists(
    st.tuples(st.integers(1, 6), st.integers(0, 1999)),
    min_size=1,
    max_size=6,
    unique_by=lambda p: p[0],
)


@given(presses_us, st.sampled_from(["none", "typical"]))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_simulated_board_decides_from_the_stamps(presses, bounce):
    records = [{"at_us": 100_000, "control": "arm"}]
    for station, us in presses:
        records.append({"at_us": 400_000 + us, "press": station})
        records.append({"at_us": 450_000, "release": station})
    records.sort(key=lambda r: r["at_us"])
    result = run_sim(timeline(*records), bounce=bounce, cpu="off")
    (race,) = races(result)
    first = min(us for _, us in presses)
    tied = sorted(s for s, us in presses if us == first)
    later = sorted(us - first for _, us in presses if us > first)
    if len(tied) > 1:
        assert race["tie"] and race["tied"] == tied and race["margin_ns"] == 0
    else:
        assert race["winner"] == tied[0] and not race["tie"]
        if later:  # the PIO samples every 56 ns: a stamp is within one sample of its edge
            assert abs(race["margin_ns"] - later[0] * 1000) <= 112
        else:
            assert race["margin_ns"] is None
