"""Fake `storage` (CircuitPython 10.2.1 shared-bindings/storage): `remount` and `getmount` for
CIRCUITPY. On the chip the drive is writable by one side only: the USB host (the default), or the
code after boot.py's `storage.remount("/", readonly=False)`. The state lives for one simulated
boot."""


class _Mount:
    def __init__(self):
        self.readonly = True  # to the code: the host owns the drive by default
        self.label = "CIRCUITPY"


_root = _Mount()
_in_boot = {"boot": True}


def remount(mount_path, readonly=False, *, disable_concurrent_write_protection=False):
    if mount_path != "/":
        raise OSError(22)
    if not _in_boot["boot"]:
        raise RuntimeError("Cannot remount '/' when visible via USB.")
    _root.readonly = readonly


def getmount(mount_path):
    if mount_path != "/":
        raise OSError(22)
    return _root


def _boot_done():
    """boot.py has finished: USB is up, the drive's owner is fixed until the next reset."""
    _in_boot["boot"] = False


def _power_on():
    _root.readonly = True
    _in_boot["boot"] = True
