"""The capture's per-edge loop (refbox.edgeloop, its viper form refbox.edgeloop_viper): the same
reports and state as Debouncer.edge_at fed every edge, on CPython and on the MicroPython unix port,
where the viper machine code runs; and a noise burst costs no Python call per edge. The RP2040's
asm_thumb form (refbox.edgeloop_thumb): its machine code runs in tests/test_thumb_kernel.py
(unicorn) and bench/check_edgeloop_chip.py (the emulated chip); here, that its offsets are the
fields'."""

import ast
import copy
import functools
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from refbox import debounce, edgeloop
from refbox.capture import EdgeDecoder
from refbox.debounce import Debouncer
from refbox.ticks import Stamp
from tablebuzz.paths import FIRMWARE
from tablebuzz.sim.ports import micropython_binary

CHECK = FIRMWARE.parent / "tests" / "edgeloop_check.py"
RUNS = "300"


def _consts(path):
    """{name: value} of a module's `NAME = const(...)` lines."""
    found = {}
    for node in ast.parse(path.read_text()).body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "") == "const"):
            value = ast.Expression(node.value.args[0])
            found[node.targets[0].id] = eval(compile(value, "", "eval"))
    return found


def test_the_loops_number_the_state_fields_as_refbox_debounce_does():
    fields = {"_V_" + k[2:]: v for k, v in _consts(FIRMWARE / "refbox" / "debounce.py").items()
              if k.startswith("V_") and k != "V_FIELDS"}
    assert len(fields) == 10
    for module in ("edgeloop.py", "edgeloop_viper.py"):
        consts = _consts(FIRMWARE / "refbox" / module)
        assert {k: consts[k] for k in fields} == fields, module
        assert consts["_CANDIDATE"] == debounce._CANDIDATE, module
        assert (consts["_HALF"], consts["_MAX"]) == (debounce._HALF, debounce._MAX), module
    assert len(Debouncer(0).v) == debounce.V_FIELDS
    viper = _consts(FIRMWARE / "refbox" / "edgeloop_viper.py")
    assert viper["_V_BYTES"] == 4 * debounce.V_FIELDS  # (a station's fields, by address)
    thumb = _consts(FIRMWARE / "refbox" / "edgeloop_thumb.py")  # (byte offsets: LDR, STR)
    assert {k: thumb[k] for k in fields} == {k: 4 * v for k, v in fields.items()}
    assert thumb["_V_BYTES"] == 4 * debounce.V_FIELDS
    assert (thumb["_UP"], thumb["_CANDIDATE"]) == (debounce._UP, debounce._CANDIDATE)


def test_the_thumb_loop_numbers_the_chain_and_the_table_as_it_fills_them():
    thumb = _consts(FIRMWARE / "refbox" / "edgeloop_thumb.py")
    # the chain's [count, frac, us, ns, levels] (refbox.edgeloop), by address
    assert [thumb[k] for k in ("_C_LAST", "_C_US", "_C_NS", "_C_LEVELS")] == [0, 8, 12, 16]
    for item in ("INDEX", "MASK", "N", "I"):  # the per-call items `run` sets by index
        assert thumb["_T_" + item] == 4 * thumb["_I_" + item]
    offsets = [v for k, v in thumb.items() if k.startswith("_T_") and k not in
               ("_T_LOWEST", "_T_WORDS_LONG")]
    assert len(set(offsets)) == len(offsets) and max(offsets) < thumb["_T_LOWEST"] <= 124 + 4
    assert thumb["_T_LOWEST"] + (1 << 8) <= 4 * thumb["_T_WORDS_LONG"]  # 8 pins' lowest bits
    # refbox.edgeloop.thumb_table fills the table the kernel reads
    assert thumb["_T_WORDS_LONG"] == edgeloop.THUMB_TABLE_WORDS
    assert thumb["_T_LOWEST"] == edgeloop._THUMB_LOWEST


@functools.cache
def _check(interpreter):
    """The check's lines under `interpreter` (run once a session: both tests compare them)."""
    run = subprocess.run([interpreter, str(CHECK), str(FIRMWARE), RUNS], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run.stdout.splitlines()


def test_the_python_loop_reports_what_edge_at_alone_reports():
    lines = _check(sys.executable)
    assert lines[-1].startswith("ok %s runs general twin " % RUNS)


def test_the_viper_loop_reports_the_same_on_micropython_and_the_same_bytes_as_cpython():
    try:
        micropython = micropython_binary()
    except Exception as e:  # (the Makefile installs it: a skip here is a broken set-up)
        pytest.skip(str(e))
    lines = _check(micropython)
    assert lines[-1].startswith("ok %s runs general twin viper " % RUNS), lines[-1]
    assert lines[:-1] == _check(sys.executable)[:-1]  # every run's reports and state


def _burst_decoder():
    dec = EdgeDecoder(8, 7000, 125)
    dec.start(1000, first_sample_cycles=0)
    debs = debounce.bank_of(8)
    dec.bind(debs)
    mask = dec.counter_mask
    words = [(mask << 8) | 0xFF]  # the first sample: every contact open
    levels = 0xFF
    for i in range(32):  # 2 µs closures every 5 µs on station 3: 64 edges
        for dt, closed in ((0, True), (2000, False)):
            at_ns = 100000 + i * 5000 + dt
            levels = levels & ~8 if closed else levels | 8
            words.append(((mask - at_ns * 125 // 7000) << 8) | levels)
    return dec, debs, words


def test_a_noise_burst_calls_no_python_per_edge():
    dec, debs, words = _burst_decoder()
    out = []
    dec.decode(words, 0, 0xFFFF, 1, 1001, debs, out)  # the baseline word (the Python loop)
    dec.decode(words, 1, 0xFFFF, 64, 1300, debs, out)
    assert dec.edges_called() == 0  # all 64 on machine words
    assert out == [] and -56 < debs[3].first_stamp().diff_ns(Stamp(1100)) <= 0  # (56 ns counts)
    deb = debs[3]
    deb.poll(Stamp(1100 + 155 + 400), out)  # open 3 µs... then 400 µs: noise (5 x 64 µs)
    assert out == [] and deb.glitches == 1 and deb.is_idle()


def test_limits_come_from_the_debouncers_thresholds():
    deb = Debouncer(0)
    limits = edgeloop.limits_for(8, (1 << 22) - 1, 7000, 125, deb)
    assert list(limits) == [
        8, (1 << 22) - 1, 255, 7000, 125, 1000000, 200000, 5, 20000000, 1000, 56
    ]
    assert edgeloop.fits((1 << 22) - 1, 7000, 125)  # 8 pins: a 0.23 s wrap
    assert not edgeloop.fits((1 << 28) - 1, 7000, 125)  # 2 pins: 15 s, past 32-bit ns


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 400_000), st.booleans()), min_size=1, max_size=40))
def test_a_closure_s_due_tick_is_never_after_its_outcome(steps):
    """Debouncer.v[V_DUE_US], kept as each edge comes (the loop skips polls before it): judged
    without it just before that tick, the closure is still undecided (no press, no drop)."""
    deb = Debouncer(0)
    out = []
    t_ns = 10_000_000
    for gap_ns, closed in steps:
        t_ns += gap_ns
        deb.edge_at(closed, (t_ns // 1000) & ((1 << 30) - 1), t_ns % 1000, out)
        due = deb.v[debounce.V_DUE_US]
        if due < 0 or deb.v[debounce.V_STATE] != debounce._CANDIDATE:
            continue
        probe = copy.deepcopy(deb)
        probe.v[debounce.V_DUE_US] = -1  # (judge, whatever the tick)
        before = (due - 1) & ((1 << 30) - 1)
        said = []
        probe.poll(Stamp(before, 999), said)
        assert said == [] and probe.v[debounce.V_STATE] == debounce._CANDIDATE, (due, steps)
        assert probe.glitches == deb.glitches
