"""Control buttons are captured by their edges (issue 19, "Deliver" 2): a press of ARM, YES, NO or
UNDO of 30 ms or more counts during a journal write, a gc or a new game, after a resume, and while
the loop is stalled for up to 500 ms; a bounce or a spike is never a press (refbox.controls)."""

import pytest
from helpers import CONTROLS, run_raw, timeline
from refbox.controls import ControlButtons


def _buttons():
    return ControlButtons(["arm", "yes", "no", "undo"])


def _edges(buttons, records):
    """Feed (control index, closed, tick µs) records; the actions they give, in order."""
    actions = []
    for i, closed, tick in records:
        buttons.edge(i, closed, tick, actions)
    return actions


# ------------------------------------------------------------------ the core, by its edges
def test_a_press_taken_late_keeps_its_edges():
    """A 30 ms press with bounce, all of it inside a 500 ms loop stall: the handlers stamped its
    edges, the loop reads them afterwards and counts one press."""
    buttons = _buttons()
    bounce = [(2, True, 1000), (2, False, 1200), (2, True, 1500), (2, False, 31000)]
    bounce += [(2, True, 31300), (2, False, 31600)]
    actions = _edges(buttons, bounce)
    buttons.poll(501000, actions)
    assert actions == ["no"]
    assert buttons.is_idle()


def test_bounce_and_short_spikes_are_no_press():
    buttons = _buttons()
    actions = _edges(
        buttons, [(0, True, 1000), (0, False, 1050), (0, True, 5000), (0, False, 9000)]
    )
    actions += _edges(buttons, [(0, False, 20000)])  # a spike inside the interrupt latency
    buttons.poll(100000, actions)
    assert actions == []


def test_a_press_inside_a_masked_write_counts_once():
    """Both edges latched while a flash write masked the interrupts: one handler call after it,
    reading the level back as it was. Inside the declared spell: one tap."""
    buttons = _buttons()
    buttons.masked_since(100000)
    buttons.unmasked(146000)
    actions = _edges(buttons, [(1, False, 145900)])  # YES, pressed 110..140 ms, taken at 145.9
    buttons.poll(147000, actions)
    assert actions == ["yes"] and buttons.latched == 1


def test_an_undo_tap_inside_a_masked_write_is_an_undo():
    buttons = _buttons()
    buttons.masked_since(100000)
    buttons.unmasked(146000)
    actions = _edges(buttons, [(3, False, 145900)])
    assert actions == ["undo"]


def test_a_release_bounce_at_the_start_of_a_write_is_no_press():
    """The contact opened 3 ms before the write began: a bounce merged inside the write is the
    release settling, not a second press."""
    buttons = _buttons()
    actions = _edges(buttons, [(0, True, 0), (0, False, 97000)])
    buttons.poll(97500, actions)
    buttons.masked_since(100000)
    buttons.unmasked(146000)
    actions += _edges(buttons, [(0, False, 145900)])
    buttons.poll(150000, actions)
    assert actions == ["arm"]


def test_the_same_record_outside_a_write_is_no_press():
    buttons = _buttons()
    buttons.masked_since(100000)
    buttons.unmasked(146000)
    actions = _edges(buttons, [(1, False, 200000)])
    assert actions == []


def test_lost_edges_are_resynced_from_the_levels():
    buttons = _buttons()
    actions = []
    buttons.resync(0b1110, 5000, actions)  # ARM reads closed
    buttons.poll(16000, actions)
    assert actions == ["arm"]


def test_held_at_boot_is_spent():
    buttons = _buttons()
    buttons.held_at_boot(0b0111)  # UNDO held at power-up (safe boot)
    actions = _edges(buttons, [(3, False, 50000)])
    buttons.poll(100000, actions)
    assert actions == []


@pytest.mark.parametrize("boot_tick", [400000, 13700000])  # a fresh boot, a resumed clock
def test_an_arm_held_at_boot_gives_no_repeats(boot_tick):
    """Soak night 16: ARM held while the board came up after a power cut. Its repeats ran from
    tick 0, and a resumed game's clock goes on from its last save (13.7 s here): 320 ARM
    repeats at once, 320 Diddly entries, and the loop busy for seconds encoding them."""
    buttons = _buttons()
    buttons.held_at_boot(0b1110)  # ARM down
    actions = []
    buttons.poll(boot_tick, actions)
    buttons.poll(boot_tick + 2000000, actions)  # held on for 2 s: still spent
    actions += _edges(buttons, [(0, False, boot_tick + 2100000)])
    buttons.poll(boot_tick + 2200000, actions)
    assert actions == []
    actions += _edges(buttons, [(0, True, boot_tick + 3000000)])  # the next press repeats
    buttons.poll(boot_tick + 3000000 + 600000, actions)
    assert actions == ["arm", "arm:repeat", "arm:repeat"]


# ------------------------------------------------------------------ through the simulator
def _quiz_with_arm_and_no(start_us, count, hold_ms, gap_us=200000):
    """A quiz question, then `count` ARM / NO (cancel) pairs: each ARM must give `armed`, each NO
    `dead`."""
    recs = [
        {"at_us": 100000, "control": "arm"},
        {"at_us": 300000, "press": 3},
        {"at_us": 400000, "release": 3},
        {"at_us": 600000, "control": "yes"},
    ]
    t = start_us
    for _ in range(count):
        recs.append({"at_us": t, "control": "arm", "hold_ms": hold_ms})
        t += gap_us
        recs.append({"at_us": t, "control": "no", "hold_ms": hold_ms})
        t += gap_us
    return recs


def _count(lines, ev):
    return sum(1 for _, line in lines if line.startswith('{"ev":"%s"' % ev))


@pytest.mark.parametrize(
    "interpreter", ["cpython", pytest.param("micropython", marks=pytest.mark.micropython)]
)
def test_no_control_lost_after_a_power_cut(interpreter):
    """The issue's night: a 6-player quiz, a power cut, then 19 ARM and 19 NO presses of 120 ms."""
    recs = _quiz_with_arm_and_no(2500000, 19, 120, gap_us=400000)
    recs += [{"at_us": 1000000, "power": "off"}, {"at_us": 1500000, "power": "on"}]
    lines = run_raw(timeline(*recs), flash={}, interpreter=interpreter)
    assert _count(lines, "resume") == 1
    assert _count(lines, "armed") == 1 + 19 and _count(lines, "dead") == 19


@pytest.mark.parametrize(
    "interpreter", ["cpython", pytest.param("micropython", marks=pytest.mark.micropython)]
)
def test_no_control_lost_in_a_stalled_loop(interpreter):
    """30 ms presses while the loop is held 500 ms (a gc pause: hard IRQs still run)."""
    recs = _quiz_with_arm_and_no(1000000, 6, 30, gap_us=700000)
    for k in range(12):  # each press (and its release) wholly inside a stall of its own
        recs.append({"at_us": 1000000 + k * 700000 - 100000, "gc_us": 500000})
    lines = run_raw(timeline(*recs), interpreter=interpreter)
    assert _count(lines, "armed") == 1 + 6 and _count(lines, "dead") == 6


def _long_writes(recs):
    """(start ns, end ns) of the simulated flash's sector erases (45 ms) in a run of `recs`."""
    from tablebuzz.sim import simulate

    simulate._ensure_paths()
    from tablebuzz.sim import runner
    from tablebuzz.sim.timeline import parse

    head = {"seed": "1", "game": "quiz", "players": 6, "options": {}, "flash": {}}
    sim = runner.Simulation(head, lambda t, line: None)
    sim.run(parse(timeline(*recs), 6, CONTROLS))
    return [(s, e) for s, e in sim.fs.masks if e - s > 30000000]


def test_a_press_made_wholly_inside_a_journal_write_counts():
    """A NO of 30 ms pressed and let go inside a 45 ms sector erase (every interrupt masked, the
    loop stopped): its edges stay latched and it still cancels the question."""
    recs = _quiz_with_arm_and_no(1000000, 30, 30)
    writes = _long_writes(recs)
    assert writes, "no sector erase in this session: make it longer"
    start_ns, end_ns = writes[0]
    t_us = start_ns / 1000 + 5000
    assert (t_us + 30000) * 1000 < end_ns
    # the first erase is the save before a race opens: the NO lands while the race is armed
    later = [r for r in recs if r["at_us"] > t_us and r.get("control") == "no"][0]
    recs.remove(later)
    recs.append({"at_us": t_us, "control": "no", "hold_ms": 30})
    for interpreter in ("cpython",):
        lines = run_raw(timeline(*recs), flash={}, interpreter=interpreter)
        assert _count(lines, "dead") == 30
