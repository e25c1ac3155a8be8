"""Debounce one station's contact from its edge stream, keeping the first edge's timestamp.

A press is accepted once the contact has stayed closed for `glitch_us` without a break, and it is
timestamped at the first closing edge of its bounce train: the moment the contact really closed,
however long it bounced. Within a train the contact only opens briefly (bounce); an opening longer
than `bounce_gap_us` means what came before was noise, so the train starts again at the next
closing edge (a noise spike just before a press cannot backdate it) or, if the contact stays open,
the candidate is dropped. Noise spikes and storms of them never stay closed for `glitch_us`.
A press ends when the contact has been open for `release_us` without a break: bounce and short
drop-outs of a worn switch do not end it.
Figures: design notes "Timing facts" (micro-switch bounce 0.5-6 ms; bounce openings last
microseconds to ~150 µs; noise spikes a few µs).
"""

from refbox.compat import const

_UP = const(0)
_CANDIDATE = const(1)
_DOWN = const(2)


class Debouncer:
    glitch_us = 30  # closed this long without a break: a press
    bounce_gap_us = 200  # open longer than this inside a train: the train was noise
    release_us = 5000  # open this long: released

    def __init__(self, station):
        self.station = station
        self.state = _UP
        self.closed = False
        self.first = None  # Stamp of the candidate's first closing edge
        self.since = None  # Stamp of the last level change
        self.glitches = 0

    def is_idle(self):
        """True when released and settled: nothing this debouncer waits for."""
        return self.state == _UP

    def is_waiting(self):
        """True while a timer runs: a candidate being accepted or dropped, or a press being
        released."""
        return self.state == _CANDIDATE or (self.state == _DOWN and not self.closed)

    def press_pending(self):
        """Stamp of the first edge of a closure not yet decided (a press or noise), else None.
        No press of this station stamped before it can still be reported."""
        return self.first if self.state == _CANDIDATE else None

    def pending(self):
        """Stamp of the earliest edge whose meaning is still open (a candidate's first edge, or
        the opening edge of a press that may be ending), else None."""
        if self.state == _CANDIDATE:
            return self.first
        if self.state == _DOWN and not self.closed:
            return self.since
        return None

    def edge(self, closed, stamp, out):
        """Feed one edge (closed: contact closed) at `stamp`; may append ('press'|'release',
        station, Stamp)."""
        if closed == self.closed:
            return
        if self.state == _UP:
            if closed:
                self.state = _CANDIDATE
                self.first = stamp
        elif self.state == _CANDIDATE:
            if closed:
                if stamp.diff_ns(self.since) > self.bounce_gap_us * 1000:
                    self.glitches += 1
                    self.first = stamp  # the earlier closure was noise: start again here
            elif stamp.diff_ns(self.since) >= self.glitch_us * 1000:
                self.state = _DOWN  # it stayed closed long enough before this opening
                out.append(("press", self.station, self.first))
        self.closed = closed
        self.since = stamp

    def poll(self, now, out):
        """Apply the timers at `now` (a Stamp no later than the newest edge that may still
        arrive)."""
        if self.state == _CANDIDATE:
            if self.closed:
                if now.diff_ns(self.since) >= self.glitch_us * 1000:
                    self.state = _DOWN
                    out.append(("press", self.station, self.first))
            elif now.diff_ns(self.since) > self.bounce_gap_us * 1000:
                self.glitches += 1
                self.state = _UP
        elif self.state == _DOWN and not self.closed:
            if now.diff_ns(self.since) >= self.release_us * 1000:
                self.state = _UP
                out.append(("release", self.station, self.since))
