"""Names cannot spoof the room's screens (issue 35, docs/security.md): the device refuses a name
holding a bidi control (an embedding or override U+202A-U+202E, an isolate U+2066-U+2069, or
the marks LRM, RLM, ALM) as it refuses other control characters, identically under CPython and
the MicroPython unix port; a name in a right-to-left script is taken as it is. The host checks
the desk's own names by the same rule (refbox.games.quiz.name_fault)."""

import pytest
from helpers import run_sim, timeline
from test_show import browser, open_page, show, wait_text  # noqa: F401 - fixtures

BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
        "\u2069", "\u200e", "\u200f", "\u061c"]
TAKEN = ["Ann", "Zoë", "\u05d3\u05e0\u05d4", "\u0645\u0631\u064a\u0645 7", "Team \U0001f989"]


def _names_timeline(texts):
    return timeline(*[{"at_us": 1000 * (i + 1), "send": {
        "cmd": "act", "action": "name", "player": 1, "text": text, "id": i + 1}}
        for i, text in enumerate(texts)])


@pytest.mark.parametrize("interpreter", [
    "cpython", pytest.param("micropython", marks=pytest.mark.micropython)])
def test_the_device_refuses_bidi_controls_in_names_on_both_interpreters(interpreter):
    texts = ["Ann" + c + "x" for c in BIDI] + ["A\u0007b"] + TAKEN
    result = run_sim(_names_timeline(texts), players=2, interpreter=interpreter)
    answers = {ev["id"]: ev for _, ev in result if ev["ev"] in ("done", "error")}
    for i, text in enumerate(texts):
        ev = answers[i + 1]
        if text in TAKEN:
            assert ev["ev"] == "done", (text, ev)
        else:
            assert ev["ev"] == "error" and ev["code"] == "bad_value", (text, ev)
            assert "bidi" in ev["detail"] or "control" in ev["detail"], ev
    names = [ev["name"] for _, ev in result if ev["ev"] == "name"]
    assert names == TAKEN


def test_the_hosts_check_is_the_devices():
    from refbox.games.quiz import name_fault

    assert all(name_fault("a" + c) for c in BIDI)
    assert not any(name_fault(t) for t in TAKEN)
    assert name_fault("\u2028") is None  # a line separator: shown as a space, no reordering


def test_the_desk_refuses_a_bidi_name_and_every_page_isolates_names(browser, show):  # noqa: F811
    """The desk's new game with an RLO in a name is refused where the host acted, and nothing
    starts; a right-to-left name is shown in a <bdi> on the scoreboard, and between FSI and PDI
    in the overlay's plain-text label."""
    server = show("--sim", "--seed", "2")
    board = browser.new_page()
    desk = browser.new_page()
    overlay = browser.new_page()
    try:
        open_page(board, server.url + "/")
        open_page(desk, server.desk)
        wait_text(board, "#waiting", ["Set-up menu"])
        desk.evaluate("() => send({type: 'new_game', game: 'quiz', players: 2, options: {},"
                      " names: {'1': 'Ann\\u202e 1st', '2': 'Bob'}}, 'new game')")
        wait_text(desk, "#message", ["name of player 1", "bidi"])
        desk.evaluate("() => send({type: 'new_game', game: 'quiz', players: 2, options: {},"
                      " names: {'1': '\\u05d3\\u05e0\\u05d4', '2': 'Bob'}}, 'new game')")
        wait_text(board, "#players", ["\u05d3\u05e0\u05d4"])
        assert board.locator("[data-player='1'] .who bdi").text_content() == "\u05d3\u05e0\u05d4"
        open_page(overlay, server.url + "/overlay")
        desk.evaluate("() => send({type: 'control', name: 'arm'}, 'arm')")
        wait_text(board, "#race", ["BUZZ"])
        desk.evaluate("() => send({type: 'press', player: 1}, 'buzz')")
        wait_text(board, "#race-winner", ["\u05d3\u05e0\u05d4"])
        assert board.locator("#race-winner bdi").text_content() == "\u05d3\u05e0\u05d4"
        overlay.wait_for_function("() => document.querySelector('#winner .name').textContent"
                                  " === 'P1 \\u2068\\u05d3\\u05e0\\u05d4\\u2069'")
    finally:
        for page in (board, desk, overlay):
            page.close()
