"""QBJ: a quiz game's record as a quizbowl Match, the interchange tournament software reads.

QBJ is the JSON serialisation of the quizbowl Tournament Schema (schema.quizbowl.technology;
source: github.com/quizbowl/schema, `schema/match.graphql`, `registration.graphql`,
`tournament.graphql`, `question.graphql`, and `serialization.md` for the file: a top-level
`{"version", "objects"}`, every object with a `type`, each `id` defined once, `{"$ref": id}` for
a reference). MODAQ exports one Match a game; so does this: `match(events)` folds one record's
protocol events (docs/protocol.md) into a Match object, `document(matches)` wraps Matches in a QBJ
file (a Tournament holding them, as serialization.md requires).

What a Match holds here:
- `match_teams`: every team of the quiz (`teams` option; everyone alone: one team a player),
  its players (names from the board's `name` events, else the desk's, else "P3"), one initial
  `Lineup`, `bonus_points`, `bonus_bounceback_points`, `correct_tossups_without_bonuses`
  (overtime), and per player `tossups_heard` and `answer_counts`.
- `match_questions`: every tossup played (cancelled ones are not: the board asks the same number
  again), each buzz with its `player`, `team`, `result.value` (what the judgement scored: 15 a
  power, 10, 0, -5 a neg), `buzz_position.word_index` when the desk marked the word being read
  (a record line `{"mark": {"question", "player", "word_index"}}`), and the bonus's parts
  (`controlled_points`, `bounceback_points`).
- `tossups_read`, `overtime_tossups_read`.
- Extensions (QBJ readers ignore unknown keys; ours start with `tablebuzz_`): on a buzz the
  press stamp `tablebuzz_t_us` (µs, the board's clock), `tablebuzz_margin_ns` (the race's
  margin to the next press, ns; null alone or tied), `tablebuzz_behind_ns` (a floor passed next
  in line: how far behind the first press).

An UNDO (`undo` event) takes back the last scoring decision, so the fold keeps a snapshot before
every event that starts one (judge, dead by time or cancel, adjust, a bonus part, a bonus) and
goes back to it. Only what the board sent is used.
"""

import copy
from pathlib import Path

QBJ_VERSION = "2.1.1"  # serialization.md's version of the file format this writes
SCORING = ("judge", "adjust", "part", "bonus_scored")  # events that begin a scoring entry


class QbjError(ValueError):
    """A record that holds no quiz game."""


def _names(events, header_names):
    """({player: name}, {team: name}) from the desk's names and the board's `name` events (the
    board's win: they are what it showed)."""
    players = {int(k): v for k, v in (header_names or {}).items() if str(k).isdigit() and v}
    teams = {}
    for ev in events:
        if ev.get("ev") != "name":
            continue
        into, key = (teams, ev.get("team")) if ev.get("team") else (players, ev.get("player"))
        if ev.get("name"):
            into[key] = ev["name"]
        else:
            into.pop(key, None)
    return players, teams


class _Fold:
    """The state of the match as the events come (copied for undo)."""

    def __init__(self):
        self.questions = {}  # tossup number -> _tossup()
        self.floor = None  # the buzz being answered: dict, or None
        self.overtime_from = None  # the first overtime tossup's number
        self.played = 0  # the highest tossup number played to its end
        self.race = None  # the race being run (a dict in its tossup's "races"), or None

    def tossup(self, number):
        return self.questions.setdefault(number, {
            "buzzes": [], "bonus": None, "done": False, "races": [], "lockouts": [],
            "protests": []})


def _fold(pairs):
    """(_Fold, game event, sample_ns) after every (at, event) of a record. `sample_ns`: the
    board's tie bound from a `hello` in the events, else None."""
    state = _Fold()
    snapshots = []
    game = None
    sample_ns = None
    question = None
    for _, ev in pairs:
        kind = ev.get("ev")
        if kind == "hello":
            sample_ns = ev.get("sample_ns")
            continue
        if kind in ("game", "resume"):
            game = game or ev
            continue
        if game is None:
            continue
        if kind in SCORING or (kind == "dead" and ev.get("reason") in ("time", "cancel")):
            snapshots.append((copy.deepcopy(state), question))
        if kind == "undo":
            if snapshots:
                state, question = snapshots.pop()
            continue
        if kind == "question":
            question = ev["question"]
            tossup = state.tossup(question)
            tossup.update(buzzes=[], races=[], lockouts=[])  # a cancelled tossup asked again
            state.floor = None
            state.race = None
        elif kind == "armed" and question is not None:
            state.race = {"presses": []}
            state.tossup(question)["races"].append(state.race)
        elif kind == "press" and state.race is not None and "t_us" in ev:
            state.race["presses"].append((ev["player"], ev["t_us"], ev.get("t_ns") or 0))
        elif kind == "lockout" and question is not None:
            state.tossup(question)["lockouts"].append(
                {"station": ev.get("player"), "reason": ev.get("reason"), "ms": ev.get("ms")})
        elif kind == "protest" and ev.get("question") is not None:
            state.tossup(ev["question"])["protests"].append(
                {k: ev[k] for k in ("player", "team", "note") if ev.get(k) is not None})
        elif kind == "race" and question is not None and ev.get("winner"):
            if state.race is not None:
                state.race.update(winner=ev["winner"], margin_ns=ev.get("margin_ns"),
                                  tie=bool(ev.get("tie")), tied=list(ev.get("tied") or []))
            state.floor = {"player": ev["winner"], "tablebuzz_t_us": ev.get("t_us"),
                           "tablebuzz_margin_ns": ev.get("margin_ns")}
        elif kind == "margin" and question is not None and state.race is not None:
            # the runner-up pressed after the decision: the margin the race line could not say
            state.race["margin_ns"] = ev.get("margin_ns")
            buzzes = state.tossup(question)["buzzes"]
            held = state.floor or (buzzes[-1] if buzzes else None)
            if held is not None and held.get("player") == ev.get("winner"):
                held["tablebuzz_margin_ns"] = ev.get("margin_ns")
        elif kind == "next_in_line" and question is not None:
            state.floor = {"player": ev["player"], "tablebuzz_behind_ns": ev.get("behind_ns")}
        elif kind == "judge" and question is not None:
            buzz = dict(state.floor or {})
            buzz["player"] = ev["player"]
            buzz["value"] = ev.get("points", 0)
            buzz["power"] = bool(ev.get("power"))  # for tallies(); not a QBJ field
            tossup = state.tossup(question)
            tossup["buzzes"].append(buzz)
            state.floor = None
            if ev.get("correct"):
                tossup["done"] = True  # the tossup was read to its end; a bonus is apart
                state.played = max(state.played, question)
        elif kind == "dead" and question is not None:
            if ev.get("reason") == "cancel":
                state.questions.pop(question, None)
            else:
                state.tossup(question)["done"] = True
                state.played = max(state.played, question)
            state.floor = None
        elif kind == "bonus_scored":
            tossup = state.tossup(ev["question"])
            tossup["bonus"] = {"team": ev["team"], "parts": ev["parts"], "points": ev["points"]}
        elif kind == "game_over" and question in state.questions:
            tossup = state.questions[question]
            if tossup["buzzes"] and not tossup["done"]:
                tossup["done"] = True  # the game ended on it (a neg in sudden death)
                state.played = max(state.played, question)
        elif kind in ("overtime", "sudden_death") and state.overtime_from is None:
            state.overtime_from = state.played + 1  # sudden death alone (ACF) is overtime too
    return state, game, sample_ns


def tallies(pairs):
    """{player: {"powers", "gets", "negs"}} of one record's [(at, event)]: each judged buzz that
    stands (an UNDO takes its judgement back), a power (the judge said `power`), a get (correct,
    not a power) or a neg (wrong and scored below zero: the interrupt penalty). Raises QbjError
    when the record holds no quiz game."""
    state, game, _ = _fold(pairs)
    if game is None or game.get("game") != "quiz":
        raise QbjError("not a quiz game")
    out = {}
    for q in state.questions.values():
        for b in q["buzzes"]:
            row = out.setdefault(b["player"], {"powers": 0, "gets": 0, "negs": 0})
            if b["power"]:
                row["powers"] += 1
            elif b["value"] > 0:
                row["gets"] += 1
            elif b["value"] < 0:
                row["negs"] += 1
    return out


def _unique(names):
    """`names` with repeats told apart (" 2", " 3"...): MODAQ refuses two players of a team (or
    two teams) with one name, and YellowFruit matches players by name."""
    out = []
    for name in names:
        text, k = name, 2
        while text in out:
            text = "%s %d" % (name, k)
            k += 1
        out.append(text)
    return out


def race_record(tossup, sample_ns):
    """The `tablebuzz_race` extension of one tossup (docs/quizbowl.md "Every press on record"),
    or None when the board ran no race on it: {"tie_bound_ns" (one capture sample: presses this
    close may be a tie; absent when unknown), "races": [{"presses": [{"station", "t_us", "t_ns",
    "behind_ns"}] (every counted press, first first; behind_ns: ns behind the race's first
    press), "winner", "margin_ns" (absent: nobody else pressed), "tie", "tied"}], "lockouts":
    [{"station", "reason" ("false_start" | "wrong"), "ms" (absent: until the next tossup)}]}."""
    races = []
    for race in tossup["races"]:
        presses = sorted(race["presses"], key=lambda p: (p[1] * 1000 + p[2], p[0]))
        if not presses and "winner" not in race:
            continue
        first = presses[0][1] * 1000 + presses[0][2] if presses else 0
        entry = {"presses": [{"station": p, "t_us": us, "t_ns": ns,
                              "behind_ns": us * 1000 + ns - first} for p, us, ns in presses]}
        for key in ("winner", "margin_ns", "tie", "tied"):
            if race.get(key) is not None:
                entry[key] = race[key]
        races.append(entry)
    lockouts = [{k: v for k, v in lock.items() if v is not None} for lock in tossup["lockouts"]]
    if not races and not lockouts:
        return None
    record = {"races": races, "lockouts": lockouts}
    if sample_ns:
        record["tie_bound_ns"] = sample_ns
    return record


def without_nulls(value):
    """`value` (JSON data) with every null member and item left out: the importers crash on a
    null (YellowFruit) and the schema has no nullable field; a missing value is absent."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value if v is not None]
    return value


def match(pairs, header_names=None, marks=(), prefix="", sample_ns=None):
    """A QBJ Match (dict) from one record's [(at, event)] (records.events_of). `marks`: the
    desk's word marks [{"question", "player", "word_index"}] (the last per buzz wins; a
    `word_index` of None: the reader marked no word). `prefix` begins the ids of the Match, its
    teams and players, so that several matches share a file with each id defined once
    (serialization.md). `sample_ns`: the board's tie bound when the events hold no `hello` (a
    record keeps it in its header).

    The shape is the one YellowFruit's and MODAQ's importers take (docs/quizbowl.md): two
    teams; each Team and Player written out where it is used (the Team with its `id` and
    players in `match_teams`, a name-only copy elsewhere: both importers look players up by
    name); no nulls; every buzz with a `buzz_position` ({} when no word was marked: unknown).
    Raises QbjError when the record holds no quiz game or not exactly two teams."""
    state, game, heard_sample = _fold(pairs)
    if game is None or game.get("game") != "quiz":
        raise QbjError("not a quiz game")
    sample_ns = heard_sample or sample_ns
    events = [ev for _, ev in pairs]
    players = game.get("players") or 0
    options = game.get("options") or {}
    teams = options.get("teams") or [[p] for p in range(1, players + 1)]
    if len(teams) != 2:
        raise QbjError("a quiz of %d teams is not a QBJ Match (a Match is two teams): left out"
                       % len(teams))
    team_of = {p: t + 1 for t, members in enumerate(teams) for p in members}
    player_names, team_names = _names(events, header_names)
    word = {(m["question"], m["player"]): m.get("word_index") for m in marks}
    tname = dict(zip((1, 2), _unique([team_names.get(t) or "Team %d" % t for t in (1, 2)]),
                     strict=True))
    pname = {}
    for members in teams:
        pname.update(zip(members, _unique([player_names.get(p) or "P%d" % p for p in members]),
                         strict=True))

    def player_ref(p):
        return {"name": pname[p]}

    def team_ref(t):
        return {"name": tname[t]}

    # correct tossups and the bonus they earned count to the tossup's end: unfinished ones too
    numbers = sorted(n for n, q in state.questions.items() if q["done"] or q["buzzes"])
    match_questions = []
    counts = {}  # player -> {value: number}
    bonus_points = dict.fromkeys(range(1, len(teams) + 1), 0)
    bounce_points = dict.fromkeys(range(1, len(teams) + 1), 0)
    without_bonus = dict.fromkeys(range(1, len(teams) + 1), 0)
    for n in numbers:
        q = state.questions[n]
        buzzes = []
        for b in q["buzzes"]:
            p = b["player"]
            counts.setdefault(p, {})
            counts[p][b["value"]] = counts[p].get(b["value"], 0) + 1
            buzz = {"player": player_ref(p), "team": team_ref(team_of[p]),
                    "buzz_position": {}, "result": {"value": b["value"]}}
            if word.get((n, p)) is not None:
                buzz["buzz_position"] = {"word_index": word[(n, p)]}
            for key in ("tablebuzz_t_us", "tablebuzz_margin_ns", "tablebuzz_behind_ns"):
                if b.get(key) is not None:
                    buzz[key] = b[key]
            buzzes.append(buzz)
            if b["value"] > 0 and q["bonus"] is None:
                without_bonus[team_of[p]] += 1
        entry = {"question_number": n,
                 "tossup_question": {"question_number": n, "type": "tossup", "parts": 1},
                 "buzzes": buzzes}
        if q["bonus"] is not None:
            control = q["bonus"]["team"]
            parts = []
            for credited, points in zip(q["bonus"]["parts"], q["bonus"]["points"], strict=True):
                part = {"controlled_points": points if credited == control else 0,
                        "bounceback_points": points if credited not in (None, control) else 0}
                parts.append(part)
                if credited == control:
                    bonus_points[control] += points
                elif credited is not None:
                    bounce_points[credited] += points
            entry["bonus"] = {"question": {"question_number": n, "type": "bonus",
                                           "parts": len(parts)},
                              "parts": parts}
        race = race_record(q, sample_ns)
        if race is not None:
            entry["tablebuzz_race"] = race
        if q["protests"]:
            entry["tablebuzz_protests"] = q["protests"]
        match_questions.append(entry)
    done = [n for n in numbers if state.questions[n]["done"]]
    read = len(done)
    overtime = 0
    if state.overtime_from is not None:
        overtime = len([n for n in done if n >= state.overtime_from])
    match_teams = []
    for t, members in enumerate(teams, 1):
        team = {"id": "%steam_%d" % (prefix, t), "name": tname[t],
                "players": [{"id": "%splayer_%d" % (prefix, p), "name": pname[p]}
                            for p in members]}
        match_players = [
            {"player": player_ref(p), "tossups_heard": read,
             "answer_counts": [{"number": c, "answer_type": {"value": v}}
                               for v, c in sorted(counts.get(p, {}).items(), reverse=True)]}
            for p in members]
        match_teams.append({
            "team": team,
            "bonus_points": bonus_points[t],
            "bonus_bounceback_points": bounce_points[t],
            "correct_tossups_without_bonuses": without_bonus[t],
            "match_players": match_players,
            "lineups": [{"first_question": 1, "players": [player_ref(p) for p in members],
                         "reason": "initial"}],
        })
    result = {"type": "Match", "id": "%smatch_%s" % (prefix, str(game.get("commit", ""))[:12]),
              "tossups_read": read, "overtime_tossups_read": overtime,
              "match_teams": match_teams, "match_questions": match_questions}
    if options.get("format") not in (None, "plain"):
        result["notes"] = "format %s; recorded by tablebuzz" % options["format"]
    return without_nulls(result)


def document(matches, name="tablebuzz quiz night", rounds=None):
    """A QBJ file (dict): the Matches in one Tournament, one phase (serialization.md: exactly
    one Tournament object at the top). `rounds`: [[match]] one list a round (named 1, 2...);
    without it every match is in round 1."""
    if rounds is None:
        rounds = [matches]
    phase = {"name": "Matches", "rounds": [{"name": str(i), "matches": ms}
                                           for i, ms in enumerate(rounds, 1)]}
    tournament = {"type": "Tournament", "id": "tournament", "name": name, "phases": [phase]}
    return {"version": QBJ_VERSION, "objects": [tournament]}


def from_lines(header, lines, prefix=""):
    """The Match of a record's header (dict) and lines ([dict], records.read_record's), the
    desk's last names and its word marks included. Raises QbjError (not a quiz game)."""
    from tablebuzz.records import store as records

    if header.get("game") != "quiz":
        raise QbjError("not a quiz game")
    names = header.get("names") or {}
    for obj in lines:
        if isinstance(obj, dict) and isinstance(obj.get("names"), dict):
            names = obj["names"]
    marks = [obj["mark"] for obj in lines
             if isinstance(obj, dict) and isinstance(obj.get("mark"), dict)]
    return match(records.events_of([o for o in lines if isinstance(o, dict)]), names, marks,
                 prefix, header.get("sample_ns"))


def from_record(path, prefix=""):
    """The Match of the record file at `path` (records.read_record). Raises QbjError, OSError."""
    from tablebuzz.records import store as records

    header, lines, _ = records.read_record(path)
    try:
        return from_lines(header, lines, prefix)
    except QbjError as e:
        raise QbjError("%s: %s" % (Path(path).name, e)) from None


def night_match(folder, out):
    """Write the Match of the last two-team quiz game recorded under `folder` (by file name, the
    newest last) to the text stream `out`, as a lone Match object: the file MODAQ's "Import from
    QBJ" opens (YellowFruit takes it too). Returns (1 or 0, problems): the records passed over
    are named."""
    import json

    from tablebuzz.records import store as records

    problems = []
    for path in sorted(Path(folder).rglob("*.jsonl"), reverse=True):
        try:
            found = from_record(path)
        except (records.RecordError, QbjError, OSError) as e:
            problems.append(str(e))
            continue
        json.dump(found, out, ensure_ascii=False, indent=1)
        out.write("\n")
        return 1, problems
    return 0, problems


def night_qbj(folder, out):
    """Write one QBJ file holding a Match per quiz game recorded under `folder` (oldest first) to
    the text stream `out`. Returns (matches written, problems): other games and files that are
    not records are named, not fatal."""
    import json

    from tablebuzz.records import store as records

    matches = []
    problems = []
    paths = sorted(Path(folder).rglob("*.jsonl"))
    for i, path in enumerate(paths, 1):
        try:
            # several matches in one file: each match's ids its own (serialization.md)
            matches.append(from_record(path, "m%d_" % i if len(paths) > 1 else ""))
        except (QbjError, *records.UNREADABLE) as e:
            problems.append(str(e) if isinstance(e, QbjError) else records.unreadable(path, e))
    json.dump(document(matches), out, ensure_ascii=False, indent=1)
    out.write("\n")
    return len(matches), problems


def replay_events(doc):
    """The protocol events a QBJ file (dict: a whole file, or a lone Match) holds, for `tablebuzz
    replay` and the photo finish (tablebuzz.views.photo): per Match a `game`, then per tossup its
    `question`, each race of its `tablebuzz_race` (`armed`, every `press`, `race`), its lockouts,
    each buzz's `judge`, its protests. Returns (events, {station: name}, tie bound ns or None).
    A station is found from the Team's player ids (`..player_<station>`), as this export writes
    them. Raises QbjError when `doc` holds no Match."""
    if isinstance(doc, dict) and doc.get("type") == "Match":
        matches = [doc]
    elif isinstance(doc, dict) and isinstance(doc.get("objects"), list):
        matches = [m for obj in doc["objects"] if isinstance(obj, dict)
                   for ph in obj.get("phases") or [] for r in ph.get("rounds") or []
                   for m in r.get("matches") or [] if isinstance(m, dict)]
    else:
        matches = []
    if not matches:
        raise QbjError("no QBJ Match in it")
    events = []
    names = {}
    bound = None
    for m in matches:
        station = {}  # (team name, player name) -> station
        for mt in m.get("match_teams") or []:
            team = mt.get("team") or {}
            for p in team.get("players") or []:
                digits = str(p.get("id", "")).rsplit("_", 1)[-1]
                if digits.isdigit():
                    station[(team.get("name"), p.get("name"))] = int(digits)
                    names[int(digits)] = p.get("name")
        events.append({"ev": "game", "game": "quiz", "players": len(station), "options": {}})
        for q in m.get("match_questions") or []:
            number = q.get("question_number")
            events.append({"ev": "question", "question": number})  # its value is not in QBJ
            race = q.get("tablebuzz_race") or {}
            bound = race.get("tie_bound_ns", bound)
            for r in race.get("races") or []:
                events.append({"ev": "armed", "players": sorted(set(station.values()))})
                for p in r.get("presses") or []:
                    events.append({"ev": "press", "player": p["station"], "t_us": p["t_us"],
                                   "t_ns": p.get("t_ns", 0)})
                if r.get("winner") is not None:
                    first = next((p for p in r.get("presses") or []
                                  if p["station"] == r["winner"]), None) or {}
                    events.append({"ev": "race", "winner": r["winner"],
                                   "margin_ns": r.get("margin_ns"), "tie": bool(r.get("tie")),
                                   "tied": r.get("tied") or [], "t_us": first.get("t_us", 0),
                                   "t_ns": first.get("t_ns", 0)})
            for lock in race.get("lockouts") or []:
                events.append({"ev": "lockout", "player": lock.get("station"),
                               "reason": lock.get("reason"), "ms": lock.get("ms")})
            for b in q.get("buzzes") or []:
                who = station.get(((b.get("team") or {}).get("name"),
                                   (b.get("player") or {}).get("name")))
                value = (b.get("result") or {}).get("value", 0)
                if who is not None:
                    events.append({"ev": "judge", "player": who, "correct": value > 0,
                                   "points": value})
            for protest in q.get("tablebuzz_protests") or []:
                events.append(dict(protest, ev="protest", question=number))
    return events, names, bound
