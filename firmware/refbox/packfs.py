"""The firmware's compiled modules served from one file on the board: a read-only filesystem,
mounted over /refbox before the boot imports anything else, unmounted by main.py once the boot's
modules are in (docs/architecture.md "Memory").

Why: on the RP2040's littlefs every import looks its module up three times (`x` as a folder,
`x.py`, `x.mpy`) and opens it, and each lookup in the refbox/ folder scans that folder's
metadata log: ~2 ms a miss, ~4 ms a hit, ~10 ms an import even for an 86-byte .mpy, ~200 ms of a
power-up's ~500 ms of imports (bench/README.md, bench_boot_chip.py). Served from the pack, a
lookup is a dict lookup and a module is read from one file already found.

The pack (`tablebuzz flash --pack`: `tablebuzz.link.flash.build` with `pack`, writes it as
refbox.pack, beside the refbox/ folder of the .mpy files it holds, so the board has both and
works without it): one line of JSON, the index
{"v": 1, "files": {"ticks.mpy": [offset, bytes], "games/quiz.mpy": [...], ...}} (paths below
refbox/, offsets from the byte after that line), then the files' bytes back to back.

On anything but MicroPython with a `vfs` module (CPython, the simulator, CircuitPython) and for
a pack missing or not whole, `mount` does nothing and says why: the imports then read the tree.
"""

PACK = "refbox.pack"  # beside refbox/, not in it: the root folder's lookups are the cheap ones
MOUNT_POINT = "/refbox"
VERSION = 1
_DIR = 0x4000  # stat modes (st_mode): a folder, a regular file
_FILE = 0x8000
_ENOENT = 2
_EROFS = 30

_mounted = None  # the PackFS mounted by `mount`, until `unmount`
# the built-in modules the firmware imports on the board that MicroPython lets a file of the
# same name override ("extensible": it looks in every sys.path entry first)
BUILTINS = ("array", "binascii", "hashlib", "json", "machine", "os", "select", "time")


class PackError(Exception):
    """A pack file that cannot be served (not a pack, another version, cut short)."""


class PackFS:
    """A read-only filesystem over a pack: MicroPython's VFS protocol (`mount`, `stat`, `open`,
    `ilistdir`, ...), paths as the VFS gives them ("/ticks.mpy", "/games", "/").

    `opener(path, "rb")` opens the pack itself (the filesystem it lives on, below any mount);
    `path` names it there. Raises PackError for a pack that is not whole, OSError when it cannot
    be read. Keeps the index (~5 KB of heap for the firmware's ~35 files); each `open` opens
    the pack again (~1 ms in the root folder on the emulated chip)."""

    def __init__(self, opener, path):
        self._opener = opener
        self._path = path
        f = opener(path, "rb")
        try:
            head = f.readline()
            index = _index(head)
            if index is None:
                raise PackError("%s is not a pack (its first line is no index)" % path)
            files, version = index
            if version != VERSION:
                raise PackError("%s is pack version %r, not %d" % (path, version, VERSION))
            self._base = len(head)
            end = 0
            for where in files.values():
                end = max(end, where[0] + where[1])
            size = f.seek(0, 2)
            if size != self._base + end:
                raise PackError("%s holds %d bytes, its index %d" % (path, size, self._base + end))
        finally:
            f.close()
        self._files = files
        dirs = {""}
        for name in files:
            cut = name.rfind("/")
            while cut > 0:
                dirs.add(name[:cut])
                cut = name.rfind("/", 0, cut)
        self._dirs = dirs

    # the VFS protocol (MicroPython's extmod/vfs.c calls these by name)
    def mount(self, readonly, mkfs):
        pass

    def umount(self):
        pass

    def stat(self, path):
        """os.stat's 10-tuple: (mode, 0, 0, 0, 0, 0, size, 0, 0, 0). Raises OSError ENOENT."""
        name = path.strip("/")
        if name in self._dirs:
            return (_DIR, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        where = self._files.get(name)
        if where is None:
            raise OSError(_ENOENT)
        return (_FILE, 0, 0, 0, 0, 0, where[1], 0, 0, 0)

    def open(self, path, mode):
        """A binary stream of file `path` (mode "r" or "rb"; text is not served: the pack holds
        .mpy files). Raises OSError ENOENT, or EROFS for a mode that writes."""
        if "w" in mode or "a" in mode or "+" in mode or "x" in mode:
            raise OSError(_EROFS)
        where = self._files.get(path.strip("/"))
        if where is None:
            raise OSError(_ENOENT)
        # a handle of its own on the pack, at the file's first byte: the .mpy loader reads what
        # the file's own structure says and stops there (what follows is never read), and
        # closes it. No buffer of the file's size: short-lived buffers of a few KB each
        # fragmented the heap so that the Board's 8 KB could not be had (emulated chip)
        f = self._opener(self._path, "rb")
        f.seek(self._base + where[0])
        return f

    def ilistdir(self, path):
        """(name, type, inode, size) of each file and folder in folder `path`."""
        top = path.strip("/")
        if top not in self._dirs:
            raise OSError(_ENOENT)
        prefix = top + "/" if top else ""
        seen = []
        out = []
        for name, where in self._files.items():
            if name.startswith(prefix):
                rest = name[len(prefix) :]
                cut = rest.find("/")
                if cut < 0:
                    out.append((rest, _FILE, 0, where[1]))
                elif rest[:cut] not in seen:
                    seen.append(rest[:cut])
                    out.append((rest[:cut], _DIR, 0, 0))
        return iter(out)

    def statvfs(self, path):
        return (512, 512, 0, 0, 0, 0, 0, 0, 0, 255)

    def getcwd(self):
        return ""

    def chdir(self, path):
        self.stat(path)

    def remove(self, path):
        raise OSError(_EROFS)

    def rename(self, old, new):
        raise OSError(_EROFS)

    def mkdir(self, path):
        raise OSError(_EROFS)

    def rmdir(self, path):
        raise OSError(_EROFS)


def _index(head):
    """(files, version) from a pack's first line (bytes), or None if it is no index."""
    import json

    try:
        index = json.loads(head)
        return index["files"], index["v"]
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def mount(pack=PACK, at=MOUNT_POINT):
    """Mount the pack `pack` (a path on the root filesystem) over `at`; None when mounted, else
    why not (str: no `vfs` module here, no pack, a pack not whole). Never raises: without the
    pack the imports read the files themselves."""
    global _mounted
    try:
        import vfs
    except ImportError:
        return "no vfs module (not MicroPython)"
    if _mounted is not None:
        return "mounted already"
    root = None
    for fs, point in vfs.mount():
        if point == "/":
            root = fs
    if root is None:
        return "no filesystem on /"
    try:
        packfs = PackFS(root.open, pack)
    except (OSError, PackError, MemoryError) as e:
        return "%s: %s" % (type(e).__name__, e)
    try:
        vfs.mount(packfs, at)
    except OSError as e:
        return "cannot mount on %s: %s" % (at, e)
    _mounted = (packfs, at)
    return None


def import_builtins(names=BUILTINS):
    """Put the built-in modules `names` in sys.modules, so that importing them searches nothing.

    MicroPython imports a built-in module that a file may override (json, os, time...) only
    after searching every sys.path entry for that file, at every import of it, since a built-in
    module is never entered in sys.modules: ~4.2 ms each time on the emulated RP2040's littlefs
    ('', '.frozen', '/lib': six lookups), 0.1 ms with '.frozen' alone, nothing once in
    sys.modules (the firmware imports them ~20 times at power-up, `binascii` once per journal
    record). sys.path is restored whatever happens; a name this port lacks is skipped (the
    firmware's own import of it then says so)."""
    import sys

    path = sys.path[:]
    sys.path[:] = [".frozen"]
    try:
        for name in names:
            try:
                sys.modules[name] = __import__(name)
            except ImportError:
                pass
    finally:
        sys.path[:] = path


def unmount():
    """Undo `mount` (the REPL after Ctrl-C sees the files themselves again); nothing if none."""
    global _mounted
    if _mounted is None:
        return
    import vfs

    at = _mounted[1]
    _mounted = None
    vfs.umount(at)
