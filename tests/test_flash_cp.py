"""`tablebuzz flash --circuitpython --drive DIR` fills a folder as a CIRCUITPY drive is filled: the
firmware as code.py, boot.py and refbox/, the Adafruit libraries in lib/ at their pinned versions,
only what changed, stale modules removed, the journal and other files left alone."""

import subprocess
import sys

import pytest
from tablebuzz.cli import main
from tablebuzz.link import flash_cp
from tablebuzz.paths import FIRMWARE

BOOT_OUT = "Adafruit CircuitPython 10.2.1 on 2026-05-12; Raspberry Pi Pico with rp2040\n"


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


def test_a_fresh_drive_gets_the_firmware_and_the_pinned_libraries(tmp_path):
    drive = _drive(tmp_path)
    (drive / "journal.tbj").write_text("kept\n")
    said = []
    copied, removed, libs = flash_cp.flash(drive, log=said.append, runner=_offline)
    assert (drive / "code.py").read_bytes() == (FIRMWARE / "main.py").read_bytes()
    assert (drive / "boot.py").read_bytes() == (
        FIRMWARE / "circuitpython" / "boot.py"
    ).read_bytes()
    for src in (FIRMWARE / "refbox").rglob("*.py"):
        rel = src.relative_to(FIRMWARE)
        if rel.as_posix() == "refbox/board.py":
            assert not (drive / rel).exists()  # MicroPython's board module stays off
        else:
            assert (drive / rel).read_bytes() == src.read_bytes()
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


def test_a_second_flash_copies_nothing_and_stale_modules_go(tmp_path):
    drive = _drive(tmp_path)
    flash_cp.flash(drive, log=lambda s: None, use_circup=False)
    (drive / "refbox" / "gone.py").write_text("x = 1\n")
    (drive / "refbox" / "old.mpy").write_bytes(b"C\x06")
    (drive / "refbox" / "notes.txt").write_text("mine\n")
    (drive / "refbox" / "app.py").write_text("# edited on the drive\n")
    said = []
    copied, removed, libs = flash_cp.flash(drive, log=said.append, use_circup=False)
    assert copied == ["refbox/app.py"]
    assert removed == ["refbox/gone.py", "refbox/old.mpy"]
    assert (drive / "refbox" / "notes.txt").exists() and not libs


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

    _, _, libs = flash_cp.flash(drive, log=lambda s: None, runner=circup)
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

    _, _, libs = flash_cp.flash(drive, log=lambda s: None, runner=circup)
    assert "adafruit_bus_device" in libs and not (bus / "i2c_device.mpy").exists()
    assert flash_cp.library_version(bus / "i2c_device.py") == "5.2.17"
    _, _, again = flash_cp.flash(drive, log=lambda s: None, runner=circup)
    assert again == []


def test_without_the_micropython_port_the_font_is_left_out_with_a_note(tmp_path, monkeypatch):
    from tablebuzz.sim import font8x8

    def missing():
        raise font8x8.FontUnavailableError("the MicroPython unix port is not installed")

    monkeypatch.setattr(font8x8, "glyphs", missing)
    drive = _drive(tmp_path)
    said = []
    copied, _, _ = flash_cp.flash(drive, log=said.append, use_circup=False)
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
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tablebuzz.cli",
            "flash",
            "--circuitpython",
            "--no-circup",
            "--drive",
            str(drive),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert (drive / "refbox" / "board_cp.py").exists() and (drive / "lib" / "neopixel.py").exists()
