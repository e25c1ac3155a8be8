"""Records of the games played: one JSON-lines file per game, written as the game is played.

Where: `--records DIR`, else `$TABLEBUZZ_RECORDS`, else `$XDG_DATA_HOME/tablebuzz/records`
(`~/.local/share/tablebuzz/records`), one folder per day: `2026-12-01/20-31-05-quiz.jsonl`.

A file (docs/host.md "Records"): the first line is the header
`{"record": "tablebuzz-game", "version": 1, "started": "2026-12-01T20:31:05.120+01:00",
"source": "board on /dev/ttyACM0", "game": "quiz", "players": 4, "names": {"1": "Ann"},
"joined": false, "sample_ns": 56}`, then one line per protocol line as it came, with the
wall-clock time: `{"at": "...", "line": "{\"ev\":\"race\",...}"}`, the commands the host sent
(`{"at": ..., "sent": "{\"cmd\":\"arm\"}"}`), the names given (`{"at": ..., "names": {...}}`) and
the link's news (`{"at": ..., "status": "lost the board ..."}`). Each line is flushed as it is
written, so a crash or a power cut of the computer loses at most the line being written; the
file ends after the game's `game_over`. `joined` is true when the host met the game already under
way (it connected mid-game): the file then starts at the resync's `state`. Every race the game
decided by less than 10 ms is kept beside it as a picture, `20-31-05-quiz-photo-1.svg`
(tablebuzz.views.photo), written when the record closes.

`read_record(path)` reads one back (a torn last line is skipped and reported); `night_csv`
writes one row per game of a folder of records.
"""

import csv
import datetime
import hashlib
import json
import os
from pathlib import Path

RECORD_KIND = "tablebuzz-game"
SEED_PREFIX = b"tablebuzz-seed-v1:"  # refbox.prng.commitment


class RecordError(ValueError):
    """A file that is not a tablebuzz record (the message names the file and the line)."""


# what reading a record file the host did not write can raise, beyond RecordError: the readers
# (`night_csv`, tablebuzz.records.qbj.night_qbj, `tablebuzz replay`) name the file and go on
UNREADABLE = (RecordError, OSError, KeyError, IndexError, TypeError, ValueError, AttributeError,
              RecursionError)


def unreadable(path, e):
    """One line for a record file a reader skips: its name and the reason."""
    name = Path(path).name
    text = str(e)
    if isinstance(e, RecordError | OSError) and name in text:
        return text
    kind = "" if isinstance(e, RecordError) else "%s: " % type(e).__name__
    return "%s: not a record this version can read (%s%s)" % (name, kind, text[:120])


def check_header(header, name):
    """Raises RecordError unless a record's header has the shape the readers use: `names` an
    object of player number -> name (text or null), `players` an integer, `game` a text."""
    names = header.get("names")
    if names is not None and (not isinstance(names, dict) or not all(
            isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in names.items())):
        raise RecordError("%s: line 1: names is not an object of player -> name" % name)
    if header.get("players") is not None and (not isinstance(header["players"], int) or
                                              isinstance(header["players"], bool)):
        raise RecordError("%s: line 1: players is not a number" % name)
    if header.get("game") is not None and not isinstance(header["game"], str):
        raise RecordError("%s: line 1: game is not a name" % name)


def default_folder():
    """The records folder when none is given (see the module doc)."""
    env = os.environ.get("TABLEBUZZ_RECORDS")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                          "share")
    return Path(base) / "tablebuzz" / "records"


def now_text(wall=None):
    """Local wall-clock time with its UTC offset, to the ms: "2026-12-01T20:31:05.120+01:00"."""
    moment = datetime.datetime.fromtimestamp(wall, datetime.UTC) if wall else \
        datetime.datetime.now(datetime.UTC)
    return moment.astimezone().isoformat(timespec="milliseconds")


def seed_matches(seed_hex, commit):
    """True if sha256("tablebuzz-seed-v1:" + seed) is `commit` (docs/protocol.md)."""
    digest = hashlib.sha256(SEED_PREFIX + str(seed_hex).encode("ascii", "replace")).hexdigest()
    return digest == commit


class Recorder:
    """Writes the records as items come (see the module doc). `folder` is created on the first
    game. `source` names the link in the header."""

    def __init__(self, folder, source):
        self.folder = Path(folder)
        self.source = source
        self.names = {}
        self._file = None
        self.path = None
        self.paths = []  # every file written, oldest first
        self.photos = []  # the photo finishes written beside them (SVG, tablebuzz.views.photo)
        self.sample_ns = None  # the board's tie bound (hello.sample_ns), kept in each header
        self._events = []  # this game's events, for its photo finishes

    def set_names(self, names, next_game=False):
        """The players' names ({1: "Ann"}). `next_game`: they are the set-up of a game about to
        start (the desk's new game), so they go into that game's header only, never into the
        record of the game still running."""
        self.names = {str(k): v for k, v in (names or {}).items()}
        if not next_game:
            self._write({"at": now_text(), "names": self.names})

    def item(self, item):
        """Record one connection item (events, notices and status; events outside a game are
        not recorded)."""
        at = now_text(item.wall)
        if item.kind == "event":
            ev = item.event
            kind = ev.get("ev")
            if kind == "hello":
                self.sample_ns = ev.get("sample_ns")
            if self._file is not None or kind in ("game", "state", "resume"):
                self._events.append(ev)
            if kind == "game":
                self._open(ev.get("game"), ev.get("players"), joined=False)
            elif kind in ("state", "resume") and self._file is None and ev.get("phase") != "over":
                # a game met under way (not one already over: its record is closed)
                self._open(ev.get("game"), ev.get("players"), joined=True)
            elif kind == "menu" and self._file is not None:
                self._close()  # back in the menu without a game_over we saw: the game is done
                return
            self._write({"at": at, "line": item.text})
            if kind == "game_over":
                self._close()
        elif item.kind == "status":
            self._write({"at": at, "status": item.text})
        elif item.kind == "notice":
            self._write({"at": at, "notice": item.text})

    def mark(self, mark):
        """The desk's mark of the word being read at a buzz ({"question", "player",
        "word_index", "power"}): a `{"at", "mark"}` line (tablebuzz.records.qbj reads it)."""
        self._write({"at": now_text(), "mark": mark})

    def sent(self, line):
        self._write({"at": now_text(), "sent": line})

    def _open(self, game, players, joined):
        self._close()
        stamp = datetime.datetime.now()
        day = self.folder / stamp.strftime("%Y-%m-%d")
        day.mkdir(parents=True, exist_ok=True)
        base = "%s-%s" % (stamp.strftime("%H-%M-%S"), game)
        path = day / (base + ".jsonl")
        n = 2
        while path.exists():
            path = day / ("%s-%d.jsonl" % (base, n))
            n += 1
        self._file = open(path, "x", encoding="utf-8")  # noqa: SIM115 - kept open per game
        self.path = path
        self.paths.append(path)
        self._events = self._events[-1:]  # the event opening this record
        self._write({"record": RECORD_KIND, "version": 1, "started": now_text(),
                     "source": self.source, "game": game, "players": players,
                     "names": self.names, "joined": joined, "sample_ns": self.sample_ns})

    def _write(self, obj):
        if self._file is None:
            return
        self._file.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def _close(self):
        if self._file is not None:
            self._file.close()
            self._file = None
            from tablebuzz.views import photo

            names = {int(k): v for k, v in self.names.items() if str(k).isdigit()}
            stem = self.path.with_suffix("")
            self.photos += photo.write_photos(self._events, stem, self.sample_ns, names)
        self._events = []

    def close(self):
        self._close()


def read_record(path):
    """(header dict, [line dict], problems): a record read back. Lines that are not JSON (a
    torn last line, or nested too deep) are skipped and named in `problems`. Raises RecordError
    for a file that is not a record (or whose header is not shaped as `check_header` says),
    OSError when it cannot be read."""
    path = Path(path)
    header = None
    lines = []
    problems = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, text in enumerate(f, 1):
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except ValueError:
                problems.append("%s: line %d is not JSON (skipped)" % (path.name, number))
                continue
            except RecursionError:
                problems.append("%s: line %d is nested too deep (skipped)" % (path.name, number))
                continue
            if header is None:
                if not isinstance(obj, dict) or obj.get("record") != RECORD_KIND:
                    raise RecordError("%s: line 1 is not a tablebuzz game record header"
                                      % path.name)
                check_header(obj, path.name)
                header = obj
                continue
            if isinstance(obj, dict):
                lines.append(obj)
    if header is None:
        if problems:  # lines, none of them JSON: some other text file
            raise RecordError("%s is not a tablebuzz game record (no line of it is JSON)"
                              % path.name)
        raise RecordError("%s is empty" % path.name)
    return header, lines, problems


def events_of(lines):
    """[(at text, event dict)] of a record's protocol lines."""
    out = []
    for obj in lines:
        if "line" in obj:
            try:
                ev = json.loads(obj["line"])
            except ValueError:
                continue
            if isinstance(ev, dict):
                out.append((obj.get("at", ""), ev))
    return out


CSV_FIELDS = ("date", "started", "ended", "game", "players", "names", "winner", "ranking",
              "scores", "teams", "team_scores", "team_ranking", "unit", "abandoned", "seed",
              "commitment", "verified", "file")


def summary(path):
    """One CSV row (dict over CSV_FIELDS) for the record at `path`."""
    header, lines, _ = read_record(path)
    names = header.get("names") or {}
    device_names = {}  # the board's own `name` events (the quiz's act name): str(player) -> name
    team_names = {}  # str(team) -> name
    teams = []  # the quiz's `teams` option: [[1, 2], [3, 4]]
    team_scores = None
    team_ranking = None
    commit = None
    over = None
    last_at = header.get("started", "")
    scores = None
    for at, ev in events_of(lines):
        last_at = at or last_at
        kind = ev.get("ev")
        if kind in ("game", "resume") and isinstance(ev.get("options"), dict):
            teams = ev["options"].get("teams") or []
        if kind in ("score", "state") and isinstance(ev.get("teams"), list):
            team_scores = ev["teams"]
        elif kind == "team_ranking":
            team_ranking = ev.get("ranking") or []
        elif kind == "name":
            into, key = (team_names, ev.get("team")) if ev.get("team") else (
                device_names, ev.get("player"))
            if ev.get("name"):
                into[str(key)] = ev["name"]
            else:
                into.pop(str(key), None)
        if kind == "game":
            commit = ev.get("commit")
        elif kind == "reseed":
            commit = ev.get("commit")
        elif kind in ("score", "state") and isinstance(ev.get("scores"), list):
            scores = ev["scores"]
        elif kind == "game_over":
            over = ev
        if kind == "names" and isinstance(ev.get("names"), dict):
            names = ev["names"]
    for obj in lines:
        if isinstance(obj.get("names"), dict):
            names = obj["names"]
    names = dict(names, **device_names)  # the board's names win: they are the ones it showed

    def who(p):
        name = names.get(str(p))
        return "P%s %s" % (p, name) if name else "P%s" % p

    started = header.get("started", "")
    row = dict.fromkeys(CSV_FIELDS, "")
    row.update(date=started[:10], started=started[11:19], ended=last_at[11:19],
               game=header.get("game", ""), players=header.get("players", ""),
               names="; ".join("P%s %s" % kv for kv in sorted(names.items(),
                                                                key=lambda kv: int(kv[0]))),
               file=str(path))

    def team(t):
        name = team_names.get(str(t))
        return "team %s %s" % (t, name) if name else "team %s" % t

    if teams:
        row["teams"] = "; ".join("%s: %s" % (team(i + 1), ", ".join(who(p) for p in members))
                                 for i, members in enumerate(teams))
    if team_scores is not None:
        row["team_scores"] = " ".join(str(s) for s in team_scores)
    if team_ranking:
        row["team_ranking"] = "; ".join("%s. %s (%s)" % (r["place"], team(r["team"]), r["score"])
                                        for r in team_ranking)
    if over is None:
        row.update(abandoned="unfinished", scores=" ".join(str(s) for s in scores or []))
        return row
    ranking = over.get("ranking") or []
    abandoned = bool(over.get("abandoned"))
    winners = [who(r["player"]) for r in ranking if r.get("place") == 1]
    if team_ranking:  # a team game is won by a team (the device's `team_ranking`)
        winners = [team(r["team"]) for r in team_ranking if r.get("place") == 1]
    row.update(
        winner="" if abandoned else " & ".join(winners),
        ranking="; ".join("%s. %s (%s)" % (r["place"], who(r["player"]), r["score"])
                          for r in ranking),
        scores=" ".join(str(r["score"]) for r in sorted(ranking, key=lambda r: r["player"])),
        unit=over.get("unit", "points"),
        abandoned="yes" if abandoned else "no",
        seed=over.get("seed", ""),
        commitment=commit or "",
        verified=("yes" if seed_matches(over.get("seed", ""), commit) else "NO")
        if commit else "no commitment seen",
    )
    return row


def night_csv(folder, out):
    """Write one CSV row per record under `folder` (oldest first) to the text stream `out`.
    Returns (rows written, problems): a file that is not a record, or one this version cannot
    read, is named with the reason (`unreadable`) and skipped; the rest are written. Every
    text cell goes through tablebuzz.records.cells.safe_cell (a name, a game, a unit or a seed
    beginning with `=`, `+`, `-`, `@` is shown, never run by a spreadsheet)."""
    from tablebuzz.records.cells import safe_row

    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS)
    writer.writeheader()
    problems = []
    count = 0
    for path in sorted(Path(folder).rglob("*.jsonl")):
        try:
            row = summary(path)
        except UNREADABLE as e:
            problems.append(unreadable(path, e))
            continue
        writer.writerow(safe_row(row))
        count += 1
    return count, problems
