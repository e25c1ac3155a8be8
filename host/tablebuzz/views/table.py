"""What the room sees: protocol events folded into the scoreboard's view (a JSON-able dict).

`Table.apply(item)` takes each connection item (tablebuzz.link.connection.Item) in order; `view()`
is the whole picture for the scoreboard and the desk: the source and its status, the menu or the
game (players with names and colours, scores, who has the floor, lockouts and timers, the last
race with everyone's delay behind the winner, each game's own view, the game-over ranking with
the seed to check), and the last lines of the readable log (tablebuzz.views.eventlog).

The device is the source of truth: every field comes from an event (docs/protocol.md,
docs/games/*.md). An undo is followed by `score`, `state` and the game's prompt events, which set
what they carry, each game's own `state` fields included (Déglingo's round, observers out and
timer, Diddly's score sheet, Evidence's tokens, Red or Black's penalty table, columns turned and
giving): the host keeps no model of a game's undo. Nothing is
guessed: a view never shows a card before the event that turns it, and Evidence's count is not
shown before it is confirmed (the desk shows the number being entered; the room does not).
"""

import copy
import re
import time

from tablebuzz.views import describe as device_words
from tablebuzz.views.colours import checked as colour_list
from tablebuzz.views.colours import player_colours
from tablebuzz.views.eventlog import (
    Narrator,
    RoomNarrator,
    card,
    duration,
    game_name,
    option_text,
)

LOG_LINES = 10
# Events kept out of the room's log: Evidence's number being entered would show the true count
# before it is confirmed (docs/games/evidence.md; the desk shows it on its number pad).
NOT_FOR_THE_ROOM = ("dial",)
TICKS_PERIOD_US = 1 << 30  # the device's µs ticks wrap here (docs/protocol.md)



def options_summary(game, options):
    """The options that differ from the game's defaults, in words ("target: 5 points; teams: ...");
    "standard rules" when none do. The defaults come from the firmware's own specs."""
    from refbox.games import game_class

    try:
        defaults = {name: default for name, default, _, _ in game_class(game).OPTIONS}
    except KeyError:
        defaults = {}
    changed = [(k, v) for k, v in sorted(options.items()) if (k not in defaults or
               defaults[k] != v or type(defaults[k]) is not type(v)) and k != "teams"]
    # (the teams are drawn with their names and members, never as "P1+P2 vs P3+P4")
    return "; ".join(option_text(k, v, game) for k, v in changed) or "standard rules"


def _hex(rgb):
    return "#%02x%02x%02x" % tuple(rgb)


def stamp_ns(ev):
    """A press/race stamp as ns on the device's wrapping µs clock."""
    return ev.get("t_us", 0) * 1000 + ev.get("t_ns", 0)


def behind_ns(later, earlier):
    """ns from stamp `earlier` to `later` across the 2**30 µs wrap (ticks_diff)."""
    period = TICKS_PERIOD_US * 1000
    d = (later - earlier) % period
    return d - period if d >= period // 2 else d


class Table:
    """The scoreboard's state, folded from connection items (see the module doc).

    `colours`: the stations' colours (0..255 RGB tuples, the pin map's); `clock`: wall clock for
    the timers (time.monotonic; tests pass their own).
    """

    def __init__(self, colours, source=None, clock=time.monotonic):
        self.colours = [_hex(c) for c in colours]  # the pin map's until the board says its own
        self.palette = None  # the board's palette name (`hello`, `palette`)
        self.clock = clock
        self.source = dict(source or {"kind": "board", "label": "board"})
        self.source.setdefault("connected", False)
        self.source.setdefault("status", "waiting for the board")
        self.board = None
        self.menu = None
        self.prompts = []  # the board's last `buttons` event: [[control, meaning]]
        self.game = None
        self.pending_names = {}  # names the desk gave for the next game
        self.narrator = Narrator()
        self.room_narrator = RoomNarrator()  # the room's log: words, no raw µs stamps
        self.log = []  # the desk's log (every line, stamps included)
        self.room_log = []  # the scoreboard's (eventlog.RoomNarrator)
        self.doing = None  # the board's `buttons.doing`: (sentence, the game's phase then)
        self.screen = None  # what the desk put on the room's screen: None or "standings"
        self.sound = {"sounds": True, "speech": True}  # the TV's sounds and spoken calls
        self.time_up = None  # {"text", "at"}: the last timer that ran out (a big screen)
        self.notices = []
        self.desk_only = {}  # what the host's desk sees and the room does not (see view())
        self.version = 0

    # ---------------------------------------------------------------- input
    def apply(self, item):
        """Fold one connection item; returns True if the view changed."""
        self.version += 1
        if item.kind == "status":
            self.source["status"] = item.text
            self.source["connected"] = item.text.startswith("connected")
            self._log("link: " + item.text)
            return True
        if item.kind == "notice":
            self.notices = (self.notices + [item.text])[-3:]
            self._log("notice: " + item.text)
            return True
        if item.kind != "event":
            return False
        ev = item.event
        self.source["connected"] = True
        kind = ev.get("ev")
        if kind == "done":
            return False  # a command's acknowledgement (its id): for the host that sent it
        if kind == "buttons":  # the board's own prompts, for the operator only (desk, TUI):
            # never logged or shown to the room, as a prompt may hold a number being entered
            # (Evidence's count: "YES count 17")
            self.prompts = [list(pair) for pair in ev.get("buttons") or []]
            doing = ev.get("doing")  # what is happening, in the board's words: for everyone
            self._board_phase(ev)
            phase = self.game["phase"] if self.game is not None else None
            self.doing = (doing, phase) if isinstance(doing, str) and doing else None
            return True
        try:
            self._event(kind, ev)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            self._log("notice: an event the scoreboard could not read: %s" % item.text[:120])
        if kind not in NOT_FOR_THE_ROOM:
            self._log(self.narrator.line(ev))
            room = self.room_narrator.line(ev)
            if room is not None:
                self.room_log = (self.room_log + [room])[-LOG_LINES:]
        else:
            self.desk_only[kind] = {"value": ev.get("value"), "text": self.narrator.line(ev)}
        return True

    def _board_phase(self, ev):
        """The board's phase, floor and turn from its `buttons` event (sent after every change):
        what every page draws. A race whose question has moved on has had every press it will
        have ("nobody else pressed", not "nobody else yet")."""
        g = self.game
        phase = ev.get("phase")
        if g is None or not isinstance(phase, str) or phase in ("menu", "over"):
            return
        g["phase"] = phase
        g["answering"] = ev.get("answering")
        g["turn"] = ev.get("turn")
        if phase != "racing":
            g["armed"] = False
            race = g.get("race")
            if race is not None and race.get("winner") is not None and phase != "answering":
                race["settled"] = True
                race["margin_text"] = self._margin_text(race)

    def set_names(self, names, next_game=False):
        """Names for the next game's players ({1: "Ann", ...}); also the current game's, if the
        desk renames during play (not when `next_game`: the desk is starting a new game)."""
        clean = {}
        for k, v in (names or {}).items():
            text = str(v).strip()[:24]
            if text:
                clean[int(k)] = text
        self.pending_names = clean
        if self.game is not None and not next_game:
            self.game["names"] = {str(k): v for k, v in clean.items()}
            for narrator in (self.narrator, self.room_narrator):
                narrator.names = dict(clean)
                narrator.learnt = {}

    def _log(self, text):
        self.log = (self.log + [text])[-LOG_LINES:]
        if not text.startswith(("notice:", "link:")):
            return
        self.room_log = (self.room_log + [text])[-LOG_LINES:]

    # ---------------------------------------------------------------- events
    def _event(self, kind, ev):
        if kind == "hello":
            self.board = {k: ev.get(k) for k in ("fw", "proto", "stations", "capture",
                                                 "sample_ns", "games")}
            self._palette(ev)
            return
        if kind == "palette":
            self._palette(ev)
            return
        if kind in ("armed", "menu", "game", "resume", "game_over"):
            self.prompts = []  # until the board says what the controls do in this phase
        if kind in ("armed", "press", "race", "margin", "question"):
            self._photo_track(kind, ev)
        self._track_tossup(kind, ev)
        if kind == "game":
            self.bonuses_read = 0
        elif kind == "bonus":
            self.bonus_index = getattr(self, "bonuses_read", 0)
            self.bonuses_read = self.bonus_index + 1
        if kind == "menu":
            self.menu = {k: ev.get(k) for k in ("step", "value", "index", "of", "game",
                                                 "players", "text", "label")}
            if self.game is not None and self.game.get("over") is None:
                self.game = None  # the game ended without game_over reaching us (we were away)
            elif self.game is not None:
                self.game["closed"] = True
            return
        if kind == "game":
            self._new_game(ev)
            return
        if kind == "resume":  # the board rebooted into its journal's game (docs/protocol.md)
            g = self.game
            if g is None or g["name"] != ev.get("game") or g.get("commit") != ev.get("commit"):
                self._new_game(ev)
            self.game["resumed"] = True
            self.menu = None
            return
        if kind == "state":
            self.menu = None
            if self.game is None or self.game["name"] != ev.get("game") or \
                    self.game["players"] != ev.get("players"):
                self._join(ev)
            self._state(ev)
            return
        g = self.game
        if g is None:
            return  # events of a game we never saw start: the resync's `state` brings it
        if kind == "undo":
            self._undo(g)
            return
        handler = getattr(self, "_ev_" + kind, None)
        if handler is not None:
            handler(g, ev)
        game_handler = getattr(self, "_%s_%s" % (g["name"], kind), None)
        if game_handler is not None:
            game_handler(g, ev)

    def _palette(self, ev):
        """The board's station colours (`hello`, `palette`: docs/protocol.md), checked (a bad
        list changes nothing); the game's players take them (views.colours)."""
        colours = colour_list(ev.get("colours"))
        if colours is None:
            return
        self.colours = colours
        self.palette = ev.get("palette") if isinstance(ev.get("palette"), str) else None
        if self.game is not None:
            self._colour_players(self.game)

    def _colour_players(self, g):
        g["colours"] = player_colours(self.colours, g["name"], g["players"], g["options"])

    # ---------------------------------------------------------------- the photo finish
    PHOTO_S = 6  # the scoreboard shows a new photo finish this long (and again on demand)

    def _photo_track(self, kind, ev):
        """Keep this race's events; once it is decided by < 10 ms, its picture
        (tablebuzz.views.photo) becomes the view's `photo`, shown for PHOTO_S seconds."""
        from tablebuzz.views import photo

        if kind == "armed":
            self._race_events = []
        events = getattr(self, "_race_events", [])
        events.append(ev)
        self._race_events = events
        if kind == "press" and any(e.get("ev") == "race" for e in events):
            pass  # a press line after the race line (the board sends the race first): redraw
        elif kind not in ("race", "margin"):
            return
        sample = (self.board or {}).get("sample_ns")
        found = photo.finishes([{"ev": "question", "question": self._question_no()}] + events,
                               sample)
        if not found:
            return
        finish = found[-1]
        names = {int(k): v for k, v in ((self.game or {}).get("names") or {}).items()}
        lit = (self.game or {}).get("colours") or self.colours  # as the box lit them (a team's)
        colours = dict(enumerate(lit, 1))
        self.photo = {"svg": photo.svg(finish, colours, names), "winner": finish["winner"],
                      "margin_ns": finish["margin_ns"], "tie": finish["tie"],
                      "question": finish["question"]}
        self.photo_at = self.clock()
        self.photo_shown = getattr(self, "photo_shown", 0) + 1  # the page opens it once a showing

    def _question_no(self):
        g = self.game or {}
        return (g.get("view") or {}).get("question")

    # ---------------------------------------------------------------- the packet (desk only)
    packet = None  # tablebuzz.views.packet: the reader's questions (`tablebuzz show --packet`)

    def mark(self, word_index):
        """The desk marked the word being read when the buzz came: for the floor holder of the
        tossup being read. Returns the mark {"question", "player", "word_index", "power"} (kept
        in the record, QBJ's buzz_position), or raises ValueError when nobody has the floor."""
        from tablebuzz.views import packet as packet_module

        g = self.game or {}
        number = getattr(self, "reading", None)
        player = g.get("answering")
        if self.packet is None or not number or player is None:
            raise ValueError("a word is marked when a player has the floor on a packet tossup")
        tossup = packet_module.tossup_view(self.packet, number)
        if tossup is None or not isinstance(word_index, int) or \
                not 0 <= word_index < len(tossup["words"]):
            raise ValueError("no word %r in tossup %s" % (word_index, number))
        power = tossup["power_index"] is not None and word_index <= tossup["power_index"]
        self.marked = {"question": number, "player": player, "word_index": word_index,
                       "power": power}
        self.version += 1
        return dict(self.marked)

    def _track_tossup(self, kind, ev):
        """The packet tossup the reader reads now or next (the board asks tossup n with a
        `question`; it is over once dead, judged right without a bonus, or its bonus scored;
        a cancelled one is asked again)."""
        if kind in ("game", "resume"):
            self.reading = 1
            self.reading_open = False
        elif kind == "state" and isinstance(ev.get("question"), int):
            self.reading = ev["question"]
        elif kind == "question":
            self.reading = ev["question"]
            self.reading_open = True
        elif kind == "dead" and getattr(self, "reading_open", False):
            self.reading_open = False
            if ev.get("reason") != "cancel":
                self.reading = ev.get("question", self.reading) + 1
        elif kind == "bonus_scored":
            self.reading = ev["question"] + 1
            self.reading_open = False
        elif kind == "judge" and ev.get("correct") and self.game is not None and \
                not (self.game.get("options") or {}).get("bonus"):
            self.reading += 1
            self.reading_open = False

    def _packet_views(self):
        """(desk's packet view, room's) for the game now: the desk gets the tossup's words, power
        mark and answer (and the bonus while one is played) and the last mark; the room the
        number and category only."""
        from tablebuzz.views import packet as packet_module

        if self.packet is None or self.game is None or self.game["name"] != "quiz":
            return None, None  # a packet's tossups are the quiz's alone
        number = getattr(self, "reading", 1)
        desk = {"name": self.packet["name"],
                "tossup": packet_module.tossup_view(self.packet, number),
                "bonus": None, "mark": None}
        if self.game.get("phase") == "bonus":
            desk["bonus"] = packet_module.bonus_view(self.packet, getattr(self, "bonus_index", 0))
        marked = getattr(self, "marked", None)
        if marked and marked["question"] == number:
            desk["mark"] = dict(marked)
        return desk, packet_module.room_info(self.packet, number)

    def show_photo(self):
        """The desk asks for the last photo finish again: shown PHOTO_S seconds from now. False
        if there is none."""
        if getattr(self, "photo", None) is None:
            return False
        self.photo_at = self.clock()
        self.photo_shown = getattr(self, "photo_shown", 0) + 1
        self.version += 1
        return True

    def _blank_game(self, name, players, options, commit, names):
        return {
            "name": name,
            "title": game_name(name),
            "players": players,
            "names": {str(k): v for k, v in names.items()},
            "colours": self.colours[:players],
            "options": options,
            "options_text": options_summary(name, options),
            "commit": commit,
            "unit": "points",
            "scores": [0] * players,
            "phase": "ready",
            "answering": None,
            "turn": None,
            "eligible": [],
            "armed": False,
            "locked": {},
            "race": None,
            "timers": [],
            "over": None,
            "joined": commit is None,
            "view": self._blank_view(name, players),
        }

    def _blank_view(self, name, players):
        size = device_words.layout(name)  # the firmware's sizes (describe.layout)
        if name == "difference":
            return {"places": {}}
        if name == "deglingo":
            return {"round": 1, "active": 1, "out": [], "last_round": None}
        if name == "redblack":
            return {
                "hands": [[None] * size["hand"] for _ in range(players)],
                "asking": None,
                "given": [0] * players,
                "received": [0] * players,
                "handing_out": None,
                "lines": None,
                "give_line": None,
                "suit": None,
                "table": None,
            }
        if name == "diddly":
            return {"rounds": [[None] * size["rounds"] for _ in range(players)], "round": 1,
                    "dealer": 1,
                    "turn": None, "entering": None}
        if name == "quiz":
            return {"question": 0, "points": None, "teams": [], "sudden_death": None,
                    "dead": None, "read": False, "overtime": False, "protest": None}
        if name == "evidence":
            return {"round": 0, "orientation": None, "markers": [None] * size["markers"],
                    "claimers": [],
                    "tally": [[0, 0, 0] for _ in range(players)], "counting": False,
                    "last_tokens": None, "sit_out": [], "playoff": False}
        return {}

    def _new_game(self, ev):
        self.menu = None
        self.photo = None  # a photo finish belongs to its game's races
        self._race_events = []
        names = dict(self.pending_names)
        for i, name in enumerate(ev.get("names") or []):  # a firmware that carries names
            if name:
                names[i + 1] = name
        for narrator in (self.narrator, self.room_narrator):
            narrator.names = dict(names)
            narrator.learnt = {}  # the host sets the names of this game
        self.game = self._blank_game(ev["game"], ev["players"], ev.get("options") or {},
                                     ev.get("commit"), names)
        if ev["game"] == "quiz":
            teams = (ev.get("options") or {}).get("teams") or []
            self.game["view"]["teams"] = [
                {"team": i + 1, "players": list(members), "name": None, "score": 0}
                for i, members in enumerate(teams)
            ]
            self._colour_players(self.game)

    def _join(self, ev):
        """The host met a game already under way (started before it connected)."""
        self.game = self._blank_game(ev["game"], ev["players"], {}, None, self.pending_names)

    def _state(self, ev):
        g = self.game
        g["phase"] = ev["phase"]
        g["scores"] = list(ev["scores"])
        g["unit"] = ev.get("unit", g["unit"])
        g["eligible"] = list(ev.get("eligible") or [])
        g["answering"] = ev.get("answering")
        g["turn"] = ev.get("turn")
        g["armed"] = ev["phase"] == "racing"
        now = self.clock()
        locked = {}
        for p in ev.get("locked") or []:
            locked[str(p)] = g["locked"].get(str(p)) or {"reason": "false start",
                                                         "until": None, "since": now}
        g["locked"] = locked
        if g["name"] == "deglingo":
            self._deglingo_state(g, ev)
        if g["name"] == "diddly" and ev.get("rounds") is not None:
            for p, rounds in enumerate(ev["rounds"]):  # the board's score sheet
                n = len(g["view"]["rounds"][p])
                g["view"]["rounds"][p] = (list(rounds) + [None] * n)[:n]
        if g["name"] == "evidence" and ev.get("tally") is not None:
            g["view"]["tally"] = [list(t) for t in ev["tally"]]
        if g["name"] == "redblack" and ev.get("given") is not None:
            self._redblack_state(g, ev)
        if g["name"] == "quiz":
            v = g["view"]
            v["question"] = ev.get("question", v["question"])
            v["points"] = ev.get("points", v["points"])
            v["sudden_death"] = ev.get("sudden_death")
            v["overtime"] = bool(ev.get("overtime"))  # the board's: past the `questions` limit
            for team, score in zip(v["teams"], ev.get("teams") or [], strict=False):
                team["score"] = score
            g["timers"] = []
            if ev.get("timer") and ev.get("left_ms") is not None:
                g["timers"] = [self._quiz_timer_entry(g, ev["timer"], ev.get("answering"),
                                                      ev["left_ms"])]

    def _undo(self, g):
        """An undo: what it took back is no longer shown (the race, the game's end, Evidence's
        last tokens); the `score`, `state` and prompts that follow say what stands now."""
        g["race"] = None
        g["over"] = None
        g["closed"] = False
        if g["name"] == "evidence":
            g["view"]["last_tokens"] = None  # the count they came from is taken back

    # ---------------------------------------------------------------- common events
    def _ev_score(self, g, ev):
        g["scores"] = list(ev["scores"])
        g["unit"] = ev.get("unit", g["unit"])
        if g["name"] == "difference" and ev.get("places") is not None:
            g["view"]["places"] = {str(p): place for p, place in enumerate(ev["places"], 1)
                                   if place}  # the board's finishing places (an undo's too)

    def _ev_armed(self, g, ev):
        for p in ev["players"]:  # whoever may race now is not out, whatever we missed
            lock = g["locked"].get(str(p))
            if lock is not None and lock["reason"] == "wrong":
                del g["locked"][str(p)]
        g["armed"] = True
        g["phase"] = "racing"
        g["eligible"] = list(ev["players"])
        g["answering"] = None
        previous = g["race"]
        if previous is not None and previous.get("winner") is None:
            previous = previous.get("previous")  # re-armed before anyone pressed
        if previous is not None:
            previous = {k: v for k, v in previous.items() if k not in ("previous", "presses")}
        g["race"] = {"open": True, "presses": [], "winner": None, "previous": previous}

    def _ev_press(self, g, ev):
        race = g["race"]
        if race is None:
            return
        player = ev["player"]
        if any(p["player"] == player for p in race["presses"]):
            return  # only each player's first press counts for the order
        if race["winner"] is None and not race["open"]:
            return
        race["presses"].append({"player": player, "stamp": stamp_ns(ev)})
        self._order(race)

    def _ev_race(self, g, ev):
        race = g["race"] or {"open": True, "presses": []}
        race.update(
            open=False,
            winner=ev["winner"],
            tie=bool(ev.get("tie")),
            tied=list(ev.get("tied") or []),
            margin_ns=ev.get("margin_ns"),
            stamp=stamp_ns(ev),
        )
        race["margin_text"] = self._margin_text(race)
        g["race"] = race
        g["armed"] = False
        g["answering"] = ev["winner"]
        g["phase"] = "answering"
        self._order(race)

    def _ev_margin(self, g, ev):
        race = g["race"]
        if race is not None and race.get("margin_ns") is None:
            race["margin_ns"] = ev["margin_ns"]
            race["margin_text"] = self._margin_text(race)

    @staticmethod
    def _margin_text(race):
        if race.get("tie"):
            return "tie: %s, drawn" % " & ".join("P%d" % p for p in race["tied"])
        if race.get("margin_ns") is None:
            return "nobody else pressed" if race.get("settled") else "nobody else yet"
        return "by " + duration(race["margin_ns"])

    def _order(self, race):
        """The buzz order: the winner first, then everyone who pressed, each with their delay
        behind the winner (ties at 0)."""
        winner = race.get("winner")
        presses = race["presses"]
        if winner is not None and not any(p["player"] == winner for p in presses):
            presses.append({"player": winner, "stamp": race.get("stamp", 0)})
        if not presses:
            race["order"] = []
            return
        base = race.get("stamp")
        if base is None:
            base = min(p["stamp"] for p in presses)
        rows = []
        for p in presses:
            d = behind_ns(p["stamp"], base)
            rows.append((0 if p["player"] == winner else 1, max(d, 0), p["player"]))
        rows.sort()
        race["order"] = [
            {"player": pl, "behind_ns": d,
             "behind_text": "first" if pl == winner else "+" + duration(d)}
            for _, d, pl in rows
        ]

    def _ev_judge(self, g, ev):
        g["answering"] = None
        if g["race"] is not None:
            g["race"]["judged"] = "correct" if ev["correct"] else "wrong"

    def _ev_lockout(self, g, ev):
        now = self.clock()
        until = now + ev["ms"] / 1000 if ev.get("ms") is not None else None
        reason = "false start" if ev["reason"] == "false_start" else "wrong"
        g["locked"][str(ev["player"])] = {"reason": reason, "until": until, "since": now}
        if g["name"] == "deglingo" and ev["reason"] == "wrong":
            out = g["view"]["out"]
            if ev["player"] not in out:
                out.append(ev["player"])

    def _ev_unlock(self, g, ev):
        g["locked"].pop(str(ev["player"]), None)
        if g["armed"] and ev["player"] not in g["eligible"]:  # the race open: they may buzz now
            g["eligible"] = sorted(g["eligible"] + [ev["player"]])

    def _ev_finished(self, g, ev):
        g["view"]["places"][str(ev["player"])] = ev["place"]

    def _ev_reseed(self, g, ev):
        g["commit"] = ev["commit"]

    def _ev_game_over(self, g, ev):
        unit = ev.get("unit", g["unit"])
        ranking = [dict(r, name=g["names"].get(str(r["player"]))) for r in ev["ranking"]]
        g["over"] = {
            "ranking": ranking,
            "team_ranking": g["view"].get("team_ranking"),
            "abandoned": bool(ev.get("abandoned")),
            "seed": ev["seed"],
            "commit": g["commit"],
            "notes": [] if ev.get("abandoned") else self.narrator.tie_notes(
                ev.get("game"), ev["ranking"], unit, ev.get("tie_break")),
            "unit": unit,
        }
        g["phase"] = "over"
        if g["race"] is not None and g["race"].get("winner") is None:
            g["race"] = None  # a race opened but nobody pressed: nothing to show
        elif g["race"] is not None:
            g["race"]["settled"] = True  # the game is over: no press comes any more
            g["race"]["margin_text"] = self._margin_text(g["race"])
        g["armed"] = False
        g["answering"] = None
        g["timers"] = []
        g["locked"] = {}

    # ---------------------------------------------------------------- quiz (README "Quiz")
    def _ev_name(self, g, ev):
        """A name the device keeps (the quiz's `act name`): shown like the desk's names."""
        name = ev.get("name")
        if ev.get("player"):
            key = str(ev["player"])
            if name:
                g["names"][key] = name
            else:
                g["names"].pop(key, None)
            self.narrator.names = {int(k): v for k, v in g["names"].items()}
            self.room_narrator.names = dict(self.narrator.names)
        elif ev.get("team"):
            for team in g["view"].get("teams") or []:
                if team["team"] == ev["team"]:
                    team["name"] = name

    def _quiz_score(self, g, ev):
        for team, score in zip(g["view"]["teams"], ev.get("teams") or [], strict=False):
            team["score"] = score
        for team, place in zip(g["view"]["teams"], ev.get("team_places") or [], strict=False):
            team["place"] = place
        if ev.get("places") is not None:
            g["view"]["places"] = list(ev["places"])  # the board's ranking, P1 first

    def _quiz_bonus(self, g, ev):
        g["phase"] = "bonus"  # the controlling team plays its bonus (the board's phase too)
        g["answering"] = None
        # the board's bonus: its team, its parts and each part's value; parts judged so far
        g["view"]["bonus"] = {"team": ev["team"], "parts": ev["parts"], "points": ev["points"],
                              "judged": 0}

    def _quiz_part(self, g, ev):
        if g["view"].get("bonus"):
            g["view"]["bonus"]["judged"] = ev["part"]

    def _quiz_bonus_scored(self, g, ev):
        g["phase"] = "ready"
        g["view"]["bonus"] = None

    def _quiz_question(self, g, ev):
        v = g["view"]
        v.update(question=ev["question"], points=ev.get("points"), dead=None, read=False)
        if ev.get("sudden_death") and not v.get("sudden_death"):
            v["sudden_death"] = []

    def _quiz_read(self, g, ev):
        g["view"]["read"] = True

    def _quiz_timer_entry(self, g, kind, player, ms):
        if kind == "buzz":
            label = "time to buzz"
        else:
            name = g["names"].get(str(player))
            label = "P%s%s to answer" % (player, " " + name if name else "")
        return {"label": label, "kind": kind, "remaining_ms": ms, "running": True,
                "at": self.clock()}

    def _quiz_timer(self, g, ev):
        g["timers"] = [self._quiz_timer_entry(g, ev["timer"], ev.get("player"), ev["ms"])]

    def _quiz_time_warning(self, g, ev):
        for t in g["timers"]:
            if t.get("kind") == "answer":
                t["remaining_ms"], t["at"] = ev["ms"], self.clock()

    TIME_UP_S = 4  # the scoreboard's "time's up" screen shows this long

    def _time_is_up(self, text):
        """The time's up screen says whose time it was ("P3 ran out of time to answer"): the
        screen itself says time's up."""
        if text.startswith("time up: "):
            text = text[len("time up: "):]
        self.time_up = {"text": text, "at": self.clock()}

    def _quiz_time_up(self, g, ev):
        g["timers"] = []
        self._time_is_up(self.room_narrator.line(ev))

    def _quiz_race(self, g, ev):
        g["timers"] = [t for t in g["timers"] if t.get("kind") != "buzz"]

    def _quiz_judge(self, g, ev):
        g["timers"] = [t for t in g["timers"] if t.get("kind") != "answer"]
        if ev.get("correct"):
            g["phase"] = "ready"  # the tossup is over; a `bonus` event right after says bonus

    # issue 37, the moderator's desk: overtime shown as overtime, the last protest
    def _quiz_overtime(self, g, ev):
        g["view"]["overtime"] = True

    def _quiz_protest(self, g, ev):
        g["view"]["protest"] = {"question": ev.get("question"), "team": ev.get("team"),
                                "note": ev.get("note")}

    def _quiz_dead(self, g, ev):
        why = {"cancel": "cancelled", "wrong": "every team was wrong",
               "time": "nobody buzzed in time"}.get(ev.get("reason"), str(ev.get("reason")))
        g["view"]["dead"] = "question %s: nobody scores (%s)" % (ev.get("question"), why)
        if ev.get("reason") == "time":
            self._time_is_up("question %s: nobody buzzed in time" % ev.get("question"))
        g["timers"] = []
        g["answering"] = None
        g["armed"] = False
        g["phase"] = "ready"  # the next ARM asks the next question (or the same, if cancelled)
        if g["race"] is not None and g["race"].get("winner") is None:
            g["race"] = None  # armed, and nobody won that race: nothing to show

    def _quiz_next_in_line(self, g, ev):
        g["answering"] = ev["player"]
        g["phase"] = "answering"
        if g["race"] is not None:
            g["race"]["next"] = {"player": ev["player"], "behind_text": "+" + duration(
                ev.get("behind_ns") or 0), "waiting": ev.get("waiting")}

    def _quiz_sudden_death(self, g, ev):
        g["view"]["sudden_death"] = list(ev["players"])

    def _quiz_team_ranking(self, g, ev):
        v = g["view"]
        names = {t["team"]: t["name"] for t in v["teams"]}
        v["team_ranking"] = [dict(r, name=names.get(r["team"])) for r in ev["ranking"]]

    # ---------------------------------------------------------------- Déglingo
    @staticmethod
    def _drop_wrong_locks(g):
        g["locked"] = {p: lk for p, lk in g["locked"].items() if lk["reason"] != "wrong"}

    def _deglingo_deglingo(self, g, ev):
        self._drop_wrong_locks(g)  # a new round: nobody is out any more
        v = g["view"]
        v["round"], v["active"], v["out"] = ev["round"], ev["active"], []
        g["turn"] = ev["active"]

    def _deglingo_state(self, g, ev):
        """Déglingo's own `state` fields (the round, the active player, the observers out,
        whether the round timer runs): after an undo they are what the room sees."""
        v = g["view"]
        if "round" not in ev:  # a board from before these fields: the turn at least
            if ev.get("turn"):
                v["active"] = ev["turn"]
            return
        v["round"], v["active"], v["out"] = ev["round"], ev["active"], list(ev["out"])
        now = self.clock()
        for p in v["out"]:  # judged wrong: out of this round, as a `lockout` "wrong" says
            g["locked"][str(p)] = {"reason": "wrong", "until": None, "since": now}
        last = v.get("last_round")
        if last is not None and last.get("round") is not None and last["round"] >= ev["round"]:
            v["last_round"] = None  # the round it told of is being played again
        running = bool(ev.get("timer_running"))
        for t in g["timers"]:  # the round timer shown runs or stops as the board's does
            if t["running"] and not running:
                t["remaining_ms"] = max(0, t["remaining_ms"] - (now - t["at"]) * 1000)
                t["running"] = False
            elif running and not t["running"]:
                t["running"], t["at"] = True, now

    def _deglingo_timer(self, g, ev):
        """The round timer as the board runs it: started (its length), paused while an observer
        has the floor, running again (its `timer` event's `running`; the countdown shown stops
        and goes on where it stood)."""
        now = self.clock()
        running = ev.get("running") is not False
        if ev.get("ms") is not None:
            g["timers"] = [{"label": "round timer", "remaining_ms": ev["ms"],
                            "running": running, "at": now}]
            return
        for t in g["timers"]:
            if t["running"] and not running:
                t["remaining_ms"] = max(0, t["remaining_ms"] - (now - t["at"]) * 1000)
            t["running"], t["at"] = running, now

    def _deglingo_round_over(self, g, ev):
        v = g["view"]
        v["last_round"] = {k: ev.get(k) for k in ("round", "active", "how", "replaced",
                                                   "found", "points")}
        v["last_round"]["text"] = self.narrator.line(ev)
        if ev.get("how") == "time":
            self._time_is_up(v["last_round"]["text"])
        v["out"] = []
        self._drop_wrong_locks(g)
        g["timers"] = []
        g["race"] = None
        if ev.get("next"):
            v["active"] = ev["next"]
            v["round"] = ev["round"] + 1
            g["turn"] = ev["next"]
        g["phase"] = "eyes_closed"

    # ---------------------------------------------------------------- Red or Black
    def _redblack_ask(self, g, ev):
        v = g["view"]
        player, rnd = ev["player"], ev["round"]
        v["asking"] = {"player": player, "round": rnd, "question": ev["question"]}
        v["handing_out"] = None
        v["suit"] = None
        g["turn"] = player
        # the cards this player holds, as the device says; nobody after them in play order
        # can hold a card of this round or later (an undo went back)
        hand = list(ev.get("hand") or [])
        last = v.get("last_guess")
        if last is not None and (last["round"], last["player"]) >= (rnd, player):
            v["last_guess"] = None  # that answer was taken back: it is being asked again
        n = len(v["hands"][player - 1])
        v["hands"][player - 1] = (hand + [None] * n)[:n]
        for p in range(g["players"]):
            for r in range(n):
                if (r + 1, p + 1) >= (rnd, player):
                    v["hands"][p][r] = None
        for r, c in enumerate(hand):
            v["hands"][player - 1][r] = c

    def _redblack_state(self, g, ev):
        """Red or Black's own `state` fields: the penalty table, the columns turned, a giving
        under way. After an undo they are what the room sees."""
        v = g["view"]
        v["given"], v["received"] = list(ev["given"]), list(ev["received"])
        v["handing_out"] = None
        if ev.get("giver"):
            picks = {}
            for r, c in ev.get("picks") or []:  # one entry a pick: a receiver may come twice
                picks[str(r)] = picks.get(str(r), 0) + c
            v["handing_out"] = {"player": ev["giver"], "penalties": ev["to_give"],
                                "left": ev["to_give"] - sum(picks.values()), "picks": picks}
            g["turn"] = ev["giver"]
        if v["lines"] is not None:  # the columns after `column` are not turned (any more)
            for line in v["lines"].values():
                for i in range(ev["column"], len(line)):
                    line[i] = None
            v["column"] = ev["column"]
        if ev["phase"] != "over":
            v["table"] = None

    def _redblack_guess(self, g, ev):
        v = g["view"]
        v["hands"][ev["player"] - 1][ev["round"] - 1] = ev["card"]
        v["last_guess"] = {k: ev[k] for k in ("player", "round", "answer", "card", "right",
                                              "penalties")}

    def _redblack_score(self, g, ev):
        """The penalty table as the board keeps it (its `score` event's `given`, `received`)."""
        v = g["view"]
        if ev.get("given") is not None:
            v["given"], v["received"] = list(ev["given"]), list(ev["received"])

    def _redblack_give(self, g, ev):
        g["view"]["handing_out"] = {"player": ev["player"], "penalties": ev["penalties"],
                                    "left": ev["penalties"], "picks": {}}
        g["turn"] = ev["player"]

    def _redblack_pick(self, g, ev, sign=1):
        h = g["view"]["handing_out"]
        if h is None:
            return
        key = str(ev["player"])
        h["picks"][key] = h["picks"].get(key, 0) + sign
        if h["picks"][key] <= 0:
            del h["picks"][key]
        h["left"] = ev["left"]

    def _redblack_unpick(self, g, ev):
        self._redblack_pick(g, ev, -1)

    def _redblack_given(self, g, ev):
        g["view"]["handing_out"] = None  # the totals come with the `score` that follows

    def _redblack_suit(self, g, ev):
        g["view"]["suit"] = ev["suit"]

    def _redblack_lines(self, g, ev):
        v = g["view"]
        v["asking"] = None
        v["lines"] = {"top": [None] * ev["columns"], "bottom": [None] * ev["columns"]}
        v["give_line"] = ev["give_line"]
        g["turn"] = None

    def _redblack_column(self, g, ev):
        v = g["view"]
        i = ev["column"] - 1
        give_line = v["give_line"] or g["options"]["give_line"]  # the `lines`, or the `game`
        take_line = "bottom" if give_line == "top" else "top"
        if v["lines"] is None:  # joined after the `lines` event: the columns seen so far
            v["lines"] = {"top": [], "bottom": []}
        for line in v["lines"].values():
            line.extend([None] * (i + 1 - len(line)))
        v["lines"][give_line][i] = ev["give"]
        v["lines"][take_line][i] = ev["take"]
        v["column"] = ev["column"]  # the penalties taken come with the `score` that follows

    def _redblack_table(self, g, ev):
        v = g["view"]
        v["given"], v["received"] = list(ev["given"]), list(ev["received"])
        v["table"] = True
        v["handing_out"] = None

    # ---------------------------------------------------------------- Diddly
    def _diddly_score(self, g, ev):
        v = g["view"]
        for key in ("round", "dealer", "turn"):
            if key in ev:
                v[key] = ev[key]
        g["turn"] = ev.get("turn")
        v["entering"] = None

    def _diddly_round_score(self, g, ev):
        v = g["view"]
        v["rounds"][ev["player"] - 1][ev["round"] - 1] = ev["value"]
        v["entering"] = None

    def _diddly_enter(self, g, ev):
        g["view"]["entering"] = {"player": ev["player"], "round": ev["round"],
                                 "value": ev["value"]}

    def _diddly_board(self, g, ev):
        g["view"]["last_board"] = {k: ev[k] for k in ("player", "round", "cards", "columns",
                                                      "value")}

    def _diddly_table(self, g, ev):
        v = g["view"]
        for p, rounds in enumerate(ev["rounds"]):
            n = len(v["rounds"][p])
            v["rounds"][p] = (list(rounds) + [None] * n)[:n]
        g["scores"] = list(ev["scores"])

    # ---------------------------------------------------------------- Evidence
    def _evidence_round(self, g, ev):
        v = g["view"]
        v.update(round=ev["round"], orientation=ev["orientation"], claimers=list(ev["players"]),
                 playoff=bool(ev.get("playoff")), counting=False,
                 markers=[None] * len(v["markers"]), sit_out=[])
        g["phase"] = "claiming"
        g["timers"] = []

    def _evidence_claim(self, g, ev):
        g["view"]["markers"][ev["marker"] - 1] = ev["player"]
        g["timers"] = [t for t in g["timers"] if t.get("player") != ev["player"]]

    def _evidence_lost(self, g, ev):
        g["view"]["markers"][ev["marker"] - 1] = ev["winner"]
        g["view"]["lost"] = {k: ev[k] for k in ("player", "marker", "winner", "margin_ns",
                                                "tie")}

    def _evidence_countdown(self, g, ev):
        name = g["names"].get(str(ev["player"]))
        g["timers"] = [{"label": "P%d%s to claim" % (ev["player"], " " + name if name else ""),
                        "player": ev["player"], "remaining_ms": ev["ms"], "running": True,
                        "at": self.clock()}]

    def _evidence_sit_out(self, g, ev):
        v = g["view"]
        if ev["player"] not in v["sit_out"]:
            v["sit_out"].append(ev["player"])
        g["timers"] = []

    def _evidence_claims(self, g, ev):
        v = g["view"]
        v.update(round=ev["round"], markers=list(ev["markers"]), counting=True)
        g["phase"] = "counting"
        g["timers"] = []

    def _evidence_tokens(self, g, ev):
        v = g["view"]
        v["tally"] = [list(t) for t in ev["tally"]]
        v["last_tokens"] = {k: ev[k] for k in ("round", "differences", "green", "yellow",
                                               "red")}
        v["counting"] = False
        g["phase"] = "next"

    def _evidence_playoff(self, g, ev):
        g["view"]["playoff_players"] = list(ev["players"])

    # ---------------------------------------------------------------- the picture
    def _doing(self, game):
        """The board's sentence for what is happening now (`buttons.doing`), while the game is
        still in the phase it was said in (none is sent while a race is open: a stale sentence
        is not shown); names after the player numbers, as the rest of the screen shows them."""
        if self.doing is None or game is None or game["phase"] != self.doing[1]:
            return None
        names = game.get("names") or {}
        text = re.sub(r"\bP(\d+)\b", lambda m: m.group(0) + (
            " " + names[m.group(1)] if m.group(1) in names else ""), self.doing[0])
        teams = {str(t["team"]): t["name"] for t in (game["view"] or {}).get("teams") or []
                 if t.get("name")} if game["name"] == "quiz" else {}
        text = re.sub(r"\bteam (\d+)\b", lambda m: teams.get(m.group(1), m.group(0)), text)
        if game["name"] == "redblack":  # a card as the wire writes it ("7S") with its suit sign
            text = re.sub(r"\b(A|[2-9]|10|J|Q|K)([SHDC])\b", lambda m: card(m.group(0)), text)
        return text

    def _standings(self, game):
        """The standings screen's rows: each team (a quiz with teams) or each player, with its
        score, best first for a game scored highest-first (the quiz; its teams' ranking once the
        board sends it), else in seat order. [{"label", "players", "score", "leader"}]."""
        if game is None:
            return []
        view = game["view"] or {}
        teams = view.get("teams") if game["name"] == "quiz" else None
        if teams:
            rows = [{"label": t["name"] or "team %d" % t["team"], "players": list(t["players"]),
                     "score": t["score"], "team": t["team"], "place": t.get("place")}
                    for t in teams]
        else:
            places = (view.get("places") or []) if game["name"] == "quiz" else []
            rows = [{"label": "P%d" % (i + 1), "players": [i + 1], "score": s, "team": None,
                     "place": places[i] if i < len(places) else None}
                    for i, s in enumerate(game["scores"])]
        if all(r["place"] for r in rows):  # the board ranks them (the quiz's `score` places)
            rows.sort(key=lambda r: r["place"])
        ahead = any(r["place"] and r["place"] > 1 for r in rows)  # someone is behind
        for r in rows:
            r["leader"] = ahead and r["place"] == 1
        return rows

    def set_screen(self, screen):
        """The desk puts a full-screen view on the room's screens: "standings", or None (the
        board). Raises ValueError for another."""
        if screen not in (None, "standings"):
            raise ValueError("the room's screen is the board or \"standings\" (got %r)" % screen)
        self.screen = screen
        self.version += 1

    def set_sound(self, sounds, speech):
        """The desk switches the TV's short sounds (armed, buzz, time's up, game over) and its
        spoken calls (who buzzed, who won) on or off. Raises ValueError unless both are bools."""
        if not isinstance(sounds, bool) or not isinstance(speech, bool):
            raise ValueError("sounds and speech are true or false")
        self.sound = {"sounds": sounds, "speech": speech}
        self.version += 1

    def view(self, desk=False):
        """The whole picture (JSON-able). Timers carry the ms left at this moment. With `desk`,
        it also holds `desk_only`: what the room must not see (Evidence's number being entered);
        the scoreboard's view never carries it, not even unseen in the page's data."""
        now = self.clock()
        game = None
        if self.game is not None:
            game = copy.deepcopy(self.game)
            timers = []
            for t in game["timers"]:
                left = t["remaining_ms"]
                if t["running"]:
                    left -= (now - t["at"]) * 1000
                timers.append({"label": t["label"], "remaining_ms": max(0, int(left)),
                               "running": t["running"]})
            for p, lock in sorted(game["locked"].items(), key=lambda kv: int(kv[0])):
                if lock["until"] is not None:
                    left = max(0, int((lock["until"] - now) * 1000))
                    timers.append({"label": "P%s locked out" % p, "remaining_ms": left,
                                   "running": True})
            game["timers"] = timers
            game["locked"] = {p: {"reason": lk["reason"]} for p, lk in game["locked"].items()}
            if game["race"] is not None:
                game["race"].pop("presses", None)
                if game["race"].get("winner") is not None:
                    game["race"].pop("previous", None)
        if game is None or game["name"] != "evidence" or not game["view"].get("counting"):
            self.desk_only.pop("dial", None)
        out = {
            "version": self.version,
            "source": dict(self.source),
            "board": self.board,
            "colours": list(self.colours),  # each station's, as the box lights it (its palette)
            "palette": self.palette,
            "menu": self.menu,
            "game": game,
            "log": list(self.log if desk else self.room_log),
            "doing": self._doing(game),
            "screen": self.screen,
            "sound": dict(self.sound),
            "standings": self._standings(game),
            "time_up": None,
            "notices": list(self.notices),
            "photo": None,
        }
        shot = getattr(self, "photo", None)
        if shot is not None:
            age = now - self.photo_at
            out["photo"] = dict(shot, showing=age < self.PHOTO_S,
                                left_ms=max(0, int((self.PHOTO_S - age) * 1000)),
                                shown=self.photo_shown)
        if self.time_up is not None and game is not None:
            age = now - self.time_up["at"]
            if age < self.TIME_UP_S:
                out["time_up"] = {"text": self.time_up["text"],
                                  "left_ms": int((self.TIME_UP_S - age) * 1000)}
        packet_desk, packet_room = self._packet_views()
        out["packet"] = packet_room  # the room: number and category, never the answer
        if desk:
            out["desk_only"] = copy.deepcopy(self.desk_only)
            out["prompts"] = list(self.prompts)  # [[control, meaning]]: the `buttons` event
            out["desk_only"]["packet"] = packet_desk
        return out
