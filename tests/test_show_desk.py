"""The desk plays what the device says (issue 36), in a real Chromium against `tablebuzz show
--sim`: the New game form takes the game's options, their words and presets from the device
(tablebuzz.views.describe), shows what a preset sets, and sends only what the host changed."""

from test_show import ARTIFACTS, browser, on, open_page, show, wait_text  # noqa: F401 - fixtures


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
        on(desk).screenshot(path=str(ARTIFACTS / "desk-naqt-form.png"))
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
    finally:
        board.close()
        desk.close()
