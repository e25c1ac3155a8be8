"""Board entry point: resume the journal's game (or open the menu) and run the referee loop.

Runs by itself at power-up (refbox.boot), at 200 MHz (refbox.sysclock). Hold UNDO while powering
up to start fresh (safe boot).
Ctrl-C (or mpremote) stops it and leaves the REPL, with the watchdog stopped.

The boot's modules are read from refbox.pack when `tablebuzz flash --pack` put one there
(refbox.packfs: ~150 ms less at power-up on the emulated RP2040, but slower races:
docs/flashing.md); without it, from the files themselves; on the tablebuzz image (`make
firmware`, refbox frozen in) from the image, looked up there first.
"""

import micropython

if hasattr(micropython, "alloc_emergency_exception_buf"):  # rp2 has it; the unix port has not
    micropython.alloc_emergency_exception_buf(100)  # a traceback from an IRQ handler needs this

import sys  # noqa: E402

if ".frozen" in sys.path:  # the tablebuzz image (make firmware) has refbox frozen in: with no
    import os  # refbox/ on the filesystem, imports look there first, not on the flash (~4 ms each)

    try:
        os.stat("refbox")
    except OSError:
        sys.path.remove(".frozen")
        sys.path.insert(0, ".frozen")

from refbox.packfs import import_builtins, mount, unmount  # noqa: E402

# json, binascii, time...: each later import of them searches no filesystem (on the board's
# littlefs ~3-4 ms an import, and the journal's fold imported one per record at power-up: ~0.4 s
# of a 1,000-question quiz's resume on the tablebuzz image, emulated RP2040)
import_builtins()
import time  # noqa: E402

import machine  # noqa: E402
from refbox.sysclock import set_up  # noqa: E402

set_up(machine, time)  # 200 MHz before anything else runs or derives a clock (refbox.sysclock)

if mount() is None:  # on the board (make flash put the pack there)
    import refbox.app  # noqa: F401
    import refbox.board  # noqa: F401
    import refbox.boot  # noqa: F401
    import refbox.journal  # noqa: F401
    import refbox.pinmap  # noqa: F401

    # the boot's modules are in: the pack goes before the journal and the Board allocate (kept
    # mounted, its index and the garbage of the imports left the capture ring's 8 KB no room
    # at a resume, emulated chip); later imports (a game's module) read the files themselves
    unmount()
    import gc

    gc.collect()

from refbox.boot import main  # noqa: E402

main()
