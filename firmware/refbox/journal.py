"""The power-safe journal: the game being played, kept on the board's filesystem so a power cut
loses nothing (docs/architecture.md "The journal").

A game is its log plus a seed (refbox.games.base), so the journal stores exactly that: which game,
players, options, seed, the log entries, the tie-break generator's state, and the menu's remembered
settings. Format (text, one record a line, all ASCII):

    tablebuzz-journal 1                    <- header: magic and format version
    <len> <sum> <payload>                  <- one record: payload byte length, the first 8 hex
                                              digits of SHA-256(payload), the payload (JSON)

A payload with "game" is a snapshot (the whole state); one without is a delta on the state before
it: {"keep": entries kept (fewer after an undo), "add": [entries], "seed", "ties", "locked",
"over", "setup", "t"} (only what changed, "keep" and "t" always). Each save is ONE record, appended
in one open-write-close burst: littlefs commits a file's new data only at close (or sync), so a cut
keeps the file as it was; a lesser filesystem may keep any prefix of the append, and a torn or
edited record fails its length or checksum. Reading stops at the first record that is not whole:
the last whole record wins. The file is compacted (one snapshot written to a new file, then renamed
over the old one, which littlefs and POSIX do atomically) when a game starts, when it has grown
past `compact_bytes` and past twice its last snapshot, and after any failed or torn write. It is
read a record at a time: RAM holds one record, never the file.

Pure: the filesystem comes in as an object with open(name, mode), rename(a, b), remove(name) and
size(name) (OsFiles below on the board and the unix port; tablebuzz.sim.flashfs in the simulator).
"""

import json
from binascii import hexlify, unhexlify

from refbox.compat import sha256
from refbox.protocol import encode_value

MAGIC = "tablebuzz-journal"
VERSION = 1
PATH = "journal.tbj"
_ENOSPC = 28
_LET_GO = object()  # Journal._game once the referee let its game go: not any game, nor None

try:  # MicroPython's json parses any buffer: the payload where it lies in its record's line
    json.loads(memoryview(b"0"))  # type: ignore[type-var]  # (the stubs say str or bytes)
    _loads = json.loads
except TypeError:  # CPython's takes bytes or str: a copy of the payload (RAM is no issue there)

    def _loads(payload):
        return json.loads(bytes(payload))


class OsFiles:
    """The board's own filesystem (littlefs on rp2; the unix port's VFS), files under `root`."""

    def __init__(self, root=""):
        import os

        self._os = os
        self.root = root

    def open(self, name, mode):
        return open(self.root + name, mode)

    def rename(self, old, new):
        self._os.rename(self.root + old, self.root + new)

    def remove(self, name):
        self._os.remove(self.root + name)

    def size(self, name):
        """Bytes in file `name`, or None if there is none."""
        try:
            return self._os.stat(self.root + name)[6]
        except OSError:
            return None


def checksum(payload):
    """The record checksum: the first 8 hex digits of SHA-256 of `payload` (bytes)."""
    return hexlify(sha256(payload).digest()[:4]).decode()


def encode_record(fields):
    """One record line (bytes, newline included) for dict `fields`."""
    return _record_line(encode_value(fields))


def encode_snapshot(fields):
    """encode_record(fields) for a snapshot's `fields` (Journal._save): the same bytes, from
    `snapshot_pieces`."""
    payload = "".join(list(snapshot_pieces(fields))).encode()
    return ("%d %s " % (len(payload), checksum(payload))).encode() + payload + b"\n"


# the fields of a snapshot whose value comes an item at a time (the log, the checkpoints, the
# state point)
_LONG = ("log", "base", "next_base", "add", "pend", "now")
_NESTED = ("next_base", "pend", "now")  # [position, decisions, state]: the state in pieces too
PIECE = 96  # characters: a snapshot is made and written in pieces of about this many (Journal)
# log entries at most in a snapshot made once, as one str (a game's start, ~0.5 KB): a longer
# one is made twice, summed then written, a piece at a time, never whole (Journal._write_snapshot)
SHORT_LOG = 8


def snapshot_pieces(fields, log_len=None):
    """The payload of a snapshot's record (encode_value(fields): its JSON text, all ASCII), a
    str piece at a time (a generator), none much longer than PIECE characters but a single log
    entry or state attribute: the snapshot is never one block of the heap, nor all in RAM.
    On the chip a quiz's snapshot (~7 KB) was made as one str, its bytes and its line: after 50
    questions the heap, ~40 KB free, had no such block left in one piece (MemoryError: issue
    38). A game's options come twice in it, as the game's own and in the menu's remembered
    set-up (game, players, options), most often the same values: snapshot_fields gives both
    as the game's refbox.protocol.Encoded, their JSON text made once for the game (encoding
    them took ~11 ms of a quiz snapshot's ~35 on the emulated RP2040).
    `log_len`: the log's first entries only (a compaction's snapshot of a log that has grown
    since: Journal.work), all of them when None."""
    first = True
    yield "{"
    for key in sorted(fields):
        value = fields[key]
        yield ("" if first else ",") + encode_value(key) + ":"
        first = False
        if key in _LONG and isinstance(value, (list, tuple)):
            count = log_len if key == "log" else None
            yield from _pieces(value, key in _NESTED, count)
        else:
            yield encode_value(value)
    yield "}"


def _pieces(items, nested, count=None):
    """The JSON of list `items` (its first `count` when not None) in pieces, a few items at a
    time (the last item, when `nested`, a list again: a pending checkpoint's state)."""
    line = "["
    count = len(items) if count is None else count
    last = count - 1
    for i in range(count):
        if i:
            line += ","
        item = items[i]
        if nested and i == last and isinstance(item, list):
            yield line
            line = ""
            yield from _pieces(item, False)
        else:
            line += encode_value(item)
        if len(line) >= PIECE:
            yield line
            line = ""
    yield line + "]"


def _record_line(payload):
    payload = payload.encode()
    return ("%d %s " % (len(payload), checksum(payload))).encode() + payload + b"\n"


def _short_record(fields):
    """encode_record(fields) for a short snapshot (SHORT_LOG log entries at most and no
    checkpoint: a game's start, a few hundred bytes), made once as one str; None for a longer
    one, or when the heap has no block of its size in one piece (stock MicroPython's heap after
    a night of games, emulated RP2040): the caller then makes it in pieces, the same bytes."""
    if len(fields.get("log") or ()) > SHORT_LOG or "base" in fields:
        return None
    try:
        return encode_record(fields)
    except MemoryError:
        return None


def header():
    return ("%s %d\n" % (MAGIC, VERSION)).encode()


def _tuples(value):
    """JSON lists back into the tuples log entries are made of (a flat list in one C call)."""
    if isinstance(value, list):
        for v in value:
            if isinstance(v, list):
                return tuple([_tuples(v) for v in value])
        return tuple(value)
    return value


class Saved:
    """What a journal holds once folded: the last game (or none) and the menu's settings.

    `game`, `players`, `options`, `seed` (16 bytes), `log` (entry tuples), `ties` (the arbiter
    PRNG's four words, or None), `locked` (the arbiter's question and lockouts, as
    Arbiter.lockouts gives them), `over` (finished or abandoned: nothing to resume), `setup`
    (the menu's remembered (game, players, options), or None), `t` (µs tick of the last save),
    and the game's checkpoints (refbox.games.base.Game): `base` (the state `log` continues
    from, or None), `base_len` (entries folded into it), `next_base` ((position in log, decisions
    before it, state), or None); `now`, a state point ((position in log, decisions before it,
    state): the game's state after log[:position], which a compaction's snapshot carries), or
    None once an undo cut the log under it: a resume restores the latest of `now` and
    `next_base` and folds only the entries after it (Game.resume); `deltas`, the records folded
    since the last snapshot.
    """

    def __init__(self):
        self.game = None
        self.players = 0
        self.options = {}
        self.seed = b""
        self.log = []
        self.ties = None
        self.locked = []
        self.over = True
        self.setup = None
        self.t = 0
        self.base = None
        self.base_len = 0
        self.next_base = None
        self.now = None
        self.deltas = 0

    def resumable(self):
        return self.game is not None and not self.over

    def apply(self, rec):
        """Fold one record payload (a dict). Raises ValueError/KeyError/TypeError if malformed,
        and then has changed nothing: every field is read and checked before any is set (so a
        journal's records fold in place, without a copy of the state per record: ~1 ms a record
        and the log's length on the emulated RP2040)."""
        setup = self.setup
        if "setup" in rec:
            s = rec["setup"]
            if s is None:
                setup = None
            else:
                game, players, options = s  # Journal.setup: (game, players, options)
                setup = (game, int(players), dict(options))
        t = int(rec["t"])
        if "game" in rec:
            game = rec["game"]
            if game is not None:
                players = int(rec["players"])
                options = dict(rec["options"])
                seed = unhexlify(rec["seed"])
                log = rec["log"]
                if not isinstance(log, list):
                    raise TypeError("a snapshot's log is a list")
                for i in range(len(log)):  # in place: no second list of the log (RAM at boot)
                    log[i] = _tuples(log[i])
                ties = rec.get("ties")
                locked = list(rec.get("locked", ()))
                base = rec.get("base")
                base_len = int(rec.get("base_len", 0))
                pending = _pending(rec.get("next_base"), len(log))
                now = _pending(rec.get("now"), len(log))
                if base is not None and not isinstance(base, list):
                    raise TypeError("a checkpoint is a list")
            over = bool(rec.get("over", game is None))
            self.game = game
            if game is not None:
                self.players = players
                self.options = options
                self.seed = seed
                self.log = log
                self.ties = ties
                self.locked = locked
                self.base = base
                self.base_len = base_len
                self.next_base = pending
                self.now = now
            self.over = over
            self.deltas = 0
        else:
            keep = int(rec["keep"])
            if self.game is None:
                raise ValueError("a delta with no game to apply it to")
            # the checkpoint moved (Game._checkpoint): the pending one is the base now, the
            # log before it dropped; then "keep" and "add" are on the log that remains
            rebase = int(rec["rebase"]) if "rebase" in rec else None
            pending = self.next_base
            base = self.base
            now = self.now
            shift = 0
            if rebase is not None:
                if pending is None or pending[0] != rebase:
                    raise ValueError("a checkpoint moved to where none was pending")
                shift = rebase
                base = pending[2]
                pending = None
            if "pend" in rec:
                pending = None  # replaced, or taken back by an undo: set below
            if not 0 <= keep <= len(self.log) - shift:
                raise ValueError("a delta keeps more than the log holds")
            if pending is not None and keep < pending[0]:
                raise ValueError("a delta under the pending checkpoint")
            add = [_tuples(e) for e in rec.get("add", ())]
            if "pend" in rec and rec["pend"] is not None:
                pending = _pending(rec["pend"], keep + len(add))
            if now is not None and (now[0] < shift or keep < now[0] - shift):
                now = None  # behind the new base, or an undo took back entries under it
            elif now is not None and shift:
                moved = self.next_base[1] if self.next_base is not None else 0  # (rebase: set)
                now = (now[0] - shift, now[1] - moved, now[2])  # (as shifted)
            seed = unhexlify(rec["seed"]) if "seed" in rec else self.seed
            ties = rec["ties"] if "ties" in rec else self.ties
            locked = list(rec["locked"]) if "locked" in rec else self.locked
            over = bool(rec["over"]) if "over" in rec else self.over
            if rebase is not None:
                del self.log[:rebase]
                self.base = base
                self.base_len += rebase
            del self.log[keep:]
            self.log.extend(add)
            self.next_base = pending
            self.now = now
            self.deltas += 1
            self.seed = seed
            self.ties = ties
            self.locked = locked
            self.over = over
        self.setup = setup
        self.t = t


def read(data):
    """(Saved, whole, status) for the journal bytes `data`.

    `whole` is the number of bytes up to the end of the last whole record; `status` is "ok",
    "empty" (no journal), "torn" (bytes after the last whole record: a cut append, an edit),
    or "version" (another firmware's format: nothing read).
    """
    pos = [0]

    def next_line():  # the next line with its newline (the last one may have none), or b""
        start = pos[0]
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end + 1
        pos[0] = end
        return data[start:end]

    saved, whole, status, _ = _fold(next_line, len(data))
    return saved, whole, status


def _fold(next_line, total):
    """(Saved, whole, status, base) for the journal of `total` bytes whose lines `next_line()`
    gives one at a time (bytes, newline included, b"" at the end): `read`'s result, and `base`,
    the bytes up to the end of the last snapshot record. One record is in RAM at a time, not the
    file: a 500-entry quiz journal (~14 KB) read whole ran the board out of memory at power-up
    (MemoryError, emulated RP2040), and a board that cannot boot loses its game."""
    saved = Saved()
    if not total:
        return saved, 0, "empty", 0
    line = next_line()
    if line != header():
        torn = line[-1:] != b"\n" and header().startswith(line)
        return saved, 0, "torn" if torn else "version", 0  # (the header cut short; another format)
    whole = base = len(line)
    line = None
    while whole < total:
        length = _fold_record(saved, next_line)
        if length < 0:
            break  # not a whole record (or a whole one that makes no sense): stop here
        whole += length >> 1
        if length & 1:
            base = whole
    return saved, whole, "ok" if whole == total else "torn", base


def _fold_record(saved, next_line):
    """Read one record line with `next_line` and fold it into `saved`: (its bytes << 1) | 1 for
    a snapshot, | 0 for a delta; -1 if it is not whole or makes no sense (nothing changed). Its
    payload is summed and parsed where it lies in the line (a memoryview; CPython parses a copy),
    so RAM holds the line and what it parses to, never a second copy of a ~17 KB snapshot."""
    line = next_line()
    length = len(line)
    first = line.find(b" ")
    second = line.find(b" ", first + 1)
    if line[-1:] != b"\n" or first < 0 or second < 0:
        return -1  # <len> <sum> <payload> and its newline (the module docstring)
    body = memoryview(line)[second + 1 : -1]  # (no copy: a snapshot's line is the largest)
    try:
        if int(line[:first]) != len(body):
            return -1
        if line[first + 1 : second].decode() != checksum(body):
            return -1
        rec = _loads(body)  # type: ignore[type-var]  # (a buffer: see _loads)
        del body, line
        saved.apply(rec)  # (changes nothing if it raises)
    except (ValueError, UnicodeError, KeyError, TypeError, IndexError, AttributeError):
        return -1
    return length << 1 | ("game" in rec)


class Journal:
    """The journal file `path` on filesystem `fs` (see the module docstring).

    `load()` reads it at boot; `sync(referee, now)` saves what changed since the last save, in one
    write burst, and must only be called at a safe moment (refbox.app.App.can_block).
    `notes` collects (code, detail) messages for the board to send as `error` events.
    """

    # past this size, and past twice its last snapshot, the next save rewrites the file as one
    # snapshot: a game whose snapshot alone is over compact_bytes (a long quiz night's log) is
    # not then rewritten whole at every save
    compact_bytes = 16384
    # ...and, in a game past its first checkpoint (a long one), once this many records follow
    # its last snapshot: power-up folds each (~2.5 ms a record on the emulated RP2040) and steps
    # the entries they add after the snapshot's state point (Saved.now). A shorter game is not
    # compacted in play: a compaction's flash stalls come between decisions, at moments no one
    # chose (an erase: ~45 ms, masking every interrupt), and its whole journal folds quickly
    compact_records = 32

    def __init__(self, fs, path=PATH):
        self.fs = fs
        self.path = path
        self.saved = Saved()
        self.notes = []
        self.saving = True  # False once a write failed: the game goes on unsaved
        self._failed_game = None  # the game whose save failed (saving is tried again after it)
        self._size = 0
        self._base_bytes = 0  # bytes of the file up to the end of its last snapshot
        self._rewrite = True  # the next save writes a whole snapshot to a new file
        self._game = None  # the game object last saved, and what was saved of it
        self._revision = -1
        self._log_len = 0
        self._seed = b""
        self._ties = [0, 0, 0, 0]
        self._locked = []  # type: list
        self._over = True
        self._setup = None
        self._base = None  # the game's checkpoints last saved (Game.base, Game.next_base)
        self._base_len = 0
        self._pending = None
        self._compactor = None  # a snapshot being written in idle passes (`work`), or None
        self._compact = False  # a compaction is due: `work` begins it once the game is saved
        self._t = 0  # the tick of the last save
        self._snapped = None  # Game.base as of the file's snapshot (compacted again on a move)
        self._deltas = 0  # records after the file's last snapshot
        self.writes = 0  # write bursts made (bench/bench_journal.py)
        self.bytes_written = 0

    # ------------------------------------------------------------------ boot
    def load(self, keep_free=0):
        """Read the journal into `saved`, a record at a time (`_fold`). Never raises: a file that
        cannot be read is set aside.

        `keep_free` (bytes): a block of up to that many (at most half the free heap) is held
        while the records are read, so that the ones a resumed game keeps (thousands of small
        tuples) do not land all over the free heap: after a 50-question quiz's journal the
        Board found no 1 KB in one piece (emulated RP2040; the board stopped at the REPL at
        every power-up). When RAM runs out, the block is let go, the heap collected and the file
        read again; only then is it set aside."""
        for attempt in (0, 1):
            try:
                saved, whole, status, base, total = self._read(keep_free if attempt == 0 else 0)
                break
            except (OSError, MemoryError) as e:
                if attempt == 0 and isinstance(e, MemoryError):
                    import gc

                    gc.collect()
                    continue
                aside = self.set_aside(".bad")
                detail = "journal unreadable (%s): fresh start, kept as %s"
                self.notes.append(("journal_bad", detail % (type(e).__name__, aside or "-")))
                saved, whole, status, base, total = Saved(), 0, "empty", 0, 0
                break
        if status == "version":
            aside = self.set_aside()
            detail = "journal from another firmware version (or no journal at all) kept as %s"
            self.notes.append(("journal_version", detail % aside))
        elif status == "torn":
            detail = "journal cut short at byte %d of %d: resumed from the last whole record"
            self.notes.append(("journal_torn", detail % (whole, total)))
        self.saved = saved
        self._size = whole
        self._base_bytes = base
        self._deltas = saved.deltas
        self._rewrite = status != "ok"  # a torn tail is rewritten away at the first save
        return saved

    def _read(self, keep_free):
        """_fold of the file, with `keep_free` bytes held while it is read (`load`): (Saved,
        whole, status, base, its size). No file, no block held (and no collection for it)."""
        total = self.fs.size(self.path)
        if total is None:
            return Saved(), 0, "empty", 0, 0
        hold = _hold(keep_free)  # noqa: F841  # (let go on return: the Board and the App take it)
        f = self.fs.open(self.path, "rb")
        try:
            return _fold(_FileLines(f, total).next_line, total) + (total,)
        finally:
            f.close()

    def set_aside(self, suffix=".old"):
        """Move the journal out of the way (kept for `tablebuzz pull`, replacing an older one of
        that name); returns its new name, or None if there was no journal."""
        aside = self.path + suffix
        moved = None
        try:
            if self.fs.size(self.path) is not None:
                if self.fs.size(aside) is not None:
                    self.fs.remove(aside)
                self.fs.rename(self.path, aside)
                moved = aside
        except OSError:
            pass
        self.saved = Saved()
        self._rewrite = True
        return moved

    def adopt(self, referee):
        """After a resume: what the referee now holds is what the journal holds (no save)."""
        game = referee.game
        self._game = game
        self._revision = game.revision if game is not None else -1
        self._log_len = len(game.log) if game is not None else 0
        if game is not None:
            game.unchanged = self._log_len  # what an undo cuts from here on: Game.undo
        self._seed = referee.seed
        self._ties = list(referee.arbiter.prng.state()) if game is not None else [0, 0, 0, 0]
        self._locked = referee.arbiter.lockouts() if game is not None else []
        self._over = game is None or game.phase == "over"
        self._setup = getattr(referee, "last_setup", None)
        self._base = game.base if game is not None else None
        self._base_len = game.base_len if game is not None else 0
        self._pending = game.next_base if game is not None else None

    def let_go(self):
        """The referee lets its game go from RAM (Referee._let_go: a change of game on a heap
        that cannot hold two): drop every reference to it, so its module's code can be
        collected. The next save is a whole snapshot of whatever the referee holds then."""
        self._game = _LET_GO
        self._failed_game = _LET_GO  # (whatever the referee holds next is tried, the menu too)
        self._compactor = None
        self._compact = False
        self._base = self._pending = self._snapped = None
        self._rewrite = True

    def forget(self):
        """The game resumed from `saved` holds its log now: let the folded copy go (RAM)."""
        self.saved = Saved()

    # ------------------------------------------------------------------ saving
    def changed(self, referee):
        """True if the referee holds anything the journal has not saved. Allocates nothing."""
        game = referee.game
        if game is not self._game or getattr(referee, "last_setup", None) is not self._setup:
            return True
        if game is None:
            return False
        if game.revision != self._revision or referee.seed is not self._seed:
            return True
        if game.base is not self._base or game.next_base is not self._pending:
            return True
        if (game.phase == "over") != self._over:
            return True
        s = referee.arbiter.prng.state()
        t = self._ties
        return s[0] != t[0] or s[1] != t[1] or s[2] != t[2] or s[3] != t[3]

    def sync(self, referee, now):
        """Save what changed (one write burst at most); `now` is the µs tick. True if it wrote.
        Errors go to `referee.error`; the game is never touched."""
        if not self.saving:
            if referee.game is self._failed_game:
                return False  # one error per game: the next game tries again (a fresh snapshot)
            self.saving = True
        if not self.changed(referee):
            return False
        try:
            return self._save(referee, now)
        except Exception as e:  # noqa: BLE001 - no fault of the journal may change the game
            return self._failed(e, referee)

    def _save(self, referee, now):
        """One save: a whole snapshot for a new game or after a torn or failed write (a game's
        start: a few hundred bytes), else one delta appended. A checkpoint that moved is a delta
        too ("rebase", "pend": Saved.apply), and a journal grown long is compacted later, in
        idle passes (`work`): no decision waits for a long game's snapshot."""
        game = referee.game
        setup = getattr(referee, "last_setup", None)
        fields = {"t": now}
        over = game is None or game.phase == "over"
        snapshot = game is None or self._rewrite or game is not self._game
        rebase = None
        if not snapshot and game.base is not self._base:
            pending = self._pending
            at = game.base_len - self._base_len
            if pending is not None and game.base is pending[2] and at == pending[0]:
                rebase = at  # (the pending one became the base)
            else:
                snapshot = True  # (never in play: the file starts again from the game)
        c = self._compactor
        if c is not None and (snapshot or rebase is not None or game.unchanged < c.log_len):
            self._compactor = None  # its game's log changed under it (an undo, a checkpoint)
        if snapshot:
            self._compact = False  # (this is one)
            fields = snapshot_fields(now, referee, game, over, setup)
            if game is not None and not self._rewrite and game is not self._game:
                ok = self._append_snapshot(fields, referee)  # a new game: one record more
            else:
                ok = self._write_snapshot(fields, referee)
            if ok:
                self._snapped = None if game is None else game.base
        else:
            log = game.log
            saved = self._log_len - (rebase or 0)  # the saved log's length, once rebased
            keep = min(saved, game.unchanged)
            fields["keep"] = keep
            if rebase is not None:
                fields["rebase"] = rebase
            if len(log) > keep:
                fields["add"] = log[keep:]
            if game.next_base is not (None if rebase is not None else self._pending):
                fields["pend"] = game.next_base
            if referee.seed is not self._seed:
                fields["seed"] = _hex(referee.seed)
            ties = referee.arbiter.prng.state()
            if ties != self._ties:
                fields["ties"] = ties
            locked = referee.arbiter.lockouts()
            if locked != self._locked:
                fields["locked"] = locked
            if over != self._over:
                fields["over"] = over
            if setup is not self._setup:
                fields["setup"] = setup
            if "pend" in fields:  # a checkpoint's state: made and written in pieces too
                from refbox.compaction import append_pieces

                ok = append_pieces(self, fields, referee)
            else:
                ok = self._append(encode_record(fields), referee)
        if ok:
            self.adopt(referee)
            self._t = now
            if not snapshot and self._compactor is None and not over and self._due(game):
                self._compact = True  # (begun in an idle pass: `work`)
        return ok

    def _due(self, game):
        """True when the file should start again from a snapshot: the checkpoint moved since
        its snapshot (power-up then folds from it), `compact_records` records follow it in a
        game past its first checkpoint, or it grew past `compact_bytes` and past twice that
        snapshot."""
        size = self._size
        if game.base is not self._snapped:
            return True
        if self._deltas >= self.compact_records and (
            game.base is not None or game.next_base is not None
        ):
            return True
        return size > self.compact_bytes and size > 2 * self._base_bytes

    # ------------------------------------------------------------------ compaction
    def compacting(self):
        """True while a snapshot is due or being written in idle passes (`work`). Allocates
        nothing."""
        return self._compact or self._compactor is not None

    def work(self, referee):
        """One piece of the compaction, at a safe moment (refbox.app): refbox.compaction.work;
        first its beginning, once the journal holds all `referee` decided (its snapshot, with
        the game's state point, is of what the file holds: never of a decision not yet saved).
        Never raises."""
        game = referee.game
        if self._compactor is None and self._compact:
            if self.changed(referee):
                return  # (the save comes first)
            self._compact = False
            if game is None or game.phase == "over":
                return
            try:
                from refbox.compaction import Compactor

                fields = snapshot_fields(self._t, referee, game, False, self._setup)
                self._compactor = Compactor(fields, self._size, game, self._deltas)
            except MemoryError:  # (saved: the compaction begins after a later save)
                self._compactor = None
            return
        if self._compactor is not None:
            from refbox.compaction import work

            work(self)

    def _append(self, record, referee):
        try:
            f = self.fs.open(self.path, "ab")
            try:
                f.write(record)
            finally:
                f.close()
        except OSError as e:
            return self._failed(e, referee)
        self._size += len(record)
        self._deltas += 1
        self._count(record)
        return True

    def _append_snapshot(self, fields, referee):
        """A new game's snapshot appended to the journal as one more record (the fold starts
        again at a snapshot: Saved.apply), the file's older records then dropped in idle passes
        by a compaction (`work`), after the game's lines are out. True if written.

        Why: a new file and its rename are three littlefs commits (create, close, rename),
        3.5-7 ms of `new_game` -> `game` at 200 MHz on the emulated RP2040 and up to 12 when
        one of them compacts the directory's metadata; an append is one (1.7-3.7 ms). A cut
        before the compaction is done resumes the new game all the same (its record is whole
        in the file, after the old game's), and one inside the append before it (a torn
        record is not folded). A long start (a game resumed with its log: not a new game's
        few entries) and a heap with no block for its record in one piece go to
        _write_snapshot, in pieces."""
        record = _short_record(fields)
        if record is None:
            return self._write_snapshot(fields, referee)
        if not self._append(record, referee):
            return False
        self._base_bytes = self._size
        self._deltas = 0
        self._compact = True  # (the older records go once the game is saved: `work`)
        return True

    def _write_snapshot(self, fields, referee):
        """Write the header and one snapshot record of `fields` to a new file, and rename it
        over the journal. Its payload is made twice, a piece at a time (snapshot_pieces): once
        to sum its length and checksum, once to write it; RAM never holds the whole record
        (littlefs commits the file at close). A short one (SHORT_LOG entries at most and no
        checkpoint: a game's start) is made once, as one str (encode_record: the same bytes): a
        new quiz's snapshot took ~10 ms at 200 MHz on the emulated chip, inside `new_game`;
        in pieces after all when the heap has no block of its size in one piece."""
        new = self.path + ".new"
        record = _short_record(fields)
        whole = b""
        short = record is not None
        if short:  # a game's start (a few hundred bytes): made once, as one str
            try:
                whole = header() + record
            except MemoryError:  # (no block for both in one piece: in pieces, the same bytes)
                short = False
        if short:
            size = len(whole)
        else:
            first = header()
            head, size = record_head(fields)
            head = first + head
            size += len(first)
        try:
            f = self.fs.open(new, "wb")
            try:
                if short:
                    f.write(whole)
                else:
                    write_pieces(f, head, size, fields)
            finally:
                f.close()
            self.fs.rename(new, self.path)
        except OSError as e:
            return self._failed(e, referee)
        self._size = self._base_bytes = size
        self._deltas = 0
        self._rewrite = False
        self.writes += 1
        self.bytes_written += size
        return True

    def _count(self, data):
        self.writes += 1
        self.bytes_written += len(data)

    def _failed(self, e, referee):
        self.saving = False
        self._compactor = None
        self._compact = False
        self._failed_game = referee.game
        self._rewrite = True
        if isinstance(e, OSError) and e.args and e.args[0] == _ENOSPC:
            why = "the filesystem is full"
        else:
            why = "a write failed (%s: %s)" % (type(e).__name__, e)
        referee.error("not_saved", why + ": the game goes on but is no longer saved")
        return False


def snapshot_fields(t, referee, game, over, setup):
    """A snapshot record's fields: µs tick `t`, `game` (refbox.games.base.Game, or None: the
    menu) with its log, checkpoints and `referee`'s seed, ties and lockouts, `over` and the
    menu's `setup`."""
    fields = {"t": t, "game": None if game is None else game.name}
    if game is not None:
        fields["players"] = game.players
        fields["options"] = game.encoded_options()  # (encoded once for the game)
        fields["seed"] = _hex(referee.seed)
        fields["log"] = game.log
        fields["ties"] = list(referee.arbiter.prng.state())
        fields["locked"] = referee.arbiter.lockouts()
        if game.base is not None:
            fields["base"] = game.base
            fields["base_len"] = game.base_len
        if game.next_base is not None:
            fields["next_base"] = game.next_base
    fields["over"] = over
    if game is not None and setup is not None and setup[2] == game.options:
        setup = (setup[0], setup[1], game.encoded_options())  # (their text made once)
    fields["setup"] = setup
    return fields


def record_head(fields):
    """A record of `fields` made a piece at a time (snapshot_pieces), never whole: (its head,
    b"<length> <checksum> ", and its size in bytes, head and newline included), the payload
    summed here and made again by write_pieces."""
    digest = sha256(b"")
    length = 0
    for piece in snapshot_pieces(fields):
        length += len(piece)  # (ASCII: as many bytes as characters)
        digest.update(piece.encode())
    head = ("%d %s " % (length, hexlify(digest.digest()[:4]).decode())).encode()
    return head, len(head) + length + 1


def write_pieces(f, first, size, fields):
    """Write `first` (bytes: the record's head, a file's header before it), then the payload of
    `fields` made again a piece at a time and its newline, to file `f` through one small buffer
    (_Chunks); `size`: the bytes written in all (record_head)."""
    out = _Chunks(f, first, size)
    for piece in snapshot_pieces(fields):
        out.write(piece.encode())
    out.write(b"\n")
    out.flush()


class _Chunks:
    """Writes to file `f` gathered in one buffer, `first` in it already, of `total` bytes (all
    of them: one write, as a short snapshot always was) when that is at most `whole`, else of
    `size`: a long snapshot's many small pieces then cost a write call per `size` bytes (a
    littlefs write, a simulated flash operation) and no allocation but the buffer."""

    whole = 2048
    size = 256

    def __init__(self, f, first, total):
        self._f = f
        try:
            self._buf = bytearray(max(total if total <= self.whole else self.size, len(first)))
        except MemoryError:  # (no such block in one piece now: the small one)
            self._buf = bytearray(max(self.size, len(first)))
        self._view = memoryview(self._buf)
        self._buf[: len(first)] = first
        self._n = len(first)

    def write(self, data):
        size = len(self._buf)
        start = 0
        while start < len(data):
            take = min(len(data) - start, size - self._n)
            self._view[self._n : self._n + take] = data[start : start + take]
            self._n += take
            start += take
            if self._n == size:
                self._f.write(self._buf)
                self._n = 0

    def flush(self):
        if self._n:
            self._f.write(self._view[: self._n])
            self._n = 0


class _FileLines:
    """The lines of file `f` (`next_line`, as `_fold` reads them), read in chunks: a record's line
    is read up to its end in one call once its length prefix is known, so a line costs a read or
    two, not one per byte (MicroPython's readline on littlefs: ~7 ms a record on the emulated
    RP2040), and a snapshot's line is in RAM once, plus the read that brought it."""

    chunk = 256

    def __init__(self, f, size):
        self._f = f
        self._left = size  # bytes not read yet: an edited length prefix reads no more than them
        self._buf = b""  # type: bytes | bytearray

    def next_line(self):
        buf = self._buf
        end = buf.find(b"\n")
        while end < 0:
            want = min(self._missing(buf), max(self._left, 1))
            if want > self.chunk:
                # a record's rest (a snapshot: ~6 KB after 120 questions), read straight into
                # the line's own buffer: `buf + more` would hold the line twice at the peak,
                # and at power-up the heap has no room for that
                line = bytearray(len(buf) + want)
                line[: len(buf)] = buf
                got = self._f.readinto(memoryview(line)[len(buf) :])
                if not got:
                    self._buf = b""
                    return buf
                if got < want:
                    line = line[: len(buf) + got]  # a file cut short (a torn record)
                self._left -= got
                buf = line
                del line
            else:
                more = self._f.read(want)
                if not more:
                    self._buf = b""
                    return buf  # the last line, with no newline (or b"" at the end)
                self._left -= len(more)
                buf = buf + more
                more = None
            end = buf.find(b"\n")
        if end == len(buf) - 1:
            self._buf = b""
            return buf  # (a whole snapshot's line, read to its end: no copy of it)
        self._buf = buf[end + 1 :]
        return buf[: end + 1]

    def _missing(self, buf):
        """Bytes to read next: the rest of the record `buf` begins, when its `<len> <sum> `
        prefix says (at least a chunk), else a chunk."""
        first = buf.find(b" ")
        second = buf.find(b" ", first + 1) if first > 0 else -1
        if second > 0:
            try:
                rest = second + 1 + int(buf[:first]) + 1 - len(buf)
            except ValueError:
                return self.chunk
            if rest > self.chunk:
                return rest
        return self.chunk


def _hold(nbytes):
    """The largest bytearray of up to `nbytes` (at most half the free heap, MicroPython's
    gc.mem_free) that the heap has in one piece, halving down to 4 KB; or None (none so large,
    or CPython: no such figure, and no such limit)."""
    import gc

    if not nbytes or not hasattr(gc, "mem_free"):
        return None
    gc.collect()
    size = min(nbytes, gc.mem_free() // 2)
    while size >= 4096:
        try:
            return bytearray(size)
        except MemoryError:
            size //= 2
    return None


def _pending(value, length):
    """A snapshot's "pending" checkpoint ([position, decisions, state] or None) as the game
    keeps it, a tuple. Raises ValueError/TypeError if it is malformed."""
    if value is None:
        return None
    at, decided, state = value
    at = int(at)
    if not 0 <= at <= length or not isinstance(state, list):
        raise ValueError("a pending checkpoint outside the log")
    return (at, int(decided), state)


def _hex(seed):
    return hexlify(seed).decode()
