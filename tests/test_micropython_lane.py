"""The MicroPython lane: the same firmware under the real MicroPython unix port.

Scripted timelines must give the identical event stream, line for line, on both interpreters; the
capture handlers must allocate nothing (run under micropython.heap_lock()).
"""

import subprocess
from pathlib import Path

import pytest
from helpers import CONTROLS, parse, run_raw, timeline
from tablebuzz.sim import simulate
from tablebuzz.sim.simulate import micropython_command
from tablebuzz.sim.timeline import read_setup

pytestmark = pytest.mark.micropython
REPO = Path(__file__).resolve().parents[1]
TOURNAMENT = (REPO / "examples" / "quiz_tournament.jsonl").read_text()

SCRIPTS = {
    "demo": ((REPO / "examples" / "quiz_demo.jsonl").read_text(), {}),
    "quiz_tournament": (TOURNAMENT, {"options": read_setup(TOURNAMENT)["options"]}),
    "cpu_pixels": (
        (REPO / "examples" / "quiz_demo.jsonl").read_text(),
        {"pixels": "cpu"},
    ),
    "ticks_wrap_and_worn_switches": (
        timeline(
            {"at_us": 1000, "control": "arm"},
            {"at_us": 3000000, "press": 2},
            {"at_us": 3000000.056, "press": 5},
            {"at_us": 3000400, "press": 1},
            {"at_us": 3100000, "release": 2},
            {"at_us": 3100000, "release": 5},
            {"at_us": 3100000, "release": 1},
            {"at_us": 3500000, "control": "yes"},
            {"at_us": 3600000, "press": 3},
            {"at_us": 3700000, "glitch": 4, "width_ns": 3000},
            {"at_us": 3800000, "mask_us": 480},
            {"at_us": 3900000, "gc_us": 12700},
            {"at_us": 4000000, "send": {"cmd": "state"}},
        ),
        {"ticks_origin_us": (1 << 30) - 2_000_000, "bounce": "worn"},
    ),
    "power_cuts_resume_undo_and_safe_boot": (
        timeline(
            {"at_us": 100000, "control": "arm"},
            {"at_us": 300000, "press": 2},
            {"at_us": 400000, "release": 2},
            {"at_us": 600000, "control": "yes"},
            {"at_us": 700000, "control": "arm"},
            {"at_us": 900000, "power": "off"},
            {"at_us": 1900000, "power": "on"},
            {"at_us": 2300000, "press": 4},
            {"at_us": 2400000, "release": 4},
            {"at_us": 2600000, "control": "undo"},
            {"at_us": 3000000, "power": "off"},
            {"at_us": 3100000, "control": "undo", "hold_ms": 900},
            {"at_us": 3200000, "power": "on"},
        ),
        {"flash": {}},
    ),
    "full_flash": (
        (REPO / "examples" / "quiz_demo.jsonl").read_text(),
        {"flash": {"capacity": 500}},
    ),
    "stalled_host": (
        timeline(
            {"at_us": 5000, "host": "stall"},
            {"at_us": 100000, "control": "arm"},
            {"at_us": 300000, "press": 3},
            {"at_us": 300009, "press": 4},
            {"at_us": 1000000, "control": "yes"},
            {"at_us": 1300000, "control": "arm"},
            {"at_us": 1500000, "press": 2},
            {"at_us": 2000000, "host": "read"},
            {"at_us": 2100000, "send": {"cmd": "state"}},
        ),
        {},
    ),
    "bad_lines": (
        timeline(
            {"at_us": 1000, "send_raw": "{oops"},
            {"at_us": 2000, "send_raw": "é" * 600},
            {"at_us": 3000, "send": {"cmd": "new_game", "game": "quiz", "players": 2}},
            {"at_us": 4000, "send": {"cmd": "judge", "correct": False}},
        ),
        {},
    ),
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_events_on_both_interpreters(name):
    text, header = SCRIPTS[name]
    cpython = run_raw(text, seed="abc123", **header)
    micropython = run_raw(text, seed="abc123", interpreter="micropython", **header)
    assert len(cpython) > 3
    assert micropython == cpython


@pytest.mark.parametrize("name", ["quiz_tournament", "ticks_wrap_and_worn_switches",
                                  "power_cuts_resume_undo_and_safe_boot", "bad_lines"])
def test_the_source_gives_the_same_events_as_the_lanes_build(name):
    """The lane imports the firmware compiled (tests/conftest.py: flash.cached_build, as a
    board holds it); firmware/'s source, compiled by the unix port on import, gives the same
    bytes."""
    text, header = SCRIPTS[name]
    if simulate.lane_firmware() == simulate.FIRMWARE:
        pytest.skip("$%s names firmware/: the lane runs the source" % simulate.FIRMWARE_BUILD_ENV)
    assert (simulate.lane_firmware() / "refbox" / "app.mpy").exists()  # the lane runs the build
    lane = run_raw(text, seed="abc123", interpreter="micropython", **header)
    head = {"seed": "abc123", "game": "quiz", "players": 6, "options": {}}
    head.update(header)
    records = parse(text, 6, CONTROLS)
    source = simulate.run(head, records, "micropython", firmware=simulate.FIRMWARE)
    assert len(lane) > 3
    assert source == lane


@pytest.fixture(scope="module")
def native_build(tmp_path_factory):
    """The firmware as `make flash` builds it for a board whose CPU is this machine's (x64): the
    modules of flash.NATIVE as native code, the unix port runs them as the RP2040 runs its
    Thumb code (the same native emitter, another back end)."""
    from tablebuzz.link import flash

    out = tmp_path_factory.mktemp("native")
    flash.build(out=out, arch="x64")
    return out


NATIVE_SCRIPTS = ["quiz_tournament", "ticks_wrap_and_worn_switches", "cpu_pixels",
                  "power_cuts_resume_undo_and_safe_boot"]


@pytest.mark.parametrize("name", NATIVE_SCRIPTS)
def test_native_modules_give_the_same_events(name, native_build):
    text, header = SCRIPTS[name]
    bytecode = run_raw(text, seed="abc123", interpreter="micropython", **header)
    head = {"seed": "abc123", "game": "quiz", "players": 6, "options": {}}
    head.update(header)
    native = simulate.run(head, parse(text, 6, CONTROLS), "micropython", firmware=native_build)
    assert len(bytecode) > 3
    assert native == bytecode


HEAP_LOCK_PROBE = """
import micropython, json
from tablebuzz.sim import runner
sim = runner.Simulation({"seed": "1", "game": "quiz", "players": 6}, lambda t, line: None)
board = sim.board
app = sim.app
w = sim.world
w.set_level(3, 0)  # station 2 pressed
happenings = []
cap = board.capture
app._read_capture(cap.pending(), happenings)  # the first sample's word
for word in (0x3FFFFF80, 0x3FFFFE3D, 0x3FFFFD3F):
    cap.sm._push(word)
w.run_until(w.now + 1000)  # the DMA moves them into the ring
micropython.heap_lock()
try:
    n = cap.pending()
    stalled = cap.stalled()
    cap.taken(n)
    app._read_capture(cap.pending(), happenings)  # nothing new: no allocation
finally:
    micropython.heap_unlock()
print("pio", n, stalled, cap.sm.rx_fifo())
edges = board.control_edges
before = edges.head
micropython.heap_lock()
try:
    w.pin_irqs[board.control_pins[2].id][0](board.control_pins[2])  # NO's edge handler
finally:
    micropython.heap_unlock()
print("controls", edges.head - before, edges.values[before] >> 1)
"""


def test_capture_reads_allocate_nothing():
    proc = subprocess.run(micropython_command(HEAP_LOCK_PROBE), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    lines = proc.stdout.split()
    # pio: the DMA moved 4 words (the press, then 3 pushed), no RXSTALL, the FIFO is empty;
    # the loop's reads of the DMA count and FDEBUG and its idle capture pass allocate nothing;
    # a control pin's edge handler stores one record (for control 2, NO). Any allocation would
    # have raised MemoryError under heap_lock().
    assert lines == ["pio", "4", "False", "0", "controls", "1", "2"], proc.stdout


LENIENT = timeline(
    {"at_us": 1000, "send_raw": '{"cmd":"new_game","game":"quiz","players":04}'},
    {"at_us": 2000, "send_raw": '{"cmd":"new_game","game":"quiz","players":3,}'},
    {"at_us": 3000, "send_raw": '{"cmd":"new_game","game":"quiz","players":Infinity}'},
    {"at_us": 4000, "send": {"cmd": "new_game", "game": "diddly", "players": 2}},
    {
        "at_us": 5000,
        "send": {
            "cmd": "act",
            "action": "board",
            "values": ["d\u0131ddly", "\u017fwap", "7\u00a0", "7", "PEEK", "RECYCLE"],
        },
    },
    {"at_us": 6000, "send": {"cmd": "state"}},
)


def test_lenient_json_and_unicode_case_are_refused_alike():
    cpython = run_raw(LENIENT, seed="5")
    assert run_raw(LENIENT, seed="5", interpreter="micropython") == cpython
    errors = [line for _, line in cpython if '"error"' in line]
    assert len(errors) == 4 and all('"bad_json"' in e for e in errors[:3])


def test_surrogate_escapes_and_long_echoes_stay_alike_and_bounded():
    emoji, accent = "\U0001f600", "\u00e9"
    quiz = {"cmd": "new_game", "game": "quiz"}
    text = timeline(
        {"at_us": 1000, "send_raw": '{"cmd":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\ud83d\\ude00"}'},
        {"at_us": 2000, "send": dict(quiz, options={emoji * 110: 1})},
        {"at_us": 3000, "send": dict(quiz, options={accent * 200: 1})},
    )
    cpython = run_raw(text, seed="5")
    assert run_raw(text, seed="5", interpreter="micropython") == cpython
    errors = [line for _, line in cpython if '"error"' in line]
    assert len(errors) == 3 and "\"bad_json\"" in errors[0] and "unknown_option" in errors[1]
    assert all(len(line.encode()) <= 512 for _, line in cpython)


IDLE_PASS_PROBE = """
import gc, micropython
from tablebuzz.sim import runner

def probe(name, header, lines):
    sim = runner.Simulation(header, lambda t, line: None)
    w = sim.world
    for line in lines:
        sim.console.feed(line.encode() + b"\\n")
    w.run_until(w.now + 50000000)  # boot, the command, every timer run out
    free = 0
    for _ in range(30):
        w.run_until(w.now + 1000000)
        gc.collect()
        micropython.heap_lock()
        try:
            sim.app.step()
            free += 1
        except MemoryError:
            pass
        micropython.heap_unlock()
    print(name, free)

probe("menu", {"seed": "1"}, [])
probe("quiz_ready", {"seed": "1", "game": "quiz", "players": 6}, [])
probe("quiz_armed", {"seed": "1", "game": "quiz", "players": 6}, ['{"cmd":"arm"}'])
probe("difference", {"seed": "1", "game": "difference", "players": 4}, [])
"""

IDLE_FRAME_PROBE = """
import gc, micropython
from tablebuzz.sim import runner

class Quiet:  # the PIO state machine's put, as the chip's (the fake's records the words)
    def put(self, words, shift):
        pass

def probe(name, header, lines, press=None):
    sim = runner.Simulation(header, lambda t, line: None)
    w = sim.world
    for line in lines:
        sim.console.feed(line.encode() + b"\\n")
    if press is not None:  # a buzz after the commands: the floor and its answer time
        w.run_until(w.now + 200000000)
        sim.players[press].press()
        w.run_until(w.now + 60000000)
        sim.players[press].release()
    w.run_until(w.now + 1000000000)  # boot, the commands, their lines and tones out
    app = sim.app
    del app.board.show  # the firmware's own Board.show, not the CPU model's charge around it
    app.board.pixels.sm = Quiet()
    step = app.step
    count = {"passes": 0, "failed": 0, "rendered": 0}

    def locked():  # every pass the simulator runs, under heap_lock()
        before = app._render_at
        gc.collect()
        micropython.heap_lock()
        try:
            step()
        except MemoryError:
            count["failed"] += 1
        micropython.heap_unlock()
        count["passes"] += 1
        count["rendered"] += app._render_at != before

    app.step = locked
    for _ in range(30):  # the simulator skips idle passes: one a frame at least, here
        w.run_until(w.now + app.frame_us * 1000)
        app.step()
    if sim.app is not app or count["passes"] < 30 or count["rendered"] < 30:
        print(name, "did not run", count)
    print(name, count["failed"])

for game in ("deglingo", "diddly", "evidence", "redblack"):
    probe(game, {"seed": "1", "game": game, "players": 4}, [])
probe("difference_over", {"seed": "1", "game": "difference", "players": 4}, ['{"cmd":"end"}'])
probe("teams_over", {"seed": "1", "game": "quiz", "players": 4,
                     "options": {"teams": [[1, 2], [3, 4]]}}, ['{"cmd":"end"}'])
timed = {"seed": "1", "game": "quiz", "players": 4, "options": {"buzz_s": 60, "answer_s": 60}}
probe("buzz_timer", timed, ['{"cmd":"arm"}'])  # armed: the race's passes too
probe("answer_timer", timed, ['{"cmd":"arm"}'], press=0)
deglingo = {"seed": "1", "game": "deglingo", "players": 4, "options": {"timer": 60}}
probe("deglingo_timer", deglingo, [], press=0)  # the active player calls: the round's timer
"""


def test_idle_passes_allocate_nothing():
    proc = subprocess.run(micropython_command(IDLE_PASS_PROBE), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    # 30 idle passes each, every one under heap_lock(): an allocation raises MemoryError there
    assert proc.stdout.split() == [
        "menu", "30", "quiz_ready", "30", "quiz_armed", "30", "difference", "30"
    ], proc.stdout


def test_moving_frames_allocate_nothing():
    """A frame that moves with time alone (a pulse, a blink, a chase, a game's own painting) is
    rendered every 25 ms while the game waits: Déglingo's, Diddly's, Evidence's and Red or
    Black's from their start, every game's at game over, a quiz's timer bar. Each render
    allocates nothing, or the idle table fills MicroPython's collection threshold in seconds
    and the collection falls inside the next command (bench/README.md "Idle frames"). While
    only a game timer runs (the quiz's, Déglingo's round), the passes before its deadline are
    idle ones (App._rest_until): an armed race with a buzz window allocated ~0.4 KB every pass
    before."""
    proc = subprocess.run(micropython_command(IDLE_FRAME_PROBE), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    # every pass of 30 frames' time under heap_lock(): none failed (a MemoryError there)
    assert proc.stdout.split() == [
        "deglingo", "0", "diddly", "0", "evidence", "0", "redblack", "0",
        "difference_over", "0", "teams_over", "0", "buzz_timer", "0", "answer_timer", "0",
        "deglingo_timer", "0",
    ], proc.stdout


WARMING_PROBE = """
import sys, micropython
from refbox.games import GAME_ORDER, game_class, needs_warming, warm

print("warming", needs_warming())
if %s:
    [warm(name, "") for name in GAME_ORDER]
micropython.qstr_info()  # "qstr pool: n_pool=.., n_qstr=.., ...": the names interned
game_class("evidence")
micropython.qstr_info()
print(sorted(m for m in sys.modules if m.startswith("refbox.games.")))
"""


@pytest.mark.parametrize("warmed", [False, True])
def test_warming_interns_every_game_s_names_once(warmed):
    """On the .mpy build (stock MicroPython), games.warm imports a game's module and lets it go
    again: the game's names stay interned, so a later change of game interns none (no new qstr
    pool, the block the chip's fragmented heap could not give: refbox.games.warm)."""
    proc = subprocess.run(micropython_command(WARMING_PROBE % warmed), capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "warming True" in proc.stdout  # (the lane runs the .mpy build: tests/conftest.py)
    before, after = [int(line.split("n_qstr=")[1].split(",")[0])
                     for line in proc.stdout.splitlines() if "n_qstr=" in line]
    if warmed:
        assert after == before, proc.stdout  # nothing left to intern
    else:
        assert after > before + 50, proc.stdout  # (what warming spares the change of game)
    kept = proc.stdout.strip().splitlines()[-1]
    assert "'refbox.games.evidence'" in kept and "'refbox.games.quiz'" not in kept, kept


IMAGE_WARMING_PROBE = """
import sys
from refbox import protocol
from refbox.games import GAME_ORDER, game_class, needs_warming, warm
from refbox.games.base import parse_options

print("warming", needs_warming())
[warm(name, "") for name in GAME_ORDER]
kept = [m for m in sys.modules if m.startswith("refbox.games.") and m != "refbox.games.base"]
print("modules", len([m for m in kept if m.split(".")[-1] in GAME_ORDER]))
shapes = [tuple(parse_options(game_class(name).OPTIONS, {})) in protocol._DICTS
          for name in GAME_ORDER]
print("shapes", shapes.count(True))
"""


def test_warming_on_the_image_keeps_each_game_and_its_options_shape():
    """Run from code that is not loaded into the heap (the image's frozen modules; here the
    .py sources, refbox.games._FROZEN), games.warm keeps each game's module and the JSON shape of
    its options: a game's first `new_game` -> `game` after power-up then makes neither (8-13 ms
    more than the next ones at 200 MHz on the emulated chip before)."""
    code = micropython_command(IMAGE_WARMING_PROBE, firmware=simulate.FIRMWARE)
    proc = subprocess.run(code, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert proc.stdout.split() == ["warming", "True", "modules", "6", "shapes", "6"], proc.stdout
