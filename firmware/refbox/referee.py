"""The referee: the decisions between the switches and the wire. Pure: no clock, no hardware.

It holds the set-up menu or the game being played, the arbiter of its races, and the game's seed;
it turns accepted presses, race decisions, controls and protocol commands into game log entries and
protocol events. The App (refbox.app) feeds it and sets `now`; `emit(name, fields)` and
`tone(freq_hz, ms)` go back out.

Time (docs/architecture.md "One ordered stream"): every input carries its instant, and the
referee takes the inputs in that order, each only once the press horizon has passed it: a press or
a release its stamp, a control its debounced press (refbox.controls), a console line its arrival
tick, a game timer its deadline. `now` is the µs tick of the input being handled and `instant`
its Stamp; the game sees `now` as `game.now` in every hook. A read-only line (`state`, `hello`)
and a line refused on its face (not JSON, an unknown command, an unknown control name) are
answered at once and never enter the stream.
"""

import gc

from refbox.arbiter import (
    ARMED,
    DECIDED,
    OUT_FIRST,
    OUT_KIND,
    OUT_LATER,
    OUT_MARGIN,
    OUT_MS,
    OUT_PLAYER,
    OUT_RACE_MARGIN,
    OUT_REASON,
    OUT_TIED,
    OUT_WINNER,
    READY,
    Arbiter,
)
from refbox.compat import TYPE_CHECKING, const
from refbox.games import GAME_ORDER, game_class, is_game, no_room, player_range, release_others
from refbox.games.base import ASK_EVERY_PASS, Game, GameError, parse_options  # noqa: F401 (Game: type comment)
from refbox.leds import NOTHING_SHOWN
from refbox.prng import Prng, commitment, seed_hex
from refbox.protocol import ProtocolError, parse_command, printable_text
from refbox.ticks import Stamp

if TYPE_CHECKING:
    from refbox.menu import Menu  # noqa: F401 (a type comment; imported where a menu opens)

OVER = "over"
# Referee.last_race, the race on the display: (winner, margin ns or None, tied), read by these
# names; players 0-based, tied [] or the players drawn among
RACE_WINNER = const(0)
RACE_MARGIN = const(1)
RACE_TIED = const(2)
# what a control button (refbox.controls) or the `control` command may say
CONTROL_NAMES = ("arm", "yes", "no", "undo", "undo:hold", "arm:repeat", "no:repeat")
_CONTROLS = ", ".join(CONTROL_NAMES)
# what the input queue holds besides switches (a switch's kind is True: pressed, False: released)
CONTROL = const(2)  # a control's action, its name
LINE = const(3)  # a console line's command: (name, args, id)
# commands answered at once from the state, outside the stream: they change nothing
READ_ONLY = ("state", "hello")
# game events with a sound: (Hz, ms)
TONES = {"dead": (392, 500), "time_warning": (1568, 80), "time_up": (262, 800)}


class Referee:
    def __init__(self, stations, emit, tone, entropy, hello_fields):
        self.stations = stations
        self.hello_fields = hello_fields
        self._emit = emit
        self._emitted = False  # an event went out since the prompts were last compared
        self.tone = tone
        self.entropy = entropy
        self.menu = None  # type: Menu | None
        self.game = None  # type: Game  # type: ignore[assignment]
        self.arbiter = Arbiter(None)
        self.players = 0
        self.seed = b""
        self.tie_shown = False
        self.now = 0  # µs tick of the input being handled (set by the App)
        self.instant = Stamp(0)  # the Stamp of that input: a race opened by it opens here
        # the inputs waiting for the press horizon, in stamp order: (Stamp, kind, what) with kind
        # True / False (a switch pressed / released: what is its station), CONTROL or LINE
        self._switches = []
        self._asked = 0  # times the game entered its ready phase (see _question)
        self._horizons = (Stamp(0), Stamp(0))  # (horizon, press_horizon) of the last tick
        # (horizon, press_horizon) of a pass that stopped at a race's decision, its queued
        # switches and timers still to hand over (tick), or None
        self._stopped = None  # type: tuple | None
        # (game, its log revision, horizon) of the last timers asked with none due (_timers)
        self._timers_asked = (None, 0, Stamp(0))  # type: tuple
        self._deadline = (None, 0, None)  # type: tuple  # (game, revision, next_deadline())
        self.shown = NOTHING_SHOWN  # type: tuple  # what the LEDs need of the game (refbox.leds.shown)
        # (game, players, options) of the last game started: the menu opens on it and YES at
        # game over plays it again (a rematch); the journal keeps it across power cuts
        self.last_setup = None  # type: tuple | None
        # the station colours (refbox.leds's palettes): chosen in the menu, announced in `hello`
        # and in a `palette` event, kept by the App (refbox.settings); `standard`: the pin
        # map's colours
        self.palette = "standard"
        self.standard = ()  # type: tuple
        self.last_race = None  # type: tuple | None  # RACE_WINNER, RACE_MARGIN, RACE_TIED
        self.abandoned = False  # the game over was an abandon (the display says so)
        self.holding = []  # 0-based players holding their buzzer now, earliest first
        self.save = None  # called just before a race opens: the App saves the journal then
        self.decided = None  # called once a race's win is recorded: the App lights the LEDs then
        self.cue = None  # called as a race opens, before its save: the App lights the cue then
        # called with a race's fields at its decision (arbiter_events), before its `race`
        # event and the game's bookkeeping: the App lights the winner and sends the line
        self.announce = None
        # called when a change of game lets the game in play go from RAM (_let_go): the App
        # and its journal drop what they hold of it
        self.letting_go = None
        self._buttons_sent = None  # the prompts last sent in a `buttons` event

    def error(self, code, detail, cid=None):
        """An `error` event; `cid`: the id of the command it refuses (docs/protocol.md "Command
        ids"). The detail keeps printable ASCII only (anything else becomes "?", which may echo
        what a user sent) and at most 120 characters, so the line stays far inside the
        protocol's 512 bytes."""
        fields = [("code", code), ("detail", printable_text(detail, 120))]  # type: list
        if cid is not None:
            fields.append(("id", cid))
        self.emit("error", fields)

    # ------------------------------------------------------------------ switches and races
    def press(self, station, stamp):
        """An accepted press of 0-based `station`, its contact closed at Stamp `stamp`. Queued:
        `tick` delivers it in stamp order once every earlier press is known, after every timer
        due at or before its stamp (docs/architecture.md "Deadlines"). With jump pads (the
        game's `trigger` "release") leaving the pad is the press: this is a release then."""
        game = self.game
        self._enqueue(stamp, game is None or game.trigger != "release", station)

    def release(self, station, stamp):
        """A press of 0-based `station` ended; the contact opened at Stamp `stamp`. Queued like
        press() (with jump pads, the press)."""
        game = self.game
        self._enqueue(stamp, game is not None and game.trigger == "release", station)

    def _enqueue(self, stamp, kind, what):
        """Queue one input at Stamp `stamp`, in stamp order. Equal stamps: switches first, by
        station (one PIO sample), never by which pass confirmed them; a control or a line after
        the switches and the other inputs at its stamp (arrival order)."""
        queue = self._switches
        switch = kind is True or kind is False
        i = len(queue)
        while i:
            ahead = queue[i - 1]
            later = ahead[0].diff_ns(stamp)
            if later < 0:
                break
            if later == 0:
                ahead_switch = ahead[1] is True or ahead[1] is False
                if not switch or (ahead_switch and ahead[2] <= what):
                    break
            i -= 1
        queue.insert(i, (stamp, kind, what))

    def control_at(self, name, tick):
        """A control button's action `name` (refbox.controls), its instant the µs `tick` at which
        it counted (the press once debounced, a repeat's or a hold's moment). Queued: `tick`
        takes it in stamp order. An unknown name is refused at once (it changes nothing)."""
        if name not in CONTROL_NAMES:
            self.control(name)  # (the refusal, and nothing else)
            return
        self._enqueue(Stamp(tick), CONTROL, name)

    def line_at(self, line, tick):
        """One protocol line (bytes) that arrived at µs `tick`. A read-only command, or a line
        refused on its face (not a command, an unknown control name), is answered at once from
        the state as of `tick`: it never enters the stream, so it cannot move anything in it.
        Any other command is queued at its arrival tick and runs in stamp order (`tick`)."""
        try:
            name, args, cid = parse_command(line)
        except ProtocolError as e:
            self.error(e.code, e.detail, e.cid)
            return
        if name in READ_ONLY or (name == "control" and args["name"] not in CONTROL_NAMES):
            # answered as of its arrival (a timer's time left in `state`), not as of whichever
            # pass last ran the referee: passes waiting for a deadline do not (App._rest_until)
            self._at(Stamp(tick))
            self._run_command(name, args, cid)
            return
        self._enqueue(Stamp(tick), LINE, (name, args, cid))

    def _at(self, stamp):
        """The input being handled is at Stamp `stamp`: `now`, `instant` and the game's `now`."""
        self.instant = stamp
        self.now = stamp.us
        if self.game is not None:
            self.game.now = stamp.us

    def _deliver(self, stamp, pressed, station, proven=None):
        """Hand one queued input over at its Stamp `stamp`: a switch (`pressed` True / False:
        `station`'s press / release), a control (CONTROL: its name) or a line (LINE). `proven`:
        the Stamp up to which every press has been handed over with this one (the hand-over's
        press horizon, or just before the next input queued): a race it proves is decided at
        once (_press)."""
        self.instant = stamp  # (_at written out: this runs for every input)
        self.now = stamp.us
        if self.game is not None:
            self.game.now = stamp.us
        if pressed is CONTROL:
            try:
                self._control(station)
            except GameError as e:
                self.error(e.code, e.detail)
            self.prompts()
            return
        if pressed is LINE:
            self._run_command(station[0], station[1], station[2])
            return
        if pressed:
            self._press(station, stamp, proven)
        else:
            if station in self.holding:
                self.holding.remove(station)
            if self.game is not None and station < self.players and self.game.phase != OVER:
                self._offer(self.game.release_entry, station, stamp)
        self.prompts()  # after each input: where they stand never depends on the passes

    def _press(self, station, stamp, proven=None):
        in_menu = self.game is None  # in the menu every station reports presses: a wiring test
        if station >= (self.stations if in_menu else self.players):
            return
        if in_menu:
            self.emit("press", (("player", station + 1), ("t_us", stamp.us), ("t_ns", stamp.ns)))
            if self.menu is not None:  # the wiring test: the station lights, the piezo beeps
                self.menu.wiring_press(station, self.now)
                self.tone(1175, 60)
            return
        if station not in self.holding:  # (the game's `now` is the press's: _deliver)
            self.holding.append(station)
        out = []
        counted = self.arbiter.press(station, stamp, out)
        self.emit("press", (("player", station + 1), ("t_us", stamp.us), ("t_ns", stamp.ns)))
        if out:
            self.arbiter_events(out)
        game = self.game
        if game.hears_press and game.phase != OVER:
            self._offer(game.press_entry, station, stamp)
        if counted and game.hears_buzz and game.phase != OVER:
            self._offer(game.buzz_entry, station, stamp)
        if counted and proven is not None and self.arbiter.is_deciding():
            # every press up to `proven` is in: the race is decided now, its press's hooks
            # done, not at the hand-over's next tick (the same decision, ~0.4 ms sooner on the
            # chip). Its line is written there, once (arbiter_events).
            out = []
            self.arbiter.decide(proven, out)
            if out:
                self.arbiter_events(out)

    def capture_lost(self, closed):
        """Capture words were lost; `closed` (0-based stations) read closed at the resync. The open
        race's order is no longer proven (refbox.arbiter)."""
        self.arbiter.capture_lost(closed)

    def _offer(self, hook, *args):
        """Record what a game hook answers (an entry or None); a refusal becomes an error.
        True if the hook recorded something or refused."""
        try:
            entry = hook(*args)
        except GameError as e:
            self.error(e.code, e.detail)
            return True
        if entry is None:
            return False
        self._record(entry)
        return True

    def horizons(self, horizon, press_horizon):
        """The loop's horizons for this pass (refbox.app.App.horizons), given before its controls
        and commands run: what they hand over first is bounded by them."""
        self._horizons = (horizon, press_horizon)

    def tick(self, now, horizon, press_horizon):
        """Deliver the switches and run the timers, at loop tick `now` (µs).

        `press_horizon` (a Stamp): every press stamped at or before it has been accepted or
        refused (refbox.app.App.horizons); `horizon` (no later): every press and release. Queued
        switches stamped at or before `press_horizon` are delivered in stamp order, each after
        the timers due at its stamp; then the timers run up to the horizons. The arbiter decides
        races and lockout ends against the press horizon; the game's timers get `horizon`, held
        just before the first press of a race still being decided. So a press stamped before a
        deadline always beats it, and one stamped at or after it never does.

        A race decided while handing over ends the pass's referee work there (the switches after
        it and the timers wait for the next pass, `_stopped`), so the loop sends the `race` line
        and lights the winner's LED before the other presses' work (docs/protocol.md "Order of
        lines around a race"). What is handed over, and in which order, stays the same."""
        pass_now = Stamp(now)
        self._at(pass_now)
        self._horizons = (horizon, press_horizon)
        if self._stopped is not None and self._finish_stopped(True):
            pass  # (another race decided: the rest again next pass)
        elif self._hand_over(horizon, press_horizon, True):
            self._stopped = (horizon, press_horizon)
        else:
            queue = self._switches  # (_short_of_held written out: the deciding pass's call)
            if queue and press_horizon.diff_ns(queue[0][0]) >= 0:
                press_horizon = queue[0][0].after_ns(-1)
            self._timers(horizon, press_horizon)
            self.prompts()
        self._at(pass_now)  # (what comes outside the stream at the end of the pass sees it)

    def _finish_stopped(self, stop):
        """The rest of a pass that stopped at a race's decision: its switches, then its timers.
        True if it stopped again (`stop`: at the next race decided)."""
        stopped = self._stopped
        if stopped is None:
            return False
        self._stopped = None
        if self._hand_over(stopped[0], stopped[1], stop):
            self._stopped = stopped
            return True
        self._timers(stopped[0], self._short_of_held(stopped[1]))
        return False

    def _hand_over(self, horizon, press_horizon, stop=False):
        """Deliver the queued switches stamped at or before `press_horizon`, in stamp order, each
        after the timers due at its stamp. Later ones wait: a closure still being judged may
        turn out to be an earlier press, or a timer may fall due before them. With `stop`, the
        switches after a race decided here stay queued: True then."""
        queue = self._switches
        while queue and press_horizon.diff_ns(queue[0][0]) >= 0:
            stamp, pressed, station = queue[0]
            game = self.game
            before = horizon.diff_ns(stamp) < 0  # a release before it is still being judged
            if (before and game is not None and game.phase != OVER
                    and self._may_fire(game, stamp)):
                # a game timer may fall due by this switch, and a release before it is still
                # being judged (`horizon` is held before it): the timer cannot run before that
                # release is known, and the switch cannot come before the timer (a press at or
                # after a deadline never beats it: docs/architecture.md "Deadlines"); it waits,
                break  # and so do the arbiter's decisions at or after it (_short_of_held)
            arbiter = self.arbiter
            deciding = arbiter.is_deciding()
            due = horizon if before else stamp
            if (deciding or arbiter.locked or (game is not None and game.phase != OVER
                                               and self._may_fire(game, due))):
                self._timers(due, stamp)  # (else none is due: no lockout, no race, no timer)
            if stop and deciding and not arbiter.is_deciding():
                return True  # decided before this switch: the race line and LED go first
            queue.pop(0)
            if pressed is True and queue and press_horizon.diff_ns(queue[0][0]) >= 0:
                proven = queue[0][0].after_ns(-1)  # the next input: it may be a tie, a NO
            else:
                proven = press_horizon
            game = None  # type: ignore[assignment]  # not held as the input runs (_let_go)
            self._deliver(stamp, pressed, station, proven)
        return False

    def _short_of_held(self, press_horizon):
        """After a hand-over up to `press_horizon` that did not stop at a decision: that horizon,
        or just before the first switch still queued at or before it (the one `_hand_over` held
        back for a timer): the arbiter decides nothing (a race, a lockout's end) that switch
        could come before."""
        queue = self._switches
        if queue and press_horizon.diff_ns(queue[0][0]) >= 0:
            return queue[0][0].after_ns(-1)
        return press_horizon

    def _flush(self):
        """Before a control or command: hand over what the loop's horizons allow, exactly as the
        pass's own tick would (docs/architecture.md "Deadlines"): first what a pass stopped at a
        race's decision left. Switches beyond the press horizon stay queued, so a line, valid or
        refused, read-only or not, changes neither the order of the presses nor a race, a
        lockout or a deadline: only its own answer."""
        self._finish_stopped(False)
        horizon, press_horizon = self._horizons
        self._hand_over(horizon, press_horizon)

    def _timers(self, horizon, press_horizon):
        out = []
        self.arbiter.tick(press_horizon, out)
        if out:
            self.arbiter_events(out)
        game = self.game
        if game is None:
            return
        deciding = self.arbiter.deciding()
        if deciding is not None:
            if horizon.diff_ns(deciding) >= 0:
                horizon = deciding.after_ns(-1)
            asked = self._timers_asked
            if asked[0] is game and asked[1] == game.revision and asked[2].diff_ns(horizon) >= 0:
                return  # held before the race (every press of a race but the first): asked already
        for _ in range(8):  # every timer due by the horizon: one entry a call
            if game.phase == OVER or not self._may_fire(game, horizon):
                break
            due = game.next_deadline()  # a timer acts at its deadline (a Stamp), if the game
            if due is None or due is ASK_EVERY_PASS or due.diff_ns(horizon) > 0:  # says it
                due = horizon
            self._at(due)
            if not self._offer(game.tick_entry, horizon):
                break
            self.prompts()
        else:
            return  # more may be due: ask again next time
        # no timer was due by `horizon` with the log at this revision: asking again for a horizon
        # no later, the log unchanged, finds none either (Game.tick_entry never records the
        # horizon; a timer a press starts runs out after that press)
        self._timers_asked = (game, game.revision, horizon)

    def _may_fire(self, game, horizon):
        """False when `game.tick_entry(horizon)` would surely return None: no timer runs, or
        `horizon` is before the game's next deadline (Game.next_deadline, asked once a log
        revision). On the press path: _next_deadline's read written out, a call less
        (tests/test_press_path.py counts them)."""
        known = self._deadline
        if known[0] is not game or known[1] != game.revision:
            known = (game, game.revision, game.next_deadline())
            self._deadline = known
        deadline = known[2]
        if deadline is None:
            return False
        if deadline is ASK_EVERY_PASS:
            return True
        return horizon.diff_ns(deadline) >= 0

    def _next_deadline(self, game):
        """`game.next_deadline()`, asked once a log revision (kept in `_deadline`)."""
        known = self._deadline
        if known[0] is not game or known[1] != game.revision:
            known = (game, game.revision, game.next_deadline())
            self._deadline = known
        return known[2]

    def arbiter_events(self, out):
        """The arbiter's decisions in `out` ((kind, ...) items, refbox.arbiter) as events, in their
        order. A race's is asked first (the kind a decided race's list holds): its line's one
        moment (the App's `announce`), before the game's bookkeeping."""
        for item in out:
            kind = item[OUT_KIND]
            if kind == "race":
                winner, margin = item[OUT_WINNER], item[OUT_RACE_MARGIN]
                tied, first = item[OUT_TIED], item[OUT_FIRST]
                # its fields (refbox.protocol.RACE_KEYS): tied 0-based -> 1-based, first: Stamp
                said = (("winner", winner + 1), ("margin_ns", margin), ("tie", bool(tied)),
                        ("tied", [p + 1 for p in tied] if tied else []), ("t_us", first.us),
                        ("t_ns", first.ns))
                # the race line's one moment and one writer: its decision, before its event and
                # the game's bookkeeping (the App's `announce`: the winner's light, the lines
                # held from before the race, the line). Without an App the event is the line.
                self.tie_shown = bool(tied)
                self.last_race = (winner, margin, list(tied))
                if self.announce is not None:
                    self.announce(said)
                self.emit("race", said)
                self.tone(1760, 150)
                self._record(self.game.win_entry(winner, first))
                if self.decided is not None:
                    self.decided()  # the winner's LED before the rest of the pass
                # the prompts the win brings, right behind it: before any later press is handed
                # over, in whichever pass that falls (a decision can stop its pass's hand-over)
                self.prompts()
            elif kind == "lockout":
                fields = (("player", item[OUT_PLAYER] + 1), ("reason", item[OUT_REASON]),
                          ("ms", item[OUT_MS]))
                self.emit("lockout", fields)
                self.tone(220, 200)
            elif kind == "unlock":
                self.emit("unlock", (("player", item[OUT_PLAYER] + 1),))
            elif kind == "margin":
                winner, player, margin = item[OUT_WINNER], item[OUT_LATER], item[OUT_MARGIN]
                fields = (("winner", winner + 1), ("player", player + 1), ("margin_ns", margin))
                self.emit("margin", fields)
                race = self.last_race
                if race is not None and race[RACE_WINNER] == winner and race[RACE_MARGIN] is None:
                    self.last_race = (winner, margin, race[RACE_TIED])

    def buttons(self):
        """What each control does now, for people: [(control, meaning)] (Game.buttons; the menu's;
        at game over YES plays again, ARM the menu)."""
        if self.menu is not None:
            return self.menu.buttons()
        if self.game.phase == OVER:
            return [("YES", "play again"), ("ARM", "menu")]
        return self.game.buttons()

    def emit(self, name, fields=()):
        """Every event of the referee, the games and the menu goes out through here (a `race`
        event's line: `announce`, before it)."""
        self._emitted = True
        self._emit(name, fields)

    def prompts(self):
        """After an input was handled (a command, a control, a pass's switches and timers): a
        `buttons` event if what the controls do changed. Right after the events that changed
        them, so where it stands in the stream depends on the events alone, never on how the
        loop's passes fell; never while a race is open or being decided (the race line first)."""
        if not self._emitted:
            return
        arbiter = self.arbiter
        if arbiter.phase == ARMED or arbiter.is_deciding():
            return  # (the flag stays: compared once the race is decided)
        self.send_buttons()
        self._emitted = False

    def send_buttons(self, force=False):
        """A `buttons` event (what each control does now, Referee.buttons; what is happening,
        Referee.doing; the phase: "menu", the game's phase, "over"; who has the floor and whose
        turn it is, 1-based or None, as in `state`) when one of them changed since the last one
        sent, or always with `force` (after a `state`): so a host
        shows the board's own per-phase prompts. The App calls it only at a safe moment, never
        while a race is open."""
        shown = self.buttons()
        doing = self.doing()
        game = None if self.menu is not None else self.game
        phase = "menu" if game is None else game.phase
        answering = None if game is None or game.answering is None else game.answering + 1
        turn = None if game is None or game.turn is None else game.turn + 1
        now = (shown, doing, phase, answering, turn)
        if force or now != self._buttons_sent:
            if not force:  # a state's answer repeats them: it must change nothing that follows
                self._buttons_sent = now
            self.emit("buttons", (("buttons", [[c, m] for c, m in shown]), ("doing", doing),
                                  ("phase", phase), ("answering", answering), ("turn", turn)))

    def doing(self):
        """What is happening now, for the whole table (Game.doing; the menu and game over say
        so): the `buttons` event's `doing`."""
        if self.menu is not None:
            return "set-up menu: choose the game on the box"
        if self.game.phase == OVER:
            return "game over: YES plays again"
        return self.game.doing()

    def may_decide(self):
        """True when the next `tick` could hand a switch over or decide a race: a switch is
        queued, a pass stopped at a decision left its rest, or a race has counted presses.
        Allocates nothing."""
        return bool(self._switches) or self._stopped is not None or self.arbiter.is_deciding()

    def is_busy(self):
        if self._switches:
            return True
        if self.menu is not None and self.menu.is_busy():
            return True
        if self.game is not None and self.game.phase != OVER and self.game.is_busy():
            return True
        return self.arbiter.is_busy()

    def quiet_until(self):
        """The µs tick of the game's next deadline (Game.next_deadline, asked once a log
        revision) when nothing else keeps the referee busy: no switch queued, no pass stopped
        at a race's decision, no menu, the arbiter neither deciding nor timing a lockout. Until
        the horizon reaches it, a pass with no input hands nothing over and fires nothing
        (Game.tick_entry returns None for every horizon before it), so the App skips it
        (refbox.app.App._rest_until). None: every busy pass works (a game that does not say
        when its timer runs out, or none runs). Allocates nothing once the deadline is known."""
        if self._switches or self._stopped is not None or self.menu is not None:
            return None
        game = self.game
        if game is None or game.phase == OVER or self.arbiter.is_busy():
            return None
        deadline = self._next_deadline(game)
        if deadline is None or deadline is ASK_EVERY_PASS:
            return None
        return deadline.us

    # ------------------------------------------------------------------ menu and games
    def open_menu(self):
        """Back to the set-up menu (a game in progress ends, its seed revealed)."""
        from refbox.menu import Menu  # not at the top: power-up resuming a game needs no menu

        if self.game is not None and self.game.phase != OVER:
            self._game_over(abandoned=True)  # a published commitment is always honoured
        menu = self.menu
        if menu is not None:  # already in the menu: start again at the game shown
            self.menu = Menu(self.stations, menu.game, menu.players, menu.choice, self.palette)
        elif self.last_setup is not None:  # the last game, players and options
            game, players, options = self.last_setup
            self.menu = Menu(self.stations, game, players, options, self.palette)
        else:
            self.menu = Menu(self.stations, GAME_ORDER[0], palette=self.palette)
        self.game = None  # type: ignore[assignment]
        self.arbiter = Arbiter(None)
        self.players = 0
        self.emit(*self.menu.event())

    def palette_fields(self):
        """The `palette` event's fields: the palette's name, every station's [r, g, b]."""
        from refbox.leds import palette_fields

        return palette_fields(self.palette, self.standard, self.stations)

    def _checked(self, name, players, given_options):
        """(game class, options with defaults) for a game set-up, checked as the wire's is.
        Raises GameError. The player count is checked from the catalogue before the game's
        module is imported (its rows are the classes' min_players / max_players: test_core),
        so that a change of game with no room refuses it before the game in play is let go."""
        if not is_game(name):
            raise GameError("unknown_game", "games: %s" % ", ".join(GAME_ORDER))
        fewest, most = player_range(name)
        high = min(most, self.stations)
        if not fewest <= players <= high:
            raise GameError("bad_players", "%s takes %d to %d players" % (name, fewest, high))
        cls = game_class(name)
        options = parse_options(cls.OPTIONS, given_options, cls.presets)
        cls.check_options(players, options)
        fixed = cls.fixed_options(players)
        for key in fixed:
            if key in given_options and given_options[key] != fixed[key]:
                raise GameError(
                    "bad_option",
                    "%s: %d players play with %s %s"
                    % (key, players, key, cls.option_text(key, fixed[key])),
                )
            options[key] = fixed[key]
        return cls, options

    def new_game(self, name, players, given_options):
        """Start game `name` for `players` with options from the wire. Raises GameError.

        On a heap that cannot hold the next game beside the game in play (stock MicroPython:
        every module's bytecode is in RAM; on the emulated RP2040 Evidence after Diddly found
        no room), the game in play ends as this command ends it anyway (`game_over`, abandoned,
        its seed revealed: the same lines), leaves RAM (_let_go), and the set-up is made again.
        Then a set-up refused (`bad_option`, or `no_memory` still) finds the board in the menu,
        not in the game that was in play: on such a heap the next game's rules cannot be read
        beside it."""
        made = None
        try:
            made = self._make(name, players, given_options)
        except GameError as e:
            if e.code != "no_memory":
                raise
        except MemoryError:  # making the game itself, its module loaded: as the import's
            pass
        if made is None:
            if self.game is None:  # from the menu, which stands: nothing to let go
                raise no_room(name)  # (out of the except clause: its traceback's memory goes)
            try:
                self._let_go()
                made = self._make(name, players, given_options)
            except MemoryError:
                pass
            finally:
                if made is None and self.game is None and self.menu is None:
                    self.open_menu()  # refused: the board waits in the menu, never in neither
            if made is None:
                raise no_room(name)
        self._start(made)

    def _let_go(self):
        """End the game in play (as a change of game does: its lines, seed revealed) and drop
        every reference to it, the journal's too (`letting_go`), so its module's code can be
        collected before the next game's is loaded. Leaves neither a game nor the menu (only
        new_game calls it, and it leaves the board in one of them); a MemoryError before the
        game is dropped leaves it where it was."""
        if self.game.phase != OVER:
            self._game_over(abandoned=True)  # a published commitment is always honoured
        self.arbiter = Arbiter(None)
        self.players = 0
        self.last_race = None
        self.holding = []
        self._timers_asked = (None, 0, Stamp(0))  # (caches keyed on the game itself)
        self._deadline = (None, 0, None)
        self.shown = NOTHING_SHOWN
        self.game = None  # type: ignore[assignment]
        if self.letting_go is not None:
            self.letting_go()
        release_others("", True)  # (every game module: the next is imported afresh)
        gc.collect()

    def _make(self, name, players, given_options):
        """The next game made, not yet held: (name, players, options, seed, game, arbiter,
        commitment). Nothing the loop or the room sees changes: a MemoryError making any of it
        (a full heap on the chip) leaves the board where it was, the game in play (or the
        menu, or the last game's end) in place. Raises GameError, MemoryError."""
        cls, options = self._checked(name, players, given_options)
        release_others(name)  # only this game's code stays in RAM
        seed = self.entropy()
        game = cls(players, options, seed)
        arbiter = Arbiter(Prng(seed))
        arbiter.false_start = options.get("false_start", 250)
        game.race_prng = arbiter.prng
        game.encoded_options()  # (made now: the `game` line's text)
        return (name, players, options, seed, game, arbiter, commitment(seed))

    def _start(self, made):
        """Hold the game `made` (_make) and announce it; a game in play ends first."""
        name, players, options, seed, game, arbiter, commit = made
        if self.game is not None and self.game.phase != OVER:
            self._game_over(abandoned=True)  # a published commitment is always honoured
        self.seed = seed
        self.last_setup = (name, players, dict(options))
        self.game = game
        self.menu = None
        game.now = self.now
        self.players = players
        self.arbiter = arbiter
        self.tie_shown = False
        self.last_race = None
        self.abandoned = False
        self.holding = []
        self.emit(
            "game",
            (
                ("game", name),
                ("players", players),
                ("options", game.encoded_options()),
                ("commit", commit),
            ),
        )
        self.emit(*game.score_event())
        self._sync_arbiter()
        for name, fields in game.prompt_events():
            self.emit(name, fields)

    def resume(self, saved):
        """Rebuild the unfinished game `saved` (refbox.journal.Saved) after a power cut: the log
        is folded again from its latest state point (Game.resume; no event per entry),
        tie-breaks continue from the saved generator, then
        `resume`, `score`, `state` and the prompts go out; a race open at the cut is armed afresh
        (`armed`), so no press from before the cut can decide it. Nothing hidden is sent: the
        seed stays secret behind the commitment published at the start. Raises on a log this
        firmware cannot fold (the caller sets the journal aside)."""
        cls, options = self._checked(saved.game, saved.players, saved.options)
        release_others(saved.game)
        arbiter = Arbiter(Prng(saved.seed))
        if saved.ties is not None:
            arbiter.prng.restore(saved.ties)
        arbiter.restore_lockouts(saved.locked)
        arbiter.false_start = options.get("false_start", 250)
        game = cls(saved.players, options, saved.seed)
        game.now = self.now
        game.race_prng = arbiter.prng
        game.base = saved.base  # a checkpoint (or None): the log continues from its state
        game.base_len = saved.base_len
        game.resume(saved.log, (saved.now, saved.next_base))  # from its latest state point
        saved.now = None  # (restored from: let it go before the lines below allocate)
        game.next_base = saved.next_base
        self.menu = None
        self.seed = saved.seed
        self.game = game
        self.players = saved.players
        self.arbiter = arbiter
        self._asked = arbiter.question  # the same question: its "race" lockouts stay
        if game.phase == "ready":
            arbiter.ready()  # still waiting for this question's cue: not a new question
        self.tie_shown = False
        self.emit(
            "resume",
            (
                ("game", game.name),
                ("players", game.players),
                ("options", game.encoded_options()),
                ("commit", commitment(self.seed)),
                ("log", game.entries()),
                ("reopened", game.phase == "racing"),  # the race open at the last save: its
                # winner, if one was announced before the cut, is void (docs/protocol.md)
            ),
        )
        self.emit(*game.score_event())
        self._sync_arbiter()
        self.emit("state", self._state_fields())
        for name, fields in game.prompt_events():
            self.emit(name, fields)

    def record(self, entry):
        """Fold one log entry as if it were decided now, its events sent: how a journal pulled off
        the board is replayed on the host (tablebuzz.records.journal_replay)."""
        self._record(entry)

    def _record(self, entry):
        if entry is None:
            return  # the hook had nothing to record
        for name, fields in self.game.record(entry):
            self.emit(name, fields)
            if name in TONES:
                self.tone(*TONES[name])
        self._sync_arbiter(handover=True)

    def _sync_arbiter(self, handover=False):
        """Bring the arbiter in line with the game's phase; `handover`: the entry just recorded
        may have passed the floor of the decided race to the next in line."""
        game = self.game
        phase = game.phase
        arbiter = self.arbiter
        if phase == OVER:
            arbiter.idle()
            self._game_over(abandoned=False)
        elif phase == "ready":
            if arbiter.phase != READY:
                self._asked += 1  # a new question is being read
                arbiter.question = self._question()
                arbiter.ready()
        elif phase == "racing":
            eligible = game.eligible()
            if arbiter.phase == ARMED:
                arbiter.eligible = list(eligible)  # same race, same cue: presses in flight count
            else:
                arbiter.question = self._question()
                cue = self.instant  # the input that opened the race: the cue is its instant
                if cue.us != self.now:
                    cue = Stamp(self.now)  # (set from outside the stream: the boot's resume)
                if self.cue is not None:
                    self.cue()  # the LEDs show the cue now, at its instant, not after the save
                if self.save is not None:
                    self.save()  # the decision is kept before the race opens: no write during it
                    self._at(cue)  # whatever the save took (presses meanwhile keep their stamps)
                out = []
                arbiter.arm(cue, eligible, out)  # a new question ends "race" lockouts
                self.arbiter_events(out)
                self.tie_shown = False
                self._buttons_sent = None  # the `armed` line said the race's: after the race
                # the board says what the controls do again, even if as before it (a cancel)
                self.emit("armed", (("players", [p + 1 for p in eligible]),
                                    ("doing", game.doing()),  # the race's words (Game.doing)
                                    ("t_us", cue.us),
                                    ("t_ns", cue.ns)))  # the cue: a press before it is early
                self.tone(988, 80)
        elif arbiter.phase == DECIDED and arbiter.winner == game.answering:
            pass  # the race's winner has the floor
        elif arbiter.phase == DECIDED and handover and game.answering is not None:
            arbiter.hand_over(game.answering)
        else:
            out = []
            arbiter.idle(out)  # e.g. an undo gave the floor back to an earlier player
            self.arbiter_events(out)

    def _locked(self):
        """1-based players in a false-start lockout: the arbiter's and the game's own."""
        locked = [p for p in self.arbiter.locked]
        for p in self.game.locked_out():
            if p not in locked:
                locked.append(p)
        return sorted([p + 1 for p in locked])

    def _question(self):
        """The question being asked or raced, for false_start "race" (out until the next
        question): the game's own count if it has one (Game.question_id), else how many times
        the game entered its ready phase (a question being read)."""
        question = self.game.question_id()
        return self._asked if question is None else question

    def _game_over(self, abandoned):
        game = self.game
        for name, final in game.final_events():
            self.emit(name, final)
        ranking = [{"place": pl, "player": p, "score": sc} for pl, p, sc in game.ranking()]
        fields = [
            ("game", game.name),
            ("ranking", ranking),
            ("unit", game.unit),
            ("abandoned", abandoned),
            ("seed", seed_hex(self.seed)),
        ]  # type: list
        why = None if abandoned else game.tie_break()
        if why:
            fields.append(("tie_break", why))  # the game's own words for a split tie
        self.emit("game_over", fields)
        game.phase = OVER
        self.abandoned = abandoned
        self.tone(1319, 600)

    def undo(self):
        """Take back the last scoring decision (rules/README.md "Undo"), also the one that ended
        the game, unless the game keeps secrets its revealed seed would now give away."""
        reopened = self.game.phase == OVER
        self.game.now = self.now
        if reopened and self.game.keeps_secrets:
            raise GameError("not_now", "the seed is revealed: undoing would show what is hidden")
        dropped = self.game.undo()
        if reopened:
            # the revealed seed must not decide what comes next: fresh tie-breaks, new commitment
            self.seed = self.entropy()
            false_start = self.arbiter.false_start
            self.arbiter = Arbiter(Prng(self.seed))
            self.arbiter.false_start = false_start
            self.game.race_prng = self.arbiter.prng
            self.emit("reseed", (("commit", commitment(self.seed)),))
        self.emit("undo", (("dropped", dropped),))
        self.emit(*self.game.score_event())
        self._sync_arbiter()
        self._emit_state()  # who has the floor, who may race, after undo
        for name, fields in self.game.prompt_events():
            self.emit(name, fields)

    # ------------------------------------------------------------------ controls and commands
    def control(self, name):
        """A control button (or the `control` command): arm, yes, no, undo, undo:hold, and
        arm:repeat / no:repeat while ARM / NO is held (refbox.controls). Any other name is
        refused (`bad_value`) in every phase, the menu included, and changes nothing."""
        self._flush()
        try:
            self._control(name)
        except GameError as e:
            self.error(e.code, e.detail)
        self.prompts()

    def _control(self, name):
        """control() without its error handling (the `control` command's). Raises GameError."""
        if name not in CONTROL_NAMES:
            raise GameError(
                "bad_value", "unknown control %s (controls: %s)" % (name[:32], _CONTROLS)
            )
        if name.endswith(":repeat"):
            name = name[: -len(":repeat")]
            if self.menu is None and (self.game.phase == OVER or not self.game.repeats(name)):
                return  # a held control steps only a value being entered
        if name == "undo:hold":
            self.open_menu()
        elif self.menu is not None:
            started = self.menu.control(name)
            if started is None:
                self.emit(*self.menu.event())
                if self.menu.palette != self.palette:  # the station colours step
                    self.palette = self.menu.palette
                    self.emit("palette", self.palette_fields())
            else:
                self.new_game(*started)
        elif self.game.phase == OVER:
            if name == "yes" and self.last_setup is not None:
                self.new_game(*self.last_setup)  # a rematch: same game, players, options
            elif name == "yes" or name == "arm":
                self.open_menu()  # the menu opens on the game just played
            elif name == "undo":
                self.undo()
            else:
                raise GameError("not_now", "the game is over: YES plays again, ARM the menu")
        elif name == "undo":
            self.undo()
        else:
            self.game.now = self.now
            self._record(self.game.control_entry(name))

    def command_line(self, line):
        """One protocol line (bytes); errors become `error` events. A command with an `id` ends
        with exactly one line naming it: `done` once it has run, or the `error` refusing it."""
        self._flush()
        try:
            name, args, cid = parse_command(line)
        except ProtocolError as e:
            self.error(e.code, e.detail, e.cid)
            return
        self._run_command(name, args, cid)

    def _run_command(self, name, args, cid):
        """Run one parsed command: its events, then `done` (with an id), or its `error`."""
        try:
            self.command(name, args)
        except ProtocolError as e:
            self.error(e.code, e.detail, cid)
            return
        except GameError as e:
            self.error(e.code, e.detail, cid)
            return
        if name not in READ_ONLY:
            self.prompts()  # before `done`: every event the command caused comes first
        if cid is not None:
            self.emit("done", (("id", cid), ("cmd", name)))

    def command(self, name, args):
        """Run one parsed command (docs/protocol.md). Raises ProtocolError or GameError."""
        if name == "hello":
            self.emit("hello", self.hello_fields())
            return
        if name == "state":
            if self.menu is not None:
                self.emit(*self.menu.event())
            else:
                self._emit_state()
            self.send_buttons(force=True)
            return
        if name == "new_game":
            players = args.get("players", self.stations)
            self.new_game(args["game"], players, args.get("options", {}))
            return
        if name == "control":
            self._control(args["name"])
            return
        if name == "menu":
            self.open_menu()
            return
        if self.menu is not None:
            raise GameError("not_now", "no game is running: choose one in the menu or new_game")
        if self.game.phase == OVER and name != "undo":
            raise GameError("not_now", "the game is over; start a new one")
        self.game.now = self.now  # the tick at which this command's line arrived
        if name == "arm":
            self._record(self.game.arm_command(args))
        elif name == "judge":
            self._record(self.game.judge_command(args))
        elif name == "bonus":
            self._record(self.game.bonus_command(args))
        elif name == "undo":
            self.undo()
        elif name == "end":
            self._record(("end",))
        elif name == "act":
            self._record(self.game.act_entry(args))

    def _emit_state(self):
        self.emit("state", self._state_fields())
        for name, fields in self.game.state_events():
            self.emit(name, fields)

    def _state_fields(self):
        game = self.game
        return (
            ("game", game.name),
            ("players", self.players),
            ("phase", game.phase),
            ("scores", list(game.scores)),
            ("unit", game.unit),
            ("eligible", [p + 1 for p in game.eligible() if not self.arbiter.is_locked(p)]),
            ("locked", self._locked()),
            ("answering", None if game.answering is None else game.answering + 1),
            ("turn", None if game.turn is None else game.turn + 1),
            ("log", game.entries()),
        ) + tuple(game.state_fields())
