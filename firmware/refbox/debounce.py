"""Debounce one station's contact from its edge stream: presses stamped at their first edge, noise
never a press.

A closing edge starts a *candidate*, stamped at that edge; what it becomes (a press, or noise) is
refbox.closure's rule, written there once: closed for `press_us` in all since that edge and no
less than it was open (bounce openings do not count, nor reset it), unless an opening grows longer
than `bounce_gap_us` and `noise_ratio` times the closure so far, or `judge_us` passes first. So a
bounce train is stamped where the contact first closed, however long it bounced, and a worn
switch's drop-out only delays the acceptance: two short closures with a long gap do not add up to
a press. The next closing edge after a drop starts a new candidate: a spike of width w backdates a
real press only if that press closes within max(`bounce_gap_us`, `noise_ratio` * w) after it
(bounce and such a pair of edges look alike).
A press ends when the contact has been open for `release_us` without a break: bounce and the
drop-outs of a worn switch do not end it. The release is stamped at the first opening edge of its
train, like a press: re-closures of at most `bounce_gap_us` after it are release bounce; a longer
closure means the press went on (that opening was a drop-out).

Every rule is a function of the edges' stamps alone: `poll` only tells the debouncer how far the
edges are known, so when the loop runs changes when a press is reported, never whether or with
which stamp. Thresholds and why: docs/architecture.md "Debounce and noise"; figures: design notes
"Timing facts" (micro-switch bounce 0.5-6 ms; a worn one drops out for longer; no finger presses
for 50 µs).
"""

from array import array

from refbox import edgeloop
from refbox.closure import NOISE, PRESS, verdict, wait_ns
from refbox.compat import const
from refbox.ticks import Stamp

try:  # a candidate judged on machine words, on MicroPython (refbox.edgeloop.judge: the same)
    from refbox.edgeloop_viper import judge as _judge_words
except (ImportError, SyntaxError):  # CPython; CircuitPython (no viper)
    _judge_words = edgeloop.judge

_UP = const(0)
_CANDIDATE = const(1)
_DOWN = const(2)
# refbox.ticks's tick arithmetic (Stamp.diff_ns), written out where it runs for every edge
_HALF = const(1 << 29)
_MAX = const((1 << 30) - 1)
# The fields of a debouncer's state array (`Debouncer.v`, array('i')): everything an edge reads
# or writes, as machine words, so that refbox.edgeloop's machine code can feed a closure's
# bounce and a noise burst without a Python call (issue 20: ~0.17 ms an edge on the chip as
# Python). A tick field holds -1 for None (ticks are 0..2**30-1). refbox.edgeloop repeats them
# (a viper function sees only its own module's constants); tests/test_edgeloop.py checks both.
V_STATE = const(0)  # _UP, _CANDIDATE, _DOWN
V_CLOSED = const(1)  # 1: the contact's level is closed
V_SINCE_US = const(2)  # the last level change: µs tick (-1: no edge yet)
V_SINCE_NS = const(3)  # and ns inside it (0..999)
V_CLOSED_NS = const(4)  # the candidate's closed time before `since`, ns
V_OPEN_NS = const(5)  # and its open time before `since`, ns
V_FIRST_US = const(6)  # the candidate's first closing edge: µs tick (`first` as ints)
V_FIRST_NS = const(7)  # and ns inside it
V_DUE_US = const(8)  # a closure's: the tick before which `poll` can decide nothing (-1: none)
V_QUIET = const(9)  # 1 while the boot's quiet spell runs (`quiet_from` is not None)
V_FIELDS = const(10)


def bank_of(stations):
    """One Debouncer per station (0-based), their states in one array (`Debouncer(bank=...)`):
    what refbox.capture.EdgeDecoder.bind feeds on machine words."""
    bank = array("i", (0,) * (stations * V_FIELDS))
    debouncers = [Debouncer(station, bank) for station in range(stations)]
    rules = array("i", edgeloop.thresholds(Debouncer))
    for deb in debouncers:
        deb.rules = rules
        deb.judge_words = _judge_words
    return debouncers


class Debouncer:
    press_us = 1000  # closed this long in all since the first edge: a press
    bounce_gap_us = 200  # an opening up to this long is bounce, whatever closed before it
    noise_ratio = 5  # an opening this many times longer than the closure so far: noise
    judge_us = 20000  # a candidate not a press this long after its first edge: noise
    release_us = 5000  # open this long without a break: released
    boot_quiet_us = 3000  # at boot, open this long without a break before a press counts

    def __init__(self, station, bank=None):
        self.station = station
        # The state an edge touches, as machine words (the V_ fields): an edge allocates
        # nothing (a Stamp is ~40 µs on the chip, and a noise burst is an edge every few µs)
        # and refbox.edgeloop can read and write it. `v[V_DUE_US]`: kept at every edge of a
        # closure (`edge_at`), the earliest tick its press, drop or cap can come (rounded down),
        # so the passes before it judge nothing (~0.15 ms each on the chip, issue 20). `bank`:
        # an array('i') holding every station's fields, V_FIELDS each in station order
        # (`bank_of`), so the loop finds a station's by an offset, not a lookup (~3 µs an edge
        # on the chip); None: this debouncer's own.
        if bank is None:
            bank = array("i", (0,) * V_FIELDS)
            self.v = bank
        else:
            self.v = memoryview(bank)[station * V_FIELDS : (station + 1) * V_FIELDS]
        self.bank = bank
        # refbox.closure's `rules`: this debouncer's thresholds in ns (bank_of's: one array for
        # every station, which refbox.edgeloop.judge also reads: machine code on the board,
        # ~0.1 ms less a poll on the chip, `judge_words`)
        self.judge_words = None
        self.rules = edgeloop.thresholds(self)
        v = self.v
        v[V_STATE] = _UP
        v[V_SINCE_US] = -1
        v[V_DUE_US] = -1
        self.opened = None  # Stamp of the first opening edge of a press that may be ending
        self.glitches = 0  # candidates dropped as noise (a figure for benches and tests)
        self.quiet_from = None  # at boot: the contact is proven open only from this Stamp on

    def is_idle(self):
        """True when released and settled: nothing this debouncer waits for."""
        return self.v[V_STATE] == _UP

    def is_waiting(self):
        """True while a timer runs: a candidate being judged, a press being released, or the
        boot's quiet spell (`settle_from`)."""
        if self.quiet_from is not None:
            return True
        state = self.v[V_STATE]
        return state == _CANDIDATE or (state == _DOWN and self.opened is not None)

    def settle_from(self, stamp):
        """The capture began at Stamp `stamp` (power-up, a resume): a press counts only once the
        contact has been seen open for `boot_quiet_us` (3 ms: longer than any bounce opening of
        a contact being pressed) without a break. A contact bouncing when
        the board came up was being pressed before it could see it, so however its bounce goes
        on it is no press: it must be let go and pressed again (docs/architecture.md "The
        journal": nothing from before the boot decides a race)."""
        self.quiet_from = stamp
        self.v[V_QUIET] = 1
        self.v[V_DUE_US] = -1

    def found_closed(self, us, ns):
        """The capture's first sample, at µs tick `us` and `ns` inside it, found the contact
        closed: pressed before the board could see it (refbox.capture.EdgeDecoder.decode). The
        boot's quiet spell then ends only once it has been seen open for `boot_quiet_us`: a
        contact that stays closed past the spell and bounces open later is no press either
        (before, it counted as open from the start, and a pass after the spell ended it)."""
        if self.quiet_from is not None:
            v = self.v
            v[V_CLOSED] = 1
            v[V_SINCE_US] = us
            v[V_SINCE_NS] = ns

    def press_pending(self):
        """Stamp of the first edge of a closure not yet judged (a press or noise), else None.
        No press of this station stamped before it can still be reported."""
        return self.first_stamp() if self.v[V_STATE] == _CANDIDATE else None

    def first_stamp(self):
        """Stamp of the candidate's first closing edge (`v`'s FIRST fields; allocates): its
        press's stamp. Meaningless unless a candidate is or was judged."""
        v = self.v
        return Stamp(v[V_FIRST_US], v[V_FIRST_NS])

    def since(self):
        """Stamp of the last level change (None before the first edge). Allocates."""
        v = self.v
        if v[V_SINCE_US] < 0:
            return None
        return Stamp(v[V_SINCE_US], v[V_SINCE_NS])

    def pending(self):
        """Stamp of the earliest edge whose meaning is still open (a candidate's first edge, or
        the opening edge of a press that may be ending), else None."""
        state = self.v[V_STATE]
        if state == _CANDIDATE:
            return self.first_stamp()
        if state == _DOWN:
            return self.opened
        return None

    def edge(self, closed, stamp, out):
        """Feed one edge (closed: contact closed) at Stamp `stamp`, in time order; may append
        ('press' | 'release', station, Stamp)."""
        self.edge_at(closed, stamp.us, stamp.ns, out)

    def edge_at(self, closed, us, ns, out):
        """`edge` at µs tick `us` and `ns` (0..999) inside it: the capture's decoder feeds each
        word's edges so (refbox.capture.EdgeDecoder.decode; refbox.edgeloop feeds the edges that
        change no state but a closure's times itself), and a Stamp is made only where one is
        kept (a release's opening, the boot's quiet spell)."""
        v = self.v
        closed = 1 if closed else 0
        if v[V_QUIET]:
            if not closed:  # open from here on: the quiet spell counts from this edge
                self.quiet_from = Stamp(us, ns)
                v[V_CLOSED] = 0
                v[V_SINCE_US] = us
                v[V_SINCE_NS] = ns
                return
            quiet = self.quiet_from
            gap = (((us - quiet.us + _HALF) & _MAX) - _HALF) * 1000 + ns - quiet.ns  # type: ignore[union-attr]
            if gap < self.boot_quiet_us * 1000:
                v[V_CLOSED] = 1  # still bouncing from a press made before the boot
                v[V_SINCE_US] = us
                v[V_SINCE_NS] = ns
                return
            self.quiet_from = None  # open long enough: from now on the usual rules
            v[V_QUIET] = 0
            v[V_CLOSED] = 0
        if closed == v[V_CLOSED]:
            return
        held = 0
        state = v[V_STATE]
        if state != _UP:
            # what the level held since the last edge decided up to here; and for how long
            held = self._judge(us, ns, out)
            state = v[V_STATE]
        v[V_DUE_US] = -1
        if state == _UP:
            if closed:
                v[V_STATE] = _CANDIDATE
                v[V_FIRST_US] = us
                v[V_FIRST_NS] = ns
                v[V_CLOSED_NS] = 0
                v[V_OPEN_NS] = 0
                # closed from here with nothing open yet: `_judge` makes it a press exactly
                # `press_us` on (same ns inside the µs), and nothing else can happen before that
                v[V_DUE_US] = (us + self.press_us) & _MAX
        elif state == _CANDIDATE:  # (it was one before: `held` is this level's time)
            if closed:  # closed from here: it was open `held` more
                v[V_OPEN_NS] += held
            else:  # open from here: it was closed `held` more
                v[V_CLOSED_NS] += held
            wait = wait_ns(closed, v[V_CLOSED_NS], v[V_OPEN_NS], self.rules)
            # nothing can be decided before then, nor before the cap (judge_us from `first`):
            # the passes before it skip this closure (`poll`, App._poll) and the loop wakes
            # for it (App.wake_in_us); µs tick, rounded down
            cap = self.judge_us * 1000 - (((us - v[V_FIRST_US] + _HALF) & _MAX) - _HALF) * 1000
            cap -= ns - v[V_FIRST_NS]
            if wait > cap:
                wait = cap
            if wait < 0:
                wait = 0
            v[V_DUE_US] = (us + (ns + wait) // 1000) & _MAX
        elif not closed and self.opened is None:  # (_DOWN)
            self.opened = Stamp(us, ns)  # a release may begin here
        v[V_CLOSED] = closed
        v[V_SINCE_US] = us
        v[V_SINCE_NS] = ns

    def poll(self, now, out):
        """Apply the rules up to Stamp `now`, a time by which every edge has been fed (the loop's
        tick minus the capture lag); may append ('press' | 'release', station, Stamp)."""
        v = self.v
        quiet = self.quiet_from
        if quiet is not None and not v[V_CLOSED]:
            if now.diff_ns(quiet) >= self.boot_quiet_us * 1000:
                self.quiet_from = None  # seen open long enough since the boot
                v[V_QUIET] = 0
        if v[V_STATE] == _UP:
            return
        due = v[V_DUE_US]
        if due >= 0 and ((due - now.us + _HALF) & _MAX) - _HALF > 0:
            return  # too soon for anything (see V_DUE_US)
        judge_words = self.judge_words
        if judge_words is not None:
            said = judge_words(self.bank, self.station, now.us, now.ns, self.rules)
            if said == 1:
                out.append(("press", self.station, Stamp(v[V_FIRST_US], v[V_FIRST_NS])))
                return
            if said == 2:
                self.glitches += 1
                return
            if said == 0:
                return
        self._judge(now.us, now.ns, out)

    def _judge(self, t_us, t_ns, out):
        """Decide what the level held since `since` means by µs tick `t_us` and `t_ns` inside
        it (no edge in between). Returns ns from `since` to then (0 when released and settled,
        or nothing seen yet)."""
        v = self.v
        state = v[V_STATE]
        since_us = v[V_SINCE_US]
        if state == _UP or since_us < 0:
            return 0
        # Stamp.diff_ns written out (a call saved: this runs for every edge)
        held = (((t_us - since_us + _HALF) & _MAX) - _HALF) * 1000 + t_ns - v[V_SINCE_NS]
        if held < 0:
            return held  # an edge later than `t` was fed already
        if state == _DOWN:
            if v[V_CLOSED]:
                if self.opened is not None and held > self.bounce_gap_us * 1000:
                    self.opened = None  # closed again for good: that opening was a drop-out
            elif held >= self.release_us * 1000:
                v[V_STATE] = _UP
                out.append(("release", self.station, self.opened))
                self.opened = None
            return held
        # ns from `since` to the cap: judge_us from `first`, less since - first
        to_cap = self.judge_us * 1000
        to_cap -= (((since_us - v[V_FIRST_US] + _HALF) & _MAX) - _HALF) * 1000
        to_cap -= v[V_SINCE_NS] - v[V_FIRST_NS]
        said = verdict(v[V_CLOSED], held, v[V_CLOSED_NS], v[V_OPEN_NS], to_cap, self.rules)
        if said == PRESS:
            v[V_STATE] = _DOWN
            v[V_DUE_US] = -1
            out.append(("press", self.station, Stamp(v[V_FIRST_US], v[V_FIRST_NS])))
        elif said == NOISE:
            self._drop()  # an opening too long for bounce, or the cap: it was noise
        return held

    def _drop(self):
        self.v[V_STATE] = _UP
        self.v[V_DUE_US] = -1
        self.glitches += 1
