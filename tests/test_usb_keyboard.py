"""USB keyboard mode (issue 23, docs/usb-keyboard.md): a race's winner types their station's key.

- The firmware's side that needs no library (refbox.keys: which key for which station, the
  file's mistakes, the Typist's press-then-release that never waits), the same story on CPython
  and the MicroPython unix port.
- The simulator without micropython-lib (a board the library was never installed on): the box
  says so once at boot and plays on, every line as without the option.
- The REAL micropython-lib usb-device + usb-device-hid + usb-device-keyboard (from a checkout
  given by MPLIB_SRC; skipped with the reason without one) on the fake machine.USBDevice under
  the MicroPython unix port: the box enumerates with the CDC console kept (interfaces 0-1) and a
  boot keyboard (interface 2), and a scripted game's race winners type their keys, each report
  submitted after the race line and the winner's LED frame.
"""

import json
import subprocess
import sys

import pytest
from helpers import CONTROLS, run_sim, timeline
from tablebuzz.paths import FAKES, FIRMWARE, HOST
from tablebuzz.sim import mplib, simulate
from tablebuzz.sim.timeline import parse

pytestmark = pytest.mark.cpu_model  # on the modelled chip: line times as the chip's
BOTH = ["cpython", pytest.param("micropython", marks=pytest.mark.micropython)]

STORY = r"""
import json
from refbox.keys import KEY_CODES, KeyConfigError, Typist, default_keys, parse_keys

out = {}
out["default"] = sorted(default_keys(8).items())
out["parsed"] = sorted(parse_keys({"keys": {"1": "A", "3": ["LEFT_SHIFT", "F5"], "8": "SPACE"}},
                                  8).items())
errors = []
for bad in ([], {"keys": []}, {"keys": {"9": "A"}}, {"keys": {"x": "A"}},
            {"keys": {"2": "NOPE"}}, {"keys": {"2": 4}},
            {"keys": {"2": ["A", "B", "C", "D", "E", "F", "G"]}}):
    try:
        parse_keys(bad, 8)
        errors.append(None)
    except KeyConfigError as e:
        errors.append(str(e))
out["errors"] = errors


class Keyboard:
    # micropython-lib's KeyboardInterface as the Typist uses it: send_keys, busy, is_open
    def __init__(self):
        self.sent = []
        self.open = True
        self.pending = False

    def is_open(self):
        return self.open

    def busy(self):
        return self.pending

    def send_keys(self, down_keys, timeout_ms=100):
        self.sent.append((list(down_keys), timeout_ms))
        self.pending = True
        return True


kb = Keyboard()
t = Typist(parse_keys({"keys": {"1": "A", "2": "B"}}, 8), kb)
t.race(2)
t.race(5)  # no key for station 5: nothing typed
steps = []
for i in range(5):
    t.service()
    steps.append((len(kb.sent), t.pending))
    if i % 2:
        kb.pending = False  # the host polls every other pass
out["steps"] = steps
out["sent"] = kb.sent
out["typed"] = t.typed
for _ in range(6):
    t.race(1)
out["most_waiting"] = (t.dropped, len(t._reports))
kb.open = False
t.service()
out["closed"] = (t.dropped, t.pending)
out["codes"] = (KEY_CODES["A"], KEY_CODES["Z"], KEY_CODES["N1"], KEY_CODES["N0"], KEY_CODES["F12"],
                KEY_CODES["KP_9"], KEY_CODES["LEFT_SHIFT"])
print(json.dumps(out))
"""


def _cpython(code):
    prelude = "import sys; sys.path[:0] = %r; " % ([str(FAKES), str(FIRMWARE), str(HOST)],)
    return [sys.executable, "-c", prelude + code]


def _run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True, env={"MICROPYPATH": ""})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("interpreter", BOTH)
def test_which_key_for_which_station_and_a_tap_that_never_waits(interpreter):
    cmd = _cpython(STORY) if interpreter == "cpython" else simulate.micropython_command(STORY)
    out = _run(cmd)
    assert out["default"] == [[s, [29 + s]] for s in range(1, 9)]  # the number row, N1..N8
    assert out["parsed"] == [[1, [4]], [3, [-2, 62]], [8, [44]]]
    e = out["errors"]
    assert None not in e  # every mistake is refused, each with its line
    assert "not a JSON object" in e[0] and '"keys" is not an object' in e[1]
    assert "station '9' is not 1..8" in e[2] and "station 'x'" in e[3]
    assert "unknown key 'NOPE'" in e[4] and "unknown key 4" in e[5] and "more than 6" in e[6]
    # the press goes out, the release only once the host took it, never a wait (0 ms)
    assert out["steps"] == [[1, True], [1, True], [2, False], [2, False], [2, False]]
    assert out["sent"] == [[[5], 0], [[], 0]] and out["typed"] == 1
    assert out["most_waiting"] == [2, 8]  # 4 taps wait at most; the 5th and 6th are not typed
    assert out["closed"] == [6, False]  # no host opened the keyboard: nobody to type to
    assert out["codes"] == [4, 29, 30, 39, 69, 97, -2]  # HID Usage Tables, Keyboard page


GAME = timeline(
    {"at_us": 100000, "control": "arm"},
    {"at_us": 400000, "press": 3},
    {"at_us": 400000.84, "press": 1},
    {"at_us": 500000, "release": 3},
    {"at_us": 500000, "release": 1},
    {"at_us": 700000, "control": "yes"},
    {"at_us": 900000, "control": "arm"},
    {"at_us": 1200000, "press": 6},
    {"at_us": 1300000, "release": 6},
    {"at_us": 1500000, "control": "no"},
)


@pytest.mark.parametrize("interpreter", BOTH)
def test_without_the_library_the_box_says_so_once_and_plays_as_without_the_option(interpreter):
    plain = run_sim(GAME, interpreter=interpreter)
    asked = run_sim(GAME, interpreter=interpreter, usb_keyboard={"keys": {"3": "A"}})
    errors = [ev for _, ev in asked if ev["ev"] == "error"]
    assert len(errors) == 1 and errors[0]["code"] == "usb_keyboard"
    assert "usb-device-keyboard is not on the board" in errors[0]["detail"]
    rest = [ev for _, ev in asked if ev["ev"] != "error"]
    assert rest == [ev for _, ev in plain]  # the game itself is the same
    bad = run_sim(GAME, interpreter=interpreter, usb_keyboard={"keys": {"3": "NOPE"}})
    (error,) = [ev for _, ev in bad if ev["ev"] == "error"]
    assert "unknown key 'NOPE'" in error["detail"]  # the file's mistake is named first


REAL_LIB = r"""
import json, sys
sys.path.insert(0, %(lib)r)
from tablebuzz.sim.runner import Simulation
from tablebuzz.sim import usbhost

header = json.loads(%(header)r)
records = json.loads(%(records)r)
lines = []
sim = Simulation(header, lambda t, line: lines.append((t, line))).run(records)
import machine
host = usbhost.host(sim.world)
usbd = machine.USBDevice()
print(json.dumps({
    "lines": lines,
    "reports": [(t, ep, list(data)) for t, ep, data in host.reports],
    "submits": [(t, ep, list(data)) for t, ep, data in host.submits],
    "frames": [(t, [list(p) for p in frame]) for t, _, frame in sim.world.pixel_frames],
    "interfaces": host.interfaces, "problems": host.problems,
    "hid": {str(k): len(v) for k, v in host.hid.items()},
    "cfg_head": list(bytes(usbd.desc_cfg)[:75]),
    "builtin": list(machine.USBDevice.BUILTIN_DEFAULT.desc_cfg),
}))
"""


@pytest.fixture(scope="module")
def usb_lib(tmp_path_factory):
    try:
        return mplib.usb_library(out=tmp_path_factory.mktemp("mplib"))
    except mplib.MplibMissingError as e:
        pytest.skip("micropython-lib's USB packages: %s" % e)


@pytest.mark.micropython
def test_the_real_micropython_lib_keyboard_types_each_race_winners_key_after_the_line(usb_lib):
    header = {"seed": "1", "game": "quiz", "players": 6, "options": {},
              "usb_keyboard": {"keys": {"3": "A", "6": ["LEFT_SHIFT", "N6"]}}}
    records = list(parse(GAME, 6, CONTROLS))
    code = REAL_LIB % {"lib": str(usb_lib), "header": json.dumps(header),
                       "records": json.dumps(records)}
    out = _run(simulate.micropython_command(code))
    assert out["problems"] == []
    # the console is kept: the built-in CDC's interfaces 0-1 first, then the boot keyboard
    assert out["interfaces"] == [[0, 2], [1, 10], [2, 3]]
    assert out["cfg_head"][9:] == out["builtin"][9:] and out["cfg_head"][4] == 3
    assert out["hid"] == {"2": 63}  # the host read the keyboard's report descriptor
    plain = dict(header)
    del plain["usb_keyboard"]
    # the keyboard changes no line and no line's time: the same as CPython's run without it
    assert out["lines"] == [[t, line] for t, line in simulate.run(plain, records)]
    lines = [(t, json.loads(line)) for t, line in out["lines"]]
    assert not [ev for _, ev in lines if ev["ev"] == "error"]
    races = [(t, ev["winner"]) for t, ev in lines if ev["ev"] == "race"]
    assert [w for _, w in races] == [3, 6]
    reports = out["reports"]
    # each winner's tap: the key down, then every key up; modifiers in byte 0 (LEFT_SHIFT 0x02)
    assert [r[2] for r in reports] == [[0, 0, 4, 0, 0, 0, 0, 0], [0] * 8,
                                       [2, 0, 35, 0, 0, 0, 0, 0], [0] * 8]
    assert {r[1] for r in reports} == {0x83}  # the keyboard's interrupt IN endpoint
    downs = [s for s in out["submits"] if s[1] == 0x83][::2]
    for (race_t, _), (submit_t, _, _) in zip(races, downs, strict=True):
        assert submit_t >= race_t  # never before the race line
        shown = [t for t, _ in out["frames"] if race_t <= t <= submit_t]
        assert shown  # the race's LED frame was shown after the line, before the key
        assert submit_t - race_t < 20_000_000  # and the key follows within the pass or so
    assert reports[0][0] - races[0][0] < 30_000_000  # typed within 30 ms of the race line


@pytest.mark.micropython
def test_the_real_library_and_this_table_agree_on_every_key_name(usb_lib):
    code = ("import sys, json; sys.path.insert(0, %r)\n"
            "from usb.device.keyboard import KeyCode\n"
            "from refbox.keys import KEY_CODES\n"
            "names = [n for n in dir(KeyCode) if not n.startswith('_')]\n"
            "print(json.dumps([names, [[n, getattr(KeyCode, n), KEY_CODES.get(n)] "
            "for n in names]]))" % str(usb_lib))
    names, pairs = _run(simulate.micropython_command(code))
    assert len(names) > 100
    assert [p for p in pairs if p[1] != p[2]] == []  # every KeyCode name, the same HID code


@pytest.mark.micropython
def test_after_a_power_cut_the_keyboard_comes_back_with_the_resumed_game(usb_lib):
    cut = timeline(
        {"at_us": 100000, "control": "arm"},
        {"at_us": 400000, "press": 3},
        {"at_us": 500000, "release": 3},
        {"at_us": 600000, "power": "off"},
        {"at_us": 1000000, "power": "on"},
        {"at_us": 2500000, "control": "no"},
        {"at_us": 2700000, "control": "arm"},
        {"at_us": 3000000, "press": 2},
        {"at_us": 3100000, "release": 2},
    )
    header = {"seed": "1", "game": "quiz", "players": 6, "options": {}, "flash": {},
              "usb_keyboard": {"keys": {"2": "B", "3": "A"}}}
    code = REAL_LIB % {"lib": str(usb_lib), "header": json.dumps(header),
                       "records": json.dumps(list(parse(cut, 6, CONTROLS)))}
    out = _run(simulate.micropython_command(code))
    lines = [json.loads(line) for _, line in out["lines"]]
    assert [ev["ev"] for ev in lines].count("resume") == 1
    assert [ev["winner"] for ev in lines if ev["ev"] == "race"] == [3, 2]
    assert [r[2][2] for r in out["reports"]] == [4, 0, 5, 0]  # A, up; after the cut B, up
    assert out["problems"] == [] and out["hid"] == {"2": 63}  # enumerated again at power-up


def test_the_fake_usb_device_keeps_the_rules_of_v1_28_0():
    """The fake's refusals are those of extmod/machine_usb_device.c, so that code the fake
    accepts runs on the board too."""
    import machine
    from tablebuzz.sim import usbhost, world

    world.current = w = world.World(b"usb")
    machine.USBDevice._instance = None
    usbd = machine.USBDevice()
    assert machine.USBDevice() is usbd  # a singleton
    assert usbd.builtin_driver is usbd.BUILTIN_NONE  # until set
    builtin = usbd.BUILTIN_DEFAULT
    assert (builtin.itf_max, builtin.ep_max, builtin.str_max) == (2, 3, 5)
    cfg = builtin.desc_cfg
    assert len(cfg) == cfg[2] == 75 and cfg[4] == 2  # the CDC's configuration, 2 interfaces
    with pytest.raises(OSError) as e:
        usbd.active(True)  # nothing configured and no built-in driver
    assert e.value.args == (22,)
    with pytest.raises(TypeError):
        usbd.config(builtin.desc_dev, cfg)  # desc_strs is required in the C code
    with pytest.raises(ValueError, match="desc_dev"):
        usbd.config(42, cfg, None)
    with pytest.raises(ValueError, match="desc_strs"):
        usbd.config(builtin.desc_dev, cfg, 42)
    with pytest.raises(OSError):
        usbd.submit_xfer(0x83, b"x")  # not active
    usbd.builtin_driver = builtin
    usbd.config(builtin.desc_dev, cfg, [None] * 5)
    assert usbd.active(True) is False and usbd.active() is True  # returns the state before
    with pytest.raises(OSError):
        usbd.builtin_driver = usbd.BUILTIN_NONE  # only while inactive
    with pytest.raises(OSError):
        usbd.submit_xfer(0x82, b"x")  # the change is processed by the TinyUSB task first
    w.run_until(w.now + (usbhost.ENUMERATE_MS + 1) * 1000000)
    assert usbhost.host(w).configured and usbhost.host(w).problems == []
    with pytest.raises(ValueError, match="ep"):
        usbd.submit_xfer(0x80, b"x")  # never the control endpoint
    assert usbd.submit_xfer(0x82, b"x") is True
    with pytest.raises(OSError) as e:
        usbd.submit_xfer(0x82, b"y")  # one transfer an endpoint
    assert e.value.args == (16,)
    assert usbd.submit_xfer(0x85, b"x") is False  # an endpoint the host never opened
    machine.USBDevice._instance = None
    world.current = None


def test_the_board_reads_usb_keyboard_json_and_says_what_keeps_the_mode_off(tmp_path):
    from refbox import board

    path = str(tmp_path / "usb_keyboard.json")
    assert board.start_usb_keyboard(8, path) == (None, None)  # no file: off, nothing to say
    (tmp_path / "usb_keyboard.json").write_text("{not json")
    typist, note = board.start_usb_keyboard(8, path)
    assert typist is None and "usb_keyboard.json is not JSON" in note
    (tmp_path / "usb_keyboard.json").write_text('{"keys": {"1": "A"}}')
    typist, note = board.start_usb_keyboard(8, path)  # no micropython-lib here
    assert typist is None and "usb-device-keyboard is not on the board" in note
    board._keyboard = None
