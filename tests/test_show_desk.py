"""The desk plays what the device says (issue 36), in a real Chromium against `tablebuzz show
--sim`: the New game form takes the game's options, their words and presets from the device
(tablebuzz.views.describe), shows what a preset sets, and sends only what the host changed."""

import os
import tempfile
from pathlib import Path

from test_show import ARTIFACTS, browser, on, open_page, show, wait_text  # noqa: F401 - fixtures

SHOTS = Path(os.environ.get("TABLEBUZZ_SHOTS") or Path(tempfile.gettempdir()) / "tablebuzz-shots")
TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}


def shoot(page, name):
    """`page` at 1920x1080 and at 390x844, saved in SHOTS (then back to the TV's size)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size in (PHONE, TV):
        page.set_viewport_size(size)
        on(page).screenshot(path=str(SHOTS / ("%s-%dx%d.png" % (name, size["width"],
                                                               size["height"]))))


def keep_sent(desk):
    """From now on the desk keeps a copy of every message it sends the host (window.__sent)."""
    desk.evaluate("() => { const send = link.send; window.__sent = [];"
                  " link.send = (m) => { window.__sent.push(JSON.parse(JSON.stringify(m)));"
                  " return send(m); }; }")


def test_the_naqt_preset_chosen_on_the_desk_plays_naqt_s_values(browser, show):  # noqa: F811
    server = show("--sim", "--seed", "5")
    board = browser.new_page()
    desk = browser.new_page()
    try:
        open_page(board, server.url + "/")
        open_page(desk, server.url + "/desk")
        wait_text(board, "#waiting", ["Set-up menu"])
        on(desk).select_option("#ng-game", "quiz")
        desk.fill("#ng-players", "4")
        desk.dispatch_event("#ng-players", "input")
        desk.select_option("#opt-format", "naqt")
        # the preset's values, shown in the fields and said beside the choice (device words)
        assert desk.input_value("#opt-points") == "10"
        assert desk.input_value("#opt-power") == "15"
        assert desk.input_value("#opt-interrupt") == "-5"
        assert desk.is_checked("#opt-sudden_death")
        wait_text(desk, "#opt-format-sets", ["power: 15 points", "bonus part: 10 points"])
        desk.fill("#opt-questions", "24")  # the host's own change wins over the preset
        desk.dispatch_event("#opt-questions", "input")
        desk.select_option("#opt-format", "acf")  # another preset: its values, 24 kept
        assert desk.input_value("#opt-power") == "0"
        assert desk.input_value("#opt-questions") == "24"
        desk.select_option("#opt-format", "naqt")
        assert desk.input_value("#opt-power") == "15"
        shoot(desk, "naqt-desk-form")
        keep_sent(desk)
        desk.click("#ng-start")
        (new_game,) = [m for m in desk.evaluate("() => window.__sent") if m["type"] == "new_game"]
        assert new_game["options"] == {"format": "naqt", "questions": 24}
        wait_text(board, "#subtitle", ["format: naqt"])
        wait_text(desk, "#qz-arm", ["Arm +10"])  # a tossup is worth NAQT's 10
        on(desk).click("#btn-arm")
        wait_text(board, "#race", ["BUZZ"])
        on(desk).click("#buzz-3")
        wait_text(board, "#race-winner", ["P3"])
        on(desk).click("#btn-correct")
        wait_text(board, "[data-player='3'] .score", ["10"])
        wait_text(desk, "#bonus-panel", ["part 3"])  # NAQT's bonus: 3 parts
        shoot(desk, "naqt-desk-bonus")
        shoot(board, "naqt-tv-bonus")
    finally:
        board.close()
        desk.close()


def test_a_team_pub_quiz_is_built_by_picking_and_reads_as_teams(browser, show):  # noqa: F811
    """Teams picked on the desk (how many, then each player's team from a list: no JSON), named
    on the box; the desk shows the team totals, the TV the teams by name, a question later."""
    server = show("--sim", "--seed", "9")
    board = browser.new_page()
    desk = browser.new_page()
    try:
        open_page(board, server.url + "/")
        open_page(desk, server.url + "/desk")
        wait_text(board, "#waiting", ["Set-up menu"])
        on(desk).select_option("#ng-game", "quiz")
        desk.fill("#ng-players", "4")
        desk.dispatch_event("#ng-players", "input")
        for p, name in ((1, "Ann"), (2, "Bob"), (3, "Cy"), (4, "Dee")):
            desk.fill("#name-%d" % p, name)
        desk.select_option("#opt-teams-count", "2")
        assert desk.input_value("#team-of-2") == "1" and desk.input_value("#team-of-3") == "2"
        desk.select_option("#team-of-2", "2")  # Bob joins team 2, Cy team 1
        desk.select_option("#team-of-3", "1")
        wait_text(desk, "#team-picks", ["P1 Ann", "P4 Dee"])
        assert desk.input_value("#opt-teams") == "[[1,3],[2,4]]"
        shoot(desk, "pubquiz-desk-teams")
        desk.click("#ng-start")
        wait_text(desk, "#desk-teams", ["team 1", "P1 Ann", "P3 Cy", "team 2", "P2 Bob"])
        desk.fill("#qz-name", "Owls")
        desk.select_option("#qz-team", "1")
        desk.click("#qz-name-team")
        wait_text(board, "#quiz-teams", ["Owls", "Ann", "Cy"])
        assert "+P" not in board.locator("#subtitle").inner_text()
        on(desk).click("#btn-arm")
        wait_text(board, "#race", ["BUZZ"])
        on(desk).click("#buzz-3")
        wait_text(board, "#race-winner", ["Cy"])
        on(desk).click("#btn-correct")
        wait_text(desk, "#desk-teams", ["Owls", "1 point"])
        wait_text(desk, "#doing", ["question 2 next"])
        assert desk.locator("#qz-cancel").count() == 0  # nothing stale: the question is over
        wait_text(desk, "#qz-arm", ["Arm +1"])
        shoot(desk, "pubquiz-desk")
        shoot(board, "pubquiz-tv")
        desk.once("dialog", lambda d: d.accept())
        on(desk).click("#btn-end")
        wait_text(board, "#over", ["quiz: game over", "1st", "Owls", "1 point"])
        shoot(board, "pubquiz-tv-over")
    finally:
        board.close()
        desk.close()
