"""The quiz through the whole simulated capture path: its timers on the deadline rule
(docs/architecture.md "Deadlines"): buzz_s, answer_s with its warning, answer_timeout, the time
left in `state`, undo of a time-out, the interrupt variant; presses from 5 ms before to 5 ms after
a deadline are decided by their stamps, never by when the loop noticed them; both interpreters
alike. And next in line against the true press order, with contact bounce."""

import json

import pytest
from helpers import CONTROLS, events, run_raw, run_sim, timeline
from hypothesis import given, settings
from hypothesis import strategies as st
from tablebuzz.sim import runner
from tablebuzz.sim.timeline import parse

MS = 1000  # µs
S = 1000 * MS


def _arm_tick_us(result):
    """The tick at which the `arm` line arrived (the buzz window starts there): the cue, the
    `armed` line's stamp (docs/architecture.md "One ordered stream")."""
    return [ev for _, ev in result if ev["ev"] == "armed"][0]["t_us"]


def _buzz_race(offset_us, interpreter="cpython", bounce="typical"):
    options = {"buzz_s": 2, "false_start": "off"}
    probe = run_sim(timeline({"at_us": 100 * MS, "send": {"cmd": "arm"}}), players=3,
                    options=options)
    deadline = _arm_tick_us(probe) + 2 * S
    text = timeline(
        {"at_us": 100 * MS, "send": {"cmd": "arm"}},
        {"at_us": deadline + offset_us, "press": 2},
        {"at_us": deadline + offset_us + 80 * MS, "release": 2},
        {"at_us": deadline + 500 * MS, "send": {"cmd": "state"}},
    )
    return run_sim(text, players=3, options=options, interpreter=interpreter, bounce=bounce)


@pytest.mark.parametrize("offset_us", [-5000, -1000, -200, -1, 1, 200, 1000, 5000])
@pytest.mark.parametrize("bounce", ["typical", "worn"])
def test_a_buzz_stamped_before_the_buzz_window_closes_beats_it(offset_us, bounce):
    result = _buzz_race(offset_us, bounce=bounce)
    if offset_us < 0:
        assert [ev["winner"] for ev in events(result, "race")] == [2]
        assert events(result, "dead") == []
        assert events(result, "state")[-1]["phase"] == "answering"
    else:
        assert events(result, "race") == []
        assert events(result, "dead") == [{"ev": "dead", "question": 1, "reason": "time"}]
        assert events(result, "state")[-1]["question"] == 2  # a timed-out question counts


@pytest.mark.micropython
@pytest.mark.parametrize("offset_us", [-200, 200])
def test_buzz_deadline_alike_on_micropython(offset_us):
    assert _buzz_race(offset_us, interpreter="micropython") == _buzz_race(offset_us)


def _answer(options, *records, players=3):
    """P2 wins at 1 s (its stamp starts the answer timer), then `records`."""
    base = (
        {"at_us": 100 * MS, "send": {"cmd": "arm"}},
        {"at_us": 1 * S, "press": 2},
        {"at_us": 1 * S + 700, "press": 3},
        {"at_us": 1 * S + 80 * MS, "release": 2},
        {"at_us": 1 * S + 80 * MS, "release": 3},
    )
    return timeline(*(base + records)), options


def test_answer_timer_warns_5_s_before_and_the_table_still_judges():
    text, options = _answer({"answer_s": 30}, {"at_us": 11 * S, "send": {"cmd": "state"}},
                            {"at_us": 35 * S, "send": {"cmd": "state"}},
                            {"at_us": 36 * S, "control": "yes"})
    result = run_sim(text, players=3, options=options)
    (start,) = [ev for ev in events(result, "timer") if ev["timer"] == "answer"]
    assert start == {"ev": "timer", "timer": "answer", "player": 2, "ms": 30000}
    (warning,) = [(ns, ev) for ns, ev in result if ev["ev"] == "time_warning"]
    (up,) = [(ns, ev) for ns, ev in result if ev["ev"] == "time_up"]
    press_ns = [ns for ns, ev in result if ev["ev"] == "race"][0] - 4_000_000
    assert 25 * S * 1000 <= warning[0] - press_ns <= 25 * S * 1000 + 6_000_000
    assert 30 * S * 1000 <= up[0] - press_ns <= 30 * S * 1000 + 6_000_000
    assert warning[1]["ms"] == 5000 and up[1] == {"ev": "time_up", "timer": "answer", "player": 2}
    first, second = events(result, "state")
    assert first["timer"] == "answer" and 19_900 <= first["left_ms"] <= 20_000
    assert second["left_ms"] == 0 and second["phase"] == "answering"
    assert events(result, "score")[-1]["scores"] == [0, 1, 0]  # judged after the time was up


def test_answer_timeout_wrong_passes_the_floor_and_times_the_next_player():
    text, options = _answer(
        {"answer_s": 8, "answer_timeout": "wrong", "next_in_line": True, "wrong_points": -5},
        {"at_us": 9 * S + 500 * MS, "control": "yes"},  # after P2's time: refused
        {"at_us": 12 * S, "control": "yes"},
    )
    result = run_sim(text, players=3, options=options)
    judges = events(result, "judge")
    assert [(j["player"], j["correct"], j["points"]) for j in judges] == [(2, False, -5),
                                                                          (3, True, 1)]
    (passed,) = events(result, "next_in_line")
    assert passed["player"] == 3 and abs(passed["behind_ns"] - 700_000) <= 112
    timers = [(ev["timer"], ev["player"]) for ev in events(result, "timer")]
    assert timers == [("answer", 2), ("answer", 3)]
    assert [e["code"] for e in events(result, "error")] == ["not_now"]


def test_a_judgement_arriving_before_the_answer_deadline_counts():
    # the YES line arrives 3 ms before P2's 8 s run out: it judges P2, no time_up
    text, options = _answer({"answer_s": 8, "answer_timeout": "wrong"},
                            {"at_us": 9 * S - 5 * MS, "send": {"cmd": "judge", "correct": True}})
    result = run_sim(text, players=3, options=options)
    assert events(result, "time_up") == [] and events(result, "judge")[0]["player"] == 2


def test_undo_of_a_time_out_gives_the_race_back_untimed():
    options = {"buzz_s": 1}
    text = timeline(
        {"at_us": 100 * MS, "send": {"cmd": "arm"}},
        {"at_us": 2 * S, "send": {"cmd": "undo"}},
        {"at_us": 10 * S, "press": 1},
        {"at_us": 10 * S + 80 * MS, "release": 1},
        {"at_us": 11 * S, "send": {"cmd": "state"}},
    )
    result = run_sim(text, players=2, options=options)
    assert [ev["reason"] for ev in events(result, "dead")] == ["time"]
    undo_state = events(result, "state")[0]
    assert undo_state["phase"] == "racing" and undo_state["timer"] is None
    assert events(result, "race")[0]["winner"] == 1  # 8 s later: no second time-out


def test_no_after_the_buzz_window_closed_is_the_time_out():
    """A NO whose tick is past the buzz deadline, before the loop's horizon reached it: the
    question died of time (it counts), it was not cancelled."""
    from refbox.games.quiz import Quiz

    game = Quiz(2, dict([(o[0], o[1]) for o in Quiz.OPTIONS], buzz_s=1))
    game.now = 1000
    game.record(game.arm_entry())
    game.now = 1000 + 1_000_000 + 1
    assert game.control_entry("no") == ("dead", "time", 1_001_000, 0)
    game.now = 1000 + 999_999
    assert game.control_entry("no") == ("dead", "cancel")


def test_interrupt_variant_scores_interrupts_and_times_from_the_read_mark():
    options = {"interrupt": -5, "wrong_points": 0, "buzz_s": 3}
    text = timeline(
        {"at_us": 100 * MS, "control": "arm"},  # the reading starts, buzzers open
        {"at_us": 1 * S, "press": 1},  # an interrupt
        {"at_us": 1 * S + 80 * MS, "release": 1},
        {"at_us": 2 * S, "control": "no"},  # wrong interrupt: -5, the race reopens untimed
        {"at_us": 5 * S, "control": "arm"},  # the reader finished: 3 s to buzz from here
        {"at_us": 6 * S, "press": 2},
        {"at_us": 6 * S + 80 * MS, "release": 2},
        {"at_us": 7 * S, "control": "no"},  # wrong after the reading: 0
        {"at_us": 7 * S + 200 * MS, "send": {"cmd": "act", "action": "read"}},
        {"at_us": 11 * S, "send": {"cmd": "state"}},  # the run goes on past the time-out
    )
    result = run_sim(text, players=3, options=options)
    judges = events(result, "judge")
    assert [(j["player"], j["points"], j["interrupt"]) for j in judges] == [(1, -5, True),
                                                                           (2, 0, False)]
    assert [ev["question"] for ev in events(result, "read")] == [1]
    (dead,) = [(ns, ev) for ns, ev in result if ev["ev"] == "dead"]
    assert dead[1]["reason"] == "time"
    read_ns = [ns for ns, ev in result if ev["ev"] == "read"][0]
    wrong_ns = [ns for ns, ev in result if ev["ev"] == "judge"][1]
    # after the second wrong answer the reopened race times from that judgement (3 s): the NO's
    # own instant (its contact closed at 7 s, debounced 10 ms), whenever its line went out
    assert 10 * S + 10 * MS <= dead[0] // 1000 <= 10 * S + 16 * MS and read_ns < wrong_ns
    assert [e["code"] for e in events(result, "error")] == ["not_now"]  # read twice


@pytest.mark.micropython
def test_quiz_timers_same_bytes_on_both_interpreters():
    text, options = _answer(
        {"answer_s": 8, "answer_timeout": "wrong", "next_in_line": True, "buzz_s": 4,
         "interrupt": -5},
        {"at_us": 9 * S + 500 * MS, "control": "yes"},
        {"at_us": 30 * S, "send": {"cmd": "state"}},
    )
    cpython = run_raw(text, players=3, options=options)
    assert run_raw(text, players=3, options=options, interpreter="micropython") == cpython
    assert any('"time_up"' in line for _, line in cpython)


# ------------------------------------------------------------------ next in line, end to end
PIO_NS = 112  # two PIO sampling periods: closer presses may share a sample (a tie)


def _at(t_ns):
    """A timeline time in µs with the ns as (at most three) decimals."""
    return float("%d.%03d" % divmod(t_ns, 1000))


@st.composite
def lines_of_presses(draw):
    stations = draw(st.permutations(range(1, 7)))[: draw(st.integers(2, 6))]
    gaps = [draw(st.sampled_from([0, 40, 300, 2500, 900_000, 4_000_000])) for _ in stations]
    t, times = 500_000_000, []
    for gap in gaps:
        t += gap
        times.append(t)
    bounce = draw(st.sampled_from(["typical", "worn", "none"]))
    return list(zip(stations, times, strict=True)), bounce


@settings(max_examples=25)
@given(lines_of_presses())
def test_next_in_line_follows_the_true_press_order_through_the_capture(case):
    presses, bounce = case
    recs = [{"at_us": 100 * MS, "send": {"cmd": "arm"}}]
    for station, t_ns in presses:
        recs.append({"at_us": _at(t_ns), "press": station})
        recs.append({"at_us": _at(t_ns + 150 * MS * 1000), "release": station})
    t = 2 * S
    for _ in presses:
        recs.append({"at_us": t, "send": {"cmd": "judge", "correct": False}})
        t += 100 * MS
    result = run_sim(timeline(*recs), options={"next_in_line": True}, bounce=bounce)
    holders = [events(result, "race")[0]["winner"]]
    holders += [ev["player"] for ev in events(result, "next_in_line")]
    assert sorted(holders) == sorted(s for s, _ in presses)  # everyone who pressed, once
    times = dict(presses)
    for earlier, later in zip(holders, holders[1:], strict=False):
        assert times[earlier] - times[later] < PIO_NS  # never inverted beyond a shared sample
    first = times[holders[0]]
    for ev in events(result, "next_in_line"):
        assert abs(ev["behind_ns"] - (times[ev["player"]] - first)) < PIO_NS


def _slow_flash_buzz(offset_us, page_us):
    """quiz with buzz_s=1 on a journal whose flash takes `page_us` a page: P2 presses
    `offset_us` after (the arm's arrival + 1 s; a None offset: in the middle of the write that
    saves the arm, before the `armed` line). [(ns, event)], the arm's arrival and the end of the
    write (µs)."""
    from tablebuzz.sim.flashfs import FlashFS

    def play(press_at):
        fs = FlashFS()
        fs.page_us = page_us  # a slow flash, as the emulated chip's (tens of ms a save)
        records = [{"at_us": 100 * MS, "send": {"cmd": "arm"}}]
        if press_at is not None:
            records += [{"at_us": press_at, "press": 2},
                        {"at_us": press_at + 80 * MS, "release": 2}]
        records.append({"at_us": 2 * S, "send": {"cmd": "state"}})
        head = {"seed": "1", "game": "quiz", "players": 3, "flash": {},
                "options": {"buzz_s": 1, "false_start": 250}}
        lines = []
        runner.Simulation(head, lambda t, line: lines.append((t, line)), fs=fs).run(
            parse(timeline(*records), 3, CONTROLS))
        return [(t, json.loads(line)) for t, line in lines if line.startswith("{")], fs

    probe, fs = play(None)
    asked = _arm_tick_us(probe)
    # the save of the arm: the flash's first busy spell from the arm on
    cue = [until for start, until in fs.masks if start >= asked * 1000][0] // 1000
    if offset_us is None:
        return play((asked + cue) // 2)[0], asked, cue
    return play(asked + 1 * S + offset_us)[0], asked, cue


@pytest.mark.parametrize("offset_us", [None, -300, 300])
def test_the_buzz_window_runs_from_the_arm_when_a_journal_write_comes_first(offset_us):
    """A decision that opens a race is saved before the `armed` line (no flash write during a
    race), but the race opens at the arm's own instant, its line's arrival, whatever the write
    takes (issue 39: no rule instant is "when the save finished"): a press during the write
    counts (None), and the buzz window closes buzz_s after the arrival."""
    result, asked, cue = _slow_flash_buzz(offset_us, page_us=10 * MS)
    assert cue - asked >= 10 * MS  # the write really came between the arm and the cue
    if offset_us is None or offset_us < 0:
        assert [ev["winner"] for ev in events(result, "race")] == [2]
        assert events(result, "dead") == [] and events(result, "lockout") == []
    else:
        assert events(result, "race") == []
        assert events(result, "dead") == [{"ev": "dead", "question": 1, "reason": "time"}]


@pytest.mark.parametrize("name", ["quiz_demo", "quiz_tournament", "quizbowl_naqt", "buzz_window"])
def test_a_timer_check_the_referee_skips_would_have_found_nothing(name, monkeypatch):
    """Referee._may_fire skips Quiz.tick_entry before the quiz's next deadline
    (Game.next_deadline): every time it does, tick_entry at that horizon returns None; and the
    timers still fire (the run's timer entries are the same as when asked every pass)."""
    from pathlib import Path

    from helpers import example_header
    from refbox.referee import Referee
    from tablebuzz.sim import simulate

    if name == "buzz_window":
        head = {"seed": "1", "game": "quiz", "players": 3,
                "options": {"buzz_s": 2, "answer_s": 10, "false_start": "off"}}
        records = parse(timeline(
            {"at_us": 100 * MS, "send": {"cmd": "arm"}},
            {"at_us": 3 * S, "send": {"cmd": "arm"}},
            {"at_us": 4 * S, "press": 2}, {"at_us": 4 * S + 80 * MS, "release": 2},
            {"at_us": 20 * S, "send": {"cmd": "state"}},
        ), 3, CONTROLS)
    else:
        head, records = example_header(Path(__file__).parents[1] / "examples" / (name + ".jsonl"))
    may_fire = Referee._may_fire
    skipped = []

    def checked(self, game, horizon):
        may = may_fire(self, game, horizon)
        if not may:
            assert game.tick_entry(horizon) is None, (name, horizon)
            skipped.append(horizon)
        return may

    monkeypatch.setattr(Referee, "_may_fire", checked)
    skipping = simulate.run(dict(head), records, "cpython")
    monkeypatch.setattr(Referee, "_may_fire", lambda self, game, horizon: True)
    asking = simulate.run(dict(head), records, "cpython")
    assert skipped  # (the check ran)
    assert skipping == asking  # the same lines at the same times


@pytest.mark.cpu_model
@pytest.mark.parametrize("arm", ["line", "ARM"])
def test_the_leds_show_the_cue_before_the_pre_race_save_and_collection(arm):
    """The cue is the arming input's instant, and the LEDs show it then, within the pass's own
    work (App.show_cue): every station in full colour before the journal's pre-race write and
    the collection (`_before_race`), which come before the `armed` line (docs/architecture.md
    "Instants the rules name")."""
    from refbox import pinmap
    from tablebuzz.sim.flashfs import FlashFS

    fs = FlashFS()
    fs.page_us = 10 * MS  # a slow flash: the write is long and cannot hide the order
    record = ({"at_us": 100 * MS, "send": {"cmd": "arm"}} if arm == "line"
              else {"at_us": 100 * MS, "control": "arm"})
    head = {"seed": "1", "game": "quiz", "players": 3, "flash": {}}
    lines = []
    sim = runner.Simulation(head, lambda t, line: lines.append((t, line)), fs=fs)
    sim.run(parse(timeline(record, {"at_us": 1 * S, "send": {"cmd": "state"}}), 3, CONTROLS))
    ((armed_ns, armed),) = [(t, json.loads(line)) for t, line in lines if '"armed"' in line]
    cue_ns = armed["t_us"] * 1000 + armed["t_ns"]
    full = [tuple(c * 64 // 255 for c in pinmap.PLAYER_COLOURS[p]) for p in range(3)]
    shown = [t for t, _, frame in sim.world.pixel_frames
             if t >= cue_ns and [tuple(px) for px in frame[:3]] == full]
    write = [start for start, _ in fs.masks if start >= cue_ns][0]
    assert shown and shown[0] < write < armed_ns, (shown[:1], write, armed_ns)


def test_a_line_waiting_for_its_instant_holds_blocking_work_and_wakes_the_loop():
    """An `arm` line read in a pass is queued at its arrival tick and handed over once the
    horizon passes it, the next pass: that pass comes at its instant plus the capture lag (not a
    loop period on), and until then nothing may block the loop (a flash write, a collection, a
    compaction piece would put the cue behind it): App.can_block is False, App.wake_in_us
    counts to the line's instant (docs/architecture.md "Safe moments")."""
    sim = runner.Simulation({"seed": "1", "game": "quiz", "players": 3, "flash": {}},
                            lambda t, line: None)
    sim.run([])
    app = sim.app
    now = app.clock.ticks_us()
    assert app.can_block()
    app.referee.line_at(b'{"cmd":"arm"}', now)
    assert not app.can_block()
    assert app.wake_in_us(now) == app.capture_lag_us + 1


def test_a_reopened_race_shows_its_buzz_window_after_an_answer_time_ran_out():
    """The answer time ran out (`answer_timeout` "judge": the table still judges), the table
    says wrong and the race reopens with its own buzz window: `state` gives that window's time
    left, not the 0 of the answer time that ran out (its `expired` is the last answer's)."""
    text, options = _answer({"answer_s": 5, "buzz_s": 20},
                            {"at_us": 7 * S, "control": "no"},  # after the 5 s: then wrong
                            {"at_us": 9 * S, "send": {"cmd": "state"}})
    result = run_sim(text, players=3, options=options)
    assert [ev["timer"] for ev in events(result, "time_up")] == ["answer"]
    state = events(result, "state")[-1]
    assert state["phase"] == "racing" and state["timer"] == "buzz", state
    assert 17_000 <= state["left_ms"] <= 20_000, state
