"""First-press arbitration: who pressed first, by how much, ties, false starts and lockouts.

The arbiter sees debounced presses, each stamped with the moment its contact first closed, and the
game's cue (`arm`). It never reads a clock: `tick(now)` tells it what time it is.

- Before the cue a race is expected but not open (phase READY): a press is a *false start* and
  locks that player out for `false_start` ms, restarted by every further early press; `false_start`
  may also be "race" (out until the next question: the next arm() for another `question` than the
  one the false start was made in, so also out of the race reopened after a wrong answer) or "off".
  A press that began before the cue counts as early even if it is accepted after it.
- Once armed, the earliest accepted press wins as soon as that is proven: once the press horizon
  (`tick(now)`: every press stamped at or before `now` has been given to press(), so no closure
  still being debounced began at or before it) has passed its stamp. No fixed window is waited
  for: a press that could still come is one stamped after the horizon, so after the winner.
  Equal stamps (one PIO sample, or one GPIO snapshot) are a tie, broken by a draw from the
  firmware PRNG, never by GPIO order, and announced as a tie; the horizon must have passed the
  stamp, so every tied press is known.
- After the decision, the first later press of another eligible player gives the margin (a
  `margin` event). Presses given before the decision (only possible when a caller hands several
  over before ticking) are ranked with the winner, the runner-up's gap in the race's margin.
- When capture words were lost while the race was open (`capture_lost`), its order is not proven:
  every player who pressed before the decision or whose contact read closed at the resync shares a
  declared tie (drawn), never a win by margin (docs/architecture.md "Lost capture words").
Rules: rules/README.md "First press", "Ties", "Armed / not armed"; design notes "Timing facts".
"""

from refbox.compat import const
from refbox.ticks import Stamp

IDLE = const(0)  # no race expected: presses only reported
READY = const(1)  # a race is about to open: presses are false starts
ARMED = const(2)  # the race is open
DECIDED = const(3)  # a winner is known; waiting for the game

_RACE_LONG = "race"

# What press(), tick(), arm() and idle() append to `out`: tuples, the kind first, the rest read by
# these names (const indices: a read costs what a number does, nothing is allocated):
#   ("lockout", player, reason, ms)           ms None for a "race" lockout
#   ("unlock", player)
#   ("margin", winner, player, margin_ns)     the first later press after the decision
#   ("race", winner, margin_ns, tied, first)  tied: [] or the drawn players; first: Stamp
# Players are 0-based; margin_ns None while nobody else has pressed.
OUT_KIND = const(0)
OUT_PLAYER = const(1)  # lockout, unlock
OUT_REASON = const(2)  # lockout
OUT_MS = const(3)  # lockout
OUT_WINNER = const(1)  # margin, race
OUT_LATER = const(2)  # margin: the player who pressed later
OUT_MARGIN = const(3)  # margin
OUT_RACE_MARGIN = const(2)  # race
OUT_TIED = const(3)  # race
OUT_FIRST = const(4)  # race

# lockouts() for the journal: [question, lockout, lockout...], each lockout a list read by these
# names: [player, µs, ns] (out until that Stamp) or [player, "race", question]
_LOCKOUTS_QUESTION = const(0)
_LOCKOUTS_FIRST = const(1)  # where the lockouts start
_LOCK_PLAYER = const(0)
_LOCK_US = const(1)  # or "race"
_LOCK_NS = const(2)
_LOCK_QUESTION = const(2)  # a "race" lockout's question


class Arbiter:
    false_start = 250  # ms, or "race", or "off"

    def __init__(self, prng):
        self.prng = prng
        self.phase = IDLE
        self.eligible = []
        self.armed_at = None
        self.locked = {}  # player -> Stamp until which they are out, or "race"
        self.question = 0  # the question being asked or raced (the referee keeps it up to date)
        self._race_question = {}  # player -> the question of their "race" lockout
        self._entries = []  # (Stamp, player) of the race being decided
        self._first = None  # the earliest Stamp in _entries (kept as they come: no scan a pass)
        self.winner = None
        self._winner_stamp = None
        self._margin_known = False
        self._unproven = False  # capture words were lost while this race was open
        self._suspects = []  # players closed at that resync

    # ---------------------------------------------------------------- commands from the game
    def ready(self):
        """A race is expected: from now on presses are false starts."""
        self.phase = READY
        self._entries = []
        self._first = None
        self._forget_loss()

    def idle(self, out=None):
        """No race expected (answers being judged, game over): presses are only reported."""
        self.phase = IDLE
        self._entries = []
        self._first = None
        self._forget_loss()

    def arm(self, now, eligible, out=None):
        """Open the race at Stamp `now` for the 0-based players in `eligible`. A "race" lockout
        taken in another question than `self.question` (set by the referee) ends here, with an
        ("unlock", player) appended to `out`."""
        for player in sorted(self.locked):  # sorted: dict order differs between interpreters
            if self.locked[player] == _RACE_LONG and self._race_question[player] != self.question:
                del self.locked[player]
                if out is not None:
                    out.append(("unlock", player))
        self.phase = ARMED
        self.armed_at = now
        self.eligible = list(eligible)
        self._entries = []
        self._first = None
        self._forget_loss()
        self.winner = None

    def capture_lost(self, closed):
        """Capture words were lost; `closed`: 0-based players whose contact read closed at the
        resync. An open race can no longer prove its order (see the module docstring)."""
        if self.phase != ARMED:
            return
        self._unproven = True
        for player in closed:
            if player in self.eligible and player not in self.locked:
                if player not in self._suspects:
                    self._suspects.append(player)

    def _forget_loss(self):
        self._unproven = False
        self._suspects = []

    def is_busy(self):
        """True while a race awaits its decision or a timed lockout runs (the loop must keep
        ticking)."""
        if self._entries:
            return True
        for player in self.locked:  # not .values(): that view would be allocated every pass
            if self.locked[player] != _RACE_LONG:
                return True
        return False

    def is_deciding(self):
        """True while a race has an accepted press not yet decided (its decision is to come).
        Allocates nothing."""
        return bool(self._entries)

    def deciding(self):
        """Stamp of the first press of the race being decided (the horizon has not passed it yet),
        else None. The referee holds the game's timers before it, so the race is decided first."""
        if self.phase != ARMED:
            return None
        return self._first

    def lockouts(self):
        """The lockouts as plain values for the journal: the question being asked first, then by
        player [player, µs, ns] for a timed one (until that Stamp), [player, "race", question]
        for a whole-race one."""
        out = [self.question]  # type: list
        for player in sorted(self.locked):
            until = self.locked[player]
            if until == _RACE_LONG:
                out.append([player, _RACE_LONG, self._race_question.get(player, 0)])
            else:
                out.append([player, until.us, until.ns])
        return out

    def restore_lockouts(self, items):
        """Take back lockouts() saved before a power cut (the resumed clock goes on from the
        save, so a timed lockout keeps what it had left)."""
        if not items:
            return
        self.question = int(items[_LOCKOUTS_QUESTION])
        for item in items[_LOCKOUTS_FIRST:]:
            player = int(item[_LOCK_PLAYER])
            if item[_LOCK_US] == _RACE_LONG:
                self.locked[player] = _RACE_LONG
                self._race_question[player] = int(item[_LOCK_QUESTION])
            else:
                self.locked[player] = Stamp(int(item[_LOCK_US]), int(item[_LOCK_NS]))

    def is_locked(self, player):
        return player in self.locked

    # ---------------------------------------------------------------- inputs
    def press(self, player, stamp, out):
        """An accepted press of 0-based `player` whose contact closed at Stamp `stamp`. True if it
        counts in the race: after the cue, by an eligible player not locked out, before or after
        the decision (a quiz's next in line is taken from these)."""
        phase = self.phase
        if phase == READY or (phase == ARMED and stamp.diff_ns(self.armed_at) < 0):
            self._false_start(player, stamp, out)
        elif phase == ARMED:
            if player in self.locked:
                self._false_start(player, stamp, out)  # mashing through a lockout restarts it
            elif player in self.eligible:
                self._entries.append((stamp, player))
                if self._first is None or stamp.diff_ns(self._first) < 0:
                    self._first = stamp
                return True
        elif phase == DECIDED:
            if player != self.winner and player in self.eligible and player not in self.locked:
                if not self._margin_known:
                    self._margin_known = True
                    out.append(("margin", self.winner, player, stamp.diff_ns(self._winner_stamp)))
                return True
        return False

    def hand_over(self, player):
        """The game passed the floor of this decided race to 0-based `player` (next in line):
        later presses still count in the race; no further `margin` is announced."""
        self.winner = player
        self._margin_known = True

    def tick(self, now, out):
        """Advance to Stamp `now`, the press horizon: every press stamped at or before it has been
        given to press() (refbox.app.App.horizons). The race is decided once `now` is past its
        first press: nothing stamped at or before that press can still come, ties included."""
        if self.locked:
            for player in sorted(self.locked):  # sorted: dict order differs between interpreters
                until = self.locked[player]
                if until != _RACE_LONG and now.diff_ns(until) >= 0:
                    del self.locked[player]
                    out.append(("unlock", player))
        self.decide(now, out)

    def decide(self, proven, out):
        """Decide the open race once Stamp `proven` is past its first press: every press stamped
        at or before `proven` has been given to press(), so none earlier or equal can still
        come, ties included. The decision tick() takes, without the lockouts' ends: the referee
        asks as soon as it has handed over a race's press with nothing else at or before
        `proven` (refbox.referee.Referee._press), and each lockout ends at its own instant, at
        the tick after it."""
        first = self._first if self.phase == ARMED else None  # (deciding(), a call saved)
        if first is not None and proven.diff_ns(first) > 0:
            self._decide(first, out)

    # ---------------------------------------------------------------- internals
    def _false_start(self, player, stamp, out):
        rule = self.false_start
        if rule == "off":
            return
        if rule == _RACE_LONG:
            self.locked[player] = _RACE_LONG
            self._race_question[player] = self.question
            out.append(("lockout", player, "false_start", None))
        else:
            self.locked[player] = stamp.after_ns(rule * 1000000)
            out.append(("lockout", player, "false_start", rule))

    def _decide(self, first, out):
        entries = self._entries
        if len(entries) == 1 and not self._unproven:  # a press alone: it wins, no margin yet
            self._won(entries[0][1], None, [], first, out)
            return
        ranked = []  # (ns after the first press, player)
        for stamp, player in self._entries:
            ranked.append((stamp.diff_ns(first), player))
        ranked.sort()
        tied = [player for offset, player in ranked if offset == 0]
        tied.sort()
        later = [offset for offset, _ in ranked if offset > 0]
        margin = None
        if self._unproven:  # lost words: nobody's order is proven
            tied = []
            for _, player in ranked:
                if player not in tied:
                    tied.append(player)
            for player in self._suspects:
                if player not in tied:
                    tied.append(player)
            tied.sort()
            later = []
        if len(tied) > 1:
            winner = tied[self.prng.below(len(tied))]
            margin = 0
        else:
            winner = tied[0]
            if later:
                margin = later[0]
        self._won(winner, margin, tied if len(tied) > 1 else [], first, out)

    def _won(self, winner, margin, tied, first, out):
        """The race is decided: 0-based `winner`, `margin` ns or None, `tied` [] or the drawn
        players, `first` the first press's Stamp; its ("race", ...) appended to `out`."""
        self.winner = winner
        self._winner_stamp = first
        self._margin_known = margin is not None or self._unproven
        self.phase = DECIDED
        self._entries = []
        self._first = None
        out.append(("race", winner, margin, tied, first))
