"""The night soak, short (issue 19 item 7; the long one is bench/soak.py).

Twelve generated nights (two of each game: tests/soak.py says what a night holds and how each
invariant is read) on CPython, six of them also on the MicroPython unix port, byte for byte.
One test a game (its two nights) and one a night on MicroPython, so the runners spread them; a
failure names the invariants that failed and the nights' seeds: `python bench/soak.py --write
SEED night.jsonl` writes one as a timeline that `tablebuzz sim --script night.jsonl` replays.
"""

import pytest
import soak

SEEDS = range(12)
MP_SEEDS = range(6)
# what every night checks, whatever its game; press_order needs two presses in a boot (Diddly has
# none but its safe-boot hold), decisions a race (Red or Black, Diddly and Evidence have none)
EVERY_NIGHT = ("runs", "press_stamps", "controls_lost", "seen_lost", "cut_lines", "same_as_quiet")
RACE_GAMES = ("quiz", "difference", "deglingo")


def _failures(counts, failing, invariants):
    """One line per invariant of `invariants` that failed, with its notes."""
    out = []
    for invariant in invariants:
        if counts.failed[invariant]:
            notes = [x for x in counts.notes if x.startswith(invariant + ":")]
            out.append("%s: %d of %d failed; nights %s:\n%s" % (
                invariant, counts.failed[invariant], counts.checked[invariant], failing,
                "\n".join(notes)))
    return out


@pytest.mark.parametrize("game", soak.GAMES)
def test_night_soak(game):
    """The two nights of `game`: no invariant fails, and each invariant the game can be read by
    was checked (so a silent reader cannot pass)."""
    seeds = [seed for seed in SEEDS if soak.night(seed).head["game"] == game]
    assert len(seeds) == 2
    counts, failing = soak.run_nights(seeds)
    invariants = [k for k in soak.INVARIANTS if k != "same_bytes"]
    assert _failures(counts, failing, invariants) == []
    expected = list(EVERY_NIGHT)
    if game != "diddly":
        expected.append("press_order")
    if game in RACE_GAMES:
        expected.append("decisions")
    assert [k for k in expected if counts.checked[k] == 0] == []


@pytest.mark.micropython
@pytest.mark.parametrize("seed", MP_SEEDS)
def test_night_soak_same_bytes_on_micropython(seed):
    # (its quiet twin is CPython's alone, compared in test_night_soak: not run twice)
    counts, failing = soak.run_nights([seed], ("cpython", "micropython"), quiet=False)
    assert counts.checked["same_bytes"] == 1
    assert _failures(counts, failing, ("same_bytes", "runs")) == []


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
