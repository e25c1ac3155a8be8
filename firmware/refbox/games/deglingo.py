"""Déglingo (Diferencio): the active player changes the picture while the others close their eyes,
then the observers race to find the change; with two players, Stop or Encore.

Rules: shared/rules/001_64e1c7829d61bb46.txt (Diferencio rulebook) and shared/rules/README.md
section "deglingo" (house reading). Table use: docs/games/deglingo.md.

- Rounds ("Game Turn", "End of Turn"): P1 is the first active player (the rulebook is silent: the
  table seats its first player at P1); the active player moves one seat on every round. A round
  starts in the eyes-closed phase (phase "eyes_closed"): the observers' buzzers are not armed; a
  press there is a false start that shows nothing until the phase ends. The active player presses
  their own buzzer to call "Déglingo!": the observers still in are armed (the referee's visible
  cue and beep), the observers who false-started get their `lockout` event then, and sit out the
  first `false_start` ms counted from the call (a press during that lockout restarts it, as the
  arbiter does; "race": out until the next question, the next round's call, also when the race
  reopens after a wrong answer; "off": no lockout).
- Three to six players ("Game Turn" 3): first observer in has the floor and points at a card; the
  table judges with YES / NO. Correct: +1 point to them, round over. Wrong: that observer is out
  for this round; the others race on. Nobody finds it (every observer out, the table gives up with
  ARM, or the `timer` runs out): +1 point to the active player. First to `target` (5) wins ("End of
  Game").
- Two players, Stop or Encore ("2-Player Variant"): the active player enters in secret how many
  cards they replaced (1 to 3: YES once per card during the eyes-closed phase, with no echo at
  all). The observer buzzes and points at one card at a time. Wrong: observer 0, active player 1
  per replaced card. Stop (ARM): observer 1 per card found, active player 1 per card not found.
  Finding them all ends the round as a stop; a time-out (`timer`) counts as a stop. First to 12
  wins; two players reaching 12 in the same round share the first place unless one has more.
- The secret count lives only in the call entry of the log until the round ends (nothing in an
  event, the LEDs, a tone, the `state` event or the log length depends on it); `round_over`
  reveals it.
"""

from refbox.compat import const
from refbox.games.base import (
    ENTRY_KIND,
    Game,
    GameError,
    false_start_option,
    int_in,
    option,
    rank_highest_first,
)
from refbox.leds import dimmed
from refbox.ticks import Stamp, ticks_add, ticks_diff

# Déglingo's log entries, the kind first (ENTRY_KIND), the other slots read by these names
# (const: nothing kept at run time); players 0-based, µs/ns a Stamp's two halves:
#   ("call", replaced, µs, ns)  ("relock", player, µs, ns)   ("unlock", µs, ns)
#   ("win", player, µs)         ("judge", correct, µs)       ("false_start", player)
#   ("stop",)  ("timeout", deadline)  ("untimed",)  ("end",)
_CALL_REPLACED = const(1)
_CALL_US = const(2)
_CALL_NS = const(3)
_PLAYER = const(1)  # relock, win, false_start
_RELOCK_US = const(2)
_RELOCK_NS = const(3)
_UNLOCK_US = const(1)
_UNLOCK_NS = const(2)
_WIN_US = const(2)
_JUDGE_CORRECT = const(1)
_JUDGE_US = const(2)

EYES_CLOSED = "eyes_closed"  # the active player changes the picture; nobody is armed
RACING = "racing"  # observers armed
ANSWERING = "answering"  # an observer has the floor; the table judges
OVER = "over"

TWO_PLAYER_TARGET = 12  # rulebook "2-Player Variant": "As soon as a player has won 12 cards"
MAX_REPLACED = 3  # rulebook "2-Player Variant": "replace 1 to 3 cards"
_RACE = "race"



def _timer_event(ms, running):
    """The round timer's `timer` event: `ms` its length when it starts (None when it pauses or
    runs again: the time left then depends on the loop's tick, which differs between boards),
    `running` (False: paused while an observer has the floor). A host pauses and resumes its
    countdown when the board says so, never by a rule of its own."""
    return ("timer", (("timer", "round"), ("player", None), ("ms", ms), ("running", running)))

class Deglingo(Game):
    name = "deglingo"
    min_players = 2
    max_players = 6
    OPTIONS = (
        false_start_option(),
        option("target", 5, int_in(1, 99), (5, 3, 7, 10)),
        option("timer", 0, int_in(0, 300), (0, 30, 60, 15)),
    )

    UNITS = {"false_start": "ms", "target": "points", "timer": "s"}
    ZERO = {"timer": "no timer"}

    @classmethod
    def fixed_options(cls, players):
        """Two players play Stop or Encore to 12 (rulebook "2-Player Variant"): `target` is
        that, so the menu and the `game` event show the real target."""
        return {"target": TWO_PLAYER_TARGET} if players == 2 else {}

    # Input still being typed, never folded (a refold does not need it):
    _draft = 0  # 2 players: the replaced count being entered (0 = nothing yet); secret

    def reset(self):
        self.scores = [0] * self.players
        self.round = 1
        self.active = 0  # 0-based active player
        self._draft = 0
        self._new_round()
        self.opened = None  # the first round opens with the game

    def _new_round(self):
        """The eyes-closed phase of round `self.round` for `self.active`."""
        self.phase = EYES_CLOSED
        self.turn = self.active
        self.answering = None
        self.out = []  # observers judged wrong this round
        self.early = []  # observers who pressed during the eyes-closed phase
        self.locks = [None] * self.players  # type: list  # per player: None, "race", or the Stamp it ends at
        self.replaced = 0  # 2 players: the secret count, known from the call on
        self.found = 0  # 2 players: cards found this round
        self.deadline = None  # µs tick when the timer runs out, while it runs
        self.left_us = None  # µs left on the timer while an observer has the floor
        # Stamp at which this eyes-closed phase began (the tick of the input that ended the last
        # round): a press stamped before it was meant for the last round, not this one
        self.opened = Stamp(self.now)
        self._draft = 0

    # ------------------------------------------------------------------ what the referee reads
    def two_players(self):
        """True for the Stop-or-Encore variant (rulebook "2-Player Variant")."""
        return self.players == 2

    def observers(self):
        """0-based players other than the active one."""
        return [p for p in range(self.players) if p != self.active]

    def eligible(self):
        """0-based observers who may race now: none in the eyes-closed phase (nobody is armed;
        the observers are shown dim by decorate); then those not judged wrong and not locked
        out."""
        if self.phase == OVER or self.phase == EYES_CLOSED:
            return []
        return [p for p in self.observers() if p not in self.out and self.locks[p] is None]

    def locked_out(self):
        """0-based observers in a false-start lockout now (`state.locked`)."""
        return [p for p in range(self.players) if self.locks[p] is not None and p not in self.out]

    def state_fields(self):
        """Déglingo's own `state` fields (docs/protocol.md): the round, the active player, the
        observers out this round (judged wrong), and whether the round timer runs
        (`timer_running`: False without one, between rounds and while an observer has the floor).
        No time left: it would depend on the very tick a judgement was handled, which differs
        between board modules; a host counts down from the `deglingo` event. After an undo they
        say what the room sees, so a host keeps no model of its own."""
        return (
            ("round", self.round),
            ("active", self.active + 1),
            ("out", [p + 1 for p in self.out]),
            ("timer_running", self.deadline is not None),
        )

    def is_scoring(self, entry):
        """UNDO takes back judgements, stops, time-outs and the Déglingo call."""
        return entry[ENTRY_KIND] in ("call", "judge", "stop", "timeout")

    def is_busy(self):
        """True while the timer runs (or waits, paused) or a timed false-start lockout runs."""
        if self.phase != RACING and self.phase != ANSWERING:
            return False
        if self.deadline is not None or self.left_us is not None:
            return True
        for lock in self.locks:
            if lock is not None and lock != _RACE:
                return True
        return False

    def status(self):
        return "R%d" % self.round

    def screen(self, held):
        """Eyes closed: who changes the picture (the same whatever count is entered in secret);
        then the default (the race winner, the scores)."""
        if self.phase == EYES_CLOSED:
            active = "P%d changes it," % (self.active + 1)
            return [(1, active), (1, "the others: eyes"), (1, "closed!")]
        return []  # racing: the display waits (no redraw while a race is open)

    def doing(self):
        """Eyes closed: who changes the picture; racing: the observers look; answering: who
        says what changed (Game.doing; never the secret replaced count)."""
        active = self.active + 1
        if self.phase == EYES_CLOSED:
            return "eyes closed: P%d changes the picture" % active
        if self.phase == RACING:
            if self.two_players():
                return "eyes open: find P%d's changes, or Stop" % active
            return "eyes open: who sees what P%d changed?" % active
        if self.phase == ANSWERING and self.answering is not None:
            return "P%d says what P%d changed" % (self.answering + 1, active)
        return ""

    def buttons(self):
        """Eyes closed: the active player's buzzer calls (2 players: YES once per replaced card
        first, NO clears: the prompt is the same whatever was entered); racing: the observers'
        buzzers, ARM stop / give up; answering: YES / NO."""
        if self.phase == EYES_CLOSED:
            shown = [("P%d" % (self.active + 1), "Deglingo!")]
            if self.two_players():
                shown = [("YES", "+1 replaced"), ("NO", "clear")] + shown
            return shown
        if self.phase == RACING:
            return [("buzz", "found it"), ("ARM", "stop" if self.two_players() else "give up")]
        if self.phase == ANSWERING:
            return [("YES", "right"), ("NO", "wrong")]
        return []

    # ------------------------------------------------------------------ inputs (hooks)
    def control_entry(self, name):
        """ARM: stop (2 players) or give up (the table) while the observers race. YES / NO:
        judge the observer with the floor; with 2 players in the eyes-closed phase, YES adds one
        replaced card (1, 2, 3, then 1 again) and NO clears the entry, silently."""
        if self.phase == EYES_CLOSED:
            if self.two_players() and name == "yes":
                self._draft = self._draft % MAX_REPLACED + 1
                return None
            if self.two_players() and name == "no":
                self._draft = 0
                return None
            raise GameError(
                "not_now",
                "eyes closed: P%d changes the picture and calls Deglingo with their buzzer"
                % (self.active + 1),
            )
        if name == "arm":
            return self.stop_entry()
        if name == "yes" or name == "no":
            return self.judge_entry(name == "yes")
        raise GameError("bad_value", "unknown control %s" % name)

    def arm_entry(self):
        """The `arm` command: the same as the ARM control."""
        return self.control_entry("arm")

    def stop_entry(self):
        """Stop (2 players) / the table gives up (3+), while the observers race."""
        if self.phase == ANSWERING:
            raise GameError(
                "not_now", "P%d has the floor: judge with YES / NO" % _number(self.answering)
            )
        if self.phase != RACING:
            raise GameError("not_now", "the observers are not looking yet")
        return ("stop",)

    def judge_entry(self, correct):
        if self.phase != ANSWERING:
            if self.phase == RACING:
                raise GameError("not_now", "nobody has the floor (ARM: stop / give up)")
            raise GameError("not_now", "nothing to judge")
        return ("judge", correct is True, self.now)  # the timer resumes from here

    def win_entry(self, player, stamp):
        """The race winner takes the floor; the timer pauses at the race's first press."""
        return ("win", player, stamp.us)

    hears_press = True  # (Game.hears_press)

    def press_entry(self, player, stamp):
        """The active player's press in the eyes-closed phase calls Déglingo; an observer's is a
        false start (recorded once, shown at the call); a locked observer's press while racing
        restarts their lockout."""
        if self.phase == EYES_CLOSED:
            if self.opened is not None and stamp.diff_ns(self.opened) < 0:
                return None  # pressed before this round began: a late buzz for the last one
            if player == self.active:
                self._check_call()
                return ("call", self._draft, stamp.us, stamp.ns)
            if player in self.early or self.options["false_start"] == "off":
                return None
            return ("false_start", player)
        if self.phase == RACING and player != self.active and player not in self.out:
            lock = self.locks[player]
            if lock is None:
                return None  # a press in the race: the arbiter's
            if lock != _RACE:
                return ("relock", player, stamp.us, stamp.ns)
        return None

    def _check_call(self):
        if self.two_players() and not self._draft:
            raise GameError(
                "not_now",
                "P%d: first enter how many cards you replaced (YES once per card, 1 to 3)"
                % (self.active + 1),
            )

    def act_entry(self, args):
        """`act` actions: "replaced" (value 1..3, 2 players, eyes-closed phase: the secret count,
        no echo), "deglingo" (the call, as the active player's buzzer), "stop" / "give_up" (as
        ARM)."""
        action = args.get("action")
        if action == "replaced":
            if not self.two_players():
                raise GameError("not_now", "only the 2-player game counts replaced cards")
            if self.phase != EYES_CLOSED:
                raise GameError("not_now", "the count is entered while the observer's eyes close")
            value = args.get("value")
            if not isinstance(value, int) or value is True or value is False:
                raise GameError("bad_value", "replaced takes a value from 1 to 3")
            if not 1 <= value <= MAX_REPLACED:
                raise GameError("bad_value", "replaced takes a value from 1 to 3")
            self._draft = value
            return None
        if action == "deglingo":
            if self.phase != EYES_CLOSED:
                raise GameError("not_now", "Deglingo was already called")
            self._check_call()
            return ("call", self._draft, self.now, 0)  # at the tick the command arrived
        if action == "stop" or action == "give_up":
            return self.stop_entry()
        raise GameError("unknown_action", "deglingo actions: replaced, deglingo, stop, give_up")

    def tick_entry(self, horizon):
        """The earliest timer that has run out at the decision horizon (Stamp; Game.tick_entry):
        a false-start lockout ending (the entry records its end) or the round's timer (the
        entry records the deadline). A press stamped before the deadline is a race the referee
        decides first: its winner takes the floor and the timer pauses at that press."""
        due = self.next_deadline()  # (the earliest of them: a time-out before an equal unlock)
        if due is None or horizon.diff_ns(due) < 0:
            return None
        if self.phase == RACING and due.us == self.deadline and due.ns == 0:
            return ("timeout", self.deadline)
        return ("unlock", due.us, due.ns)

    def frame_moves(self):
        """decorate changes with time alone only while the observers race: a locked-out
        observer blinks, the round timer's bar counts down (not while an observer answers:
        refbox.leds.moves asks then too)."""
        if self.phase != RACING:
            return False
        if self.deadline is not None:
            return True
        for p in range(self.players):
            if self.locks[p] is not None and p not in self.out:
                return True
        return False

    def next_deadline(self):
        """Game.next_deadline: the earliest end of a timed false-start lockout and, while the
        observers race, the round timer's deadline (Stamps; tick_entry returns None for every
        horizon before it), or None while neither runs. Asked once a log revision: the passes
        before it are idle ones (refbox.app.App._rest_until)."""
        if self.phase != RACING and self.phase != ANSWERING:
            return None
        due = None
        for lock in self.locks:
            if lock is not None and lock != _RACE and (due is None or lock.diff_ns(due) < 0):
                due = lock
        if self.phase == RACING and self.deadline is not None:
            deadline = Stamp(self.deadline)
            if due is None or deadline.diff_ns(due) <= 0:
                due = deadline  # (a lock ending with it: the time-out first, tick_entry)
        return due

    def record(self, entry):
        """Game.record, except that None (a hook that takes input silently, such as the secret
        count) records nothing: the referee passes what control_entry / act_entry return straight
        here, and the log length must not count the secret count's presses."""
        if entry is None:
            return []
        return Game.record(self, entry)

    def undo(self):
        """Game.undo; a time-out taken back lets the round go on without the timer."""
        log = self.log  # (undone in place: the decision taken back is read first)
        i = len(log) - 1
        while i >= 0 and not self.is_scoring(log[i]):
            i -= 1
        kind = log[i][0] if i >= 0 else None
        dropped = Game.undo(self)
        if kind == "timeout":
            self.record(("untimed",))
        return dropped

    # ------------------------------------------------------------------ fold
    def step(self, entry):
        kind = entry[ENTRY_KIND]
        if kind == "end":
            self.phase = OVER
            self.turn = None
            return []
        if kind == "false_start":
            self.early.append(entry[_PLAYER])
            return []
        if kind == "call":
            return self._called(entry[_CALL_REPLACED], entry[_CALL_US], entry[_CALL_NS])
        if kind == "relock":
            return self._lock(entry[_PLAYER], Stamp(entry[_RELOCK_US], entry[_RELOCK_NS]))
        if kind == "unlock":
            return self._unlock(Stamp(entry[_UNLOCK_US], entry[_UNLOCK_NS]))
        if kind == "untimed":
            self.deadline = None
            self.left_us = None
            return []
        if kind == "win":
            return self._won(entry[_PLAYER], entry[_WIN_US])
        if kind == "judge":
            return self._judged(entry[_JUDGE_CORRECT], entry[_JUDGE_US])
        if kind == "stop":
            return self._end_round("stop" if self.two_players() else "gave_up")
        if kind == "timeout":
            return self._end_round("time")
        raise ValueError("unknown deglingo entry %s" % kind)

    def _called(self, replaced, us, ns):
        """Déglingo! (rulebook "Game Turn" 2): observers armed, false starts shown now."""
        events = [("deglingo", (("round", self.round), ("active", self.active + 1)))]
        self.phase = RACING
        self.replaced = replaced if self.two_players() else 1
        call = Stamp(us, ns)
        for p in sorted(self.early):
            events += self._lock(p, call)
        racing = [p for p in self.observers() if p not in self.out]
        if racing and all([self.locks[p] == _RACE for p in racing]):
            # every observer false-started with `false_start: "race"`: out for the whole race, so
            # nobody can find it (rules/README.md "deglingo": nobody finds it -> the active player)
            return events + self._end_round("all_locked")
        timer = self.options["timer"]
        if timer:
            self.deadline = ticks_add(us, timer * 1000000)
            events.append(_timer_event(timer * 1000, True))
        return events

    def _lock(self, player, stamp):
        """False-start lockout of `player` from Stamp `stamp` (rules/README.md "Armed / not
        armed"): `false_start` ms, or "race" (for the rest of this round: out until the next
        question, also when the race reopens after a wrong answer)."""
        rule = self.options["false_start"]
        if rule == "off":
            return []
        if rule == _RACE:
            self.locks[player] = _RACE
            ms = None
        else:
            until = stamp.after_ns(rule * 1000000)
            self.locks[player] = until
            ms = rule
        return [("lockout", (("player", player + 1), ("reason", "false_start"), ("ms", ms)))]

    def _unlock(self, now):
        events = []  # type: list
        for p in range(self.players):
            lock = self.locks[p]
            if lock is not None and lock != _RACE and now.diff_ns(lock) >= 0:
                self.locks[p] = None
                events.append(("unlock", (("player", p + 1),)))
        return events

    def _won(self, player, now):
        if self.phase != RACING:
            return []  # a race overtaken by the end of the round: nothing to judge
        self.answering = player
        self.phase = ANSWERING
        if self.deadline is not None:
            left = ticks_diff(self.deadline, now)
            self.left_us = left if left > 0 else 0
            self.deadline = None
            return [_timer_event(None, False)]  # paused: an observer answers
        return []  # "race" lockouts last the round: out of the races reopened after it too

    def _judged(self, correct, now):
        """The table's judgement of the observer with the floor (rulebook "Game Turn" 3,
        "2-Player Variant")."""
        player = self.answering
        if player is None:
            raise ValueError("a judgement with nobody answering")
        events = [("judge", (("player", player + 1), ("correct", correct)))]  # type: list
        self.answering = None
        if self.two_players():
            if not correct:
                return events + self._end_round("wrong")
            self.found += 1
            if self.found >= self.replaced:
                return events + self._end_round("all_found")
        elif correct:
            return events + self._end_round("found", player)
        else:
            self.out.append(player)
            events.append(("lockout", (("player", player + 1), ("reason", "wrong"), ("ms", None))))
            if len(self.out) == len(self.observers()):
                return events + self._end_round("all_wrong")
            if all([self.locks[p] == _RACE for p in self.observers() if p not in self.out]):
                # the others false-started with "race": out for the round, so nobody can find it
                return events + self._end_round("all_locked")
        self.phase = RACING
        if self.left_us is not None:
            self.deadline = ticks_add(now, self.left_us)
            events.append(_timer_event(None, True))
            self.left_us = None
        return events

    def _end_round(self, how, finder=None):
        """Score the round (rules/README.md "deglingo"), reveal it in `round_over`, then the
        next round's eyes-closed phase, or the end of the game."""
        points = [0] * self.players
        active = self.active
        if self.two_players():
            observer = 1 - active
            if how == "wrong":
                points[active] = self.replaced
            else:  # stop, all_found, time, all_locked: a stop
                points[observer] = self.found
                points[active] = self.replaced - self.found
            found = self.found
            target = TWO_PLAYER_TARGET
        else:
            if finder is not None:
                points[finder] = 1
                found = 1
            else:
                points[active] = 1
                found = 0
            target = self.options["target"]
        for p in range(self.players):
            self.scores[p] += points[p]
        over = max(self.scores) >= target
        nxt = None if over else (active + 1) % self.players
        events = []  # type: list
        for p in range(self.players):
            lock = self.locks[p]
            if lock is not None:
                events.append(("unlock", (("player", p + 1),)))
        events.append(
            (
                "round_over",
                (
                    ("round", self.round),
                    ("active", active + 1),
                    ("how", how),
                    ("replaced", self.replaced),
                    ("found", found),
                    ("points", points),
                    ("next", None if nxt is None else nxt + 1),
                ),
            )
        )
        events.append(self.score_event())
        if nxt is None:
            self.phase = OVER
            self.turn = None
            self.answering = None
            self.deadline = None
            self.left_us = None
            self.locks = [None] * self.players
            return events
        self.round += 1
        self.active = nxt
        self._new_round()
        return events

    # ------------------------------------------------------------------ results and LEDs
    def ranking(self):
        """[(place, player, points)], 1-based, most points first; equal points share a place."""
        return rank_highest_first(self.scores)

    def decorate(self, frame, now_ms, colours, station_pixels, marker_pixels):
        """While the observers race: the active player's station dim, an observer in a
        false-start lockout blinking (4 Hz), and with `timer` the marker bar counting down (lit
        pixels = time left, blinking in the last 5 s). In the eyes-closed phase the observers are
        dim (waiting, not armed)."""
        if self.phase == EYES_CLOSED:
            for p in range(min(self.players, station_pixels)):  # (the observers: no list made)
                if p != self.active:
                    frame[p] = dimmed(colours[p], 10)
            return None
        if self.phase != RACING:
            return None
        if self.active < station_pixels:
            frame[self.active] = dimmed(colours[self.active], 10)
        blink_fast = (now_ms // 125) & 1
        for p in range(min(self.players, station_pixels)):
            if self.locks[p] is not None and p not in self.out:
                frame[p] = colours[p] if blink_fast else (0, 0, 0)
        if self.deadline is not None:
            total_ms = self.options["timer"] * 1000
            left_ms = ticks_diff(self.deadline, now_ms * 1000) // 1000  # (the frame's time:
            # `now` moves only in a working pass, and the passes before the deadline are idle)
            if left_ms < 0:
                left_ms = 0
            lit = (left_ms * marker_pixels + total_ms - 1) // total_ms
            show = left_ms > 5000 or (now_ms // 250) & 1
            for i in range(marker_pixels):
                on = i < lit and show
                frame[station_pixels + i] = (96, 56, 0) if on else (0, 0, 0)
        return None


def _number(player):
    """The 1-based number on the wire of a 0-based player."""
    return player + 1
