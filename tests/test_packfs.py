"""refbox.packfs: the firmware's .mpy files served from the one pack `make flash` builds
(tablebuzz.link.flash.write_pack), on CPython (the filesystem object itself) and mounted on the
real MicroPython unix port, where `import` reads the modules through it."""

import errno
import json
import subprocess

import pytest
from refbox import packfs
from refbox.packfs import PackError, PackFS
from tablebuzz.link import flash
from tablebuzz.sim.ports import micropython_binary


@pytest.fixture
def built(tmp_path):
    """The real firmware built as `make flash` builds it (bytecode), with its pack."""
    return flash.build(out=tmp_path / "mpy", pack=True)


def test_build_writes_every_refbox_mpy_into_the_pack(built):
    pack = built[flash.PACK]
    data = pack.read_bytes()
    head, _, body = data.partition(b"\n")
    index = json.loads(head)
    assert index["v"] == packfs.VERSION == flash.PACK_VERSION
    mpys = sorted(p[len("refbox/") :] for p in built if p.endswith(".mpy"))
    assert flash.PACK == "refbox.pack" and built[flash.PACK].parent == built["main.py"].parent
    assert sorted(index["files"]) == mpys
    for name, (offset, size) in index["files"].items():
        assert body[offset : offset + size] == built["refbox/" + name].read_bytes(), name
    assert len(body) == sum(size for _, size in index["files"].values())
    assert flash.PACK == packfs.PACK


def test_stat_gives_files_and_folders_and_enoent(built):
    fs = PackFS(open, str(built[flash.PACK]))
    size = built["refbox/ticks.mpy"].stat().st_size
    assert fs.stat("/ticks.mpy")[0] == 0x8000 and fs.stat("/ticks.mpy")[6] == size
    assert fs.stat("/games")[0] == 0x4000
    assert fs.stat("/")[0] == 0x4000
    for missing in ("/ticks.py", "/ticks", "/games/nope.mpy", "/gam"):
        with pytest.raises(OSError) as e:
            fs.stat(missing)
        assert e.value.args[0] == errno.ENOENT


def test_open_gives_each_file_from_its_first_byte(built):
    fs = PackFS(open, str(built[flash.PACK]))
    for name in ("__init__.mpy", "ticks.mpy", "games/quiz.mpy", "app.mpy"):
        want = built["refbox/" + name].read_bytes()
        with fs.open("/" + name, "rb") as f:
            assert f.read(len(want)) == want, name


def test_writes_are_refused_and_change_nothing(built):
    pack = built[flash.PACK]
    before = pack.read_bytes()
    fs = PackFS(open, str(pack))
    for mode in ("wb", "ab", "r+b"):
        with pytest.raises(OSError) as e:
            fs.open("/ticks.mpy", mode)
        assert e.value.args[0] == errno.EROFS
    for call in (lambda: fs.remove("/ticks.mpy"), lambda: fs.mkdir("/x"),
                 lambda: fs.rename("/ticks.mpy", "/t.mpy"), lambda: fs.rmdir("/games")):
        with pytest.raises(OSError):
            call()
    assert pack.read_bytes() == before


def test_ilistdir_lists_a_folder_like_the_tree(built):
    fs = PackFS(open, str(built[flash.PACK]))
    top = {e[0]: e[1] for e in fs.ilistdir("/")}
    assert top["games"] == 0x4000 and top["ticks.mpy"] == 0x8000
    games = sorted(e[0] for e in fs.ilistdir("/games"))
    tree = sorted(p.split("/")[-1] for p in built if p.startswith("refbox/games/"))
    assert games == tree


@pytest.mark.parametrize(
    "damage, why",
    [
        (lambda d: d[:-1], "holds"),  # cut short (a deploy cut off)
        (lambda d: d + b"x", "holds"),
        (lambda d: b"not a pack\n" + d, "not a pack"),
        (lambda d: d.replace(b'"v":1', b'"v":9', 1), "version 9"),
    ],
)
def test_a_pack_not_whole_is_refused_with_a_reason(built, tmp_path, damage, why):
    bad = tmp_path / "bad.pack"
    bad.write_bytes(damage(built[flash.PACK].read_bytes()))
    with pytest.raises(PackError, match=why):
        PackFS(open, str(bad))


def test_mount_off_micropython_does_nothing_and_says_why():
    assert "vfs" in packfs.mount()
    packfs.unmount()  # nothing mounted: nothing to undo


# The unix port: MicroPython's own import machinery reads the modules through the mounted pack.
_IMPORT_THROUGH_PACK = """
import sys, os
from refbox import packfs
print(packfs.mount(%(pack)r, "/packtest/refbox"))
print(packfs.mount(%(pack)r, "/packtest/refbox"))
del sys.modules["refbox"], sys.modules["refbox.packfs"]
sys.path[:] = ["/packtest"]
import refbox.protocol, refbox.games.quiz
print(refbox.protocol.__file__, refbox.protocol.MAX_LINE, refbox.games.quiz.__file__)
print(sorted(os.listdir("/packtest/refbox/games"))[:2])
try:
    open("/packtest/refbox/x.mpy", "wb")
except OSError as e:
    print("write", e.args[0])
packfs.unmount()
try:
    os.stat("/packtest/refbox/ticks.mpy")
except OSError as e:
    print("unmounted", e.args[0])
"""


@pytest.mark.micropython
def test_micropython_imports_the_firmware_through_the_mounted_pack(built):
    firmware = built["main.py"].parent
    code = _IMPORT_THROUGH_PACK % {"pack": str(built[flash.PACK])}
    prelude = "import sys; sys.path[:0] = [%r]\n" % str(firmware)
    proc = subprocess.run([micropython_binary(), "-c", prelude + code], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "None"
    assert lines[1] == "mounted already"
    assert lines[2] == "/packtest/refbox/protocol.mpy 512 /packtest/refbox/games/quiz.mpy"
    assert lines[3] == "['__init__.mpy', 'base.mpy']"
    assert lines[4] == "write %d" % errno.EROFS
    assert lines[5] == "unmounted %d" % errno.ENOENT


def test_import_builtins_restores_sys_path_and_skips_what_is_missing():
    import sys

    before = list(sys.path)
    packfs.import_builtins(("json", "no_such_module_here"))
    assert sys.path == before and "json" in sys.modules


@pytest.mark.micropython
def test_import_builtins_on_micropython_takes_the_built_in_modules(tmp_path):
    """A file named like an extensible built-in on sys.path is not taken (the board's search
    for one is what import_builtins skips), and sys.path comes back as it was."""
    (tmp_path / "json.py").write_text("SHADOW = True\n")
    firmware = packfs.__file__.rsplit("/refbox/", 1)[0]
    code = (
        "import sys; sys.path[:0] = [%r, %r]\n" % (str(tmp_path), firmware)
        + "before = list(sys.path)\n"
        + "from refbox import packfs\n"
        + "packfs.import_builtins(('json', 'no_such_module_here'))\n"
        + "import json\n"
        + "print(hasattr(json, 'SHADOW'), hasattr(json, 'dumps'), sys.path == before)\n"
    )
    proc = subprocess.run([micropython_binary(), "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True", "True"]
