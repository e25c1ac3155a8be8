"""Readable text for people: protocol events as plain sentences.

The one formatter of the host tools: `tablebuzz sim --pretty`, `tablebuzz monitor`, the TUI's log,
`tablebuzz replay` and the scoreboard's log all print what this module writes. No Python reprs
(`None`, `True`, dict text) ever reach a person: every field is put into words, and an event this
module does not know is shown as `name: key value, key value` with JSON values.

`Narrator` is stateful because some sentences need what came before: names learnt from `name`
events, the game a `game_over` ends. A split tie is explained in the board's own words
(`game_over`'s `tie_break`): the host never works a game's rule out. `describe(ev)` is the
stateless short-cut for one event. The sentences of the events every game shares are here
(`Narrator.WORDS`, an explicit table from event name to method); each game's own are in its
module (tablebuzz.views.games.<game>.WORDS); the words themselves in tablebuzz.views.words.

Sources: docs/protocol.md (common events), docs/games/*.md (each game's own events).
"""

from tablebuzz.views.games import GAMES
from tablebuzz.views.words import (  # noqa: F401 - the words every tool takes from here
    card,
    count,
    duration,
    fields_text,
    game_name,
    joined,
    margin_words,
    menu_text,
    option_text,
    place,
    players_text,
    seconds,
)


def _game_words():
    """Every game's sentences for its own events (tablebuzz.views.games.<game>.WORDS) as one
    table: an event name belongs to one game."""
    words = {}
    for name, game in GAMES.items():
        for kind, say in game.WORDS.items():
            assert kind not in words, "%s's event %s is another game's" % (name, kind)
            words[kind] = say
    return words


GAME_WORDS = _game_words()


class Narrator:
    """Turns a stream of protocol events into readable lines, remembering what tie-breaks need.

    `line(ev)` -> str for one event dict (never raises for a malformed event: it falls back to
    its fields). `names` (optional, {player number: name}) puts names after player numbers
    ("P1 Ann").
    """

    def __init__(self, names=None):
        self.names = dict(names or {})
        self.learnt = {}  # quiz: names the device's `name` events gave, {player: the name before}
        self.team_names = {}  # quiz: {team number: name}, from `name` events
        self.game = None

    def p(self, number):
        name = self.names.get(number)
        return "P%s %s" % (number, name) if name else "P%s" % number

    def line(self, ev):
        kind = ev.get("ev")
        handler = self.WORDS.get(kind) or GAME_WORDS.get(kind)  # explicit tables, by name
        if handler is not None:
            try:
                return handler(self, ev)
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                pass  # a malformed event: its fields say what it holds
        fields = fields_text(ev)
        return "%s: %s" % (kind, fields) if fields else str(kind)

    # ---------------------------------------------------------------- common events
    def _ev_hello(self, ev):
        return "board: firmware %s, protocol %s, %s stations, capture %s" % (
            ev["fw"], ev["proto"], ev["stations"], ev["capture"]
        )

    def _ev_palette(self, ev):
        return "station colours: %s" % ev["text"]  # the board's words for its palette

    def _ev_game(self, ev):
        self.game = ev["game"]
        self._forget_learnt()  # the device's names were the last game's
        self.team_names = {}
        options = ev.get("options") or {}
        opts = "; ".join(option_text(k, v, ev["game"]) for k, v in sorted(options.items()))
        return "new game: %s, %d players%s; seed commitment %s" % (
            game_name(ev["game"]), ev["players"], " (%s)" % opts if opts else "",
            str(ev.get("commit", ""))[:16] + "…",
        )

    def _forget_learnt(self):
        for number, before in self.learnt.items():
            if before is None:
                self.names.pop(number, None)
            else:
                self.names[number] = before
        self.learnt = {}

    def team(self, number):
        name = self.team_names.get(number)
        return "team %s %s" % (number, name) if name else "team %s" % number

    def _ev_score(self, ev):
        unit = ev.get("unit", "points")
        text = "%s: %s" % (unit, ", ".join(
            "%s %d" % (self.p(i + 1), s) for i, s in enumerate(ev["scores"])
        ))
        if ev.get("teams"):
            text += " · teams: " + ", ".join(
                "%s %d" % (self.team(i + 1), s) for i, s in enumerate(ev["teams"])
            )
        extra = []
        if "round" in ev:
            extra.append("round %s" % ev["round"])
        if ev.get("dealer"):
            extra.append("dealer %s" % self.p(ev["dealer"]))
        if "turn" in ev:
            extra.append(
                "%s to enter" % self.p(ev["turn"]) if ev["turn"] else "every score is in"
            )
        return text + (" · " + ", ".join(extra) if extra else "")

    def _ev_press(self, ev):
        return "press: %s at %d.%03d µs" % (self.p(ev["player"]), ev["t_us"], ev.get("t_ns", 0))

    def _ev_armed(self, ev):
        return "armed: %s" % players_text(ev["players"], "nobody may buzz")

    def _ev_race(self, ev):
        if ev.get("tie"):
            tied = joined([self.p(p) for p in ev["tied"]])
            return "race: tie %s, the draw gives the floor to %s" % (tied, self.p(ev["winner"]))
        if ev.get("margin_ns") is None:
            return "race: %s first (nobody else yet)" % self.p(ev["winner"])
        return "race: %s by %s" % (self.p(ev["winner"]), duration(ev["margin_ns"]))

    def _ev_margin(self, ev):
        return "margin: %s beat %s by %s" % (
            self.p(ev["winner"]), self.p(ev["player"]), duration(ev["margin_ns"])
        )

    def _ev_lockout(self, ev):
        why = {"false_start": "false start", "wrong": "wrong answer"}.get(
            ev["reason"], str(ev["reason"]).replace("_", " ")
        )
        if ev.get("ms") is not None:
            length = "out for %d ms" % ev["ms"]
        elif ev["reason"] == "wrong":
            length = "out until the game lets them back in"
        else:
            length = "out for this race"
        return "lockout: %s (%s), %s" % (self.p(ev["player"]), why, length)

    def _ev_unlock(self, ev):
        return "unlock: %s may race again" % self.p(ev["player"])

    def _ev_judge(self, ev):
        text = "judge: %s %s" % (self.p(ev["player"]), "correct" if ev["correct"] else "wrong")
        if ev.get("interrupt"):
            text += ", an interrupt"
        if ev.get("power"):
            text += ", a power"
        if ev.get("points"):
            text += " (%+d %s)" % (ev["points"], "point" if abs(ev["points"]) == 1 else "points")
        return text

    def _ev_menu(self, ev):
        return "menu: %s  (%d of %d)" % (menu_text(ev), ev["index"], ev["of"])

    def _ev_undo(self, ev):
        return "undo: the last decision taken back"  # (its log entries: the desk's business)

    def _ev_resume(self, ev):
        self.game = ev["game"]
        return "resumed after a restart: %s, %d players, %d log entries folded back" % (
            game_name(ev["game"]), ev["players"], ev.get("log", 0)
        )

    def _ev_reseed(self, ev):
        return "reseed: the game goes on under a new seed commitment %s…" % str(ev["commit"])[:16]

    def _ev_state(self, ev):
        parts = ["%s, %s" % (game_name(ev["game"]), str(ev["phase"]).replace("_", " "))]
        if ev.get("answering"):
            parts.append("%s has the floor" % self.p(ev["answering"]))
        if ev.get("turn"):
            parts.append("%s's turn" % self.p(ev["turn"]))
        if ev.get("locked"):
            parts.append("locked out: %s" % players_text(ev["locked"]))
        unit = ev.get("unit", "points")
        parts.append("%s: %s" % (unit, ", ".join(
            "%s %d" % (self.p(i + 1), s) for i, s in enumerate(ev["scores"])
        )))
        return "state: " + "; ".join(parts)

    def _ev_error(self, ev):
        return "refused: %s" % ev["detail"]  # the board's words (the code is for programs)

    def _ev_buttons(self, ev):
        return "controls: %s" % (", ".join("%s %s" % (c, m) for c, m in ev["buttons"])
                                 or "none")

    def _ev_done(self, ev):
        return "done: %s (id %s)" % (ev["cmd"], ev["id"])

    def _ev_game_over(self, ev):
        unit = ev.get("unit", "points")
        ranking = ev["ranking"]
        standings = ", ".join(
            "%s %s" % (self.p(r["player"]), count(r["score"], unit)) for r in ranking
        )
        seed = "seed %s" % ev["seed"]
        if ev.get("abandoned"):
            self.game = None
            return "game abandoned (no winner): %s stopped with %s; %s" % (
                game_name(ev.get("game")), standings, seed
            )
        ranks = ", ".join(
            "%d. %s (%s)" % (r["place"], self.p(r["player"]), count(r["score"], unit))
            for r in ranking
        )
        notes = self.tie_notes(ev.get("game"), ranking, unit, ev.get("tie_break"))
        self.game = None
        return "game over: %s%s; %s" % (ranks, "".join(" · " + n for n in notes), seed)

    def tie_notes(self, game, ranking, unit, tie_break=None):
        """Sentences explaining equal scores: a shared place, or the tie-break that split them,
        in the board's own words (`game_over`'s `tie_break`: the game alone knows its rule)."""
        notes = []
        groups = {}
        for r in ranking:
            groups.setdefault(r["score"], []).append(r)
        for score, group in groups.items():
            if len(group) < 2:
                continue
            who = joined([self.p(r["player"]) for r in group])
            places = sorted({r["place"] for r in group})
            if len(places) == 1:
                notes.append("%s share %s place on %s" % (who, place(places[0]),
                                                         count(score, unit)))
                continue
            why = tie_break if tie_break else ""  # the board's words (game_over.tie_break)
            tie_break = None  # it explains the first split tie
            notes.append("%s tied on %s%s" % (who, count(score, unit), "; " + why if why else ""))
        return notes

    # ------------------------------------------- events of the same name in two games
    def _ev_timer(self, ev):
        if ev["timer"] == "round":  # Déglingo's round timer, as the board runs it
            if ev.get("running") is False:
                return "round timer paused: an observer answers"
            if ev.get("ms") is None:
                return "round timer runs again"
            return "round timer: %s" % seconds(ev["ms"])
        if ev["timer"] == "buzz":
            return "timer: %s to buzz" % seconds(ev["ms"])
        if ev["timer"] == "bonus":
            return "timer: %s for the bonus part" % seconds(ev["ms"])
        return "timer: %s for %s to answer" % (seconds(ev["ms"]), self.p(ev["player"]))

    def _ev_round(self, ev):
        if "orientation" in ev:  # Evidence
            text = "round %d%s: photos top edge %s; %s claim" % (
                ev["round"], " (play-off)" if ev.get("playoff") else "", ev["orientation"],
                players_text(ev.get("players")),
            )
            return text
        return "round %d: dealer %s, %s enters first" % (
            ev["round"], self.p(ev["dealer"]), self.p(ev["first"])
        )

    def _ev_table(self, ev):
        if "rounds" in ev:  # Diddly
            rows = [
                "%s %s = %d" % (self.p(i + 1), " ".join(str(s) for s in r), ev["scores"][i])
                for i, r in enumerate(ev["rounds"])
            ]
            return "table: " + "; ".join(rows)
        rows = [  # Red or Black
            "%s gave %d, took %d, %+d" % (self.p(i + 1), g, ev["received"][i],
                                          ev["difference"][i])
            for i, g in enumerate(ev["given"])
        ]
        return "table: " + "; ".join(rows)

    # event name -> its sentence (each game's own events: GAME_WORDS)
    WORDS = {
        "hello": _ev_hello,
        "palette": _ev_palette,
        "game": _ev_game,
        "score": _ev_score,
        "press": _ev_press,
        "armed": _ev_armed,
        "race": _ev_race,
        "margin": _ev_margin,
        "lockout": _ev_lockout,
        "unlock": _ev_unlock,
        "judge": _ev_judge,
        "menu": _ev_menu,
        "undo": _ev_undo,
        "resume": _ev_resume,
        "reseed": _ev_reseed,
        "state": _ev_state,
        "error": _ev_error,
        "buttons": _ev_buttons,
        "done": _ev_done,
        "game_over": _ev_game_over,
        "timer": _ev_timer,
        "round": _ev_round,
        "table": _ev_table,
    }


class RoomNarrator(Narrator):
    """The scoreboard's log (a TV across the room): Narrator's sentences, without the presses'
    raw µs stamps (a race's line says who won and by how much) and with margins rounded
    (margin_words). `line(ev)` is None for an event the room's log leaves out."""

    def _ev_press(self, ev):
        return None  # the race line that follows says it in words

    def _ev_race(self, ev):
        if ev.get("tie"):
            tied = joined([self.p(p) for p in ev["tied"]])
            return "%s tied: the draw gives the floor to %s" % (tied, self.p(ev["winner"]))
        if ev.get("margin_ns") is None:
            return "%s buzzed first, nobody else within 2 ms" % self.p(ev["winner"])
        return "%s buzzed first, by %s" % (self.p(ev["winner"]), margin_words(ev["margin_ns"]))

    def _ev_margin(self, ev):
        return "%s beat %s by %s" % (self.p(ev["winner"]), self.p(ev["player"]),
                                     margin_words(ev["margin_ns"]))

    def _ev_next_in_line(self, ev):
        waiting = ev["waiting"]
        return "next in line: %s has the floor, %s after the first buzz%s; %s" % (
            self.p(ev["player"]), margin_words(ev["behind_ns"]),
            " (a tie, drawn)" if ev.get("tie") else "",
            "%d more waiting" % waiting if waiting else "nobody else waiting",
        )

    def _ev_lost(self, ev):
        how = "a tie, drawn" if ev.get("tie") else "%s earlier" % margin_words(ev["margin_ns"])
        return "%s lost marker %d to %s (%s)" % (self.p(ev["player"]), ev["marker"],
                                                 self.p(ev["winner"]), how)

    def _ev_state(self, ev):
        return None  # a host's resync: the screen itself shows the state

    # event name -> its sentence (the room's, where it differs)
    WORDS = dict(Narrator.WORDS, **{
        "press": _ev_press,
        "race": _ev_race,
        "margin": _ev_margin,
        "next_in_line": _ev_next_in_line,
        "lost": _ev_lost,
        "state": _ev_state,
    })


def describe(ev):
    """One readable line for one event dict, without context (see `Narrator`)."""
    return Narrator().line(ev)
