"""The night soak, short (issue 19 item 7; the long one is bench/soak.py).

Twelve generated nights (two of each game: tests/soak.py says what a night holds and how each
invariant is read) on CPython, six of them also on the MicroPython unix port, byte for byte.
Each invariant is its own test, so a failure names it; its message names the failing nights'
seeds: `python bench/soak.py --write SEED night.jsonl` writes one as a timeline that
`tablebuzz sim --script night.jsonl` replays.
"""

import pytest
import soak

SEEDS = range(12)
MP_SEEDS = range(6)
_RESULTS = {}


def _results(lane):
    if lane not in _RESULTS:
        if lane == "cpython":
            _RESULTS[lane] = soak.run_nights(SEEDS)
        else:
            _RESULTS[lane] = soak.run_nights(MP_SEEDS, ("cpython", "micropython"))
    return _RESULTS[lane]


def _assert_none(lane, invariant):
    counts, failing = _results(lane)
    assert counts.checked[invariant] > 0 or invariant == "same_bytes"
    notes = [x for x in counts.notes if x.startswith(invariant + ":")]
    assert counts.failed[invariant] == 0, "%d of %d failed; nights %s:\n%s" % (
        counts.failed[invariant], counts.checked[invariant], failing, "\n".join(notes)
    )


@pytest.mark.parametrize("invariant", [k for k in soak.INVARIANTS if k != "same_bytes"])
def test_night_soak(invariant):
    _assert_none("cpython", invariant)


@pytest.mark.micropython
def test_night_soak_same_bytes_on_micropython():
    counts, _ = _results("micropython")
    assert counts.checked["same_bytes"] == len(MP_SEEDS)
    _assert_none("micropython", "same_bytes")
    _assert_none("micropython", "runs")


def test_every_game_is_played_and_every_disturbance_happens():
    """The generator's own check: the twelve nights cover the six games, and each has polls,
    box buttons, desk commands, a power cut, a host stall and noise."""
    games = set()
    for seed in SEEDS:
        n = soak.night(seed)
        games.add(n.head["game"])
        kinds = set()
        for r in n.records:
            kinds.update(k for k in r if k != "at_us")
        assert {"send", "control", "power", "host", "glitch"} <= kinds, seed
        assert soak.night(seed).records == n.records  # reproducible from its seed
    assert games == set(soak.GAMES)


# ------------------------------------------------------------------ what the soak found, as cases
def _stalled_write_cut():
    """A stalled host, two long `state` lines (the second waits for room in the USB FIFO, up to
    500 ms, the loop blocked inside the write), and the power cut during that wait."""
    from helpers import timeline

    return timeline(
        {"at_us": 100000, "host": "stall"},
        {"at_us": 110000, "send": soak.STATE},
        {"at_us": 111000, "send": soak.STATE},
        {"at_us": 200000, "power": "off"},
        {"at_us": 400000, "power": "on"},
        {"at_us": 900000, "host": "read"},
        {"at_us": 1000000, "send": soak.STATE},
    )


@pytest.mark.parametrize(
    "interpreter", ["cpython", pytest.param("micropython", marks=pytest.mark.micropython)]
)
def test_a_power_cut_while_a_write_waits_for_a_stalled_host(interpreter):
    """Nights 16, 18 and 85 of bench/soak.py: the simulator must survive the cut (and the board
    resume) when the power fails while the loop is blocked in a console write."""
    from helpers import run_raw

    lines = run_raw(_stalled_write_cut(), players=2, game="diddly", flash={},
                    interpreter=interpreter)
    events = [line for _, line in lines]
    assert any(line.startswith('{"ev":"resume"') for line in events)
