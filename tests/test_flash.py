"""`tablebuzz flash`: build, plan (what changes, stale-file removal), copy and verify, and the
failure paths a user meets (no board, busy port, Ctrl-C) as one line on stderr.

The last test flashes into a temporary folder through the real MicroPython unix port driven by
mpremote over a pseudo-terminal, the closest thing to a board this machine has.
"""

import contextlib
import hashlib
import os
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
import serial
from tablebuzz.link import flash
from tablebuzz.link.flash import FlashError, make_plan
from tablebuzz.paths import REPO

VENV_BIN = Path(sys.executable).parent
TABLEBUZZ = VENV_BIN / "tablebuzz"
MICROPYTHON = VENV_BIN / "micropython"


def h(text):
    return hashlib.sha256(text.encode()).hexdigest()


LOCAL = {
    "main.py": h("main"),
    "refbox/__init__.mpy": h("init"),
    "refbox/app.mpy": h("app"),
    "refbox/games/__init__.mpy": h("games"),
    "refbox/games/quiz.mpy": h("quiz"),
}


def board_like(local):
    """The board listing of a board that already holds `local`."""
    listing = dict(local)
    listing.update({"refbox": None, "refbox/games": None})
    return listing


# ------------------------------------------------------------------------------------------ plan
def test_plan_for_an_empty_board_copies_everything_main_last():
    plan = make_plan(LOCAL, {})
    assert plan.copy[-1] == "main.py"
    assert sorted(plan.copy) == sorted(LOCAL)
    assert plan.mkdirs == ["refbox", "refbox/games"]
    assert plan.unchanged == plan.remove == plan.rmdirs == []


def test_plan_for_an_up_to_date_board_does_nothing():
    plan = make_plan(LOCAL, board_like(LOCAL))
    assert plan.copy == plan.remove == plan.rmdirs == plan.mkdirs == []
    assert sorted(plan.unchanged) == sorted(LOCAL)


def test_plan_copies_only_changed_and_missing_files():
    board = board_like(LOCAL)
    board["refbox/app.mpy"] = h("old app")
    del board["refbox/games/quiz.mpy"]
    plan = make_plan(LOCAL, board)
    assert plan.copy == ["refbox/app.mpy", "refbox/games/quiz.mpy"]
    assert len(plan.unchanged) == 3


def test_plan_removes_stale_py_that_would_shadow_the_mpy():
    board = board_like(LOCAL)
    board["refbox/app.py"] = h("old source")  # MicroPython would import this, not app.mpy
    board["refbox/games/quiz.py"] = h("old quiz")
    board["refbox/gone.mpy"] = h("deleted module")
    plan = make_plan(LOCAL, board)
    assert plan.remove == ["refbox/games/quiz.py", "refbox/app.py", "refbox/gone.mpy"]
    assert plan.copy == []


def test_plan_removes_stale_folders_deepest_first_after_their_files():
    board = board_like(LOCAL)
    board.update({"refbox/old": None, "refbox/old/deep": None, "refbox/old/deep/x.mpy": h("x")})
    plan = make_plan(LOCAL, board)
    assert plan.remove == ["refbox/old/deep/x.mpy"]
    assert plan.rmdirs == ["refbox/old/deep", "refbox/old"]


def test_plan_leaves_everything_outside_main_and_refbox_alone():
    board = board_like(LOCAL)
    board.update({"boot.py": h("b"), "lib": None, "lib/x.py": h("l"), "refbox.py": h("r"),
                  "game.json": h("saved"), "main.mpy": h("m")})
    plan = make_plan(LOCAL, board)
    assert plan.remove == plan.rmdirs == plan.copy == []


def test_plan_replaces_a_folder_where_a_file_belongs_and_vice_versa():
    board = {"refbox": None, "refbox/app.mpy": None, "refbox/app.mpy/junk": h("j"),
             "refbox/games": h("a file, not a folder")}
    plan = make_plan(LOCAL, board)
    assert plan.remove == ["refbox/app.mpy/junk", "refbox/games"]
    assert plan.rmdirs == ["refbox/app.mpy"]
    assert plan.mkdirs == ["refbox/games"]
    assert "refbox/app.mpy" in plan.copy


# ------------------------------------------------------------------------------------------ build
def fake_firmware(root, modules):
    """A firmware tree under `root`: main.py plus refbox/<name>.py for each {name: source}."""
    (root / "refbox").mkdir(parents=True)
    (root / "main.py").write_text("import refbox\n")
    for name, text in modules.items():
        path = root / "refbox" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_build_mirrors_the_tree_and_keeps_main_as_source(tmp_path):
    fw = fake_firmware(tmp_path / "fw", {"__init__.py": "", "games/quiz.py": "X = 1\n"})
    files = flash.build(fw, tmp_path / "out")
    assert sorted(files) == ["main.py", "refbox/__init__.mpy", "refbox/games/quiz.mpy"]
    assert files["main.py"].read_bytes() == b"import refbox\n"
    assert files["refbox/games/quiz.mpy"].read_bytes()[:1] == b"M"
    assert files["refbox/games/quiz.mpy"] == tmp_path / "out" / "refbox" / "games" / "quiz.mpy"


def test_build_prunes_outputs_of_deleted_sources(tmp_path):
    fw = fake_firmware(tmp_path / "fw", {"__init__.py": "", "old/gone.py": "", "keep.py": ""})
    out = tmp_path / "out"
    flash.build(fw, out, pack=True)
    (fw / "refbox" / "old" / "gone.py").unlink()
    (fw / "refbox" / "old").rmdir()
    files = flash.build(fw, out, pack=True)
    on_disk = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    assert on_disk == ["main.py", "refbox", "refbox.pack", "refbox/__init__.mpy",
                       "refbox/keep.mpy"]
    assert sorted(files) == ["main.py", "refbox.pack", "refbox/__init__.mpy", "refbox/keep.mpy"]
    assert b"gone" not in files["refbox.pack"].read_bytes().split(b"\n", 1)[0]
    files = flash.build(fw, out)  # without --pack: no pack in the build, so none on the board
    assert "refbox.pack" not in files and not (out / "refbox.pack").exists()


def test_build_stops_at_a_compile_error_with_file_and_line(tmp_path):
    fw = fake_firmware(tmp_path / "fw", {"__init__.py": "", "bad.py": "x = 1\nreturn 2\n"})
    with pytest.raises(FlashError, match=r"refbox/bad\.py:2: SyntaxError"):
        flash.build(fw, tmp_path / "out")


def test_a_cached_build_is_reused_until_a_source_changes(tmp_path):
    fw = fake_firmware(tmp_path / "fw", {"__init__.py": "", "games/quiz.py": "X = 1\n"})
    cache = tmp_path / "cache"
    first = flash.cached_build(cache, fw)
    made = (first / "refbox" / "games" / "quiz.mpy").stat().st_mtime_ns
    assert flash.cached_build(cache, fw) == first  # the same sources: not compiled again
    assert (first / "refbox" / "games" / "quiz.mpy").stat().st_mtime_ns == made
    (fw / "refbox" / "games" / "quiz.py").write_text("X = 2\n")
    second = flash.cached_build(cache, fw)
    assert second != first and (second / "refbox" / "games" / "quiz.mpy").exists()
    assert sorted(p.name for p in cache.iterdir()) == [second.name]  # the stale build is gone
    (fw / "refbox" / "bad.py").write_text("return 2\n")
    with pytest.raises(FlashError, match=r"refbox/bad\.py:1: SyntaxError"):
        flash.cached_build(cache, fw)
    assert not [p for p in cache.iterdir() if p.name.startswith(".")]  # no half build left


# ------------------------------------------------------------------------------------------ flash
class FakeBoard:
    """A board filesystem in a dict {rel: bytes | None (folder)}, with the Board methods."""

    def __init__(self, fs=None, corrupt=()):
        self.fs = dict(fs or {})
        self.corrupt = set(corrupt)  # paths whose writes arrive damaged
        self.log = []

    def scan(self, rels):
        out = {}
        for rel in rels:
            for path, data in self.fs.items():
                if path == rel or path.startswith(rel + "/"):
                    out[path] = None if data is None else hashlib.sha256(data).hexdigest()
        return out

    def write(self, rel, data):
        if "/" in rel:
            parent = rel.rsplit("/", 1)[0]
            assert parent in self.fs and self.fs[parent] is None, "no folder " + parent
        self.fs[rel] = data + (b"!" if rel in self.corrupt else b"")
        self.log.append(("write", rel))

    def remove(self, rel):
        assert self.fs.pop(rel) is not None
        self.log.append(("remove", rel))

    def rmdir(self, rel):
        assert not any(p.startswith(rel + "/") for p in self.fs), "folder not empty"
        assert self.fs.pop(rel, "missing") is None
        self.log.append(("rmdir", rel))

    def mkdir(self, rel):
        assert rel not in self.fs
        self.fs[rel] = None
        self.log.append(("mkdir", rel))


@pytest.fixture
def built(tmp_path):
    fw = fake_firmware(tmp_path / "fw", {"__init__.py": "", "app.py": "A = 1\n",
                                         "games/__init__.py": ""})
    return flash.build(fw, tmp_path / "out", pack=True)


def contents(files):
    out = {rel: path.read_bytes() for rel, path in files.items()}
    out.update({"refbox": None, "refbox/games": None})
    return out


def test_flash_onto_an_old_board_copies_removes_and_verifies(built):
    board = FakeBoard({"boot.py": b"keep", "refbox": None, "refbox/app.py": b"A = 0\n",
                       "refbox/__init__.mpy": built["refbox/__init__.mpy"].read_bytes()})
    summary = flash.flash(board, built, log=lambda line: None)
    assert str(summary) == "copied 4, unchanged 1, removed 1"  # the pack is one of the copies
    assert board.fs == dict(contents(built), **{"boot.py": b"keep"})
    assert board.log[0] == ("remove", "refbox/app.py")
    assert board.log[-1] == ("write", "main.py")


def test_flash_twice_copies_nothing_the_second_time(built):
    board = FakeBoard()
    flash.flash(board, built, log=lambda line: None)
    board.log.clear()
    summary = flash.flash(board, built, log=lambda line: None)
    assert str(summary) == "copied 0, unchanged 5, removed 0"
    assert board.log == []


def test_flash_reports_a_copy_that_does_not_verify(built):
    board = FakeBoard(corrupt={"refbox/app.mpy"})
    with pytest.raises(FlashError, match=r"verification failed for refbox/app\.mpy"):
        flash.flash(board, built, log=lambda line: None)


def test_mpy_version_mismatch_is_one_line_naming_the_micropython_to_install():
    old = flash.BoardInfo(mpy=0x0005, version="1.18.0", machine="Pico")
    with pytest.raises(FlashError) as err:
        flash.check_mpy(old, 6, "v1.28.0")
    assert "\n" not in str(err.value)
    assert "MicroPython 1.18.0 (.mpy v5)" in str(err.value)
    assert "install MicroPython v1.28.0" in str(err.value)
    none = flash.BoardInfo(mpy=None, version="1.28.0", machine="Pico")
    with pytest.raises(FlashError, match="cannot load .mpy files"):
        flash.check_mpy(none, 6)
    flash.check_mpy(flash.BoardInfo(mpy=0x0306 | (2 << 10), version="1.28.0", machine="Pico"), 6)


def test_parse_scan_reads_the_board_script_output():
    text = "D refbox\r\nF %s refbox/a b.mpy\r\nF ? main.py\r\n" % h("x")
    assert flash.parse_scan(text) == {"refbox": None, "refbox/a b.mpy": h("x"), "main.py": "?"}


# ------------------------------------------------------------------------------------ failures
def run_cli(*args):
    return subprocess.run([str(TABLEBUZZ), *args], capture_output=True, text=True, timeout=120,
                          cwd=REPO)


def assert_one_line_error(result):
    assert result.returncode != 0
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("tablebuzz: ")
    return lines[0]


def test_no_board_on_the_port_is_one_clear_line():
    line = assert_one_line_error(run_cli("flash", "--port", "/dev/ttyNOPE"))
    assert "no MicroPython board found on /dev/ttyNOPE" in line
    assert "docs/flashing.md" in line


def test_busy_port_is_one_clear_line():
    master, slave = os.openpty()
    try:
        name = os.ttyname(slave)
        with serial.Serial(name, exclusive=True):  # someone else holds the port
            line = assert_one_line_error(run_cli("flash", "--port", name))
        assert "busy" in line
    finally:
        os.close(master)
        os.close(slave)


def test_dry_run_needs_no_board():
    result = run_cli("flash", "--dry-run", "--port", "/dev/ttyNOPE")
    assert result.returncode == 0, result.stderr
    assert "refbox/app.mpy" in result.stdout and "main.py" in result.stdout
    assert result.stderr == ""
    assert "refbox.pack" not in result.stdout  # make flash leaves the pack out (docs/flashing.md)
    packed = run_cli("flash", "--dry-run", "--pack", "--port", "/dev/ttyNOPE")
    assert packed.returncode == 0, packed.stderr
    assert "refbox.pack" in packed.stdout


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch, capsys):
    def interrupted(port, dry_run=False):
        raise KeyboardInterrupt

    monkeypatch.setattr(flash, "run", interrupted)
    assert flash.cmd_flash(SimpleNamespace(port=None, dry_run=False)) == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "interrupted" in err


# --------------------------------------------------------------------- end to end, unix port
@contextlib.contextmanager
def unix_port_board(tmp_path):
    """(Board, folder): the MicroPython unix port on a pseudo-terminal, as a board whose
    filesystem root is `folder`; mpremote opens the terminal's /dev/pts/N like a USB port.

    The interpreter gets the *master* side as stdin/stdout and mpremote the slave path, so
    what one writes the other reads. A watchdog kills the interpreter after 30 s so a protocol
    stall fails the test instead of hanging it (the parent closes its master copy for that).
    """
    folder = tmp_path / "board"
    folder.mkdir(parents=True)
    master, slave = os.openpty()
    name = os.ttyname(slave)
    proc = subprocess.Popen([str(MICROPYTHON)], stdin=master, stdout=master, stderr=master,
                            cwd=folder, close_fds=True)
    os.close(master)
    watchdog = threading.Timer(30, proc.kill)
    watchdog.start()
    # The unix port ends its process on a soft reset, so no reset on entry here (see report).
    board = flash.Board.connect(name, soft_reset=False, root=str(folder))
    try:
        yield board, folder
    finally:
        board.close()
        watchdog.cancel()
        proc.kill()
        proc.wait()
        os.close(slave)


@pytest.mark.micropython
def test_flash_into_the_unix_port(tmp_path):
    """Flash into the real unix port. The pty stand-in for a USB port very rarely loses a read
    (seen once in ~20 suite runs: "device reports readiness to read but returned no data"), so a
    lost link gets one fresh board; any other failure, or a second lost link, fails the test."""
    if not MICROPYTHON.exists():
        pytest.skip("no MicroPython unix port in this environment")
    for attempt in (1, 2):
        try:
            with unix_port_board(tmp_path / ("try%d" % attempt)) as (board, folder):
                _flash_scenario(board, folder, tmp_path / ("build%d" % attempt))
            return
        except flash.FlashError as e:
            if attempt == 2 or "lost the board" not in str(e):
                raise


def _flash_scenario(board, folder, build_dir):
    (folder / "refbox").mkdir()
    (folder / "refbox" / "protocol.py").write_text("SHADOW = True\n")  # stale, would shadow
    (folder / "refbox" / "old").mkdir()
    (folder / "refbox" / "old" / "x.mpy").write_bytes(b"M\x06\x00\x1f")
    (folder / "boot.py").write_text("# not ours\n")

    info = board.info()
    _, major = flash.mpy_cross_version()
    flash.check_mpy(info, major)
    assert info.arch == "x64"  # the unix port loads native code for this machine's CPU
    files = flash.build(out=build_dir, arch=info.arch)
    summary = flash.flash(board, files, log=lambda line: None)
    # removed: the stale protocol.py, old/x.mpy and the old/ folder
    assert (summary.copied, summary.unchanged, summary.removed) == (len(files), 0, 3)

    on_board = {p.relative_to(folder).as_posix(): p for p in folder.rglob("*") if p.is_file()}
    assert sorted(on_board) == sorted(list(files) + ["boot.py"])
    for rel, local in files.items():
        assert flash.sha256_hex(on_board[rel]) == flash.sha256_hex(local), rel

    # The copied .mpy files load on real MicroPython and no stale .py shadows them.
    board.transport.exec("import sys\nsys.path.insert(0, %r)" % str(folder))
    assert board.transport.eval("'SHADOW' in dir(__import__('refbox.protocol').protocol)") is False
    assert board.transport.eval("__import__('refbox.protocol').protocol.MAX_LINE") == 512
    # a native module (machine code for this CPU) loads and runs too
    assert "refbox/ticks.py" in flash.NATIVE
    wrap = "__import__('refbox.ticks').ticks.ticks_diff(3, (1 << 30) - 2)"
    assert board.transport.eval(wrap) == 5

    again = flash.flash(board, files, log=lambda line: None)
    assert (again.copied, again.unchanged, again.removed) == (0, len(files), 0)
