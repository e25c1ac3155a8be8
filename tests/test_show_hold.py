"""A simulated buzzer held from the desk (issue 36), in a real Chromium against `tablebuzz show
--sim`: the pointer's press and release reach the board at their own instants, so the rules
about held buttons can be tried from the desk. With `trigger: "release"` (jump pads: a press
counts when let go) nothing is decided while P1 holds, however long (a tap would have let go
after 120 ms), and P1 wins the moment the pointer comes up. A buzzer held before ARM is a false
start; held through ARM it does not count until let go and pressed again (README "Rules the
device applies"). Bad `hold` messages get a clear refusal."""

import json
import time

from test_show import browser, on, show, wait_text  # noqa: F401 - fixtures
from test_show_desk import board_and_desk, shoot


def _pointer_down(page, selector):
    box = on(page).locator(selector).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()


def test_a_buzzer_held_with_the_pointer_is_let_go_when_the_pointer_comes_up(browser, show):  # noqa: F811
    server = show("--sim", "--game", "quiz", "--players", "3", "--seed", "4", "--options",
                  json.dumps({"trigger": "release"}))
    with board_and_desk(browser, server) as (board, desk):
        wait_text(desk, "#btn-arm", ["ARM"])
        on(desk).click("#btn-arm")
        wait_text(board, "#race", ["BUZZ"])
        _pointer_down(desk, "#buzz-1")
        desk.wait_for_selector("#buzz-1.held")
        time.sleep(1.0)  # held 1 s: far past a tap's 120 ms
        shoot(desk, "hold-desk-held")
        assert desk.evaluate("() => D.game.phase") == "racing"  # nothing decided while held
        assert desk.evaluate("() => D.game.answering") is None
        desk.mouse.up()  # let go: the release is the press that counts (jump pads)
        wait_text(board, "#race-winner", ["P1"])
        assert not desk.locator("#buzz-1.held").count()


def test_held_before_arm_is_a_false_start_and_held_through_arm_does_not_count(browser, show):  # noqa: F811
    server = show("--sim", "--game", "quiz", "--players", "2", "--seed", "6")
    with board_and_desk(browser, server) as (board, desk):
        wait_text(desk, "#btn-arm", ["ARM"])
        _pointer_down(desk, "#buzz-1")  # P1 presses before the cue and keeps it down
        wait_text(desk, "#log", ["false start"])
        time.sleep(0.5)  # past the 250 ms lockout, still held
        desk.evaluate("() => document.getElementById('btn-arm').click()")  # (the mouse is down)
        wait_text(board, "#race", ["BUZZ"])
        time.sleep(0.5)
        assert desk.evaluate("() => D.game.phase") == "racing"  # the held buzzer did not count
        desk.mouse.up()
        on(desk).click("#buzz-2")  # pressed after the release: P2's press is the first counted
        wait_text(board, "#race-winner", ["P2"])


def test_bad_hold_messages_are_refused_with_a_reason(browser, show):  # noqa: F811
    server = show("--sim", "--game", "quiz", "--players", "2", "--seed", "6")
    with board_and_desk(browser, server) as (_, desk):
        wait_text(desk, "#btn-arm", ["ARM"])
        for msg, words in (({"type": "hold", "player": 9, "down": True}, "player is a station"),
                           ({"type": "hold", "player": 1, "down": "yes"}, "down is true"),
                           ({"type": "hold", "player": 1, "down": False}, "not held")):
            desk.evaluate("(m) => send(m, 'test')", msg)
            wait_text(desk, "#message", [words])
        desk.evaluate("() => send({type: 'hold', player: 1, down: true}, 'test')")
        wait_text(desk, "#message", ["sent"])
        desk.evaluate("() => send({type: 'hold', player: 1, down: true}, 'test')")
        wait_text(desk, "#message", ["down already"])
