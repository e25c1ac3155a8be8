"""The console output queue (refbox.outbox) against the simulator's model of MicroPython's USB CDC
output (tablebuzz.sim.runner.FakeConsole): a host that stops reading never freezes the referee.

A stalled host fills the device's 256-byte TX FIFO; POLLOUT then reads false and the loop only
queues. A write can wait for the host at most once per stall (a chunk larger than the room left,
up to twice MicroPython's 500 ms CDC timeout: docs/architecture.md "Console output"); it returns
the bytes the FIFO took and the rest goes out later, so no line is ever cut. Lines that do not
fit the queue are counted and reported as `output_overflow` before any later line; `state` resyncs.
Decisions during the stall follow the stamps as always.
"""

import json

import pytest
from helpers import CONTROLS, timeline
from tablebuzz.sim import runner
from tablebuzz.sim.timeline import parse

RACES = 12


def _stalled_night(stall="stall"):
    """The laptop hangs at once; the quizmaster goes on with the box's ARM and YES buttons. YES
    comes 1.1 s after the race: the one wait a stall can cost (up to 1 s, when the TX FIFO
    fills, here during the first race's lines) would swallow a control pressed inside it."""
    recs = [{"at_us": 5000, "host": stall}]
    t = 100000
    for i in range(RACES):
        first, second = 1 + i % 6, 1 + (i + 1) % 6
        recs += [
            {"at_us": t, "control": "arm"},
            {"at_us": t + 200000, "press": first},
            {"at_us": t + 200007, "press": second},
            {"at_us": t + 350000, "release": first},
            {"at_us": t + 350000, "release": second},
            {"at_us": t + 1300000, "control": "yes"},
        ]
        t += 1600000
    recs.append({"at_us": t + 100000, "host": "read"})
    recs.append({"at_us": t + 200000, "send": {"cmd": "state"}})
    return timeline(*recs)


def _run(text):
    lines = []
    head = {"seed": "1", "game": "quiz", "players": 6, "options": {}, "bounce": "typical"}
    sim = runner.Simulation(head, lambda t, line: lines.append((t, line)))
    sim.run(parse(text, 6, CONTROLS))
    return lines, sim


def _parsed(lines):
    good = []
    for _, line in lines:
        try:
            good.append(json.loads(line))
        except ValueError:
            pass
    return good


def test_a_stalled_host_never_freezes_the_referee():
    lines, sim = _run(_stalled_night())
    console = sim.console
    # at most one wait, bounded: MicroPython's 500 ms timeout in the call that took a part of the
    # chunk, and again in the call for the rest (FakeConsole.write)
    assert console.blocked_ns <= 2 * console.TX_TIMEOUT_NS
    assert sim.board.outbox.waits <= 1
    evs = _parsed(lines)
    assert len(evs) == len(lines)  # every line whole
    overflow = [e for e in evs if e["ev"] == "error" and e["code"] == "output_overflow"]
    assert len(overflow) == 1 and int(overflow[0]["detail"].split()[0]) > 0
    state = [e for e in evs if e["ev"] == "state"][-1]
    # every race was judged right while the host was away: the winners' points are all there
    expected = [0] * 6
    for i in range(RACES):
        expected[i % 6] += 1
    assert state["scores"] == expected
    assert evs.index(overflow[0]) < evs.index(state)


def test_a_reading_host_gets_every_line_in_order():
    lines, sim = _run(_stalled_night("read"))
    evs = _parsed(lines)
    assert len(evs) == len(lines) and sim.console.blocked_ns == 0
    assert not [e for e in evs if e["ev"] == "error"]
    assert len([e for e in evs if e["ev"] == "race"]) == RACES


def _presses_in_a_wait():
    """A host stops reading; two `state` answers overfill the 256-byte TX FIFO, so the second's
    write waits (twice MicroPython's 500 ms CDC timeout); two players press inside that wait.
    An 8-station board's PIO counter wraps every 0.23 s: more than four wraps pass before the
    loop reads their words."""
    return timeline(
        {"at_us": 100000, "host": "stall"},
        {"at_us": 110000, "send": {"cmd": "state"}},
        {"at_us": 111000, "send": {"cmd": "state"}},
        {"at_us": 400000, "press": 1},
        {"at_us": 480000, "release": 1},
        {"at_us": 800000, "press": 2},
        {"at_us": 880000, "release": 2},
        {"at_us": 1500000, "host": "read"},
    )


@pytest.mark.parametrize(
    "interpreter", ["cpython", pytest.param("micropython", marks=pytest.mark.micropython)]
)
def test_a_press_inside_a_long_console_wait_keeps_its_stamp(interpreter):
    """Soak nights 2, 5 and 8: the loop read a word only after the wait and placed it by its own
    tick, whole counter wraps late (P1 at 400 ms came out stamped 1 104 643 µs). The capture's
    timer notes how far the DMA had come every 50 ms, and the word is placed by the note after
    it (refbox.board.PioEdgeCapture.arrivals): each press keeps its true stamp (within the PIO
    path's 2 µs)."""
    from helpers import run_raw

    lines = run_raw(_presses_in_a_wait(), players=2, game="difference", interpreter=interpreter)
    presses = [json.loads(line) for _, line in lines if line.startswith('{"ev":"press"')]
    assert [p["player"] for p in presses] == [1, 2]
    waited = min(ns for ns, line in lines if line.startswith('{"ev":"press"'))
    assert waited > 1000000000  # the press lines left after the wait: the case is real
    for p, true_us in zip(presses, (400000, 800000), strict=True):
        stamp_ns = p["t_us"] * 1000 + p["t_ns"]
        assert 0 <= stamp_ns - true_us * 1000 <= 2000, p
