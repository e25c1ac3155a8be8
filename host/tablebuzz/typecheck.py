"""Type-check firmware/ against the MicroPython rp2 stubs (micropython-rp2-rpi-pico-stubs) with
mypy.

The stubs replace CPython's typeshed (`--custom-typeshed-dir`: MicroPython's own stdlib) and
provide `machine`, `rp2`, `neopixel`, `micropython`. Their top-level .pyi files sit loose in
site-packages, so they are linked into a temporary MYPYPATH directory. Errors inside the stubs
themselves are not ours and are silenced per module (mypy.ini beside this file); errors in
firmware/ fail the check. Run: `python -m tablebuzz.typecheck` (part of `make test`).
"""

import sys
import sysconfig
import tempfile
from pathlib import Path

from tablebuzz.paths import FIRMWARE

STUB_MODULES = (
    "machine.pyi",
    "neopixel.pyi",
    "micropython.pyi",
    "rp2",
    "_mpy_shed",
    "time.pyi",
    "gc.pyi",
    "hashlib.pyi",
    "binascii.pyi",
    "select.pyi",
    "vfs.pyi",
    "uctypes.pyi",
    "framebuf.pyi",
)


def main():
    from mypy import api

    site = Path(sysconfig.get_paths()["purelib"])
    if not (site / "machine.pyi").exists() or not (site / "stdlib" / "VERSIONS").exists():
        print(
            "typecheck: the MicroPython stubs are missing (pip install -e '.[test]')",
            file=sys.stderr,
        )
        return 2
    with tempfile.TemporaryDirectory() as stubs:
        for name in STUB_MODULES:
            if (site / name).exists():
                (Path(stubs) / name).symlink_to(site / name)
        args = [
            "--config-file",
            str(Path(__file__).with_name("mypy.ini")),
            "--custom-typeshed-dir",
            str(site),
            "--cache-dir",
            str(Path(stubs) / ".cache"),
            str(FIRMWARE / "main.py"),
            str(FIRMWARE / "refbox"),
        ]
        import os

        os.environ["MYPYPATH"] = os.pathsep.join([stubs, str(FIRMWARE)])
        out, err, status = api.run(args)
    sys.stdout.write(out)
    sys.stderr.write(err)
    return status


if __name__ == "__main__":
    sys.exit(main())
