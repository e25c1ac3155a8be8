"""The moderator's desk for quizbowl (issue 37), in a real Chromium on `tablebuzz show --sim`
(as tests/test_show.py runs it): a computation tossup, a protest with a note on the current
question (kept in the record and the QBJ export), a bounce-back part, and overtime shown as
overtime with the "Arm" button still there.
"""

import json

from tablebuzz.records import qbj
from test_show import browser, on, open_page, show, wait_text  # noqa: F401 (fixtures)


def test_the_desk_plays_computation_a_protest_a_bounce_back_and_overtime(browser, show,  # noqa: F811
                                                                         tmp_path):
    options = {"format": "plain", "teams": [[1, 2], [3, 4]], "points": 10, "bonus": 10,
               "parts": 3, "questions": 2, "overtime": 2, "compute_s": 10, "buzz_s": 30}
    server = show("--sim", "--game", "quiz", "--players", "4", "--seed", "5", "--options",
                  json.dumps(options), records=tmp_path)
    desk = browser.new_page()
    try:
        open_page(desk, server.desk)
        wait_text(desk, "#qz-compute", ["Arm computation +10"])
        on(desk).click("#qz-compute")  # tossup 1: a computation tossup, 10 s to buzz
        wait_text(desk, "#desktimers", ["time to buzz"])
        on(desk).click("#buzz-1")
        wait_text(desk, "#btn-correct", ["right"])
        on(desk).click("#btn-correct")
        wait_text(desk, "#bonus-panel", ["part 1", "missed"])
        on(desk).click("#bonus-part-2")  # got
        on(desk).click("#bonus-part-3")
        on(desk).click("#bonus-part-3")  # taken by team 2: a bounce-back
        wait_text(desk, "#bonus-part-3", ["team 2", "bounce-back"])
        on(desk).click("#bonus-score")
        wait_text(desk, "#qz-arm", ["Arm +10"])
        on(desk).fill("#qz-protest-note", "the units were asked")
        on(desk).select_option("#qz-protest-team", "2")
        on(desk).click("#qz-protest")
        wait_text(desk, "#qz-protest-last", ["protest on question 1 by team 2",
                                             "the units were asked"])
        on(desk).click("#qz-arm")  # tossup 2: team 2 gets it, no part: 20-20, overtime
        on(desk).click("#buzz-3")
        wait_text(desk, "#btn-correct", ["right"])
        on(desk).click("#btn-correct")
        wait_text(desk, "#bonus-panel", ["part 1"])
        on(desk).click("#bonus-score")  # no part: 20-20
        wait_text(desk, "#qz-overtime", ["OVERTIME"])
        wait_text(desk, "#qz-arm", ["Arm +10"])  # still there in overtime
        on(desk).click("#qz-arm")  # overtime tossup 3: no bonus, and the Arm comes back
        on(desk).click("#buzz-4")
        wait_text(desk, "#btn-correct", ["right"])
        on(desk).click("#btn-correct")
        wait_text(desk, "#qz-arm", ["Arm +10"])
        wait_text(desk, "#qz-overtime", ["OVERTIME"])
        on(desk).click("#qz-arm")  # overtime tossup 4: 30-30 at its end, no sudden death
        on(desk).click("#buzz-2")
        wait_text(desk, "#btn-correct", ["right"])
        on(desk).click("#btn-correct")
        wait_text(desk, "#loglist", ["game over"])
        on(desk).screenshot(path=str(tmp_path / "desk.png"))
    finally:
        desk.close()
        server.stop()
    (path,) = sorted(tmp_path.rglob("*.jsonl"))
    match = qbj.from_record(path)
    first = match["match_questions"][0]
    assert first["tablebuzz_protests"] == [{"team": 2, "note": "the units were asked"}]
    assert first["bonus"]["parts"][2] == {"controlled_points": 0, "bounceback_points": 10}
    assert match["tossups_read"] == 4 and match["overtime_tossups_read"] == 2
