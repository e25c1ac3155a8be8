"""One vocabulary (issue 21): every option value of every game reads the same on the board's side
(the `menu` events its menu sends as it steps through every value, the firmware's option_text)
and on the host's side (tablebuzz.views.describe, the event log's words, the desk's form)."""

import json

import pytest
from helpers import run_raw, timeline
from refbox.games import CATALOG, GAME_ORDER, game_class
from tablebuzz.views import describe, eventlog


def _menu_walk(game):
    """Commands that walk the set-up menu through every value of every option of `game`, ending
    before the last YES (which would start it)."""
    cls = game_class(game)
    sends = [{"cmd": "menu"}]
    sends += [{"cmd": "control", "name": "arm"}] * GAME_ORDER.index(game)
    sends += [{"cmd": "control", "name": "yes"}] * 2  # the game, then the players
    for spec in cls.OPTIONS:
        if spec[3]:  # options the menu offers (teams: the host's only)
            sends += [{"cmd": "control", "name": "arm"}] * len(spec[3])
            sends.append({"cmd": "control", "name": "yes"})
    return sends[:-1]


@pytest.mark.parametrize("game", GAME_ORDER)
@pytest.mark.parametrize(
    "interpreter", ["cpython", pytest.param("micropython", marks=pytest.mark.micropython)]
)
def test_the_board_and_the_host_say_every_option_value_alike(game, interpreter):
    sends = _menu_walk(game)
    recs = [{"at_us": 100000 + 20000 * i, "send": cmd} for i, cmd in enumerate(sends)]
    lines = run_raw(timeline(*recs), interpreter=interpreter)
    menus = [json.loads(line) for _, line in lines if line.startswith('{"ev":"menu"')]
    seen = {}
    for ev in menus:
        if ev["game"] == game and ev["step"] not in ("game", "players"):
            seen[(ev["step"], ev["value"])] = (ev["label"], ev["text"])
            assert eventlog.menu_text(ev) == "%s: %s" % (ev["label"], ev["text"])
    specs = {s["name"]: s for s in describe.game_specs(8)}[game]["options"]
    offered = [(o["name"], c) for o in specs for c in o["choices"] if game_class(game).OPTIONS]
    checked = 0
    for name, choice in offered:
        value = choice["value"]
        shown = ("on" if value else "off") if isinstance(value, bool) else str(value)
        if (name, shown) in seen:  # the menu's `value` is its text form
            label, text = seen[(name, shown)]
            assert (label, text) == (describe.option_label(game, name), choice["text"])
            assert eventlog.option_text(name, choice["value"], game) == "%s: %s" % (label, text)
            checked += 1
    menu_values = sum(len(spec[3]) for spec in game_class(game).OPTIONS)
    assert checked == menu_values and menu_values == len(seen)


@pytest.mark.parametrize("game", GAME_ORDER)
def test_every_value_an_option_takes_has_the_firmware_s_words(game):
    """Beyond the menu's choices: the range ends, 0 and the special words of every option."""
    cls = game_class(game)
    for option in describe.game_specs(8)[GAME_ORDER.index(game)]["options"]:
        name = option["name"]
        values = [c["value"] for c in option["choices"]] + [w["value"] for w in
                                                            option.get("words", [])]
        if "low" in option:
            values += [option["low"], option["high"]] + (
                [0] if option["low"] <= 0 <= option["high"] else [])
        for value in values:
            assert eventlog.option_text(name, value, game) == "%s: %s" % (
                cls.option_label(name), cls.option_text(name, value))
        assert option["label"] == cls.option_label(name)
        assert option["unit"] == cls.UNITS.get(name, "")
        assert option["zero"] == cls.ZERO.get(name, "")


def test_the_host_keeps_no_word_tables_of_its_own():
    for name in ("OPTION_UNITS", "ZERO_MEANS", "OPTION_LABELS"):
        assert not hasattr(eventlog, name)
    assert [s["name"] for s in describe.game_specs(6)] == [entry[0] for entry in CATALOG]
