"""The newcomer pass (issue 36, "Done when"): a night played from the desk alone, by clicks, in a
real Chromium against `tablebuzz show --sim`, with the desk at 1920x1080 and at 390x844 (a phone)
and the TV beside it at 1920x1080: an NAQT match with the preset, a team pub quiz, and a game of
each card game (Difference, Déglingo, Diddly, Evidence, Red or Black).

Every step is a click a host makes: a game's button on the desk, one of the box's controls the
board's prompts put there, a simulated buzzer (a click, or a press held as long as the gesture
needs), a choice in a list. Nothing is typed but names and plain numbers in the New game form;
no field takes JSON (the check below: every JSON-valued field of the form is hidden, built by
picks). After every step, once the desk has settled, the desk's phase, floor, turn, prompts and
"what is happening" line are compared with the device's own: the check asks the board for its
`state` (the checker's line, not a click) and the desk must not change, or it was stale.

Screenshots of the desk and the TV at both sizes go to $TABLEBUZZ_SCREENS (default build/screens/
in the repository, ignored by git). It takes a few minutes, so it is not a `test_` file: `make
test` leaves it out, `make newcomer` runs it (SCREENS=folder to choose where the pictures go).
"""

import json
import os
import random
import time
from pathlib import Path

import pytest
from tablebuzz.paths import REPO
from test_show import browser, on, open_page, show, wait_text  # noqa: F401 - fixtures

SCREENS = Path(os.environ.get("TABLEBUZZ_SCREENS") or REPO / "build" / "screens")
TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
MAX_STEPS = int(os.environ.get("TABLEBUZZ_NEWCOMER_STEPS", "600"))  # not over by then: a finding

# What the desk shows of the game, read in the page: the board's phase, floor, turn and prompts
# as the desk holds them, the "what is happening" line and the box's buttons as drawn.
SUMMARY = """() => {
  const g = D.view && D.view.game;
  const text = (id) => { const n = document.getElementById(id); return n ? n.textContent : null; };
  const shown = [...document.querySelectorAll('[data-control-prompt]')]
    .filter((b) => !b.classList.contains('hidden') && !b.disabled).map((b) => b.textContent);
  return { version: D.view ? D.view.version : -1, name: g && g.name, over: !!(g && g.over),
    phase: g && g.phase, answering: g && g.answering, turn: g && g.turn,
    eligible: g ? g.eligible : [], players: g ? g.players : 0,
    prompts: D.view ? JSON.stringify(D.view.prompts) : null, doing: text('doing'), shown: shown,
    view: g ? g.view : null, menu: !!(D.view && D.view.menu) };
}"""
SETTLED = """([v, ms]) => {
  const now = D.view ? D.view.version : -1;
  const s = window.__tbSettle;
  if (!s || s[0] !== now) { window.__tbSettle = [now, performance.now()]; return false; }
  return now === v && performance.now() - s[1] > ms; }"""


class Night:
    """The desk (and the TV) of one show --sim, played by clicks; `size` the desk's viewport."""

    def __init__(self, desk, board, size, label):
        self.desk, self.board, self.size, self.label = desk, board, size, label
        self.rng = random.Random(label)
        self.steps = 0
        self.checks = 0
        self.held_once = False
        self.shots = []
        self._last = 0.0

    # -------------------------------------------------------------- reading and waiting
    def summary(self):
        return self.desk.evaluate(SUMMARY)

    def settle(self, quiet_ms=180, timeout=15.0):
        """Wait until the desk's view has not changed for `quiet_ms`; returns its summary."""
        deadline = time.monotonic() + timeout
        while True:
            s = self.summary()
            self.desk.evaluate("() => { window.__tbSettle = null; }")
            try:
                self.desk.wait_for_function(SETTLED, arg=[s["version"], quiet_ms], polling=30,
                                            timeout=max(500, quiet_ms * 4))
                return self.summary()
            except Exception:  # noqa: BLE001 - it changed meanwhile: read it again
                if time.monotonic() > deadline:
                    raise AssertionError("the desk never settled: %r" % s) from None

    def check_not_stale(self, before):
        """The desk against the device: ask the board for its `state` (it answers with `state`
        and `buttons`); what the desk shows must not change. A running timer (Déglingo's round,
        a lockout running out) can move the game meanwhile: then it is checked once more."""
        keys = ("name", "phase", "answering", "turn", "prompts", "doing", "shown", "over")
        for _attempt in range(3):
            self.desk.evaluate("() => link.send({ type: 'cmd', cmd: { cmd: 'state' } })")
            time.sleep(0.12)
            after = self.settle()
            same = {k: (before[k], after[k]) for k in keys if before[k] != after[k]}
            if not same:
                self.checks += 1
                return after
            before = after
        raise AssertionError("%s: the desk was stale, the device's state says otherwise: %r"
                             % (self.label, same))

    # -------------------------------------------------------------- clicks
    def _pace(self):
        wait = self._last + 0.06 - time.monotonic()  # a host's pace (the show's 20 a second)
        if wait > 0:
            time.sleep(wait)
        self._last = time.monotonic()

    def click(self, selector):
        self._pace()
        on(self.desk).click(selector)
        self.steps += 1

    def select(self, selector, value):
        self._pace()
        on(self.desk).select_option(selector, str(value))

    def prompt(self, control):
        self.click("[data-control-prompt='%s']:not(.hidden)" % control)

    def hold(self, player, seconds):
        """Press P`player`'s simulated buzzer and keep it down `seconds` (the pointer held)."""
        self._pace()
        buzzer = on(self.desk).locator("#buzz-%d" % player)
        buzzer.scroll_into_view_if_needed()  # a phone: the pointer goes where the eye is
        box = buzzer.bounding_box()
        self.desk.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        self.desk.mouse.down()
        time.sleep(seconds)
        self.desk.mouse.up()
        self.steps += 1

    def shoot(self, name):
        """The desk at its size and the TV at 1920x1080, into SCREENS."""
        SCREENS.mkdir(parents=True, exist_ok=True)
        desk = SCREENS / ("%s-desk-%dx%d.png" % (name, self.size["width"], self.size["height"]))
        on(self.desk).screenshot(path=str(desk), full_page=True)
        tv = SCREENS / ("%s-tv-1920x1080.png" % name)
        on(self.board).screenshot(path=str(tv))
        self.shots += [desk, tv]

    # -------------------------------------------------------------- a game
    def new_game(self, game, players, names=(), teams=None, options=(), preset=None):
        """The New game form, by picks and plain numbers: game, players, names, a preset, an
        option or two, the team builder (how many teams, each player's team from a list)."""
        d = self.desk
        self.select("#ng-game", game)
        d.fill("#ng-players", str(players))
        d.dispatch_event("#ng-players", "input")
        for p, name in enumerate(names, 1):
            d.fill("#name-%d" % p, name)
        if preset:
            self.select("#opt-format", preset)
        for name, value in options:
            d.fill("#opt-%s" % name, str(value))
            d.dispatch_event("#opt-%s" % name, "input")
        if teams:
            self.select("#opt-teams-count", len(teams))
            for t, members in enumerate(teams, 1):
                for p in members:
                    self.select("#team-of-%d" % p, t)
        json_fields = d.evaluate(
            "() => [...document.querySelectorAll('[data-kind=json]')].map((i) => i.type)")
        assert set(json_fields) <= {"hidden"}, "a field of the form takes JSON: %r" % json_fields
        self.click("#ng-start")
        d.wait_for_function("(g) => D.view && D.view.game && D.view.game.name === g && "
                            "!D.view.game.over", arg=game)

    def play(self, game, policy):
        """Click until the game is over, checking the desk against the device after each
        step; screenshots at the start, half-way and at game over."""
        s = self.check_not_stale(self.settle())
        self.shoot("%s-%s-start" % (self.label, game))
        shot_mid = False
        idle = 0
        while not s["over"]:
            assert self.steps < MAX_STEPS, "%s: %s did not end in %d clicks (%r)" % (
                self.label, game, MAX_STEPS, s)
            acted = policy(self, s)
            if not acted:
                idle += 1
                assert idle < 200, "%s: %s waits for nothing: %r" % (self.label, game, s)
                time.sleep(0.15)  # the board is busy (a timer, a race being decided)
            else:
                idle = 0
            s = self.check_not_stale(self.settle())
            if not shot_mid and self.steps > 12:
                self.shoot("%s-%s-playing" % (self.label, game))
                shot_mid = True
        self.shoot("%s-%s-over" % (self.label, game))
        if s["name"] == "quiz":  # the TV names no question past the last one played
            heading = self.board.evaluate(
                "() => (document.getElementById('quiz-question') || {}).textContent || ''")
            assert not heading.startswith("question"), heading


# ------------------------------------------------------------------------------ the policies
def _prompted(s, control):
    return any(c == control for c, _ in json.loads(s["prompts"] or "[]"))


def _buzz(night, s):
    """An open race: an eligible player buzzes (a click), or nobody may yet."""
    if not s["eligible"]:
        return False
    night.click("#buzz-%d" % night.rng.choice(s["eligible"]))
    return True


def _controls(night, s, prefer=("YES", "ARM", "NO")):
    for control in prefer:
        if _prompted(s, control):
            night.prompt(control)
            return True
    return False


def quiz_policy(night, s):
    if s["phase"] == "racing":
        return _buzz(night, s)
    if s["phase"] == "ready":
        night.click("#qz-arm")
        return True
    if s["phase"] == "answering":
        night.prompt("YES" if night.rng.random() < 0.75 else "NO")
        return True
    if s["phase"] == "bonus":
        night.prompt("YES" if night.rng.random() < 0.6 else "NO")
        return True
    return _controls(night, s)


def difference_policy(night, s):
    if s["phase"] == "racing":
        return _buzz(night, s)
    if s["phase"] == "answering":
        night.prompt("YES" if night.rng.random() < 0.85 else "NO")
        return True
    return _controls(night, s, ("ARM", "YES"))


def deglingo_policy(night, s):
    if s["phase"] == "eyes_closed":
        night.click("#dg-call")
        return True
    if s["phase"] == "racing":
        return _buzz(night, s)
    if s["phase"] == "answering":
        night.prompt("YES" if night.rng.random() < 0.7 else "NO")
        return True
    return _controls(night, s)


def diddly_policy(night, s):
    if s["phase"] == "scoring" and _prompted(s, "ARM"):
        for _ in range(night.rng.randrange(0, 4)):  # the round score, on the box's ARM (+1)
            night.prompt("ARM")
            night.settle()
        night.prompt("YES")
        return True
    view = s["view"] or {}
    if not view.get("turn") and night.desk.locator("#dd-finish").count():
        night.click("#dd-finish")
        return True
    return _controls(night, s)


def evidence_policy(night, s):
    view = s["view"] or {}
    if s["phase"] == "claiming":
        claimed = {m for m in view.get("markers") or [] if m}
        waiting = [p for p in range(1, s["players"] + 1) if p not in claimed
                   and p not in (view.get("sit_out") or [])]
        if not waiting:
            return False
        player = waiting[0]
        if night.held_once and view["round"] == 1:  # the pointer's hold claimed marker 1
            assert view["markers"][0] == 1, "P1's held claim was not taken: %r" % view
        if player == 1 and view["markers"][0] is None and not night.held_once:
            night.held_once = True  # (once: a hold the board did not take is not tried again)
            night.hold(1, 1.3)  # marker 1: press and hold (the rulebook's gesture)
            return True
        free = [i + 1 for i, m in enumerate(view["markers"]) if m is None]
        night.select("#ev-player", player)
        night.click("#ev-claim-%d" % night.rng.choice(free))
        return True
    if s["phase"] == "counting" and _prompted(s, "ARM"):
        for _ in range(night.rng.randrange(1, 5)):
            night.prompt("ARM")
            night.settle()
        night.prompt("YES")
        return True
    return _controls(night, s, ("ARM", "YES"))


def redblack_policy(night, s):
    view = s["view"] or {}
    handing = view.get("handing_out")
    if handing:
        left = handing.get("left") or 0
        if left:
            others = [p for p in range(1, s["players"] + 1) if p != handing["player"]]
            night.select("#rb-to", night.rng.choice(others))
            night.click("[data-pad='clear']")  # how many, on the number pad
            night.click("[data-pad='%d']" % night.rng.randint(1, min(left, 9)))
            night.click("#rb-give")
        else:
            night.click("#rb-confirm")
        return True
    if view.get("lines") and night.desk.locator("#rb-column").count():
        night.click("#rb-column")
        return True
    assert not night.desk.locator("#rb-column").count(), "the desk offers a column now"
    asking = view.get("asking")
    if asking:
        answers = night.desk.evaluate(
            "() => [...document.querySelectorAll('button[id^=rb-]')].map((b) => b.id)")
        answers = [a for a in answers if a not in ("rb-give", "rb-confirm", "rb-column")]
        if answers:
            night.click("#" + night.rng.choice(answers))
            return True
    return _controls(night, s)


# ------------------------------------------------------------------------------ the night
GAMES = [  # (name in the screenshots, game, players, the New game form's picks, policy)
    ("naqt", "quiz", 4, {"names": ("Ann", "Bob", "Cy", "Dee"), "teams": [[1, 3], [2, 4]],
                         "preset": "naqt", "options": [("questions", 4)]}, quiz_policy),
    ("pubquiz", "quiz", 6, {"names": ("Zoë", "Li", "Sam", "Noor", "Ivo", "Kai"),
                            "teams": [[1, 2], [3, 4], [5, 6]],
                            "options": [("questions", 5), ("points", 10)]}, quiz_policy),
    ("difference", "difference", 2, {}, difference_policy),
    ("deglingo", "deglingo", 3, {"options": [("target", 3)]}, deglingo_policy),
    ("diddly", "diddly", 2, {}, diddly_policy),
    ("evidence", "evidence", 2, {}, evidence_policy),
    ("redblack", "redblack", 2, {}, redblack_policy),
]
# TABLEBUZZ_NEWCOMER_GAMES=redblack,diddly plays only those (a finding's re-run)
ONLY = [g for g in os.environ.get("TABLEBUZZ_NEWCOMER_GAMES", "").split(",") if g]


@pytest.mark.parametrize("size", [TV, PHONE], ids=["1920x1080", "390x844"])
def test_a_newcomer_plays_a_night_from_the_desk_alone(browser, show, size):  # noqa: F811
    label = "%dx%d" % (size["width"], size["height"])
    server = show("--sim", "--seed", "36")
    board = browser.new_page()
    desk = browser.new_page()
    try:
        board.set_viewport_size(TV)
        desk.set_viewport_size(size)
        open_page(board, server.url + "/")
        open_page(desk, server.desk)
        night = Night(desk, board, size, label)
        wait_text(board, "#waiting", ["Set-up menu"])
        night.shoot("%s-menu" % label)
        for key, game, players, form, policy in GAMES:
            if ONLY and key not in ONLY:
                continue
            night.new_game(game, players, **form)
            night.play(key, policy)
        print("%s: %d clicks, %d checks against the device's state, %d screenshots in %s"
              % (label, night.steps, night.checks, len(night.shots), SCREENS))
    finally:
        board.close()
        desk.close()
