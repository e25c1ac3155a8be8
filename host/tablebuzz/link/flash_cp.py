"""`tablebuzz flash --circuitpython [--drive PATH]`: put the firmware on a Pico running
CircuitPython (its CIRCUITPY drive), copying only what changed and verifying every copy.

What goes where on the drive (docs/flashing.md, "CircuitPython"):
- code.py     <- firmware/main.py (CircuitPython runs code.py first: the factory "Hello World"
  code.py would otherwise win over main.py);
- boot.py     <- firmware/circuitpython/boot.py (the protocol's usb_cdc data channel; the drive
  given to the code for the journal unless UNDO is held at power-up);
- refbox/*.mpy <- firmware/refbox compiled by CircuitPython's own mpy-cross (find_mpy_cross),
  without refbox/board.py, which is MicroPython's. Compiled, because compiling the source on
  import costs the heap it runs in: on an emulated RP2040 under CircuitPython 10.2.1 (~190 KB of
  heap) the .py sources ran out of memory at the first `new_game`. CircuitPython's mpy-cross,
  because CircuitPython 10.2.1 refuses MicroPython's .mpy files ("MicroPython .mpy file; use
  CircuitPython mpy-cross": both are .mpy v6.3, but CircuitPython's start with "C", MicroPython's
  with "M"; py/persistentcode.c). `source=True` (--source) copies refbox/*.py instead, for
  boards with more RAM than a Pico;
- refbox/font8x8.bin <- the display's glyphs (refbox.oled_cp.FONT_FILE): MicroPython framebuf's
  8x8 font, read from the MicroPython unix port (tablebuzz.sim.font8x8); without that port it is
  left out and the board says its display has no font;
- lib/        <- the Adafruit libraries refbox.board_cp imports (LIBRARIES), installed with
  `circup` and then checked against the versions this project pins and tests (pyproject.toml):
  a library circup could not install (offline: it downloads the Adafruit bundle) or installed in
  another version is replaced by the pinned copy from this Python's site-packages.
Files under refbox/ that the firmware no longer has are removed (a stale module would still
import), and so is the other form of each module: CircuitPython's import takes x.py before x.mpy,
so a refbox/x.py left beside a fresh x.mpy would run instead. Anything else on the drive (the
journal, other files) is left alone. Each copied file is read back and compared by SHA-256.

The drive must be writable by the computer: a board running the referee has it (boot.py gave it
to the code). Hold UNDO while plugging the board in, then flash.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from tablebuzz.paths import FIRMWARE

TESTED = "10.2.1"  # the CircuitPython release the CircuitPython lane runs (tablebuzz.sim.cpunix)
OLDEST = (9, 2, 2)  # rp2pio.StateMachine.background_read first came in 9.2.2
# module -> (PyPI distribution, pinned version), the versions in pyproject.toml's test extras
LIBRARIES = {
    "neopixel": ("adafruit-circuitpython-neopixel", "6.4.2"),
    "adafruit_pixelbuf": ("adafruit-circuitpython-pixelbuf", "2.1.0"),
    "adafruit_pioasm": ("adafruit-circuitpython-pioasm", "1.3.8"),
    # the display (refbox.oled_cp): adafruit_ssd1306 over adafruit_framebuf and the bus device
    # package (a folder: its version is in i2c_device.py)
    "adafruit_ssd1306": ("adafruit-circuitpython-ssd1306", "2.12.24"),
    "adafruit_framebuf": ("adafruit-circuitpython-framebuf", "1.6.12"),
    "adafruit_bus_device": ("adafruit-circuitpython-busdevice", "5.2.17"),
}
PACKAGES = {"adafruit_bus_device": "i2c_device.py"}  # library folders -> their versioned file
FONT = "refbox/font8x8.bin"
# refbox modules CircuitPython never imports: the rp2 board, and the machine-code loops (no
# native emitter nor inline assembler there: refbox.capture runs refbox.edgeloop's Python twin)
MICROPYTHON_ONLY = ("board.py", "edgeloop_thumb.py", "edgeloop_viper.py")
DRIVE_NAMES = ("CIRCUITPY",)
# CircuitPython's mpy-cross: beside this Python (`make circuitpython` links it), else on PATH
MPY_CROSS = "mpy-cross-circuitpython"
# Adafruit's published mpy-cross builds, one per release and system (bin/mpy-cross/<system>/)
MPY_CROSS_BINARIES = (
    "https://adafruit-circuit-python.s3.amazonaws.com/index.html?prefix=bin/mpy-cross/"
)
NO_MPY_CROSS = (
    "no CircuitPython mpy-cross to compile refbox/ with (the Pico's heap cannot compile the "
    "source on import): run `make circuitpython` (builds %s's beside its unix port, as "
    ".venv/bin/%s), or download Adafruit's mpy-cross for CircuitPython %%s from %s and give "
    "--mpy-cross PATH; or copy the source with --source (boards with more RAM than a Pico)"
    % (TESTED, MPY_CROSS, MPY_CROSS_BINARIES)
)


class FlashError(Exception):
    """A failure to report as one line for people."""


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def find_drive():
    """The mounted CIRCUITPY drive (Linux /media and /run/media, macOS /Volumes, or a mount
    point named so in /proc/mounts). Raises FlashError when none is mounted."""
    user = os.environ.get("USER", "")
    candidates = []
    for name in DRIVE_NAMES:
        candidates += [Path("/media") / user / name, Path("/run/media") / user / name]
        candidates += [Path("/media") / name, Path("/Volumes") / name]
    try:
        for line in Path("/proc/mounts").read_text().splitlines():
            point = line.split()[1].replace("\\040", " ")
            if Path(point).name in DRIVE_NAMES:
                candidates.append(Path(point))
    except OSError:
        pass
    for path in candidates:
        if (path / "boot_out.txt").exists():
            return path
    raise FlashError(
        "no CIRCUITPY drive is mounted: plug the Pico in (CircuitPython installed), or give "
        "--drive PATH"
    )


def drive_version(drive):
    """(major, minor, micro) of the CircuitPython that wrote the drive's boot_out.txt, e.g.
    "Adafruit CircuitPython 10.2.1 on 2026-05-12; Raspberry Pi Pico with rp2040". Raises
    FlashError if it is not a CircuitPython drive."""
    try:
        first = (Path(drive) / "boot_out.txt").read_text(errors="replace").splitlines()[0]
    except (OSError, IndexError):
        raise FlashError("%s has no boot_out.txt: not a CircuitPython drive" % drive) from None
    m = re.search(r"CircuitPython (\d+)\.(\d+)\.(\d+)", first)
    if not m:
        raise FlashError("%s/boot_out.txt does not name a CircuitPython version" % drive)
    return tuple(int(x) for x in m.groups())


def mpy_cross_version(path):
    """((major, minor, micro), .mpy major) of the CircuitPython mpy-cross at `path`, from its
    `--version`: "CircuitPython 10.2.1 on 2026-05-12; mpy-cross emitting mpy v6.3". Raises
    FlashError if it does not run or is another compiler (MicroPython's says "MicroPython")."""
    try:
        proc = subprocess.run(
            [str(path), "--version"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise FlashError("mpy-cross %s does not run (%s)" % (path, e)) from None
    out = (proc.stdout or proc.stderr).strip()
    m = re.search(r"CircuitPython (\d+)\.(\d+)\.(\d+)\S*.*mpy v(\d+)", out)
    if proc.returncode != 0 or not m:
        other = ""
        if "MicroPython" in out:
            other = " (MicroPython's: CircuitPython refuses its .mpy files)"
        raise FlashError(
            "%s is not CircuitPython's mpy-cross%s; it says %r" % (path, other, out[:120])
        )
    return tuple(int(x) for x in m.groups()[:3]), int(m.group(4))


def find_mpy_cross(version, explicit=None):
    """The CircuitPython mpy-cross to compile for a board running CircuitPython `version`
    ((major, minor, micro)): `explicit` (--mpy-cross PATH) if given, else MPY_CROSS beside this
    Python, else on PATH. Its major version must be the board's (Adafruit builds one set of .mpy
    files per major release). Raises FlashError, naming how to get one, when none is usable."""
    wanted = "%d.x" % version[0]
    if explicit is not None:
        found = Path(explicit)
        if not found.is_file():
            raise FlashError("--mpy-cross %s: no such file" % explicit)
    else:
        beside = Path(sys.executable).parent / MPY_CROSS
        on_path = shutil.which(MPY_CROSS)
        if beside.exists():
            found = beside
        elif on_path:
            found = Path(on_path)
        else:
            raise FlashError(NO_MPY_CROSS % wanted)
    made_by, _ = mpy_cross_version(found)
    if made_by[0] != version[0]:
        raise FlashError(
            "%s is CircuitPython %s's mpy-cross but the board runs CircuitPython %s: .mpy files "
            "must come from the same major release (get %s's from %s and give --mpy-cross "
            "PATH, or use --source)"
            % (
                found,
                ".".join(map(str, made_by)),
                ".".join(map(str, version)),
                wanted,
                MPY_CROSS_BINARIES,
            )
        )
    return found


def compile_refbox(mpy_cross, out, firmware=FIRMWARE):
    """Compile firmware/refbox/**/*.py (not MICROPYTHON_ONLY) with `mpy_cross` into `out`
    (a folder); returns {drive path: compiled file}, e.g. "refbox/games/quiz.mpy". Each file
    embeds its drive path ("refbox/app.py") so a traceback on the board names it. Raises
    FlashError "firmware/refbox/x.py:12: SyntaxError: ..." on a compile error."""
    from tablebuzz.link.flash import _compile_error

    files = {}
    for src in _refbox_sources(firmware):
        rel = src.relative_to(firmware).as_posix()
        drive_path = rel[: -len(".py")] + ".mpy"
        dst = Path(out) / drive_path
        dst.parent.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            [str(mpy_cross), "-o", str(dst), "-s", rel, str(src)], capture_output=True, text=True
        )
        if proc.returncode != 0 or not dst.is_file():
            raise FlashError(_compile_error(src, proc.stderr or proc.stdout))
        if dst.read_bytes()[:1] != b"C":  # CircuitPython's loader takes only these
            raise FlashError("%s made %s, which is not a CircuitPython .mpy" % (mpy_cross, dst))
        files[drive_path] = dst
    return files


def _refbox_sources(firmware):
    for src in sorted((firmware / "refbox").rglob("*.py")):
        if src.name in MICROPYTHON_ONLY and src.parent == firmware / "refbox":
            continue
        yield src


def local_files(firmware=FIRMWARE, font=None, compiled=None):
    """{path on the drive: local path} for the firmware (not the libraries): code.py and boot.py
    as source, then refbox/ as `compiled` ({drive path: .mpy file}, compile_refbox()) or, when
    None, as its .py sources; `font` a file holding the display's glyphs (font_file()), or None
    to leave them out."""
    files = {"code.py": firmware / "main.py", "boot.py": firmware / "circuitpython" / "boot.py"}
    if compiled is not None:
        files.update(compiled)
    else:
        for src in _refbox_sources(firmware):
            files[src.relative_to(firmware).as_posix()] = src
    if font is not None:
        files[FONT] = Path(font)
    return files


def font_file(folder, log=print):
    """The display's glyphs written to `folder`/font8x8.bin (its path), or None with a note
    when the MicroPython unix port that draws them is not installed."""
    from tablebuzz.sim.font8x8 import FontUnavailableError
    from tablebuzz.sim.font8x8 import font_file as glyphs

    try:
        data = glyphs()
    except FontUnavailableError as e:
        log("note: %s, so the display's font is left out (the board runs without it)" % e)
        return None
    path = Path(folder) / "font8x8.bin"
    path.write_bytes(data)
    return path


def plan(drive, files):
    """(to copy, to remove): drive paths whose content differs or is missing, and .py/.mpy files
    under refbox/ on the drive that the firmware does not have."""
    drive = Path(drive)
    copy = [rel for rel, src in files.items() if not _same(drive / rel, src)]
    remove = []
    root = drive / "refbox"
    if root.exists():
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(drive).as_posix()
            if path.is_file() and path.suffix in (".py", ".mpy") and rel not in files:
                remove.append(rel)
    return copy, remove


def _same(target, src):
    return (
        target.is_file()
        and target.stat().st_size == src.stat().st_size
        and sha256(target) == sha256(src)
    )


def copy_verified(src, target):
    """Copy `src` to `target` through a temporary name, flushed to the device, then read back
    and compared. Raises FlashError on a mismatch (a full or failing drive)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    data = Path(src).read_bytes()
    try:
        with open(part, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, target)
    except OSError as e:
        part.unlink(missing_ok=True)
        raise FlashError(
            "could not write %s (%s): is the drive full or read-only?" % (target, e)
        ) from None
    if hashlib.sha256(target.read_bytes()).digest() != hashlib.sha256(data).digest():
        raise FlashError("%s reads back different from what was written" % target)


def library_version(path):
    """__version__ of a library file, or None."""
    try:
        m = re.search(r'^__version__\s*=\s*"([^"]+)"', Path(path).read_text(), re.M)
    except OSError:
        return None
    return m.group(1) if m else None


def _versioned(path, module):
    """The file of library `module` at `path` (lib/NAME.py, or a package's versioned file)."""
    if module in PACKAGES:
        return Path(path) / module / PACKAGES[module]
    return Path(path) / (module + ".py")


def pinned_library(module):
    """This Python's copy of `module` (site-packages: a .py, or a package folder), checked to be
    the pinned version."""
    site = Path(sysconfig.get_paths()["purelib"])
    want = LIBRARIES[module][1]
    if library_version(_versioned(site, module)) != want:
        raise FlashError(
            "%s %s is not installed here (pip install -e '.[test]'), so it cannot be put on "
            "the board" % (LIBRARIES[module][0], want)
        )
    return site / module if module in PACKAGES else site / (module + ".py")


def run_circup(drive, modules, log=print, runner=subprocess.run):
    """`circup --path DRIVE install --py MODULES`; True if it succeeded. Its failure (offline:
    circup downloads the Adafruit bundle from GitHub) is told, not raised."""
    exe = Path(sys.executable).parent / "circup"
    cmd = [str(exe) if exe.exists() else "circup", "--path", str(drive), "--timeout", "30"]
    cmd += ["install", "--py", *modules]
    try:
        proc = runner(cmd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        log("circup did not run (%s): using the pinned copies" % e)
        return False
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-1:] or ["(no output)"]
        log(
            "circup could not install the libraries (offline? it downloads the Adafruit "
            "bundle): %s; using the pinned copies from this environment" % tail[0]
        )
        return False
    return True


def install_libraries(drive, use_circup=True, log=print, runner=subprocess.run):
    """Put LIBRARIES in lib/ at their pinned versions. Returns the modules copied from this
    environment (after circup, only those it did not give at the pinned version)."""
    lib = Path(drive) / "lib"
    if use_circup:
        run_circup(drive, sorted(LIBRARIES), log, runner)
    replaced = []
    for module in sorted(LIBRARIES):
        want = LIBRARIES[module][1]
        if module in PACKAGES:
            if _package_is(lib / module, want, PACKAGES[module]):
                continue
            source = pinned_library(module)
            for src in sorted(source.glob("*.py")):
                (lib / module / (src.stem + ".mpy")).unlink(missing_ok=True)
                copy_verified(src, lib / module / src.name)
            replaced.append(module)
            continue
        target = lib / (module + ".py")
        compiled = lib / (module + ".mpy")
        if library_version(target) == want and not compiled.exists():
            continue
        compiled.unlink(missing_ok=True)  # an .mpy would be imported instead: it goes
        copy_verified(pinned_library(module), target)
        replaced.append(module)
    if replaced:
        log(
            "lib/: %s at the pinned versions"
            % ", ".join("%s %s" % (m, LIBRARIES[m][1]) for m in replaced)
        )
    return replaced


def _package_is(folder, want, versioned):
    """True if library folder `folder` is at version `want` as .py files only (circup --py
    gives those; an .mpy beside a .py would be imported instead)."""
    return library_version(folder / versioned) == want and not list(folder.glob("*.mpy"))


def flash(
    drive=None,
    dry_run=False,
    use_circup=True,
    log=print,
    runner=subprocess.run,
    source=False,
    mpy_cross=None,
):
    """The whole job; returns (copied, removed, libraries replaced), drive paths. refbox/ goes
    as .mpy compiled by `mpy_cross` (a path; None: find_mpy_cross finds one), or as .py with
    `source`. Raises FlashError, with the drive unchanged, when the drive is not a usable
    CircuitPython drive or no compiler is usable."""
    drive = Path(drive) if drive else find_drive()
    if not drive.is_dir():
        raise FlashError("%s is not a folder" % drive)
    version = drive_version(drive)
    shown = ".".join(str(v) for v in version)
    if version < OLDEST:
        raise FlashError(
            "the board runs CircuitPython %s; the referee needs 9.2.2 or newer "
            "(rp2pio background_read), tested on %s" % (shown, TESTED)
        )
    if shown != TESTED:
        log("note: the board runs CircuitPython %s; tablebuzz is tested on %s" % (shown, TESTED))
    if source and mpy_cross is not None:
        raise FlashError("--source copies the .py files: it takes no --mpy-cross")
    compiler = None if source else find_mpy_cross(version, mpy_cross)
    with tempfile.TemporaryDirectory(prefix="tablebuzz-cp-") as folder:
        compiled = None
        if compiler is not None:
            compiled = compile_refbox(compiler, Path(folder) / "mpy")
            made_by, mpy = mpy_cross_version(compiler)
            log(
                "compiled %d refbox modules with CircuitPython %s's mpy-cross (.mpy v%d)"
                % (len(compiled), ".".join(map(str, made_by)), mpy)
            )
        files = local_files(font=font_file(folder, log), compiled=compiled)
        return _flash(drive, files, dry_run, use_circup, log, runner)


def _flash(drive, files, dry_run, use_circup, log, runner):
    copy, remove = plan(drive, files)
    if dry_run:
        for rel in copy:
            log("would copy %s" % rel)
        for rel in remove:
            log("would remove %s" % rel)
        return copy, remove, []
    if not os.access(drive, os.W_OK):
        raise FlashError(
            "%s is read-only: the referee owns it. Unplug, hold UNDO while plugging in, then "
            "flash again" % drive
        )
    for rel in copy:
        copy_verified(files[rel], drive / rel)
        log("copied %s" % rel)
    for rel in remove:
        (drive / rel).unlink()
        log("removed %s" % rel)
    replaced = install_libraries(drive, use_circup, log, runner)
    if not copy and not remove:
        log("the firmware on %s is up to date" % drive)
    return copy, remove, replaced


def cmd_flash(args):
    """`tablebuzz flash --circuitpython [--drive PATH] [--dry-run] [--no-circup] [--source |
    --mpy-cross PATH]`: 0 on success, 2 on failure (one line on stderr)."""
    try:
        flash(
            args.drive,
            args.dry_run,
            use_circup=not getattr(args, "no_circup", False),
            source=getattr(args, "source", False),
            mpy_cross=getattr(args, "mpy_cross", None),
        )
    except FlashError as e:
        sys.stdout.flush()
        print("tablebuzz: %s" % e, file=sys.stderr)
        return 2
    return 0
