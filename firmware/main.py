"""Board entry point: resume the journal's game (or open the menu) and run the referee loop.

Runs by itself at power-up (refbox.boot). Hold UNDO while powering up to start fresh (safe boot).
Ctrl-C (or mpremote) stops it and leaves the REPL, with the watchdog stopped.
"""

import micropython

if hasattr(micropython, "alloc_emergency_exception_buf"):  # rp2 has it; the unix port has not
    micropython.alloc_emergency_exception_buf(100)  # a traceback from an IRQ handler needs this

from refbox.boot import main  # noqa: E402

main()
