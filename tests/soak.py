"""The night soak (issue 19 item 7): whole sessions of every game under everything a room does,
and the invariants that must hold in each (test and bench helpers).

`night(seed)` makes a session from a seed (reproducible): one of the whole games that the
examples (examples/*.jsonl) and the test scripts (tests/journal_games.py) play, with, on top,
- a host polling `state` every 0.5-2 s;
- box buttons (ARM, YES, NO, UNDO, held 30-300 ms) and desk commands (`judge`, `arm`, `undo`) at
  random moments;
- power cuts (about one every 20 s of play, at least one a night; off 0.05-1.5 s; the board keeps
  its journal on the simulated flash, whose commits stall the loop);
- the host stalling (not reading for 0.1-3 s), gc pauses and masked interrupts;
- noise pulses (`glitch`) on open contacts, away from that player's presses.
`check(night, lines)` reads the device's output against the timeline and counts, per invariant,
what was checked and what failed (INVARIANTS). `replay_text(night)` is the timeline with its
set-up line: `tablebuzz sim --script FILE` replays a failing night.

The invariants are read independently of the firmware:
- `press_order`: in each boot, press lines come in stamp order;
- `press_stamps`: each press line's stamp is a press of that player in the timeline (the PIO
  path stamps within 2 µs of the contact's first edge);
- `decisions`: each race's winner is the earliest press stamp among the players the race was
  armed for and not locked out, pressed after the race opened; a tie names exactly the presses
  of that stamp; the margin is the gap to the runner-up when the runner-up is in the race line;
- `controls_lost`: every control press gets an answer (the firmware answers every control, with
  its effect or an error, at the loop pass that sees it): each press held >= 30 ms, on a powered
  board 100 ms after boot, with the host reading, is matched to a line of its own written 9 to
  600 ms after it (UNDO acts on release);
- `seen_lost`: after a cut, a game the host saw unfinished resumes (unless UNDO was held through
  the power-up: safe boot); its `state` log holds at least the entries of the last `state` the
  host saw (a `resume` that names a reopened race may have one entry fewer), and with as many
  entries, the last `score` seen before that state;
- `cut_lines`: every line is a whole JSON object, with its event's fields;
- `runs`: the simulation itself runs the night to its end (no exception);
- `same_bytes`: the MicroPython unix port writes the same lines at the same times (`run_nights`
  with "micropython" among its interpreters);
- `same_as_quiet`: the night's game with only what must change nothing (`quiet_night`: polls,
  refused lines, noise away from presses, gc pauses, masks) gives the lines of the game alone,
  the slipped lines' answers taken out: every press, race, lockout and deadline as without them.
"""

import json
import random

from helpers import timeline, timeline_records
from journal_games import GAMES as SCRIPTED
from slips import STATE
from tablebuzz.sim.timeline import read_setup

GAMES = ("quiz", "difference", "deglingo", "redblack", "diddly", "evidence")
INVARIANTS = (
    "runs", "press_order", "press_stamps", "decisions", "controls_lost", "seen_lost",
    "cut_lines", "same_bytes", "same_as_quiet",
)
MS = 1000
S = 1000000
# the fields of the events read here (docs/protocol.md): a cut line can still parse, as
# '{"ev":"press","player":' + '11500000,"t_ns":468}' does
REQUIRED = {
    "press": ("player", "t_us", "t_ns"),
    "race": ("winner", "margin_ns", "tie", "tied", "t_us", "t_ns"),
    "armed": ("players",),
    "lockout": ("player", "reason", "ms"),
    "unlock": ("player",),
    "score": ("scores", "unit"),
    "state": ("game", "players", "phase", "scores", "log"),
    "error": ("code", "detail"),
}
CONTROLS = ("arm", "yes", "no", "undo")
BOOT_READY_US = 100 * MS  # power-on to a board that polls its buttons (main.py, the journal)
BOOT_LINES_US = 1500 * MS  # power-on to a board that reads its console, with room (~0.65 s)
ANSWER_US = 600 * MS  # a control's answer may wait for a flash commit, a gc, a full FIFO
TICKS = 1 << 30


def _bases():
    """{game: [(head, records)]}: every whole game the repository plays."""
    from pathlib import Path

    bases = {g: [] for g in GAMES}
    examples = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.jsonl"))
    for path in examples:
        text = path.read_text()
        setup = read_setup(text)
        head = {"game": setup["game"], "players": setup["players"], "seed": setup.get("seed", "1")}
        head["options"] = setup.get("options", {})
        bases[setup["game"]].append((head, timeline_records(text)))
    for name, (h, text) in SCRIPTED.items():
        head = {"game": name, "players": h["players"], "seed": h["seed"]}
        head["options"] = h.get("options", {})
        bases[name].append((head, timeline_records(text)))
    return bases


BASES = _bases()


class Night:
    """One generated session: `head` (the simulator header, with a flash), `records` (timeline
    dicts in time order), `seed`."""

    def __init__(self, seed, head, records):
        self.seed = seed
        self.head = head
        self.records = records

    def text(self):
        return timeline(*self.records)


def night(seed, game=None):
    """The session of `seed` (an int): a whole game of `game` (default: the seed picks one of
    GAMES in turn) with the room's disturbances on top."""
    rng = random.Random(seed)
    game = game or GAMES[seed % len(GAMES)]
    head, base = rng.choice(BASES[game])
    head = dict(head, seed="%x" % rng.getrandbits(32), flash={})
    records = [dict(r) for r in base]
    end = max(r["at_us"] for r in records) + 2 * S
    players = head["players"]
    busy = {}  # player -> [at_us of its presses and releases], to keep noise away from them
    for r in records:
        for key in ("press", "release"):
            if key in r:
                busy.setdefault(r[key], []).append(r["at_us"])
    extra = []
    t = rng.randint(500, 2000) * MS  # the host's polls
    while t < end:
        extra.append({"at_us": t, "send": STATE})
        t += rng.randint(500, 2000) * MS
    free_at = {c: 0 for c in CONTROLS}  # box buttons, never two presses of one at once
    held = {c: [] for c in CONTROLS}  # (from, to) µs of the game's own presses of each control
    for r in records:
        if r.get("control") in held:
            held[r["control"]].append((r["at_us"], r["at_us"] + r.get("hold_ms", 120) * MS))
    for _ in range(max(2, end // (3 * S))):
        name = rng.choice(CONTROLS)
        at = rng.randint(200, end // MS) * MS + rng.randint(0, 999)
        hold = rng.randint(30, 300)
        if at < free_at[name]:
            continue
        if any(a - (hold + 60) * MS < at < b + 60 * MS for a, b in held[name]):
            continue  # a button already held cannot be pressed again: one contact, one press
        free_at[name] = at + (hold + 60) * MS
        extra.append({"at_us": at, "control": name, "hold_ms": hold})
    desk = [{"cmd": "undo"}, {"cmd": "judge", "correct": True}, {"cmd": "judge", "correct": False}]
    desk.append({"cmd": "arm"})
    for _ in range(max(1, end // (4 * S))):
        extra.append({"at_us": rng.randint(200, end // MS) * MS, "send": rng.choice(desk)})
    for _ in range(max(2, end // (2 * S))):  # noise on open contacts, far from presses
        p = rng.randint(1, players)
        at = rng.randint(100, end // MS) * MS + rng.randint(0, 999)
        if all(abs(at - b) > 50 * MS for b in busy.get(p, [])):
            extra.append({"at_us": at, "glitch": p, "width_ns": rng.randint(100, 30000)})
    for _ in range(max(1, end // (10 * S))):
        at = rng.randint(100, end // MS) * MS
        if rng.random() < 0.5:
            extra.append({"at_us": at, "gc_us": rng.randint(1, 20) * MS})
        else:
            extra.append({"at_us": at, "mask_us": rng.randint(30, 1000)})
    stall = rng.randint(500, end // MS) * MS  # the host stalls once a night
    extra.append({"at_us": stall, "host": "stall"})
    extra.append({"at_us": stall + rng.randint(100, 3000) * MS, "host": "read"})
    cuts = sorted(rng.randint(800, end // MS) * MS for _ in range(max(1, end // (20 * S))))
    on_at = 0
    for at in cuts:
        at += rng.randint(0, 999)
        if at < on_at + 500 * MS:
            continue
        on_at = at + rng.randint(50, 1500) * MS
        extra.append({"at_us": at, "power": "off"})
        extra.append({"at_us": on_at, "power": "on"})
    records = sorted(records + extra, key=lambda r: r["at_us"])
    return Night(seed, head, records)


def quiet_night(seed, game=None):
    """(the night's game undisturbed, the same with only what must change nothing: `state`
    polls and refused lines (tests/slips.py), noise pulses away from presses, gc pauses and
    masked interrupts, and at a third of the presses a noise closure on another station just
    before it with a line just after; the slipped lines for slips.answers_removed). The
    noise holds the press horizon back: the moment of the issue's cases. Both on a flash."""
    from slips import KINDS, slip

    rng = random.Random(seed)
    game = game or GAMES[seed % len(GAMES)]
    head, base = rng.choice(BASES[game])
    head = dict(head, seed="%x" % rng.getrandbits(32), flash={})
    records = [dict(r) for r in base]
    end = max(r["at_us"] for r in records) + 2 * S
    busy = {}
    for r in records:
        for key in ("press", "release"):
            if key in r:
                busy.setdefault(r[key], []).append(r["at_us"])
    times, t = [], rng.randint(500, 2000) * MS
    while t < end:
        times.append(t + rng.randint(0, 999))
        t += rng.randint(300, 2000) * MS
    extra = []
    for _ in range(max(2, end // (2 * S))):
        p = rng.randint(1, head["players"])
        at = rng.randint(100, end // MS) * MS + rng.randint(0, 999)
        if all(abs(at - b) > 50 * MS for b in busy.get(p, [])):
            extra.append({"at_us": at, "glitch": p, "width_ns": rng.randint(100, 30000)})
    for _ in range(max(2, end // (5 * S))):
        at = rng.randint(100, end // MS) * MS + rng.randint(0, 999)
        if rng.random() < 0.5:
            extra.append({"at_us": at, "gc_us": rng.randint(1, 20) * MS})
        else:
            extra.append({"at_us": at, "mask_us": rng.randint(30, 1000)})
    # and, at a third of the presses, a 0.5 ms noise closure on an idle station 50 µs before it
    # and a line 1-3 ms after it: a line that meets a press while noise is still judged
    for r in records:
        if "press" not in r or rng.random() > 0.33:
            continue
        at = r["at_us"]
        idle = [
            p for p in range(1, head["players"] + 1)
            if all(abs(at - b) > 30 * MS for b in busy.get(p, []))
        ]
        if idle:
            p = rng.choice(idle)
            extra.append({"at_us": at - 50, "glitch": p, "width_ns": 500000})
            busy.setdefault(p, []).append(at)
        times.append(at + rng.randint(1000, 3000))
    kinds = [KINDS[rng.randrange(len(KINDS))] for _ in times]
    # no line into a board that is off or booting (a game with a power cut in it): nothing
    # receives it then (USB is gone until the boot brings it back), so it gets no answer
    deaf, off = [], None
    for r in records:
        if r.get("power") == "off":
            off = r["at_us"]
        elif r.get("power") == "on" and off is not None:
            deaf.append((off, r["at_us"] + BOOT_LINES_US))
            off = None
    keep = [i for i, t in enumerate(times) if not any(a <= t <= b for a, b in deaf)]
    times, kinds = [times[i] for i in keep], [kinds[i] for i in keep]
    disturbed, slipped = slip(records + extra, times, kinds)
    plain = Night(seed, head, sorted(records, key=lambda r: r["at_us"]))
    return plain, Night(seed, head, disturbed), slipped


def replay_text(n):
    """The night as a timeline file that `tablebuzz sim --script` plays as is (the simulator
    gives a flash itself when a timeline has power lines)."""
    setup = {"game": n.head["game"], "players": n.head["players"], "seed": n.head["seed"]}
    setup["options"] = n.head["options"]
    return json.dumps({"setup": setup}) + "\n" + n.text()


# ------------------------------------------------------------------ the invariants
def _segments(records):
    """[(start ns, end ns or None, ticks origin ns)] of each time the board is powered: its lines
    are those written in [start, end); its ticks count from the origin (0, then each power-on)."""
    out, start = [], 0
    for r in records:
        if "power" in r:
            ns = round(r["at_us"] * 1000)
            if r["power"] == "off":
                out.append((start, ns))
            else:
                start = ns
    out.append((start, None))
    return [(s, e, s) for s, e in out]


def _stamp_ns(ev):
    return ev["t_us"] * 1000 + ev["t_ns"]


def _after(a, b):
    """ticks_diff(a, b) in ns for two stamps in ns (ticks wrap at 2**30 µs)."""
    d = (a - b) % (TICKS * 1000)
    return d - TICKS * 1000 if d >= TICKS * 500 else d


class Counts:
    """Per invariant: how many things were checked, how many failed, the first few failures."""

    def __init__(self):
        self.checked = {k: 0 for k in INVARIANTS}
        self.failed = {k: 0 for k in INVARIANTS}
        self.notes = []  # "invariant: what failed", the first NOTES of each invariant

    NOTES = 4

    def ok(self, key, good, note):
        self.checked[key] += 1
        if not good:
            self.failed[key] += 1
            self._note("%s: %s" % (key, note))

    def _note(self, note):
        key = note.split(":", 1)[0]
        if len([x for x in self.notes if x.split(":", 1)[0] == key]) < self.NOTES:
            self.notes.append(note)

    def add(self, other):
        for k in INVARIANTS:
            self.checked[k] += other.checked[k]
            self.failed[k] += other.failed[k]
        for note in other.notes:
            self._note(note)


def check(n, lines):
    """Counts for night `n` and the device's [(ns, line)] (as tablebuzz.sim.simulate.run gives)."""
    counts = Counts()
    events = []
    for ns, line in lines:
        try:
            ev = json.loads(line)
            whole = isinstance(ev, dict) and "ev" in ev
            whole = whole and all(k in ev for k in REQUIRED.get(ev["ev"], ()))
        except ValueError:
            whole = False
        counts.ok("cut_lines", whole, "%d ns: %r" % (ns, line[:80]))
        if whole:
            events.append((ns, ev))
    segments = _segments(n.records)
    per_segment = []
    for start, end, _ in segments:
        inside = [(ns, e) for ns, e in events if ns >= start and (end is None or ns < end)]
        per_segment.append(inside)
    edges = {}  # player -> [ns of the timeline's first edges: presses and noise pulses]
    for r in n.records:
        for key in ("press", "glitch"):
            if key in r:
                edges.setdefault(r[key], []).append(round(r["at_us"] * 1000))
    stalls = _stalls(n.records)
    for (_, _, origin), evs in zip(segments, per_segment, strict=True):
        board_to_timeline = _press_checks(counts, evs, origin, edges)
        _race_checks(counts, evs, stalls, n.head["players"], (board_to_timeline, edges))
    _control_checks(counts, n, events, segments, stalls)
    _resume_checks(counts, segments, per_segment, stalls)
    return counts


def _press_checks(counts, evs, origin, edges):
    """Press lines in stamp order, and each stamp a first edge (a press, or a noise pulse just
    before one: it backdates the press, refbox.debounce) of that player in the timeline, on the
    board's clock: after a resume it is shifted to go on from the last save (docs/architecture.md
    "Resume"), so the shift is read as the one most press lines agree on. Returns the segment's
    board stamp (ns) -> timeline ns function."""
    last = None
    pressed = [(ns, ev) for ns, ev in evs if ev["ev"] == "press"]
    for ns, ev in pressed:
        stamp = _stamp_ns(ev)
        if last is not None:
            counts.ok("press_order", _after(stamp, last) >= 0, "%d ns: %s" % (ns, ev))
        last = stamp
    votes = {}
    for _, ev in pressed:
        for e in edges.get(ev["player"], []):
            shift = (origin + _stamp_ns(ev) - e) // 4000  # 4 µs bins
            votes[shift] = votes.get(shift, 0) + 1
    if not votes:
        shift_ns = 0
    else:
        best = max(votes, key=lambda k: (votes[k], -abs(k)))
        shift_ns = best * 4000
    for ns, ev in pressed:
        at = origin + _stamp_ns(ev) - shift_ns
        true = [e for e in edges.get(ev["player"], []) if -4000 <= at - e <= 6000]
        counts.ok("press_stamps", bool(true), "%d ns: %s has no such press" % (ns, ev))
    return lambda stamp_ns: origin + stamp_ns - shift_ns


def _edge_at(edges, player, at):
    """True if the timeline has a first edge of `player` at timeline ns `at` (-4..+6 µs, as the
    press stamps are read)."""
    return any(-4000 <= at - e <= 6000 for e in edges.get(player, []))


def _stalls(records):
    """[(from µs, to µs)] while the host does not read (lines may be lost then: `cut_lines`)."""
    out, since = [], None
    for r in records:
        if r.get("host") == "stall" and since is None:
            since = r["at_us"]
        elif r.get("host") == "read" and since is not None:
            out.append((since, r["at_us"] + 100 * MS))
            since = None
    if since is not None:
        out.append((since, 10**13))
    return out


HELD_AFTER_RACE = ("press", "lockout", "unlock")


def _presses_before_races(evs):
    """The events with each race's own press lines put back before its race line: the board
    sends the race line first and the race's presses (and any lockout they caused) right after
    it (docs/protocol.md "Order of lines around a race")."""
    out = []
    i = 0
    while i < len(evs):
        ns, ev = evs[i]
        if ev["ev"] != "race":
            out.append(evs[i])
            i += 1
            continue
        j = i + 1
        moved, kept = [], []
        while j < len(evs) and evs[j][1]["ev"] in HELD_AFTER_RACE + ("margin",):
            (moved if evs[j][1]["ev"] in HELD_AFTER_RACE else kept).append(evs[j])
            j += 1
        out.extend(moved)
        out.append(evs[i])
        out.extend(kept)
        i = j
    return out


def _race_checks(counts, evs, stalls, players, timeline):
    """Every `race` line as the press lines since its `armed` say. A race line that ends its
    segment (the power went off after it, before its press lines, which follow it: docs/protocol.md
    "Order of lines around a race") is read against the timeline itself: its winner's first edge
    at its stamp (`timeline`: the segment's board-to-timeline clock, and the edges)."""
    to_timeline, edges = timeline
    last_race = evs[-1][0] if evs and evs[-1][1]["ev"] == "race" else None
    armed, locked, pressed, opened, locked_by = None, set(), {}, 0, {}
    out = set()  # left out of the race for another reason than a lockout (judged wrong)
    for ns, ev in _presses_before_races(evs):
        kind = ev["ev"]
        if kind == "armed":  # who may race; a wrong answer's lockout ends with its race
            armed, pressed, opened = set(ev["players"]), {}, ns
            locked = {p for p in locked if locked_by.get(p) != "wrong" or p not in armed}
            out = {p for p in range(1, players + 1) if p not in armed and p not in locked}
        elif kind == "lockout":
            locked.add(ev["player"])
            locked_by[ev["player"]] = ev["reason"]
            pressed.pop(ev["player"], None)  # a press that locked its player is no buzz
            if ev["reason"] == "wrong" and armed is not None:
                armed.discard(ev["player"])
                out.add(ev["player"])
        elif kind == "unlock":
            locked.discard(ev["player"])
            if armed is not None and ev["player"] not in out:
                # a timed lockout ended: that player may race (Déglingo), unless the race had
                # left them out already (judged wrong, as a resume's `armed` line says)
                armed.add(ev["player"])
        elif kind == "state":  # the resync after every undo: an undo can take a lockout
            # back with no `unlock` line (docs/protocol.md `state`: "after every undo")
            held = set(ev["locked"])
            locked = {p for p in locked if p in held or locked_by.get(p) == "wrong"} | held
        elif kind in ("resume", "game", "game_over", "menu"):
            armed, locked, pressed = None, set(), {}
        elif kind == "press" and armed is not None:
            p = ev["player"]
            if p in armed and p not in locked and p not in pressed:
                pressed[p] = _stamp_ns(ev)
        elif kind == "race":
            if any(a * 1000 <= ns and opened <= b * 1000 for a, b in stalls):
                armed, pressed = None, {}  # lines of this race may be lost: not read here
                continue
            stamp = _stamp_ns(ev)
            if not pressed and ns == last_race:  # its press lines were lost with the power
                good = _edge_at(edges, ev["winner"], to_timeline(stamp))
                counts.ok("decisions", good, "%d ns: %s; cut before its press lines" % (ns, ev))
                armed, pressed = None, {}
                continue
            first = min(pressed.values()) if pressed else None
            at_first = sorted(p for p, s in pressed.items() if s == first)
            good = first is not None and pressed.get(ev["winner"]) == stamp == first
            if ev["tie"]:
                good = good and sorted(ev["tied"]) == at_first and ev["margin_ns"] == 0
            else:
                good = good and at_first == [ev["winner"]]
                later = sorted(s for p, s in pressed.items() if p != ev["winner"])
                if later and ev["margin_ns"] is not None:
                    good = good and ev["margin_ns"] == later[0] - first
            counts.ok("decisions", good, "%d ns: %s; presses since armed %s" % (ns, ev, pressed))
            armed, pressed = None, {}


def _control_checks(counts, n, events, segments, stalls):
    offs = [(s, e) for s, e, _ in segments]
    # Déglingo with 2 players: YES and NO enter the secret count silently (docs/games/deglingo.md)
    silent = ("yes", "no") if n.head["game"] == "deglingo" and n.head["players"] == 2 else ()
    wanted = []
    for r in n.records:
        if "control" not in r or r["control"] in silent:
            continue
        at, hold = r["at_us"], r.get("hold_ms", 120) * MS
        acts = at + (hold if r["control"] == "undo" else 0)
        lo, hi = acts + 9 * MS, acts + ANSWER_US
        powered = any(
            s / 1000 + BOOT_READY_US <= at and (e is None or hi <= e / 1000) for s, e in offs
        )
        reading = all(hi < a or b < at for a, b in stalls)
        if powered and reading and hold >= 30 * MS:
            wanted.append((lo, hi, r))
    times = [ns / 1000 for ns, _ in events]
    used = [False] * len(times)
    for lo, hi, r in sorted(wanted, key=lambda w: w[0]):
        i = 0
        while i < len(times) and (times[i] < lo or used[i]):
            i += 1
        found = i < len(times) and times[i] <= hi
        if found:
            used[i] = True
        counts.ok("controls_lost", found, "no answer to %s" % r)


def _resume_checks(counts, segments, per_segment, stalls):
    for k in range(len(segments) - 1):
        seen, after = per_segment[k], per_segment[k + 1]
        # a host that did not read between its last line and the boot may have missed the game's
        # end (its lines die with the power, docs/protocol.md) and the boot's own lines
        last_us = (seen[-1][0] if seen else segments[k][0]) / 1000
        blind = any(a <= segments[k + 1][0] / 1000 + S and last_us <= b for a, b in stalls)
        # the last `state` seen, and whether the last `score` seen came before it (its log then
        # holds the decision that scored)
        playing, score, log, score_known = False, None, None, False
        for _, ev in seen:
            kind = ev["ev"]
            if kind in ("game", "resume"):
                playing, score, log, score_known = True, None, None, False
            elif kind in ("game_over", "menu"):
                playing = False
            elif kind == "score":
                score, score_known = ev["scores"], False
            elif kind == "state":
                log, score_known = ev["log"], score is not None
        if not playing:
            continue
        if any(ev["ev"] == "error" and ev["code"] == "safe_boot" for _, ev in after[:4]):
            continue  # UNDO was held through the power-up: a fresh start, as documented
        resume = [(i, ev) for i, (_, ev) in enumerate(after) if ev["ev"] == "resume"]
        where = "cut at %d ns" % segments[k][1]
        if not blind:
            counts.ok("seen_lost", bool(resume), "%s: the game did not resume" % where)
        if not resume or log is None:
            continue
        i, ev = resume[0]
        rest = [e for _, e in after[i + 1 :]]
        first_score = next((e["scores"] for e in rest if e["ev"] == "score"), None)
        first_state = next((e for e in rest if e["ev"] == "state"), None)
        if first_state is None:
            continue
        # the journal may hold more than the host saw (lines still queued at the cut), never less
        slack = 1 if ev.get("reopened") else 0
        counts.ok("seen_lost", first_state["log"] + slack >= log, "%s: log %d, resumed %d" % (
            where, log, first_state["log"]))
        if first_state["log"] == log and score_known:
            counts.ok("seen_lost", first_score == score, "%s: saw %s, resumed %s" % (
                where, score, first_score))


def run_nights(seeds, interpreters=("cpython",), quiet=True):
    """Counts over the nights of `seeds`, and the seeds of the nights that failed anything.
    `quiet` False leaves out the CPython-only comparison with the night's quiet twin
    (same_as_quiet), for a caller that checks only what the other interpreters add."""
    from helpers import CONTROLS as NAMES
    from tablebuzz.sim import simulate
    from tablebuzz.sim.timeline import parse

    total, failing = Counts(), []
    for seed in seeds:
        n = night(seed)
        counts = Counts()
        outputs = {}
        for interpreter in interpreters:
            records = parse(n.text(), n.head["players"], NAMES)
            try:
                outputs[interpreter] = simulate.run(dict(n.head), records, interpreter)
                counts.ok("runs", True, "")
            except Exception as e:  # a crash is a failed night, not a stopped soak
                counts.ok("runs", False, "%s: %s" % (interpreter, repr(e)[-200:]))
        if "cpython" in outputs:
            counts.add(check(n, outputs["cpython"]))
        if len(outputs) > 1:
            first = outputs[interpreters[0]]
            for interpreter in interpreters[1:]:
                if interpreter in outputs:
                    counts.ok("same_bytes", outputs[interpreter] == first, interpreter)
        if quiet:
            _quiet_check(counts, seed, interpreters)
        if any(counts.failed.values()):
            failing.append(seed)
            counts.notes = [
                "%s: night %d (%s): %s" % (x.split(": ", 1)[0], seed, n.head["game"],
                                           x.split(": ", 1)[1])
                for x in counts.notes
            ]
        total.add(counts)
    return total, failing


def _quiet_check(counts, seed, interpreters):
    from helpers import CONTROLS as NAMES
    from slips import answers_removed, first_difference
    from tablebuzz.sim import simulate
    from tablebuzz.sim.timeline import parse

    plain, disturbed, slipped = quiet_night(seed)
    players = plain.head["players"]
    try:
        want = simulate.run(dict(plain.head), parse(plain.text(), players, NAMES))
        got = simulate.run(dict(disturbed.head), parse(disturbed.text(), players, NAMES))
    except Exception as e:
        counts.ok("runs", False, "quiet night: %s" % repr(e)[-200:])
        return
    a = [line for _, line in want]
    try:
        b = [line for _, line in answers_removed(got, slipped)]
    except AssertionError as e:
        counts.ok("same_as_quiet", False, str(e))
        return
    counts.ok("same_as_quiet", a == b, "quiet night %d: %s" % (seed, first_difference(a, b)))


def table(counts):
    """The per-invariant figures, one line each: failed / checked."""
    return "\n".join(
        "%-14s %6d failed of %7d" % (k, counts.failed[k], counts.checked[k]) for k in INVARIANTS
    )
