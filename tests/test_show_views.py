"""A room that reads at a glance (issue 22, "Deliver" 5 and "Done when"): an 8-player NAQT match
(4 v 4, 20 tossups with powers, negs and bonuses, one power cut) played from the desk in Chromium
against `tablebuzz show --sim --packet` on a fast simulated clock (--speed 10: the board's own
3 s, 2 s and 5 s timers run ten times faster, every rule unchanged), then exported as QBJ that
validates and as CSV with the teams. Each view is checked and photographed at 1920x1080 and
390x844: the scoreboard while a player answers, the standings, time's up, the desk with its race
panel, time left and the values its buttons send, and the card games' phases in the board's
words (Red or Black's table whole on a phone).

The screenshots go to $TABLEBUZZ_SHOTS (default: tablebuzz-shots in the system's temp folder).
"""

import csv
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema
import pytest
from tablebuzz.paths import REPO
from tablebuzz.records import store as records
from tablebuzz.views import packet as packet_module
from test_show import ARTIFACTS, browser, on, open_page, show, wait_text  # noqa: F401 - fixtures

SHOTS = Path(os.environ.get("TABLEBUZZ_SHOTS") or Path(tempfile.gettempdir()) / "tablebuzz-shots")
PACKET = REPO / "examples" / "packet_sample.json"
SCHEMA = json.loads((REPO / "tests" / "qbj" / "qbj.schema.json").read_text())
TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}

DRIVER = (REPO / "tests" / "desk_driver.js").read_text()  # the desk's driver (its doc)


def naqt_plan(pkt):
    """20 tossups: who buzzes, on which word (before the power mark: a power), the negs, the
    bonus parts, the dead tossup and the tossup whose bonus the power cut hits; and the team
    scores they make under NAQT (power 15, tossup 10, interrupt -5, bonus parts 10)."""
    plan = []
    score = {1: 0, 2: 0}
    team = {p: 1 if p <= 4 else 2 for p in range(1, 9)}
    kinds = ["power", "ten", "neg", "power", "dead", "ten", "power", "neg", "ten", "ten",
             "power", "ten", "neg", "ten", "power", "ten", "ten", "neg", "ten", "power"]
    players = [1, 5, 6, 2, 0, 7, 3, 1, 8, 4, 2, 6, 5, 3, 4, 5, 1, 7, 2, 3]
    for i, (kind, p) in enumerate(zip(kinds, players, strict=True)):
        n = i + 1
        if kind == "dead":
            plan.append({"kind": "dead"})
            continue
        mark = packet_module.tossup_view(pkt, n)["power_index"]
        step = {"kind": kind, "player": p, "word": mark - 2 if kind == "power" else mark + 2,
                "parts": [(i + k) % 3 != 2 for k in range(3)]}
        if kind == "neg":  # the other team's player buzzes first, early, and is wrong
            step["neg"] = p + 4 if p <= 4 else p - 4
            step["negWord"] = 3
            score[team[step["neg"]]] -= 5
        else:  # a player of the other team buzzes just after: a race, with its margin
            step["rival"] = p + 4 if p <= 4 else p - 4
        if n == 6:
            step["cut"] = 1  # the power goes off before the bonus's second part
        step["byParts"] = n in (1, 2, 6)  # YES / NO a part at a time (else one bonus command)
        score[team[p]] += (15 if kind == "power" else 10) + 10 * sum(step["parts"])
        plan.append(step)
    return plan, score


def shoot(page, name, size):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size(size)
    path = SHOTS / ("%s-%dx%d.png" % (name, size["width"], size["height"]))
    on(page).screenshot(path=str(path))
    return path


def fits(page, selector):
    """True if `selector` is within the page's width, nothing of it cut off or scrolled."""
    return page.evaluate(
        "(sel) => { const n = document.querySelector(sel); const r = n.getBoundingClientRect();"
        " return r.left >= 0 && r.right <= document.documentElement.clientWidth + 0.5 &&"
        " n.scrollWidth <= n.clientWidth + 1 &&"
        " document.documentElement.scrollWidth <= document.documentElement.clientWidth; }",
        selector)


def above_the_fold(page, selector):
    return page.evaluate("(sel) => { const r = document.querySelector(sel)"
                         ".getBoundingClientRect(); return r.height > 0 &&"
                         " r.bottom <= window.innerHeight; }", selector)


NAQT_OPTIONS = {"format": "naqt", "teams": [[1, 2, 3, 4], [5, 6, 7, 8]]}


def test_an_naqt_match_plays_from_the_desk_with_a_packet_and_exports(browser, show, tmp_path):  # noqa: F811
    pkt = packet_module.load(PACKET)
    plan, score = naqt_plan(pkt)
    folder = tmp_path / "records"
    server = show("--sim", "--game", "quiz", "--players", "8", "--options",
                  json.dumps(NAQT_OPTIONS), "--seed", "22", "--flash", "--speed", "5",
                  "--packet", str(PACKET), records=folder)
    desk = browser.new_page()
    try:
        open_page(desk, server.desk)
        desk.add_script_tag(content=DRIVER)
        seen = desk.evaluate("([plan, first]) => tbPlay(plan, first)", [plan, 1])
        wait_text(desk, "#message", ["done"])
        desk.wait_for_function("() => D.game && D.game.over")
    finally:
        desk.close()
    # what the desk's buttons and race panel said on the way: the values they sent, the margin
    assert "✔ YES right +15 (power)" in seen and "✔ YES right +10" in seen
    assert "✘ NO wrong −5" in seen
    assert any(s.startswith("by ") and "s" in s for s in seen)
    assert "Score the bonus: team 2, 2 of 3 parts right (the board's 10 a part)" in seen
    server.stop()  # the records are closed
    (record,) = sorted(folder.rglob("*.jsonl"))
    events = [json.loads(json.loads(line)["line"]) for line in record.read_text().splitlines()
              if '"line"' in line]
    assert [e["ev"] for e in events].count("resume") == 1  # the power cut, resumed in the bonus
    # the desk offered only what the board would take
    assert not [e for e in events if e["ev"] == "error"]
    (ranking,) = [e for e in events if e["ev"] == "team_ranking"]
    assert {r["team"]: r["score"] for r in ranking["ranking"]} == score
    judged = [e for e in events if e["ev"] == "judge"]
    assert len([j for j in judged if j["power"]]) == 6
    assert len([j for j in judged if j["interrupt"]]) == 4
    out = tmp_path / "night.qbj"
    done = subprocess.run([sys.executable, "-m", "tablebuzz.cli", "export", "--format", "qbj",
                           "--records", str(folder), "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    (match,) = doc["objects"][0]["phases"][0]["rounds"][0]["matches"]
    assert match["tossups_read"] == 20
    positions = [b["buzz_position"]["word_index"] for q in match["match_questions"]
                 for b in q["buzzes"] if b["result"]["value"] > 0]
    assert positions == [s["word"] for s in plan if s["kind"] != "dead"]
    table = io.StringIO()
    records.night_csv(folder, table)
    (row,) = list(csv.DictReader(io.StringIO(table.getvalue())))
    assert row["teams"] == "team 1: P1, P2, P3, P4; team 2: P5, P6, P7, P8"
    assert row["team_scores"] == "%d %d" % (score[1], score[2])


def naqt_show(show, speed="1", **extra):  # noqa: F811
    options = dict(NAQT_OPTIONS, **extra)
    return show("--sim", "--game", "quiz", "--players", "8", "--options", json.dumps(options),
                "--seed", "22", "--speed", speed, "--packet", str(PACKET))


def test_the_desk_and_the_room_while_a_player_answers_then_times_up(browser, show):  # noqa: F811
    """A race P1 wins over P5: the desk shows the winner, the margin, the buzz order, next in
    line and the time left, and YES / NO with what they score; the scoreboard (a TV, a phone)
    the winner and the timer above the fold; then the answer's time runs out: time's up."""
    server = naqt_show(show, answer_s=3)
    desk = browser.new_page()
    board = browser.new_page()
    phone = browser.new_page()
    phone.set_viewport_size(PHONE)
    try:
        open_page(desk, server.desk)
        open_page(board, server.url + "/")
        open_page(phone, server.url + "/")
        wait_text(desk, "#btn-arm", ["ARM arm buzzers"])  # the board's own prompt
        wait_text(board, "#doing", ["question 1 next: ARM opens the buzzers"])
        on(desk).click("#btn-arm")
        wait_text(board, "#race", ["BUZZ"])
        desk.evaluate("() => { document.getElementById('buzz-1').click();"
                      " document.getElementById('buzz-5').click(); }")
        # the time left first (3 s to answer): on the desk, and above the fold on a phone
        wait_text(desk, "#desktimers", ["P1 to answer"])
        wait_text(phone, "#timers", ["P1 to answer"])
        for page in (board, phone):  # a race won by < 10 ms: its photo finish, closed by a tap
            if page.evaluate("() => SB.view.photo !== null && SB.view.photo.showing"):
                wait_text(page, "#photo", ["Photo finish Q1: P1 wins"])
                page.locator("#photo").dispatch_event("click")
        for sel in ("#race-winner", "#race-margin", "#timers", "#doing"):
            assert above_the_fold(phone, sel), sel
        wait_text(desk, "#btn-correct", ["YES right +10"])
        wait_text(desk, "#btn-wrong", ["NO wrong −5"])  # an early buzz: the interrupt's -5
        wait_text(desk, "#desk-winner", ["P1"])
        wait_text(desk, "#desk-order", ["buzz order", "P1", "first", "P5", "+"])
        wait_text(desk, "#desk-next", ["next in line"])
        on(desk).click("#word-3")  # before the power mark: YES sends the power
        wait_text(desk, "#btn-correct", ["YES right +15 (power)"])
        wait_text(board, "#doing", ["question 1: P1 answers"])
        shoot(phone, "scoreboard-answering", PHONE)
        shoot(board, "scoreboard-answering", TV)
        shoot(desk, "desk-answering", TV)
        for page in (board, phone):
            wait_text(page, "#timeup", ["P1 ran out of time to answer"], timeout=10000)
            assert page.locator("#timeup").is_visible()
        shoot(board, "time-up", TV)
        shoot(phone, "time-up", PHONE)
        room = board.locator("body").inner_text()
        assert "µs at" not in room and "press:" not in room  # the room's log: no raw stamps
        for word in ("None", "undefined", "NaN"):
            assert word not in room
    finally:
        for page in (desk, board, phone):
            page.close()


def test_the_desk_puts_the_standings_on_the_tv(browser, show):  # noqa: F811
    server = naqt_show(show, speed="5")
    desk = browser.new_page()
    board = browser.new_page()
    phone = browser.new_page()
    phone.set_viewport_size(PHONE)
    try:
        open_page(desk, server.desk)
        open_page(board, server.url + "/")
        open_page(phone, server.url + "/standings")  # a second screen: the standings only
        desk.add_script_tag(content=DRIVER)
        pkt = packet_module.load(PACKET)
        plan, score = naqt_plan(pkt)
        desk.evaluate("([plan, first]) => tbPlay(plan, first)", [plan[:2], 1])
        wait_text(phone, "#standings", ["team 1", str(score_after(plan[:2])[1]), "team 2"])
        assert board.locator("#standings").is_hidden()
        on(desk).click("#btn-standings")
        wait_text(board, "#standings", ["quiz · standings", "team 1", "P1", "team 2"])
        assert board.locator("#standings").is_visible() and fits(phone, "#standingsrows")
        shoot(board, "standings", TV)
        shoot(phone, "standings", PHONE)
        wait_text(desk, "#btn-standings", ["The board on the TV"])  # the same button, back
        shoot(desk, "desk-bonus-done", PHONE)
        on(desk).click("#btn-standings")
        board.wait_for_function("() => document.getElementById('standings').classList"
                                ".contains('hidden')")
    finally:
        for page in (desk, board, phone):
            page.close()


def score_after(plan):
    """Team scores after `plan`'s tossups (naqt_plan's arithmetic)."""
    score = {1: 0, 2: 0}
    for step in plan:
        if step["kind"] == "dead":
            continue
        if "neg" in step:
            score[1 if step["neg"] <= 4 else 2] -= 5
        team = 1 if step["player"] <= 4 else 2
        score[team] += (15 if step["kind"] == "power" else 10) + 10 * sum(step["parts"])
    return score


CARD_GAMES = [
    # (game, players, what the board says first, a desk click to play on (or None), what it
    # says then: one of these)
    ("deglingo", 4, "eyes closed: P1 changes the picture", None, None),
    ("redblack", 6, "P1, round 1: red or black?", "#rb-red",
     ["P1 hands out 1 penalty: 1 left", "P2, round 1: red or black?"]),
    ("diddly", 3, "round 1: P2's score is entered", None, None),
    ("evidence", 4, "ARM starts round 1", "#btn-arm",
     ["round 1: count the differences, claim a marker"]),
    ("difference", 6, "ARM turns the first reference card", None, None),
]


@pytest.mark.parametrize("game, players, first, click, then", CARD_GAMES,
                         ids=[g[0] for g in CARD_GAMES])
def test_every_card_game_says_what_is_happening_on_a_tv_and_a_phone(browser, show, game, players,  # noqa: F811
                                                                    first, click, then):
    server = show("--sim", "--game", game, "--players", str(players), "--seed", "5")
    desk = browser.new_page()
    board = browser.new_page()
    phone = browser.new_page()
    phone.set_viewport_size(PHONE)
    try:
        open_page(desk, server.desk)
        open_page(board, server.url + "/")
        open_page(phone, server.url + "/")
        wait_text(board, "#doing", [first])  # the board's words, as it sends them
        wait_text(desk, "#doing", [first])
        said = first
        if click:
            on(desk).click(click)
            board.wait_for_function("(then) => then.includes(document.getElementById('doing')"
                                    ".textContent)", arg=then)
            said = board.locator("#doing").text_content()
        wait_text(phone, "#doing", [said])
        assert above_the_fold(phone, "#doing")
        if game == "redblack":
            assert fits(phone, "#rb-table"), "Red or Black's table is cut off on a phone"
        assert fits(phone, "#main")
        shoot(board, "scoreboard-" + game, TV)
        shoot(phone, "scoreboard-" + game, PHONE)
    finally:
        for page in (desk, board, phone):
            page.close()
