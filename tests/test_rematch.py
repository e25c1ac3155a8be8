"""The box alone at the table: remembered settings, rematch, the wiring test in the menu."""

from helpers import events, run_sim, timeline
from refbox import pinmap
from refbox.menu import WIRING_FLASH_US
from tablebuzz.sim import runner
from tablebuzz.sim.timeline import parse

CONTROLS = ["arm", "yes", "no", "undo"]
DIDDLY_4 = {"cmd": "new_game", "game": "diddly", "players": 4, "options": {"columns": 4}}


def _quiz_to_the_end(start_us):
    """Records: one quiz question P1 wins and is judged right, then `end`: game over."""
    t = start_us
    return [
        {"at_us": t, "control": "arm"},
        {"at_us": t + 200000, "press": 1},
        {"at_us": t + 300000, "release": 1},
        {"at_us": t + 400000, "control": "yes"},
        {"at_us": t + 600000, "send": {"cmd": "end"}},
    ]


def test_yes_at_game_over_plays_the_same_game_again():
    new = {"cmd": "new_game", "game": "quiz", "players": 3, "options": {"false_start": 500}}
    records = [{"at_us": 1000, "send": new}] + _quiz_to_the_end(100000)
    records.append({"at_us": 2000000, "control": "yes"})
    result = run_sim(timeline(*records))
    games = events(result, "game")
    assert len(games) == 3  # the boot game, the one sent, the rematch
    first, again = games[1], games[2]
    assert (again["game"], again["players"], again["options"]) == (
        "quiz",
        3,
        first["options"],
    )
    assert again["options"]["false_start"] == 500
    assert again["commit"] != first["commit"]  # a new game: a new seed under a new commitment
    assert not events(result, "menu")


def test_arm_at_game_over_opens_the_menu_on_the_last_settings():
    records = [{"at_us": 1000, "send": DIDDLY_4}, {"at_us": 100000, "send": {"cmd": "end"}}]
    records.append({"at_us": 300000, "control": "arm"})
    result = run_sim(timeline(*records))
    (menu,) = events(result, "menu")
    assert (menu["step"], menu["value"], menu["game"], menu["players"]) == (
        "game",
        "diddly",
        "diddly",
        4,
    )


def test_the_menu_walks_the_remembered_settings_to_the_same_game():
    # held UNDO abandons the game; three YES (game, players, columns) start it again as it was
    records = [{"at_us": 1000, "send": DIDDLY_4}]
    records.append({"at_us": 100000, "control": "undo", "hold_ms": 2500})
    for i in range(3):
        records.append({"at_us": 3000000 + i * 300000, "control": "yes"})
    result = run_sim(timeline(*records))
    menus = events(result, "menu")
    assert [(m["step"], m["value"]) for m in menus] == [
        ("game", "diddly"),
        ("players", "4"),
        ("columns", "4"),
    ]
    games = events(result, "game")
    assert (games[-1]["game"], games[-1]["players"], games[-1]["options"]) == (
        "diddly",
        4,
        {"columns": 4},
    )


def test_choosing_another_game_in_the_menu_starts_from_its_defaults():
    records = [{"at_us": 1000, "send": DIDDLY_4}, {"at_us": 5000, "send": {"cmd": "menu"}}]
    records.append({"at_us": 200000, "control": "arm"})  # diddly -> evidence
    records.append({"at_us": 400000, "control": "no"})  # evidence -> diddly again
    result = run_sim(timeline(*records))
    menus = events(result, "menu")
    assert [m["value"] for m in menus] == ["diddly", "evidence", "diddly"]


def _menu_sim():
    sim = runner.Simulation({"seed": "1"}, lambda t, line: None)
    text = timeline(
        {"at_us": 100000, "press": 5},
        {"at_us": 180000, "release": 5},
    )
    sim.run(parse(text, pinmap.PLAYER_COUNT, CONTROLS))
    return sim


def test_in_the_menu_a_buzzer_lights_its_station_and_beeps():
    sim = _menu_sim()
    world = sim.world
    press_ns = 100000 * 1000
    beeps = [(t, f) for t, f in world.tones if f and t >= press_ns]
    assert beeps and beeps[0][0] - press_ns < 5000000  # within a few loop passes
    full = tuple(c * 64 // 255 for c in pinmap.PLAYER_COLOURS[4])  # board brightness 64/255
    lit = [t for t, _, frame in world.pixel_frames if tuple(frame[4]) == full]
    assert lit and lit[0] - press_ns < 5000000
    # and it goes out again after WIRING_FLASH_US: the last frame shows the quarter colour
    last_t, _, last = world.pixel_frames[-1]
    assert tuple(last[4]) != full and last_t - lit[0] >= WIRING_FLASH_US * 1000 - 2000000
    assert tuple(last[0]) != (0, 0, 0)  # the others keep their menu light
