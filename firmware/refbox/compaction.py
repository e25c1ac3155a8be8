"""A long game's journal compacted in idle passes: its snapshot written to a new file a piece at
a time between decisions, then put in place of the journal in one step (refbox.journal;
docs/architecture.md "The journal"). Imported only once a game needs it: at power-up its code
takes no heap (the MicroPython heap there holds the folded log).

Why: a 300-question quiz's snapshot is ~15 KB; written inside one save it held a judgement's
`score` line back ~0.5 s (the simulator's flash model: 0.4 ms a page, 45 ms a 4 KiB erase), and
a cut inside it slowed the next power-up. Here a save only ever appends one record, and a
piece costs one open-append-close of ~256 bytes (one flash page) at a safe moment.

The power-cut guarantee stays whole: until the rename the journal is the old file, every save in
it; the new file is the snapshot of one save plus the records appended after it (copied in the
same step as the rename), which folds to the same state. A cut resumes before or after a save,
never between (tests/test_checkpoints.py cuts after every filesystem operation).
"""

from binascii import hexlify

from refbox.compat import sha256
from refbox.journal import header, record_head, snapshot_pieces, write_pieces


def work(journal):
    """One piece of `journal`'s compaction (refbox.journal.Journal): sum or write up to
    Compactor.budget bytes of the snapshot to `path`.new, or, once it is whole there, copy the
    records appended since it began after it and rename it over the journal, in one step. Never
    raises: a compaction that fails is dropped (nothing was lost) and begins again after a later
    save; one whose game changed under it (an undo under its log, a checkpoint that moved) too."""
    c = journal._compactor
    if c is None:
        return
    fs = journal.fs
    new = journal.path + ".new"
    game = c.game
    if game.unchanged < c.log_len or game.base is not c.base:
        journal._compactor = None  # (the save after that change drops it too)
        return
    try:
        if c.step(fs, new):
            tail = journal._size - c.since
            copy_tail(fs, journal.path, c.since, tail, new)
            fs.rename(new, journal.path)
            journal._compactor = None
            journal._size = c.size + tail
            journal._base_bytes = c.size
            journal._snapped = c.base
            journal._deltas -= c.deltas  # (the records copied after it)
            journal.writes += 1
            journal.bytes_written += c.size + tail
    except Exception:  # noqa: BLE001 - a failed compaction loses nothing: try again later
        journal._compactor = None
        try:
            fs.remove(new)
        except Exception:  # noqa: BLE001
            pass


def append_pieces(journal, fields, referee):
    """Append the record of `fields` to `journal` made a piece at a time (snapshot_pieces:
    summed, then written through one small buffer), as a snapshot is: a checkpoint's state (~1 KB
    for a quiz) is never one block of the heap. True if written; a failure goes to
    Journal._failed."""
    head, size = record_head(fields)
    try:
        f = journal.fs.open(journal.path, "ab")
        try:
            write_pieces(f, head, size, fields)
        finally:
            f.close()
    except OSError as e:
        return journal._failed(e, referee)
    journal._size += size
    journal._deltas += 1
    journal.writes += 1
    journal.bytes_written += size
    return True


class Compactor:
    """A snapshot record of `fields` (game `game` as one save left it: the first `log_len`
    entries of its log, which later decisions only add to; an undo under them or a checkpoint
    that moves drops the compaction) written to a new file a piece at a time (Journal.work):
    first summed (its length and checksum come before it), then written,
    about `budget` bytes a call, each an open-append-close (a littlefs commit of ~1 page).
    `since`: the journal's bytes this snapshot stands for; what came after them is copied
    after it at the end. `size`: the new file's bytes once whole. `deltas`: the journal's
    records since its last snapshot when this one began (Journal._deltas).

    The snapshot also carries the game's state at its log's end (a state point, "now":
    refbox.journal.Saved), taken as it begins (Journal.work: an idle pass once the game is
    saved, not inside a save: no decision waits for it): power-up then restores it and steps
    only the entries saved after the snapshot (Game.resume)."""

    budget = 256

    def __init__(self, fields, since, game, deltas=0):
        self.fields = fields
        self.since = since
        self.game = game
        self.deltas = deltas
        self.revision = game.revision
        self.log_len = len(fields["log"])  # (the log is the game's own, not a copy)
        self.base = fields.get("base")
        self.size = 0
        self._pieces = snapshot_pieces(fields, self.log_len)
        self._digest = sha256(b"")
        self._summed = False
        self._state_point()

    def _state_point(self):
        """Add the game's state at the snapshot's log end to it ("now"), if the game is still as
        the save left it (the same revision: the state is the fold of that log); none when the
        state cannot be kept (Game.state) or no heap holds it now (power-up then steps from the
        checkpoint)."""
        game = self.game
        if game.revision != self.revision or len(game.log) != self.log_len:
            return
        try:
            self.fields["now"] = (self.log_len, game.decided, game.state())
        except (TypeError, MemoryError):
            pass

    def step(self, fs, new):
        """One piece of work on file `new` of `fs`; True once the record is whole in it."""
        n = 0
        if not self._summed:
            for piece in self._pieces:
                self.size += len(piece)  # (ASCII: as many bytes as characters)
                self._digest.update(piece.encode())
                n += len(piece)
                if n >= 4 * self.budget:  # (no flash: more a call)
                    return False
            head = header()
            head += ("%d %s " % (self.size, hexlify(self._digest.digest()[:4]).decode())).encode()
            self.size += len(head) + 1
            self._summed = True
            self._pieces = snapshot_pieces(self.fields, self.log_len)
            f = fs.open(new, "wb")
            try:
                f.write(head)
            finally:
                f.close()
            return False
        parts = []
        whole = True
        for piece in self._pieces:
            parts.append(piece)
            n += len(piece)
            if n >= self.budget:
                whole = False
                break
        if whole:
            parts.append("\n")
        f = fs.open(new, "ab")
        try:
            f.write("".join(parts).encode())
        finally:
            f.close()
        return whole


def copy_tail(fs, path, start, length, new):
    """Append bytes start..start + length of file `path` to file `new` (the records saved while
    a compaction was written: a few hundred bytes), in reads of 256 bytes."""
    if not length:
        return
    f = fs.open(path, "rb")
    try:
        f.seek(start)
        out = fs.open(new, "ab")
        try:
            while length > 0:
                chunk = f.read(min(length, 256))
                if not chunk:
                    raise OSError(5)  # (the file is shorter than its saves: never in play)
                out.write(chunk)
                length -= len(chunk)
        finally:
            out.close()
    finally:
        f.close()
