"""CircuitPython's boot.py for the referee box: runs once at power-up, before USB starts
(CircuitPython 10.2.1 docs, "boot.py"). `tablebuzz flash --circuitpython` puts it at the root of
CIRCUITPY; MicroPython never sees it.

- The protocol gets its own USB serial channel: `usb_cdc.data` (the REPL stays on the console
  channel, so a traceback or a print never lands inside a protocol line).
- CIRCUITPY is writable by one side at a time. The referee keeps its journal there, so boot.py
  gives the drive to the code (`storage.remount("/", readonly=False)`): the computer then sees
  it read-only. The escape, like the MicroPython build's safe boot, is UNDO held at power-up:
  the drive stays the computer's (to copy a new firmware, or to save the journal off it) and the
  referee starts fresh at the menu without a journal, the old one left as it was.
"""

import board
import digitalio
import storage
import usb_cdc
from refbox import pinmap

usb_cdc.enable(console=True, data=True)

_undo = [gpio for name, gpio in pinmap.CONTROLS if name == "undo"][0]
_contact = digitalio.DigitalInOut(getattr(board, "GP%d" % _undo))
_contact.switch_to_input(pull=digitalio.Pull.UP)
_held = not _contact.value
_contact.deinit()
if not _held:
    storage.remount("/", readonly=False)
