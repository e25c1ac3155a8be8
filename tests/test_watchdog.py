"""The watchdog (issue 19.6): a loop pass that never returns is reset by the watchdog, and the
game resumes from the journal, with the state of its last save.

The simulator's model (tablebuzz.sim.runner.Simulation): main.py starts machine.WDT(8000) as on
the board (refbox.boot.main), every loop pass feeds it first (as App.run), and the timeline's
{"hang": true} makes the next pass never return. 8 s after that pass's feed the chip resets: as a
power cut and an immediate power-up (flash as a cut leaves it, ticks_us() from 0, main.py
BOOT_NS later). Ctrl-C leaves for the REPL with the watchdog stopped: no reset then.
"""

import json

import pytest
from helpers import CONTROLS, run_raw, timeline
from refbox import boot
from tablebuzz.sim import runner
from tablebuzz.sim.timeline import TimelineError, parse

HANG_US = 1000000

GAME = (
    {"at_us": 100000, "control": "arm"},
    {"at_us": 300000, "press": 2},
    {"at_us": 400000, "release": 2},
    {"at_us": 600000, "control": "yes"},
    {"at_us": 800000, "control": "arm"},
)


def _hung_game():
    return timeline(
        *GAME,
        {"at_us": HANG_US, "hang": True},
        {"at_us": 2000000, "press": 3},  # captured by the PIO, never read: gone with the reset
        {"at_us": 2100000, "release": 3},
        {"at_us": 9500000, "send": {"cmd": "state"}},
    )


def _events(lines):
    return [(ns, json.loads(line)) for ns, line in lines]


def _check_resumed(lines):
    evs = _events(lines)
    hellos = [ns for ns, e in evs if e["ev"] == "hello"]
    assert len(hellos) == 2
    # the hung pass fed it: the loop's next pass, a race being open (the ARM at 0.8 s)
    bite_ns = HANG_US * 1000 + runner.ARMED_LOOP_NS + boot.WATCHDOG_MS * 1000000
    assert hellos[1] == bite_ns + runner.BOOT_NS + 10020  # (main.py to the hello line)
    before = [e for ns, e in evs if ns < hellos[1]]
    after = [e for ns, e in evs if ns >= hellos[1]]
    assert [e["ev"] for e in after[:2]] == ["hello", "resume"]
    scores = [e for e in before if e["ev"] == "score"][-1]["scores"]
    state = [e for e in after if e["ev"] == "state"][-1]
    assert state["scores"] == scores == [0, 1, 0, 0, 0, 0]
    assert state["phase"] == "racing"  # the question armed before the hang, as saved
    assert not [e for e in before if e["ev"] == "press" and e["player"] == 3]
    return evs


def test_a_hung_loop_is_reset_by_the_watchdog_and_the_game_resumes():
    lines = []
    head = {"seed": "1", "game": "quiz", "players": 6, "options": {}, "flash": {}}
    sim = runner.Simulation(head, lambda t, line: lines.append((t, line)))
    sim.run(parse(_hung_game(), 6, CONTROLS))
    _check_resumed(lines)
    assert sim.watchdog_resets == 1
    assert sim.world.watchdog_ms == boot.WATCHDOG_MS  # the new boot started a new one


@pytest.mark.micropython
def test_the_same_reset_and_resume_on_micropython():
    text = _hung_game()
    cpython = run_raw(text, flash={})
    _check_resumed(cpython)
    assert run_raw(text, flash={}, interpreter="micropython") == cpython


def test_an_idle_board_is_never_reset():
    """The simulator skips idle passes; each one feeds the watchdog on the board, so a quiet
    minute (and a loop blocked by a stalled host) resets nothing."""
    text = timeline(
        *GAME,
        {"at_us": 900000, "host": "stall"},
        {"at_us": 1000000, "send": {"cmd": "state"}},
        {"at_us": 5000000, "host": "read"},
        {"at_us": 60000000, "send": {"cmd": "state"}},
    )
    evs = _events(run_raw(text, flash={}))
    assert len([e for _, e in evs if e["ev"] == "hello"]) == 1


def test_ctrl_c_stops_the_watchdog_so_the_repl_is_never_reset():
    lines = []
    head = {"seed": "1", "game": "quiz", "players": 6, "options": {}, "flash": {}}
    sim = runner.Simulation(head, lambda t, line: lines.append((t, line)))
    recs = parse(timeline(*GAME), 6, CONTROLS)
    recs.append({"t": 1000000000, "k": "send_bytes", "hex": "03"})
    recs.append({"t": 1100000000, "k": "hang"})  # (stopped: nothing runs to hang)
    recs.append({"t": 12000000000, "k": "press", "p": 1})
    sim.run(recs)
    assert lines[-1][1] == "KeyboardInterrupt: "
    assert sim.world.watchdog_ms is None and sim.watchdog_resets == 0
    assert sim.world.now >= 12000000000


def test_ctrl_c_reaches_a_loop_hung_in_python():
    recs = parse(timeline(*GAME, {"at_us": HANG_US, "hang": True}), 6, CONTROLS)
    recs.append({"t": 3000000000, "k": "send_bytes", "hex": "03"})
    recs.append({"t": 12000000000, "k": "press", "p": 1})
    lines = []
    head = {"seed": "1", "game": "quiz", "players": 6, "options": {}, "flash": {}}
    sim = runner.Simulation(head, lambda t, line: lines.append((t, line)))
    sim.run(recs)
    assert lines[-1] == (3000000000 + runner.ARMED_LOOP_NS, "KeyboardInterrupt: ")  # next pass
    assert sim.watchdog_resets == 0 and sim.world.watchdog_ms is None


def test_the_timeline_hang_action():
    (rec,) = parse('{"at_us": 5, "hang": true}\n', 6, CONTROLS)
    assert rec["t"] == 5000 and rec["k"] == "hang"
    for bad in ('{"at_us": 5, "hang": 1}', '{"at_us": 5, "hang": false}'):
        with pytest.raises(TimelineError, match="hang"):
            parse(bad + "\n", 6, CONTROLS)
