"""Debounce one station's contact from its edge stream: presses stamped at their first edge, noise
never a press. The debounce and noise rule is written here once, as readable Python (`verdict`,
`wait_ns`); everything else in the firmware that judges a closure is this rule.

**The rule for one closure.** A closing edge starts a *candidate*, stamped at that edge. The
candidate is a **press** once the contact has been closed for `press_us` in all since that edge,
and for at least as long as it was open since then (bounce openings do not count, nor do they
reset it). It is **noise** (dropped, never reported) when, before that:
- one opening lasts longer than `bounce_gap_us` and longer than `noise_ratio` times the closure
  accumulated so far (a 50 µs spike is noise once open 250 µs; a 0.9 ms closure once open 4.5 ms),
- or it is still not a press `judge_us` after its first edge (the cap: a storm of spikes).
So a bounce train is stamped where the contact first closed, however long it bounced, and a worn
switch's drop-out only delays the acceptance: two short closures with a long gap do not add up to
a press. The next closing edge after a drop starts a new candidate: a spike of width w backdates a
real press only if that press closes within max(`bounce_gap_us`, `noise_ratio` * w) after it
(bounce and such a pair of edges look alike).

**Releases.** A press ends when the contact has been open for `release_us` without a break:
bounce and the drop-outs of a worn switch do not end it. The release is stamped at the first
opening edge of its train, like a press: re-closures of at most `bounce_gap_us` after it are
release bounce; a longer closure means the press went on (that opening was a drop-out).

**Who applies the rule.** `Debouncer` keeps a station's state and calls `verdict` and `wait_ns`;
`judge` is its candidate's poll on the state's machine words; refbox.edgeloop's Python loop calls
`verdict` and `wait_ns` to tell the edges that only add to a closure's times from those that
decide. The machine-code forms (refbox.edgeloop_viper, viper: its loop and `judge`;
refbox.edgeloop_thumb, asm_thumb for the RP2040) are the same statements on 32-bit words and are
checked against this module in CI: tests/test_edgeloop.py (viper, on the MicroPython unix port)
and tests/test_thumb_kernel.py (the armv6m machine code mpy-cross emits, run under the unicorn
CPU emulator).

Every rule is a function of the edges' stamps alone: `poll` only tells the debouncer how far the
edges are known, so when the loop runs changes when a press is reported, never whether or with
which stamp. Thresholds and why: docs/architecture.md "Debounce and noise"; figures: design notes
"Timing facts" (micro-switch bounce 0.5-6 ms; a worn one drops out for longer; no finger presses
for 50 µs).
"""

from array import array

from refbox.compat import const
from refbox.ticks import Stamp

# What `verdict` says a candidate is
UNDECIDED = const(0)
PRESS = const(1)
NOISE = const(2)

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
_FAR_US = const(1000000)  # a gap this long (µs) is left to `Debouncer._judge`: ns past 32 bits

# `rules`, the rule's thresholds in ns (`thresholds`): every figure is ns, a 32-bit machine word
# on the board (the callers range-check them)
_PRESS_NS = const(0)
_BOUNCE_GAP_NS = const(1)
_NOISE_RATIO = const(2)
_JUDGE_NS = const(3)


def closed_needed(closed_ns, open_ns, rules):
    """ns the contact must still stay closed, from its last closing edge, to make the candidate a
    press: `press_ns` in all, and no less than it was open (`closed_ns`, `open_ns`: its closed
    and open time before that edge)."""
    return max(rules[_PRESS_NS], open_ns) - closed_ns


def opening_allowed(closed_ns, rules):
    """The longest opening that is still bounce after `closed_ns` of closure: `bounce_gap_ns`,
    or `noise_ratio` times the closure so far if longer."""
    return max(rules[_BOUNCE_GAP_NS], rules[_NOISE_RATIO] * closed_ns)


def verdict(closed, held, closed_ns, open_ns, to_cap, rules):
    """What a candidate is once its contact has held one level since its last edge: PRESS, NOISE
    or UNDECIDED.

    `closed`: that level (1 closed, 0 open); `held`: ns it has held it (>= 0); `closed_ns`,
    `open_ns`: the candidate's closed and open time before that edge; `to_cap`: ns from that edge
    to the cap (`judge_ns` after the candidate's first edge); `rules`: (press_ns, bounce_gap_ns,
    noise_ratio, judge_ns), `thresholds` (1 ms, 200 µs, 5, 20 ms)."""
    if closed:
        need = closed_needed(closed_ns, open_ns, rules)
        if need <= held and need <= to_cap:
            return PRESS
    elif held > opening_allowed(closed_ns, rules):
        return NOISE  # open too long for bounce: what closed before was noise
    if held >= to_cap:
        return NOISE  # still not a press: a storm
    return UNDECIDED


def wait_ns(closed, closed_ns, open_ns, rules):
    """ns after an edge to level `closed` before which `verdict` can only say UNDECIDED (the cap
    aside): the closed time a press still needs, or the longest bounce opening and 1 ns.
    `closed_ns`, `open_ns`: the candidate's times up to that edge."""
    if closed:
        return closed_needed(closed_ns, open_ns, rules)
    return opening_allowed(closed_ns, rules) + 1


def thresholds(debouncer):
    """(press_ns, bounce_gap_ns, noise_ratio, judge_ns) of `debouncer` (a Debouncer or its
    class): the rule's `rules`, and the middle of refbox.edgeloop's `limits`."""
    return (debouncer.press_us * 1000, debouncer.bounce_gap_us * 1000, debouncer.noise_ratio,
            debouncer.judge_us * 1000)


def judge(bank, station, t_us, t_ns, rules):
    """Debouncer._judge for a candidate (a closure being judged) with no edge since `since`, by
    µs tick `t_us` and `t_ns` inside it, on the bank's fields of `station`: 0 nothing decided
    (nothing changed), 1 a press (state DOWN: the caller reports it), 2 noise (state UP: the
    caller counts it), 3 not here (not a candidate, the boot's quiet spell, out of range: the
    caller's `_judge` decides). `rules`: array('i') [press_ns, bounce_gap_ns, noise_ratio,
    judge_ns] (`thresholds`, as `bank_of` makes it). refbox.edgeloop_viper's `judge` is the same
    statements as machine code (tests/test_edgeloop.py)."""
    b = station * V_FIELDS
    if bank[b + V_QUIET] != 0 or bank[b + V_STATE] != _CANDIDATE:
        return 3
    since_us = bank[b + V_SINCE_US]
    since_ns = bank[b + V_SINCE_NS]
    open_ns = bank[b + V_OPEN_NS]
    closed_ns = bank[b + V_CLOSED_NS]
    d = ((t_us - since_us + _HALF) & _MAX) - _HALF
    df = ((since_us - bank[b + V_FIRST_US] + _HALF) & _MAX) - _HALF
    if (d < 0 or d >= _FAR_US or df < 0 or df >= _FAR_US or open_ns < 0 or open_ns > _MAX
            or closed_ns < 0 or closed_ns > _MAX):
        return 3
    held = d * 1000 + t_ns - since_ns
    if held < 0:
        return 3
    to_cap = rules[_JUDGE_NS] - df * 1000 - (since_ns - bank[b + V_FIRST_NS])
    said = verdict(bank[b + V_CLOSED], held, closed_ns, open_ns, to_cap, rules)
    if said == PRESS:
        bank[b + V_STATE] = _DOWN
        bank[b + V_DUE_US] = -1
    elif said == NOISE:
        bank[b + V_STATE] = _UP
        bank[b + V_DUE_US] = -1
    return said


try:  # a candidate judged on machine words, on MicroPython (`judge`: the same)
    from refbox.edgeloop_viper import judge as _judge_words
except (ImportError, SyntaxError):  # CPython; CircuitPython (no viper)
    _judge_words = judge


def bank_of(stations):
    """One Debouncer per station (0-based), their states in one array (`Debouncer(bank=...)`):
    what refbox.capture.EdgeDecoder.bind feeds on machine words."""
    bank = array("i", (0,) * (stations * V_FIELDS))
    debouncers = [Debouncer(station, bank) for station in range(stations)]
    rules = array("i", thresholds(Debouncer))
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
        # the rule's `rules`: this debouncer's thresholds in ns (bank_of's: one array for
        # every station, which `judge` also reads: machine code on the board, ~0.1 ms less a
        # poll on the chip, `judge_words`)
        self.judge_words = None
        self.rules = thresholds(self)
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
