"""The board's 200 MHz clock (refbox.sysclock, docs/architecture.md "The clock"): main.py raises
the core regulator to 1.15 V, then sets the clock; the capture samples at it; the simulator's
fake chip refuses what the RP2040 is not rated for, and its CPU model runs faster at 200 MHz."""

import time

import machine
import pytest
from helpers import events, run_sim, timeline
from refbox import sysclock
from tablebuzz.sim import world

MS = 1000


@pytest.fixture
def chip():
    """A fresh simulated RP2040, as at power-on (125 MHz, the regulator at 1.10 V)."""
    w = world.World(b"\1" * 16)
    world.current = w
    return w


def test_200_mhz_needs_the_regulator_at_1_15_v_first(chip):
    assert machine.freq() == 125_000_000 and machine.mem32[sysclock.VREG] & 0xF0 == 0xB0
    with pytest.raises(ValueError, match="1.15 V"):
        machine.freq(200_000_000)  # the datasheet rates 133 MHz at most at 1.10 V
    assert chip.sys_hz == 125_000_000
    assert sysclock.set_up(machine, time) == 200_000_000
    assert machine.freq() == 200_000_000
    assert machine.mem32[sysclock.VREG] == 0x10C1  # ROK, VSEL 1.15 V, EN


def test_what_the_rp2040_cannot_make_or_is_not_rated_for_is_refused(chip):
    with pytest.raises(ValueError):
        sysclock.set_up(machine, time, 250)  # past the rated 200 MHz
    machine.mem32[sysclock.VREG] = sysclock.VREG_1_15_V
    for hz in (250_000_000, 199_500_000):
        with pytest.raises(ValueError, match="cannot change frequency"):
            machine.freq(hz)
    with pytest.raises(ValueError, match="supply"):
        machine.mem32[sysclock.VREG] = 0xC3  # HIZ: the core's supply cut
    assert sysclock.set_up(machine, time, 125) == 125_000_000  # already there: nothing done
    assert machine.freq() == 125_000_000


def test_a_power_cut_brings_back_the_reset_clock_and_voltage(chip):
    sysclock.set_up(machine, time)
    chip.power_off()
    chip.power_on()
    assert machine.freq() == 125_000_000 and machine.mem32[sysclock.VREG] & 0xF0 == 0xB0


def close_race():
    return timeline(
        {"at_us": 100 * MS, "control": "arm"},
        {"at_us": 200 * MS, "press": 3}, {"at_us": 200 * MS + 1, "press": 1},
        {"at_us": 260 * MS, "release": 3}, {"at_us": 261 * MS, "release": 1},
        {"at_us": 400 * MS, "send": {"cmd": "judge", "correct": True}},
        {"at_us": 700 * MS, "send": {"cmd": "judge", "correct": True}},
    )


@pytest.mark.cpu_model
@pytest.mark.parametrize("interpreter", ["cpython", pytest.param("micropython", marks=[
    pytest.mark.micropython])])
def test_the_board_samples_at_its_clock_and_its_python_runs_faster(interpreter):
    fast = run_sim(close_race(), players=4, interpreter=interpreter)
    slow = run_sim(close_race(), players=4, interpreter=interpreter, clock_mhz=125)
    # the capture's sample is 7 PIO cycles: 35 ns at 200 MHz, 56 at 125
    assert events(fast, "hello")[0]["sample_ns"] == 35
    assert events(slow, "hello")[0]["sample_ns"] == 56
    assert events(fast, "race")[0]["winner"] == events(slow, "race")[0]["winner"] == 3
    # the same decisions, the judgement's line earlier at 200 MHz: the CPU model's charges
    # last 125 / 200 as long (flash times do not scale, so not exactly 0.625)
    judged = 400 * MS * 1000
    fast_ns = [ns for ns, ev in fast if ev["ev"] == "judge" and ns > judged][0] - judged
    slow_ns = [ns for ns, ev in slow if ev["ev"] == "judge" and ns > judged][0] - judged
    assert [ev["ev"] for _, ev in fast] == [ev["ev"] for _, ev in slow]
    assert 0.55 < fast_ns / slow_ns < 0.8, (fast_ns, slow_ns)
