"""The interactive simulator (tablebuzz.views.tui.simulator) driven through textual's Pilot.

The app runs with a fake wall clock: the simulated world moves only when a test moves the clock,
and keys are stamped with the clock's current time, so every run gives the same events. One test
uses the real clock and the real key timestamps (textual's `Message.time`).
"""

import asyncio
import json

import pytest
from refbox import pinmap
from tablebuzz.views.eventlog import describe
from tablebuzz.views.tui.simulator import SimulatorApp

HEADER = {
    "seed": "1",
    "game": "quiz",
    "players": 6,
    "options": {},
    "capture": "pio",
    "pixels": "pio",
    "bounce": "typical",
    "ticks_origin_us": 0,
}


class FakeClock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def make_app(options=None, key_time=None):
    header = dict(HEADER, options=options or {})
    clock = FakeClock()
    return SimulatorApp(header, clock=clock, key_time=key_time), clock


async def advance(pilot, clock, seconds):
    """Move the wall clock; the app's timer would do the pump, but do it here to be exact."""
    clock.t += seconds
    pilot.app.pump()
    await pilot.pause()


def screen_text(app):
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def races(app):
    return [line for line in app.log_lines if "race:" in line or "RACE" in line]


OFF = ["off"] * (pinmap.PLAYER_COUNT - 6)  # the stations a 6-player game leaves dark


def levels(app):
    return [app.query_one("#buzzer%d" % (i + 1)).level for i in range(app.stations)]


def check_leds_match_frame(app):
    """Each station widget shows the newest frame the firmware wrote."""
    frame = app.world.pixel_frames[-1][2]
    for i in range(app.stations):
        buzzer = app.query_one("#buzzer%d" % (i + 1))
        assert buzzer.rgb == app.display_rgb(tuple(frame[i]))


def run(coro):
    asyncio.run(coro)


def test_arm_race_judge():
    async def scenario():
        app, clock = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await advance(pilot, clock, 0.1)
            assert levels(app) == ["dim"] * 6 + OFF
            await pilot.press("a")
            await advance(pilot, clock, 0.3)
            assert any("armed: P1 P2 P3 P4 P5 P6" in line for line in app.log_lines)
            assert levels(app) == ["full"] * 6 + OFF
            check_leds_match_frame(app)

            await pilot.press("3")
            await advance(pilot, clock, 0.05)
            assert app.query_one("#buzzer3").pressed  # still held (120 ms)
            await advance(pilot, clock, 0.3)
            assert not app.query_one("#buzzer3").pressed
            assert races(app) and "P3" in races(app)[-1]
            assert levels(app) == ["off", "off", "full", "off", "off", "off"] + OFF
            check_leds_match_frame(app)
            text = screen_text(app)
            assert "RACE" in text and "P3 first" in text
            assert "P3 answers" in text

            await pilot.press("y")
            await advance(pilot, clock, 0.3)
            assert app.scores == [0, 0, 1, 0, 0, 0]
            assert "P3 1" in screen_text(app)
            assert levels(app) == ["dim"] * 6 + OFF  # next question: read it
            check_leds_match_frame(app)

    run(scenario())


def test_two_keys_at_once_tie_is_drawn_by_the_device():
    async def scenario():
        app, clock = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("a")
            await advance(pilot, clock, 0.3)
            await pilot.press("2", "5")  # both stamped at the same instant: one PIO sample
            await advance(pilot, clock, 0.3)
            race = races(app)[-1]
            assert "tie P2 and P5, the draw gives the floor to P" in race
            winner = int(race.rsplit("P", 1)[1])
            assert winner in (2, 5)
            assert "tie P2 and P5" in screen_text(app)
            # the drawn winner alternates colour / white on the table: the loop keeps running
            await advance(pilot, clock, 1.0)
            expected = ["off"] * 6 + OFF
            expected[winner - 1] = "tie"
            assert levels(app) == expected

    run(scenario())


def test_two_keys_300ns_apart_are_ordered_with_the_margin():
    stamps = iter([0.0, 300e-9])

    async def scenario():
        app, clock = make_app(key_time=lambda event: clock.t + next(stamps, 0.0))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("a")
            await advance(pilot, clock, 0.3)
            stamps_for_race = iter([0.0, 300e-9])
            app._key_time = lambda event: clock.t + next(stamps_for_race)
            await pilot.press("5", "2")
            await advance(pilot, clock, 0.3)
            assert races(app)[-1].endswith("P5 first (nobody else yet)")
            race = [line for line in app.log_lines if "margin:" in line][-1]
            assert "margin: P5 beat P2 by" in race and race.endswith(" µs")
            margin = float(race.split(" by ")[1].split()[0])
            assert 0.245 <= margin <= 0.35  # 300 ns, as the 35 ns PIO sampling measures it

    run(scenario())


def test_held_key_is_ignored_and_false_start_blinks():
    async def scenario():
        app, clock = make_app(options={"false_start": 1000})
        async with app.run_test(size=(80, 24)) as pilot:
            await advance(pilot, clock, 0.1)
            await pilot.press("4")  # before ARM: a false start, locked out for 1 s
            await advance(pilot, clock, 0.6)
            assert any("lockout: P4" in line for line in app.log_lines)
            assert levels(app)[3] == "blink"
            assert "BLINK" in screen_text(app)
            await advance(pilot, clock, 1.0)
            await pilot.press("a")
            await advance(pilot, clock, 0.3)
            await pilot.press("1", "1")  # the second is inside the first's 120 ms hold
            await advance(pilot, clock, 0.3)
            assert sum("press: P1" in line for line in app.log_lines) == 1

    run(scenario())


def test_q_quits():
    async def scenario():
        app, clock = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("q")
            await pilot.pause()
        assert app.return_code == 0

    run(scenario())


def test_real_clock_and_key_timestamps():
    async def scenario():
        app = SimulatorApp(HEADER)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("a")
            await pilot.pause(0.2)
            await pilot.press("2", "5")
            await pilot.pause(0.2)
            assert races(app), app.log_lines
            assert any(word in races(app)[0] for word in (" by ", "tie", "first"))

    run(scenario())


def test_shifted_undo_is_held_and_returns_to_the_menu():
    async def scenario():
        app, clock = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("a")  # the game is under way
            await advance(pilot, clock, 0.3)
            await pilot.press("U")  # UNDO held 2.5 s: the game ends, the menu opens
            await advance(pilot, clock, 1.0)
            assert app.query_one("#control_undo").pressed
            await advance(pilot, clock, 2.0)
            assert not app.query_one("#control_undo").pressed
            shown = [line.split(" s ", 1)[1] for line in app.log_lines]
            assert any(line.startswith("game abandoned") for line in shown)
            assert any("menu: game: Quiz" in line for line in app.log_lines)
            assert "MENU game: Quiz" in screen_text(app)

    run(scenario())


def test_script_replayed_live_gives_the_batch_runners_decisions():
    """The screen steps the firmware loop every millisecond, like the board; the batch runner
    only while a timer runs. The decisions must be the same."""
    from tablebuzz.paths import REPO
    from tablebuzz.sim import runner
    from tablebuzz.sim.timeline import parse

    records = parse(
        (REPO / "examples" / "quiz_demo.jsonl").read_text(), 6, ["arm", "yes", "no", "undo"]
    )
    batch = [json.loads(line) for _, line in runner.run(HEADER, records)]
    expected = [describe(ev) for ev in batch if ev["ev"] not in ("hello", "game")]
    end_s = records[-1]["t"] / 1e9 + 2.0

    async def scenario():
        clock = FakeClock()
        app = SimulatorApp(HEADER, clock=clock, records=records)
        async with app.run_test(size=(80, 24)) as pilot:
            while clock.t - 1000.0 < end_s:
                await advance(pilot, clock, 0.5)
            shown = [line.split(" s ", 1)[1] for line in app.log_lines]
            assert [line for line in shown if not line.startswith(("board:", "new game"))] == (
                expected
            )

    run(scenario())


def test_shifted_digit_holds_the_buzzer_until_shifted_again():
    async def scenario():
        app, clock = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("a")
            await advance(pilot, clock, 0.3)
            await pilot.press("#")  # shift+3: P3 presses and holds the buzzer
            await advance(pilot, clock, 3.0)
            assert app.world.level(app.sim.players[2].gpio) == 0  # still closed after 3 s
            assert races(app) and "P3" in races(app)[0]
            await pilot.press("#")  # shift+3 again: let go, now
            await advance(pilot, clock, 0.1)
            assert app.world.level(app.sim.players[2].gpio) == 1
            (held,) = [rec for _, rec in app.taps if rec.get("press") == 3]
            assert 2.9e9 < held["hold_ns"] < 3.2e9  # the session replays the same hold

    run(scenario())


def test_quiz_teams_names_question_and_line_on_screen():
    from tablebuzz.sim.timeline import parse

    options = {"teams": [[1, 2], [3, 4], [5, 6]], "points": 10, "next_in_line": True,
               "answer_s": 30}
    records = parse(
        "\n".join(
            json.dumps(r)
            for r in (
                {"at_us": 1000, "send": {"cmd": "act", "action": "name", "team": 2,
                                         "text": "Owls"}},
                {"at_us": 2000, "send": {"cmd": "act", "action": "name", "player": 5,
                                         "text": "Ada"}},
                {"at_us": 100000, "send": {"cmd": "arm", "points": 20}},
                {"at_us": 200000, "press": 3},
                {"at_us": 201000, "press": 5},
                {"at_us": 300000, "release": 3},
                {"at_us": 300000, "release": 5},
            )
        ),
        6,
        ["arm", "yes", "no", "undo"],
    )

    async def scenario():
        clock = FakeClock()
        app = SimulatorApp(dict(HEADER, options=options), clock=clock, records=records)
        async with app.run_test(size=(120, 24)) as pilot:
            await advance(pilot, clock, 0.5)
            text = screen_text(app)
            assert "Q1 (20 pts)" in text and "P3 answers" in text and "buzzed after: P5" in text
            assert "answer 30 s left" in text
            assert "Owls 0" in text and "Ada (P5) 0" in text
            # one colour a team: P3 and P4 show team 2's colour, lit only for the floor holder
            assert levels(app)[2] == "full"
            assert app.colours[2] == app.colours[3] == app.pinmap.PLAYER_COLOURS[1]
            await pilot.press("n")
            await advance(pilot, clock, 0.5)
            assert any("next in line: Ada (P5)" in line or "next in line: P5" in line
                       for line in app.log_lines)
            await pilot.press("y")
            await advance(pilot, clock, 0.5)
            assert "team 3 20" in screen_text(app)

    run(scenario())


def test_the_header_says_which_key_does_what_in_every_phase():
    async def scenario():
        app, clock = make_app()
        async with app.run_test(size=(120, 24)) as pilot:
            await advance(pilot, clock, 0.1)
            assert "[a] arm buzzers" in screen_text(app)
            await pilot.press("a")
            await advance(pilot, clock, 0.3)
            # no prompts while the race is open: the board sends none then (the race line
            # first), and the screen shows what the board said
            assert "question 1: buzzers open" in screen_text(app)  # the `armed` line's words
            assert "[y] right" not in screen_text(app)
            await pilot.press("4")
            await advance(pilot, clock, 0.3)
            assert "P4 answers  [y] right +1  [n] wrong" in screen_text(app)  # what each scores

    run(scenario())


def test_question_mark_opens_the_help_with_the_current_button_map():
    async def scenario():
        app, clock = make_app()
        async with app.run_test(size=(100, 40)) as pilot:
            await advance(pilot, clock, 0.1)
            assert "What the controls do now" not in screen_text(app)
            await pilot.press("question_mark")
            await advance(pilot, clock, 0.1)
            text = screen_text(app)
            assert "What the controls do now" in text and "[a] ARM: arm buzzers" in text
            assert "w save the session" in text
            await pilot.press("question_mark")
            await advance(pilot, clock, 0.1)
            assert "What the controls do now" not in screen_text(app)

    run(scenario())


def test_a_saved_session_replays_to_the_same_events(tmp_path):
    """`w` writes the session as a timeline with its set-up line (the menu, the seed): the batch
    simulator replays it to the very same protocol lines, at the same simulated times."""
    from tablebuzz import cli

    path = tmp_path / "session.jsonl"
    header = dict(HEADER, game=None, seed="5eed", display=True)  # as `make sim` runs
    from refbox.games.quiz import Quiz

    start = ["y"] * (2 + len(Quiz.OPTIONS))  # the menu: quiz, 6 players, each option's default
    keys = start + ["a", "2", "6", "n", "3", "y", "A", "y", "u", "q"]

    async def scenario():
        clock = FakeClock()
        app = SimulatorApp(header, clock=clock, save=str(path))
        async with app.run_test(size=(100, 24)) as pilot:
            await advance(pilot, clock, 0.2)
            for key in keys:  # menu: quiz, 6 players, defaults; arm, races, judging, undo
                await pilot.press(key)
                await advance(pilot, clock, 0.37 if key != "A" else 3.0)
            return [("%d.%03d" % (ns // 1000, ns % 1000), ev) for ns, ev in app.device_events]

    app_lines = asyncio.run(scenario())
    assert path.exists()
    text = path.read_text()
    assert '{"setup": {"game": "menu", "players": 6, "seed": "5eed", "display": true}}' in text
    import io
    import sys

    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:
        assert cli.main(["sim", "--script", str(path), "--stamp"]) == 0
    finally:
        sys.stdout = saved
    replayed = [line.split(" ", 1) for line in out.getvalue().splitlines()]
    replayed = [(stamp, json.loads(line)) for stamp, line in replayed]
    # every line the screen saw, at the same simulated µs (the batch run may go on a little)
    assert replayed[: len(app_lines)] == app_lines
    assert any(ev["ev"] == "race" for _, ev in app_lines)
    assert any(ev["ev"] == "game" for _, ev in app_lines)


@pytest.mark.micropython
def test_the_same_screen_on_a_board_behind_a_pty(tmp_path):
    """`tablebuzz tui --port`: the firmware under the unix port behind a pty, reached through the
    connection layer; a/y/n/u are the box's buttons."""
    from helpers import unix_port_board
    from tablebuzz.link.connection import BoardConnection
    from tablebuzz.views.tui.board import BoardApp

    cable = unix_port_board(tmp_path / "ttyBOARD", dict(HEADER, game="quiz", players=3))
    link = BoardConnection(str(cable.path), retry_s=0.1)

    async def scenario():
        app = BoardApp(link, poll_s=0.02)
        async with app.run_test(size=(100, 30)) as pilot:
            for _ in range(100):
                await pilot.pause(0.05)
                if app.table.game is not None:
                    break
            assert app.table.game["name"] == "quiz"  # learnt from the resync's state
            for _ in range(100):  # the board's own prompts, sent after the resync's state
                await pilot.pause(0.05)
                if "ARM arm buzzers" in screen_text(app):
                    break
            assert "ARM arm buzzers" in screen_text(app)
            await pilot.press("a")
            for _ in range(100):
                await pilot.pause(0.05)
                if any("armed: P1 P2 P3" in line for line in app.log_lines):
                    break
            assert any("armed: P1 P2 P3" in line for line in app.log_lines)
            assert levels(app)[:3] == ["full"] * 3
            assert levels(app)[3:] == ["off"] * (app.stations - 3)  # every station is drawn
            assert "board connected" in screen_text(app)

    try:
        run(scenario())
    finally:
        link.close()
        cable.close()


def test_the_display_is_drawn_on_screen_and_o_toggles_it():
    """With the simulated SSD1306 attached, the screen draws its 128 x 64 pixels (braille, 2 x 4
    a character) from the panel's RAM; the text on it reads as the firmware wrote it."""
    from tablebuzz.sim.font8x8 import read_text
    from tablebuzz.views.tui.widgets import braille

    header = dict(HEADER, game=None, display=True)

    async def scenario():
        clock = FakeClock()
        app = SimulatorApp(header, clock=clock)
        async with app.run_test(size=(100, 40)) as pilot:
            await advance(pilot, clock, 0.3)
            oled = app.query_one("#oled")
            assert not oled.display  # a narrow terminal: hidden until o
            await pilot.press("o")
            await advance(pilot, clock, 0.1)
            assert oled.display
            assert oled.picture == braille(app.sim.panel.pixel)
            assert len(oled.picture.splitlines()) == 16
            assert [t for _, _, t in read_text(app.sim.panel.pixel)][:3] == [
                "SET UP       1/6",
                "Game",
                "Quiz",
            ]
            await pilot.press("a")
            await advance(pilot, clock, 0.3)
            assert "Difference" in [t for _, _, t in read_text(app.sim.panel.pixel)]
            assert oled.picture == braille(app.sim.panel.pixel)

    run(scenario())


def test_menu_steps_and_game_names_read_as_words():
    """The quiz menu's steps with their meanings in the header and the log, `?` says UNDO goes
    back one step there; a game's header names it as the README does."""

    async def scenario():
        clock = FakeClock()
        app = SimulatorApp(dict(HEADER, game=None), clock=clock)
        async with app.run_test(size=(100, 24)) as pilot:
            await advance(pilot, clock, 0.2)
            for _ in range(11):  # game, players, format ... sudden death: to time to buzz
                await pilot.press("y")
                await advance(pilot, clock, 0.3)
            assert "MENU time to buzz: no timer" in screen_text(app)
            assert any("menu: interrupt: off  (1 of 3)" in line for line in app.log_lines)
            assert any("menu: time to buzz: no timer" in line for line in app.log_lines)
            assert "UNDO: back one step" in app.help_text()
        clock = FakeClock()
        app = SimulatorApp(dict(HEADER, game="redblack", players=3), clock=clock)
        async with app.run_test(size=(100, 24)) as pilot:
            await advance(pilot, clock, 0.2)
            assert "Red or Black · 3 players" in screen_text(app)
            assert "take back the last decision" in app.help_text()

    run(scenario())


def _processes_with(marker):
    """Pids of the processes whose command line holds `marker`."""
    import os

    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/cmdline" % name, "rb") as f:
                    if marker.encode() in f.read():
                        pids.append(int(name))
            except OSError:
                pass
    return pids


@pytest.mark.parametrize("how", ["tablebuzz", "make"])
def test_closing_the_terminal_ends_the_simulator(how):
    """`tablebuzz sim` or `make sim` in a terminal that is closed (tmux kill-session, a window
    shut): the simulator ends at once, instead of burning a core with no one watching (issue
    21). Under make the hangup may reach make alone: the simulator notices its terminal is
    gone."""
    import os
    import pty
    import select
    import sys
    import time
    import uuid

    from tablebuzz.paths import REPO

    seed = uuid.uuid4().hex[:12]  # marks this test's simulator among the machine's processes
    pid, master = pty.fork()
    if pid == 0:  # the child: the simulator on the pty, its controlling terminal
        os.environ["COLUMNS"], os.environ["LINES"] = "150", "45"
        os.chdir(REPO)
        if how == "make":
            os.execvp("make", ["make", "-s", "sim", "ARGS=--seed %s" % seed,
                               "BIN=%s" % os.path.dirname(sys.executable)])
        os.execv(sys.executable, [sys.executable, "-m", "tablebuzz.cli", "sim", "--seed", seed])
    seen = b""
    deadline = time.monotonic() + 20
    while b"MENU" not in seen and time.monotonic() < deadline:  # the screen is up
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                seen += os.read(master, 65536)
            except OSError:
                break
    assert b"MENU" in seen, seen[-400:]
    assert _processes_with("--seed") and _processes_with(seed)
    os.close(master)  # the terminal goes away: the kernel hangs the session up
    deadline = time.monotonic() + 5
    try:
        while time.monotonic() < deadline:
            os.waitpid(pid, os.WNOHANG)
            if not _processes_with(seed):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the simulator outlived its terminal")
    finally:
        for left in _processes_with(seed):
            os.kill(left, 9)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def test_the_station_colours_chosen_in_the_menu_colour_the_screen():
    """UNDO on the menu's game step, ARM: the colour-blind-safe set; the screen's stations and
    scores take the colours the board announces (its `palette`), not the pin map's."""

    async def scenario():
        header = dict(HEADER, game="menu")
        app = SimulatorApp(header, clock=FakeClock())
        clock = app._clock
        async with app.run_test(size=(100, 30)) as pilot:
            await advance(pilot, clock, 0.3)
            await pilot.press("u")  # the station colours
            await advance(pilot, clock, 0.3)
            await pilot.press("a")  # colour-blind safe
            await advance(pilot, clock, 0.3)
            assert app.table.palette == "okabe_ito"
            assert app.colours[:2] == [(213, 94, 0), (0, 114, 178)]
            await pilot.press("y")  # back to the game step
            for _ in range(40):  # YES through the quiz's steps: the game starts
                if app.phase not in (None, "menu"):
                    break
                await pilot.press("y")
                await advance(pilot, clock, 0.2)
            assert app.phase not in (None, "menu")
            assert app.colours[:2] == [(213, 94, 0), (0, 114, 178)]

    run(scenario())
