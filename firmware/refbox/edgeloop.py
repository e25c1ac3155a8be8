"""The capture's per-edge loop: PIO words -> stamped edges -> each station's debouncer, with the
debouncers' common edges handled on machine words, in one of two equal forms:
- `run` here, plain Python (CPython, the simulator, CircuitPython, and a MicroPython without a
  native emitter);
- refbox.edgeloop_viper's `run`, the same statements as `@micropython.viper` machine code, on a
  MicroPython board (refbox.capture picks it when it imports).

Why: a noise burst is a word per edge (64 edges of two stations in ~160 µs), and as Python each
edge cost ~0.17 ms on the chip (EdgeDecoder.decode and Debouncer.edge_at, both native code):
~20 ms before the race it hides could be decided (issue 20: 5 ms from the first press).

What each edge does is refbox.debounce.Debouncer.edge_at's, and whether it decides is
refbox.debounce's rule (`verdict`, `wait_ns`), which this Python form calls. The loop itself
feeds the edges that begin a closure and those that only add to its times (bounce, a noise
burst's spikes: a candidate that neither becomes a press nor is dropped at that edge) into the
state array `Debouncer.v`; every other edge (a press, a drop, a release, the boot's quiet spell,
anything out of range) goes to `edge_at` itself, untouched. The viper form writes the rule's
statements out on machine words (a viper function cannot call Python cheaply):
tests/test_edgeloop.py checks it against this form on MicroPython, and both against
Debouncer.edge_at alone.

Arguments (both forms):
- `words`, `index`, `mask`, `n`: `n` PIO words of the ring `words` (32-bit items) from `index`
  on, positions wrapping by `mask`;
- `chain`: array('i') [count, frac, us, ns, levels, calls] (refbox.capture.EdgeDecoder's chain,
  which the loop carries on; `calls` counts the edges handed to `edge_at`);
- `limits`: array('i') [n_pins, counter_mask, level_mask, ns_num, ns_den, press_ns,
  bounce_gap_ns, noise_ratio, judge_ns, press_us, per_count] (`limits_for`; per_count: ns a
  count when whole, else 0);
- `lowest`: bytearray, the lowest set bit's index of each set of changed pins;
- `bank`: every station's `Debouncer.v`, V_FIELDS each in station order
  (refbox.debounce.bank_of); `debouncers`: each station's Debouncer;
- `out`: what the debouncers report ('press' | 'release', station, Stamp) is appended there.
The caller guarantees each word's time since the one before is under a counter wrap (no word read
a wrap late: EdgeDecoder.decode checks it) and that a wrap is under 2**30 ns, so every figure
stays a 32-bit machine word (`fits`).
"""

from array import array

from refbox.compat import const
from refbox.debounce import UNDECIDED, thresholds, verdict, wait_ns

# refbox.debounce's states and V_ fields (the viper form repeats them: a viper function sees only
# its own module's constants; tests/test_edgeloop.py checks all three agree)
_UP = const(0)
_CANDIDATE = const(1)
_DOWN = const(2)
_V_STATE = const(0)
_V_CLOSED = const(1)
_V_SINCE_US = const(2)
_V_SINCE_NS = const(3)
_V_CLOSED_NS = const(4)
_V_OPEN_NS = const(5)
_V_FIRST_US = const(6)
_V_FIRST_NS = const(7)
_V_DUE_US = const(8)
_V_QUIET = const(9)
_V_FIELDS = const(10)
_HALF = const(1 << 29)
_MAX = const((1 << 30) - 1)
_FAR_US = const(1000000)  # a gap this long (µs) goes to edge_at: its ns would pass 32 bits


def limits_for(n_pins, counter_mask, ns_num, ns_den, debouncer):
    """The `limits` array of `run` for a decoder of `n_pins` and `debouncer`'s thresholds
    (refbox.debounce.thresholds)."""
    return array("i", (n_pins, counter_mask, (1 << n_pins) - 1, ns_num, ns_den)
                 + thresholds(debouncer)
                 + (debouncer.press_us, ns_num // ns_den if ns_num % ns_den == 0 else 0))


def fits(counter_mask, ns_num, ns_den):
    """True when a whole counter wrap in ns, and its partial products, stay 32-bit machine words
    (8 player pins at 125 MHz: 0.23 s; 6 pins: 0.94 s)."""
    wrap_ns = (counter_mask + 1) * ns_num // ns_den
    return wrap_ns < (1 << 30) and (counter_mask >> 12) * ns_num < (1 << 30)


THUMB_TABLE_WORDS = const(96)  # refbox.edgeloop_thumb's table: 32 words of figures, then
_THUMB_LOWEST = const(128)  # the lowest-bit table from this byte (64 words: 8 pins)


def thumb_table(limits, lowest, t):
    """Fill array('i') `t` (THUMB_TABLE_WORDS items), refbox.edgeloop_thumb's kernel's table, for
    `limits` (`limits_for`) and `lowest` (bytearray, one byte a set of pins): the limits and the
    constants the kernel loads (its _T_ offsets, byte offsets into `t`), then the lowest-bit
    table packed 4 bytes a word. Here, not in that module, so that CPython builds the very table
    the kernel runs on (tests/test_thumb_kernel.py). Raises ValueError past 8 pins."""
    t[0] = limits[0]  # shift: the level pins below the counter
    t[1] = limits[1]
    t[2] = limits[2]
    t[3] = limits[10]  # per_count (0: refbox.edgeloop_thumb.run leaves the words to viper)
    t[4] = limits[5]
    t[5] = limits[6]
    t[6] = limits[7]
    t[7] = limits[8]
    t[8] = limits[9]
    t[9] = _HALF  # refbox.ticks: half the tick's range, its mask
    t[10] = _MAX
    t[11] = _FAR_US
    t[12] = 1000
    t[13] = 16000  # a carry up to this is subtracted (the viper loop divides beyond)
    room = THUMB_TABLE_WORDS * 4 - _THUMB_LOWEST
    if len(lowest) > room:
        raise ValueError("more pins than the table holds")
    packed = array("i", bytes(lowest) + bytes(room - len(lowest)))  # 4 bytes a word, in order
    for k in range(len(packed)):
        t[_THUMB_LOWEST // 4 + k] = packed[k]


def run(words, index, mask, n, chain, limits, lowest, bank, debouncers, out):
    """Decode and feed `n` words (see the module's docstring). Returns None."""
    shift = limits[0]
    counter_mask = limits[1]
    level_mask = limits[2]
    ns_num = limits[3]
    ns_den = limits[4]
    rules = (limits[5], limits[6], limits[7], limits[8])  # refbox.debounce.thresholds
    judge_ns = limits[8]
    press_us = limits[9]
    per_count = limits[10]
    last = chain[0]
    frac = chain[1]
    us = chain[2]
    ns = chain[3]
    levels = chain[4]
    calls = chain[5]
    i = 0
    while i < n:
        word = words[(index + i) & mask]
        i += 1
        count = word >> shift
        counts = (last - count) & counter_mask
        last = count
        if per_count:  # a count is a whole number of ns (56 at 125 MHz): no division
            ns += counts * per_count
        else:  # counts * ns_num + frac in 1/ns_den ns, split so no product passes 32 bits
            x = (counts >> 12) * ns_num
            q = x // ns_den
            x = (x - q * ns_den) * 4096 + (counts & 4095) * ns_num + frac
            y = x // ns_den
            frac = x - y * ns_den
            ns += q * 4096 + y
        if ns >= 1000:  # (a division only for a long gap: ~0.6 µs each on the chip)
            if ns < 16000:
                while ns >= 1000:
                    ns -= 1000
                    us += 1
                us = us & _MAX
            else:
                y = ns // 1000
                us = (us + y) & _MAX
                ns = ns - y * 1000
        now = word & level_mask
        changed = now ^ levels
        levels = now
        while changed:  # each changed pin, lowest first
            station = lowest[changed]
            changed &= changed - 1
            closed = 1 - ((levels >> station) & 1)
            b = station * _V_FIELDS
            if bank[b + _V_QUIET]:  # the boot's quiet spell: Debouncer.edge_at's
                calls += 1
                debouncers[station].edge_at(closed, us, ns, out)
                continue
            if closed == bank[b + _V_CLOSED]:
                continue  # no change of level (Debouncer.edge_at's first test)
            state = bank[b + _V_STATE]
            if state == _UP:
                # released and settled: a closure begins (a candidate, judged from this edge on:
                # a press exactly press_us on if nothing opens it, so nothing is due before),
                # or a contact left closed after a drop opens
                bank[b + _V_DUE_US] = -1
                if closed:
                    bank[b + _V_STATE] = _CANDIDATE
                    bank[b + _V_FIRST_US] = us
                    bank[b + _V_FIRST_NS] = ns
                    bank[b + _V_CLOSED_NS] = 0
                    bank[b + _V_OPEN_NS] = 0
                    bank[b + _V_DUE_US] = (us + press_us) & _MAX
                bank[b + _V_CLOSED] = closed
                bank[b + _V_SINCE_US] = us
                bank[b + _V_SINCE_NS] = ns
                continue
            slow = 1
            if state == _CANDIDATE:
                since_us = bank[b + _V_SINCE_US]
                since_ns = bank[b + _V_SINCE_NS]
                open_ns = bank[b + _V_OPEN_NS]
                closed_ns = bank[b + _V_CLOSED_NS]
                d = ((us - since_us + _HALF) & _MAX) - _HALF
                df = ((since_us - bank[b + _V_FIRST_US] + _HALF) & _MAX) - _HALF
                # (in range: a 64-bit viper reads a negative item as a large one)
                if (0 <= d < _FAR_US and 0 <= df < _FAR_US and 0 <= open_ns <= _MAX
                        and 0 <= closed_ns <= _MAX):
                    held = d * 1000 + ns - since_ns
                    to_cap = judge_ns - df * 1000 - (since_ns - bank[b + _V_FIRST_NS])
                    # the level held until here (the opposite of this edge's) decides nothing:
                    # bounce, the closure's times grow (refbox.debounce.verdict; Debouncer.edge_at)
                    if held >= 0 and verdict(1 - closed, held, closed_ns, open_ns, to_cap,
                                             rules) == UNDECIDED:
                        slow = 0
                        if closed:
                            open_ns += held
                            bank[b + _V_OPEN_NS] = open_ns
                        else:
                            closed_ns += held
                            bank[b + _V_CLOSED_NS] = closed_ns
                        wait = wait_ns(closed, closed_ns, open_ns, rules)
                        to_cap -= held  # (from this edge on)
                        if wait > to_cap:
                            wait = to_cap
                        if wait < 0:
                            wait = 0
                        bank[b + _V_DUE_US] = (us + (ns + wait) // 1000) & _MAX
                        bank[b + _V_CLOSED] = closed
                        bank[b + _V_SINCE_US] = us
                        bank[b + _V_SINCE_NS] = ns
            if slow:
                calls += 1
                debouncers[station].edge_at(closed, us, ns, out)
    chain[0] = last
    chain[1] = frac
    chain[2] = us
    chain[3] = ns
    chain[4] = levels
    chain[5] = calls
