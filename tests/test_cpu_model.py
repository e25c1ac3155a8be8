"""The simulator's CPU model (tablebuzz.sim.cost): the chip's speed, within ±30% of the emulated
RP2040, lines at their modelled time within a pass, and the same bytes on both interpreters."""

import json
import re
import sys
from pathlib import Path

import pytest
from helpers import events, run_raw, run_sim, timeline

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import bench_cpu_model  # noqa: E402

pytestmark = pytest.mark.cpu_model
MS = 1000

# A figure the chip gave once (one race of its kind) is printed by the bench, not checked: where
# MicroPython's automatic collection falls is all-or-nothing for one race (17 ms), and the
# model's collection lands in the single spike_window race where the chip's did not.
def test_every_latency_figure_predicts_the_emulated_chip_within_30_percent():
    rows = bench_cpu_model.compare()
    checked = set()
    for key, chip, sim in rows:
        if len(chip) < 2:
            continue
        ratio = bench_cpu_model.typical(key, sim) / bench_cpu_model.typical(key, chip)
        assert abs(ratio - 1) <= 0.30, (key, bench_cpu_model.typical(key, chip),
                                        bench_cpu_model.typical(key, sim))
        checked.add(key)
    for key in ("race line, 1 press", "race line, 2 presses", "race line, 6 presses",
                "race line, 8 presses", "race line, noise bursts",
                "race line, noise bursts x4", "judge -> judge", "arm -> armed"):
        # (one new_game in the run: printed by the bench, not checked)
        assert key in checked


# Issue 20's budget for the race line, met on the emulated chip for these race kinds
# (bench/README.md "bench_chip_latency.py": medians 2.8 / 3.1 / 3.1 / 3.4 / 3.6 / 3.5 / 4.0 / 3.1
# ms for 1 / 2 / 4 / 6 / 8 presses, a press inside noise bursts on two and on four other
# stations, and a press that bounces 64 edges).
# Clean edges, as the emulator drives them: a bouncing contact is confirmed only once closed
# 1 ms in all and as long as it was open (refbox.debounce), a wait the contact sets, not the
# firmware's speed.
@pytest.mark.parametrize("stations", [1, 2, 4, 6, 8, "noise bursts", "noise bursts x4", "bounce"])
def test_the_modelled_race_line_leaves_within_5_ms_of_the_first_press(stations):
    records = [{"at_us": 100 * MS, "send": {"cmd": "arm"}}]
    if stations == "bounce":  # 64 edges on the press: 32 closures of 2 µs every 5 µs, then held
        for i in range(32):
            records.append({"at_us": 400 * MS + 5 * i, "press": 1})
            records.append({"at_us": 400 * MS + 5 * i + 2, "release": 1})
        records.append({"at_us": 400 * MS + 160, "press": 1})
        records.append({"at_us": 500 * MS, "release": 1})
    elif stations in ("noise bursts", "noise bursts x4"):  # 32 closures of 2 µs every 5 µs
        records.append({"at_us": 400 * MS, "press": 1})  # on two (four) other stations
        records.append({"at_us": 500 * MS, "release": 1})
        starts = ((2, 400 * MS - 60), (3, 400 * MS - 20), (4, 400 * MS - 90), (5, 400 * MS - 5))
        for station, start in starts[: 4 if stations.endswith("x4") else 2]:
            for i in range(32):
                records.append({"at_us": start + 5 * i, "press": station})
                records.append({"at_us": start + 5 * i + 2, "release": station})
    else:
        for i in range(stations):
            records.append({"at_us": 400 * MS + 7 * i, "press": i + 1})
            records.append({"at_us": 500 * MS, "release": i + 1})
    records.sort(key=lambda r: r["at_us"])
    result = run_sim(timeline(*records), players=8, flash={}, bounce="none")
    race = [(ns, ev) for ns, ev in result if ev["ev"] == "race"]
    assert len(race) == 1 and race[0][1]["winner"] == 1
    assert race[0][0] - 400 * MS * 1000 <= 5 * MS * 1000


def test_a_press_during_a_long_pass_keeps_its_stamp_and_waits_for_the_next_pass():
    """The `judge` pass takes tens of ms on the chip (its Python and the journal): a press in
    it (a false start: the next question is not armed) is captured at once (the PIO and DMA
    run), stamped at its edge, and handled after it."""
    base = (
        {"at_us": 100 * MS, "send": {"cmd": "arm"}},
        {"at_us": 400 * MS, "press": 1},
        {"at_us": 500 * MS, "release": 1},
        {"at_us": 600 * MS, "send": {"cmd": "judge", "correct": True}},
        {"at_us": 610 * MS, "press": 2},
        {"at_us": 700 * MS, "release": 2},
    )
    modelled = run_sim(timeline(*base), flash={})
    free = run_sim(timeline(*base), flash={}, cpu="off")
    for ev in [ev for _, ev in modelled + free if ev["ev"] == "armed"]:
        del ev["t_us"], ev["t_ns"]  # an `arm` line's cue: the tick the loop read the line
    assert [ev for _, ev in modelled] == [ev for _, ev in free]  # decisions from stamps
    judged = [ns for ns, ev in modelled if ev["ev"] == "judge"][0]
    assert judged - 600 * MS * 1000 > 20 * MS * 1000  # the judgement's work is charged
    press = [(ns, ev) for ns, ev in modelled if ev["ev"] == "press" and ev["player"] == 2][0]
    assert press[1]["t_us"] == 610 * MS
    assert press[0] > judged


def test_the_model_off_is_the_zero_cost_simulator():
    text = timeline({"at_us": 100 * MS, "send": {"cmd": "arm"}}, {"at_us": 400 * MS, "press": 3})
    free = run_sim(text, cpu="off")
    race = [ns for ns, ev in free if ev["ev"] == "race"][0]
    assert race - 400 * MS * 1000 < 5 * MS * 1000
    modelled = run_sim(text)
    assert [ns for ns, ev in modelled if ev["ev"] == "race"][0] > race
    assert events(free, "race") == events(modelled, "race")


def test_a_power_cut_inside_a_pass_stops_the_lines_there():
    """The cut falls while the `judge` pass is still working: nothing of it reaches the host.
    The simulated cut stops the pass at its next visible act: the judgement's first line, which
    waits for the journal's save (and its LED frame for the lines: App._show). So the board
    resumes after the save, the judgement in its log: the `resume` line gives the host what it
    had not seen (a cut inside the save itself: tests/test_power_cut_window.py)."""
    text = timeline(
        {"at_us": 100 * MS, "send": {"cmd": "arm"}},
        {"at_us": 400 * MS, "press": 1},
        {"at_us": 500 * MS, "release": 1},
        {"at_us": 600 * MS, "send": {"cmd": "judge", "correct": True}},
        {"at_us": 610 * MS, "power": "off"},
        {"at_us": 650 * MS, "power": "on"},
    )
    result = run_sim(text, flash={})
    before = [ev for ns, ev in result if ns < 610 * MS * 1000]
    assert "judge" not in [ev["ev"] for ev in before]
    resume = events(result, "resume")
    assert len(resume) == 1 and resume[0]["reopened"] is False
    state = events(result, "state")[-1]
    assert state["phase"] == "ready" and state["scores"] == [1] + [0] * 5


@pytest.mark.micropython
def test_the_modelled_chip_gives_the_same_bytes_on_micropython():
    text = (bench_cpu_model.DATA / "latency_a.sim.jsonl").read_text()
    head = {"seed": "1", "bounce": "none", "flash": {}, "players": 8}
    cpython = run_raw(text, interpreter="cpython", **head)
    micropython = run_raw(text, interpreter="micropython", **head)
    assert cpython == micropython
    assert any(json.loads(line)["ev"] == "race" for _, line in cpython)


@pytest.mark.parametrize("name", ["quiz_demo", "quiz_tournament", "difference_6p", "evidence_4p",
                                  "redblack_6p", "deglingo_4p", "diddly_6p"])
def test_the_model_moves_times_never_decisions_in_the_example_games(name):
    """The example games give the same lines on the modelled chip as with free Python; only
    `press` lines of equal stamps may come in another order (they come as accepted: the stamps
    give the true order, docs/protocol.md), and `buttons` prompts (sent when a pass finds the
    controls' meaning changed: which pass that is follows the loop's timing), and the cue of an
    `arm` line (`armed` t_us: the tick the loop read the line)."""
    from tablebuzz.sim.timeline import read_setup

    path = Path(__file__).resolve().parents[1] / "examples" / (name + ".jsonl")
    text = path.read_text()
    setup = read_setup(text)
    head = {"seed": setup.get("seed", "1"), "game": setup.get("game", "quiz"),
            "options": setup.get("options", {})}
    players = setup.get("players", 6)
    runs = [[re.sub(r',"t_us":\d+,"t_ns":\d+}$', "}", line) if '"ev":"armed"' in line else line
             for _, line in run_raw(text, players=players, cpu=cpu, **head)]
            for cpu in ("on", "off")]
    for lines in runs:
        assert any('"ev":"press"' in line for line in lines)
    modelled, free = runs
    def decisions(lines):
        return [x for x in lines if '"ev":"press"' not in x and '"ev":"buttons"' not in x]

    assert decisions(modelled) == decisions(free)
    assert sorted(modelled) == sorted(free)
