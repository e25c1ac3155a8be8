"""Passes that only wait for a game timer's deadline are idle ones (refbox.app.App._rest_until,
Referee.quiet_until), and that changes nothing the room sees.

Differential: the same quiz timelines, with buzz, answer (warning included) and bonus timers
running out, and presses a few µs to ms either side of their deadlines, give the same lines at
the same ns with those passes skipped and with every busy pass working (quiet_until answering
None, as before it existed), at several CPU speeds of the simulator's chip model."""

import json

import pytest
from helpers import CONTROLS, timeline
from hypothesis import given, settings
from hypothesis import strategies as st
from journal_games import GAMES
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse

MS = 1000
OPTIONS = {"buzz_s": 1, "answer_s": 6, "answer_timeout": "wrong", "bonus": 10, "bonus_s": 1}


def _quiz(offsets):
    """Questions: the buzz window runs out (nobody), a press `offsets[0]` µs from the buzz
    window's end, the answer time (6 s, its warning at 1 s left) runs out on the floor holder
    with a press `offsets[1]` µs from it by another player, and a bonus part's time runs out."""
    t, lines = 200 * MS, []
    lines.append({"at_us": t, "send": {"cmd": "arm"}})  # nobody buzzes: dead at ~1 s
    t += 1500 * MS
    lines.append({"at_us": t, "send": {"cmd": "arm"}})
    press = t + 1000 * MS + offsets[0]  # around the buzz window's end (the cue's handling adds)
    lines += [{"at_us": press, "press": 2}, {"at_us": press + 60 * MS, "release": 2}]
    t = press + 1000 * MS
    lines.append({"at_us": t, "send": {"cmd": "arm"}})
    lines += [{"at_us": t + 100 * MS, "press": 1}, {"at_us": t + 160 * MS, "release": 1}]
    late = t + 100 * MS + 6000 * MS + offsets[1]  # around the answer time's end
    lines += [{"at_us": late, "press": 3}, {"at_us": late + 60 * MS, "release": 3}]
    t = late + 7000 * MS
    lines.append({"at_us": t, "send": {"cmd": "arm"}})
    lines += [{"at_us": t + 50 * MS, "press": 4}, {"at_us": t + 110 * MS, "release": 4}]
    lines.append({"at_us": t + 300 * MS, "send": {"cmd": "judge", "correct": True}})
    lines.append({"at_us": t + 400 * MS, "send": {"cmd": "read"}})  # a part read: 1 s runs
    lines.append({"at_us": t + 2000 * MS, "send": {"cmd": "state"}})
    return timeline(*lines)


def _run(text, quiet, **header):
    """(lines, working passes) of the quiz `text` (or the header's game) with or without the
    idle passes."""
    simulate._ensure_paths()
    from refbox.app import App
    from refbox.referee import Referee

    worked = [0]
    work = App._work

    def counted(self, now, n, data):
        worked[0] += 1
        return work(self, now, n, data)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(App, "_work", counted)
        if not quiet:
            m.setattr(Referee, "quiet_until", lambda self: None)
        head = dict({"seed": "5", "game": "quiz", "players": 4, "options": OPTIONS}, **header)
        records = parse(text, head["players"], CONTROLS)
        return simulate.run(head, records, "cpython"), worked[0]


@settings(max_examples=12, deadline=None)
@given(
    offsets=st.tuples(st.integers(-3000, 3000), st.integers(-3000, 3000)),
    scale=st.sampled_from([1, 3]),
)
def test_waiting_for_a_deadline_in_idle_passes_changes_no_line(offsets, scale):
    text = _quiz(offsets)
    quiet, idle = _run(text, True, cpu_scale=scale)
    every, working = _run(text, False, cpu_scale=scale)
    assert quiet == every
    assert idle < working // 4, (idle, working)  # the timers' passes were idle ones
    kinds = [json.loads(line)["ev"] for _, line in quiet]
    # the timers ran out as the scenario means: a dead question, a warning, a bonus part's time
    assert "dead" in kinds and "time_warning" in kinds and "timer" in kinds, kinds


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_scripted_game_gives_the_same_lines(name):
    """A whole game of each kind (Déglingo's round timer and lockouts, Evidence's countdowns,
    which still work every pass, the quiz's demo) with and without the idle passes."""
    head, text = GAMES[name]
    header = dict(head, game=name, options=head.get("options", {}))
    quiet, idle = _run(text, True, **header)
    every, working = _run(text, False, **header)
    assert quiet == every
    assert any('"game_over"' in line for _, line in quiet)
    if name == "deglingo":  # (its timer says when it runs out: Deglingo.next_deadline)
        assert idle < working * 2 // 3, (idle, working)


@pytest.mark.micropython
def test_the_unix_port_skips_the_same_passes():
    text = _quiz((-40, 40))
    head = {"seed": "5", "game": "quiz", "players": 4, "options": OPTIONS}
    records = parse(text, 4, CONTROLS)
    assert simulate.run(head, records, "micropython") == simulate.run(head, records, "cpython")
