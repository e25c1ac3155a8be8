"""Feeds random capture words (noise bursts, bouncing presses, held contacts, releases, the boot's
quiet spell, long gaps, the ring's wrap) to the debouncers three ways and prints what they
reported and hold, one line per run:
- "general": EdgeDecoder.decode's Python loop, every edge to Debouncer.edge_at (not bound), and
  every poll judged by Debouncer._judge;
- "twin": refbox.edgeloop.run (the bound decoder's loop, in Python) and refbox.debounce.judge;
- "viper": refbox.edgeloop_viper's, when this interpreter can import it (MicroPython);
- "thumb": refbox.edgeloop_thumb's, when it imports (an RP2040: bench/check_edgeloop_chip.py).
Exits 1 at the first run where they differ. Plain MicroPython-subset code, so the same script
runs on CPython and on the MicroPython unix port (tests/test_edgeloop.py), with the firmware's own
PRNG so both interpreters draw the same runs.

Usage: edgeloop_check.py FIRMWARE_DIR RUNS [SEED]; or `main(runs, seed)`; on a board,
`replay(path, modes)` of the runs `write_runs` wrote (bench/check_edgeloop_chip.py)
"""

import gc
import sys

if __name__ == "__main__":
    sys.path.insert(0, sys.argv[1])

from array import array  # noqa: E402

from refbox import debounce, edgeloop  # noqa: E402
from refbox.capture import EdgeDecoder  # noqa: E402
from refbox.debounce import bank_of  # noqa: E402
from refbox.prng import Prng  # noqa: E402
from refbox.ticks import Stamp  # noqa: E402

try:
    from refbox.edgeloop_viper import judge as viper_judge
    from refbox.edgeloop_viper import run as viper_run
except (ImportError, SyntaxError):
    viper_run = viper_judge = None
try:
    from refbox.edgeloop_thumb import run as thumb_run
except (ImportError, SyntaxError):
    thumb_run = None

PINS = 8
RING = 64  # words: a small ring, so reads wrap around it
LAG_US = 50


def draw(rng, start_us, edges):
    """A run's edges into list `edges` (emptied first; the same list each run: a board's heap
    soon holds no piece big enough for a new one): (ns since the start, station, closed) in
    time order. Returns `edges`."""
    del edges[:]  # (MicroPython keeps the list's room)
    t = start_us * 1000 + 3000000 + rng.below(2000000)
    for _ in range(6 + rng.below(10)):
        kind = rng.below(6)
        station = rng.below(PINS)
        if kind == 0:  # a noise burst: spikes of 1-3 µs every 4-6 µs
            for i in range(8 + rng.below(40)):
                at = t + i * (4000 + rng.below(2000))
                edges.append((at, station, True))
                edges.append((at + 1000 + rng.below(2000), station, False))
        elif kind in (1, 2):  # a press bouncing, held, released bouncing
            at = t
            for _ in range(rng.below(6)):
                edges.append((at, station, True))
                at += 1000 + rng.below(300000)
                edges.append((at, station, False))
                at += 1000 + rng.below(400000)
            edges.append((at, station, True))
            at += 1000000 + rng.below(40000000)
            for _ in range(rng.below(4)):
                edges.append((at, station, False))
                at += 1000 + rng.below(250000)
                edges.append((at, station, True))
                at += 1000 + rng.below(300000)
            edges.append((at, station, False))
        elif kind == 3:  # a lone spike, or a worn switch's short closures
            edges.append((t, station, True))
            edges.append((t + 1000 + rng.below(1500000), station, False))
        elif kind == 4:  # a storm: closures shorter than the openings, for 25 ms (the cap)
            at = t
            short = rng.below(2)
            while at < t + 25000000:
                edges.append((at, station, True))
                at += (20000 + rng.below(80000)) if short else (100000 + rng.below(500000))
                edges.append((at, station, False))
                at += (100000 + rng.below(90000)) if short else (10000 + rng.below(150000))
        else:  # a long quiet spell (under a counter wrap: the loop reads every pass)
            t += rng.below(150000000)
        t += rng.below(30000000)
    edges.sort()
    return edges


def words_of(edges, counter_mask, closed_at_boot, mhz, out):
    """The PIO words the edges make (several pins per word when at the same sample), after the
    first sample's (counter all ones, the levels as found), into list `out` as (word, ns) from
    its start (a list made once: a board's heap soon holds no piece big enough for a new one);
    returns how many."""
    levels = ((1 << PINS) - 1) & ~closed_at_boot
    if len(out) <= len(edges):
        out.extend([None] * (len(edges) + 1 - len(out)))
    out[0] = ((counter_mask << PINS) | levels, 0)
    made = 1
    held = [0] * PINS  # each pin's level: edges that do not change it make no word
    for s in range(PINS):
        held[s] = (closed_at_boot >> s) & 1
    for ns, station, closed in edges:
        closed = 1 if closed else 0
        if held[station] == closed:
            continue
        held[station] = closed
        if closed:
            levels &= ~(1 << station)
        else:
            levels |= 1 << station
        count = counter_mask - ((ns * mhz // 7000) & counter_mask)
        word = (count << PINS) | levels
        if out[made - 1][1] * mhz // 7000 == ns * mhz // 7000:
            out[made - 1] = (word, ns)  # the same sample: one word
        else:
            out[made] = (word, ns)
            made += 1
    return made


def _fold(trace, debs):
    """`trace` (an int) folded with every debouncer's state: one number for a run's history."""
    for deb in debs:
        for x in deb.v:
            trace = (trace * 1000003 + x + 7) & 0x3FFFFFFF
    return trace


def play(mode, words, reads, start_us, quiet, mhz):
    """Decode `words` (the PIO words, ints) in `reads` ([(count, read tick)]) through a ring,
    polling every debouncer after each read; returns what the run left, as a printable tuple."""
    dec = EdgeDecoder(PINS, 7000, mhz)
    dec.start(start_us, first_sample_cycles=0)
    debs = bank_of(PINS)
    for i in range(PINS):
        if (quiet >> i) & 1:
            debs[i].settle_from(Stamp(start_us))
    if mode != "general":
        dec.bind(debs)
    judge = None  # general: Debouncer._judge decides in every poll
    if mode == "viper":
        dec.edge_loop = viper_run
        judge = viper_judge
    elif mode == "thumb":
        dec.edge_loop = thumb_run
        judge = viper_judge
    elif mode == "twin":
        dec.edge_loop = edgeloop.run
        judge = debounce.judge
    for deb in debs:
        deb.judge_words = judge
    ring = array("I", [0] * RING)
    out = []
    trace = 0
    at = 0
    for n, tick, last, lag in reads:
        index = at % RING
        for i in range(n):
            ring[(index + i) % RING] = words[at + i]
        dec.decode(ring, index, RING - 1, n, tick, debs, out)
        at += n
        trace = _fold(trace, debs)  # the state each read leaves
        # the loop's passes until the next read, each polling every one: some soon after the
        # last word (where the rules' times fall: 1 ms, 200 µs, 5 x a spike), then the read's
        passes = [last + d for d in (1, 20, 100, 250, 400, 700, 1200, 5000) if d <= lag - LAG_US]
        for at_us in passes + [tick - LAG_US]:
            settled = Stamp(at_us & ((1 << 30) - 1))
            for deb in debs:
                deb.poll(settled, out)
            trace = _fold(trace, debs)  # and after each pass's polls
    kept = []
    for deb in debs:
        first = deb.first_stamp() if deb.v[0] == 1 else None
        opened = deb.opened
        kept.append((tuple(deb.v), deb.glitches,
                     None if first is None else (first.us, first.ns),
                     None if opened is None else (opened.us, opened.ns),
                     deb.quiet_from is None))
    said = [(k, s, st.us, st.ns) for k, s, st in out]
    return said, kept, (dec._count, dec._frac, dec._us, dec._ns, dec.levels), trace


def make_run(r, seed, edges, words, reads):
    """Run `r` of `seed`: its edges, words and reads into the lists given (each emptied first;
    made once with room: see draw). Returns (words made, start_us, quiet, mhz)."""
    rng = Prng(b"edgeloop %d %d" % (seed, r))
    start_us = rng.below(1 << 30)  # the tick wraps inside some runs
    draw(rng, 0, edges)
    closed_at_boot = rng.below(1 << PINS) if rng.below(4) == 0 else 0
    quiet = rng.below(1 << PINS)
    counter_mask = (1 << (30 - PINS)) - 1
    mhz = 125 if r % 3 else 133  # 56 ns a count; 52.63 ns (no whole ns: the remainders)
    made = words_of(edges, counter_mask, closed_at_boot, mhz, words)
    del reads[:]
    i = 0
    while i < made:
        n = 1 + rng.below(min(RING, 1 + rng.below(40)))
        n = min(n, made - i)
        last_ns = words[i + n - 1][1]
        lag = 1 + rng.below(200000) if rng.below(3) else 1
        tick = (start_us + (last_ns // 1000) + lag) & ((1 << 30) - 1)
        reads.append((n, tick, start_us + last_ns // 1000, lag))
        i += n
    return made, start_us, quiet, mhz


def compare(r, modes, codes, reads, start_us, quiet, mhz):
    """Play run `r` every way in `modes` and compare each with the first; exits 1 (printing
    both) where one differs. Returns the first's result."""
    results = [play(mode, codes, reads, start_us, quiet, mhz) for mode in modes]
    for mode, result in zip(modes[1:], results[1:]):  # noqa: B905 (MicroPython's zip)
        if result != results[0]:
            print("run %d: %s differs from %s" % (r, mode, modes[0]))
            print(modes[0], results[0])
            print(mode, result)
            raise SystemExit(1)
    return results[0]


def main(runs, seed=20):
    """Runs 0 to `runs` of `seed`, every form this interpreter has."""
    modes = ["general", "twin"] + (["viper"] if viper_run is not None else [])
    modes += ["thumb"] if thumb_run is not None else []
    called = 0
    words = [None] * 2048  # made once, with room (see draw)
    edges = [None] * 3000
    reads = [None] * 2048
    for r in range(runs):
        made, start_us, quiet, mhz = make_run(r, seed, edges, words, reads)
        codes = [words[k][0] for k in range(made)]
        said, kept, chain, _ = compare(r, modes, codes, reads, start_us, quiet, mhz)
        called += len(said)
        print(r, made, said, kept, chain)
    print("ok", runs, "runs", " ".join(modes), called, "reports")


def write_runs(path, runs, seed=20):
    """Write runs 0 to `runs` of `seed` to `path`, one a line, for `replay` on a board (whose
    heap cannot draw them: a run's ns stamps are long ints): "r start_us quiet mhz|words in
    hex|reads as n,tick,last,lag"."""
    words = [None] * 2048
    edges = [None] * 3000
    reads = [None] * 2048
    with open(path, "w") as f:
        for r in range(runs):
            made, start_us, quiet, mhz = make_run(r, seed, edges, words, reads)
            codes = " ".join("%x" % words[k][0] for k in range(made))
            said = " ".join("%d,%d,%d,%d" % read for read in reads)
            f.write("%d %d %d %d|%s|%s\n" % (r, start_us, quiet, mhz, codes, said))


def replay(path, modes):
    """Play every run of `path` (write_runs's) the ways in `modes`, comparing each with the
    first (on a board: ("twin", "thumb")). Prints a line a run, then "ok"."""
    count = 0
    with open(path) as f:
        for line in f:
            gc.collect()
            head, codes, said = line.strip().split("|")
            r, start_us, quiet, mhz = [int(x) for x in head.split()]
            words = array("I", [int(x, 16) for x in codes.split()])
            reads = [tuple(int(x) for x in read.split(",")) for read in said.split()]
            result = compare(r, modes, words, reads, start_us, quiet, mhz)
            print(r, len(words), len(result[0]), "reports")
            count += 1
    print("ok", count, "runs", " ".join(modes))


if __name__ == "__main__":
    main(int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 20)
