"""Event-sourced game state: a game is its log of decisions plus a seed; its state is a fold of the
log.

Undo drops the last scoring decision (and everything after it) and folds the log again, so undo,
replay and resume all take one code path. Entries are tuples of ints, strings and bools; a random
draw (a tie-break) is logged with its result, so a replay never draws again.
Source: tablebuzz design notes, principle 2 "Event-sourced".
"""

from refbox.compat import const
from refbox.prng import Prng
from refbox.protocol import Encoded
from refbox.ticks import Stamp

# A log entry's kind is its first slot (every game's entries: see each game's own list); the
# other slots are read by name, each game naming its own (const: nothing kept at run time)
ENTRY_KIND = const(0)
_WIN_PLAYER = const(1)  # ("win", player)
_JUDGE_CORRECT = const(1)  # ("judge", correct)

# Checkpoints (docs/architecture.md "Checkpoints"): the log in RAM starts at a checkpoint, the
# game's state after the entries before it (Game.base), so RAM, the journal and the fold at
# power-up hold a bounded log however long the night. UNDO reaches back at least UNDO_KEEP
# scoring decisions (docs/games.md "Undo"), unless LOG_CAP entries came after them.
UNDO_KEEP = 50
LOG_CAP = 400

_spare = None  # type: list | None  # a log list with room for LOG_CAP entries (reserve_log)


def reserve_log():
    """Reserve the next game's log list (room for LOG_CAP entries) now, while the heap is in one
    piece: at power-up before the journal is read, whose copy of a long log would otherwise leave
    the resumed game no 1.6 KB in one piece, and its growing list then needs a doubling in one
    piece in play (the memory model's false-start quiz, resumed: MemoryError). Never raises."""
    global _spare
    if _spare is None:
        try:
            _spare = [None] * LOG_CAP
        except MemoryError:
            pass
# the attributes of a Game that are not its folded state (a checkpoint leaves them out)
_NOT_STATE = ("players", "options", "seed", "log", "revision", "race_prng", "now", "prng",
              "base", "base_len", "next_base", "decided", "unchanged", "_encoded")  # fmt: skip

# Game.next_deadline's answer for "ask tick_entry every pass" (a game that does not say)
ASK_EVERY_PASS = "ask"
DOING_MAX = 48  # characters in Game.doing's sentence (one line of a phone's screen, large)


class GameError(Exception):
    """A command the game cannot take now: `code` (stable) and `detail` (for people)."""

    def __init__(self, code, detail):
        super().__init__(code)
        self.code = code
        self.detail = detail


def option(name, default, check, choices):
    """One game option: its name, default, check(value) -> value (raises ValueError with the
    reason) and the values the control-button menu cycles through (the default among them; empty
    for an option only a host sets, such as a list of teams: the menu leaves it at its default)."""
    return (name, default, check, choices)


def parse_options(spec, given, presets=None):
    """Options dict from `given` (a dict from the wire) checked against `spec`, a tuple of
    option(...) in menu order. `presets(name, value)` (a Game.presets) gives the options an
    option's value sets (the quiz's `format`): they apply to the options `given` does not name.
    Raises GameError("unknown_option" | "bad_option")."""
    options = {}
    names = []
    for name, default, _, _ in spec:
        options[name] = default
        names.append(name)
    unknown = [name for name in given if name not in names]
    if unknown:
        unknown.sort()  # the first in sorted order: dict order differs between interpreters
        raise GameError(
            "unknown_option",
            "no option %s (options: %s)" % (unknown[0], ", ".join(names) or "none"),
        )
    for name, _, check, _ in spec:
        if name in given:
            try:
                options[name] = check(given[name])
            except ValueError as e:
                reason = e.args[0] if e.args else "bad value"
                raise GameError("bad_option", "%s: %s" % (name, reason)) from None
    if presets is not None:
        for name in names:
            preset = presets(name, options[name])
            for key in sorted(preset):  # sorted: dict order differs between interpreters
                if key not in given:
                    options[key] = preset[key]
    return options


def rank_highest_first(scores):
    """[(place, player 1-based, score)] for `scores` (P1 first): highest first, equal scores share
    a place, the next place skipped (1, 1, 3: standard competition ranking)."""
    order = sorted(range(len(scores)), key=lambda p: (-scores[p], p))
    result = []  # type: list
    for i, p in enumerate(order):
        if i and scores[p] == scores[order[i - 1]]:
            place = result[-1][0]
        else:
            place = i + 1
        result.append((place, p + 1, scores[p]))
    return result


def false_start_option():
    """The false-start lockout every racing game offers (rules/README.md "Armed / not armed")."""
    return option("false_start", 250, lockout_rule, (250, 500, 1000, "race", "off"))


def flag(value):
    """A check for parse_options: true or false."""
    if value is True or value is False:
        return value
    raise ValueError("true or false")


class OneOf:
    """A check for parse_options: one of `values` (strings). Its `values` say what the option
    takes to a host describing the game (tablebuzz.views.describe)."""

    def __init__(self, values):
        self.values = values

    def __call__(self, value):
        if value in self.values and isinstance(value, str):
            return value
        raise ValueError("one of " + ", ".join(['"%s"' % v for v in self.values]))


def one_of(*values):
    """A check: one of `values` (strings)."""
    return OneOf(values)


class IntIn:
    """A check for parse_options: an int in low..high (`low`, `high`: what the option takes)."""

    def __init__(self, low, high):
        self.low = low
        self.high = high

    def __call__(self, value):
        if (
            not isinstance(value, int)
            or value is True
            or value is False
            or not self.low <= value <= self.high
        ):
            raise ValueError("an integer from %d to %d" % (self.low, self.high))
        return value


def int_in(low, high):
    """A check: an int in low..high."""
    return IntIn(low, high)


def lockout_rule(value):
    """A check for the false-start option: ms (0..60000), "race" or "off" (rules/README.md)."""
    if value == "race" or value == "off":
        return value
    if isinstance(value, int) and value is not True and value is not False and 0 <= value <= 60000:
        return value
    raise ValueError('a length in ms (0 to 60000), "race" or "off"')


_FALSE_START_WORDS = {"race": "until decided", "off": "no lockout"}


class Game:
    """Base of every game: holds the log, refolds it on undo. Subclasses define reset() and
    step()."""

    name = "?"
    min_players = 2
    max_players = 8
    OPTIONS = ()  # type: tuple  # option(...) tuples, in menu order
    UNITS = {"false_start": "ms"}  # type: dict  # option -> the unit of its numbers, for people
    ZERO = {}  # type: dict  # option -> what its value 0 means ("no target")
    WINS = ""  # how the game is won, for people, where the scores do not say it ("lowest ...")
    LABELS = {}  # type: dict  # option -> its name for people when not its own ("time to buzz")

    @classmethod
    def option_label(cls, name):
        """Option `name` as people read it: "time to buzz" for buzz_s, else the name in words
        ("false start"). The one source of these words: the host reads them from here
        (tablebuzz.views.describe) and from the `menu` event's `label`."""
        return cls.LABELS.get(name) or name.replace("_", " ")

    @classmethod
    def option_text(cls, name, value):
        """Option `name`'s `value` for people, with its unit or meaning: "250 ms", "no target",
        "until decided", "on" (the menu event's `text`, the display)."""
        if value is True:
            return "on"
        if value is False:
            return "off"
        if isinstance(value, int):
            if value == 0 and name in cls.ZERO:
                return cls.ZERO[name]
            unit = cls.UNITS.get(name)
            return "%d %s" % (value, unit) if unit else "%d" % value
        if name == "false_start":
            return _FALSE_START_WORDS.get(value, value)
        if isinstance(value, list):  # the quiz's teams: [[1, 2], [3, 4]]
            if not value:
                return "everyone alone"
            return " vs ".join(["+".join(["P%s" % p for p in team]) for team in value])
        return str(value)

    def tie_break(self):
        """Why two players on the same score got different places, for people (at most ~60
        ASCII characters; `game_over`'s `tie_break`), or None when no tie was split by a rule.
        Only the game knows its tie-break rule: the host shows these words, it never works them
        out."""
        return None

    @classmethod
    def presets(cls, name, value):
        """{option: value} that choosing `value` for option `name` also sets (a format preset),
        unless the set-up names them itself. Default: none."""
        return {}

    @classmethod
    def fixed_options(cls, players):
        """{option: value} the rules fix for `players` players whatever is chosen (Déglingo: 2
        players play to 12). The menu offers only that value; new_game refuses another."""
        return {}

    def __init__(self, players, options, seed=b""):
        self.players = players
        self.options = options
        self.seed = seed
        # room for LOG_CAP entries from the start, while the heap is in one piece: the list never
        # grows in play (MicroPython doubles a full list's items: 2 KB in one piece after 128
        # entries, which a fragmented heap did not have: issue 38), nor shrinks (a slice
        # deletion keeps its room; the log is only ever cut in place)
        global _spare
        spare = _spare  # reserved at power-up before the journal was read (a resume), or None
        _spare = None
        if spare is not None:
            self.log = spare  # type: list
        else:
            try:
                self.log = [None] * LOG_CAP
            except MemoryError:  # no 1.6 KB in one piece (stock MicroPython after a few games,
                self.log = []  # on the emulated RP2040): the game starts, its list grows
        del self.log[:]
        self.unchanged = 0  # entries at the log's start unchanged since the journal looked
        self.revision = 0  # counts changes of the log (record, undo): the journal saves on change
        # checkpoints (UNDO_KEEP): `base`, the state (Game.state) the log continues from, None
        # for the empty log; `base_len`, the entries folded into it; `next_base`, the next
        # checkpoint (position in log, decisions before it, state) or None; `decided`, the
        # scoring entries in log
        self.base = None  # type: list | None
        self.base_len = 0
        self.next_base = None  # type: tuple | None
        self.decided = 0
        self._encoded = None  # the options' JSON text, once made (encoded_options)
        self.restart()

    def encoded_options(self):
        """The options as refbox.protocol.Encoded: their JSON text made once for the game (its
        `game` line, each snapshot), since they never change in it."""
        encoded = self._encoded
        if encoded is None:
            encoded = self._encoded = Encoded(self.options)
        return encoded

    def restart(self):
        """The state of an empty log, with the game's PRNG back at its start: a refold makes the
        same draws in the same order (deals, orientation draws). With a checkpoint (`base`), the
        state of the entries folded into it."""
        self.prng = Prng(self.seed + b"/game")
        self.reset()
        if self.base is not None:
            self.restore(self.base)

    def state(self):
        """The folded state, JSON-ready: [[attribute, value]...] sorted by name, every attribute
        but the set-up, the log and the checkpoints themselves (_NOT_STATE), and ["prng", its
        four words]. Values as `freeze` gives them. Raises TypeError for a value it cannot keep
        (then no checkpoint is taken: Game._checkpoint)."""
        names = sorted([name for name in self.__dict__ if name not in _NOT_STATE])
        out = [["prng", list(self.prng.state())]]
        for name in names:
            out.append([name, freeze(self.__dict__[name])])
        return out

    def restore(self, state):
        """Set the state a `state()` gave (also after JSON). Raises ValueError/TypeError/
        KeyError/IndexError for one that is malformed."""
        for name, value in state:
            if name == "prng":
                self.prng.restore(value)
            elif name in _NOT_STATE:
                raise ValueError("a checkpoint cannot set %s" % name)
            else:
                setattr(self, name, thaw(value))

    def entries(self):
        """Log entries in the whole game: those folded into the checkpoint and those in RAM."""
        return self.base_len + len(self.log)

    def reset(self):
        """Set the state of an empty log."""
        raise NotImplementedError

    def step(self, entry):
        """Fold one entry into the state; return the protocol events it causes [(name, fields)]."""
        raise NotImplementedError

    # The interface the App drives (refbox.app); each game implements what it uses.
    # `now`: the µs tick of the input being handled, set by the referee before every hook: the
    # arrival tick of a host command's line, the loop tick for a switch, a control or tick_entry.
    # An entry made from a command or a control records it (so a refold needs no clock).
    now = 0
    phase = "ready"
    scores = []  # type: list
    answering = None  # type: int | None  # the 0-based player who has the floor, if any

    def eligible(self):
        """0-based players who may race now."""
        return []

    def locked_out(self):
        """0-based players in a false-start lockout the game keeps itself (not the arbiter's),
        for `state.locked`."""
        return []

    def question_id(self):
        """An int that changes when a new question begins (a new card, a new round), or None:
        then each entry into the "ready" phase is a new question. A false_start "race" lockout
        lasts until the race of another question is armed: a race reopened after a wrong answer
        keeps it (rules/README.md "Armed / not armed"; docs/games.md)."""
        return None

    def arm_entry(self):
        """The log entry that opens a race. Raises GameError("not_now")."""
        raise GameError("not_now", "%s has no buzzer race now" % self.name)

    def arm_command(self, args):
        """The `arm` command's entry; `args` may hold `points` (a question's value), which only
        games with point values take. Raises GameError."""
        if "points" in args or "compute" in args:
            raise GameError("bad_value", "%s has no point values" % self.name)
        return self.arm_entry()

    @staticmethod
    def check_options(players, options):
        """Check options that depend on the player count, before the game starts. Raises
        GameError("bad_option")."""
        return None

    def judge_entry(self, correct):
        """The log entry of the table's judgement. Raises GameError("not_now")."""
        raise GameError("not_now", "nothing to judge")

    def judge_command(self, args):
        """The `judge` command's entry; `args` may hold `points` (what the answer earns: a
        power) or `power`, which only the quiz takes. Raises GameError."""
        if "points" in args or "power" in args:
            raise GameError("bad_value", "%s has no point values" % self.name)
        return self.judge_entry(args["correct"])

    def bonus_command(self, args):
        """The `bonus` command's entry (the quiz's tossup/bonus cycles). Raises GameError."""
        raise GameError("not_now", "%s has no bonuses" % self.name)

    def win_entry(self, player, stamp):
        """The log entry of a race won by 0-based `player`, whose press closed at Stamp
        `stamp` (the race's first press: a timer the win stops, stops there)."""
        return ("win", player)

    def ranking(self):
        """[(place, player, score)], 1-based."""
        return []

    def champions(self):
        """0-based players the LEDs show as winners at game over (the first-placed)."""
        ranking = self.ranking()
        return [ranking[0][1] - 1] if ranking else [0]

    def final_events(self):
        """Protocol events sent just before `game_over` (e.g. a team ranking)."""
        return []

    def state_fields(self):
        """The game's own fields, appended to the `state` event ((key, value) pairs)."""
        return ()

    def state_events(self):
        """Protocol events sent after `state` (e.g. names): what a newly connected host needs."""
        return []

    def station_colours(self, colours):
        """The colour of each station's pixel (default: each player's own; teams share one)."""
        return colours

    unit = "points"  # what `scores` counts

    def score_event(self):
        """The `score` protocol event: every player's score and its unit."""
        return ("score", (("scores", list(self.scores)), ("unit", self.unit)))

    # ---------------------------------------------------------------- hooks a game may override
    # Each returns a log entry (a tuple of ints, strs and bools) for the referee to record, or
    # None, or raises GameError(code, detail) to refuse. Entries must carry every fact the fold
    # needs (times included), so that replaying the log gives the same state.

    # True if the game's own draws (a deal, orientations) would be given away by its revealed
    # seed: then no undo after game over. Otherwise undo after game over is allowed and the
    # referee re-seeds the race tie-breaks under a new commitment.
    keeps_secrets = False
    # The referee's race tie-break PRNG (re-seeded with the race's after an undo past game over):
    # a game that orders equal stamps itself draws from it in a hook and logs the result.
    race_prng = None  # type: Prng | None
    turn = None  # type: int | None  # the 0-based player whose turn it is, if the game has turns (shown on the LEDs)
    trigger = "press"  # "release": a station's release is its press (jump pads; the quiz's option)
    # Which of the press hooks below the game has: the referee calls press_entry only when
    # `hears_press`, buzz_entry only when `hears_buzz` (a game that overrides one sets its flag;
    # tests/test_layout.py checks). The race's deciding press goes through them before its
    # decision: a hook with nothing to say is a call on the race path (~15 µs on the chip).
    hears_press = False
    hears_buzz = False

    def control_entry(self, name):
        """A control button: "arm", "yes", "no" (UNDO is the referee's). Raises GameError."""
        if name == "arm":
            return self.arm_entry()
        if name == "yes" or name == "no":
            return self.judge_entry(name == "yes")
        raise GameError("bad_value", "unknown control %s" % name)

    def buttons(self):
        """What each control does now, for people: [(control, meaning)], control "ARM", "YES",
        "NO" or a buzzer ("buzz", "P3"), meaning a few words (at most 11 characters: one line of
        the display with the control). UNDO (undo; held 2 s: the menu) always does the same and
        is not listed. Shown in the simulator's header, on the display, in docs/games/."""
        return []

    def doing(self):
        """What is happening now, for the whole table (the room's screens show it as is): a short
        sentence, at most DOING_MAX characters, e.g. "eyes closed: P2 changes the picture". Sent
        with the `buttons` event (docs/protocol.md). Only what the table may see: never a card
        not yet turned or a count entered in secret. "" when there is nothing to say."""
        return ""

    def status(self):
        """A few characters for the display's header beside the game's name ("R2", "Q5"), or
        ""."""
        return ""

    def screen(self, held):
        """The display's body for this game now: [(scale, text)] lines (refbox.screen), or [] for
        the default (the race winner while they have the floor, else the scores). `held`: the
        0-based players holding their buzzer now, earliest first. Only what the table may see:
        never a card not yet turned or a count entered in secret."""
        return []

    def repeats(self, name):
        """True if control `name` ("arm" or "no"), held, should repeat now: while a number or a
        value is being stepped (fast entry, refbox.controls). Nothing repeats by default."""
        return False

    def press_entry(self, player, stamp):
        """An accepted press (0-based player, Stamp of its first edge) outside or beside the race:
        a gesture such as Difference's skip. None if it means nothing to the game."""
        return None

    def buzz_entry(self, player, stamp):
        """A press the arbiter counted in the current race (after the cue, by an eligible player
        not locked out; also after the race was decided), or None."""
        return None

    def release_entry(self, player, stamp):
        """A release (0-based player, Stamp when the contact opened for good), or None."""
        return None

    def tick_entry(self, horizon):
        """Called every loop pass with the decision horizon, a refbox.ticks.Stamp: every press
        and release stamped at or before `horizon` has already been given to press_entry /
        release_entry, and every race with a press stamped at or before it has been decided
        (win_entry). It trails the loop's tick by the capture lag and the debounce (a few ms;
        longer while a race is being decided) and never moves backwards. Its value at a pass
        depends on when the pass runs, so an entry must never record it: return a timer's entry
        when it has run out, else None (one entry per call: the next pass asks again).

        The rule for every timer (docs/architecture.md "Deadlines"): its deadline is a Stamp
        computed from a time stored in the log entry that started it (a press stamp, a
        command's arrival tick), it fires when `horizon.diff_ns(deadline) >= 0`, a press
        stamped before the deadline beats it, and the expiry entry records the deadline, not
        `now`. Compare with Stamp.diff_ns or refbox.ticks.ticks_diff only."""
        return None

    def next_deadline(self):
        """The earliest Stamp at which `tick_entry` can return an entry with the log as it is now
        (it returns None for every horizon before it), None when no timer runs, or
        ASK_EVERY_PASS (the default: this game does not say). The referee asks once per log
        revision and skips `tick_entry` until a horizon reaches it: on the chip a game's timer
        check costs ~0.2 ms as bytecode, right before a race's first press is handed over
        (issue 20). It must depend only on the game's state (what the log folds to)."""
        return ASK_EVERY_PASS

    def is_busy(self):
        """True while a timer of the game runs (the simulator keeps the loop stepping)."""
        return False

    def frame_moves(self):
        """True while `decorate` paints something that changes with time alone (the loop then
        renders every 25 ms: refbox.leds.moves). Default: whenever the game paints at all."""
        return type(self).decorate is not Game.decorate

    def act_entry(self, args):
        """The protocol command `act` ({"action", "player", "value", "values", "text"}): a game's
        own inputs from the host. Raises GameError("unknown_action") by default."""
        raise GameError("unknown_action", "%s takes no act commands" % self.name)

    def prompt_events(self):
        """What the game asks for now, as protocol events (a question, whose turn): sent after the
        game starts and after an undo, so a host always knows what the table is waiting for."""
        return []

    def decorate(self, frame, now_ms, colours, station_pixels, marker_pixels):
        """Paint game-specific pixels over the default frame (refbox.leds), in place."""
        return None

    def is_scoring(self, entry):
        """True for the entries undo takes back."""
        return False

    def record(self, entry):
        """Append `entry` to the log and apply it; returns its events. May move the checkpoint
        (`_checkpoint`)."""
        self.log.append(entry)
        self.revision += 1
        events = self.step(entry)
        scoring = self.is_scoring(entry)
        if scoring:
            self.decided += 1
        self._checkpoint(scoring)
        return events

    def _checkpoint(self, scoring):
        """After an entry: once the log holds UNDO_KEEP decisions, its state is kept as the
        `next_base` checkpoint; once UNDO_KEEP more came after that (or the log reached LOG_CAP
        entries), the log before it is dropped, `next_base` becomes the `base` and the state now
        the next `next_base`. RAM then holds UNDO_KEEP to 2 * UNDO_KEEP decisions of the log (and
        at most LOG_CAP entries). A state that cannot be kept (Game.state) keeps the log whole."""
        n = len(self.log)
        pending = self.next_base
        if pending is None:
            if (scoring and self.decided >= UNDO_KEEP) or n >= LOG_CAP // 2:
                self._keep_pending(n)
            return
        if (scoring and self.decided - pending[1] >= UNDO_KEEP) or n >= LOG_CAP:
            at, decided, state = pending
            del self.log[:at]
            self.unchanged = self.unchanged - at if self.unchanged > at else 0  # (as shifted)
            self.base = state
            self.base_len += at
            self.decided -= decided
            self.next_base = None
            self._keep_pending(n - at)

    def _keep_pending(self, at):
        """The state now as `next_base` at log position `at`; none when it cannot be kept (a
        value Game.state refuses, or no heap for it now: the next entry tries again)."""
        self.next_base = None
        try:
            self.next_base = (at, self.decided, self.state())
        except (TypeError, MemoryError):
            pass

    def resume(self, log, points):
        """Take `log`, the entries after the checkpoint (`base`, set before), as this game's log
        after a power cut, folded from the latest of the state `points` ((position in `log`,
        decisions before it, state) or None: refbox.journal.Saved's `now` and `next_base`):
        that state restored and only the entries after it stepped. The log before it is kept
        unstepped for UNDO (which refolds from the checkpoint): power-up folds at most the
        entries saved since the journal's last snapshot, however long the night. With no point,
        the whole log is folded. Raises ValueError/TypeError/KeyError/IndexError for a
        malformed state or entry (as `restore` and `step`)."""
        at = 0
        state = None
        for point in points:
            if point is not None and at < point[0] <= len(log):
                at = point[0]
                state = point[2]
        if state is not None:
            self.prng = Prng(self.seed + b"/game")
            self.reset()
            self.restore(state)
        elif self.base is not None:
            self.restart()
        try:
            self.log.extend(log)  # (into the list reserved for LOG_CAP entries: no allocation)
        except MemoryError:  # (no reserved list and no block for a copy: the folded list itself)
            del self.log[:]
            self.log = log
        step = self.step
        for i in range(at, len(log)):
            step(log[i])
        self.count_decisions()

    def count_decisions(self):
        """`decided` from the log (after a resume or an undo's refold)."""
        decided = 0
        for entry in self.log:
            if self.is_scoring(entry):
                decided += 1
        self.decided = decided

    def undo(self):
        """Drop the last scoring decision and all after it, then refold from the checkpoint.
        Raises GameError("nothing_to_undo") when the log since the checkpoint holds none (UNDO
        reaches back at least UNDO_KEEP decisions)."""
        log = self.log
        for i in range(len(log) - 1, -1, -1):
            if self.is_scoring(log[i]):
                dropped = len(log) - i
                del log[i:]  # in place: no copy of the log, no new list
                if i < self.unchanged:
                    self.unchanged = i
                self.revision += 1
                self.restart()
                for entry in log:
                    self.step(entry)
                if self.next_base is not None and self.next_base[0] > i:
                    self.next_base = None  # its state had the decision taken back
                self.count_decisions()
                return dropped
        if self.base is not None:  # the decisions before the checkpoint stand (UNDO_KEEP)
            raise GameError(
                "nothing_to_undo", "UNDO reaches back %d decisions: older ones stand" % UNDO_KEEP
            )
        raise GameError("nothing_to_undo", "no scoring decision to undo")


class RaceGame(Game):
    """A game built on buzzer races judged by the table: ARM opens the first race, the winner gets
    the floor, YES / NO judge. Subclasses fold the judgement in `judged(player, correct)` (and
    other entries in `decide(player, entry)`) and set `phase` for what comes next."""

    def buttons(self):
        """ready: ARM opens the race; racing: the buzzers; answering: YES / NO judge."""
        if self.phase == "ready":
            return [("ARM", "arm buzzers")]
        if self.phase == "racing":
            return [("buzz", "answer")]
        if self.phase == "answering":
            return [("YES", "right"), ("NO", "wrong")]
        return []

    def arm_entry(self):
        if self.phase == "answering":
            raise GameError("not_now", "a player has the floor: YES or NO first")
        if self.phase != "ready":
            raise GameError("not_now", "the buzzers are already armed")
        return ("arm",)

    def judge_entry(self, correct):
        if self.phase != "answering":
            raise GameError("not_now", "nobody has the floor")
        return ("judge", correct)

    def step(self, entry):
        # RaceGame's own entries: ("arm",), ("win", player), ("judge", correct), ("end",)
        kind = entry[ENTRY_KIND]
        if kind == "arm":
            self.phase = "racing"
            return []
        if kind == "win":
            self.answering = entry[_WIN_PLAYER]
            self.phase = "answering"
            return []
        if kind == "end":
            self.phase = "over"
            return []
        player = self.answering
        if player is None:
            raise ValueError("a decision with nobody answering")
        if kind == "judge":
            return self.judged(player, entry[_JUDGE_CORRECT])
        return self.decide(player, entry)

    def judged(self, player, correct):
        """Fold a judgement of 0-based `player`; return the protocol events."""
        raise NotImplementedError

    def decide(self, player, entry):
        """Fold a game-specific entry made while 0-based `player` has the floor."""
        raise ValueError("unknown entry %s" % entry[ENTRY_KIND])


def freeze(value):
    """`value` (an attribute of a game's state) as JSON-ready lists, ints, strings, bools and
    None that `thaw` turns back into an equal value: a tuple as {"t": items}, a dict as
    {"d": [[key, value]...]} (sorted by key's text), a Stamp as {"s": [us, ns]}, bytes as
    {"b": hex}. Raises TypeError for anything else."""
    if value is None or value is True or value is False:
        return value
    if isinstance(value, (int, str)):
        return value
    if isinstance(value, list):
        return [freeze(v) for v in value]
    if isinstance(value, tuple):
        return {"t": [freeze(v) for v in value]}
    if isinstance(value, dict):
        keys = sorted(value, key=str)
        return {"d": [[freeze(k), freeze(value[k])] for k in keys]}
    if isinstance(value, Stamp):
        return {"s": [value.us, value.ns]}
    if isinstance(value, bytes):
        from binascii import hexlify

        return {"b": hexlify(value).decode()}
    raise TypeError("a checkpoint cannot keep %s" % type(value).__name__)


def thaw(value):
    """The value `freeze` gave `value` for (also after a JSON round trip). Raises ValueError,
    TypeError or KeyError for one it did not give."""
    if isinstance(value, list):
        return [thaw(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "t" in value:
        return tuple([thaw(v) for v in value["t"]])
    if "d" in value:
        out = {}
        for k, v in value["d"]:
            out[thaw(k)] = thaw(v)
        return out
    if "s" in value:
        us, ns = value["s"]
        return Stamp(int(us), int(ns))
    if "b" in value:
        from binascii import unhexlify

        return unhexlify(value["b"])
    raise ValueError("not a checkpoint's value")
