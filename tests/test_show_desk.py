"""The desk plays what the device says (issue 36), in a real Chromium against `tablebuzz show
--sim`: the New game form takes the game's options, their words and presets from the device
(tablebuzz.views.describe), shows what a preset sets, and sends only what the host changed."""

import contextlib
import os
import tempfile
from pathlib import Path

import pytest
from tablebuzz.paths import REPO
from test_show import (  # noqa: F401 - fixtures
    ARTIFACTS,
    browser,
    naqt_first_tossup,
    on,
    open_page,
    show,
    wait_text,
)

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


@contextlib.contextmanager
def board_and_desk(context, server, board_script=None):
    """The scoreboard (the TV, `board_script` run in it before its own) and the paired desk,
    open on `server` in the browser `context`; (board, desk), both closed at the end."""
    board = context.new_page()
    if board_script:
        board.add_init_script(board_script)
    desk = context.new_page()
    try:
        open_page(board, server.url + "/")
        open_page(desk, server.desk)
        yield board, desk
    finally:
        board.close()
        desk.close()


def test_the_naqt_preset_chosen_on_the_desk_plays_naqt_s_values(browser, show):  # noqa: F811
    server = show("--sim", "--seed", "5")
    with board_and_desk(browser, server) as (board, desk):
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


def test_a_team_pub_quiz_is_built_by_picking_and_reads_as_teams(browser, show):  # noqa: F811
    """Teams picked on the desk (how many, then each player's team from a list: no JSON), named
    on the box; the desk shows the team totals, the TV the teams by name, a question later."""
    server = show("--sim", "--seed", "9")
    with board_and_desk(browser, server) as (board, desk):
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


def start_from_the_form(desk, game, players):
    on(desk).select_option("#ng-game", game)
    desk.fill("#ng-players", str(players))
    desk.dispatch_event("#ng-players", "input")
    desk.click("#ng-start")


def pad(desk, digits):
    on(desk).click("#numbers [data-pad='clear']")
    for d in digits:
        desk.click("#numbers .pad [data-pad='%s']" % d)


CARD_GAMES = [
    # (game, players, the TV's title, what the clicks play)
    ("difference", 3, "Difference"),
    ("deglingo", 3, "Déglingo"),
    ("redblack", 2, "Red or Black"),
    ("diddly", 2, "Diddly"),
    ("evidence", 2, "Evidence"),
]


def play_a_little(desk, board, game):
    """A few of `game`'s moves, with the desk's buttons only."""
    if game == "difference":
        on(desk).click("#btn-arm")  # the first reference card: the buzzers are open
        wait_text(board, "#race", ["BUZZ"])
        on(desk).click("#buzz-2")
        wait_text(board, "#race-winner", ["P2"])
        on(desk).click("#btn-correct")
        wait_text(board, "[data-player='2'] .score", ["7"])
    elif game == "deglingo":
        on(desk).click("#dg-call")
        wait_text(board, "#race", ["BUZZ"])
        on(desk).click("#buzz-2")
        wait_text(board, "#race-winner", ["P2"])
        on(desk).click("#btn-correct")
        wait_text(board, "[data-player='2'] .score", ["1"])
        wait_text(desk, "#dg-call", ["Déglingo!"])  # round 2: the call is offered again
    elif game == "redblack":
        wait_text(board, "#doing", ["P1", "red or black?"])
        on(desk).click("#rb-red")
        on(board).wait_for_function(  # answered: the card is turned, the board moves on
            "() => !document.getElementById('doing').textContent.includes('red or black?')")
    elif game == "diddly":
        pad(desk, "7")
        on(desk).click("#dd-score")
        wait_text(board, "#diddly-grid", ["7"])
    elif game == "evidence":
        on(desk).click("#btn-arm")  # round 1: the claims open
        wait_text(desk, "#ev-claims", ["claims marker"])
        desk.click("#ev-claim-4")  # P1 claims marker 4
        wait_text(board, "#ev-markers", ["4"])
        on(desk).select_option("#ev-player", "2")
        desk.click("#ev-claim-9")
        wait_text(desk, "#ev-count", ["Enter the count"], timeout=30000)
        pad(desk, "6")
        on(desk).click("#ev-count")
        wait_text(board, "#gameview", ["6 differences"])


@pytest.mark.parametrize("game, players, title", CARD_GAMES, ids=[g[0] for g in CARD_GAMES])
def test_each_card_game_plays_from_the_desk(browser, show, game, players, title):  # noqa: F811
    server = show("--sim", "--seed", "11")
    with board_and_desk(browser, server) as (board, desk):
        wait_text(board, "#waiting", ["Set-up menu"])
        start_from_the_form(desk, game, players)
        wait_text(board, "#title", [title])
        play_a_little(desk, board, game)
        for page in (board, desk):
            body = page.locator("body").inner_text()
            assert "None" not in body and "undefined" not in body and "NaN" not in body
        shoot(desk, "%s-desk" % game)
        shoot(board, "%s-tv" % game)
        desk.once("dialog", lambda d: d.accept())
        on(desk).click("#btn-end")
        wait_text(board, "#over", [title + ": game over"])
        shoot(board, "%s-tv-over" % game)


def test_a_card_game_after_a_quiz_keeps_nothing_of_the_quiz(browser, show, tmp_path):  # noqa: F811
    """After the NAQT tossup won by 738 µs (a photo finish) read from a packet, the desk starts
    Déglingo: no photo-finish button, no packet tossup, no quiz panel."""
    server = show("--sim", "--script", str(naqt_first_tossup(tmp_path)),
                  "--packet", str(REPO / "examples" / "packet_sample.json"))
    with board_and_desk(browser, server) as (board, desk):
        wait_text(desk, "#btn-photo", ["Photo finish: P", "by 738 µs"])
        wait_text(desk, "#packet", ["tossup"])
        desk.once("dialog", lambda d: d.accept())
        start_from_the_form(desk, "deglingo", 3)
        wait_text(desk, "#gamedesk", ["Déglingo"])
        wait_text(desk, "#doing", ["eyes closed"])
        assert desk.locator("#btn-photo").is_hidden()
        assert desk.locator("#packet").is_hidden()
        assert desk.locator("#qz-arm").count() == 0
        assert "tossup" not in desk.locator("#gamedesk").inner_text()


SPY = """
window.__spoken = []; window.__tones = [];
if (window.speechSynthesis) {
  window.speechSynthesis.speak = (u) => window.__spoken.push(u.text);
}
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (when) {
  window.__tones.push(this.frequency.value);
  return start.call(this, when);
};
"""


def test_the_tv_sounds_and_calls_the_winner_and_the_desk_switches_them_off(browser, show):  # noqa: F811
    """The scoreboard plays a sound when the buzzers are armed and at a buzz, and calls who buzzed
    ("Player 2, Bob") and who won, through the browser's own Web Audio and speech synthesis (the
    test listens at those two browser interfaces); the desk's switches silence both."""
    server = show("--sim", "--seed", "3")
    with board_and_desk(browser, server, board_script=SPY) as (board, desk):
        wait_text(board, "#waiting", ["Set-up menu"])
        on(desk).select_option("#ng-game", "quiz")
        desk.fill("#ng-players", "3")
        desk.dispatch_event("#ng-players", "input")
        desk.fill("#name-2", "Bob")
        desk.fill("#opt-target", "2")
        desk.dispatch_event("#opt-target", "input")
        desk.click("#ng-start")
        wait_text(board, "#players", ["Bob"])
        on(desk).click("#btn-arm")
        wait_text(board, "#race", ["BUZZ"])
        board.wait_for_function("() => window.__tones.includes(660)")  # armed
        on(desk).click("#buzz-2")
        wait_text(board, "#race-winner", ["Bob"])
        board.wait_for_function("() => window.__spoken.includes('Player 2, Bob')")
        assert board.evaluate("() => window.__tones.includes(880)")  # the buzz
        on(desk).click("#btn-correct")
        wait_text(desk, "#qz-arm", ["Arm"])
        on(desk).uncheck("#tv-sounds")
        on(desk).uncheck("#tv-speech")
        wait_text(desk, "#message", ["sent"])
        before = board.evaluate("() => [window.__spoken.length, window.__tones.length]")
        on(desk).click("#btn-arm")
        wait_text(board, "#race", ["BUZZ"])
        on(desk).click("#buzz-2")
        on(desk).click("#btn-correct")
        wait_text(board, "#over", ["quiz: game over", "Bob"])
        assert board.evaluate("() => [window.__spoken.length, window.__tones.length]") == before
        assert desk.is_checked("#tv-sounds") is False  # the host keeps the choice


def test_the_tv_calls_the_winning_team_at_game_over(browser, show):  # noqa: F811
    server = show("--sim", "--script", str(REPO / "examples" / "quiz_tournament.jsonl"))
    board = browser.new_page()
    board.add_init_script(SPY)
    try:
        open_page(board, server.url + "/")
        wait_text(board, "#over", ["quiz: game over", "Owls"], timeout=60000)
        board.wait_for_function("() => window.__spoken.includes('Winner: Owls')")
        assert board.evaluate("() => window.__tones.includes(784)")  # the game-over sound
    finally:
        board.close()


def test_the_overlay_carries_team_totals_what_happens_and_the_winning_team(browser, show):  # noqa: F811
    """The OBS overlay of a team quiz: the team totals by name, the board's "what is happening"
    (a dead question, time's up in their turn), and the winning team at game over."""
    server = show("--sim", "--script", str(REPO / "examples" / "quiz_tournament.jsonl"),
                  "--speed", "2")
    page = browser.new_page()
    try:
        open_page(page, server.url + "/overlay")
        wait_text(page, "#teams", ["Owls", "Foxes", "Hares"])
        wait_text(page, "#status", ["question"])
        wait_text(page, "#status", ["Winner: Owls"], timeout=60000)
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == \
            "rgba(0, 0, 0, 0)"
        SHOTS.mkdir(parents=True, exist_ok=True)
        on(page).screenshot(path=str(SHOTS / "overlay-team-quiz-over.png"), omit_background=True)
    finally:
        page.close()
