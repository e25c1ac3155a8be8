"""The board's flash filesystem in the simulator, with littlefs's power-cut semantics.

- A file's new data is committed only when it is closed (or flushed): until then a power cut keeps
  the file exactly as it was last committed (littlefs: "Writing to a file stages data but doesn't
  commit it to disk", littlefs issue #370; MicroPython's vfs_lfsx_file.c closes through
  lfs_file_close). Opening a new file for writing creates it, empty, at once.
- `rename` replaces its target atomically (a littlefs metadata commit; POSIX rename on the unix
  port).
- Fault injection: `cut_after = k` raises PowerCutError when operation k + 1 starts (open, write,
  close, rename, remove each count one), after which the filesystem holds what ops 1..k committed.
  `torn = n` makes an interrupted close commit only the first n bytes of its new data: the
  harsher model of an append cut at any byte (a filesystem without littlefs's guarantees, or a
  torn flash program).
- Cost: each commit masks every interrupt and stalls the CPU (XIP flash is off while it is
  written), from W25Q16JV-class figures (the Pico's flash): page program 0.4 ms typical a 256-byte
  page plus one for the metadata commit, and a 45 ms sector erase each time the bytes written
  cross a 4 KiB block. The rp2emu harness does not time flash calls, so these are the datasheet's
  typical figures, not a measurement. `masks` keeps every (start ns, end ns) for the tests.
- `capacity` (bytes, None = unlimited): a write past it raises OSError(28) (ENOSPC) as littlefs
  does when the filesystem is full.
MicroPython subset: it also runs under the unix port.
"""

_ENOSPC = 28
_ENOENT = 2


class PowerCutError(Exception):
    """The power went off during a filesystem operation (raised through the firmware)."""


class _File:
    def __init__(self, fs, name, mode):
        self.fs = fs
        self.name = name
        self.mode = mode
        self.pos = 0
        self.pending = b"" if "w" in mode else None  # None: nothing staged
        self.open = True

    def read(self, n=-1):
        data = self.fs.files[self.name]
        cpu = self.fs.cpu()
        if n is None or n < 0:
            n = len(data) - self.pos
        chunk = data[self.pos : self.pos + n]
        self.pos += len(chunk)
        if cpu is not None:
            cpu.fs_read(len(chunk))  # what the journal's load does with them (checks, JSON)
        return chunk

    def seek(self, pos):
        """Move to byte `pos` from the start (a littlefs file's seek(pos), whence 0)."""
        self.pos = pos
        return pos

    def readinto(self, buf):
        """Read up to len(buf) bytes into the writable buffer `buf`; returns how many (0 at the
        end), as a littlefs file's readinto does."""
        chunk = self.read(len(buf))
        buf[: len(chunk)] = chunk
        return len(chunk)

    def write(self, data):
        fs = self.fs
        fs._op("write", self.name)
        if self.pending is None:
            self.pending = b""
        if fs.capacity is not None and fs.used() + len(self.pending) + len(data) > fs.capacity:
            fs._done()
            raise OSError(_ENOSPC)
        self.pending += bytes(data)
        cpu = fs.cpu()
        if cpu is not None:
            cpu.fs_bytes(len(data))  # the journal's record: encoded, summed, copied
        fs._done()
        return len(data)

    def flush(self):
        self._commit("flush")

    def close(self):
        if not self.open:
            return
        try:
            self._commit("close")
        finally:
            self.open = False
            if self in self.fs.handles:
                self.fs.handles.remove(self)

    def _commit(self, kind):
        fs = self.fs
        if self.pending is None:
            return
        base = b"" if "w" in self.mode else fs.files.get(self.name, b"")
        try:
            fs._op(kind, self.name)
        except PowerCutError:
            if fs.torn is not None and self.pending:
                fs.files[self.name] = base + self.pending[: fs.torn]
            raise
        fs._stall(len(self.pending))
        if fs.history is not None:
            fs.commits.append((fs.ops, self.name, base, self.pending))
        fs.files[self.name] = base + self.pending
        fs._done()
        if "w" in self.mode:
            self.mode = "ab"  # what follows a flush appends to what was committed
        self.pending = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class FlashFS:
    page_us = 400
    erase_us = 45000
    block = 4096

    def __init__(self, capacity=None):
        self.files = {}  # name -> committed bytes
        self.capacity = capacity
        self.ops = 0
        self.cut_after = None
        self.torn = None
        self.world = None  # the simulated world, for the interrupt mask (set by the runner)
        self.handles = []
        self.masks = []
        self.trace = []  # (op number, kind, name)
        self.history = None  # a list to keep the files after every op (fault-injection tests)
        self.commits = []  # with history: (op number, name, committed before, new data)
        self.probe = None  # called at every commit (tests: no race may be open then)
        self._until = 0
        self._written = 0

    def used(self):
        total = 0
        for name in self.files:
            total += len(self.files[name])
        return total

    def cpu(self):
        """The simulator's CPU model (tablebuzz.sim.cost), or None."""
        return None if self.world is None else self.world.cpu

    def _op(self, kind, name):
        cpu = self.cpu()
        if cpu is not None:
            cpu.fs_op()
            self.world.catch_up()  # the operation starts when the loop's work has got there
        if self.cut_after is not None and self.ops >= self.cut_after:
            raise PowerCutError(kind)
        self.ops += 1
        self.trace.append((self.ops, kind, name))
        if self.history is not None and not self.history:
            self.history.append({})  # op 0: nothing yet

    def _done(self):
        """An operation completed: keep the files as they now are (with history on)."""
        if self.history is not None:
            self.history.append(dict(self.files))

    def _stall(self, nbytes):
        if self.probe is not None:
            self.probe()
        pages = (nbytes + 255) // 256 + 1
        us = pages * self.page_us
        before = self._written // self.block
        self._written += nbytes + 64  # data and the metadata commit's log entry
        us += (self._written // self.block - before) * self.erase_us
        w = self.world
        if w is None:
            return
        start = self._until if self._until > w.now else w.now
        self._until = start + us * 1000
        ns = self._until - w.now
        w.mask_interrupts(ns)
        w.gc_pause(ns)  # the CPU runs from flash: the loop waits too
        w.cpu_until = self._until
        self.masks.append((start, self._until))

    # ------------------------------------------------------------------ the interface of
    # refbox.journal.OsFiles
    def open(self, name, mode):
        if "r" in mode:
            if name not in self.files:
                raise OSError(_ENOENT)
            return _File(self, name, mode)
        self._op("open", name)
        if name not in self.files:
            self.files[name] = b""  # littlefs creates the entry at open
        f = _File(self, name, mode)
        self.handles.append(f)
        self._done()
        return f

    def rename(self, old, new):
        if old not in self.files:
            raise OSError(_ENOENT)
        self._op("rename", old)
        self._stall(0)
        self.files[new] = self.files.pop(old)
        self._done()

    def remove(self, name):
        if name not in self.files:
            raise OSError(_ENOENT)
        self._op("remove", name)
        self._stall(0)
        del self.files[name]
        self._done()

    def size(self, name):
        data = self.files.get(name)
        return None if data is None else len(data)

    # ------------------------------------------------------------------ the power switch
    def power_cut(self):
        """The power went off: what was not committed is gone (open files keep their last
        committed state)."""
        self.handles = []
        self._until = 0
        self.cut_after = None

    def snapshot(self):
        """A copy of the committed files (name -> bytes)."""
        return dict(self.files)
