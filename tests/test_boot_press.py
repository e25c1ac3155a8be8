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


def test_a_contact_found_closed_must_be_seen_open_for_the_quiet_time():
    """The first sample finds a buzzer closed; it stays closed past the quiet time and then
    bounces open for 100 µs: no press, however often the loop polled meanwhile (before, the
    debouncer took the contact as open from the start, so a poll after 3 ms ended the spell and
    the bounce's closure became a press: found by the soak with a 0.5 ms loop)."""
    from refbox.capture import EdgeDecoder
    from refbox.debounce import Debouncer
    from refbox.ticks import Stamp

    start_us = 1000
    dec = EdgeDecoder(6, 7000, 125)
    dec.start(start_us, 0)
    debs = [Debouncer(i) for i in range(6)]
    for deb in debs:
        deb.settle_from(Stamp(start_us))
    mask = dec.counter_mask
    first_ns = start_us * 1000 + 5 * 56  # the program's first sample: 5 PIO cycles in

    def word(at_us, levels):  # the PIO's word for a change at `at_us` (counter counts down)
        counts = (at_us * 1000 - first_ns) // 56
        return ((mask - counts) << 6) | levels

    out = []
    first = (mask << 6) | 0b111011  # the first sample: station 2 found closed
    dec.decode([first], 0, 0, 1, start_us + 1, debs, out)
    for poll_every in (500, 1000):
        for t in range(start_us + 500, start_us + 3600, poll_every):
            for deb in debs:
                deb.poll(Stamp(t), out)
    ring = [word(start_us + 3500, 0b111111), word(start_us + 3600, 0b111011)]
    dec.decode(ring, 0, 1, 2, start_us + 3700, debs, out)
    for t in range(start_us + 3700, start_us + 9000, 500):
        for deb in debs:
            deb.poll(Stamp(t), out)
    assert out == []
