"""Readable text for people: protocol events as plain sentences.

The one formatter of the host tools: `tablebuzz sim --pretty`, `tablebuzz monitor`, the TUI's log,
`tablebuzz replay` and the scoreboard's log all print what this module writes. No Python reprs
(`None`, `True`, dict text) ever reach a person: every field is put into words, and an event this
module does not know is shown as `name: key value, key value` with JSON values.

`Narrator` is stateful because some sentences need what came before: names learnt from `name`
events, the game a `game_over` ends. A split tie is explained in the board's own words
(`game_over`'s `tie_break`): the host never works a game's rule out. `describe(ev)` is the
stateless short-cut for one event.

Sources: docs/protocol.md (common events), docs/games/*.md (each game's own events).
"""

import json

from tablebuzz.views import describe as device_words

GAME_NAMES = {
    "quiz": "quiz",
    "difference": "Difference",
    "deglingo": "Déglingo",
    "redblack": "Red or Black",
    "diddly": "Diddly",
    "evidence": "Evidence",
}

DEAD_WHY = {"cancel": "cancelled", "wrong": "every team was wrong", "time": "time ran out"}

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
QUESTIONS = {
    "red_black": "red or black?",
    "higher_lower": "higher or lower?",
    "between_outside": "between or outside?",
    "suit": "which suit?",
}
DEGLINGO_HOW = {
    "found": "an observer found it",
    "all_wrong": "every observer was wrong",
    "gave_up": "the table gave up",
    "time": "time ran out",
    "wrong": "the observer was wrong",
    "stop": "the observer stopped",
    "all_found": "the observer found them all",
    "all_locked": "every observer false-started",
}
PLACE_WORDS = {1: "1st", 2: "2nd", 3: "3rd"}


def menu_text(ev):
    """A `menu` event's step and value for people, in the board's words (its `label` and
    `text`): "time to buzz: no timer", "game: Red or Black", "false start: 250 ms". Without a
    text (an older board), a game is named by the host's own name for it."""
    step = str(ev.get("step"))
    value = ev.get("text")
    if not value:
        value = game_name(ev.get("value")) if step == "game" else ev.get("value")
    label = ev.get("label") or device_words.option_label(ev.get("game"), step)
    return "%s: %s" % (label, value)


def game_name(name):
    """The game's name as people write it ("Déglingo"); an unknown name as given."""
    return GAME_NAMES.get(name, str(name))


def duration(ns):
    """A margin for people: ms at 1 ms and above, else µs ("840.00 µs", "0.336 µs", "1.25 ms").
    `ns` is an int (ns) or None ("unknown")."""
    if ns is None:
        return "unknown"
    if abs(ns) >= 1000000:
        return "%.2f ms" % (ns / 1e6)
    if abs(ns) >= 1000:
        return "%.2f µs" % (ns / 1000)
    return "%.3f µs" % (ns / 1000)


def count(n, unit):
    """'1 point', '3 cards', '0 points', '1 penalty'."""
    if n == 1 and unit.endswith("ies"):
        unit = unit[:-3] + "y"
    elif n == 1 and unit.endswith("s"):
        unit = unit[:-1]
    return "%d %s" % (n, unit)


def _seconds(ms):
    """'5 s', '2.5 s'."""
    return ("%d s" % (ms // 1000)) if ms % 1000 == 0 else ("%.1f s" % (ms / 1000))


def place(n):
    return PLACE_WORDS.get(n, "%dth" % n)


def value_text(value):
    """A protocol value in words: true/false -> on/off, null -> none, lists and objects as JSON."""
    if value is True:
        return "on"
    if value is False:
        return "off"
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def option_text(name, value, game=None):
    """One option of `game` for people, in the board's own words (tablebuzz.views.describe: the
    firmware's game class): "false start: 250 ms", "target: no target", "beginner: off"."""
    return device_words.option_words(game, name, value)


def card(text):
    """A card from the wire ("10S", "QH") with its suit sign: "10♠", "Q♥"."""
    if not isinstance(text, str) or not text:
        return value_text(text)
    return text[:-1] + SUITS.get(text[-1], text[-1])


def players_text(players, empty="nobody"):
    """"P1 P3" for [1, 3], `empty` for []."""
    if not players:
        return empty
    return " ".join("P%s" % p for p in players)


def _and(items):
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _spread(spread):
    """[{player, penalties}] -> "P1 2, P3 1"."""
    return ", ".join("P%s %s" % (d.get("player"), d.get("penalties")) for d in spread or [])


def fields_text(ev):
    """Fallback for an event this module does not know: its fields with JSON values."""
    return ", ".join(
        "%s %s" % (k, value_text(v)) for k, v in ev.items() if k != "ev"
    )


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
        handler = getattr(self, "_ev_" + str(kind), None)
        if handler is not None:
            try:
                return handler(ev)
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
            tied = _and([self.p(p) for p in ev["tied"]])
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

    def _ev_finished(self, ev):
        return "finished: %s emptied their pile, %s place" % (
            self.p(ev["player"]), place(ev["place"])
        )

    def _ev_skip(self, ev):
        return "skip: %s puts the card under the pile (%s left)" % (
            self.p(ev["player"]), count(ev["cards"], "cards")
        )

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
            who = _and([self.p(r["player"]) for r in group])
            places = sorted({r["place"] for r in group})
            if len(places) == 1:
                notes.append("%s share %s place on %s" % (who, place(places[0]),
                                                         count(score, unit)))
                continue
            why = tie_break if tie_break else ""  # the board's words (game_over.tie_break)
            tie_break = None  # it explains the first split tie
            notes.append("%s tied on %s%s" % (who, count(score, unit), "; " + why if why else ""))
        return notes

    # ---------------------------------------------------------------- quiz
    def _ev_question(self, ev):
        return "question %d, worth %s%s: buzzers armed" % (
            ev["question"], count(ev["points"], "points"),
            ", sudden death" if ev.get("sudden_death") else "",
        )

    def _ev_dead(self, ev):
        return "question %d is dead, nobody scores: %s" % (
            ev["question"], DEAD_WHY.get(ev["reason"], str(ev["reason"]).replace("_", " "))
        )

    def _ev_next_in_line(self, ev):
        waiting = ev["waiting"]
        return "next in line: %s has the floor, %s after the first press%s; %s" % (
            self.p(ev["player"]), duration(ev["behind_ns"]),
            " (a tie, drawn)" if ev.get("tie") else "",
            "%d more waiting" % waiting if waiting else "nobody else waiting",
        )

    def _ev_read(self, ev):
        return "question %d read to the end: a wrong answer now is no interrupt" % ev["question"]

    def _ev_protest(self, ev):
        who = "team %d" % ev["team"] if ev.get("team") else "a team"
        return "protest on question %d by %s: %s" % (ev["question"], who, ev.get("note") or "")

    def _ev_power_mark(self, ev):
        return "question %d: the power mark passed, a buzz now earns no power" % ev["question"]

    def _ev_timer(self, ev):
        if ev["timer"] == "round":  # Déglingo's round timer, as the board runs it
            if ev.get("running") is False:
                return "round timer paused: an observer answers"
            if ev.get("ms") is None:
                return "round timer runs again"
            return "round timer: %s" % _seconds(ev["ms"])
        if ev["timer"] == "buzz":
            return "timer: %s to buzz" % _seconds(ev["ms"])
        if ev["timer"] == "bonus":
            return "timer: %s for the bonus part" % _seconds(ev["ms"])
        return "timer: %s for %s to answer" % (_seconds(ev["ms"]), self.p(ev["player"]))

    def _ev_time_warning(self, ev):
        return "time: %s left for %s" % (_seconds(ev["ms"]), self.p(ev["player"]))

    def _ev_time_up(self, ev):
        if ev.get("timer") == "bonus":
            return "time up: the bonus part's time ran out"
        return "time up: %s ran out of time to answer" % self.p(ev["player"])

    def _ev_adjust(self, ev):
        return "by hand: %s %+d" % (self.p(ev["player"]), ev["points"])

    def _ev_name(self, ev):
        if ev.get("team"):
            names, number, who = self.team_names, ev["team"], "team %s" % ev["team"]
        else:
            names, number, who = self.names, ev["player"], "P%s" % ev["player"]
            self.learnt.setdefault(number, self.names.get(number))
        if ev.get("name"):
            names[number] = ev["name"]
            return "name: %s is %s" % (who, ev["name"])
        names.pop(number, None)
        return "name: %s has no name" % who

    def _ev_bonus(self, ev):
        return "bonus: %s plays the bonus of tossup %d (%s of %s)" % (
            self.team(ev["team"]), ev["question"], count(ev["parts"], "parts"),
            count(ev["points"], "points"))

    def _ev_part(self, ev):
        if ev.get("team") is None:
            return "bonus part %d: missed" % ev["part"]
        return "bonus part %d: %s %+d" % (ev["part"], self.team(ev["team"]), ev["points"])

    def _ev_bonus_scored(self, ev):
        parts = []
        for i, (team, points) in enumerate(zip(ev["parts"], ev["points"], strict=True)):
            who = "missed" if team is None else "%s %+d" % (self.team(team), points)
            if team is not None and team != ev["team"]:
                who += " (bounced back)"
            parts.append("part %d %s" % (i + 1, who))
        return "bonus of tossup %d: %s" % (ev["question"], "; ".join(parts))

    def _ev_overtime(self, ev):
        return "overtime: a tie after the tossups; %s more" % count(ev["questions"], "tossups")

    def _ev_sudden_death(self, ev):
        return "sudden death: a tie at the top; only %s race" % _and(
            [self.p(p) for p in ev["players"]]
        )

    def _ev_team_ranking(self, ev):
        unit = ev.get("unit", "points")
        return "teams: " + ", ".join(
            "%d. %s (%s)" % (r["place"], self.team(r["team"]), count(r["score"], unit))
            for r in ev["ranking"]
        )

    # ---------------------------------------------------------------- Déglingo
    def _ev_deglingo(self, ev):
        return "Déglingo! %s called it (round %d): the observers race" % (
            self.p(ev["active"]), ev["round"]
        )

    def _ev_round_over(self, ev):
        how = DEGLINGO_HOW.get(ev["how"], str(ev["how"]).replace("_", " "))
        gains = [
            "%s +%d" % (self.p(i + 1), n) for i, n in enumerate(ev.get("points") or []) if n
        ]
        text = "round %d over: %s; %s replaced, %d found; %s" % (
            ev["round"], how, count(ev["replaced"], "cards"), ev["found"],
            ", ".join(gains) if gains else "no points",
        )
        if ev.get("next"):
            text += "; next active player %s" % self.p(ev["next"])
        return text

    # ---------------------------------------------------------------- Diddly (and round)
    def _ev_enter(self, ev):
        return "entering %s's round %d score: %d" % (
            self.p(ev["player"]), ev["round"], ev["value"]
        )

    def _ev_board(self, ev):
        return "board of %s, round %d: %s -> columns %s = %s" % (
            self.p(ev["player"]), ev["round"], " ".join(str(c) for c in ev["cards"]),
            " + ".join(str(c) for c in ev["columns"]), count(ev["value"], "points"),
        )

    def _ev_round_score(self, ev):
        return "round %d: %s scores %s" % (
            ev["round"], self.p(ev["player"]), count(ev["value"], "points")
        )

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

    # ---------------------------------------------------------------- Evidence
    def _ev_claim(self, ev):
        return "claim: %s takes marker %d" % (self.p(ev["player"]), ev["marker"])

    def _ev_lost(self, ev):
        if ev.get("tie"):
            how = "a tie, drawn"
        else:
            how = "%s earlier" % duration(ev["margin_ns"])
        return "lost: %s lost marker %d to %s (%s)" % (
            self.p(ev["player"]), ev["marker"], self.p(ev["winner"]), how
        )

    def _ev_countdown(self, ev):
        return "countdown: %s is the last without a marker, %d ms to claim" % (
            self.p(ev["player"]), ev["ms"]
        )

    def _ev_sit_out(self, ev):
        return "sit out: %s is out of round %d's scoring" % (self.p(ev["player"]), ev["round"])

    def _ev_claims(self, ev):
        taken = [
            "%d %s" % (m + 1, self.p(p)) for m, p in enumerate(ev["markers"]) if p is not None
        ]
        return "claims closed, round %d: %s" % (
            ev["round"], ", ".join(taken) if taken else "no marker taken"
        )

    def _ev_dial(self, ev):
        return "count entered so far: %d" % ev["value"]

    def _ev_tokens(self, ev):
        colours = []
        for colour in ("green", "yellow", "red"):
            colours.append("%s %s" % (colour, self.p(ev[colour]) if ev[colour] else "nobody"))
        return "round %d: %s; %s" % (
            ev["round"], count(ev["differences"], "differences"), ", ".join(colours)
        )

    def _ev_playoff(self, ev):
        return "play-off: %s still tied, round %d decides" % (
            _and([self.p(p) for p in ev["players"]]), ev["round"]
        )

    # ---------------------------------------------------------------- Red or Black
    def _ev_ask(self, ev):
        hand = " ".join(card(c) for c in ev.get("hand") or []) or "no card yet"
        return "%s, round %d: %s (holds %s)" % (
            self.p(ev["player"]), ev["round"], QUESTIONS.get(ev["question"], ev["question"]), hand
        )

    def _ev_guess(self, ev):
        answer = SUIT_NAMES.get(ev["answer"], ev["answer"])
        return "%s said %s: %s, %s (%s)" % (
            self.p(ev["player"]), answer, card(ev["card"]), "right" if ev["right"] else "wrong",
            count(ev["penalties"], "penalties"),
        )

    def _ev_take(self, ev):
        return "%s takes %s" % (self.p(ev["player"]), count(ev["penalties"], "penalties"))

    def _ev_give(self, ev):
        return "%s hands out %s" % (self.p(ev["player"]), count(ev["penalties"], "penalties"))

    def _ev_pick(self, ev):
        return "%s gives a penalty to %s (%d left)" % (
            self.p(ev["giver"]), self.p(ev["player"]), ev["left"]
        )

    def _ev_unpick(self, ev):
        return "%s takes back a penalty from %s (%d left)" % (
            self.p(ev["giver"]), self.p(ev["player"]), ev["left"]
        )

    def _ev_given(self, ev):
        return "%s gave %s" % (self.p(ev["player"]), _spread(ev["to"]) or "nothing")

    def _ev_suit(self, ev):
        return "%s: suit shown %s" % (self.p(ev["player"]), SUIT_NAMES.get(ev["suit"], ev["suit"]))

    def _ev_lines(self, ev):
        return "part 2: two lines of %d cards; the %s line gives" % (
            ev["columns"], ev["give_line"]
        )

    def _ev_column(self, ev):
        text = "column %d: give %s, take %s" % (ev["column"], card(ev["give"]), card(ev["take"]))
        if ev.get("givers"):
            text += "; gives: " + _spread(ev["givers"])
        if ev.get("takers"):
            text += "; takes: " + _spread(ev["takers"])
        return text


def margin_words(ns):
    """A margin for a room's screen, rounded to what a person reads: "336 ns", "7.4 µs",
    "738 µs", "1.3 ms", "12 ms". `ns` is an int (ns) or None ("unknown")."""
    if ns is None:
        return "unknown"
    size = abs(ns)
    if size < 1000:
        return "%d ns" % ns
    if size < 10000:
        return "%.1f µs" % (ns / 1000)
    if size < 1000000:
        return "%d µs" % round(ns / 1000)
    if size < 10000000:
        return "%.1f ms" % (ns / 1e6)
    return "%d ms" % round(ns / 1e6)


class RoomNarrator(Narrator):
    """The scoreboard's log (a TV across the room): Narrator's sentences, without the presses'
    raw µs stamps (a race's line says who won and by how much) and with margins rounded
    (margin_words). `line(ev)` is None for an event the room's log leaves out."""

    def _ev_press(self, ev):
        return None  # the race line that follows says it in words

    def _ev_race(self, ev):
        if ev.get("tie"):
            tied = _and([self.p(p) for p in ev["tied"]])
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


def describe(ev):
    """One readable line for one event dict, without context (see `Narrator`)."""
    return Narrator().line(ev)
