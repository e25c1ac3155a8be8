"""Quiz mode through the simulator: timed press scripts in, protocol events out (CPython lane)."""

import subprocess
import sys
from pathlib import Path

from helpers import events, races, run_sim, timeline

REPO = Path(__file__).resolve().parents[1]
TABLEBUZZ = [sys.executable, "-m", "tablebuzz.cli"]


def test_race_winner_margin_and_judging():
    result = run_sim(
        timeline(
            {"at_us": 10000, "control": "arm"},
            {"at_us": 200000, "press": 3},
            {"at_us": 200840, "press": 1},
            {"at_us": 300000, "release": 3},
            {"at_us": 300000, "release": 1},
            {"at_us": 400000, "control": "no"},
            {"at_us": 600000, "press": 1},
            {"at_us": 700000, "release": 1},
            {"at_us": 800000, "control": "yes"},
        )
    )
    decided = races(result)
    assert decided[0]["winner"] == 3 and not decided[0]["tie"]
    assert abs(decided[0]["margin_ns"] - 840000) <= 56  # from the `margin` line
    assert events(result, "lockout") == [
        {"ev": "lockout", "player": 3, "reason": "wrong", "ms": None}
    ]
    assert events(result, "armed")[1]["players"] == [1, 2, 4, 5, 6]
    assert decided[1]["winner"] == 1
    assert events(result, "score")[-1]["scores"] == [1, 0, 0, 0, 0, 0]


def test_winner_is_announced_within_5_ms_of_the_first_press():
    result = run_sim(
        timeline(
            {"at_us": 10000, "control": "arm"},
            {"at_us": 150123.456, "press": 2},
            {"at_us": 150500, "press": 5},
        ),
        bounce="worn",
    )
    ((ns, race),) = [(ns, ev) for ns, ev in result if ev["ev"] == "race"]
    assert race["winner"] == 2
    assert ns - 150123456 <= 5_000_000
    assert abs(races(result)[0]["margin_ns"] - 376544) <= 56


def test_false_start_then_clean_race():
    result = run_sim(
        timeline(
            {"at_us": 5000, "press": 4},  # before the cue
            {"at_us": 50000, "release": 4},
            {"at_us": 100000, "control": "arm"},
            {"at_us": 200000, "press": 4},  # 195 ms after the false start: still locked out
            {"at_us": 210000, "press": 2},
        )
    )
    lockouts = events(result, "lockout")
    assert [(ev["player"], ev["reason"]) for ev in lockouts] == [(4, "false_start")] * 2
    assert events(result, "race")[0]["winner"] == 2


def test_button_held_when_the_race_opens_does_not_count_until_pressed_again():
    result = run_sim(
        timeline(
            {
                "at_us": 1000,
                "send": {
                    "cmd": "new_game",
                    "game": "quiz",
                    "players": 4,
                    "options": {"false_start": "off"},
                },
            },
            {"at_us": 5000, "press": 1},  # held through the cue
            {"at_us": 100000, "send": {"cmd": "arm"}},
            {"at_us": 150000, "press": 3},
            {"at_us": 300000, "release": 1},
        )
    )
    assert events(result, "race")[0]["winner"] == 3


def test_undo_takes_back_scoring_decisions_to_the_start():
    result = run_sim(
        timeline(
            {"at_us": 1000, "control": "arm"},
            {"at_us": 50000, "press": 2},
            {"at_us": 90000, "release": 2},
            {"at_us": 300000, "control": "yes"},
            {"at_us": 600000, "control": "undo"},
            {"at_us": 900000, "control": "undo"},
        )
    )
    assert [ev["scores"][1] for ev in events(result, "score")] == [0, 1, 0]  # start, yes, undo
    errors = events(result, "error")
    assert [e["code"] for e in errors] == ["nothing_to_undo"]


def test_bad_lines_get_errors_and_change_nothing():
    result = run_sim(
        timeline(
            {"at_us": 1000, "send_raw": "{not json"},
            {"at_us": 2000, "send_raw": "x" * 2000},
            {"at_us": 3000, "send": {"cmd": "warp"}},
            {"at_us": 4000, "send": {"cmd": "judge", "correct": True}},
            {"at_us": 5000, "send": {"cmd": "new_game", "game": "chess"}},
            {"at_us": 6000, "send": {"cmd": "new_game", "game": "quiz", "players": 9}},
            {"at_us": 7000, "send": {"cmd": "new_game", "game": "quiz", "options": {"x": 1}}},
            {"at_us": 8000, "send": {"cmd": "state"}},
        )
    )
    codes = [e["code"] for e in events(result, "error")]
    assert codes == [
        "bad_json",
        "line_too_long",
        "unknown_command",
        "not_now",
        "unknown_game",
        "bad_players",
        "unknown_option",
    ]
    assert events(result, "state")[0]["phase"] == "ready"
    assert len(events(result, "game")) == 1


def test_end_reveals_the_committed_seed():
    import hashlib

    result = run_sim(timeline({"at_us": 1000, "send": {"cmd": "end"}}))
    commit = events(result, "game")[0]["commit"]
    seed = events(result, "game_over")[0]["seed"]
    assert hashlib.sha256(b"tablebuzz-seed-v1:" + seed.encode()).hexdigest() == commit


def test_target_ends_the_game_with_a_ranking():
    script = [
        {
            "at_us": 1000,
            "send": {"cmd": "new_game", "game": "quiz", "players": 3, "options": {"target": 2}},
        }
    ]
    t = 10000
    for _ in range(2):
        script += [
            {"at_us": t, "control": "arm"},
            {"at_us": t + 100000, "press": 2},
            {"at_us": t + 150000, "release": 2},
            {"at_us": t + 300000, "control": "yes"},
        ]
        t += 500000
    result = run_sim(timeline(*script))
    over = events(result, "game_over")[-1]
    assert over["ranking"][0] == {"place": 1, "player": 2, "score": 2}
    assert over["unit"] == "points"
    assert [r["place"] for r in over["ranking"]] == [1, 2, 2]


def test_cli_plays_the_demo_and_prints_json_lines():
    proc = subprocess.run(
        TABLEBUZZ + ["sim", "--script", str(REPO / "examples/quiz_demo.jsonl"), "--seed", "1"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if not line.startswith('{"ev":"buttons"')]
    assert lines[0].startswith('{"ev":"hello"') and lines[-1].startswith('{"ev":"game_over"')


def test_cli_reports_timeline_errors_with_line_numbers(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"at_us": 1, "press": 1}\n{"at_us": 2, "press": 9}\n')
    proc = subprocess.run(
        TABLEBUZZ + ["sim", "--script", str(bad)], capture_output=True, text=True
    )
    assert proc.returncode != 0
    assert "line 2" in proc.stderr and "Traceback" not in proc.stderr
    for args in (["--script", str(tmp_path / "missing")], ["--seed", "zz"], ["--players", "1"]):
        proc = subprocess.run(TABLEBUZZ + ["sim"] + args, capture_output=True, text=True)
        assert proc.returncode != 0 and "Traceback" not in proc.stderr, args
        last = proc.stderr.strip().splitlines()[-1]
        assert last.startswith("tablebuzz"), (
            last
        )  # our own line, or argparse's "tablebuzz sim: error"


def test_a_noise_spike_just_before_a_press_does_not_backdate_it():
    result = run_sim(
        timeline(
            {"at_us": 500000, "control": "arm"},
            {"at_us": 799500, "glitch": 2, "width_ns": 500},
            {"at_us": 799900, "press": 1},
            {"at_us": 800000, "press": 2},
        ),
        bounce="none",
    )
    race = races(result)[0]
    assert race["winner"] == 1 and abs(race["margin_ns"] - 100000) <= 112


def test_a_storm_of_noise_spikes_is_no_press():
    storm = [{"at_us": 800000 + 20 * i, "glitch": 3, "width_ns": 2000} for i in range(60)]
    result = run_sim(timeline({"at_us": 500000, "control": "arm"}, *storm), bounce="none")
    assert events(result, "press") == [] and events(result, "race") == []


def test_undo_while_another_player_has_the_floor_gives_it_back():
    result = run_sim(
        timeline(
            {"at_us": 10000, "control": "arm"},
            {"at_us": 100000, "press": 2},
            {"at_us": 150000, "release": 2},
            {"at_us": 300000, "control": "yes"},
            {"at_us": 500000, "control": "arm"},
            {"at_us": 600000, "press": 3},
            {"at_us": 650000, "release": 3},
            {"at_us": 800000, "send": {"cmd": "undo"}},
            {"at_us": 900000, "press": 4},
            {"at_us": 1000000, "send": {"cmd": "judge", "correct": False}},
        )
    )
    state = events(result, "state")[-1]
    assert state["answering"] == 2 and state["phase"] == "answering"
    assert events(result, "margin") == []  # P3's race was taken back with the undo
    last = events(result, "judge")[-1]
    assert last == {"ev": "judge", "player": 2, "correct": False, "points": 0, "interrupt": False,
                    "power": False}


def test_the_judgement_that_ended_the_game_can_be_undone():
    new = {"cmd": "new_game", "game": "quiz", "players": 2, "options": {"target": 1}}
    result = run_sim(
        timeline(
            {"at_us": 1000, "send": new},
            {"at_us": 10000, "control": "arm"},
            {"at_us": 100000, "press": 1},
            {"at_us": 150000, "release": 1},
            {"at_us": 300000, "control": "yes"},
            {"at_us": 600000, "control": "undo"},
            {"at_us": 900000, "send": {"cmd": "end"}},
        )
    )
    import hashlib

    first, final = events(result, "game_over")[-2:]
    assert first["ranking"][0]["player"] == 1
    assert events(result, "state")[-1]["phase"] == "answering"
    assert events(result, "score")[-1]["scores"] == [0, 0]
    # the revealed seed no longer decides anything: tie-breaks re-seeded under a new commitment
    (reseed,) = events(result, "reseed")
    assert final["seed"] != first["seed"]
    assert hashlib.sha256(b"tablebuzz-seed-v1:" + final["seed"].encode()).hexdigest() == (
        reseed["commit"]
    )


def test_unlocks_come_in_player_order_on_both_interpreters():
    from helpers import run_raw

    text = timeline(
        {"at_us": 100000, "press": 2},
        {"at_us": 100000.5, "press": 1},
        {"at_us": 150000, "release": 2},
        {"at_us": 150000, "release": 1},
    )
    lines = run_raw(text, bounce="none")
    unlocks = [line for _, line in lines if '"unlock"' in line]
    assert unlocks == ['{"ev":"unlock","player":1}', '{"ev":"unlock","player":2}']


def test_in_the_menu_every_buzzer_reports_its_presses():
    result = run_sim(
        timeline(
            {"at_us": 1000, "send": {"cmd": "menu"}},
            {"at_us": 100000, "press": 6},
            {"at_us": 200000, "release": 6},
        ),
    )
    assert [ev["player"] for ev in events(result, "press")] == [6]
    assert events(result, "race") == [] and events(result, "lockout") == []


def test_ctrl_c_on_the_console_stops_the_firmware_as_on_the_board():
    from helpers import run_raw

    lines = run_raw(
        timeline(
            {"at_us": 1000, "send": {"cmd": "arm"}},
            {"at_us": 2000, "send_raw": "\u0003"},
            {"at_us": 100000, "press": 1},
        )
    )
    assert lines[-1][1] == "KeyboardInterrupt: "
    assert not [line for _, line in lines if '"ev":"press"' in line]  # nothing runs after it


def test_a_race_after_twenty_quiet_minutes_is_stamped_exactly():
    # no pin changes for longer than ticks_diff's reach (2**29 µs = 8.9 min) before the race
    quiet = 20 * 60 * 10**6
    result = run_sim(
        timeline(
            {"at_us": quiet, "control": "arm"},
            {"at_us": quiet + 500000, "press": 2},
            {"at_us": quiet + 505000, "press": 1},
        ),
        bounce="none",
    )
    (race,) = events(result, "race")
    (margin,) = events(result, "margin")  # P1 pressed after the decision
    assert race["winner"] == 2 and abs(margin["margin_ns"] - 5000000) < 112
    presses = events(result, "press")
    assert abs(presses[0]["t_us"] - (quiet + 500000) % (1 << 30)) <= 2


def test_a_tournament_quiz_with_teams_names_next_in_line_and_sudden_death():
    # examples/quiz_tournament.jsonl, scored by hand from its comments: teams (P1 P2) (P3 P4)
    # (P5 P6), 10 a question, -5 a wrong answer
    from tablebuzz.sim.timeline import read_setup

    text = (REPO / "examples" / "quiz_tournament.jsonl").read_text()
    result = run_sim(text, **read_setup(text))
    names = [(ev["player"], ev["team"], ev["name"]) for ev in events(result, "name")[:4]]
    assert names == [
        (None, 1, "Owls"), (None, 2, "Foxes"), (None, 3, "Hares"), (3, None, "Zo\u00eb")
    ]
    passes = events(result, "next_in_line")
    assert [ev["player"] for ev in passes] == [5, 2]
    assert abs(passes[0]["behind_ns"] - 1_200_000) <= 112 and passes[0]["waiting"] == 1
    assert abs(passes[1]["behind_ns"] - 30_000_000) <= 112 and passes[1]["waiting"] == 0
    assert [ev["reason"] for ev in events(result, "dead")] == ["cancel"]
    assert [ev["points"] for ev in events(result, "question")] == [10, 10, 10, 20, 10, 10]
    assert events(result, "sudden_death") == [{"ev": "sudden_death", "players": [1, 2, 3, 4]}]
    state = events(result, "state")[-1]
    assert state["teams"] == [25, 25, 5] and state["question"] == 5
    (team_ranking,) = events(result, "team_ranking")
    assert [(r["team"], r["score"]) for r in team_ranking["ranking"]] == [(1, 35), (2, 25), (3, 5)]
    over = events(result, "game_over")[-1]
    assert [(r["player"], r["score"]) for r in over["ranking"]] == [
        (1, 40), (4, 20), (5, 10), (3, 5), (2, -5), (6, -5)
    ]
