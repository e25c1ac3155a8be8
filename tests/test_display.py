"""The optional SSD1306 display: found by an I2C scan, drawn only at safe moments, a piece at a
time; the simulated panel takes the driver's bytes and the tests read its text from the pixels
(tablebuzz.sim.font8x8.read_text), as a person would read the glass."""

import json
import subprocess

import pytest
from helpers import timeline
from refbox import pinmap
from refbox.screen import margin_text, picture
from tablebuzz.paths import REPO
from tablebuzz.sim import runner, simulate
from tablebuzz.sim.font8x8 import read_text
from tablebuzz.sim.timeline import parse, read_setup
from tablebuzz.sim.world import World

CONTROLS = [name for name, _ in pinmap.CONTROLS]


class Session:
    """A simulation with the panel attached; `screens` the text read off the glass each time the
    last chunk of a picture went out: [(ns, [text lines])]."""

    def __init__(self, header, text, display=True):
        self.lines = []
        head = dict({"seed": "1", "options": {}}, **header)
        head["display"] = display
        self.sim = runner.Simulation(head, lambda t, line: self.lines.append((t, line)))
        self.panel = self.sim.panel
        self.screens = []
        if display and self.sim.app.display is not None:
            self._watch()
        players = head.get("players", pinmap.PLAYER_COUNT)
        self.sim.run(parse(text, players, CONTROLS))
        self.events = [(t, json.loads(line)) for t, line in self.lines]

    def _watch(self):
        oled = self.sim.app.display
        session = self
        original = oled.send_one

        def send_one():
            original()
            if not oled.pending():
                session.screens.append((session.sim.world.now, session.text()))

        oled.send_one = send_one

    def text(self):
        return [text for _, _, text in read_text(self.panel.pixel)]


def test_a_full_frame_holds_the_bus_about_23_ms_and_a_chunk_under_a_millisecond():
    show = World.i2c_ns(6, 12, 400000) + World.i2c_ns(1, 1 + 1024, 400000)
    chunk = World.i2c_ns(1, 7, 400000) + World.i2c_ns(1, 1 + 32, 400000)
    assert 23.0e6 < show < 24.0e6 and 0.9e6 < chunk < 1.0e6


def test_the_menu_in_words_and_the_boot_without_a_display_is_unchanged():
    text = timeline({"at_us": 300000, "control": "yes"}, {"at_us": 600000, "control": "yes"})
    with_panel = Session({}, text)
    assert with_panel.screens[0][1][:3] == ["SET UP       1/6", "Game", "Quiz"]
    last = with_panel.text()
    assert last[:3] == ["SET UP       1/4", "Format", "plain"]  # the quiz asks its format first
    assert "ARM  next" in last and "YES  ok" in last and "UNDO back" in last
    without = Session({}, text, display=False)
    assert [ev for _, ev in without.events] == [ev for _, ev in with_panel.events]


def test_red_or_black_shows_the_turned_card_and_a_held_players_own_cards():
    text = timeline(
        {"at_us": 100000, "control": "yes"},  # P1: red
        {"at_us": 600000, "press": 2},  # P2 holds their buzzer: no cards yet
        {"at_us": 900000, "release": 2},
    )
    s = Session({"game": "redblack", "players": 2}, text)
    guess = [ev for _, ev in s.events if ev["ev"] == "guess"][0]
    card = guess["card"]
    shown = [lines for _, lines in s.screens]
    assert any(card in lines and "YES  higher" not in lines for lines in shown)
    turned = [lines for lines in shown if card in lines][0]
    assert turned[0].startswith("Red or Black")
    assert any(line.startswith("P1 ") and " of " in line for line in turned)
    assert any("P2's cards" in lines and "none yet" in lines for lines in shown)
    assert "P2's cards" not in s.text() and card in s.text()  # let go: the card again


def test_red_or_black_never_shows_a_card_before_it_is_turned():
    path = REPO / "examples" / "redblack_2p.jsonl"
    script = path.read_text()
    s = Session(read_setup(script), script)
    ranks = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    deck = [r + s_ for r in ranks for s_ in "SHDC"]
    for at, lines in s.screens:
        turned = set()
        for t, ev in s.events:
            if t > at:
                break
            if ev["ev"] == "guess":
                turned.add(ev["card"])
            if ev["ev"] == "column":
                turned.update([ev["give"], ev["take"]])
        for line in lines:
            for word in line.split():
                if word in deck:
                    assert word in turned, (at, line)
    assert len(s.screens) > 20


def test_two_player_deglingo_shows_nothing_of_the_secret_count():
    screens = []
    for presses in (1, 3):
        records = [{"at_us": 200000 + i * 200000, "control": "yes"} for i in range(presses)]
        records.append({"at_us": 1000000, "send": {"cmd": "state"}})
        s = Session({"game": "deglingo", "players": 2}, timeline(*records))
        screens.append(s.text())
    assert screens[0] == screens[1]
    assert "P1 changes it," in screens[0]


def test_the_race_winner_and_margin_and_the_number_being_entered():
    quiz = Session(
        {"game": "quiz", "players": 3},
        timeline(
            {"at_us": 100000, "control": "arm"},
            {"at_us": 400000, "press": 2},
            {"at_us": 400000.840, "press": 3},
            {"at_us": 500000, "release": 2},
            {"at_us": 500000, "release": 3},
        ),
    )
    assert "P2 first" in quiz.text() and "by 840 ns" in quiz.text()
    assert "YES  right +1" in quiz.text()  # what a right answer scores
    diddly = Session(
        {"game": "diddly", "players": 2},
        timeline(*[{"at_us": 100000 + i * 200000, "control": "arm"} for i in range(7)]),
    )
    assert "P2 = 7" in diddly.text()


def test_drawing_never_changes_a_decision_nor_delays_a_race():
    """The same timeline with and without the panel: the same protocol events (the panel only
    adds bus time at safe moments), and every race announced within 5 ms of its first press."""
    path = REPO / "examples" / "quiz_demo.jsonl"
    script = path.read_text()
    setup = read_setup(script)
    on = Session(setup, script)
    off = Session(setup, script, display=False)
    keep = ("race", "margin", "judge", "score", "lockout", "game_over")
    assert [e for _, e in on.events if e["ev"] in keep] == [
        e for _, e in off.events if e["ev"] in keep
    ]
    for t, ev in on.events:
        if ev["ev"] == "race":
            assert t - (ev["t_us"] * 1000 + ev["t_ns"]) < 5000000
    stats = on.sim.world.stats
    assert stats["i2c_transfers"] > 20 and on.sim.app.display.transfers > 10


def test_no_chunk_is_sent_while_a_race_is_open():
    from refbox.arbiter import ARMED

    path = REPO / "examples" / "quiz_demo.jsonl"
    script = path.read_text()
    lines = []
    sim = runner.Simulation(dict(read_setup(script), display=True), lambda t, x: lines.append(x))
    oled = sim.app.display
    original = oled.send_one
    phases = []

    def send_one():
        phases.append(sim.app.referee.arbiter.phase)
        original()

    oled.send_one = send_one
    sim.run(parse(script, 6, CONTROLS))
    assert phases and ARMED not in phases


def test_a_panel_that_answers_but_no_driver_is_one_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ssd1306", None)  # `import ssd1306` raises ImportError
    s = Session({}, timeline({"at_us": 1000, "send": {"cmd": "state"}}))
    errors = [ev for _, ev in s.events if ev["ev"] == "error"]
    assert errors[0]["code"] == "display" and "make flash" in errors[0]["detail"]
    assert s.sim.app.display is None


def test_margins_in_words():
    assert margin_text(840) == "by 840 ns"
    assert margin_text(12345) == "by 12.3 us"
    assert margin_text(4250000) == "by 4.25 ms"
    assert margin_text(125000000) == "by 125 ms"


PICTURES = [
    ((1, "Red or Black  R2"), (3, "10H"), (1, "P1 10 of hearts"), (1, "P2 answers"),
     (1, "YES  higher"), (1, "NO   lower")),
    ((1, "SET UP       3/5"), (1, "False start"), (2, "250 ms"), (1, "ARM  next"),
     (1, "NO   previous"), (1, "YES  ok"), (1, "UNDO back")),
    ((1, "~{}|\u00e9"), (2, "P3 first"), (1, "by 840 ns")),
]  # fmt: skip

DRAW = """
import ssd1306
from refbox.oled import Oled
class Bus:
    def writeto(self, addr, buf, stop=True): return len(buf)
    def writevto(self, addr, v, stop=True): return 1
oled = Oled(ssd1306.SSD1306_I2C(128, 64, Bus(), 0x3C))
for pic in %r:
    oled.draw(pic)
    while oled.pending():
        oled.work()
    print(bytes(oled.driver.buffer).hex())
"""


@pytest.mark.micropython
def test_the_simulators_framebuf_draws_what_micropythons_does():
    """The fake framebuf (CPython) against the real one (the unix port): the same bytes."""
    code = DRAW % (PICTURES,)
    real = subprocess.run(simulate.micropython_command(code), capture_output=True, text=True)
    assert real.returncode == 0, real.stderr
    fake = {}
    exec(code.replace("print(", "fake.setdefault('out', []).append("), {"fake": fake})
    assert real.stdout.split() == fake["out"]


def test_the_text_reader_reads_every_scale():
    import ssd1306
    from refbox.oled import Oled
    from tablebuzz.sim.oled import Ssd1306Panel

    panel = Ssd1306Panel()

    class Bus:
        def writeto(self, addr, buf, stop=True):
            panel.write(bytes(buf))

        def writevto(self, addr, vector, stop=True):
            panel.write(b"".join(bytes(v) for v in vector))

    oled = Oled(ssd1306.SSD1306_I2C(128, 64, Bus(), 0x3C))
    oled.draw(PICTURES[0])
    while oled.pending():
        oled.work()
    assert read_text(panel.pixel) == [
        (0, 1, "Red or Black  R2"),
        (1, 3, "10H"),
        (4, 1, "P1 10 of hearts"),
        (5, 1, "P2 answers"),
        (6, 1, "YES  higher"),
        (7, 1, "NO   lower"),
    ]


def test_the_picture_has_the_buttons_at_the_bottom_for_every_game():
    from refbox.referee import Referee

    ref = Referee(6, lambda n, f: None, lambda f, ms: None, lambda: bytes(16), lambda: ())
    for game in ("quiz", "difference", "deglingo", "redblack", "diddly", "evidence"):
        ref.new_game(game, 3, {})
        pic = picture(ref)
        assert sum(scale for scale, _ in pic) <= 8
        shown = [text for _, text in pic]
        for control, meaning in ref.buttons():
            assert ("%-4s %s" % (control, meaning))[:16] in shown, game


@pytest.mark.micropython
def test_with_the_display_both_interpreters_print_the_same_lines():
    """The panel, the fake driver and the bus model run under the unix port too (with the real
    framebuf): a whole Red or Black game gives the same lines at the same times."""
    path = REPO / "examples" / "redblack_2p.jsonl"
    script = path.read_text()
    header = dict(read_setup(script), display=True, options={})
    records = parse(script, header["players"], CONTROLS)
    cpython = simulate.run(header, records, "cpython")
    micropython = simulate.run(header, records, "micropython")
    assert micropython == cpython
    plain = simulate.run(dict(header, display=False), records, "cpython")
    assert [line for _, line in plain] == [line for _, line in cpython]
    # the menu's pictures too, and a game's end: no internal error on either interpreter
    menu = {"seed": "3", "display": True}
    names = ["arm", "yes", "no", "yes", "yes", "no", "yes", "yes", "yes", "yes", "yes", "yes"]
    walk = [{"at_us": 200000 + i * 150000, "control": c} for i, c in enumerate(names)]
    walk.append({"at_us": 2000000, "send": {"cmd": "end"}})
    records = parse(timeline(*walk), 6, CONTROLS)
    cpython = simulate.run(menu, records, "cpython")
    assert simulate.run(menu, records, "micropython") == cpython
    assert '"code":"internal"' not in "".join(line for _, line in cpython)
