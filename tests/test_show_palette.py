"""The station colours chosen on the box drive every page (issue 36), in a real Chromium against
`tablebuzz show --sim`: the desk works the box's menu (UNDO: station colours, ARM: the
colour-blind-safe set, YES), and the TV's tiles, the desk's buzzers and name labels, the
overlay's winner and the photo finish then draw each station in the colour the board announced
(`palette`), a quiz team in its team's colour. No page keeps a colour table of its own. The
photo finish (an SVG the host draws) is checked on the Table that draws it."""

import json

from test_show import browser, on, open_page, show, wait_text  # noqa: F401 - fixtures
from test_show_desk import board_and_desk, shoot

VERMILLION, BLUE, GREEN = "rgb(213, 94, 0)", "rgb(0, 114, 178)", "rgb(0, 158, 115)"
RED = "rgb(255, 0, 0)"  # the standard set's station 1


def colour(page, selector, prop="color"):
    """The computed CSS `prop` of the first element matching `selector`, once it exists."""
    page.wait_for_selector(selector, state="attached")
    return page.evaluate("([s, p]) => getComputedStyle(document.querySelector(s))[p]",
                         [selector, prop])


def wait_colour(page, selector, prop, value):
    on(page).wait_for_function(
        "([s, p, v]) => { const n = document.querySelector(s);"
        " return n && getComputedStyle(n)[p] === v; }",
        arg=[selector, prop, value], polling=50)


def test_the_colour_blind_safe_set_chosen_from_the_desk_colours_every_page(browser, show):  # noqa: F811
    server = show("--sim", "--seed", "3")
    overlay = browser.new_page()
    with board_and_desk(browser, server) as (board, desk):
        open_page(overlay, server.url + "/overlay")
        wait_text(board, "#waiting", ["Set-up menu"])
        on(desk).select_option("#ng-game", "quiz")
        desk.fill("#ng-players", "4")
        desk.dispatch_event("#ng-players", "input")
        assert colour(desk, ".station-name[data-station='1']") == RED  # the standard set
        on(desk).click("[data-control='undo']")  # the box's menu: its station colours
        wait_text(board, "#waiting", ["station colours: standard"])
        on(desk).click("[data-control='arm']")
        wait_text(board, "#waiting", ["station colours: colour-blind safe"])
        wait_colour(desk, ".station-name[data-station='1']", "color", VERMILLION)  # the form
        on(desk).click("[data-control='yes']")
        wait_text(board, "#waiting", ["game: Quiz"])
        desk.select_option("#opt-teams-count", "2")
        desk.select_option("#team-of-2", "2")  # teams [[1, 3], [2, 4]]
        desk.select_option("#team-of-3", "1")
        desk.click("#ng-start")
        # team 1 (P1, P3) in station 1's colour, team 2 (P2, P4) in station 2's, as the box
        for p, want in ((1, VERMILLION), (2, BLUE), (3, VERMILLION), (4, BLUE)):
            wait_colour(board, "[data-player='%d'] .num" % p, "color", want)
            wait_colour(desk, "#buzz-%d" % p, "borderTopColor", want)
        shoot(board, "palette-tv")
        shoot(desk, "palette-desk")
        on(desk).click("#btn-arm")
        wait_text(board, "#race", ["BUZZ"])
        on(desk).click("#buzz-3")
        wait_text(board, "#race-winner", ["P3"])
        wait_colour(overlay, "#winner", "borderLeftColor", VERMILLION)  # P3: team 1's colour
    overlay.close()


def test_a_team_player_s_photo_finish_is_drawn_in_the_team_colour_the_box_shows():
    """The finding "the photo finish draws team players in station colours that the box does
    not show": P3 of team 1 is drawn in station 1's colour, as the box lights P3."""
    from refbox import pinmap
    from tablebuzz.link.connection import Item
    from tablebuzz.views.table import Table

    table = Table(pinmap.PLAYER_COLOURS)
    lines = [
        {"ev": "hello", "fw": "x", "proto": 1, "stations": 8, "capture": "pio", "sample_ns": 56,
         "palette": "okabe_ito", "colours": [[213, 94, 0], [0, 114, 178], [0, 158, 115],
                                             [230, 159, 0], [204, 121, 167], [86, 180, 233],
                                             [255, 255, 255], [240, 228, 66]]},
        {"ev": "game", "game": "quiz", "players": 4, "options": {"teams": [[1, 3], [2, 4]]},
         "commit": "00"},
        {"ev": "armed", "players": [1, 2, 3, 4], "t_us": 1000, "t_ns": 0},
        {"ev": "press", "player": 3, "t_us": 2000, "t_ns": 0},
        {"ev": "press", "player": 4, "t_us": 2100, "t_ns": 0},
        {"ev": "race", "winner": 3, "margin_ns": 100000, "tie": False, "tied": [], "t_us": 2000,
         "t_ns": 0},
    ]
    for ev in lines:
        table.apply(Item("event", json.dumps(ev), event=ev))
    svg = table.view()["photo"]["svg"]
    assert "#d55e00" in svg  # P3 in team 1's colour (station 1's), as the box shows P3
    assert "#009e73" not in svg  # never station 3's own colour
    assert table.view()["game"]["colours"] == ["#d55e00", "#0072b2", "#d55e00", "#0072b2"]
