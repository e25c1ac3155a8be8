"""The station colours chosen in the box's menu (issue 36): the standard set or Okabe & Ito's
colour-blind-safe set (Wong 2011, Nature Methods 8:441). UNDO on the menu's game step opens them,
ARM / NO change them; the LEDs take them, the device announces them (`hello`, `palette`) and keeps
them across a power cut, byte for byte the same on CPython and the MicroPython unix port."""

import json

import pytest
from helpers import bare_referee, run_raw, timeline
from refbox import pinmap
from refbox.leds import PALETTES, palette_colours, render

OKABE_ITO = [[213, 94, 0], [0, 114, 178], [0, 158, 115], [230, 159, 0], [204, 121, 167],
             [86, 180, 233], [255, 255, 255], [240, 228, 66]]
STANDARD = [list(c) for c in pinmap.PLAYER_COLOURS]


def _switch_and_cut():
    """From the menu: UNDO (station colours), ARM (the next set), YES (back to the game step),
    a power cut, a `hello`; then a quiz started from the menu's YES presses."""
    return timeline(
        {"at_us": 100_000, "control": "undo"},
        {"at_us": 300_000, "control": "arm"},
        {"at_us": 500_000, "control": "yes"},
        {"at_us": 700_000, "power": "off"},
        {"at_us": 900_000, "power": "on"},
        {"at_us": 1_500_000, "send": {"cmd": "hello"}},
        {"at_us": 1_700_000, "send": {"cmd": "new_game", "game": "quiz", "players": 4}},
        {"at_us": 1_900_000, "send": {"cmd": "arm"}},
        {"at_us": 2_300_000, "press": 2},
    )


@pytest.mark.micropython
def test_the_colour_blind_safe_set_is_chosen_in_the_menu_announced_and_kept_on_both():
    runs = {}
    for interpreter in ("cpython", "micropython"):
        runs[interpreter] = [line for _, line in run_raw(
            _switch_and_cut(), players=4, game="menu", flash={}, interpreter=interpreter)]
    assert runs["cpython"] == runs["micropython"]  # byte for byte
    evs = [json.loads(line) for line in runs["cpython"]]
    hellos = [e for e in evs if e["ev"] == "hello"]
    assert [(h["palette"], h["colours"]) for h in hellos] == [
        ("standard", STANDARD), ("okabe_ito", OKABE_ITO), ("okabe_ito", OKABE_ITO)]  # boot,
    # after the power cut (kept), on `hello`
    (palette,) = [e for e in evs if e["ev"] == "palette"]
    assert palette == {"ev": "palette", "palette": "okabe_ito", "text": "colour-blind safe",
                       "colours": OKABE_ITO}
    steps = [(e["step"], e["text"], e["label"]) for e in evs if e["ev"] == "menu"][:4]
    assert steps == [("game", "Quiz", "game"),
                     ("colours", "standard", "station colours"),
                     ("colours", "colour-blind safe", "station colours"),
                     ("game", "Quiz", "game")]
    menu_buttons = [e["buttons"] for e in evs if e["ev"] == "buttons" and e["phase"] == "menu"]
    assert menu_buttons[0][-1] == ["UNDO", "colours"]
    assert menu_buttons[1][-1] == ["UNDO", "back"]


def _menu_referee():
    ref, out = bare_referee(8)
    ref.standard = pinmap.PLAYER_COLOURS
    ref.open_menu()
    return ref, out


def test_the_leds_show_the_chosen_set_in_the_menu_and_in_a_game():
    ref, out = _menu_referee()
    ref.control("undo")
    frame = render(ref, 0, pinmap.PLAYER_COLOURS, 8, 10)
    assert frame[:8] == list(pinmap.PLAYER_COLOURS)  # choosing: every station in full
    ref.control("arm")
    frame = render(ref, 0, pinmap.PLAYER_COLOURS, 8, 10)
    assert [list(c) for c in frame[:8]] == OKABE_ITO
    ref.control("yes")
    ref.command("new_game", {"game": "quiz", "players": 4})
    ref.command("arm", {})
    frame = render(ref, 0, pinmap.PLAYER_COLOURS, 8, 10)
    assert [list(c) for c in frame[:4]] == OKABE_ITO[:4]  # armed: full colour, the chosen set
    assert [name for name, _ in out].count("palette") == 1


def test_no_goes_back_through_the_sets_and_every_set_has_a_colour_a_station():
    ref, out = _menu_referee()
    ref.control("undo")
    ref.control("no")  # from the first set back to the last
    assert ref.palette == PALETTES[-1]
    ref.control("undo")  # UNDO leaves the step as YES does
    assert ref.menu.current_step() == "game"
    for name in PALETTES:
        shown = palette_colours(name, pinmap.PLAYER_COLOURS)
        assert len(shown) >= pinmap.PLAYER_COUNT
        assert (0, 0, 0) not in shown  # a dark pixel says "not in this game"
        assert len(set(shown)) == len(shown)


def test_a_bad_settings_file_is_the_standard_set(tmp_path):
    from refbox import settings
    from refbox.journal import OsFiles

    fs = OsFiles(str(tmp_path) + "/")
    assert settings.load(fs) == "standard"  # no file
    for text in (b"{", b'{"palette": "neon"}', b"[]", b'{"palette": 3}'):
        (tmp_path / settings.PATH).write_bytes(text)
        assert settings.load(fs) == "standard"
    settings.save(fs, "okabe_ito")
    assert settings.load(fs) == "okabe_ito"


@pytest.mark.cpu_model
def test_the_cue_and_the_winners_light_show_the_chosen_set():
    """The cue's station pixels (App.show_cue, lit at the arming's instant before the save) and
    the winner's light at the race's decision (App._light_floor) are in the chosen set's
    colours, as every full frame is: never the pin map's standard set under Okabe & Ito."""
    from helpers import CONTROLS
    from tablebuzz.sim import runner
    from tablebuzz.sim.timeline import parse

    head = {"seed": "1", "game": "menu", "players": 4, "flash": {}, "bounce": "none"}
    lines = []
    sim = runner.Simulation(head, lambda t, line: lines.append((t, line)))
    sim.run(parse(timeline(
        {"at_us": 100_000, "control": "undo"},
        {"at_us": 300_000, "control": "arm"},
        {"at_us": 500_000, "control": "yes"},
        {"at_us": 700_000, "send": {"cmd": "new_game", "game": "quiz", "players": 4}},
        {"at_us": 1_000_000, "send": {"cmd": "arm"}},
        {"at_us": 1_300_000, "press": 2},
        {"at_us": 1_400_000, "release": 2},
    ), 4, CONTROLS))
    evs = [(t, json.loads(line)) for t, line in lines]
    ((armed_ns, armed),) = [(t, e) for t, e in evs if e["ev"] == "armed"]
    ((race_ns, race),) = [(t, e) for t, e in evs if e["ev"] == "race"]
    cue_ns = armed["t_us"] * 1000 + armed["t_ns"]
    dim = [tuple(c * 64 // 255 for c in colour) for colour in OKABE_ITO[:4]]
    frames = [(t, [tuple(px) for px in frame[:4]]) for t, _, frame in sim.world.pixel_frames]
    cue = [frame for t, frame in frames if cue_ns <= t < armed_ns]
    assert cue and cue[0] == dim, cue[:1]  # the cue, before the `armed` line
    floor = [frame for t, frame in frames if t <= race_ns and frame[1] != (0, 0, 0)
             and frame.count((0, 0, 0)) == 3]
    assert floor and floor[-1][1] == dim[1]  # P2's light, in its colour of the set
