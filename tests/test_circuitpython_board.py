"""The CircuitPython board module (refbox.board_cp) on its fakes (tablebuzz.sim.fakes_cp) with the
real Adafruit libraries: the same PIO program, the same events as refbox.board for every example,
and the CircuitPython modules' behaviour the module leans on (keypad's scanner, background_read's
ring, usb_cdc's non-blocking writes, CIRCUITPY's owner)."""

import json
from pathlib import Path

import pytest
from helpers import CONTROLS, example_run, races
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((REPO / "examples").glob("*.jsonl"))
STAMPED = ("t_us", "t_ns")  # the fields carrying a press stamp (docs/protocol.md)


@pytest.fixture(autouse=True, scope="module")
def _back_to_the_micropython_lane():
    """These tests switch sys.path to the CircuitPython fakes; the other files expect the
    MicroPython ones (tests/conftest.py puts them there)."""
    yield
    simulate._ensure_paths("micropython")


def _stamp_ns(event):
    return event["t_us"] * 1000 + event["t_ns"]


CONTROL_LAG_NS = 15_000_000  # keypad: up to 2 scans of 5 ms after the contact settles


def _ties_sorted(events):
    """Runs of press events with one and the same stamp in player order: presses that tie to the
    ns are accepted by their debouncers in whichever pass each contact settles (its own bounce),
    so their lines' order says nothing (docs/protocol.md: the stamps give the true order)."""
    out = list(events)
    i = 0
    while i < len(out):
        j = i
        while out[i][1].get("ev") == "press" and (
            j + 1 < len(out)
            and out[i][1].get("ev") == "press" == out[j + 1][1].get("ev")
            and _stamp_ns(out[j + 1][1]) == _stamp_ns(out[i][1])
        ):
            j += 1
        if j > i:
            out[i : j + 1] = sorted(out[i : j + 1], key=lambda e: e[1]["player"])
        i = j + 1
    return out


def same_but_anchor(mp_lines, cp_lines):
    """The two boards' events agree in every field and in order, except:
    - press stamps may all differ by one constant per boot of less than 1 µs: the two modules
      anchor the PIO counter to the µs clock differently (refbox.board: a DMA read of TIMERAWL,
      +0.5 µs; refbox.board_cp: the midpoint of two reads around restart(), +0.5 µs), each within
      ±0.5 µs of the true start. Margins, ties and order come from differences of stamps, so
      they must be identical;
    - the lines' own times (when the host got them) may differ by up to CONTROL_LAG_NS: a control
      acts when keypad's scans have seen it, not 10 ms after its IRQ-stamped edge;
    - presses tied to the ns may come in another order (_ties_sorted);
    - an `armed` line's cue (t_us, t_ns) when a control armed it: its instant comes from the
      control's IRQ stamp on one board, from keypad's scan on the other.
    Returns the offsets seen (ns)."""
    assert len(mp_lines) == len(cp_lines)
    mp_events = _ties_sorted([(ns, json.loads(text)) for ns, text in mp_lines])
    cp_events = _ties_sorted([(ns, json.loads(text)) for ns, text in cp_lines])
    per_boot = {}
    boot = 0
    for (mp_ns, mp), (cp_ns, cp) in zip(mp_events, cp_events, strict=True):
        assert abs(mp_ns - cp_ns) <= CONTROL_LAG_NS, (mp, cp)
        if mp.get("ev") == "hello":
            boot += 1
        if mp.get("ev") == "armed":  # the cue: an ARM's instant, IRQ-stamped on one board,
            mp = {k: v for k, v in mp.items() if k not in STAMPED}  # keypad-scanned on the
            cp = {k: v for k, v in cp.items() if k not in STAMPED}  # other (CONTROL_LAG_NS)
        if "t_ns" in mp and "t_ns" in cp:
            per_boot.setdefault(boot, set()).add(_stamp_ns(cp) - _stamp_ns(mp))
            mp = {k: v for k, v in mp.items() if k not in STAMPED}
            cp = {k: v for k, v in cp.items() if k not in STAMPED}
        assert mp == cp
    for boot, offsets in per_boot.items():
        assert len(offsets) == 1, per_boot  # one constant per boot
        if boot == 1:  # after a resume the clock also carries the journal's save tick, which
            # the two modules' controls (IRQ edges, keypad scans) may have reached ms apart
            assert abs(next(iter(offsets))) < 1000
    return per_boot


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_gives_the_same_events_on_both_board_modules(path):
    mp = example_run(path, "micropython")
    cp = example_run(path, "circuitpython")
    assert len(mp) > 5
    same_but_anchor(mp, cp)
    hello = json.loads(cp[0][1])
    assert hello["ev"] == "hello" and hello["capture"] == "pio"


def test_a_close_race_has_the_same_margin_and_winner():
    """Two presses 3 µs apart: decided by PIO stamps on both modules, to the same ns."""
    text = "\n".join(
        json.dumps(r)
        for r in (
            {"at_us": 100000, "control": "arm"},
            {"at_us": 400000, "press": 4},
            {"at_us": 400003, "press": 2},
            {"at_us": 600000, "release": 4},
            {"at_us": 600000, "release": 2},
        )
    )
    head = {"game": "quiz", "players": 6, "seed": "1", "options": {}}
    records = parse(text + "\n", 6, CONTROLS)
    mp = simulate.run(head, records)
    cp = simulate.run(dict(head, board="circuitpython"), records)
    same_but_anchor(mp, cp)
    race = races([(ns, json.loads(t)) for ns, t in cp])
    assert race and race[0]["winner"] == 4 and abs(race[0]["margin_ns"] - 3000) <= 56


def test_the_pio_program_is_refbox_boards_instruction_for_instruction():
    """adafruit_pioasm's machine code for board_cp's text, decoded, is the program
    refbox.board assembles with rp2.asm_pio (labels compared by address)."""
    simulate._ensure_paths("micropython")
    from refbox import board

    mp_program = board.edge_timestamper(6)
    simulate._ensure_paths("circuitpython")
    import rp2pio
    from refbox import board_cp

    cp = board_cp.edge_timestamper(6)
    decoded = rp2pio.decode(
        list(cp.assembled), cp.pio_kwargs["wrap_target"], cp.pio_kwargs["wrap"]
    )

    def norm(program):
        out = []
        for instr in program.instrs:
            args = tuple(
                program.labels[a] if instr.op == "jmp" and isinstance(a, str) else a
                for a in instr.args
            )
            out.append((instr.op, args, instr.delay, instr.side_value))
        return out, program.wrap_target, program.wrap

    assert norm(decoded) == norm(mp_program)
    assert len(decoded.instrs) == 19


# ---------------------------------------------------------------- the fakes' own behaviour
class _World:
    """A fresh simulated world for one test of the fakes."""

    def __init__(self):
        simulate._ensure_paths("circuitpython")
        from tablebuzz.sim import world

        self.world = world.World(b"\x00" * 16)
        world.current = self.world


def test_keypad_scans_debounce_and_stamp_in_ms():
    w = _World().world
    import board
    import keypad

    w.set_level(13, 0)  # held at construction: no press event, its release gives one
    keys = keypad.Keys((board.GP10, board.GP13), value_when_pressed=False, interval=0.005,
                       debounce_threshold=2)
    w.run_until(20_000_000)
    assert not keys.events
    w.set_level(10, 0)  # pressed at 20 ms
    w.run_until(60_000_000)
    w.set_level(10, 1)
    w.set_level(13, 1)
    w.run_until(100_000_000)
    got = []
    event = keypad.Event()
    while keys.events.get_into(event):
        got.append((event.key_number, event.pressed, event.timestamp))
    assert [(k, p) for k, p, _ in got] == [(0, True), (0, False), (1, False)]
    # two scans of 5 ticks (4.88 ms) after the edge: stamped 24-30 ms, in whole ms
    assert 24 <= got[0][2] <= 30
    assert 64 <= got[1][2] <= 70


def test_keypad_queue_overflow_is_flagged():
    w = _World().world
    import board
    import keypad

    keys = keypad.Keys((board.GP10,), value_when_pressed=False, interval=0.001, max_events=2)
    t = 0
    for _ in range(3):
        for level in (0, 1):
            w.set_level(10, level)
            t += 10_000_000
            w.run_until(t)
    assert len(keys.events) == 2 and keys.events.overflowed
    keys.events.clear()
    assert not keys.events.overflowed


def test_background_read_fills_the_ring_in_order_and_wraps():
    """Words land in the loop buffer in push order; at its end the completion interrupt points
    the DMA at the start again; board_cp reads by content (-1 = not written)."""
    w = _World().world
    simulate._ensure_paths("circuitpython")
    from refbox import board_cp

    capture = board_cp.PioEdgeCapture(2, 6, w)
    capture.words = capture.words  # (the array the DMA writes)
    w.run_until(1_000_000)
    assert capture.pending() == 1  # the first sample: levels as found
    capture.taken(1)
    t = 1_000_000
    for i in range(1030):  # more than a ring of changes, read as they come
        w.set_level(2 + i % 6, 0 if (i // 6) % 2 == 0 else 1)
        t += 20_000
        w.run_until(t)
        n = capture.pending()
        assert n == 1, i
        capture.taken(n)
    assert capture.index == 1031 % board_cp.RING_WORDS
    assert not capture.stalled()


def test_usb_data_writes_never_wait_and_reads_take_what_waits():
    w = _World().world
    from tablebuzz.sim.runner import FakeConsole

    lines = []
    console = FakeConsole(w, lambda t, line: lines.append(line))
    w.usb_console = console
    import usb_cdc
    from refbox import board_cp

    port = board_cp.UsbDataConsole(usb_cdc._simulated_boot())
    console.host_reading(False)  # connected, not reading: the 256-byte FIFO fills
    from refbox.outbox import Outbox

    sent = 0
    chunk = Outbox.chunk
    while port.writable():
        port.write(b"x" * chunk, 0, chunk)
        sent += chunk
    assert sent == 256 and w.now == 0  # a chunk only with room for all of it: no wait
    assert console.tx_used() == 256  # (nothing is lost: a write takes what fits)
    console.host_reading(True)
    console.feed(b'{"cmd":"state"}\n' * 5)
    assert len(port.read()) == 64 and len(port.read()) == 16 and port.read() == b""
    console.feed(b"\x03")
    assert port.read() == b"\x03"  # only a byte on the data channel


def test_circuitpy_belongs_to_the_code_only_after_boot_remounts_it():
    _World()
    import storage
    from refbox import board_cp

    storage._power_on()
    assert not board_cp.journal_writable()  # the host's, as after the safe-boot escape
    storage.remount("/", readonly=False)
    storage._boot_done()
    assert board_cp.journal_writable()
    with pytest.raises(RuntimeError):
        storage.remount("/", readonly=True)  # only boot.py may change the owner


def _cp_boot(undo_held):
    """Run firmware/circuitpython/boot.py on the fakes as CircuitPython does at power-up."""
    w = _World().world
    import storage
    import usb_cdc

    storage._power_on()
    if undo_held:
        from refbox import pinmap

        w.set_level(dict(pinmap.CONTROLS)["undo"], 0)
    exec((REPO / "firmware" / "circuitpython" / "boot.py").read_text(), {"__name__": "__main__"})
    storage._boot_done()
    return storage, usb_cdc


def test_boot_gives_the_drive_to_the_code_and_enables_the_data_channel():
    from refbox import board_cp

    storage, usb_cdc = _cp_boot(undo_held=False)
    assert board_cp.journal_writable()
    assert usb_cdc._enabled == {"console": True, "data": True}


def test_undo_held_at_power_up_leaves_the_drive_to_the_computer():
    from refbox import board_cp

    _cp_boot(undo_held=True)
    assert not board_cp.journal_writable()  # no journal: a fresh start, the old one untouched
