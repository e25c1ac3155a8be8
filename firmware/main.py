"""Board entry point: resume the journal's game (or open the menu) and run the referee loop.

Runs by itself at power-up (refbox.boot). Hold UNDO while powering up to start fresh (safe boot).
Ctrl-C (or mpremote) stops it and leaves the REPL, with the watchdog stopped.

The firmware's modules are read from refbox.pack when `make flash` put one there
(refbox.packfs: ~170 ms less at power-up on the RP2040); without it, from the files themselves.
"""

import micropython

if hasattr(micropython, "alloc_emergency_exception_buf"):  # rp2 has it; the unix port has not
    micropython.alloc_emergency_exception_buf(100)  # a traceback from an IRQ handler needs this

from refbox.packfs import import_builtins, mount, unmount  # noqa: E402

if mount() is None:  # on the board (make flash put the pack there)
    import_builtins()  # json, os, time...: imported without a search of the flash (4 ms each)
try:
    from refbox.boot import main

    main()
finally:
    unmount()  # the REPL after Ctrl-C sees the files on the flash, as copied there
