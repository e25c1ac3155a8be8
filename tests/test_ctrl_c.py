"""Ctrl-C (0x03) stops the firmware at once, whatever the firmware has read (issue 19.7).

On the board the USB CDC driver acts on 0x03 as it arrives (MicroPython v1.28.0
`shared/tinyusb/mp_usbd_cdc.c` `tud_cdc_rx_cb`: stdin's ring buffer emptied,
`mp_sched_keyboard_interrupt()`), so no byte that came before it in stdin is read by the
firmware and no line finishes after it. The simulator models that (FakeConsole.feed): the loop's
next pass raises KeyboardInterrupt. Before, the simulated console raised it only when a 64-byte
read reached the 0x03, so a line ahead of it in a long burst still ran (3 of 4 280 fuzz cases).
"""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tablebuzz.sim import simulate

STATE = b'{"cmd":"state"}'
ARRIVAL_US = 50000


def _case(junk, state_at, ctrl_at, tail):
    """A burst of bytes: `junk` (no newline, no 0x03: a partial line, possibly longer than a
    read or than a line may be), a state command line spliced in at `state_at`, then 0x03 at
    `ctrl_at` of the burst, then `tail` (what the REPL would get)."""
    burst = junk[:state_at] + b"\n" + STATE + b"\n" + junk[state_at:]
    burst = burst[:ctrl_at] + b"\x03" + burst[ctrl_at:] + tail
    # records as tablebuzz.sim.timeline makes them ("send_hex" refuses 0x03 in a timeline file)
    return [
        {"t": 1000000, "k": "send", "line": '{"cmd":"state"}'},  # answered: it came before
        {"t": ARRIVAL_US * 1000, "k": "send_bytes", "hex": burst.hex()},
        {"t": 100000000, "k": "press", "p": 1},  # nothing runs after the Ctrl-C
        {"t": 200000000, "k": "send", "line": '{"cmd":"state"}'},
    ]


def _run(records, interpreter="cpython"):
    head = {"seed": "1", "game": "quiz", "players": 6, "options": {}}
    return simulate.run(head, records, interpreter)


def _check(lines):
    last_ns, last = lines[-1]
    assert last == "KeyboardInterrupt: "
    assert last_ns - ARRIVAL_US * 1000 <= 1000000  # the loop's next pass
    events = [json.loads(line) for _, line in lines[:-1]]
    states = [e for e in events if e["ev"] == "state"]
    assert len(states) == 1  # the state line of the burst (ahead of the 0x03) never ran
    assert not [e for e in events if e["ev"] == "press"]


junk_bytes = st.binary(min_size=100, max_size=700).map(
    lambda b: b.replace(b"\n", b"").replace(b"\x03", b"")
)


@settings(max_examples=40)
@given(
    junk=junk_bytes,
    state_at=st.integers(0, 700),
    gap=st.integers(0, 700),
    tail=st.binary(max_size=80),
)
def test_ctrl_c_anywhere_in_a_burst_stops_at_the_next_pass(junk, state_at, gap, tail):
    """The 0x03 `gap` bytes after the burst's state line ends (then it may lie several 64-byte
    reads behind that line, which the firmware must never run)."""
    state_at = min(state_at, len(junk))
    ctrl_at = min(state_at + len(STATE) + 2 + gap, len(junk) + len(STATE) + 2)
    _check(_run(_case(junk, state_at, ctrl_at, tail.replace(b"\x03", b""))))


CASES = [
    (b"x" * 600, 0, 620, b""),  # the state line first, the 0x03 beyond several 64-byte reads
    (b'{"cmd":"arm"' * 20, 100, 300, b"\n"),
    (bytes(range(4, 200)), 190, 250, b'{"cmd":"state"}\n'),
    (b"", 0, 17, b""),
]


@pytest.mark.micropython
@pytest.mark.parametrize("junk,state_at,ctrl_at,tail", CASES)
def test_the_same_stop_on_both_interpreters(junk, state_at, ctrl_at, tail):
    records = _case(junk, state_at, ctrl_at, tail)
    cpython = _run(records)
    _check(cpython)
    assert _run(records, "micropython") == cpython
