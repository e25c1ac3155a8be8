"""micropython-lib's USB device packages for the simulator, from a local checkout (MPLIB_SRC).

The USB keyboard mode runs micropython-lib's `usb-device`, `usb-device-hid` and
`usb-device-keyboard` (github.com/micropython/micropython-lib, micropython/usb/). They are not on
PyPI and are never committed here (fetched code): `usb_library(src)` lays their files out in a
folder as `mpremote mip install usb-device-keyboard` lays them out in the board's /lib
(`usb/device/__init__.py`, `core.py`, `hid.py`, `keyboard.py`), so that the folder on sys.path
imports as the board's /lib does. The checkout comes from $MPLIB_SRC (the Makefile passes it
through); `MplibMissingError` says why when there is none.
"""

import os
import shutil
from pathlib import Path

PACKAGES = ("usb-device", "usb-device-hid", "usb-device-keyboard")  # the keyboard's and its needs
CACHE = Path(os.environ.get("TABLEBUZZ_CACHE", Path.home() / ".cache" / "tablebuzz"))


class MplibMissingError(RuntimeError):
    """No micropython-lib checkout to take the USB packages from."""


def source():
    """The checkout's Path from $MPLIB_SRC. Raises MplibMissingError."""
    given = os.environ.get("MPLIB_SRC")
    if not given:
        raise MplibMissingError("MPLIB_SRC is not set: give a micropython-lib checkout "
                           "(git clone https://github.com/micropython/micropython-lib; "
                           "make test MPLIB_SRC=DIR)")
    root = Path(given)
    if not (root / "micropython" / "usb" / "usb-device-keyboard").is_dir():
        raise MplibMissingError("MPLIB_SRC=%s holds no micropython/usb/usb-device-keyboard"
                                % given)
    return root


def usb_library(src=None, out=None):
    """A folder holding `usb/device/*.py` from the checkout `src` (default: `source()`), as mip
    installs them; made (again) in `out` (default: the cache). Returns its Path. Raises
    MplibMissingError."""
    src = Path(src) if src is not None else source()
    out = Path(out) if out is not None else CACHE / "mplib-usb"
    device = out / "usb" / "device"
    if device.exists():
        shutil.rmtree(device)
    device.mkdir(parents=True)
    for package in PACKAGES:
        tree = src / "micropython" / "usb" / package / "usb" / "device"
        if not tree.is_dir():
            raise MplibMissingError("%s: no %s" % (src, tree.relative_to(src)))
        for path in sorted(tree.glob("*.py")):
            shutil.copyfile(path, device / path.name)
    return out
