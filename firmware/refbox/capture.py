"""Decode what the capture stored into per-station edges with nanosecond stamps; the loop reads
it through one reader (`open_reader`: `read`, `resync`, `keepalive`).

The capture is refbox.board's PIO edge timestamper:
- PIO words: `(counter << n_pins) | levels`, pushed by the edge timestamper whenever a player pin
  changes. The counter is a down-counter decremented once per sampling period (7 PIO cycles: 56 ns
  at 125 MHz) and `30 - n_pins` bits wide (24 bits, 0.94 s per wrap, with 6 player pins), so the
  word stays a MicroPython small int. Every word is chained to the one before: the counts between
  them give the exact gap modulo a wrap, and the µs tick by which the loop had read the word says
  how many wraps: the latest time not after it that the counter allows. The chain starts at
  the anchor stamped by DMA at the state machine's start (refbox.board._start_anchored), plus the
  5 cycles to the first sample (counter all ones).
- Snapshots: a `GPIO_IN` read with the µs tick of the read (the resynchronisation after lost
  words). Their resolution is the read's, not the edge's.
Levels are raw pin levels: buttons are active low, so a 0 bit is a closed contact.
"""

from array import array

from refbox import edgeloop
from refbox.compat import const
from refbox.ticks import Stamp, ticks_diff


def _no_table(limits, lowest):
    pass  # (the viper and Python loops read `limits` as they are)


try:  # the per-edge loop as machine code: asm_thumb on an RP2040, else viper on MicroPython
    from refbox.edgeloop_thumb import prepare as _prepare_loop  # its table, filled at `bind`
    from refbox.edgeloop_thumb import run as _edge_loop
except (ImportError, SyntaxError):  # (refbox.edgeloop: the same in Python)
    _prepare_loop = _no_table
    try:
        from refbox.edgeloop_viper import run as _edge_loop
    except (ImportError, SyntaxError):  # CPython; CircuitPython (no viper), or no such file there
        _edge_loop = edgeloop.run

# refbox.ticks's, as compile-time constants for `decode`'s loop (ticks_diff written out there)
_TICKS_HALF = const(1 << 29)
_TICKS_MAX = const((1 << 30) - 1)


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
        self._per_count = ns_num // ns_den if ns_num % ns_den == 0 else 0  # ns a count, if whole
        self.levels = self.level_mask  # all released until told otherwise
        self._count = self.counter_mask
        self._us = 0  # the chain's time: µs tick and ns inside it
        self._ns = 0
        self._frac = 0  # remainder of the chain in 1/ns_den ns
        self._lists = None  # `word`'s stand-ins for the debouncers
        self._bound = None  # the debouncers `bind` gave refbox.edgeloop, their state arrays
        self._bank = None
        self._limits = None
        self._chain = array("i", (0, 0, 0, 0, 0, 0))  # refbox.edgeloop's chain: the usual read's
        self.edge_loop = _edge_loop  # (tests set refbox.edgeloop.run to compare the two forms)
        # the lowest set bit's index of each set of changed pins (`decode`: a pin found in one
        # step, not a scan of every lower pin)
        self._lowest = bytearray(1 << n_pins)
        for bits in range(1, 1 << n_pins):
            self._lowest[bits] = _lowest_bit(bits)

    def start(self, tick, ns=0, first_sample_cycles=5):
        """Anchor the chain: the state machine was started `ns` after µs tick `tick` with its
        counter all ones (refbox.board._start_anchored measures both).

        Its first sample comes `first_sample_cycles` PIO cycles later (the 6th instruction of
        refbox.board.edge_timestamper), when the counter still holds all ones.
        """
        self._count = self.counter_mask
        stamp = Stamp(tick).after_ns(ns + first_sample_cycles * 1000 // self.ns_den)
        self._us = stamp.us
        self._ns = stamp.ns
        self._frac = 0
        self._baseline = True  # the first sample gives the levels as found: held, not pressed

    _baseline = False

    def bind(self, debouncers):
        """Feed `debouncers` (refbox.debounce.bank_of's, one per station) through refbox.edgeloop
        whenever `decode` is given them: the usual read, a word per edge on machine words. Not
        when a counter wrap would pass 32-bit figures (fewer than 5 player pins): the Python
        loop then feeds every edge."""
        if not edgeloop.fits(self.counter_mask, self.ns_num, self.ns_den):
            return
        bank = debouncers[0].bank
        for station, deb in enumerate(debouncers):
            if deb.bank is not bank or deb.station != station:
                return  # not refbox.debounce.bank_of's: each its own array (the Python loop)
        self._bound = debouncers
        self._bank = bank
        self._limits = edgeloop.limits_for(self.n_pins, self.counter_mask, self.ns_num,
                                           self.ns_den, debouncers[0])
        _prepare_loop(self._limits, self._lowest)

    def edges_called(self):
        """Edges refbox.edgeloop handed to `Debouncer.edge_at` (a figure for benches)."""
        return self._chain[5]

    margin_ns = 2000  # the anchor's ±0.5 µs and the few cycles from a sample to RAM, with room

    def word(self, word, tick, out):
        """Decode one PIO word that was in the ring by µs tick `tick` (read after the loop found
        it); append its edges `(station, closed, Stamp)` to `out` (`decode` of one word)."""
        if self._lists is None:
            self._lists = [_Edges(station) for station in range(self.n_pins)]
        self.decode((word,), 0, 0, 1, tick, self._lists, out)

    def decode(self, words, index, mask, n, tick, stations, out):
        """Decode `n` PIO words of the ring `words` from `index` on (positions wrap by `mask`),
        every one of them in the ring by µs tick `tick`, and feed each edge, in time order, to
        its station: `stations[station].edge_at(closed, us, ns, out)` (refbox.debounce.Debouncer).

        The counter gives each word's time since the previous word modulo one wrap; the word's
        time is the latest of those not after `tick`. Exact while a word waits less than a whole
        wrap to be read (0.94 s with 6 pins, 0.23 s with 8).
        `stations` bound (`bind`): refbox.edgeloop feeds them, machine code on the board (a noise
        burst is a word per edge: ~0.17 ms an edge as Python on the chip, a few µs there);
        otherwise `_decode_each`, every edge to `edge_at`.
        """
        if stations is not self._bound or not n or self._baseline:
            self._decode_each(words, index, mask, n, tick, stations, out)
            return
        # The bound debouncers: refbox.edgeloop (machine code on the board). Its chain counts
        # each word from the one before within one counter wrap: when the first word may come a
        # wrap or more after the chain's last (a quiet spell longer than a wrap: 0.23 s with 8
        # pins), the chain first moves on by the whole wraps the read's tick says passed
        # (`_decode_each`'s rule for that word; the words after it come less than a wrap later).
        us = self._us
        room = (((tick - us + _TICKS_HALF) & _TICKS_MAX) - _TICKS_HALF) * 1000 - self._ns
        if room + self.margin_ns >= self.wrap_ns:
            self._skip_wraps(words[index & mask], room)
        chain = self._chain
        chain[0] = self._count
        chain[1] = self._frac
        chain[2] = self._us
        chain[3] = self._ns
        chain[4] = self.levels
        self.edge_loop(words, index, mask, n, chain, self._limits, self._lowest, self._bank,
                       stations, out)
        self._count = chain[0]
        self._frac = chain[1]
        self._us = chain[2]
        self._ns = chain[3]
        self.levels = chain[4]

    def _skip_wraps(self, word, room):
        """Move the chain on by the whole counter wraps that passed before PIO word `word`, read
        `room` ns after the chain's time: exactly what `_decode_each` adds to that word's time.
        With a whole number of ns a count (`_per_count`), in small ints and no Stamp (the first
        word after a quiet spell: ~0.3 ms on the chip with long ints)."""
        per_count = self._per_count
        counts = (self._count - (word >> self.n_pins)) & self.counter_mask
        if per_count:
            delta = counts * per_count
        else:
            delta = (counts * self.ns_num + self._frac) // self.ns_den
        room += self.margin_ns - delta
        if room < self.wrap_ns:
            return
        wraps = room // self.wrap_ns
        if per_count:
            skip = wraps * self.wrap_ns  # (the remainder stays 0: every count is whole ns)
        else:
            wraps_num = wraps * (self.counter_mask + 1) * self.ns_num + self._frac
            skip = wraps_num // self.ns_den
            self._frac = wraps_num - skip * self.ns_den
        ns = self._ns + skip
        self._us = (self._us + ns // 1000) & _TICKS_MAX
        self._ns = ns % 1000

    def _decode_each(self, words, index, mask, n, tick, stations, out):
        """`decode` in Python, each edge to `stations[station].edge_at`, each word placed within
        its wrap by `tick` (the first sample, a word read late, `word`'s stand-ins, an unbound
        decoder)."""
        shift = self.n_pins
        counter_mask = self.counter_mask
        level_mask = self.level_mask
        ns_num = self.ns_num
        ns_den = self.ns_den
        wrap_ns = self.wrap_ns
        margin_ns = self.margin_ns
        last = self._count
        frac = self._frac
        us = self._us
        ns = self._ns
        levels = self.levels
        lowest = self._lowest
        baseline = self._baseline and n > 0
        # The chain only moves on, so no word's room exceeds the first's: when that is under a
        # wrap (every word read within a wrap of the last one), no word needs the check.
        far = (((tick - us + _TICKS_HALF) & _TICKS_MAX) - _TICKS_HALF) * 1000 - ns + margin_ns
        far = far >= wrap_ns
        self._baseline = self._baseline and n == 0
        for i in range(n):
            word = words[(index + i) & mask]
            count = word >> shift
            counts = (last - count) & counter_mask
            last = count
            delta_num = counts * ns_num + frac
            delta = delta_num // ns_den
            if far:
                room = (((tick - us + _TICKS_HALF) & _TICKS_MAX) - _TICKS_HALF) * 1000 - ns
                room += margin_ns - delta
                if room >= wrap_ns:  # whole wraps passed between the two words
                    delta_num += (room // wrap_ns) * (counter_mask + 1) * ns_num
                    delta = delta_num // ns_den
            frac = delta_num - delta * ns_den  # (delta_num >= 0: the remainder)
            ns += delta
            us = (us + ns // 1000) & _TICKS_MAX
            ns %= 1000
            if baseline:
                baseline = False
                if counts == 0:
                    # The program's first sample (counter all ones) gives the levels as found. A
                    # contact already closed then was pressed before the board could see it (a
                    # stuck switch, a finger held through a power cut): it is ignored until let
                    # go, so no press from before the boot can decide a race
                    # (docs/architecture.md "The journal"). Its debouncer is told, so that the
                    # boot's quiet spell waits for it to open (Debouncer.found_closed).
                    levels = word & level_mask
                    found = ~levels & level_mask
                    while found:
                        stations[lowest[found]].found_closed(us, ns)
                        found &= found - 1
                    continue
            now = word & level_mask
            changed = now ^ levels
            levels = now
            while changed:  # each changed pin, lowest first: one turn per edge, no Stamp
                station = lowest[changed]
                stations[station].edge_at(not (levels >> station) & 1, us, ns, out)
                changed &= changed - 1
        self.levels = levels
        self._count = last
        self._frac = frac
        self._us = us
        self._ns = ns

    def keepalive(self, tick):
        """Carry the chain forward over a long quiet spell (call it every loop pass with `tick`).

        Words come only when a pin changes, and the wraps between two words are counted against
        µs ticks, which `ticks_diff` compares only within ±2**29 µs (8.9 min). After a minute
        without a word the chain's stamp moves on by whole counter wraps, staying at least one
        wrap behind `tick`: the counter has the same value after a whole wrap, so the chain stays
        exact.
        """
        elapsed_us = ticks_diff(tick, self._us)
        if elapsed_us < 60000000:
            return
        wrap_num = (self.counter_mask + 1) * self.ns_num  # one wrap, in 1/ns_den ns
        wraps = elapsed_us * 1000 * self.ns_den // wrap_num - 1
        delta_num = wraps * wrap_num + self._frac
        stamp = Stamp(self._us, self._ns).after_ns(delta_num // self.ns_den)
        self._us = stamp.us
        self._ns = stamp.ns
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


def open_reader(board, clock, stations, debouncers):
    """The loop's reader of `board.capture` (refbox.board.PioEdgeCapture), with its decoder
    anchored at the capture's start and bound to `debouncers` (each station's, bank_of's):
    - `read(n, since, happenings)`: what came (`n`: the capture's `pending()`; `since`: the
      tick of the loop's pass before) as edges to the debouncers (fed as they are decoded),
      returning a list of edges still to feed, or None when nothing came (nothing is allocated
      then); `lost` then holds how many words were lost (0: none), for the loop to say so and
      re-read the levels;
    - `resync(levels, tick, edges)`: the levels re-read at µs `tick` as edges (after a loss);
    - `keepalive(tick)`: keeps the PIO chain's wrap count when no word came for a while."""
    decoder = EdgeDecoder(stations, 7000, board.pio_mhz)
    decoder.start(board.capture_start_tick, board.capture_start_ns)
    decoder.bind(debouncers)
    return PioWords(board.capture, decoder, clock.ticks_us, debouncers)


class _Reader:
    def __init__(self, decoder):
        self.decoder = decoder
        self.lost = 0

    def resync(self, levels, tick, edges):
        self.decoder.snapshot(levels, tick, edges)

    def keepalive(self, tick):
        self.decoder.keepalive(tick)


class PioWords(_Reader):
    """The PIO path: the words the DMA wrote into its RAM ring (refbox.board.PioEdgeCapture:
    `words`, `mask`, `index`, `taken(n)`, `stalled()`, `ring_words`)."""

    late_pass_us = 100000  # a pass this long after the one before reads the timer's notes

    def __init__(self, capture, decoder, ticks_us, debouncers):
        _Reader.__init__(self, decoder)
        self.capture = capture
        self._ticks_us = ticks_us
        self._debouncers = debouncers

    def read(self, n, since, happenings):
        """Decode the `n` words the DMA wrote since the last read, each edge straight to its
        station's debouncer (`Debouncer.edge`, which may append to `happenings`); returns a new
        list for edges still to feed (a re-read after lost words: the loop's), or None when
        nothing came (nothing is allocated then). Words lost to a lapped ring (the oldest) or a
        full RX FIFO (the newest, `stalled`) break the chain: `lost` says so, and the race's
        order is no longer proven (Arbiter.capture_lost). `since`: the µs tick of the loop's
        pass before this one (every word read now came after it looked): when that is more than
        `late_pass_us` ago, the capture timer's notes say by when each word was in the ring
        (PioEdgeCapture.arrivals), so a word is placed in its own counter wrap however long the
        loop was held (a console write waiting for a stalled host); such a read decodes word by
        word, each by its own note."""
        capture = self.capture
        stalled = capture.stalled()
        self.lost = 0
        if not (n or stalled):
            return None
        lost = 0
        if n > capture.ring_words:
            lost = n - capture.ring_words
            capture.taken(lost)  # overwritten: go on from the oldest word still in the ring
            n = capture.ring_words
        words = capture.words
        mask = capture.mask
        index = capture.index
        decoder = self.decoder
        debouncers = self._debouncers
        read_by = self._ticks_us()  # every one of the n words was in the ring before this
        arrivals = ()
        if ticks_diff(read_by, since) > self.late_pass_us:
            arrivals = capture.arrivals(since)
        if arrivals:
            first = capture.seq()
            j = 0
            for i in range(n):  # a word's time needs only the one before: lost words cost levels
                by = read_by
                while j < len(arrivals) and arrivals[j][0] <= first + i:
                    j += 1
                if j < len(arrivals):
                    by = arrivals[j][1]
                decoder.decode(words, (index + i) & mask, mask, 1, by, debouncers, happenings)
        else:  # the usual read: one loop over every word (EdgeDecoder.decode)
            decoder.decode(words, index, mask, n, read_by, debouncers, happenings)
        capture.taken(n)
        if not lost and capture.pending() + n > capture.ring_words:
            lost = 1  # the DMA lapped the words while they were read
        if lost or stalled:
            self.lost = lost or 1
        return []


def _lowest_bit(bits):
    """Index of the lowest set bit of `bits` (> 0)."""
    index = 0
    while not bits & 1:
        bits >>= 1
        index += 1
    return index


class _Edges:
    """Stands in for a station's debouncer in `EdgeDecoder.word`: keeps each edge as
    `(station, closed, Stamp)`."""

    def __init__(self, station):
        self.station = station

    def edge_at(self, closed, us, ns, out):
        out.append((self.station, closed, Stamp(us, ns)))

    def found_closed(self, us, ns):
        pass  # (`word` reports edges only; the levels as found are the decoder's `levels`)
