"""Board entry point: build the board from the pin map and run the referee loop.

Runs by itself at power-up. Ctrl-C (or mpremote) stops it and leaves the REPL.
"""

import time

import micropython

micropython.alloc_emergency_exception_buf(100)  # a traceback from an IRQ handler needs this

from refbox import pinmap  # noqa: E402
from refbox.app import App  # noqa: E402
from refbox.board import Board  # noqa: E402

App(Board(pinmap, time), time, pinmap).run()
