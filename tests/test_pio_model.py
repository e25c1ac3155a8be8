"""The fake rp2's analytic PIO models checked against a cycle-accurate run of the same program.

tablebuzz.sim.pio_check executes the Program objects that the fake rp2.asm_pio assembles from
firmware/refbox/board.py, cycle by cycle (RP2040 datasheet chapter 3). The fake StateMachine
(host/tablebuzz/sim/fakes/rp2.py) instead computes when the edge timestamper samples and what it
pushes. Here both see the same pin trace and must push the same words in the same order, drop the
same ones and raise FDEBUG.RXSTALL at the same drains, including drains that land between a
sample and its PUSH 7 cycles later (test_model_push_lands_when_the_program_pushes).

Time alignment: sm.active(1) at world ns T_START is cycle 0 of the interpreter; at 125 MHz a
cycle is 8 ns. A pin edge at world ns t is visible to the instruction on cycle ceil(t / 8): an
edge exactly on a cycle boundary is seen on that cycle, which is also what the world's event
queue does when the edge was scheduled before the sample (the world runs same-ns events in the
order they were queued). The 2-cycle GPIO input synchroniser is a constant offset that both
models leave out.
"""

import ast
import bisect
import pathlib
import random

import machine
import pytest
import rp2
from hypothesis import event, given, settings
from hypothesis import strategies as st
from refbox import board
from tablebuzz.sim import pio_check, world

BASE = 2  # first player GPIO
NS = 8  # ns per cycle at 125 MHz
SYS_HZ = 125_000_000
T_START = 1000  # world ns of sm.active(1)
IDLE = world.TICKS_MASK  # every input pulled high
# the design notes' reference sketch, in shared/ beside the repository (README "Tests")
SHARED = pathlib.Path(__file__).resolve().parents[2] / "shared"
REFERENCE = SHARED / "reference" / "pio_edge_timestamper.py"

# where the edge timestamper is: the `in pins` of sample k runs on cycle 5 + 7k (after
# mov y; mov x; jmp; mov osr; mov isr); a change makes the SM push 7 cycles after its sample
FIRST_SAMPLE = 5
PERIOD = 7
PUSH_AFTER_SAMPLE = 7


def _new_world():
    w = world.World(b"\0" * 16)
    w.call_ns = 0  # sm.active(1) starts the SM on the call's ns: cycle 0 is T_START
    world.current = w
    return w


def _visible_cycle(t_ns):
    return -(-t_ns // NS)


def _pins_of(edges):
    """pins(cycle) for the interpreter from [(ns after T_START, pin)] toggles."""
    cycles = []
    levels = []
    level = IDLE
    for t, pin in sorted(edges, key=lambda e: e[0]):
        level ^= 1 << (BASE + pin)
        cycles.append(_visible_cycle(t))
        levels.append(level)

    def pins(cycle):
        i = bisect.bisect_right(cycles, cycle)
        return levels[i - 1] if i else IDLE

    return pins


def _run_interpreter(program, edges, drains, end, **kw):
    """[(drain cycle, words, rxstall)] and the interpreter, draining before each drain cycle."""
    sm = pio_check.StateMachine(program, pins=_pins_of(edges), in_base=BASE, **kw)
    out = []
    for d in sorted(drains) + [end]:
        sm.run_until(d)
        stall = bool(sm.fdebug & 1)
        sm.fdebug &= ~1  # the board's handler writes 1 to clear (§3.7 FDEBUG)
        out.append((d, sm.drain(), stall))
    return out, sm


def _run_model(program, edges, drains, end):
    """The same through the fake rp2.StateMachine on a world clock; drains land mid-cycle."""
    w = _new_world()
    sm = rp2.StateMachine(0, program, freq=SYS_HZ, in_base=machine.Pin(BASE))
    out = []

    def toggle(pin):
        w.set_level(BASE + pin, not w.level(BASE + pin))

    def drain(d):
        words = []
        while sm.rx_fifo():
            words.append(sm.get())
        stall = bool(w.fdebug & 1)
        w.fdebug &= ~1
        out.append((d, words, stall))

    for t, pin in edges:  # queued first: an edge on a sample's ns is seen by that sample
        w.at(T_START + t, toggle, pin)
    w.run_until(T_START)
    sm.active(1)
    for d in sorted(drains) + [end]:
        w.at(T_START + d * NS - NS // 2, drain, d)
    w.run_until(T_START + end * NS)
    return out, sm


def _push_cycles(program, edges, end):
    probe = pio_check.StateMachine(program, pins=_pins_of(edges), in_base=BASE)
    probe.run_until(end + 2 * PERIOD)
    return [c for c, _, _ in probe.push_log]


def _outside_push_windows(drains, pushes):
    """Move a drain that lands on the very cycle of a PUSH one cycle later.

    Which of the two happens first within one cycle is a coin toss on hardware too; everywhere
    else, including between a sample and its push, the model must agree with the program."""
    moved = []
    for d in drains:
        i = bisect.bisect_left(pushes, d)
        if i < len(pushes) and pushes[i] == d:
            d = pushes[i] + 1
        moved.append(d)
    return moved


@st.composite
def _traces(draw, n_pins):
    """Edges in a few clusters: same ns, same cycle, under 7 cycles apart, on several pins."""
    length = draw(st.sampled_from([60, 300, 2000, 20000]))
    edges = []
    for _ in range(draw(st.integers(1, 10))):
        start = draw(st.integers(0, length)) * NS
        for _ in range(draw(st.integers(1, 6))):
            offset = draw(st.sampled_from([0, 0, 1, 4, 7, 8, 9, 23, 40, 55, 56, 57, 100]))
            edges.append((start + offset, draw(st.integers(0, n_pins - 1))))
    drains = draw(st.lists(st.integers(1, length), max_size=8))
    end = _visible_cycle(max(t for t, _ in edges)) + 3 * PERIOD + 20
    return edges, drains, end


def _assert_same(n_pins, edges, drains, end):
    program = board.edge_timestamper(n_pins)
    pushes = _push_cycles(program, edges, end)
    drains = _outside_push_windows(drains, pushes)
    (end,) = _outside_push_windows([end], pushes)
    drains = [d for d in drains if d < end]
    got, model = _run_model(program, edges, drains, end)
    want, sm = _run_interpreter(program, edges, drains, end)
    assert got == want
    assert model.pushes == len(sm.push_log)
    assert model.dropped == sum(1 for _, _, stored in sm.push_log if not stored)
    assert [f for _, f in sm.irq_log] == [0] * len(sm.push_log)  # irq(rel(0)) on SM0: flag 0
    assert [c - PUSH_AFTER_SAMPLE - FIRST_SAMPLE for c, _, _ in sm.push_log] == [
        PERIOD * ((1 << (30 - n_pins)) - 1 - (w >> n_pins)) for _, w, _ in sm.push_log
    ]  # the counter field names the sample that saw the change
    return model


# ------------------------------------------------------------ (1) model == program, 6 and 8 pins
@pytest.mark.parametrize("n_pins", [6, 8])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_edge_model_matches_the_program(n_pins, data):
    edges, drains, end = data.draw(_traces(n_pins))
    model = _assert_same(n_pins, edges, drains, end)
    event("dropped words" if model.dropped else "no drops")


def test_edge_model_matches_on_crafted_traces():
    cases = [
        [(0, 0)],  # before the first sample
        [(40, 0)],  # exactly on the first sample
        [(200, 1), (200, 2), (200, 3)],  # simultaneous on three pins
        [(300, 0), (303, 1), (308, 2), (352, 3), (356, 4)],  # same cycle, under 7 cycles
        [(500, 0), (501, 0)],  # a 1 ns glitch: never seen
        [(600, 0), (660, 0), (700, 1), (701, 1)],
    ]
    for n_pins in (6, 8):
        for edges in cases:
            _assert_same(n_pins, edges, [], 200)


def test_full_fifo_drops_the_newest_word_and_sets_rxstall():
    edges = [(2000 + 200 * i, i % 6) for i in range(12)]  # 12 changes + the first sample
    got, model = _run_model(board.edge_timestamper(6), edges, [], 600)
    want, sm = _run_interpreter(board.edge_timestamper(6), edges, [], 600)
    assert got == want
    ((_, words, stall),) = want
    assert len(words) == 8 and stall  # joined RX FIFO: 8 words, the newest 5 lost
    assert [w for _, w, stored in sm.push_log if stored] == words  # the oldest survive
    assert model.dropped == 5


# ---------------------------------------------------------------- (2) the counter field wraps
@pytest.mark.parametrize("n_pins", [6, 8])
def test_counter_field_wraps_through_zero(n_pins):
    """Start at `sample` with x = 3: the 32-bit counter passes 0 within a few periods."""
    program = board.edge_timestamper(n_pins)
    bits = 30 - n_pins
    mask = (1 << bits) - 1
    start = program.labels["sample"]  # in pins on cycle 2 + 7k
    edges = [(NS * (2 + PERIOD * k), k % n_pins) for k in (2, 5, 9, 10, 30)]
    sm = pio_check.StateMachine(
        program, pins=_pins_of(edges), in_base=BASE, pc=start, x=3, y=pio_check.M32
    )
    sm.run_until(2 + PERIOD * 40)
    words = [w for _, w, _ in sm.push_log]
    samples = [(c - PUSH_AFTER_SAMPLE - 2) // PERIOD for c, _, _ in sm.push_log]
    assert samples == [0, 2, 5, 9, 11, 30]  # 10 falls in the blind period after 9's push
    assert [w >> n_pins for w in words] == [(3 - k) & mask for k in samples]
    for i in range(1, len(words)):
        gap = ((words[i - 1] >> n_pins) - (words[i] >> n_pins)) & mask  # the firmware's formula
        assert gap == samples[i] - samples[i - 1]


@pytest.mark.parametrize("n_pins", [6, 8])
def test_model_counter_over_more_than_a_full_wrap(n_pins):
    """The model after 2**bits + j periods gives the program's low bits of (2**32 - 1 - k)."""
    bits = 30 - n_pins
    mask = (1 << bits) - 1
    program = board.edge_timestamper(n_pins)
    ks = [3, (1 << bits) - 2, (1 << bits) + 10, (1 << bits) + 13, 2 * (1 << bits) + 1]
    edges = [((FIRST_SAMPLE + PERIOD * k) * NS - 4, i % n_pins) for i, k in enumerate(ks)]
    end = FIRST_SAMPLE + PERIOD * (ks[-1] + 2)
    drains = [FIRST_SAMPLE + PERIOD * k + 9 for k in ks]  # keep the FIFO from filling
    got, _ = _run_model(program, edges, drains, end)
    words = [w for _, ws, _ in got for w in ws]
    # the program's x after k periods is 2**32 - 1 - k (one decrement a period, shown cycle by
    # cycle above and in the property test); its low `bits` are the field
    assert [w >> n_pins for w in words] == [(pio_check.M32 - k) & mask for k in [0] + ks]
    gap = ((words[2] >> n_pins) - (words[3] >> n_pins)) & mask  # across the field's wrap
    assert gap == ks[2] - ks[1]


# ---------------------------------------------------------------- (3) ws2812 waveform
def _decode_ws2812(trace, pin, end):
    """Bits from the side-set pin's waveform: each bit starts with a rise, high 2 cycles for a 0
    and 7 for a 1, 10 cycles a bit; between frames the line stays low."""
    levels = [(c, (v >> pin) & 1) for c, v in trace]
    rises = [c for (c, lv), (_, prev) in zip(levels, [(0, 0)] + levels, strict=False) if lv > prev]
    falls = [c for (c, lv), (_, prev) in zip(levels, [(0, 0)] + levels, strict=False) if lv < prev]
    bits = []
    for rise, fall in zip(rises, falls, strict=True):
        high = fall - rise
        assert high in (2, 7), high
        bits.append(1 if high == 7 else 0)
    assert all(b - a == 10 for a, b in zip(rises, rises[1:], strict=False))  # no gaps in a frame
    assert falls[-1] < end
    return bits


def test_ws2812_waveform_carries_the_grb_words():
    _new_world()
    rng = random.Random(2812)
    frame = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (1, 2, 3), (128, 64, 32)]
    frame += [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(21)]
    pixels = board.PioPixels(1, machine.Pin(16), len(frame), world.current.ticks_us)
    pixels.show(frame)  # the fake records the frame it decoded from the words
    ((_, _, fake_frame),) = world.current.pixel_frames
    grb = list(pixels._grb)
    assert len(grb) == len(frame)

    sm = pio_check.StateMachine(board.ws2812, sideset_base=16)
    sm.put(grb, 8)  # as PioPixels.show: sm.put(array, 8)
    end = 10 * 24 * len(grb) + 200
    sm.run_until(end)
    assert sm.stalled and sm.out_levels == 0  # out of data: stalled with the line low (latch)
    bits = _decode_ws2812(sm.out_trace, 16, end)
    assert len(bits) == 24 * len(grb)
    words = [int("".join(map(str, bits[i : i + 24])), 2) for i in range(0, len(bits), 24)]
    assert words == grb
    sent = [((w >> 8) & 0xFF, (w >> 16) & 0xFF, w & 0xFF) for w in words]  # G, R, B on the wire
    assert sent == fake_frame
    assert sm.out_trace[0][0] == 4  # pull + stall on cycle 0, 3 low cycles, then the first rise


def test_ws2812_keeps_the_bit_clock_across_words_and_waits_for_data():
    sm = pio_check.StateMachine(board.ws2812, sideset_base=0)
    sm.run_until(50)
    assert sm.out_trace == [] and sm.stalled  # nothing to send: low, stalled on the first OUT
    sm.put([0xFFFFFF, 0x000000, 0xA5A5A5], 8)
    sm.run_until(50 + 3 * 240 + 50)
    bits = _decode_ws2812(sm.out_trace, 0, sm.cycle)
    assert bits == [1] * 24 + [0] * 24 + [int(b) for b in format(0xA5A5A5, "024b")]


def test_ws2812_put_of_a_whole_frame_blocks_until_the_fifo_has_room():
    """On the board sm.put(array) waits while the 8-word TX FIFO is full: for the 26-pixel chain
    show() returns ~0.5 ms later (interrupts stay enabled); the wire is busy ~0.78 ms. The fake
    put returns at once, which the simulator's 1 ms loop grid does not resolve anyway."""
    sm = pio_check.StateMachine(board.ws2812, sideset_base=0)
    sm.put([0x123456] * 26, 8)
    while sm.tx_backlog:
        sm.step()
    assert 500 < sm.cycle / 8 < 520  # µs at 8 MHz: 17 words out of the way, the 18th started
    sm.run_until(26 * 240 + 2)
    assert sm.stalled and not sm.tx and sm.out_levels == 0


# ------------------------------------------------------------ (4) the reference's ordering claim
def _reference_program():
    """edge_ts from shared/reference/pio_edge_timestamper.py, assembled by the fake rp2."""
    if not REFERENCE.exists():
        pytest.skip("shared reference sketch not present")
    tree = ast.parse(REFERENCE.read_text())
    (fn,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "edge_ts"]
    module = ast.Module(body=[fn], type_ignores=[])
    namespace = {"rp2": rp2}
    exec(compile(module, str(REFERENCE), "exec"), namespace)
    return namespace["edge_ts"], 6


def _program(which):
    if which == "reference":
        return _reference_program()
    return board.edge_timestamper(which), which


def _press_words(program, n_pins, presses, end):
    """Words for single presses [(ns, pin)], drained every 50 cycles so nothing is lost."""
    out, _ = _run_interpreter(program, presses, range(50, end, 50), end)
    words = [w for _, ws, stall in out for w in ws]
    assert not any(stall for _, _, stall in out)
    return words


def _first_low(words, pin):
    return next(i for i, w in enumerate(words) if not (w >> pin) & 1)


def _sample_cycle(word, n_pins):
    k = ((1 << (30 - n_pins)) - 1) - (word >> n_pins)
    return FIRST_SAMPLE + PERIOD * k


@pytest.mark.parametrize("which", ["reference", 6, 8])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_presses_are_never_inverted_and_ties_share_a_word(which, data):
    program, n_pins = _program(which)
    at = data.draw(st.integers(100, 2000))
    gaps = st.sampled_from([0, 0, 1, 7, 8, 30, 48, 55, 56, 57, 63, 64, 100, 111, 112, 120, 500])
    presses = []
    for pin in data.draw(st.permutations(range(n_pins)))[: data.draw(st.integers(2, n_pins))]:
        presses.append((at, pin))
        at += data.draw(gaps)
    end = _visible_cycle(at) + 40
    words = _press_words(program, n_pins, presses, end)
    index = {pin: _first_low(words, pin) for _, pin in presses}
    for ta, a in presses:
        seen = _sample_cycle(words[index[a]], n_pins)
        assert 0 <= seen - _visible_cycle(ta) < 2 * PERIOD  # seen within one or two periods
        for tb, b in presses:
            if ta < tb:
                assert index[a] <= index[b]  # never inverted
            if ta == tb:
                assert index[a] == index[b]  # same instant: one word


def _first_sample_at_or_after(cycle):
    return FIRST_SAMPLE + PERIOD * max(0, -(-(cycle - FIRST_SAMPLE) // PERIOD))


@pytest.mark.parametrize("which", ["reference", 6, 8])
@settings(max_examples=60, deadline=None)
@given(at=st.integers(200, 1000), gap=st.integers(0, 200))
def test_two_presses_a_period_apart_are_two_words_in_order(which, at, gap):
    """From idle: >= 56 ns apart -> two words in order; both before one sample -> one word.
    Exactly: each press is seen by the first sample after it, except that the sample right after
    a pushed change is skipped (the change path takes two periods)."""
    program, n_pins = _program(which)
    words = _press_words(program, n_pins, [(at, 0), (at + gap, 1)], _visible_cycle(at + gap) + 40)
    a, b = _first_low(words, 0), _first_low(words, 1)
    s1 = _first_sample_at_or_after(_visible_cycle(at))
    s2 = _first_sample_at_or_after(_visible_cycle(at + gap))
    if s2 == s1 + PERIOD:
        s2 += PERIOD  # the blind period after the first press's push
    assert (_sample_cycle(words[a], n_pins), _sample_cycle(words[b], n_pins)) == (s1, s2)
    assert (a == b) == (s1 == s2)  # a tie exactly when one sample saw both
    if gap >= PERIOD * NS:
        assert a < b
        mask = (1 << (30 - n_pins)) - 1
        measured = (((words[a] >> n_pins) - (words[b] >> n_pins)) & mask) * PERIOD * NS
        # the blind period can add up to one period (+ the ns rounding to a cycle)
        assert -PERIOD * NS < measured - gap < 2 * PERIOD * NS


@pytest.mark.parametrize("which", ["reference", 6, 8])
def test_right_after_a_change_presses_up_to_two_periods_apart_tie(which):
    """The change path costs two periods with no sample in between: after any pushed change,
    presses 56..104 ns apart can share a word. Ordering still never inverts."""
    program, n_pins = _program(which)
    s = FIRST_SAMPLE + PERIOD * 20  # a sample; pin n-1 released just before it
    presses = [((s - 1) * NS, n_pins - 1), ((s + 1) * NS, 0), ((s + 1 + PERIOD + 5) * NS, 1)]
    words = _press_words(program, n_pins, presses, s + 60)
    assert _first_low(words, 0) == _first_low(words, 1)  # 12 cycles (96 ns) apart, one word
    both = words[_first_low(words, 0)]
    assert _sample_cycle(both, n_pins) == s + 2 * PERIOD
    got, _ = _run_model(program, presses, [], s + 60)
    assert [w for _, ws, _ in got for w in ws] == words  # the model agrees


def test_reference_fifo_keeps_the_first_four_of_six_fast_presses():
    """Design notes: the 4-word RX FIFO loses the 5th and later of six presses inside ~2 us;
    the product joins the FIFO to 8 words and keeps all six."""
    presses = [(1000 + 300 * i, i) for i in range(6)]
    for which, kept in (("reference", 4), (6, 6)):
        program, n_pins = _program(which)
        out, sm = _run_interpreter(program, presses, [20], 400)
        (_, first, _), (_, words, stall) = out
        assert len(first) == 1  # the first sample's word, drained
        assert [w & 0x3F for w in words] == [0x3F & ~((2 << i) - 1) for i in range(kept)]
        assert stall == (kept < 6)  # the newest words were the ones lost


# ---------------------------------------------------------------- when the word lands
@pytest.mark.parametrize("n_pins", [6, 8])
def test_model_push_lands_when_the_program_pushes(n_pins):
    program = board.edge_timestamper(n_pins)
    edges = [(1000 + 200 * i, i % n_pins) for i in range(7)]  # 7 + the first sample: FIFO full
    s = FIRST_SAMPLE + PERIOD * 60  # the sample that sees the 8th change
    edges.append(((s - 3) * NS, 7 % n_pins))
    drains = [s + 3]  # after the sample, before its push
    got, model = _run_model(program, edges, drains, s + 40)
    want, sm = _run_interpreter(program, edges, drains, s + 40)
    assert [c for c, _, _ in sm.push_log][-1] == s + PUSH_AFTER_SAMPLE
    assert want[0][2] is False and len(want[0][1]) == 8  # program: nothing lost yet
    assert got == want  # model: the 9th word was dropped at the sample, RXSTALL set


# ---------------------------------------------------------------- the interpreter on its own
def _assemble(source):
    """A program assembled by the fake rp2 from source text (the PIO names exist only inside)."""
    namespace = {"rp2": rp2}
    exec(compile(source, "<pio>", "exec"), namespace)
    return namespace["prog"]


def test_interpreter_jmp_decrement_delay_and_wrap():
    prog = _assemble(
        "@rp2.asm_pio()\n"
        "def prog():\n"
        "    set(y, 2)\n"
        "    label('loop')\n"
        "    jmp(y_dec, 'loop')[1]\n"  # y: 2 -> 1 -> 0 taken, then 0 -> ~0 falls through
        "    mov(isr, reverse(y))\n"
        "    push()\n"
        "    mov(x, invert(null))\n"
        "    jmp(not_x, 'loop')\n"  # x = ~0: not taken, wraps to 0
    )
    sm = pio_check.StateMachine(prog)
    sm.run_until(12)
    assert sm.push_log == [(8, pio_check.M32, True)]  # set 0, jmp 1+2, 3+4, 5+6, mov 7, push 8
    assert (sm.pc, sm.cycle) == (1, 12)  # mov 9, jmp 10, wrap: set on 11
    assert sm.y == 2 and sm.x == pio_check.M32


def test_interpreter_shifts_autopush_and_fifo_stalls():
    prog = _assemble(
        "@rp2.asm_pio(in_shiftdir=rp2.PIO.SHIFT_RIGHT, autopush=True, push_thresh=8)\n"
        "def prog():\n"
        "    set(x, 5)\n"
        "    in_(x, 4)\n"
        "    in_(null, 4)\n"  # 8 bits: autopush
        "    in_(pins, 3)\n"
        "    push(iffull, block)\n"  # 3 < 8: nothing
        "    push(block)[2]\n"
    )
    sm = pio_check.StateMachine(prog, pins=lambda c: 0b10110000, in_base=4)
    sm.run_until(7)
    assert sm.drain() == [0x05000000, 0b011 << 29]  # pins 4.. = 1011: the 3 LSBs, from the left
    sm.rx = [0] * 4  # full: the autopushing IN stalls once it has shifted, flags RXSTALL
    sm.run_until(40)
    assert sm.pc == 2 and sm.stalled and sm.fdebug == 1
    sm.rx = []
    sm.run_until(41)
    assert sm.rx == [0x05000000] and sm.pc == 3


def test_interpreter_blocking_push_stalls_before_its_delay():
    prog = _assemble(
        "@rp2.asm_pio()\ndef prog():\n    mov(isr, invert(null))\n    push(block)[3]\n    nop()\n"
    )
    sm = pio_check.StateMachine(prog)
    sm.rx = [0] * 4
    sm.run_until(10)
    assert sm.pc == 1 and sm.stalled and sm.fdebug == 1
    sm.rx = []
    sm.run_until(15)  # push on 10, delay 11..13, nop on 14
    assert sm.rx == [pio_check.M32] and (sm.pc, sm.executed) == (0, 3)


def test_interpreter_out_pull_pins_and_irq():
    prog = _assemble(
        "@rp2.asm_pio(out_shiftdir=rp2.PIO.SHIFT_RIGHT, pull_thresh=8)\n"
        "def prog():\n"
        "    set(x, 9)\n"
        "    pull(noblock)\n"  # empty TX FIFO: osr = x
        "    out(pins, 4)\n"  # shifting right: the LSBs first
        "    jmp(not_osre, 'more')\n"  # 4 of 8 bits out: not empty, taken
        "    set(y, 31)\n"
        "    label('more')\n"
        "    out(y, 4)\n"
        "    pull(ifempty, block)\n"  # 8 bits out: pulls, stalls until a word comes
        "    jmp(pin, 'high')\n"
        "    irq(rel(1))\n"
        "    label('high')\n"
        "    irq(clear, 5)\n"
        "    set(pins, 1)\n"
    )
    sm = pio_check.StateMachine(
        prog, sm_id=2, pins=lambda c: 0, out_base=10, out_count=4, set_base=20, set_count=1
    )
    sm.run_until(10)
    assert sm.out_levels == 9 << 10 and sm.y == 0
    assert sm.pc == 6 and sm.stalled and sm.fdebug == 1 << 26  # TXSTALL of SM 2
    sm.put(0xABC)
    sm.irq_flags = 1 << 5
    sm.run_until(15)  # pull 10, jmp pin 11 (low: falls through), irq 12, irq clear 13, set 14
    assert sm.osr == 0xABC and sm.irq_log == [(12, 3)]  # rel(1) on SM 2: flag 3
    assert sm.irq_flags == 1 << 3 and sm.out_levels == (9 << 10) | (1 << 20)


# ------------------------------------------------------- (7) the DMA ring behind the RX FIFO
RING_WORDS = 16  # 64 bytes: ring_size 6


def _run_dma_interpreter(program, edges, looks, end, count):
    sm = pio_check.StateMachine(program, pins=_pins_of(edges), in_base=BASE)
    dma = pio_check.RxDma(sm, RING_WORDS, count, world.World.dma_latency_cycles)
    out = []
    for d in sorted(looks) + [end]:
        dma.run_until(d)
        stall = bool(sm.fdebug & 1)
        sm.fdebug &= ~1
        out.append((d, list(dma.ring), dma.index, dma.count, len(sm.rx), stall))
    return out


def _run_dma_model(program, edges, looks, end, count):
    """The fake rp2.DMA as the firmware configures it (refbox.board.PioEdgeCapture), on a small
    ring; looks land mid-cycle, as the loop's reads do."""
    import array

    import uctypes

    w = _new_world()
    sm = rp2.StateMachine(0, program, freq=SYS_HZ, in_base=machine.Pin(BASE))
    store = array.array("I", [0] * (2 * RING_WORDS))
    offset = (-uctypes.addressof(store) & (4 * RING_WORDS - 1)) // 4
    ring = memoryview(store)[offset : offset + RING_WORDS]
    dma = rp2.DMA()
    ctrl = dma.pack_ctrl(
        size=2, inc_read=False, inc_write=True, ring_size=6, ring_sel=True, treq_sel=4, bswap=False
    )
    dma.config(read=sm, write=ring, count=count, ctrl=ctrl, trigger=True)
    base = uctypes.addressof(ring)
    out = []

    def look(d):
        stall = bool(w.fdebug & 1)
        w.fdebug &= ~1
        index = (dma.write - base) // 4
        out.append((d, list(ring), index, dma.count, sm.rx_fifo(), stall))

    for t, pin in edges:
        w.at(T_START + t, lambda p: w.set_level(BASE + p, not w.level(BASE + p)), pin)
    w.run_until(T_START)
    sm.active(1)
    for d in sorted(looks) + [end]:
        w.at(T_START + d * NS - NS // 2, look, d)
    w.run_until(T_START + end * NS)
    return out


@settings(max_examples=150, deadline=None)
@given(data=st.data(), count=st.sampled_from([3, 9, 17, 40, 1 << 20]))
def test_dma_ring_model_matches_the_cycles(data, count):
    """Every word reaches the ring in push order, wrapping at its size; TRANS_COUNT counts down;
    while the channel runs the FIFO never overflows, after count 0 it fills and RXSTALL rises."""
    edges, looks, end = data.draw(_traces(6))
    looks = sorted(set(d for d in looks if d < end))
    program = board.edge_timestamper(6)
    got = _run_dma_model(program, edges, looks, end, count)
    want = _run_dma_interpreter(program, edges, looks, end, count)
    assert got == want
    last = want[-1]
    event("channel ran out" if last[3] == 0 else "channel running")
    if last[3]:
        assert not any(stall for *_, stall in want)  # the DMA kept the FIFO empty


def test_dma_keeps_a_burst_that_would_overflow_the_fifo():
    edges = [(2000 + 200 * i, i % 6) for i in range(12)]  # 12 changes + the first sample
    program = board.edge_timestamper(6)
    got = _run_dma_model(program, edges, [], 600, 1 << 20)
    assert got == _run_dma_interpreter(program, edges, [], 600, 1 << 20)
    ((_, ring, index, count, fifo, stall),) = got
    assert index == 13 and count == (1 << 20) - 13 and fifo == 0 and not stall
    # the same burst without the DMA lost 5 words (test_full_fifo_drops_the_newest_word...)


def test_misaligned_ring_is_refused():
    import array

    import uctypes

    _new_world()
    sm = rp2.StateMachine(0, board.edge_timestamper(6), freq=SYS_HZ, in_base=machine.Pin(BASE))
    store = array.array("I", [0] * (2 * RING_WORDS))
    offset = (-uctypes.addressof(store) & (4 * RING_WORDS - 1)) // 4
    ring = memoryview(store)[offset + 1 : offset + 1 + RING_WORDS]
    dma = rp2.DMA()
    ctrl = dma.pack_ctrl(inc_read=False, ring_size=6, ring_sel=True, treq_sel=4)
    with pytest.raises(ValueError, match="not aligned"):
        dma.config(read=sm, write=ring, count=10, ctrl=ctrl, trigger=True)
