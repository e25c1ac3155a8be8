"""Quiz: a lockout buzzer for quiz night, and the first client of the arbiter.

Someone reads a question, then arms the buzzers (ARM control or `arm`, optionally with the
question's own point value). The first player in wins the floor; the table judges.
- Correct: the player scores `points` (or the question's value) and the next question follows.
- Wrong: the player scores `wrong_points` (0 or negative) and their whole team is out until the
  next question (NAQT "one player per team"). With `next_in_line` the floor passes to the next team
  that had already pressed, in stamp order (commercial "Who's next"); otherwise, or when nobody is
  left in line, the race reopens among the teams still in. With no team left the question is dead.
- NO while the buzzers are armed (or `act cancel`) cancels the question: nobody scores, and it does
  not count as a question played.
- A host `act adjust` changes a player's score by hand (logged, undoable).
- Ends: `target` points reached by a team, `questions` played, or `end`. At the `questions` limit a
  tie at the top goes to sudden death among the tied teams with `sudden_death`.
Quizbowl (option `format`, a preset of the options below; README "Quizbowl"): powers (`judge`
with `points`, e.g. 15), tossup/bonus cycles (`bonus`: after a correct tossup the controlling team
answers `parts` bonus parts, `{"cmd":"bonus","parts":[true,false,true]}` or YES / NO a part; a
part the controlling team missed may bounce back to another team: `parts` names it), a
computation tossup's own buzz window (`arm` with `compute`), `overtime` tossups at a tie, jump
pads (`trigger` "release").
Teams default to every player alone; with `teams` the scores are per player and per team (a team
scores the sum of its players). Names (`act name`) are log entries too, so undo, replay and resume
keep them; an undo never takes a name back.
Source: issue "Quiz mode to tournament grade"; README.md "Quiz"; rules/README.md "Common".
"""

from refbox.compat import const
from refbox.games.base import (
    ENTRY_KIND,
    GameError,
    RaceGame,
    false_start_option,
    flag,
    int_in,
    one_of,
    option,
    rank_highest_first,
)
from refbox.protocol import code_points
from refbox.ticks import Stamp, ticks_add, ticks_diff

# The quiz's log entries (the journal keeps them; undo and resume fold them again), each a tuple
# whose first slot is its kind, the others read by these names (const: no allocation, nothing
# kept at run time). µs/ns: a Stamp's two halves; players and teams 0-based, -1 for none.
#   ("arm", points, µs, compute)         ("read", µs)            ("part_read", µs)
#   ("win", player, µs, ns)              ("buzz", player, µs, ns)
#   ("judge", correct, next, µs, ns[, points])   next: the player the floor passes to, or -1
#   ("expired", µs, ns, judged, next)    judged: the answer timed out as wrong
#   ("dead", reason[, µs, ns])           ("part_up", µs, ns)     ("warn", µs, ns)
#   ("part", team, points)               ("bonus", team, team, points, team, points...)
#   ("adjust", player, points)           ("name", "team" | "player", who, text)
#   ("power_mark", µs)                   the reader passed the power mark
#   ("protest", question, team, note)    a protest on a question (team 0-based or -1)
_AT_US = const(1)  # read, part_read
_ARM_POINTS = const(1)
_ARM_US = const(2)
_ARM_COMPUTE = const(3)  # absent in entries from before `compute` (3 long)
_PLAYER = const(1)  # win, buzz, adjust
_PLAYER_US = const(2)  # win, buzz
_PLAYER_NS = const(3)  # win, buzz
_JUDGE_CORRECT = const(1)
_JUDGE_NEXT = const(2)
_JUDGE_US = const(3)
_JUDGE_NS = const(4)
_JUDGE_POINTS = const(5)  # the judge command's own points (a power), when given
_EXPIRED_US = const(1)
_EXPIRED_NS = const(2)
_EXPIRED_JUDGED = const(3)
_EXPIRED_NEXT = const(4)
_DEAD_REASON = const(1)
_PART_TEAM = const(1)
_PART_POINTS = const(2)
_BONUS_PAIRS = const(2)  # where the (team, points) pairs start
_ADJUST_POINTS = const(2)
_NAME_WHOSE = const(1)
_NAME_WHO = const(2)
_NAME_TEXT = const(3)
_PROTEST_QUESTION = const(1)
_PROTEST_TEAM = const(2)
_PROTEST_NOTE = const(3)

READY = "ready"  # question being read; buzzers not armed
BONUS = "bonus"  # quizbowl: the team that answered the tossup plays its bonus
RACING = "racing"  # buzzers armed
ANSWERING = "answering"  # a player answers; the table judges
OVER = "over"

MAX_NAME = 16  # characters in a player or team name (the `name` event stays far below 512 bytes)
MAX_NOTE = 100  # characters in a protest's note (the `protest` event stays far below 512 bytes)
MAX_POINTS = 1000  # the largest point value of a question, a wrong answer or a hand adjustment
WARN_S = 5  # the answer timer beeps this many seconds before it runs out
# µs after a time-out passed the floor on (answer_timeout "wrong", next_in_line) during which a
# judgement is refused: it was meant for the player whose time ran out (nobody answers faster)
LATE_JUDGE_US = const(1000000)
MAX_PARTS = 6  # bonus parts per bonus (NAQT and ACF read 3)

# The `format` presets: each sets these options unless the set-up names them itself (so
# {"format":"naqt","questions":24} plays 24 tossups). Sources (docs/quizbowl.md names each
# edition): NAQT "Correct Rules of Quizbowl", the edition current from August 1, 2023 (timing: 3 s
# after the tossup, 10 s for computation, 3 s to begin an answer once recognised (2 s before
# 2022-23), 5 s per bonus part; neg -5 for the first team only, power 15 only before the power
# mark; no bounce-backs; overtime: 3 tossups, then sudden death, where a neg loses), ACF rules (5 s
# after the tossup and per bonus part; 20 tossup/bonus cycles; no bounce-backs; ties:
# sudden-death tossups), Jeopardy-style play (the host enables the buzzers once the clue is read;
# every press before that locks the player out for 250 ms). One neg a tossup is the quiz's rule
# in every format (_wrong_points).
FORMATS = {
    "plain": {},
    "naqt": {
        "points": 10,
        "power": 15,
        "wrong_points": 0,
        "interrupt": -5,
        "buzz_s": 3,
        "compute_s": 10,
        "answer_s": 3,
        "answer_timeout": "judge",
        "bonus": 10,
        "parts": 3,
        "bonus_s": 5,
        "questions": 20,
        "overtime": 3,
        "sudden_death": True,
        "next_in_line": False,
    },
    "acf": {
        "points": 10,
        "power": 0,
        "wrong_points": 0,
        "interrupt": -5,
        "buzz_s": 5,
        "compute_s": 0,
        "answer_s": 0,
        "bonus": 10,
        "parts": 3,
        "bonus_s": 5,
        "questions": 20,
        "overtime": 0,
        "sudden_death": True,
        "next_in_line": False,
    },
    "jeopardy": {
        "false_start": 250,
        "interrupt": 0,
        "buzz_s": 5,
        "answer_s": 5,
        "answer_timeout": "wrong",
        "bonus": 0,
        "power": 0,
        "next_in_line": False,
    },
}
FORMAT_NAMES = ("plain", "naqt", "acf", "jeopardy")  # the menu's order
# Formats whose rule books read no bounce-backs (NAQT; ACF): a bonus part the controlling team
# misses is dead. The format is the switch, not an option of its own (a `resume` line repeats
# every option and has no room left under 512 bytes): a house format with bounce-backs plays
# `plain` with the quizbowl options set (docs/quizbowl.md).
NO_BOUNCEBACKS = ("naqt", "acf")


def team_list(value):
    """A check for the `teams` option: a list of teams, each a non-empty list of 1-based players,
    no player twice (the referee checks it against the player count: Quiz.check_options)."""
    if not isinstance(value, list) or len(value) > 8:
        raise ValueError("a list of up to 8 teams, each a list of players")
    seen = []
    for team in value:
        if not isinstance(team, list) or not team:
            raise ValueError("each team is a non-empty list of players")
        for p in team:
            if not isinstance(p, int) or p is True or p is False or not 1 <= p <= 8:
                raise ValueError("players are numbers from 1 to 8")
            if p in seen:
                raise ValueError("player %d is in two teams" % p)
            seen.append(p)
    return value


def name_fault(text, what="a name"):
    """Why `text` (a str) cannot be a name (or a note: `what`), or None. Refused: control
    characters (C0, DEL, C1), and the bidi controls that reorder what follows them on a page
    (Unicode UAX #9: the embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069) or
    invisibly move the text beside them (the marks LRM U+200E, RLM U+200F, ALM U+061C): a name in
    any script shows right without them, since every page isolates each name
    (docs/security.md)."""
    for o in code_points(text):  # (not a str a character: refbox.protocol.code_points)
        if o < 0x20 or 0x7F <= o < 0xA0:
            return "%s has no control characters" % what
        if 0x202A <= o <= 0x202E or 0x2066 <= o <= 0x2069 or o in (0x200E, 0x200F, 0x61C):
            return "%s has no bidi controls (U+202A-U+202E, U+2066-U+2069, LRM, RLM, ALM)" % what
    return None


def clean_name(text, longest=MAX_NAME, what="a name"):
    """A name (or a note: `what`) as the device keeps it: spaces trimmed, at most `longest`
    characters, none of the characters `name_fault` refuses; "" clears the name. Raises
    GameError("bad_value")."""
    text = text.strip()
    if len(text) > longest:
        raise GameError("bad_value", "%s is at most %d characters" % (what, longest))
    fault = name_fault(text, what)
    if fault:
        raise GameError("bad_value", fault)
    return text


def _int_value(value, low, high, what):
    if not isinstance(value, int) or value is True or value is False or not low <= value <= high:
        raise GameError("bad_value", "%s: an integer from %d to %d" % (what, low, high))
    return value


def _places(ranking, n):
    """Each of `n` 1-based players' (or teams') place, in order, from ranking() rows."""
    places = [0] * n
    for place, who, _ in ranking:
        places[who - 1] = place
    return places


def _judge_entry(correct, following, us, ns):
    """A judge entry, ("judge", correct, next, µs, ns) (the slots _JUDGE_*): `correct` bool,
    `following` the 0-based player the floor passes to or -1, `us`/`ns` the judgement's Stamp
    halves (a command's tick, ns 0; an expired answer's deadline). The judge command appends its
    own points (_JUDGE_POINTS) to it."""
    return ("judge", correct, following, us, ns)


class Quiz(RaceGame):
    name = "quiz"
    UNITS = {
        "false_start": "ms",
        "target": "points",
        "questions": "questions",
        "points": "points",
        "wrong_points": "points",
        "interrupt": "points",
        "buzz_s": "s",
        "answer_s": "s",
        "power": "points",
        "bonus": "points",
        "parts": "parts",
        "bonus_s": "s",
        "compute_s": "s",
        "overtime": "questions",
    }
    ZERO = {
        "power": "no powers",
        "bonus": "no bonuses",
        "bonus_s": "no timer",
        "compute_s": "as time to buzz",
        "overtime": "none",
        "target": "no target",
        "questions": "no limit",
        "wrong_points": "0 points",
        "interrupt": "off",
        "buzz_s": "no timer",
        "answer_s": "no timer",
    }
    LABELS = {
        "buzz_s": "time to buzz",
        "answer_s": "time to answer",
        "bonus": "bonus part",
        "parts": "bonus parts",
        "bonus_s": "bonus time",
        "compute_s": "compute time",
    }
    OPTIONS = (
        option("format", "plain", one_of(*FORMAT_NAMES), FORMAT_NAMES),
        false_start_option(),
        option("target", 0, int_in(0, 9999), (0, 3, 5, 10, 15, 20)),
        option("questions", 0, int_in(0, 999), (0, 10, 20, 30, 50)),
        option("points", 1, int_in(1, MAX_POINTS), (1, 2, 5, 10, 20)),
        option("wrong_points", 0, int_in(-MAX_POINTS, 0), (0, -1, -5, -10)),
        option("interrupt", 0, int_in(-MAX_POINTS, 0), (0, -5, -10)),
        option("next_in_line", False, flag, (False, True)),
        option("sudden_death", False, flag, (False, True)),
        option("buzz_s", 0, int_in(0, 300), (0, 3, 5, 10, 15, 30)),
        option("answer_s", 0, int_in(0, 300), (0, 2, 5, 10, 20, 30, 60)),
        option("answer_timeout", "judge", one_of("judge", "wrong"), ("judge", "wrong")),
        option("power", 0, int_in(0, MAX_POINTS), (0, 15, 20)),
        option("bonus", 0, int_in(0, MAX_POINTS), (0, 10, 5, 20)),
        option("parts", 3, int_in(1, MAX_PARTS), (3, 1, 2, 4, 5, 6)),
        option("bonus_s", 0, int_in(0, 300), (0, 5, 10)),
        option("compute_s", 0, int_in(0, 300), (0, 10, 20)),
        option("overtime", 0, int_in(0, 9), (0, 1, 3)),
        option("trigger", "press", one_of("press", "release"), ("press", "release")),
        option("teams", [], team_list, ()),  # a list: set from the host, not the menu
    )

    @classmethod
    def presets(cls, name, value):
        """{option: value} that choosing `value` for option `name` sets (the `format` presets,
        FORMATS); {} for every other option. parse_options and the menu apply them."""
        if name == "format":
            return FORMATS.get(value, {})
        return {}

    @staticmethod
    def check_options(players, options):
        """Raise GameError("bad_option") unless `teams` (if given) holds every player 1..players
        exactly once, in at least two teams."""
        teams = options["teams"]
        if not teams:
            return
        members = []
        for team in teams:
            members += team
        if len(teams) < 2 or sorted(members) != list(range(1, players + 1)):
            raise GameError(
                "bad_option",
                "teams: at least 2 teams holding every player 1..%d exactly once" % players,
            )

    def status(self):
        return "Q%d" % self.question

    def reset(self):
        n = self.players
        self.hears_buzz = bool(self.options["next_in_line"])  # buzz_entry: the line's buzzes
        given = self.options["teams"]
        self.teamed = bool(given)
        if given:
            self.teams = [sorted([p - 1 for p in team]) for team in given]
        else:
            self.teams = [[p] for p in range(n)]
        self.team_of = [0] * n
        for t in range(len(self.teams)):
            for p in self.teams[t]:
                self.team_of[p] = t
        self.scores = [0] * n
        self.bonus_points = [0] * len(self.teams)  # per team: bonus points (teams only)
        self.trigger = self.options["trigger"]  # "release": jump pads (the referee reads it)
        self.names = [None] * n  # type: list
        self.team_names = [None] * len(self.teams)  # type: list
        self.phase = READY
        self.question = 1  # the number of the question being asked (cancelled ones do not count)
        self.value = self.options["points"]  # what the current question is worth
        self.out = []  # teams judged wrong on this question
        self.answering = None
        self.queue = []  # [(Stamp, player)]: this race's presses, for next_in_line
        self.sudden = None  # type: list | None  # teams in the sudden-death play-off
        # timers (Stamps from the log entries that started them; None: no timer runs)
        self.opened = None  # type: Stamp | None  # the race's buzz window began (buzz_s)
        self.floor_at = None  # type: Stamp | None  # the floor was given (answer_s)
        self.warned = False  # the answer timer's warning was given
        self.expired = False  # the answer timer ran out (the table still judges)
        self.floor_by_time = False  # the floor holder got it when the last one's time ran out
        self.read = None  # type: Stamp | None  # interrupt variant: the question was fully read
        self.buzzed = None  # type: Stamp | None  # the press that won the floor holder the floor
        self.compute = False  # this tossup is a computation tossup (compute_s)
        self.control = None  # type: int | None  # BONUS: the 0-based team playing the bonus
        self.parts = []  # type: list  # BONUS: [(team or -1, points)] of the parts judged so far
        self.part_at = None  # type: Stamp | None  # BONUS: a part was read (bonus_s runs)
        self.part_up = False  # the bonus part's time ran out
        self.extra = None  # type: int | None  # overtime: the tossup after which it ends
        self.negged = False  # a wrong interrupt on this tossup was penalised (one neg a tossup)
        self.power_at = None  # type: Stamp | None  # the reader passed the power mark

    # ------------------------------------------------------------------ what the referee reads
    def eligible(self):
        """0-based players who may race now: their team is neither out of this question nor out
        of the sudden-death play-off."""
        result = []
        for p in range(self.players):
            team = self.team_of[p]
            if team not in self.out and (self.sudden is None or team in self.sudden):
                result.append(p)
        return result

    def team_scores(self):
        """Points per team (team 1 first): the sum of its players' points and its bonus points."""
        totals = []
        for t in range(len(self.teams)):
            total = self.bonus_points[t]
            for p in self.teams[t]:
                total += self.scores[p]
            totals.append(total)
        return totals

    def is_scoring(self, entry):
        kind = entry[ENTRY_KIND]
        return kind in ("judge", "dead", "adjust", "bonus", "part") or (
            kind == "expired" and entry[_EXPIRED_JUDGED]
        )

    def score_event(self):
        """`score` with the places as the game ranks them (`places`, P1 first; `team_places`,
        team 1 first, with teams): a host draws its standings from them, never ranking."""
        fields = [("scores", list(self.scores)), ("unit", self.unit),
                  ("places", _places(self.ranking(), self.players))]
        if self.teamed:
            fields.append(("teams", self.team_scores()))
            fields.append(("team_places", _places(self.team_ranking(), len(self.teams))))
        return ("score", tuple(fields))

    def ranking(self):
        """[(place, player, points)], 1-based, most points first; equal points share a place."""
        return rank_highest_first(self.scores)

    def team_ranking(self):
        """[(place, team, points)], 1-based, as ranking() but per team."""
        return rank_highest_first(self.team_scores())

    def final_events(self):
        """With teams, the team ranking, sent just before `game_over` (whose ranking is per
        player): two lists of up to 8 would not fit one 512-byte line."""
        if not self.teamed:
            return []
        ranking = [{"place": pl, "team": t, "score": sc} for pl, t, sc in self.team_ranking()]
        return [("team_ranking", (("ranking", ranking), ("unit", self.unit)))]

    def champions(self):
        """0-based players shown as winners at game over: the first-placed team(s)."""
        if not self.teamed:
            return RaceGame.champions(self)
        result = []
        for place, team, _ in self.team_ranking():
            if place == 1:
                result += self.teams[team - 1]
        return sorted(result)

    def station_colours(self, colours):
        """Each station in its team's colour: team k takes the colour of station k."""
        if not self.teamed:
            return colours
        result = list(colours)
        for p in range(self.players):
            result[p] = colours[self.team_of[p]]
        return result

    def in_line(self):
        """0-based players waiting in line (next_in_line), best first: the earliest press of each
        team still in, other than the team with the floor. [(Stamp, player)]."""
        best = {}  # team -> (Stamp, player)
        skip = -1 if self.answering is None else self.team_of[self.answering]
        for stamp, p in self.queue:
            team = self.team_of[p]
            if team == skip or team in self.out:
                continue
            if team not in best or stamp.diff_ns(best[team][0]) < 0:
                best[team] = (stamp, p)
        line = [best[t] for t in sorted(best)]  # sorted: dict order differs between interpreters
        first = line[0][0] if line else None
        # by stamp, then by player for the order of equal stamps (the pass draws among those)
        line.sort(key=lambda item: (item[0].diff_ns(first), item[1]))
        return line

    def state_fields(self):
        """The quiz's own `state` fields (docs/protocol.md)."""
        timer, left = self.timer_left(self.now)
        return (
            ("question", self.question),
            ("points", self.value),
            ("teams", self.team_scores() if self.teamed else None),
            ("queue", [p + 1 for _, p in self.in_line()]),
            ("sudden_death", None if self.sudden is None else self._members(self.sudden)),
            ("timer", timer),
            ("left_ms", left),
            ("bonus", None if self.control is None else self.control + 1),
            ("overtime", self.extra is not None),
        )

    # ------------------------------------------------------------------ timers
    def interrupts(self):
        """True for the interrupt variant: the buzzers are open while the question is read."""
        return self.options["interrupt"] != 0

    def buzz_s(self):
        """The buzz window of this tossup in s (0: none): compute_s for a computation tossup
        (when set), else buzz_s."""
        if self.compute and self.options["compute_s"]:
            return self.options["compute_s"]
        return self.options["buzz_s"]

    def buzz_deadline(self):
        """Stamp at which the open race's buzz window (buzz_s) closes, or None."""
        if self._timer_shown() != "buzz":
            return None
        return _later(self.opened, self.buzz_s())

    def bonus_deadline(self):
        """Stamp at which the bonus part's time (bonus_s, from the part's `read`) runs out, or
        None."""
        if self._timer_shown() != "bonus":
            return None
        return _later(self.part_at, self.options["bonus_s"])

    def answer_deadline(self):
        """Stamp at which the floor holder's time (answer_s) runs out, or None."""
        if self._timer_shown() != "answer":
            return None
        return _later(self.floor_at, self.options["answer_s"])

    def timer_left(self, now):
        """("buzz" | "answer" | "bonus", ms left at µs tick `now`, 0 once run out), or
        (None, None)."""
        name = self._timer_shown()
        if name is None:
            return None, None
        return name, self._left_ms(name, now)

    def _timer_shown(self):
        """The timer that runs in this phase ("buzz", "answer", "bonus": the one whose deadline
        buzz_deadline, answer_deadline or bonus_deadline gives, the others None), or None.
        Allocates nothing: the LEDs' timer bar asks every frame (decorate)."""
        if self.phase == RACING and self.opened is not None and self.buzz_s():
            return "buzz"
        if self.phase == ANSWERING and self.floor_at is not None and self.options["answer_s"]:
            return "answer"
        if self.phase == BONUS and self.part_at is not None and self.options["bonus_s"]:
            return "bonus"
        return None

    def _left_ms(self, name, now):
        """ms left of timer `name` (_timer_shown) at µs tick `now`, 0 once run out: its deadline's
        µs tick (as _later makes it) written out, so that no Stamp is made."""
        if name == "buzz":
            start, seconds = self.opened, self.buzz_s()
        elif name == "answer":
            start, seconds = self.floor_at, self.options["answer_s"]
        else:
            start, seconds = self.part_at, self.options["bonus_s"]
        if start is None:
            return 0  # (no such timer runs: _timer_shown never names it then)
        left = ticks_diff(ticks_add(start.us, seconds * 1000000), now) // 1000
        return 0 if self._timer_over(name) or left < 0 else left

    def _timer_over(self, name):
        """True once timer `name` (_timer_shown) has run out and stays at 0: the answer time
        (`expired`), a bonus part's (`part_up`); never the buzz window, whose end makes the
        question dead (`expired` is then the last answer time's)."""
        if name == "answer":
            return self.expired
        return name == "bonus" and self.part_up

    def timer_ms(self, name):
        """The full length in ms of timer `name` ("buzz", "answer", "bonus") as it runs now."""
        if name == "buzz":
            return self.buzz_s() * 1000
        return self.options["answer_s" if name == "answer" else "bonus_s"] * 1000

    def decorate(self, frame, now_ms, colours, station_pixels, marker_pixels):
        """While a timer runs the marker bar shows the time left: lit pixels shrink from the full
        bar (the bar's colour as usual: dim white while armed, the floor holder's colour)."""
        name = self._timer_shown()  # (not timer_left: its tuple every frame)
        if name is None:
            return
        left = self._left_ms(name, now_ms * 1000)
        total = self.timer_ms(name)
        lit = (left * marker_pixels + total - 1) // total
        for i in range(lit, marker_pixels):
            frame[station_pixels + i] = (0, 0, 0)

    def frame_moves(self):
        """The timer bar moves only while a timer runs (not is_busy: its Stamp every frame)."""
        name = self._timer_shown()
        return name is not None and not self._timer_over(name)

    def _next_timer(self):
        """(kind, Stamp) of the timer `tick_entry` fires next with the log as it is, or None
        while none runs: "dead" (the buzz window), "part_up" (a bonus part's time), "warn" (the
        answer timer's warning), "expired" (its end). `tick_entry`, `next_deadline` and
        `is_busy` all read it, so they cannot disagree on which timer is next."""
        deadline = self.buzz_deadline()
        if deadline is not None:
            return ("dead", deadline)
        deadline = self.bonus_deadline()
        if deadline is not None:
            return None if self.part_up else ("part_up", deadline)
        deadline = self.answer_deadline()
        if deadline is None or self.expired:
            return None
        answer_s = self.options["answer_s"]
        if not self.warned and answer_s > WARN_S:
            return ("warn", _later(self.floor_at, answer_s - WARN_S))
        return ("expired", deadline)

    def is_busy(self):
        """True while a timer runs (the simulator keeps the loop stepping)."""
        return self._next_timer() is not None

    def next_deadline(self):
        """Game.next_deadline: the next timer's deadline (`_next_timer`)."""
        timer = self._next_timer()
        return None if timer is None else timer[1]

    def tick_entry(self, horizon):
        """A timer that has run out at the decision horizon (Game.tick_entry; the entry records
        its deadline): the buzz window (the question is dead), the answer timer's warning, its
        end (answer_timeout "wrong": a wrong answer, the floor passing as after NO), a bonus
        part's time (bonus_s: a signal; the table still judges the part)."""
        timer = self._next_timer()
        if timer is None or not _reached(horizon, timer[1]):
            return None
        kind, deadline = timer
        if kind == "dead":
            return ("dead", "time", deadline.us, deadline.ns)
        if kind != "expired":  # ("part_up" | "warn", us, ns)
            return (kind, deadline.us, deadline.ns)
        if self.options["answer_timeout"] == "wrong":
            return ("expired", deadline.us, deadline.ns, True, self._next_or_none())
        return ("expired", deadline.us, deadline.ns, False, -1)

    def state_events(self):
        """One `name` event per named player and team, after `state`."""
        events = []
        for p in range(self.players):
            if self.names[p] is not None:
                events.append(self._name_event("player", p))
        for t in range(len(self.teams)):
            if self.team_names[t] is not None:
                events.append(self._name_event("team", t))
        return events

    # ------------------------------------------------------------------ inputs (hooks)
    def buttons(self):
        """RaceGame's, plus NO cancels while armed (and ARM marks the reading's end in the
        interrupt variant, before it is marked)."""
        if self.phase == RACING:
            shown = [("buzz", "answer"), ("NO", "cancel")]
            if self.interrupts() and self.read is None:
                shown.insert(1, ("ARM", "read to end"))
            return shown
        if self.phase == BONUS:
            shown = [("YES", "part right"), ("NO", "part wrong")]
            if self.options["bonus_s"]:
                shown.insert(0, ("ARM", "part read"))
            return shown
        if self.phase == ANSWERING and self.answering is not None:
            # what each judgement scores, so a desk's button can say it ("right +10", "wrong -5")
            wrong = self._wrong_points()
            return [("YES", "right %+d" % self.value),
                    ("NO", "wrong %+d" % wrong if wrong else "wrong")]
        return RaceGame.buttons(self)

    def doing(self):
        """The question and who is asked (Game.doing): being read, buzzers open, who answers,
        the bonus part being played."""
        q = self.question
        if self.phase == READY:
            if self.sudden is not None:
                return "sudden death, question %d: ARM opens the buzzers" % q
            return "question %d next: ARM opens the buzzers" % q
        if self.phase == RACING:
            return "question %d: buzzers open" % q
        if self.phase == ANSWERING and self.answering is not None:
            return "question %d: P%d answers" % (q, self.answering + 1)
        if self.phase == BONUS and self.control is not None:
            return "bonus of question %d: team %d, part %d of %d" % (
                q, self.control + 1, min(len(self.parts) + 1, self.options["parts"]),
                self.options["parts"])
        return ""

    def _interrupted(self, correct):
        """True if a judgement of the floor holder now is an interrupt: wrong, in the interrupt
        variant, on a buzz before the question was read to the end."""
        buzzed = self.buzzed
        return (not correct) and self.interrupts() and (
            self.read is None or buzzed is None or buzzed.diff_ns(self.read) < 0
        )

    def _wrong_points(self):
        """What a wrong answer of the floor holder scores now: the interrupt's (a neg), unless a
        team was already penalised on this tossup (one neg a tossup, in every format: NAQT
        penalises only the first team to interrupt wrongly), else wrong_points."""
        if self._interrupted(False) and not self.negged:
            return self.options["interrupt"]
        return self.options["wrong_points"]

    def _past_power(self):
        """True if the floor holder buzzed at or after the power mark (`act power_mark`) or the
        reading's end (`read`): the answer can no longer earn a power (NAQT: a power only at or
        before the power mark). The press stamp decides, not when the judgement came."""
        buzzed = self.buzzed
        if buzzed is None:
            return False
        for mark in (self.power_at, self.read):
            if mark is not None and buzzed.diff_ns(mark) >= 0:
                return True
        return False

    def control_entry(self, name):
        """ARM arms (interrupt variant, while armed: the question has been read); YES / NO
        judge; NO while armed cancels the question. In a bonus: ARM marks a part read (its
        bonus_s starts), YES / NO judge the next part for the controlling team."""
        if name == "no" and self.phase == RACING:
            return self._cancel_entry()
        if name == "arm" and self.phase == RACING and self.interrupts():
            return self.read_entry()
        if self.phase == BONUS:
            if name == "arm":
                return self.read_entry()
            if name == "yes" or name == "no":
                if name == "no":
                    return ("part", -1, 0)
                return ("part", self.control, self.options["bonus"])
        return RaceGame.control_entry(self, name)

    def arm_entry(self):
        if self.phase == BONUS:
            raise GameError("not_now", "the bonus is being played: bonus, or YES / NO a part")
        RaceGame.arm_entry(self)
        return ("arm", self.options["points"], self.now, False)

    def arm_command(self, args):
        """The `arm` command: `points` (optional, 1..1000) is this tossup's value; `compute`
        (optional bool) marks a computation tossup (its buzz window is compute_s)."""
        entry = self.arm_entry()
        value = entry[_ARM_POINTS]
        if "points" in args:
            value = _int_value(args["points"], 1, MAX_POINTS, "points")
        return ("arm", value, self.now, args.get("compute") is True)

    def judge_command(self, args):
        """The `judge` command: `points` (optional) is what this answer earns instead of the
        tossup's value: 0..1000 when correct (a power: 15), -1000..0 when wrong; `power` true
        (instead of `points`) gives the format's power value (_power_points). The entry:
        ("judge", correct, next in line or -1, µs, ns, points or None)."""
        entry = self.judge_entry(args["correct"])
        if args.get("power") is True:
            return entry + (self._power_points(args),)
        if "points" not in args:
            return entry
        if args["correct"]:
            points = _int_value(args["points"], 0, MAX_POINTS, "points of a correct answer")
            if points > self.value and self._past_power():
                raise GameError(
                    "bad_value", "no power: the buzz came after the power mark (right: %d)"
                    % self.value,
                )
        else:
            points = _int_value(args["points"], -MAX_POINTS, 0, "points of a wrong answer")
            spent = self.negged and self._interrupted(False)
            if spent and points < self.options["wrong_points"]:
                raise GameError("bad_value", "one neg per tossup: a team was already penalised")
        return entry + (points,)

    def _power_points(self, args):
        """The points of a `judge` with `power` true (the reader's call: the buzz came before the
        tossup's power mark): the format's `power` value, when this answer may earn one.
        Raises GameError("bad_value"): no powers in this format, a wrong answer, `points` beside
        it, a buzz stamped at or after the power mark or the reading's end (NAQT: a power only
        at or before the power mark)."""
        power = self.options["power"]
        if not args["correct"] or "points" in args:
            raise GameError("bad_value", "power: a correct judgement, without points")
        if not power:
            raise GameError("bad_value", "no powers in this format")
        if self._past_power():
            raise GameError(
                "bad_value", "no power: the buzz came after the power mark (right: %d)"
                % self.value,
            )
        return power

    def bonus_command(self, args):
        """The `bonus` command while the bonus is played: `parts`, a list (1..6) of true (the
        controlling team got the part), false (nobody did) or the 1-based team that took a part
        bounced back to it (a bounce-back); `values` (optional): each part's points (0..1000,
        default the `bonus` option). Entry ("bonus", team, then a (team or -1, points) pair per
        part, flat). Raises GameError("not_now" | "bad_value")."""
        if self.phase != BONUS:
            raise GameError("not_now", "no bonus is being played")
        if self.parts:
            raise GameError("not_now", "parts were judged with YES / NO: judge the rest so")
        parts = args["parts"]
        values = args.get("values")
        if not 1 <= len(parts) <= MAX_PARTS:
            raise GameError("bad_value", "parts: a list of 1 to %d parts" % MAX_PARTS)
        if values is not None and len(values) != len(parts):
            raise GameError("bad_value", "values: one per part")
        entry = ["bonus", self.control]
        for i in range(len(parts)):
            part = parts[i]
            value = self.options["bonus"]
            if values is not None:
                value = _int_value(values[i], 0, MAX_POINTS, "a part's value")
            if part is True:
                entry += [self.control, value]
            elif part is False:
                entry += [-1, 0]
            elif isinstance(part, int) and part is not True and part is not False:
                if self.options["format"] in NO_BOUNCEBACKS:
                    raise GameError("bad_value", "no bounce-backs under %s rules"
                                    % self.options["format"])
                team = _int_value(part, 1, len(self.teams), "a bounced part's team") - 1
                if team == self.control:
                    raise GameError("bad_value", "a bounce-back goes to another team (true: own)")
                entry += [team, value]
            else:
                raise GameError("bad_value", "a part is true, false or the team it bounced to")
        return tuple(entry)

    def _cancel_entry(self):
        """A cancel; if the buzz window had already closed when it came (its tick), the
        question died of time first."""
        deadline = self.buzz_deadline()
        if deadline is not None and _reached(Stamp(self.now), deadline):
            return ("dead", "time", deadline.us, deadline.ns)
        return ("dead", "cancel")

    def read_entry(self):
        """Interrupt variant: the reader finished the question (a press before it is an
        interrupt; the buzz window starts now). In a bonus: a part was read (bonus_s starts)."""
        if self.phase == BONUS:
            if not self.options["bonus_s"]:
                raise GameError("not_now", "no time per bonus part (option bonus_s)")
            return ("part_read", self.now)
        if not self.interrupts():
            raise GameError("not_now", "the interrupt variant is off (option interrupt)")
        if self.phase != RACING:
            raise GameError("not_now", "the question is read while the buzzers are armed")
        if self.read is not None:
            raise GameError("not_now", "the question was already read to the end")
        return ("read", self.now)

    def power_mark_entry(self):
        """The reader passed the tossup's power mark (its tick): a press at or after it earns
        no power. ("power_mark", µs). Raises GameError("not_now") unless the buzzers are open
        while the tossup is read, before its end and before a mark."""
        if self.phase != RACING or self.read is not None:
            raise GameError("not_now", "the power mark is passed while the tossup is read")
        if self.power_at is not None:
            raise GameError("not_now", "the power mark was already passed")
        return ("power_mark", self.now)

    def win_entry(self, player, stamp):
        return ("win", player, stamp.us, stamp.ns)

    def judge_entry(self, correct):
        """("judge", correct, next in line or -1, µs, ns of the judgement: the command's tick)."""
        RaceGame.judge_entry(self, correct)
        deadline = self.answer_deadline()
        if (
            deadline is not None
            and self.options["answer_timeout"] == "wrong"
            and _reached(Stamp(self.now), deadline)
        ):
            raise GameError("not_now", "the time to answer ran out before this judgement")
        floor_at = self.floor_at
        if self.floor_by_time and floor_at is not None and (
            ticks_diff(self.now, floor_at.us) < LATE_JUDGE_US
        ):
            # the floor passed on when the last player's time ran out, under LATE_JUDGE_US ago:
            # this judgement was meant for that player, never for the one just given the floor
            raise GameError("not_now", "the time to answer ran out before this judgement")
        following = -1 if correct else self._next_or_none()
        return _judge_entry(correct, following, self.now, 0)

    def _next_or_none(self):
        return self._pick_next() if self.options["next_in_line"] else -1

    def _pick_next(self):
        """The 0-based player the floor passes to after a wrong answer, or -1: the earliest in
        line; equal stamps (one capture sample) are drawn by the race PRNG, as race ties are."""
        line = self.in_line()  # the team with the floor is not in it
        if not line:
            return -1
        tied = [p for s, p in line if s.diff_ns(line[0][0]) == 0]
        if len(tied) > 1 and self.race_prng is not None:
            return tied[self.race_prng.below(len(tied))]
        return tied[0]

    def buzz_entry(self, player, stamp):
        """A press the arbiter counted in this race (after the cue, eligible, not locked out):
        with next_in_line it joins the line (each player's first press only)."""
        if not self.options["next_in_line"] or self.phase not in (RACING, ANSWERING):
            return None
        if self.team_of[player] in self.out:
            return None
        for _, p in self.queue:
            if p == player:
                return None
        return ("buzz", player, stamp.us, stamp.ns)

    def act_entry(self, args):
        """`act` actions: "cancel" (a dead question, while armed or answering), "adjust"
        (`player`, `value` -1000..1000 points, by hand), "name" (`player` or `team`, `text`:
        up to 16 characters, "" clears)."""
        action = args.get("action")
        if action == "cancel":
            if self.phase != RACING and self.phase != ANSWERING:
                raise GameError("not_now", "no question is open: nothing to cancel")
            return self._cancel_entry()
        if action == "read":
            return self.read_entry()
        if action == "power_mark":
            return self.power_mark_entry()
        if action == "protest":
            return self.protest_entry(args)
        if action == "adjust":
            player = self._player(args)
            value = _int_value(args.get("value"), -MAX_POINTS, MAX_POINTS, "adjust value")
            if value == 0:
                raise GameError("bad_value", "adjust value: not 0")
            return ("adjust", player, value)
        if action == "name":
            text = args.get("text")
            if not isinstance(text, str):
                raise GameError("bad_value", "name needs text (\"\" clears the name)")
            if "team" in args:
                if "player" in args:
                    raise GameError("bad_value", "name a player or a team, not both")
                team = _int_value(args["team"], 1, len(self.teams), "team") - 1
                return ("name", "team", team, clean_name(text))
            return ("name", "player", self._player(args), clean_name(text))
        raise GameError(
            "unknown_action", "quiz actions: cancel, read, power_mark, protest, adjust, name")

    def protest_entry(self, args):
        """`act protest`: a team protests the current question (the one being asked, or the one
        just played while the next is not yet armed). `text`: the note, up to MAX_NOTE
        characters, no control characters, required; `team` (optional, 1-based): the protesting
        team. Only a record, as NAQT has the tournament director rule on protests: no score
        changes (an `adjust` applies a ruling). ("protest", question, team or -1, note)."""
        note = args.get("text")
        if not isinstance(note, str) or not note.strip():
            raise GameError("bad_value", "a protest needs a note")
        note = clean_name(note, MAX_NOTE, "a note")
        team = -1
        if "team" in args:
            team = _int_value(args["team"], 1, len(self.teams), "team") - 1
        question = self.question
        if self.phase == READY and question > 1:
            question -= 1  # between tossups: the one just played
        return ("protest", question, team, note)

    def _player(self, args):
        if "player" not in args:
            raise GameError("bad_value", "%s needs player" % args.get("action"))
        return _int_value(args["player"], 1, self.players, "player") - 1

    # ------------------------------------------------------------------ fold
    def step(self, entry):
        kind = entry[ENTRY_KIND]
        if kind == "arm":
            self.phase = RACING
            self.value = entry[_ARM_POINTS]
            self.compute = len(entry) > _ARM_COMPUTE and entry[_ARM_COMPUTE]
            self.queue = []
            self.read = None
            events = [("question", self._question_fields())]  # type: list
            if not self.interrupts():
                self._open_race(Stamp(entry[_ARM_US]), events)
            return events
        if kind == "part_read":
            self.part_at = Stamp(entry[_AT_US])
            self.part_up = False
            fields = self._timer_fields("bonus", self.options["bonus_s"] * 1000)
            return [("timer", fields)]
        if kind == "part_up":
            self.part_up = True
            return [("time_up", (("timer", "bonus"), ("player", None)))]
        if kind == "part":
            self.parts.append((entry[_PART_TEAM], entry[_PART_POINTS]))
            if len(self.parts) < self.options["parts"]:
                self.part_at = None
                return [self._part_event(len(self.parts) - 1)]
            return self._bonus_done(self.parts)
        if kind == "bonus":
            pairs = [(entry[i], entry[i + 1]) for i in range(_BONUS_PAIRS, len(entry), 2)]
            return self._bonus_done(pairs)
        if kind == "protest":
            team = entry[_PROTEST_TEAM]
            fields = (("question", entry[_PROTEST_QUESTION]),
                      ("team", None if team < 0 else team + 1), ("note", entry[_PROTEST_NOTE]))
            return [("protest", fields)]
        if kind == "power_mark":
            self.power_at = Stamp(entry[_AT_US])
            return [("power_mark", (("question", self.question),))]
        if kind == "read":
            self.read = Stamp(entry[_AT_US])
            events = [("read", (("question", self.question),))]
            self._open_race(self.read, events)
            return events
        if kind == "win":
            self.answering = entry[_PLAYER]
            self.phase = ANSWERING
            self.buzzed = Stamp(entry[_PLAYER_US], entry[_PLAYER_NS])
            events = []
            self._give_floor(self.buzzed, events)
            return events
        if kind == "warn":
            self.warned = True
            return [("time_warning", self._timer_fields("answer", WARN_S * 1000))]
        if kind == "expired":
            self.expired = True
            events = [("time_up", (("timer", "answer"), ("player", _wire(self.answering))))]
            if entry[_EXPIRED_JUDGED]:  # judged wrong at the deadline: a judge entry's fold
                judge = _judge_entry(
                    False, entry[_EXPIRED_NEXT], entry[_EXPIRED_US], entry[_EXPIRED_NS]
                )
                events += self._judged(judge)
                self.floor_by_time = self.answering is not None  # (after _give_floor's reset)
            return events
        if kind == "untimed":
            self.opened = None
            self.floor_at = None
            self.part_at = None
            return []
        if kind == "buzz":
            self.queue.append((Stamp(entry[_PLAYER_US], entry[_PLAYER_NS]), entry[_PLAYER]))
            return []
        if kind == "dead":
            if entry[_DEAD_REASON] == "time":
                self.opened = None
            return self._dead(entry[_DEAD_REASON])
        if kind == "adjust":
            return self._adjust(entry[_PLAYER], entry[_ADJUST_POINTS])
        if kind == "name":
            names = self.team_names if entry[_NAME_WHOSE] == "team" else self.names
            names[entry[_NAME_WHO]] = entry[_NAME_TEXT] or None  # "" in the log: no name
            return [self._name_event(entry[_NAME_WHOSE], entry[_NAME_WHO])]
        if kind == "judge":
            if self.answering is None:
                raise ValueError("a judgement with nobody answering")
            return self._judged(entry)
        return RaceGame.step(self, entry)

    def decide(self, player, entry):
        raise ValueError("unknown quiz entry %s" % entry[ENTRY_KIND])

    def judged(self, player, correct):
        """RaceGame's judgement hook (the quiz's step folds the whole entry: _judged)."""
        return self._judged(_judge_entry(correct, -1, self.now, 0))

    def _judged(self, entry):
        player = self.answering
        if player is None:
            raise ValueError("a judgement with nobody answering")
        correct = entry[_JUDGE_CORRECT]
        team = self.team_of[player]
        interrupt = self._interrupted(correct)
        if len(entry) > _JUDGE_POINTS:  # the judge command's own points (a power)
            delta = entry[_JUDGE_POINTS]
        elif correct:
            delta = self.value
        else:
            delta = self._wrong_points()
        penalised = interrupt and delta < 0  # a neg
        if penalised:
            self.negged = True
        self.scores[player] += delta
        events = []  # type: list
        fields = (("player", player + 1), ("correct", correct), ("points", delta))
        power = correct and delta > self.value
        events.append(("judge", fields + (("interrupt", interrupt), ("power", power))))
        if delta or correct:
            events.append(self.score_event())
        if correct:
            if self._bonus_due():
                self._clear(events)
                self.phase = BONUS
                self.control = team
                self.parts = []
                events.append(self._bonus_event())
                return events
            self._question_done(events, team, True)
            return events
        self.out.append(team)
        for p in self.teams[team]:
            events.append(("lockout", (("player", p + 1), ("reason", "wrong"), ("ms", None))))
        if penalised and self.sudden is not None:
            # a neg in sudden death loses the game (NAQT; ACF's tiebreaker too): the tossup
            # ends here, and the play-off goes on only among the teams still level at the top
            self.answering = None
            self._question_done(events, None, True)
            return events
        passed = entry[_JUDGE_NEXT]
        moment = Stamp(entry[_JUDGE_US], entry[_JUDGE_NS])
        self.answering = None
        if passed >= 0:
            events.append(self._pass_floor(passed))
            self._give_floor(moment, events)
        elif self.eligible():
            self.phase = RACING  # the race reopens among the teams still in
            self.queue = []
            if not self.interrupts() or self.read is not None:
                self._open_race(moment, events)
        else:
            events.append(("dead", (("question", self.question), ("reason", "wrong"))))
            self._question_done(events, None, True)
        return events

    def _pass_floor(self, player):
        """Give the floor to 0-based `player`, next in line; the `next_in_line` event."""
        line = self.in_line()  # the wrong team is out: those still waiting, the new holder first
        stamp = None
        for s, p in line:
            if p == player:
                stamp = s
        if stamp is None:
            raise ValueError("P%d is not in line" % (player + 1))
        tie = len([s for s, _ in line if s.diff_ns(stamp) == 0]) > 1
        self.answering = player
        self.buzzed = stamp
        self.phase = ANSWERING
        fields = (
            ("player", player + 1),
            ("behind_ns", stamp.diff_ns(self.queue_first())),
            ("tie", tie),
            ("waiting", len(line) - 1),
        )
        return ("next_in_line", fields)

    def _open_race(self, at, events):
        """The race is open from Stamp `at`: the buzz window (buzz_s) starts there."""
        self.opened = at
        if self.buzz_s():
            events.append(("timer", self._timer_fields("buzz", self.buzz_s() * 1000)))

    def _give_floor(self, at, events):
        """The floor holder's time (answer_s) runs from Stamp `at`."""
        self.floor_at = at
        self.floor_by_time = False
        self.warned = False
        self.expired = False
        if self.options["answer_s"]:
            ms = self.options["answer_s"] * 1000
            events.append(("timer", self._timer_fields("answer", ms)))

    def _timer_fields(self, name, ms):
        holder = None if name == "buzz" or self.answering is None else self.answering + 1
        return (("timer", name), ("player", holder), ("ms", ms))

    def queue_first(self):
        """The Stamp of this race's first press (the margins in line are behind it), or None."""
        first = None
        for stamp, _ in self.queue:
            if first is None or stamp.diff_ns(first) < 0:
                first = stamp
        return first

    def _dead(self, reason):
        """A question nobody scores: cancelled (not counted) or timed out (counted)."""
        events = [("dead", (("question", self.question), ("reason", reason)))]  # type: list
        self._question_done(events, None, reason != "cancel")
        return events

    def _adjust(self, player, value):
        self.scores[player] += value
        events = [("adjust", (("player", player + 1), ("points", value))), self.score_event()]
        target = self.options["target"]
        if target and self.team_scores()[self.team_of[player]] >= target:
            self.phase = OVER
        return events

    def _bonus_due(self):
        """True if a correct tossup now earns a bonus: bonuses on (option `bonus`), and not in
        overtime or sudden death (NAQT and ACF read no bonuses there)."""
        return bool(self.options["bonus"]) and self.extra is None and self.sudden is None

    def _bonus_event(self):
        fields = (
            ("question", self.question),
            ("team", _wire(self.control)),
            ("parts", self.options["parts"]),
            ("points", self.options["bonus"]),
        )
        return ("bonus", fields)

    def _part_event(self, index):
        team, points = self.parts[index]
        fields = (("part", index + 1), ("team", _wire(team if team >= 0 else None)))
        return ("part", fields + (("points", points),))

    def _bonus_done(self, pairs):
        """Credit each part [(0-based team or -1, points)] of the bonus, then end the cycle."""
        for team, points in pairs:
            if team < 0 or not points:
                continue
            if self.teamed:
                self.bonus_points[team] += points
            else:
                self.scores[team] += points  # everyone alone: team t is player t
        fields = (
            ("question", self.question),
            ("team", _wire(self.control)),
            ("parts", [None if t < 0 else t + 1 for t, _ in pairs]),
            ("points", [v if t >= 0 else 0 for t, v in pairs]),
        )
        events = [("bonus_scored", fields), self.score_event()]  # type: list
        scorer = self.control
        self.control = None
        self.parts = []
        self.part_at = None
        self.part_up = False
        self._question_done(events, scorer, True)
        return events

    def _clear(self, events):
        """The tossup is over: everyone judged wrong on it is back in (an `unlock` each)."""
        for p in range(self.players):
            if self.team_of[p] in self.out:
                events.append(("unlock", (("player", p + 1),)))
        self.out = []
        self.answering = None
        self.queue = []
        self.phase = READY
        self.opened = self.floor_at = self.read = self.buzzed = None
        self.compute = False
        self.negged = False
        self.power_at = None
        self.value = self.options["points"]  # what the next ARM gives

    def _question_done(self, events, scorer, counts):
        """The question (and its bonus) is over: the players out are back in; the next one
        follows unless the game ends here. At the `questions` limit a tie at the top plays
        `overtime` more tossups (an `overtime` event), then sudden death if on."""
        self._clear(events)
        if not counts:
            return
        played = self.question
        self.question += 1
        totals = self.team_scores()
        target = self.options["target"]
        if target and scorer is not None and totals[scorer] >= target:
            self.phase = OVER
            return
        limit = self.options["questions"]
        end_at = limit if self.extra is None else self.extra
        if self.sudden is None and not (limit and played >= end_at):
            return
        high = max(totals)
        top = [t for t in range(len(totals)) if totals[t] == high]
        if len(top) > 1 and self.extra is None and self.options["overtime"]:
            self.extra = played + self.options["overtime"]
            fields = (("questions", self.options["overtime"]), ("players", self._members(top)))
            events.append(("overtime", fields))
        elif len(top) == 1 or not self.options["sudden_death"]:
            self.phase = OVER
        elif top != self.sudden:
            self.sudden = top
            events.append(("sudden_death", (("players", self._members(top)),)))

    # ------------------------------------------------------------------ helpers
    def _members(self, teams):
        result = []
        for t in teams:
            result += [p + 1 for p in self.teams[t]]
        return sorted(result)

    def _question_fields(self):
        return (
            ("question", self.question),
            ("points", self.value),
            ("sudden_death", self.sudden is not None),
            ("power", self.options["power"]),  # what a buzz before the power mark may earn
        )

    def _name_event(self, kind, index):
        if kind == "team":
            who = (("player", None), ("team", index + 1), ("name", self.team_names[index]))
        else:
            who = (("player", index + 1), ("team", None), ("name", self.names[index]))
        return ("name", who)

    def undo(self):
        """Game.undo, but names given and protests lodged after the decision taken back stay."""
        cut = len(self.log)
        for i in range(len(self.log) - 1, -1, -1):
            if self.is_scoring(self.log[i]):
                cut = i
                break
        kept = [e for e in self.log[cut:] if e[ENTRY_KIND] in ("name", "protest")]
        dropped = RaceGame.undo(self)
        for entry in kept:
            self.log.append(entry)
            self.step(entry)
        if (
            self.buzz_deadline() is not None
            or self.answer_deadline() is not None
            or self.bonus_deadline() is not None
        ):
            # the race or floor given back ran on the clock long ago: it runs on untimed now
            self.log.append(("untimed",))
            self.step(("untimed",))
            kept.append(("untimed",))
        return dropped - len(kept)


def _later(stamp, seconds):
    """The Stamp `seconds` (int) after `stamp`, in µs ticks (no big ints on the board)."""
    return Stamp(ticks_add(stamp.us, seconds * 1000000), stamp.ns)


def _reached(horizon, deadline):
    """True once Stamp `horizon` is at or past Stamp `deadline` (the deadline rule)."""
    d = ticks_diff(horizon.us, deadline.us)
    return d > 0 or (d == 0 and horizon.ns >= deadline.ns)


def _wire(player):
    """A 0-based player as the wire writes them: 1-based, or null."""
    return None if player is None else player + 1
