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

The fold is in pieces by job, each a table from event name to function (`FOLD`): the race's
(tablebuzz.views.race: armed, presses, the winner and margin, lockouts, the photo finish), the
scores' (tablebuzz.views.scores: scores, names, the game-over ranking, the standings) and each
game's own (tablebuzz.views.games.<game>: its view, its part of `game`, `state` and the undo).
This module keeps the connection, the board's phase and prompts, the desk's packet and the
picture (`view`).
"""

import copy
import re
import time

from tablebuzz.views import describe as device_words
from tablebuzz.views import race, scores
from tablebuzz.views.colours import checked as colour_list
from tablebuzz.views.colours import player_colours
from tablebuzz.views.eventlog import Narrator, RoomNarrator
from tablebuzz.views.games import GAMES
from tablebuzz.views.race import behind_ns, stamp_ns  # noqa: F401 - the race's stamps
from tablebuzz.views.words import card, game_name, option_text

LOG_LINES = 10
# Events kept out of the room's log: Evidence's number being entered would show the true count
# before it is confirmed (docs/games/evidence.md; the desk shows it on its number pad).
NOT_FOR_THE_ROOM = ("dial",)



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
            last = g.get("race")
            if last is not None and last.get("winner") is not None and phase != "answering":
                last["settled"] = True
                last["margin_text"] = race.margin_text(last)

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
            race.photo_track(self, kind, ev)
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
        for part in self._parts(g):  # the race's, the scores', the game's own (its FOLD)
            handler = part.get(kind)
            if handler is not None:
                handler(self, g, ev)

    @staticmethod
    def _parts(g):
        """The FOLD tables an event of game `g` goes through, in order."""
        game = GAMES.get(g["name"])
        return (race.FOLD, scores.FOLD) + ((game.FOLD,) if game is not None else ())

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


    def question_no(self):
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
        game = GAMES.get(name)  # its own view, of the firmware's sizes (describe.layout)
        return {
            "name": name,
            "title": game_name(name),
            "wins": device_words.wins(name),  # the firmware's words, "" where scores say it
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
            "view": game.blank(players, device_words.layout(name)) if game else {},
        }

    def _new_game(self, ev):
        self.menu = None
        self.photo = None  # a photo finish belongs to its game's races
        self.race_events = []
        names = dict(self.pending_names)
        for i, name in enumerate(ev.get("names") or []):  # a firmware that carries names
            if name:
                names[i + 1] = name
        for narrator in (self.narrator, self.room_narrator):
            narrator.names = dict(names)
            narrator.learnt = {}  # the host sets the names of this game
        self.game = self._blank_game(ev["game"], ev["players"], ev.get("options") or {},
                                     ev.get("commit"), names)
        self._game_part(self.game, "game", ev)  # the game's own (the quiz's teams)

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
        self._game_part(g, "state", ev)  # the game's own `state` fields

    def _undo(self, g):
        """An undo: what it took back is no longer shown (the race, the game's end, Evidence's
        last tokens); the `score`, `state` and prompts that follow say what stands now."""
        g["race"] = None
        g["over"] = None
        g["closed"] = False
        self._game_part(g, "undo", {})  # what the game's own view took back (Evidence's)

    def _game_part(self, g, kind, ev):
        """Game `g`'s own part of event `kind` (its module's FOLD), if it has one."""
        game = GAMES.get(g["name"])
        handler = game.FOLD.get(kind) if game is not None else None
        if handler is not None:
            handler(self, g, ev)

    TIME_UP_S = 4  # the scoreboard's "time's up" screen shows this long

    def time_is_up(self, text):
        """The time's up screen says whose time it was ("P3 ran out of time to answer"): the
        screen itself says time's up."""
        if text.startswith("time up: "):
            text = text[len("time up: "):]
        self.time_up = {"text": text, "at": self.clock()}

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
            "standings": scores.standings(game),
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
