"""Type-check firmware/ against the MicroPython rp2 stubs (micropython-rp2-rpi-pico-stubs) with
mypy, and refbox.board_cp and refbox.oled_cp (CircuitPython's) against circuitpython-stubs.

The stubs replace CPython's typeshed (`--custom-typeshed-dir`: MicroPython's own stdlib) and
provide `machine`, `rp2`, `neopixel`, `micropython`. Their top-level .pyi files sit loose in
site-packages, so they are linked into a temporary MYPYPATH directory. Errors inside the stubs
themselves are not ours and are silenced per module (mypy.ini beside this file); errors in
firmware/ fail the check. Run: `python -m tablebuzz.typecheck` (part of `make test`).

The CircuitPython run uses CPython's own typeshed (circuitpython-stubs are written against it) and
the `*-stubs` packages of circuitpython-stubs; `neopixel` must be the Adafruit library, not the
MicroPython stub of the same name that sits beside it in site-packages, so the Adafruit file is
linked into MYPYPATH, which mypy searches first.
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


CP_MODULES = ("neopixel.py",)  # Adafruit libraries that MicroPython's stubs shadow


def main():
    status = micropython_check()
    cp_status = circuitpython_check()
    return status or cp_status


def micropython_check():
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
        ] + sorted(
            str(path)
            for path in (FIRMWARE / "refbox").rglob("*.py")
            if path.name != "board_cp.py"  # CircuitPython's: checked by circuitpython_check
        )
        import os

        os.environ["MYPYPATH"] = os.pathsep.join([stubs, str(FIRMWARE)])
        out, err, status = api.run(args)
    sys.stdout.write(out)
    sys.stderr.write(err)
    return status


def circuitpython_check():
    """mypy over refbox.board_cp with circuitpython-stubs (pinned in pyproject.toml)."""
    from mypy import api

    site = Path(sysconfig.get_paths()["purelib"])
    if not (site / "rp2pio-stubs").exists():
        print(
            "typecheck: circuitpython-stubs are missing (pip install -e '.[test]')",
            file=sys.stderr,
        )
        return 2
    with tempfile.TemporaryDirectory() as stubs:
        for name in CP_MODULES:
            (Path(stubs) / name).symlink_to(site / name)
        args = [
            "--config-file",
            str(Path(__file__).with_name("mypy_cp.ini")),
            "--cache-dir",
            str(Path(stubs) / ".cache"),
            str(FIRMWARE / "refbox" / "board_cp.py"),
            str(FIRMWARE / "refbox" / "oled_cp.py"),
            str(FIRMWARE / "circuitpython" / "boot.py"),
        ]
        import os

        os.environ["MYPYPATH"] = os.pathsep.join([stubs, str(FIRMWARE)])
        out, err, status = api.run(args)
    sys.stdout.write(out)
    sys.stderr.write(err)
    return status


if __name__ == "__main__":
    sys.exit(main())
