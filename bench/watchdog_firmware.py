"""Build a TEST firmware folder for the watchdog check on a board or the emulated RP2040.

    .venv/bin/python bench/watchdog_firmware.py OUT [--hang-after-ms N] [--watchdog-ms M]

OUT gets the firmware built as `make flash` builds it (tablebuzz.link.flash.build: refbox/ as .mpy)
and, in place of the product's main.py, a test-only main.py that runs the very same boot
(refbox.boot.main) but makes one loop pass hang N ms after main.py started (`while True: pass`
inside App.step: nothing feeds the watchdog any more, hard IRQs and the capture go on). Before it
hangs it writes the flag file `hang.done` and prints `{"test":"hang"}`, so the board that the
watchdog resets boots normally, resumes its game from the journal, and never hangs again. At
every boot it first prints `{"test":"boot","reset_cause":N,"wdt_reset":W}` (machine.reset_cause(),
which reads the watchdog's REASON register, and machine.WDT_RESET to compare it with).
`--hang-after-ms 0` never hangs (for the Ctrl-C check: Ctrl-C, then wait past the timeout: the
REPL must stay up, no reset). `--watchdog-ms` shortens refbox.boot.WATCHDOG_MS (default: the
product's 8000) to keep emulated runs short; the mechanism is the same.

Never flash the result as the product: it is built outside the repository and never committed.
Measured figures: docs/flashing.md "The watchdog".
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "host"))

TEST_MAIN = '''"""TEST FIRMWARE ONLY (bench/watchdog_firmware.py): hangs one loop pass, once."""

import os
import time

import machine
import micropython

micropython.alloc_emergency_exception_buf(100)
# the last reset as the chip tells it (the watchdog's REASON: machine.WDT_RESET after its reset)
_cause = (machine.reset_cause(), machine.WDT_RESET)
print('{"test":"boot","reset_cause":%%d,"wdt_reset":%%d}' %% _cause)

from refbox import app, boot  # noqa: E402

HANG_AFTER_MS = %(hang)d
FLAG = "hang.done"
%(watchdog)s
_started = time.ticks_ms()
try:
    os.stat(FLAG)
    _armed = False  # the watchdog reset this board already: run normally
except OSError:
    _armed = HANG_AFTER_MS > 0
_step = app.App.step


def _hanging_step(self):
    global _armed
    if _armed and time.ticks_diff(time.ticks_ms(), _started) >= HANG_AFTER_MS:
        _armed = False
        with open(FLAG, "w") as f:
            f.write("1")
        print('{"test":"hang"}')
        while True:  # the pass never returns
            pass
    _step(self)


app.App.step = _hanging_step
boot.main()
'''


def build(out, hang_after_ms, watchdog_ms=None):
    from tablebuzz.link import flash

    out = Path(out)
    flash.build(out=out)
    watchdog = "boot.WATCHDOG_MS = %d" % watchdog_ms if watchdog_ms else ""
    (out / "main.py").write_text(TEST_MAIN % {"hang": hang_after_ms, "watchdog": watchdog})
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--hang-after-ms", type=int, default=1500)
    parser.add_argument("--watchdog-ms", type=int, default=None)
    args = parser.parse_args(argv)
    if Path(args.out).resolve().is_relative_to(HERE.parent):
        parser.error("build the test firmware outside the repository")
    out = build(args.out, args.hang_after_ms, args.watchdog_ms)
    print("test firmware in %s (hang after %d ms, watchdog %s ms)" % (
        out, args.hang_after_ms, args.watchdog_ms or "8000"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
