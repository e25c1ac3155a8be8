"""`tablebuzz show` end to end: the real server (the CLI, uvicorn on 127.0.0.1) and a real headless
Chromium (Debian's `chromium`, driven by Playwright) load the scoreboard and the desk while the
simulator plays scripted games of all six games; the tests read what the pages show (DOM text)
and keep a screenshot of each in tests/artifacts/. A desk click reaches the board and changes the
scoreboard; bad input (a refused command, two desks, no board yet, garbage on the line, a busy
port) gets a clear message on the page.

`make test` installs chromium when it is missing (see the Makefile's `browser` target); run
directly without it, these tests fail with the command to run, they never skip.
"""

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import serial
from tablebuzz.paths import REPO

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = REPO / "tests" / "artifacts"
TABLEBUZZ = Path(sys.executable).parent / "tablebuzz"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         # a test keeps several pages open (board, desk, phone): none is put in the background
         "--disable-background-timer-throttling", "--disable-renderer-backgrounding"]


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the whole module (a fresh profile), closed at the end."""
    if not os.path.exists(CHROMIUM):
        pytest.fail("no chromium at %s: run `make browser` (as root on Debian it installs it: "
                    "apt-get update && apt-get install -y chromium)" % CHROMIUM)
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=FLAGS, headless=True,
            viewport={"width": 1920, "height": 1080})
        context.set_default_timeout(20000)
        yield context
        context.close()


class Show:
    """`tablebuzz show ...` as a subprocess on 127.0.0.1, on a port the system gives it
    (`--http 127.0.0.1:0`; the banner says which): no port probed here and taken by another
    test's server before this one binds it."""

    def __init__(self, *args, records=None):
        extra = ["--records", str(records)] if records else ["--no-records"]
        self.stopped = False
        self.proc = subprocess.Popen(
            [str(TABLEBUZZ), "show", "--http", "127.0.0.1:0"] + list(args) + extra,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # the scoreboard's address, then the desk's with its key, as the banner prints them
        # for the host once the port listens (the QR code of the desk follows; the rest of
        # stderr is read at the end)
        self.banner = []
        self.port = None
        while True:
            line = self.proc.stderr.readline()
            assert line, "no desk address in %r" % self.banner
            self.banner.append(line)
            words = line.split()
            if self.port is None and "scoreboard" in words[:-1]:
                address = words[words.index("scoreboard") + 1]
                self.port = int(address.rstrip("/").rpartition(":")[2])
                self.url = "http://127.0.0.1:%d" % self.port
            if "desk" in words[:-1] and words[words.index("desk") + 1].startswith("http"):
                self.key = words[words.index("desk") + 1].partition("#key=")[2]
                self.desk = self.url + "/desk#key=" + self.key  # at 127.0.0.1, as the board
                break
        # (the port listens before the banner: a page's request waits for the server)

    def stop(self):
        """Stop the server (once; "" after); its stderr. One that ended before it was asked to
        fails the test with its stderr: a crash is not taken for a stop."""
        if self.stopped:
            return ""
        self.stopped = True
        if self.proc.poll() is not None:
            err = self.proc.communicate()[1]
            raise AssertionError("tablebuzz show ended by itself (exit %s): %s"
                                 % (self.proc.returncode, err[-3000:]))
        self.proc.terminate()
        try:
            out, err = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        assert "Traceback" not in err, err
        return err


@pytest.fixture
def show():
    servers = []

    def start(*args, records=None):
        server = Show(*args, records=records)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def text_of(page, selector):
    return page.locator(selector).text_content()


def on(page):
    """`page`, brought to the front first. The pages of a test share one window; Playwright's
    click, fill and screenshot wait for the page to draw a frame, which one behind the front page
    does 1-2 s late (measured: the packet desk test spent 6 of its 11 s so)."""
    page.bring_to_front()
    return page


def open_page(page, url):
    """Load `url` and wait until its live link to the host is up: its first message from the
    host, looked for every 50 ms by a timer, as `wait_text` does (not on animation frames, which
    a page behind another draws late). A page that gets none says what it had."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    on(page).goto(url)
    try:
        page.wait_for_function("() => typeof TB !== 'undefined' && window.__tbLastMessageAt",
                               polling=50)
    except PlaywrightTimeout:
        had = page.evaluate("() => ({TB: typeof TB, last: window.__tbLastMessageAt || null,"
                            " ready: document.readyState, text: document.body.innerText})")
        raise AssertionError("%s got no message from the host: %r" % (url, had)) from None


def wait_text(page, selector, words, timeout=30000):
    """Wait until the element's text holds every one of `words`. The page comes to the front
    and is checked every 50 ms by a timer: the default check runs on animation frames, which a
    page behind another in the shared window does not draw, so a short-lived text (a race's
    margin) could come and go unseen."""
    on(page).wait_for_function(
        "([sel, words]) => { const n = document.querySelector(sel);"
        " return n && words.every((w) => n.textContent.includes(w)); }",
        arg=[selector, list(words)], timeout=timeout, polling=50)


def keep_texts(page, selector):
    """From now on, keep every text the element `selector` shows (an element made and removed
    by the page's renders too), in `window.__texts[selector]`. A MutationObserver's callback
    runs on every change, whether the page is drawn or not, so a text shown for a moment (a
    lockout's 2 s, the sudden death's 0.5 s, on a loaded machine) is kept even when the test
    looks after it went; `wait_text` sees only what is there when it looks."""
    page.evaluate(
        "(sel) => { window.__texts = window.__texts || {}; const seen = window.__texts[sel] = [];"
        " const keep = () => { const n = document.querySelector(sel);"
        " if (n && seen[seen.length - 1] !== n.textContent) seen.push(n.textContent); };"
        " keep(); new MutationObserver(keep).observe(document.body, {subtree: true,"
        " childList: true, characterData: true}); }", selector)


def wait_shown(page, selector, words, timeout=30000):
    """Wait until the element `selector` (kept by `keep_texts`) has shown a text holding every
    one of `words`, now or earlier."""
    on(page).wait_for_function(
        "([sel, words]) => (window.__texts[sel] || []).some("
        "(t) => words.every((w) => t.includes(w)))",
        arg=[selector, list(words)], timeout=timeout, polling=50)


# ------------------------------------------------------------------------------ six games
GAMES = [
    # (timeline, clock speed (each lasts about 5-10 s: on a loaded machine the pages come up in
    # seconds, and the check that a game is still being played needs it not over by then), what
    # the scoreboard shows while it plays
    # (selector, words), what it shows at the end)
    ("quiz_demo.jsonl", 1, ("#race-winner", ["P"]), ["quiz: game over", "1st", "P5"]),
    ("difference_6p.jsonl", 1, ("#race-margin", ["by"]), ["Difference: game over", "P3"]),
    ("deglingo_4p.jsonl", 3, ("#gameview", ["round", "active", "observers"]),
     ["Déglingo: game over"]),
    ("redblack_2p.jsonl", 2, ("#rb-table", ["♠", "given"]), ["Red or Black: game over"]),
    ("diddly_2p.jsonl", 2.5, ("#diddly-grid", ["total", "★"]),
     ["Diddly: game over", "P1 and P2 tied on 50 points"]),
    ("evidence_2p.jsonl", 2, ("#ev-markers", ["10"]), ["Evidence: game over"]),
]


@pytest.mark.parametrize("script, speed, during, over_words", GAMES,
                         ids=[g[0].split(".")[0] for g in GAMES])
def test_scoreboard_and_desk_follow_a_scripted_game(browser, show, tmp_path, script, speed,
                                                    during, over_words):
    server = show("--sim", "--script", str(REPO / "examples" / script), "--speed", str(speed),
                  records=tmp_path)
    board = browser.new_page()
    desk = browser.new_page()
    try:
        open_page(board, server.url + "/")
        open_page(desk, server.desk)
        title = over_words[0].split(":")[0]
        wait_text(board, "#title", [title])
        wait_text(desk, "#subtitle", [title])
        wait_text(board, during[0], during[1])
        assert board.locator("#over").is_hidden()  # it is still being played
        name = script.split(".")[0]
        on(board).screenshot(path=str(ARTIFACTS / ("scoreboard-%s-playing.png" % name)))
        wait_text(board, "#over", over_words, timeout=60000)
        wait_text(board, "#verified", ["verified: the seed matches"])
        assert "NOT verified" not in text_of(board, "#over")
        body = board.locator("body").inner_text()
        assert "None" not in body and "undefined" not in body and "NaN" not in body
        on(board).screenshot(path=str(ARTIFACTS / ("scoreboard-%s-over.png" % name)))
    finally:
        board.close()
        desk.close()
    # the game was recorded as it played: a file, a header, every protocol line (a timeline that
    # goes on with a rematch after the game over makes a second file)
    files = sorted(tmp_path.rglob("*.jsonl"))
    assert files
    lines = files[0].read_text().splitlines()
    assert json.loads(lines[0])["record"] == "tablebuzz-game"
    assert json.loads(json.loads(lines[-1])["line"])["ev"] == "game_over"


def test_a_tournament_quiz_on_the_scoreboard_teams_names_line_and_timers(browser, show):
    # 8.2 s of play at speed 2; the sudden death (its last second) is on the board for 0.5 s
    server = show("--sim", "--script", str(REPO / "examples" / "quiz_tournament.jsonl"),
                  "--speed", "2")
    board = browser.new_page()
    try:
        open_page(board, server.url + "/")
        # (the passing moments are short: tests/test_table.py checks what the view holds then;
        # kept as shown from the page's start, however late the test looks on a loaded machine)
        keep_texts(board, "#quiz-sudden")
        wait_text(board, "#quiz-teams", ["Owls", "Foxes", "Hares", "Zoë"])
        wait_text(board, "#timers", ["to answer"])  # 30 s to answer, counting down
        wait_shown(board, "#quiz-sudden", ["sudden death", "P1", "P4"])
        wait_text(board, "#over", ["quiz: game over", "1st", "Owls", "35 points"], timeout=60000)
        body = board.locator("body").inner_text()
        assert "None" not in body and "undefined" not in body and "NaN" not in body
        on(board).screenshot(path=str(ARTIFACTS / "scoreboard-quiz-tournament.png"))
    finally:
        board.close()


def test_evidence_count_is_not_shown_to_the_room_before_it_is_entered(browser, show):
    server = show("--sim", "--game", "evidence", "--players", "2", "--seed", "4")
    board = browser.new_page()
    desk = browser.new_page()
    try:
        open_page(board, server.url + "/")
        open_page(desk, server.desk)
        wait_text(board, "#title", ["Evidence"])
        on(desk).click("#btn-arm")  # round 1: the claims open
        wait_text(board, "#gameview", ["round 1"])
        for p, marker in ((1, 4), (2, 9)):  # each claims through the protocol
            desk.evaluate("([p, m]) => link.send({type: 'cmd', cmd: {cmd: 'act', action: 'claim',"
                          " player: p, value: m}})", [p, marker])
        wait_text(board, "#gameview", ["counting the differences"])
        for _ in range(17):  # the table enters 17 with ARM, one press at a time
            on(desk).click("[data-control=arm]")
        wait_text(desk, "#ev-dial", ["count on the box: 17"])  # the desk sees it...
        time.sleep(0.3)
        assert "17" not in board.locator("body").inner_text()  # ...the room does not
        on(desk).click("[data-control=yes]")
        wait_text(board, "#gameview", ["17 differences"])
    finally:
        board.close()
        desk.close()


# ------------------------------------------------------------------------------ the desk
def test_desk_starts_a_game_with_names_and_its_clicks_change_the_scoreboard(browser, show):
    server = show("--sim", "--seed", "7")
    board = browser.new_page()
    desk = browser.new_page()
    try:
        open_page(board, server.url + "/")
        open_page(desk, server.desk)
        wait_text(board, "#waiting", ["Set-up menu"])  # the box starts in its menu
        on(desk).select_option("#ng-game", "quiz")
        on(desk).fill("#ng-players", "3")
        desk.dispatch_event("#ng-players", "input")
        on(desk).fill("#name-1", "Ann")
        on(desk).fill("#name-2", "Bob")
        on(desk).fill("#name-3", "Zoé")
        on(desk).fill("#opt-target", "2")
        on(desk).click("#ng-start")
        wait_text(board, "#players", ["Ann", "Bob", "Zoé"])
        wait_text(board, "#subtitle", ["target: 2 points"])
        # the desk offers only what the board takes: nobody has the floor, so no YES; a command
        # sent anyway is refused and answered where the host acted
        wait_text(desk, "#btn-arm", ["ARM arm buzzers"])
        assert desk.locator("#btn-correct").is_hidden() and desk.locator("#btn-wrong").is_hidden()
        desk.evaluate("() => send({type: 'cmd', cmd: {cmd: 'judge', correct: true}}, 'judge')")
        wait_text(desk, "#message", ["refused: nobody has the floor"])
        on(desk).click("#btn-arm")
        wait_text(board, "#race", ["BUZZ"])
        on(desk).click("#buzz-2")  # the simulator's buzzer P2
        wait_text(board, "#race-winner", ["P2", "Bob"])
        on(desk).click("#btn-correct")
        wait_text(board, "[data-player='2'] .score", ["1"])
        on(desk).click("#btn-arm")
        wait_text(board, "#race", ["BUZZ"])
        on(desk).click("#buzz-2")
        wait_text(board, "#race-winner", ["Bob"])
        on(desk).click("#btn-correct")
        wait_text(board, "#over", ["quiz: game over", "1st", "P2 Bob"])
        wait_text(board, "#verified", ["verified"])
        on(board).screenshot(path=str(ARTIFACTS / "scoreboard-desk-quiz.png"))
        on(desk).screenshot(path=str(ARTIFACTS / "desk-quiz.png"))
    finally:
        board.close()
        desk.close()


def test_desk_quiz_panel_arms_with_points_cancels_adjusts_and_names(browser, show):
    server = show("--sim", "--game", "quiz", "--players", "4", "--seed", "3", "--options",
                  json.dumps({"teams": [[1, 2], [3, 4]], "buzz_s": 30}))
    board = browser.new_page()
    desk = browser.new_page()
    try:
        open_page(board, server.url + "/")
        open_page(desk, server.desk)
        wait_text(desk, "#gamedesk", ["quiz"])
        wait_text(desk, "#qz-arm", ["Arm +1"])  # the value it sends: the question's points
        for key in ("2", "0"):
            on(desk).click("#numbers .pad [data-pad='%s']" % key)
        wait_text(desk, "#qz-arm", ["Arm +20"])
        on(desk).click("#qz-arm")  # this question is worth 20
        wait_text(board, "#quiz-question", ["question 1", "worth 20"])
        wait_text(board, "#timers", ["time to buzz"])
        on(desk).click("#qz-cancel")
        wait_text(board, "#quiz-dead", ["question 1", "cancelled"])
        wait_text(board, "#doing", ["next: ARM opens the buzzers"])  # the next ARM asks again
        on(desk).select_option("#qz-player", "3")
        on(desk).click("#qz-plus")  # +20 by hand
        wait_text(board, "[data-player='3'] .score", ["20"])
        wait_text(board, "#quiz-teams", ["team 2", "20"])
        assert board.locator("[data-player='4']").get_attribute("style") == (
            board.locator("[data-player='3']").get_attribute("style"))  # one colour a team
        on(desk).fill("#qz-name", "Owls")
        on(desk).select_option("#qz-team", "2")
        on(desk).click("#qz-name-team")
        wait_text(board, "#quiz-teams", ["Owls"])
        on(board).screenshot(path=str(ARTIFACTS / "scoreboard-quiz-desk.png"))
        on(desk).screenshot(path=str(ARTIFACTS / "desk-quiz-panel.png"))
    finally:
        board.close()
        desk.close()


def test_two_desks_are_told_and_a_page_without_a_board_says_what_it_waits_for(browser, show):
    server = show("--port", "/dev/ttyNOPE")
    board = browser.new_page()
    desk1 = browser.new_page()
    desk2 = browser.new_page()
    try:
        board.goto(server.url + "/")
        wait_text(board, "#waiting", ["Waiting for the board",
                                      "no MicroPython board found on /dev/ttyNOPE"])
        desk1.goto(server.desk)
        desk2.goto(server.desk)
        wait_text(desk1, "#warning", ["2 desks are open"])
        assert desk1.locator("#btn-arm").is_hidden()  # no board, no prompts: nothing offered
        desk1.click("[data-control=arm]")  # the box's own ARM, sent anyway
        wait_text(desk1, "#message", ["no board connected", "not sent"])
    finally:
        for page in (board, desk1, desk2):
            page.close()


def test_a_port_in_use_is_said_plainly_and_no_desk_is_announced_for_it():
    """The address is taken (address.listening_socket) before the banner: a port another program
    listens on gets the plain "in use" and no desk address (whose key would pair a desk with
    the other program's pages); port 0 gets one the system gives, which the banner says."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        taken = other.getsockname()[1]
        done = subprocess.run([str(TABLEBUZZ), "show", "--sim", "--no-records", "--http",
                               "127.0.0.1:%d" % taken], capture_output=True, text=True,
                              timeout=60)
    assert done.returncode != 0
    assert "127.0.0.1:%d is in use" % taken in done.stderr, done.stderr
    assert "desk" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    server = Show("--sim")
    try:
        assert server.port != 0 and "localhost:%d/" % server.port in server.banner[0]
    finally:
        server.stop()


def test_a_board_that_sends_garbage_and_a_busy_port(browser, show):
    master, slave = os.openpty()
    name = os.ttyname(slave)
    holder = serial.Serial(name, exclusive=True)  # another program has the port
    server = show("--port", name)
    board = browser.new_page()
    try:
        board.goto(server.url + "/")
        wait_text(board, "#waiting", ["is busy", "close the other program"])
        holder.close()
        wait_text(board, "#link", ["board connected"], timeout=10000)
        os.write(master, b"Traceback (most recent call last):\r\n\xff\xfe\r\n"
                 b'{"ev":"game","game":"quiz","players":2,"options":{"false_start":250,'
                 b'"target":0},"commit":"00"}\r\n{"ev":"score","scores":[3,1],"unit":"points"}\r\n')
        wait_text(board, "#players", ["3", "1"])
        wait_text(board, "#loglist", ["notice: board console: Traceback"])
        assert "Traceback" not in server.stop()
    finally:
        board.close()
        os.close(master)
        os.close(slave)


def test_two_desks_acting_at_once_each_get_their_own_replies(show):
    """Command ids (issue 21): two desks send at the same moment, one command the device takes
    and one it refuses; each desk is answered about its own, never the other's."""
    import asyncio

    import websockets

    server = show("--sim", "--game", "quiz", "--players", "4")
    uri = server.url.replace("http", "ws") + "/ws"

    async def desk(ws, msg):
        await ws.send(json.dumps({"type": "hello", "role": "desk", "key": server.key}))
        await ws.send(json.dumps(msg))
        while True:
            reply = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if reply.get("type") == "reply":
                return reply

    async def both():
        async with websockets.connect(uri) as a, websockets.connect(uri) as b:
            return await asyncio.gather(
                desk(a, {"type": "cmd", "id": 1, "cmd": {"cmd": "judge", "correct": True}}),
                desk(b, {"type": "cmd", "id": 1, "cmd": {"cmd": "arm"}}),
            )

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's event loop
        refused, taken = pool.submit(asyncio.run, both()).result(60)
    assert refused["ok"] is False and "nobody" in refused["text"], refused
    assert taken["ok"] is True and taken["text"] == "done", taken


NAQT = REPO / "examples" / "quizbowl_naqt.jsonl"
NAQT_TOSSUP_1_US = 1000000  # its first tossup (a power won by 738 µs) and that tossup's bonus


def naqt_first_tossup(tmp_path):
    """examples/quizbowl_naqt.jsonl cut after its first tossup and bonus (comments and set-up
    kept): one photo finish, then nothing more happens, so what a page shows stays put."""
    kept = []
    for line in NAQT.read_text(encoding="utf-8").splitlines():
        if line.startswith("{") and json.loads(line).get("at_us", 0) > NAQT_TOSSUP_1_US:
            continue
        kept.append(line)
    path = tmp_path / "naqt_tossup_1.jsonl"
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return path


def photo_shown(page):
    return page.evaluate("() => !document.getElementById('photo').classList.contains('hidden')")


@contextlib.contextmanager
def tv_phone_desk(browser, server):
    """(the scoreboard at 1920x1080, the scoreboard on a 390x844 phone, the desk), each loaded
    and linked to the host; closed at the end."""
    board = browser.new_page()
    phone = browser.new_page()
    desk = browser.new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    try:
        open_page(board, server.url + "/")
        open_page(phone, server.url + "/")
        open_page(desk, server.desk)
        yield board, phone, desk
    finally:
        board.close()
        phone.close()
        desk.close()


def test_an_naqt_power_shows_its_photo_finish_on_a_tv_and_a_phone_and_again_from_the_desk(
        browser, show, tmp_path):
    """The NAQT match's first tossup (8 players, 4 v 4): the power is won by 738 µs, so the
    scoreboard shows its photo finish (tablebuzz.views.photo) over the board, at 1920x1080 and on
    a 390x844 phone; a tap closes it; the desk offers it again and it comes back."""
    server = show("--sim", "--script", str(naqt_first_tossup(tmp_path)))
    with tv_phone_desk(browser, server) as (board, phone, desk):
        for page in (board, phone):
            wait_text(page, "#photo", ["Photo finish Q", "wins by 738 µs", "one sample = 35 ns",
                                       "margin 738 µs"])
            assert page.locator("#photo").is_visible()
        on(board).screenshot(path=str(ARTIFACTS / "scoreboard-naqt-photo-finish.png"))
        on(phone).screenshot(path=str(ARTIFACTS / "phone-naqt-photo-finish.png"))
        wait_text(desk, "#btn-photo", ["Photo finish: P", "by 738 µs"])
        board.locator("#photo").dispatch_event("click")  # a tap closes it
        assert board.locator("#photo").is_hidden()
        # and the next view message, the same showing with less time left, leaves it closed
        assert board.evaluate(
            "() => { renderPhoto({showing: true, shown: Number(SB.photoKey), left_ms: 4000,"
            " svg: document.getElementById('photobody').innerHTML});"
            " return document.getElementById('photo').classList.contains('hidden'); }")
        on(desk).click("#btn-photo")  # on demand
        board.wait_for_function("() => !document.getElementById('photo').classList"
                                ".contains('hidden')")
        on(desk).screenshot(path=str(ARTIFACTS / "desk-naqt-photo-finish.png"))


def test_a_photo_finish_goes_by_itself_after_its_time(browser, show, tmp_path):
    """The first tossup's photo finish leaves the scoreboard by itself, Table.PHOTO_S after the
    race, with no tap and no new race."""
    server = show("--sim", "--script", str(naqt_first_tossup(tmp_path)))
    board = browser.new_page()
    try:
        open_page(board, server.url + "/")
        wait_text(board, "#photo", ["wins by 738 µs"])
        assert photo_shown(board)
        board.wait_for_function("() => document.getElementById('photo').classList"
                                ".contains('hidden')", timeout=20000)
        wait_text(board, "#players", ["15"])  # the power's points stay on the board
    finally:
        board.close()


def test_an_naqt_match_ends_with_the_teams_ranking_on_a_tv_a_phone_and_the_desk(browser, show):
    """examples/quizbowl_naqt.jsonl played to its end (20 tossups, bonuses, a power cut in the
    10th bonus): the game ends with the teams' ranking, and no page shows a missing value."""
    server = show("--sim", "--script", str(NAQT), "--speed", "10")
    with tv_phone_desk(browser, server) as (board, phone, desk):
        wait_text(board, "#over", ["quiz: game over"], timeout=90000)
        for page in (board, phone, desk):
            body = page.locator("body").inner_text()
            assert "None" not in body and "undefined" not in body and "NaN" not in body
        on(board).screenshot(path=str(ARTIFACTS / "scoreboard-naqt-over.png"))
        on(phone).screenshot(path=str(ARTIFACTS / "phone-naqt-over.png"))
        on(desk).screenshot(path=str(ARTIFACTS / "desk-naqt-over.png"))


def test_the_desk_reads_a_packet_marks_the_buzz_and_sends_the_power(browser, show, tmp_path):
    """`tablebuzz show --packet`: the reader's desk shows tossup 1 with its power mark and answer;
    a tap on the word being read at the buzz marks it (before the (*): YES sends 15); then the
    bonus with its answers. The scoreboard shows the number and category, never the answer."""
    options = json.dumps({"format": "naqt", "teams": [[1, 2, 3, 4], [5, 6, 7, 8]]})
    server = show("--sim", "--game", "quiz", "--players", "8", "--options", options,
                  "--packet", str(REPO / "examples" / "packet_sample.json"), records=tmp_path)
    board = browser.new_page()
    desk = browser.new_page()
    phone = browser.new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    try:
        open_page(board, server.url + "/")
        open_page(desk, server.desk)
        open_page(phone, server.desk)
        wait_text(desk, "#packet", ["tossup 1", "alchemists", "(*)", "ANSWER: gold"])
        on(desk).click("#btn-arm")  # the reading starts: the buzzers are open (NAQT)
        wait_text(board, "#quiz-question", ["question 1 · Science - Chemistry"])
        on(desk).click("#buzz-2")
        wait_text(board, "#race", ["P2"])
        on(desk).click("#word-5")  # "was": before the power mark
        wait_text(desk, "#mark-note", ["buzz on word 6", "YES sends +15"])
        wait_text(desk, "#btn-correct", ["+15 (power)"])
        on(desk).screenshot(path=str(ARTIFACTS / "desk-packet-tossup.png"))
        on(phone).screenshot(path=str(ARTIFACTS / "phone-desk-packet-tossup.png"))
        on(desk).click("#btn-correct")
        wait_text(desk, "#packet", ["bonus 1", "ANSWER: nucleus"])
        wait_text(board, "#players", ["15"])
        room = board.locator("body").inner_text()
        assert "gold" not in room and "ANSWER" not in room and "nucleus" not in room
        on(desk).screenshot(path=str(ARTIFACTS / "desk-packet-bonus.png"))
        on(board).screenshot(path=str(ARTIFACTS / "scoreboard-packet-bonus.png"))
    finally:
        board.close()
        desk.close()
        phone.close()
    (record,) = sorted(tmp_path.rglob("*.jsonl"))
    marks = [json.loads(line)["mark"] for line in record.read_text().splitlines()
             if '"mark"' in line]
    assert marks == [{"question": 1, "player": 2, "word_index": 5, "power": True}]
