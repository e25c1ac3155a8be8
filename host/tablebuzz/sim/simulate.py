"""Run the firmware in the simulator under CPython (in this process), the MicroPython unix port or
CircuitPython's unix port.

Every interpreter runs the same files: firmware/ (unchanged), the world and fakes in tablebuzz/sim.
Two board modules: refbox.board on the MicroPython fakes (sim/fakes), refbox.board_cp on the
CircuitPython fakes (sim/fakes_cp) with the real Adafruit libraries (neopixel, pixelbuf, pioasm)
from this Python's site-packages (header "board": "circuitpython").
"""

import json
import os
import subprocess
import sys
from pathlib import Path

from tablebuzz.paths import FAKES, FAKES_CP, FIRMWARE, HOST
from tablebuzz.sim import heap
from tablebuzz.sim.ports import SimError, circuitpython_binary, micropython_binary

INTERPRETERS = ("cpython", "micropython", "circuitpython")
BOARDS = ("micropython", "circuitpython")
MICROPYTHON_HEAP = "8M"
# the Adafruit libraries the CircuitPython board module imports, as circup puts them in lib/
CP_LIBRARIES = (
    "neopixel", "adafruit_pixelbuf", "adafruit_pioasm",
    "adafruit_ssd1306", "adafruit_framebuf", "adafruit_bus_device",  # the display (refbox.oled_cp)
)  # fmt: skip
# module names both fake sets define differently: dropped from sys.modules when the lane changes
_LANE_MODULES = ("neopixel",)  # MicroPython's driver (fakes/) or the Adafruit library


_lane = {"board": None}
# A folder holding main.py and refbox/*.mpy (a `tablebuzz.link.flash.build` output) that the
# MicroPython unix port imports the firmware from instead of firmware/ (lane_firmware)
FIRMWARE_BUILD_ENV = "TABLEBUZZ_MPY_FIRMWARE"


def _ensure_paths(board="micropython"):
    """sys.path for an in-process run of `board`'s module: its fakes first (refbox and tablebuzz
    are installed packages: only the fakes of the board's own modules need a place). CPython
    keeps one module per name, so switching lanes drops the modules the two fake sets name
    alike."""
    fakes, other = (FAKES_CP, FAKES) if board == "circuitpython" else (FAKES, FAKES_CP)
    if _lane["board"] not in (None, board):
        for name in _LANE_MODULES:
            sys.modules.pop(name, None)
    _lane["board"] = board
    while str(other) in sys.path:
        sys.path.remove(str(other))
    if str(fakes) in sys.path:
        sys.path.remove(str(fakes))
    sys.path.insert(0, str(fakes))


def cp_library_dir():
    """A folder holding the Adafruit libraries (CP_LIBRARIES) from this Python's site-packages,
    as lib/ on a CIRCUITPY drive, for the unix ports' sys.path. Made once per process."""
    if _lane.get("libs") is None:
        import sysconfig
        import tempfile

        site = Path(sysconfig.get_paths()["purelib"])
        folder = Path(tempfile.mkdtemp(prefix="tablebuzz-cplib-"))
        for name in CP_LIBRARIES:
            source = site / name  # a package (adafruit_bus_device), else a module
            if not source.is_dir():
                source = site / (name + ".py")
            if not source.exists():
                raise SimError(
                    "the Adafruit library %s is missing (pip install -e '.[test]')" % name
                )
            (folder / source.name).symlink_to(source)
        _lane["libs"] = folder
    return _lane["libs"]


def lane_firmware(interpreter="micropython"):
    """The folder (Path) a unix port imports main.py and refbox/ from when no other is named.

    For the MicroPython unix port: $TABLEBUZZ_MPY_FIRMWARE when it is set, a
    `tablebuzz.link.flash.build` output (refbox/*.mpy as a board holds them: each run loads the
    compiled modules instead of compiling the source again, ~0.05 s of CPU a run; the test suite
    sets it to a build of this checkout's firmware/, tablebuzz.link.flash.cached_build); else
    firmware/, the source.
    CircuitPython's port always takes firmware/ (it loads its own .mpy format only). Raises
    SimError if the variable names a folder with no refbox/ in it."""
    named = os.environ.get(FIRMWARE_BUILD_ENV)
    if interpreter != "micropython" or not named:
        return FIRMWARE
    if not (Path(named) / "refbox").is_dir():
        raise SimError("$%s is %s, which holds no refbox/ (a tablebuzz.link.flash.build output)"
                       % (FIRMWARE_BUILD_ENV, named))
    return Path(named)


def micropython_command(
    code, heap=MICROPYTHON_HEAP, interpreter="micropython", board=None, drive=None,
    firmware=None, root=None,
):
    """argv running `code` under a unix port with fakes, firmware and host on sys.path. `board`
    "circuitpython" puts the CircuitPython fakes and the Adafruit libraries there instead;
    `drive` (a folder filled as CIRCUITPY by `tablebuzz flash --circuitpython`) takes refbox/
    and lib/ from there instead of firmware/ and this Python's site-packages. `firmware`: the
    folder holding main.py and refbox/ (a `tablebuzz.link.flash.build` output runs the .mpy
    files as a board would); None: lane_firmware()."""
    if firmware is None:
        firmware = lane_firmware(interpreter)
    if board is None:
        board = "circuitpython" if interpreter == "circuitpython" else "micropython"
    if drive is not None and board != "circuitpython":
        raise SimError("a CIRCUITPY drive goes with the circuitpython board")
    paths = [str(FAKES), str(firmware), str(HOST)]
    if board == "circuitpython":
        libraries = cp_library_dir()
        if drive is not None:
            firmware, libraries = Path(drive), Path(drive) / "lib"
        paths = [str(FAKES_CP), str(firmware), str(HOST), str(libraries)]
    if root is not None:  # paths under `root` as relative ones (the command runs in `root`)
        paths = [_under(p, root) for p in paths]
    prelude = "import sys; sys.path[:0] = %r; " % (paths,)
    binary = circuitpython_binary() if interpreter == "circuitpython" else micropython_binary()
    return [binary, "-X", "heapsize=" + heap, "-c", prelude + code]


def _under(path, root):
    """`path` relative to `root` when it lies under it, else as it is."""
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel


def simulation(header, sink):
    """A `runner.Simulation` of `header` (its shape: tablebuzz.sim.runner) in this process, the
    device's output going to `sink(ns, line)`: the one way in for a host tool that runs the
    firmware beside it (the connection layer's SimConnection, the interactive screens). Only here
    do the fakes of the board's modules (machine, rp2, neopixel...) come onto sys.path, so a host
    tool talking to a real board never loads them. Raises SimError for an unknown board."""
    board = header.get("board", "micropython")
    if board not in BOARDS:
        raise SimError("unknown board %r (choose from: %s)" % (board, ", ".join(BOARDS)))
    _ensure_paths(board)
    from tablebuzz.sim import runner

    return runner.Simulation(header, sink)


def run(header, records, interpreter="cpython", drive=None, firmware=None):
    """[(ns, line)] the device wrote, for normalized `records` (see tablebuzz.sim.timeline). The
    header's "board" ("micropython", the default, or "circuitpython") picks the board module.
    `drive`: a unix port runs the firmware and libraries of that CIRCUITPY folder (what
    `tablebuzz flash --circuitpython` wrote there: refbox/*.mpy, lib/) instead of firmware/.
    `firmware` (a unix port's lane only): the folder with main.py and refbox/, e.g. a build of
    .mpy files (tablebuzz.link.flash.build); None: lane_firmware()."""
    board = header.get("board", "micropython")
    if board not in BOARDS:
        raise SimError("unknown board %r (choose from: %s)" % (board, ", ".join(BOARDS)))
    if interpreter == "cpython":
        if drive is not None:
            raise SimError("a CIRCUITPY drive's .mpy files need a unix port, not CPython")
        _ensure_paths(board)
        from tablebuzz.sim import runner

        return runner.run(header, records)
    if "cpu" not in header:
        from tablebuzz.sim import cost

        header = dict(header, cpu=cost.DEFAULT)  # the same model in the other interpreter
    if interpreter not in INTERPRETERS:
        raise SimError(
            "unknown interpreter %r (choose from: %s)" % (interpreter, ", ".join(INTERPRETERS))
        )
    if board == "circuitpython" and header.get("display") and "font" not in header:
        # CircuitPython has no framebuf to draw the glyphs with, nor a subprocess to read them
        # from the MicroPython port: the panel's font goes in with the header, as flash puts it
        # on the drive (refbox.oled_cp.FONT_FILE)
        from tablebuzz.sim.runner import font_bytes

        header = dict(header, font=font_bytes().hex())
    feed = [json.dumps(header)] + [json.dumps(r, ensure_ascii=False) for r in records]
    cmd = micropython_command(
        "from tablebuzz.sim.runner import main; main()",
        heap=heap.heapsize(header, MICROPYTHON_HEAP),
        interpreter=interpreter,
        board=board,
        drive=drive,
        firmware=firmware,
        root=HOST.parent,
    )
    env = dict(os.environ, MICROPYPATH="")
    # run in the checkout with relative paths: the module paths a unix port keeps (its __file__
    # strings, qstrs) take the same heap wherever the checkout lies, so the memory model
    # (tablebuzz.sim.heap) gives one answer for every clone (its margin moved with the path)
    proc = subprocess.run(
        cmd, input="\n".join(feed) + "\n", capture_output=True, env=env, encoding="utf-8",
        cwd=str(HOST.parent),
    )
    if proc.returncode != 0:
        name = "CircuitPython" if interpreter == "circuitpython" else "MicroPython"
        raise SimError(name + " run failed:\n" + (proc.stderr or proc.stdout)[-4000:])
    lines = []
    for text in proc.stdout.splitlines():
        ns, _, line = text.partition(" ")
        lines.append((int(ns), line))
    return lines
