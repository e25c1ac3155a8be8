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
past `compact_bytes`, and after any failed or torn write.

Pure: the filesystem comes in as an object with open(name, mode), rename(a, b), remove(name) and
size(name) (OsFiles below on the board and the unix port; tablebuzz.sim.flashfs in the simulator).
"""

import json
from binascii import hexlify

from refbox.compat import sha256
from refbox.protocol import encode_value

MAGIC = "tablebuzz-journal"
VERSION = 1
PATH = "journal.tbj"
_ENOSPC = 28


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
    """encode_record(fields) for a snapshot's `fields` (Journal._save), the same bytes made
    faster: a game's options come twice in it, as the game's own and in the menu's remembered
    set-up (game, players, options), most often the same values; their JSON text is then made
    once. Encoding the options took ~11 ms of a quiz snapshot's ~35 on the emulated RP2040."""
    options = fields.get("options")
    setup = fields.get("setup")
    if not isinstance(options, dict) or not isinstance(setup, tuple) or len(setup) != 3:
        return encode_record(fields)
    if setup[2] != options:
        return encode_record(fields)
    text = encode_value(options)
    parts = []
    for key in sorted(fields):
        if key == "options":
            value = text
        elif key == "setup":
            value = "[%s,%s,%s]" % (encode_value(setup[0]), encode_value(setup[1]), text)
        else:
            value = encode_value(fields[key])
        parts.append(encode_value(key) + ":" + value)
    return _record_line("{" + ",".join(parts) + "}")


def _record_line(payload):
    payload = payload.encode()
    return ("%d %s " % (len(payload), checksum(payload))).encode() + payload + b"\n"


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
    (the menu's remembered (game, players, options), or None), `t` (µs tick of the last save).
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

    def resumable(self):
        return self.game is not None and not self.over

    def apply(self, rec):
        """Fold one record payload (a dict). Raises ValueError/KeyError/TypeError if malformed,
        and then has changed nothing: every field is read and checked before any is set (so a
        journal's records fold in place, without a copy of the state per record: ~1 ms a record
        and the log's length on the emulated RP2040)."""
        from binascii import unhexlify

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
                log = [_tuples(e) for e in rec["log"]]
                ties = rec.get("ties")
                locked = list(rec.get("locked", ()))
            over = bool(rec.get("over", game is None))
            self.game = game
            if game is not None:
                self.players = players
                self.options = options
                self.seed = seed
                self.log = log
                self.ties = ties
                self.locked = locked
            self.over = over
        else:
            keep = int(rec["keep"])
            if self.game is None or not 0 <= keep <= len(self.log):
                raise ValueError("a delta with no game to apply it to")
            add = [_tuples(e) for e in rec.get("add", ())]
            seed = unhexlify(rec["seed"]) if "seed" in rec else self.seed
            ties = rec["ties"] if "ties" in rec else self.ties
            locked = list(rec["locked"]) if "locked" in rec else self.locked
            over = bool(rec["over"]) if "over" in rec else self.over
            del self.log[keep:]
            self.log.extend(add)
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
    saved = Saved()
    if not data:
        return saved, 0, "empty"
    end = data.find(b"\n")
    if end < 0:
        # the header itself cut short, or something else altogether
        return saved, 0, "torn" if header().startswith(data) else "version"
    if data[:end] != header()[:-1]:
        return saved, 0, "version"  # another format version, or not a journal at all
    pos = end + 1
    whole = pos
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:
            break  # the last line has no newline: an append cut short
        line = data[pos:end]
        parts = line.split(b" ", 2)
        if len(parts) != 3:
            break
        length, check, body = parts  # <len> <sum> <payload> (the module docstring)
        try:
            if int(length) != len(body):
                break
            if check.decode() != checksum(body):
                break
            rec = json.loads(body.decode())
            saved.apply(rec)  # (changes nothing if it raises)
        except (ValueError, UnicodeError, KeyError, TypeError, IndexError, AttributeError):
            break  # not a whole record (or a whole one that makes no sense): stop here
        pos = end + 1
        whole = pos
    return saved, whole, "ok" if whole == len(data) else "torn"


class Journal:
    """The journal file `path` on filesystem `fs` (see the module docstring).

    `load()` reads it at boot; `sync(referee, now)` saves what changed since the last save, in one
    write burst, and must only be called at a safe moment (refbox.app.App.can_block).
    `notes` collects (code, detail) messages for the board to send as `error` events.
    """

    compact_bytes = 16384  # past this size the next save rewrites the file as one snapshot

    def __init__(self, fs, path=PATH):
        self.fs = fs
        self.path = path
        self.saved = Saved()
        self.notes = []
        self.saving = True  # False once a write failed: the game goes on unsaved
        self._failed_game = None  # the game whose save failed (saving is tried again after it)
        self._size = 0
        self._rewrite = True  # the next save writes a whole snapshot to a new file
        self._game = None  # the game object last saved, and what was saved of it
        self._revision = -1
        self._log = []  # type: list  # the log list object last saved (undo makes a new one)
        self._log_len = 0
        self._seed = b""
        self._ties = [0, 0, 0, 0]
        self._locked = []  # type: list
        self._over = True
        self._setup = None
        self.writes = 0  # write bursts made (bench/bench_journal.py)
        self.bytes_written = 0

    # ------------------------------------------------------------------ boot
    def load(self):
        """Read the journal into `saved`. Never raises: a file that cannot be read is set aside."""
        try:
            data = self._read_all()
        except (OSError, MemoryError) as e:
            aside = self.set_aside(".bad")
            detail = "journal unreadable (%s): fresh start, kept as %s"
            self.notes.append(("journal_bad", detail % (type(e).__name__, aside or "-")))
            data = b""
        saved, whole, status = read(data)
        if status == "version":
            aside = self.set_aside()
            detail = "journal from another firmware version (or no journal at all) kept as %s"
            self.notes.append(("journal_version", detail % aside))
        elif status == "torn":
            detail = "journal cut short at byte %d of %d: resumed from the last whole record"
            self.notes.append(("journal_torn", detail % (whole, len(data))))
        self.saved = saved
        self._size = whole
        self._rewrite = status != "ok"  # a torn tail is rewritten away at the first save
        return saved

    def _read_all(self):
        if self.fs.size(self.path) is None:
            return b""
        f = self.fs.open(self.path, "rb")
        try:
            return f.read()
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
        self._log = game.log if game is not None else []
        self._log_len = len(game.log) if game is not None else 0
        self._seed = referee.seed
        self._ties = list(referee.arbiter.prng.state()) if game is not None else [0, 0, 0, 0]
        self._locked = referee.arbiter.lockouts() if game is not None else []
        self._over = game is None or game.phase == "over"
        self._setup = getattr(referee, "last_setup", None)

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
        game = referee.game
        setup = getattr(referee, "last_setup", None)
        fields = {"t": now}
        if game is None:
            over = True
        else:
            over = game.phase == "over"
        rewrite = self._rewrite or self._size > self.compact_bytes
        if game is None or rewrite or game is not self._game:
            fields["game"] = None if game is None else game.name
            if game is not None:
                fields["players"] = game.players
                fields["options"] = game.options
                fields["seed"] = _hex(referee.seed)
                fields["log"] = game.log
                fields["ties"] = referee.arbiter.prng.state()
                fields["locked"] = referee.arbiter.lockouts()
            fields["over"] = over
            fields["setup"] = setup
            ok = self._write_snapshot(encode_snapshot(fields), referee)
        else:
            log = game.log  # type: ignore[union-attr]  # (not None here)
            keep = self._log_len
            old = self._log
            if log is not old or len(log) < keep:  # an undo: find what is still the same
                keep = 0
                top = min(len(old), len(log))
                while keep < top and old[keep] == log[keep]:
                    keep += 1
            fields["keep"] = keep
            if len(log) > keep:
                fields["add"] = log[keep:]
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
            ok = self._append(encode_record(fields), referee)
        if ok:
            self.adopt(referee)
        return ok

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
        self._count(record)
        return True

    def _write_snapshot(self, record, referee):
        new = self.path + ".new"
        data = header() + record
        try:
            f = self.fs.open(new, "wb")
            try:
                f.write(data)
            finally:
                f.close()
            self.fs.rename(new, self.path)
        except OSError as e:
            return self._failed(e, referee)
        self._size = len(data)
        self._rewrite = False
        self._count(data)
        return True

    def _count(self, data):
        self.writes += 1
        self.bytes_written += len(data)

    def _failed(self, e, referee):
        self.saving = False
        self._failed_game = referee.game
        self._rewrite = True
        if isinstance(e, OSError) and e.args and e.args[0] == _ENOSPC:
            why = "the filesystem is full"
        else:
            why = "a write failed (%s: %s)" % (type(e).__name__, e)
        referee.error("not_saved", why + ": the game goes on but is no longer saved")
        return False


def _hex(seed):
    return hexlify(seed).decode()
