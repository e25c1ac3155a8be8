"""The hub's picture of the event: every room's messages folded in, once each (docs/rooms.md).

`HubState.apply(topic, payload, now)` takes one MQTT message; it returns the room it changed (or
None: a duplicate, a message of no room, a message set aside). Every payload is checked first
(tablebuzz.rooms.schema: shape, types, sizes); one that fails, or one beyond the limits
(`MAX_ROOMS` rooms, `MAX_RUNS` runs a room, `MAX_GAMES` games a room), is set aside in
`problems` ({room, topic, why, at}, the latest `MAX_PROBLEMS`) and changes nothing else.
Idempotent: a message seen before (the same `run` and `seq` of a room) changes nothing and is
counted in the room's `duplicates`; a `seq` skipped (a message lost) shows in `missing` until it
arrives.

Results cannot be forged: a game's record enters the standings only once it agrees, line for
line, with the events its room sent for that game (`n` 1, 2, ... with no gap, nothing more).
A record that arrives before its events waits (`pending`); one that disagrees with them is a
conflict, named on the room (`conflicts`: {game: why}) and kept out of the standings, whatever
came first. Two messages that claim the same event of a game (the same `run` + `seq`, or the
same `game` + `n`) with different contents make the whole game a conflict.

`keep(kind, topic, payload, now)`, when set, is called with each message that changed the state
(the hub's disk store, tablebuzz.rooms.keep) and `keep_problem(problem)` with each one set
aside: folding the kept messages again, in order, gives the same state.

- `rooms()`: [room summary] for the director's page and `/rooms.json` (see `summary`);
- `standings()`: per game, one row per team (a team quiz) or player across every finished game
  of every room: wins, losses, ties, points, points per game; the quiz's powers, gets, negs;
- `export()`: every finished game's record (tablebuzz.records.store's format, with its room
  and id);
- `tournament_qbj()`: the finished quiz games as one QBJ Tournament (tablebuzz.records.qbj).

Standings come from the records alone: each record is folded by the scoreboard's own Table
(tablebuzz.views.table), so the hub computes nothing the boxes did not say.
"""

import hashlib
import json

from tablebuzz.link.connection import Item
from tablebuzz.rooms import schema
from tablebuzz.rooms.topics import parse_topic

MAX_ROOMS = 500
MAX_RUNS = 100  # runs (spool files) of one room
MAX_GAMES = 5000  # games of one room
MAX_PENDING = 4  # records of one game waiting for its events
MAX_PROBLEMS = 50


class Seen:
    """The seqs of one run received so far: all up to `low`, and those in `above`."""

    def __init__(self):
        self.low = 0
        self.above = set()

    def add(self, seq):
        """True if `seq` is new."""
        if seq <= self.low or seq in self.above:
            return False
        self.above.add(seq)
        while self.low + 1 in self.above:
            self.low += 1
            self.above.discard(self.low)
        return True

    def missing(self):
        """Seqs below the highest one received that have not come (yet)."""
        if not self.above:
            return 0
        return max(self.above) - self.low - len(self.above)


def _digest(*parts):
    return hashlib.blake2b(json.dumps(parts, ensure_ascii=False).encode(),
                           digest_size=12).digest()


class Room:
    def __init__(self, name):
        self.name = name
        self.online = None  # from `status`; None: never heard
        self.since = None  # the hub's clock (time.time()) when `online` last changed
        self.view = None
        self.view_wall = None  # the room's clock when it made the view (time.time())
        self.view_seq = 0
        self.heard = None  # the hub's clock at the last message
        self.runs = {}  # run -> Seen
        self.digests = {}  # (run, seq) -> digest of what the message said
        self.events = 0
        self.duplicates = 0
        self.games = {}  # game id -> {n: line}: the events received
        self.records = {}  # game id -> record (header, lines): agreed with its events
        self.results = {}  # game id -> folded result (see fold_record)
        self.pending = {}  # game id -> [record]: waiting for their events
        self.conflicts = {}  # game id -> why: its events disagree; out of the standings
        self.refused = {}  # game id -> why: a record of it was refused
        self.unkept = {}  # run -> the lowest seq the hub's store failed to write

    def acked(self):
        """{run: seq}: every message of each run up to seq is in the hub's store, the promise
        of the room's `ack` topic. A seq the store failed to write caps its run for the rest of
        this hub's life: the room keeps sending it, and a restarted hub stores it."""
        return {run: min(seen.low, self.unkept.get(run, seen.low + 1) - 1)
                for run, seen in self.runs.items()}

    def missing(self):
        return sum(s.missing() for s in self.runs.values())


def _record_lines(record):
    return [obj["line"] for obj in record["lines"] if isinstance(obj.get("line"), str)]


def _agrees(events, record):
    """True when the record's protocol lines are the game's events ({n: line}) 1, 2, ... and
    nothing more; False when they cannot be (an event differs, or there is one beyond them);
    None while events are missing."""
    lines = _record_lines(record)
    if any(n > len(lines) for n in events) or any(
            events.get(i + 1, line) != line for i, line in enumerate(lines)):
        return False
    return True if len(events) == len(lines) else None


class HubState:
    def __init__(self, colours):
        self.colours = colours
        self.rooms_by_name = {}
        self.problems = []  # [{room, topic, why, at}]: messages set aside (the latest 50)
        self.problems_seen = 0  # how many were ever set aside
        self.keep = None
        self.keep_problem = None

    def _problem(self, room, topic, why, now):
        problem = {"room": room, "topic": topic, "why": why, "at": now}
        self.problems = (self.problems + [problem])[-MAX_PROBLEMS:]
        self.problems_seen += 1
        if self.keep_problem is not None:
            try:
                self.keep_problem(problem)
            except OSError:  # the store's StoreError: the list above still shows it
                pass

    def _conflict(self, room, game, why, now):
        if game in room.conflicts:
            return
        room.conflicts[game] = why
        room.records.pop(game, None)
        room.results.pop(game, None)
        room.pending.pop(game, None)
        self._problem(room.name, "events", "game %s: a conflict: %s" % (game, why), now)

    def apply(self, topic_text, payload, now, checked_before=False):
        """Fold one message (see the module doc). `payload`: bytes; `now`: time.time();
        `checked_before`: read back from the hub's own store (tablebuzz.rooms.schema.check)."""
        where = parse_topic(topic_text)
        if where is None:
            return None
        name, kind = where
        try:
            msg = schema.check(name, kind, bytes(payload), checked_before)
        except schema.RefusedError as e:
            self._problem(name, kind, str(e), now)
            return None
        room = self.rooms_by_name.get(name)
        if room is None:
            if len(self.rooms_by_name) >= MAX_ROOMS:
                self._problem(name, kind, "more than %d rooms" % MAX_ROOMS, now)
                return None
            room = self.rooms_by_name[name] = Room(name)
        changed = self._fold(room, kind, msg, now)
        if changed and self.keep is not None:
            try:
                self.keep(kind, topic_text, bytes(payload), now)
            except OSError as e:  # the store's StoreError: never acknowledge what is not kept
                if "seq" in msg:
                    run, seq = msg["run"], msg["seq"]
                    room.unkept[run] = min(seq, room.unkept.get(run, seq))
                self._problem(name, kind, "not kept: %s; the room keeps it and sends it again "
                              "until a hub with a working store has it" % e, now)
        return room if changed else None

    def _fold(self, room, kind, msg, now):
        """True if the checked message `msg` changed the state."""
        room.heard = now
        if kind == "status":
            online = msg["online"]
            if online != room.online:
                room.since = now
            room.online = online
            return True
        if kind == "view":
            room.view = msg["view"]
            room.view_wall = msg.get("wall")
            room.view_seq = msg.get("seq") or 0
            return True
        run, seq, game = msg["run"], msg["seq"], msg.get("game")
        if run not in room.runs and len(room.runs) >= MAX_RUNS:
            self._problem(room.name, kind, "more than %d runs" % MAX_RUNS, now)
            return False
        if game is not None and game not in room.games and len(room.games) >= MAX_GAMES:
            self._problem(room.name, kind, "more than %d games" % MAX_GAMES, now)
            return False
        said = _digest(kind, game, msg.get("n"), msg.get("line"), msg.get("record"))
        seen = room.runs.setdefault(run, Seen())
        if not seen.add(seq):
            room.duplicates += 1
            if room.digests.get((run, seq), said) != said and game is not None:
                self._conflict(room, game, "two different messages %s #%d" % (run, seq), now)
                return True
            return False
        room.digests[(run, seq)] = said
        if kind == "events":
            room.events += 1
            n = msg.get("n")
            if game is None or n is None:
                return True
            lines = room.games.setdefault(game, {})
            if lines.get(n, msg["line"]) != msg["line"]:
                self._conflict(room, game, "two different events #%d" % n, now)
            lines[n] = msg["line"]
            self._settle(room, game, now)
            return True
        record = msg["record"]
        if game in room.conflicts:
            return True
        if game in room.records:
            if room.records[game] != record:
                self._refuse(room, game, "a record that disagrees with the room's events" if
                             _agrees(room.games.get(game, {}), record) is False else
                             "a second record, different from the one accepted", now)
            return True
        waiting = room.pending.setdefault(game, [])
        if record not in waiting:
            if len(waiting) >= MAX_PENDING:
                self._problem(room.name, kind, "game %s: more than %d records wait for its "
                              "events" % (game, MAX_PENDING), now)
                return False
            waiting.append(record)
        self._settle(room, game, now)
        return True

    def _refuse(self, room, game, why, now):
        room.refused[game] = why
        self._problem(room.name, "records", "game %s: %s" % (game, why), now)

    def _settle(self, room, game, now):
        """Each record of `game` waiting for its events: accepted when it agrees with them line
        for line, refused when it cannot (an event it does not hold, or holds otherwise), else
        left waiting for the events still to come."""
        waiting = room.pending.get(game)
        if not waiting or game in room.conflicts:
            return
        events = room.games.get(game, {})
        for record in list(waiting):
            agrees = _agrees(events, record)
            if agrees is False:
                waiting.remove(record)
                self._refuse(room, game, "a record that disagrees with the room's events", now)
            elif agrees and game not in room.records:
                waiting.remove(record)
                self._accept(room, game, record, now)
        if not waiting:
            room.pending.pop(game, None)

    def _accept(self, room, game, record, now):
        try:
            result = fold_record(record, room.name, self.colours)
        except Exception as e:  # noqa: BLE001 - a record the Table cannot fold is set aside
            result, why = None, "cannot be folded (%s: %s)" % (type(e).__name__, e)
        else:
            why = None if result is None else schema.check_result(result)
        if why is not None:
            self._refuse(room, game, "a record that cannot be read: %s" % why, now)
            return
        room.records[game] = record
        room.results[game] = result

    # ---------------------------------------------------------------- what the pages get
    def rooms(self, names=None):
        """[summary] of the rooms `names` (every room when None), by name."""
        return [safe_summary(self.rooms_by_name[n])
                for n in sorted(self.rooms_by_name if names is None else names)]

    def standings(self):
        """{game name: [row]}: each row {name, rooms, games, wins, losses, ties, points, ppg},
        and for the quiz powers, gets (correct, not powers) and negs; best first (wins, then
        points per game)."""
        table = {}
        for room in self.rooms_by_name.values():
            for result in room.results.values():
                if result is None or result["abandoned"]:
                    continue
                rows = table.setdefault(result["game"], {})
                for side in result["sides"]:
                    row = rows.setdefault(side["name"], {
                        "name": side["name"], "rooms": [], "games": 0, "wins": 0, "losses": 0,
                        "ties": 0, "points": 0})
                    if room.name not in row["rooms"]:
                        row["rooms"].append(room.name)
                    row["games"] += 1
                    row["points"] += side["score"]
                    row[side["result"]] += 1
                    for key in ("powers", "gets", "negs"):  # a quiz's sides only
                        if key in side:
                            row[key] = row.get(key, 0) + side[key]
        out = {}
        for game, rows in table.items():
            for row in rows.values():
                row["ppg"] = round(row["points"] / row["games"], 2)
            out[game] = sorted(rows.values(), key=lambda r: (-r["wins"], -r["ppg"], r["name"]))
        return out

    def export(self):
        """[{"room", "id", "header", "lines"}]: every finished game's record, by room."""
        out = []
        for name in sorted(self.rooms_by_name):
            room = self.rooms_by_name[name]
            for game, record in room.records.items():
                out.append({"room": name, "id": game, "header": record.get("header"),
                            "lines": record.get("lines")})
        return out


    def tournament_qbj(self, name="tablebuzz event"):
        """(QBJ file as a dict, [problem]): every room's finished quiz games (not abandoned) as
        Matches of one Tournament (tablebuzz.records.qbj.document). Round k holds each room's k-th
        quiz game (rooms play their rounds side by side); a Match's `location` is its room and
        `serial` its game id; ids begin `<room>_<k>_` so each is defined once in the file.
        A record that cannot be read as a quiz is named in the problems, not fatal."""
        from tablebuzz.records import qbj

        rounds = []
        problems = []
        for room_name in sorted(self.rooms_by_name):
            room = self.rooms_by_name[room_name]
            k = 0
            for game, record in room.records.items():
                result = room.results.get(game)
                if result is None or result["game"] != "quiz" or result["abandoned"]:
                    continue
                try:
                    m = qbj.from_lines(record.get("header") or {}, record.get("lines") or [],
                                       prefix="%s_%d_" % (room_name, k + 1))
                except (qbj.QbjError, KeyError, TypeError, ValueError) as e:
                    problems.append("%s %s: %s" % (room_name, game, e))
                    continue
                m["location"] = room_name
                m["serial"] = game
                if len(rounds) <= k:
                    rounds.append([])
                rounds[k].append(m)
                k += 1
        return qbj.document([m for r in rounds for m in r], name, rounds=rounds), problems


def who(names, p, room):
    name = (names or {}).get(str(p))
    return name if name else "%s P%d" % (room, p)


def fold_record(record, room, colours):
    """{game, abandoned, sides: [{name, score, place, result}]} of a finished game's record,
    folded by the scoreboard's Table; None when the record has no game over. A team quiz's
    sides are its teams (named, or "<room> team k"), otherwise the players ("<room> P3"
    without a name)."""
    from tablebuzz.views.table import Table

    table = Table(colours)
    header = record.get("header") or {}
    table.set_names(header.get("names") or {})
    for obj in record.get("lines") or []:
        if not isinstance(obj, dict):
            continue
        if isinstance(obj.get("names"), dict):
            table.set_names(obj["names"])
        elif isinstance(obj.get("line"), str):
            try:
                ev = json.loads(obj["line"])
            except ValueError:
                continue
            if isinstance(ev, dict):
                table.apply(Item("event", obj["line"], ev))
    g = table.game
    if g is None or g.get("over") is None:
        return None
    over = g["over"]
    if g["name"] == "quiz" and over.get("team_ranking"):
        sides = [{"name": r.get("name") or "%s team %d" % (room, r["team"]),
                  "score": r["score"], "place": r["place"]} for r in over["team_ranking"]]
    else:
        sides = [{"name": who(g["names"], r["player"], room), "score": r["score"],
                  "place": r["place"]} for r in over["ranking"]]
    firsts = sum(1 for s in sides if s["place"] == 1)
    for s in sides:
        s["result"] = "losses" if s["place"] != 1 else ("wins" if firsts == 1 else "ties")
    if g["name"] == "quiz":
        members = _quiz_members(record, over, sides)
        counts = quiz_tallies(record)
        for s, players in zip(sides, members, strict=True):
            for key in ("powers", "gets", "negs"):
                s[key] = sum(counts.get(p, {}).get(key, 0) for p in players)
    return {"game": g["name"], "abandoned": over["abandoned"], "sides": sides}


def quiz_tallies(record):
    """{player: {"powers", "gets", "negs"}} of a quiz record (tablebuzz.records.qbj.tallies: the
    judgements that stand after every UNDO); {} when the record cannot be read as a quiz."""
    from tablebuzz.records import qbj
    from tablebuzz.records import store as records

    try:
        return qbj.tallies(records.events_of(
            [o for o in record.get("lines") or [] if isinstance(o, dict)]))
    except qbj.QbjError:
        return {}


def _quiz_members(record, over, sides):
    """[[player]] for each side of a finished quiz (a team's members, else the player)."""
    if over.get("team_ranking"):
        from tablebuzz.records import store as records

        teams = []
        for _, ev in records.events_of(
                [o for o in record.get("lines") or [] if isinstance(o, dict)]):
            if ev.get("ev") == "game" and isinstance(ev.get("options"), dict):
                teams = ev["options"].get("teams") or teams
        return [teams[r["team"] - 1] if 0 < r["team"] <= len(teams) else []
                for r in over["team_ranking"]]
    return [[r["player"]] for r in over["ranking"]]


def summary(room):
    """What the director sees of one room: {room, online, since (the hub's time.time() when
    `online` last changed), heard (the last message), box_connected, game, title, phase,
    question, points, teams: [{name, score}], players: [{player, name, score, colour}], floor,
    race, over, armed, timers (as in the room's view: ms left when the room made it), events,
    games_finished, duplicates, missing, conflicts: [{game, why}] (games whose events disagree:
    out of the standings), refused: [{game, why}] (records refused), pending (records waiting
    for their events), view_wall, view_seq}. The view was checked (tablebuzz.rooms.schema)."""
    out = {"room": room.name, "online": room.online, "since": room.since,
           "heard": room.heard, "box_connected": None, "status": None,
           "game": None, "title": None, "phase": None, "question": None, "points": None,
           "teams": [], "players": [], "floor": None, "race": None, "over": None,
           "menu": None, "armed": False, "timers": [], "events": room.events,
           "games_finished": len(room.records),
           "duplicates": room.duplicates, "missing": room.missing(),
           "conflicts": [{"game": g, "why": w} for g, w in sorted(room.conflicts.items())],
           "refused": [{"game": g, "why": w} for g, w in sorted(room.refused.items())],
           "pending": sum(len(w) for w in room.pending.values()),
           "view_wall": room.view_wall, "view_seq": room.view_seq}
    v = room.view
    if v is None:
        return out
    source = v.get("source") or {}
    out["box_connected"] = bool(source.get("connected"))
    out["doing"] = v.get("doing")  # the board's "what is happening" (the overlay's line)
    out["status"] = source.get("status")
    if v.get("menu"):
        out["menu"] = v["menu"].get("text")
    g = v.get("game")
    if not g:
        return out
    names = g.get("names") or {}
    out.update(game=g.get("name"), title=g.get("title"), phase=g.get("phase"),
               armed=bool(g.get("armed")), timers=g.get("timers") or [])
    colours = g.get("colours") or []
    out["players"] = [{"player": p, "name": names.get(str(p)), "score": s,
                       "colour": colours[p - 1] if p <= len(colours) else None}
                      for p, s in enumerate(g.get("scores") or [], 1)]
    gv = g.get("view") or {}
    if g.get("name") == "quiz":
        out["question"] = gv.get("question")
        out["points"] = gv.get("points")
        out["teams"] = [{"team": t["team"], "name": t.get("name") or "team %d" % t["team"],
                         "score": t.get("score", 0), "players": t.get("players", [])}
                        for t in gv.get("teams") or []]
    if g.get("answering"):
        p = g["answering"]
        out["floor"] = {"player": p, "name": names.get(str(p))}
    race = g.get("race")
    if race and race.get("winner") is not None:
        out["race"] = {"winner": race["winner"], "margin_ns": race.get("margin_ns"),
                       "margin_text": race.get("margin_text"), "tie": race.get("tie")}
    if g.get("over"):
        o = g["over"]
        out["over"] = {"abandoned": o.get("abandoned"), "ranking": o.get("ranking"),
                       "team_ranking": o.get("team_ranking")}
    return out


def safe_summary(room):
    """`summary(room)`, or its counts alone with `error` should the view still hold something
    the checks let through and the summary cannot read (one room never breaks the page)."""
    try:
        return summary(room)
    except Exception as e:  # noqa: BLE001 - the last line of defence of /rooms.json
        view, room.view = room.view, None
        try:
            out = summary(room)
        finally:
            room.view = view
        out["error"] = "its view cannot be shown (%s)" % type(e).__name__
        return out
