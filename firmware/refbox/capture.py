"""Decode what the interrupt handler stored into per-station edges with nanosecond stamps.

Two capture paths feed the same ring (see refbox.board):
- PIO words: `(counter << n_pins) | levels`, pushed by the edge timestamper whenever a player pin
  changes. The counter is a down-counter decremented once per sampling period (7 PIO cycles: 56 ns
  at 125 MHz) and `30 - n_pins` bits wide (24 bits, 0.94 s per wrap, with 6 player pins), so the
  word stays a MicroPython small int. Every word is chained to the one before: the counts between
  them give the exact gap modulo a wrap, and the µs tick by which the loop had read the word says
  how many wraps: the latest time not after it that the counter allows. The chain starts at
  the anchor stamped by DMA at the state machine's start (refbox.board._start_anchored), plus the
  5 cycles to the first sample (counter all ones).
- Snapshots: a `GPIO_IN` read with the µs tick at which the handler ran (the pin-IRQ fallback, and
  the resynchronisation after lost words). Their resolution is the handler's, not the edge's.
Levels are raw pin levels: buttons are active low, so a 0 bit is a closed contact.
"""

from refbox.ticks import Stamp, ticks_diff


class EdgeDecoder:
    """Turns capture records into edges `(station, closed, Stamp)`; station is 0-based.

    `ns_per_count_num / ns_per_count_den` is the sampling period in ns (7000 / MHz of the PIO
    clock).
    """

    def __init__(self, n_pins, ns_num=7000, ns_den=125):
        self.n_pins = n_pins
        self.level_mask = (1 << n_pins) - 1
        self.counter_mask = (1 << (30 - n_pins)) - 1
        self.ns_num = ns_num
        self.ns_den = ns_den
        self.wrap_ns = (self.counter_mask + 1) * ns_num // ns_den
        self.levels = self.level_mask  # all released until told otherwise
        self._count = self.counter_mask
        self._stamp = Stamp(0)
        self._frac = 0  # remainder of the chain in 1/ns_den ns

    def start(self, tick, ns=0, first_sample_cycles=5):
        """Anchor the chain: the state machine was started `ns` after µs tick `tick` with its
        counter all ones (refbox.board._start_anchored measures both).

        Its first sample comes `first_sample_cycles` PIO cycles later (the 6th instruction of
        refbox.board.edge_timestamper), when the counter still holds all ones.
        """
        self._count = self.counter_mask
        self._stamp = Stamp(tick).after_ns(ns + first_sample_cycles * 1000 // self.ns_den)
        self._frac = 0
        self._baseline = True  # the first sample gives the levels as found: held, not pressed

    _baseline = False

    margin_ns = 2000  # the anchor's ±0.5 µs and the few cycles from a sample to RAM, with room

    def word(self, word, tick, out):
        """Decode one PIO word that was in the ring by µs tick `tick` (read after the loop found
        it, or after a long wait the capture timer's note that came after it: refbox.app
        `_take_words`); append its edges to `out`.

        The counter gives the time since the previous word modulo one wrap; the word's time is
        the latest of those not after `tick`. Exact while `tick` is less than a whole wrap after
        the word (0.94 s with 6 pins, 0.23 s with 8).
        """
        count = word >> self.n_pins
        counts = (self._count - count) & self.counter_mask
        delta_num = counts * self.ns_num + self._frac
        stamp = self._stamp
        room = (
            ticks_diff(tick, stamp.us) * 1000
            - stamp.ns
            + self.margin_ns
            - delta_num // self.ns_den
        )
        if room >= self.wrap_ns:  # whole wraps passed between the two words
            delta_num += (room // self.wrap_ns) * (self.counter_mask + 1) * self.ns_num
        self._stamp = stamp.after_ns(delta_num // self.ns_den)
        self._frac = delta_num % self.ns_den
        self._count = count
        baseline = self._baseline and counts == 0
        self._baseline = False
        if baseline:
            # The program's first sample (counter all ones) gives the levels as found. A contact
            # already closed then was pressed before the board could see it (a stuck switch, a
            # finger held through a power cut): it is ignored until let go, so no press from
            # before the boot can decide a race (docs/architecture.md "The journal").
            self.levels = word & self.level_mask
            return
        self._edges(word & self.level_mask, self._stamp, out)

    def keepalive(self, tick):
        """Carry the chain forward over a long quiet spell (call it every loop pass with `tick`).

        Words come only when a pin changes, and the wraps between two words are counted against
        µs ticks, which `ticks_diff` compares only within ±2**29 µs (8.9 min). After a minute
        without a word the chain's stamp moves on by whole counter wraps, staying at least one
        wrap behind `tick`: the counter has the same value after a whole wrap, so the chain stays
        exact.
        """
        elapsed_us = ticks_diff(tick, self._stamp.us)
        if elapsed_us < 60000000:
            return
        wrap_num = (self.counter_mask + 1) * self.ns_num  # one wrap, in 1/ns_den ns
        wraps = elapsed_us * 1000 * self.ns_den // wrap_num - 1
        delta_num = wraps * wrap_num + self._frac
        self._stamp = self._stamp.after_ns(delta_num // self.ns_den)
        self._frac = delta_num % self.ns_den

    def snapshot(self, levels, tick, out):
        """Decode a GPIO snapshot (player levels, bit 0 = station 0) taken at µs tick `tick`."""
        self._edges(levels & self.level_mask, Stamp(tick), out)

    def _edges(self, levels, stamp, out):
        changed = levels ^ self.levels
        self.levels = levels
        station = 0
        while changed:
            if changed & 1:
                out.append((station, not (levels >> station) & 1, stamp))
            changed >>= 1
            station += 1
