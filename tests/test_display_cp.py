"""The display on CircuitPython (refbox.oled_cp): Adafruit's adafruit_ssd1306 driver, the real one
from PyPI, on the simulator's fake busio.I2C, must put on the glass the very frames the MicroPython
build (refbox.oled over micropython-lib's driver) puts there, in the same non-blocking pieces, and
under CircuitPython's own interpreter too."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from refbox import pinmap
from tablebuzz.sim import runner, simulate
from tablebuzz.sim.timeline import parse, read_setup

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((REPO / "examples").glob("*.jsonl"))
CONTROLS = [name for name, _ in pinmap.CONTROLS]


@pytest.fixture(autouse=True, scope="module")
def _back_to_the_micropython_lane():
    yield
    simulate._ensure_paths("micropython")


def frames(path, board, **header):
    """(the simulation, [(picture, the panel's RAM)] each time a picture was all on the glass)."""
    simulate._ensure_paths(board)
    script = Path(path).read_text()
    head = dict(read_setup(script), display=True, board=board, **header)
    sim = runner.Simulation(head, lambda t, line: None)
    oled = sim.app.display
    assert oled is not None, sim.board.display_note
    shown = []
    send_one = oled.send_one

    def watched():
        send_one()
        if not oled.pending():
            shown.append((oled.picture, bytes(sim.panel.ram)))

    oled.send_one = watched
    sim.run(parse(script, head.get("players", pinmap.PLAYER_COUNT), CONTROLS))
    return sim, shown


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_puts_the_micropython_builds_frames_on_the_glass(path):
    """Each picture both builds drew is the same 1024 bytes on the panel; both end on the same
    frame. (A picture that lived one pass can be drawn by one build and not the other: each
    draws only the newest picture, and the two board modules' passes fall differently.)"""
    mp_sim, micropython = frames(path, "micropython")
    cp_sim, circuitpython = frames(path, "circuitpython")
    assert type(cp_sim.app.display).__name__ == "OledCP"
    mp = dict(micropython)
    cp = dict(circuitpython)
    common = set(mp) & set(cp)
    assert len(common) >= 0.9 * max(len(mp), len(cp)) and len(common) >= 5
    for picture in common:
        assert cp[picture] == mp[picture], picture
    assert circuitpython[-1] == micropython[-1]
    assert cp_sim.panel.ram == mp_sim.panel.ram


def test_a_chunk_is_the_same_two_transfers_and_never_sent_in_a_race():
    """Every chunk: a 7-byte window command and a 33-byte data write (0x40 and 32 columns), as
    on MicroPython (~0.96 ms at 400 kHz); none while a race is open (App.can_block)."""
    from refbox.arbiter import ARMED

    simulate._ensure_paths("circuitpython")
    script = (REPO / "examples" / "quiz_demo.jsonl").read_text()
    sim = runner.Simulation(
        dict(read_setup(script), display=True, board="circuitpython"), lambda t, x: None
    )
    oled = sim.app.display
    world = sim.world
    phases = []
    sizes = []
    send_one = oled.send_one
    write = sim.panel.write
    sim.panel.write = lambda data: (sizes[-1].append(len(data)), write(data))

    def watched():
        phases.append(sim.app.referee.arbiter.phase)
        sizes.append([])
        before = world.stats["i2c_ns"]
        send_one()
        sizes[-1].append(world.stats["i2c_ns"] - before)

    oled.send_one = watched
    sim.run(parse(script, 6, CONTROLS))
    assert len(phases) > 20 and ARMED not in phases
    assert all(s[:2] == [7, 33] and len(s) == 3 for s in sizes), sizes[:5]
    assert all(0.9e6 < s[2] < 1.0e6 for s in sizes)  # the bus time of one chunk


def _errors(sim_lines):
    return [json.loads(x) for _, x in sim_lines if '"ev":"error"' in x]


def _run(header, monkeypatch=None):
    simulate._ensure_paths("circuitpython")
    lines = []
    head = dict({"seed": "1", "game": "quiz", "players": 6, "options": {}}, **header)
    sim = runner.Simulation(head, lambda t, x: lines.append((t, x)))
    sim.run(parse('{"at_us": 1000, "send": {"cmd": "state"}}\n', 6, CONTROLS))
    return sim, lines


def test_a_panel_without_its_driver_or_its_font_is_one_clear_error(monkeypatch):
    simulate._ensure_paths("circuitpython")
    monkeypatch.setitem(sys.modules, "adafruit_ssd1306", None)  # not in lib/
    sim, lines = _run({"display": True, "board": "circuitpython"})
    errors = _errors(lines)
    assert errors[0]["code"] == "display" and "flash --circuitpython" in errors[0]["detail"]
    assert sim.app.display is None
    monkeypatch.undo()
    # no font given: the board reads refbox.oled_cp.FONT_FILE, which this machine has not
    monkeypatch.setattr(runner, "font_bytes", lambda: None)
    sim, lines = _run({"display": True, "board": "circuitpython"})
    errors = _errors(lines)
    assert errors[0]["code"] == "display" and "font" in errors[0]["detail"]
    assert sim.app.display is None


def test_no_panel_is_no_display_and_no_error():
    sim, lines = _run({"display": False, "board": "circuitpython"})
    assert sim.app.display is None and not _errors(lines)


def test_the_fake_busio_behaves_as_circuitpythons():
    simulate._ensure_paths("circuitpython")
    import board
    import busio
    from tablebuzz.sim import world as world_module
    from tablebuzz.sim.oled import Ssd1306Panel
    from tablebuzz.sim.world import World

    world_module.current = World(b"\x01" * 16)
    with pytest.raises(RuntimeError, match="No pull up found"):
        busio.I2C(board.GP21, board.GP20)  # nothing on the bus: no pull-ups
    panel = Ssd1306Panel()
    world_module.current.i2c_devices[panel.address] = panel
    with pytest.raises(ValueError, match="Invalid pins"):
        busio.I2C(board.GP20, board.GP21)  # SCL must be the odd pin
    i2c = busio.I2C(board.GP21, board.GP20, frequency=400000)
    with pytest.raises(ValueError, match="in use"):
        busio.I2C(board.GP21, board.GP20)
    with pytest.raises(RuntimeError, match="requires lock"):
        i2c.writeto(0x3C, b"\x80\xaf")
    assert i2c.try_lock() and not i2c.try_lock()
    assert i2c.scan() == [0x3C] and i2c.probe(0x3C) and not i2c.probe(0x3D)
    with pytest.raises(OSError) as e:
        i2c.writeto(0x3D, b"\x80\xaf")
    assert e.value.args[0] == 19  # ENODEV
    i2c.writeto(0x3C, b"\xff\x00\xaf\x40\x01", start=1, end=3)  # the slice only: display on
    assert panel.on and panel.data_bytes == 0
    i2c.unlock()
    i2c.deinit()
    busio.I2C(board.GP21, board.GP20)  # the pins are free again


FRAMES_CODE = """
import json, sys
from tablebuzz.sim import runner
head = json.loads(sys.stdin.readline())
records = [json.loads(line) for line in sys.stdin]
sim = runner.Simulation(head, lambda t, x: None)
oled = sim.app.display
print(type(oled).__name__)
send_one = oled.send_one
def watched():
    send_one()
    if not oled.pending():
        print(bytes(sim.panel.ram).hex())
oled.send_one = watched
sim.run(records)
"""


@pytest.mark.circuitpython
def test_circuitpythons_interpreter_draws_the_same_frames():
    """The firmware, adafruit_ssd1306, adafruit_framebuf (CircuitPython has no framebuf) and
    adafruit_bus_device under CircuitPython 10.2.1's unix port: the same frames, at the same
    points, as under CPython."""
    try:
        simulate.circuitpython_binary()
    except simulate.SimError as e:
        pytest.skip("CircuitPython's unix port is not built here (%s)" % e)
    path = REPO / "examples" / "redblack_2p.jsonl"
    script = path.read_text()
    head = dict(read_setup(script), display=True, board="circuitpython")
    records = parse(script, head.get("players", pinmap.PLAYER_COUNT), CONTROLS)
    from tablebuzz.sim import cost

    # the same CPU model as the in-process run (tests/conftest.py's), the glyphs as flash gives
    feed = [json.dumps(dict(head, cpu=cost.DEFAULT, font=runner.font_bytes().hex()))]
    feed += [json.dumps(r) for r in records]
    cmd = simulate.micropython_command(
        FRAMES_CODE, interpreter="circuitpython", board="circuitpython"
    )
    proc = subprocess.run(
        cmd, input="\n".join(feed) + "\n", capture_output=True, text=True, env={"MICROPYPATH": ""}
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout.split()
    assert out[0] == "OledCP"
    _, cpython = frames(path, "circuitpython")
    assert out[1:] == [ram.hex() for _, ram in cpython]


def test_the_same_pictures_give_the_same_glass_and_the_same_bus_bytes():
    """refbox.oled over micropython-lib's driver (the simulator's) against refbox.oled_cp over
    the real adafruit_ssd1306, picture after picture (big text, characters past ASCII, a line
    cut at the edge): the same panel RAM after each, and the same chunk transfers."""
    from test_display import PICTURES

    pictures = list(PICTURES) + [
        ((1, "x" * 20), (3, "Wide!"), (2, "\u00e9t\u00e9 \u00e0 2")),
        ((1, ""), (1, "\x01\x7f tab\tend")),
    ]
    simulate._ensure_paths("micropython")
    import ssd1306
    from refbox.oled import Oled
    from tablebuzz.sim.oled import Ssd1306Panel

    def run(make):
        panel = Ssd1306Panel()
        sent = []

        def write(data):
            sent.append(bytes(data))
            panel.write(bytes(data))

        oled = make(write)
        sent.clear()  # the drivers' set-up sequences differ; the pictures' bytes must not
        out = []
        for picture in pictures:
            oled.draw(picture)
            while oled.pending():
                oled.work()
            out.append(bytes(panel.ram))
        return out, sent

    class MicroPythonBus:
        def __init__(self, write):
            self.write = write

        def writeto(self, addr, buf, stop=True):
            self.write(buf)

        def writevto(self, addr, vector, stop=True):
            self.write(b"".join(bytes(v) for v in vector))

    micropython = run(lambda w: Oled(ssd1306.SSD1306_I2C(128, 64, MicroPythonBus(w), 0x3C)))
    simulate._ensure_paths("circuitpython")
    import adafruit_ssd1306
    from refbox.oled_cp import OledCP

    class CircuitPythonBus:  # busio.I2C's interface
        def __init__(self, write):
            self.write = write

        def try_lock(self):
            return True

        def unlock(self):
            pass

        def writeto(self, addr, buf, *, start=0, end=None):
            if end != start:  # I2CDevice's probe is a zero-length write
                self.write(memoryview(buf)[start:end])

    circuitpython = run(
        lambda w: OledCP(
            adafruit_ssd1306.SSD1306_I2C(128, 64, CircuitPythonBus(w), addr=0x3C),
            runner.font_bytes(),
        )
    )
    assert circuitpython[0] == micropython[0]
    assert circuitpython[1] == micropython[1]


def test_the_core_hashes_with_circuitpythons_hashlib(monkeypatch):
    """CircuitPython's hashlib has only new(name, data) (no hashlib.sha256: on the emulated RP2040
    the first game's commitment raised AttributeError): refbox.compat.sha256 takes that way, and
    the commitment and the journal's check are the same bytes."""
    import hashlib
    import types

    from refbox import compat, journal, prng

    before = (prng.commitment(b"\x01" * 16), journal.checksum(b"payload"))
    only_new = types.SimpleNamespace(new=lambda name, data=b"": hashlib.new(name, data))
    monkeypatch.setattr(compat, "hashlib", only_new)
    monkeypatch.setattr(compat, "_sha256", getattr(only_new, "sha256", None))
    assert (prng.commitment(b"\x01" * 16), journal.checksum(b"payload")) == before
