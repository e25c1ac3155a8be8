"""A buzzer being pressed while the board powers up is no press (found by the night soak): its
bounce goes on after the capture starts, but its first edge came before the board could see
it, so it could not win the race the resume reopens. The contact must be seen open for the
boot quiet time (3 ms) first; a press made after that counts as usual."""

import json

import pytest
from helpers import run_raw, timeline

BOOT_US = 2000000 + 20000  # power back at 2 s; main.py runs 20 ms later (the simulator's boot)


def _after_boot(press_at_us, bounce, interpreter="cpython"):
    recs = [
        {"at_us": 100000, "control": "arm"},
        {"at_us": 1000000, "power": "off"},
        {"at_us": 2000000, "power": "on"},
        {"at_us": press_at_us, "press": 3},
        {"at_us": press_at_us + 250000, "release": 3},
    ]
    lines = run_raw(timeline(*recs), flash={}, bounce=bounce, interpreter=interpreter)
    return [json.loads(line) for ns, line in lines if ns > 2000000000]


@pytest.mark.parametrize("bounce", ["typical", "worn"])
@pytest.mark.parametrize(
    "interpreter", ["cpython", pytest.param("micropython", marks=pytest.mark.micropython)]
)
def test_a_press_begun_before_the_capture_starts_never_wins(bounce, interpreter):
    for lead_us in (200, 1200, 3000):
        evs = _after_boot(BOOT_US - lead_us, bounce, interpreter)
        assert [e["ev"] for e in evs if e["ev"] in ("resume", "armed")] == ["resume", "armed"]
        assert not [e for e in evs if e["ev"] in ("press", "race")], (lead_us, evs)


@pytest.mark.parametrize("bounce", ["typical", "worn", "none"])
def test_a_press_made_after_the_boot_counts(bounce):
    evs = _after_boot(BOOT_US + 40000, bounce)
    assert [e["winner"] for e in evs if e["ev"] == "race"] == [3]
