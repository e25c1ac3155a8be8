"""The PIO capture behind its DMA ring, through the whole simulated board (CPython lane).

- One time base: a press's `t_us`/`t_ns` is the µs tick clock's own time of the first closing
  edge, within the anchor's ±0.5 µs (TIMERAWL counts whole µs) plus one or two PIO samples, for
  any sub-µs phase of the start; an anchor read around the start call is caught (the fake
  `StateMachine.active` starts the SM `World.call_ns` into the call, as the chip's C method does).
- Lost words: a lapped ring (the oldest words overwritten) or a channel that ran out (the RX FIFO
  then fills: the newest words dropped) is reported as `capture_overflow`, and the open race is a
  declared tie of everyone who may have pressed: never a win it cannot prove.
- Re-arming at safe moments keeps every word however many a session brings.
Figures and rules: docs/architecture.md "Capturing presses", "Lost capture words".
"""

import pytest
from helpers import CONTROLS, events, races, timeline
from refbox import board
from tablebuzz.sim import runner, world
from tablebuzz.sim.timeline import parse

PERIOD_NS = 56
TICKS = (1 << 30) - 1


def _run(text, **header):
    """(lines as [(ns, dict)], the Simulation) for a quiz timeline."""
    import json

    head = {"seed": "1", "game": "quiz", "players": 6, "options": {}}
    head.update(header)
    lines = []
    sim = runner.Simulation(head, lambda t, line: lines.append((t, json.loads(line))))
    sim.run(parse(text, 6, CONTROLS))
    return lines, sim


def _stamp_error_ns(press, true_ns, origin_us):
    """Signed ns from the true closing edge to the press's stamp, on the tick clock."""
    true_total = origin_us * 1000 + true_ns
    true_tick = (true_total // 1000) & TICKS
    us = ((press["t_us"] - true_tick + (1 << 29)) & TICKS) - (1 << 29)
    return us * 1000 + press["t_ns"] - true_total % 1000


def _press_errors(origin_us):
    text = timeline(
        {"at_us": 50000.321, "press": 3},
        {"at_us": 250000, "release": 3},
        {"at_us": 400000.777, "press": 6},
    )
    lines, _ = _run(text, bounce="none", ticks_origin_us=origin_us)
    presses = events(lines, "press")
    return [
        _stamp_error_ns(presses[0], 50_000_321, origin_us),
        _stamp_error_ns(presses[1], 400_000_777, origin_us),
    ]


def _within_the_anchor(errors):
    return all(-500 <= e <= 500 + 2 * PERIOD_NS for e in errors)


@pytest.mark.parametrize("call_ns", [10000, 10031, 10500, 10968, 10999, 123457])
@pytest.mark.parametrize("origin_us", [0, (1 << 30) - 300])
def test_press_stamps_are_on_the_tick_clock(monkeypatch, call_ns, origin_us):
    monkeypatch.setattr(world.World, "call_ns", call_ns)  # the start's sub-µs phase
    errors = _press_errors(origin_us)
    assert _within_the_anchor(errors), errors


def test_an_anchor_read_around_the_start_call_is_caught(monkeypatch):
    """The anchor issue 16 found on the chip: ticks_us() before and after sm.active(1)."""

    def cpu_anchor(sm_id, mhz):
        w = world.current
        before = w.ticks_us()
        w.state_machines[sm_id].active(1)
        after = w.ticks_us()
        return (before + after) // 2, 0

    monkeypatch.setattr(board, "_start_anchored", cpu_anchor)
    errors = _press_errors(0)
    assert not _within_the_anchor(errors), errors
    assert 9000 < -errors[0] < 11000  # the press looks ~10 µs early


def _crowd_in_a_stalled_loop():
    """P2 then P5 press while the loop is stalled 10 ms by a gc pause; 30 noise spikes on P1."""
    recs = [{"at_us": 1000, "send": {"cmd": "arm"}}, {"at_us": 49900, "gc_us": 10000}]
    for i in range(30):
        recs.append({"at_us": 50100 + 5 * i, "glitch": 1, "width_ns": 1000})
    recs.append({"at_us": 50400, "press": 2})
    recs.append({"at_us": 50430, "press": 5})
    return timeline(*recs)


def test_a_lapped_ring_declares_a_tie(monkeypatch):
    monkeypatch.setattr(board.PioEdgeCapture, "ring_words", 16)
    lines, _ = _run(_crowd_in_a_stalled_loop(), bounce="worn")
    overflow = [e for e in events(lines, "error") if e["code"] == "capture_overflow"]
    (race,) = events(lines, "race")
    assert overflow and race["tie"] and race["margin_ns"] == 0
    assert {2, 5} <= set(race["tied"]) and race["winner"] in race["tied"]
    assert [ev["ev"] for _, ev in lines].index("error") < [ev["ev"] for _, ev in lines].index(
        "race"
    )


def test_the_same_crowd_with_the_full_ring_is_exact():
    lines, _ = _run(_crowd_in_a_stalled_loop(), bounce="worn")
    assert not events(lines, "error")
    (race,) = races(lines)
    assert race["winner"] == 2 and not race["tie"]
    assert abs(race["margin_ns"] - 30000) < 2 * PERIOD_NS


def test_a_channel_that_ran_out_declares_a_tie(monkeypatch):
    monkeypatch.setattr(board.PioEdgeCapture, "load", 12)
    monkeypatch.setattr(board.PioEdgeCapture, "rearm_below", 0)  # never re-armed
    lines, sim = _run(_crowd_in_a_stalled_loop(), bounce="worn")
    assert sim.board.capture.sm.dropped  # the RX FIFO filled once the DMA stopped
    overflow = [e for e in events(lines, "error") if e["code"] == "capture_overflow"]
    (race,) = events(lines, "race")
    assert overflow and race["tie"] and {2, 5} <= set(race["tied"])


def test_rearming_keeps_every_word(monkeypatch):
    monkeypatch.setattr(board.PioEdgeCapture, "load", 60)
    monkeypatch.setattr(board.PioEdgeCapture, "rearm_below", 45)
    recs = []
    t = 1000
    expected = []
    for i in range(12):
        first, second = 1 + i % 6, 1 + (i + 3) % 6
        gap_us = 3 + i
        recs += [
            {"at_us": t, "send": {"cmd": "arm"}},
            {"at_us": t + 50000, "press": first},
            {"at_us": t + 50000 + gap_us, "press": second},
            {"at_us": t + 200000, "release": first},
            {"at_us": t + 200000, "release": second},
            {"at_us": t + 300000, "send": {"cmd": "judge", "correct": True}},
        ]
        expected.append((first, gap_us * 1000))
        t += 400000
    lines, sim = _run(timeline(*recs), bounce="typical")
    restarts = sim.board.capture.restarts
    assert restarts >= 3, restarts
    assert not events(lines, "error")
    got = [(r["winner"], r["margin_ns"]) for r in races(lines)]
    assert [w for w, _ in got] == [w for w, _ in expected]
    assert all(abs(m - e) < 2 * PERIOD_NS for (_, m), (_, e) in zip(got, expected, strict=True))
