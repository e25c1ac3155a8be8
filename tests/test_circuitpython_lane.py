"""The CircuitPython lane: the firmware with its CircuitPython board module under CircuitPython's
own interpreter (its unix port, 10.2.1, built from source by `make circuitpython`).

Every example, and the core's hardest scripts (a tick wrap with worn switches; power cuts, a
resumed game and the safe boot on the simulated flash), must give byte-identical lines under
CircuitPython and under CPython and MicroPython (the same board module on each: refbox.board_cp
with the real Adafruit libraries on CircuitPython's fakes).

CI machines cannot fetch CircuitPython's source (it lives on GitHub, not on a package registry),
so where the binary has not been built the lane is skipped, saying so.
"""

from pathlib import Path

import pytest
from helpers import example_run, run_raw
from tablebuzz.sim import simulate
from test_micropython_lane import SCRIPTS

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((REPO / "examples").glob("*.jsonl"))
CORE = (
    "ticks_wrap_and_worn_switches",
    "power_cuts_resume_undo_and_safe_boot",
    "stalled_host",
    "bad_lines",
)


def _binary():
    try:
        return simulate.circuitpython_binary()
    except simulate.SimError as e:
        return str(e)


_FOUND = _binary()
pytestmark = [
    pytest.mark.circuitpython,
    pytest.mark.skipif(
        not Path(_FOUND).exists(),
        reason="CircuitPython's unix port is not built here (%s); CI cannot fetch its source"
        % _FOUND,
    ),
]


def test_the_interpreter_is_circuitpython_10_2_1():
    import subprocess

    out = subprocess.run(
        [_FOUND, "-c", "import sys; print(sys.implementation.name, sys.implementation.version)"],
        capture_output=True,
        text=True,
    ).stdout.split()
    assert out[0] == "circuitpython" and out[1:4] == ["(10,", "2,", "1,"]


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_is_byte_identical_on_circuitpython(path):
    reference = example_run(path, "circuitpython", "cpython")
    assert example_run(path, "circuitpython", "circuitpython") == reference


@pytest.mark.parametrize("name", CORE)
def test_the_core_scripts_are_byte_identical_on_all_three(name):
    text, header = SCRIPTS[name]
    header = dict(header, board="circuitpython")
    cpython = run_raw(text, **header)
    assert len(cpython) > 5
    assert run_raw(text, interpreter="circuitpython", **header) == cpython
    assert run_raw(text, interpreter="micropython", **header) == cpython


def test_idle_passes_allocate_nothing_on_circuitpython():
    """The idle pass of the CircuitPython board module runs under micropython.heap_lock() on
    CircuitPython's interpreter (the same probe as the MicroPython lane's; the simulator's world
    clock stands in for ChipClock, whose memorymap read allocates on the chip: bench/README.md)."""
    import subprocess

    from test_micropython_lane import IDLE_PASS_PROBE

    code = IDLE_PASS_PROBE.replace(
        "runner.Simulation(header,", 'runner.Simulation(dict(header, board="circuitpython"),'
    )
    assert code != IDLE_PASS_PROBE
    proc = subprocess.run(
        simulate.micropython_command(code, interpreter="circuitpython"),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line.split() for line in proc.stdout.splitlines()]
    assert [name for name, _ in rows] == ["menu", "quiz_ready", "quiz_armed", "difference"]
    assert all(free == "30" for _, free in rows), rows
