"""The display's cost, measured in the simulator's model and on the unix port.

(a) I2C, from the fake machine.I2C's model of the bus (400 kHz, 9 clocks a byte, the address
    byte and start/stop per transfer): what a full frame would hold the loop (the driver's
    show()), what one chunk holds it, and over whole games (examples/redblack_6p.jsonl,
    examples/quiz_demo.jsonl) how many chunks went out, the bus time in all, the longest the loop
    was held at once.
(b) Race decisions with and without the display: the same winners, margins and stamps, and the
    time from the first press to the `race` line (the design's budget: 5 ms).
(c) CPU on the MicroPython unix port: Oled.draw (planning what changed), rendering one line
    (Oled.work, big text included) and sending one chunk's Python side; on the chip a Python
    pass costs about 50-120x (BRIEF; bench/README.md has figures from the emulated RP2040).
    The same on CircuitPython 10.2.1's unix port (`make circuitpython`) for refbox.oled_cp over
    the real adafruit_ssd1306 (text from the font bytes, the chunk through I2CDevice), when
    that port is built, and that code on MicroPython's port. Each figure is the median of 100;
    each lane also prints the heap its driver, libraries and drawing module take (the unix
    ports are 64-bit: about twice a 32-bit chip's).
Run: .venv/bin/python bench/bench_display.py   (figures: bench/README.md)
"""

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from tablebuzz.paths import REPO  # noqa: E402
from tablebuzz.sim import simulate  # noqa: E402
from tablebuzz.sim.timeline import parse, read_setup  # noqa: E402

simulate._ensure_paths()
from refbox import pinmap  # noqa: E402
from refbox.oled import CHUNK  # noqa: E402
from tablebuzz.sim import runner  # noqa: E402
from tablebuzz.sim.world import World  # noqa: E402

CONTROLS = [name for name, _ in pinmap.CONTROLS]
GAMES = ("redblack_6p.jsonl", "quiz_demo.jsonl", "deglingo_4p.jsonl", "diddly_6p.jsonl")


def bus_ms(transfers, data_bytes, freq=400000):
    return World.i2c_ns(transfers, data_bytes, freq) / 1e6


def play(name, display):
    text = (REPO / "examples" / name).read_text()
    setup = read_setup(text)
    header = dict(setup, display=display)
    header.setdefault("options", {})
    lines = []
    sim = runner.Simulation(header, lambda t, line: lines.append((t, line)))
    sim.run(parse(text, header["players"], CONTROLS))
    return sim, [(t, json.loads(line)) for t, line in lines]


def race_delays(events):
    """[(race fields without timing, ns from its first press to the race line)]."""
    out = []
    for t, ev in events:
        if ev["ev"] == "race":
            first_ns = None
            for _, ev2 in events:
                if ev2["ev"] == "press" and (ev2["t_us"], ev2["t_ns"]) == (ev["t_us"], ev["t_ns"]):
                    first_ns = ev2["t_us"] * 1000 + ev2["t_ns"]
            out.append((ev, t - first_ns if first_ns is not None else None))
    return out


def main():
    print("(a) I2C at 400 kHz (the simulator's bus model)")
    print("  full frame, the driver's show(): %.2f ms" % (bus_ms(6, 12) + bus_ms(1, 1 + 1024)))
    print(
        "  one chunk (%d columns of a page): %.2f ms"
        % (CHUNK, bus_ms(1, 7) + bus_ms(1, 1 + CHUNK))
    )
    for name in GAMES:
        sim, with_display = play(name, True)
        stats = sim.world.stats
        longest = max([ns for _, ns, _ in sim.world.i2c_log] or [0])
        print(
            "  %-18s %5d transfers, %7.1f ms on the bus, longest transfer %.2f ms, %d chunks sent"
            % (
                name,
                stats["i2c_transfers"],
                stats["i2c_ns"] / 1e6,
                longest / 1e6,
                sim.app.display.transfers,
            )
        )
        _, without = play(name, False)
        a = race_delays(with_display)
        b = race_delays(without)
        same = [ev for ev, _ in a] == [ev for ev, _ in b]
        worst_a = max([d for _, d in a if d is not None] or [0]) / 1e6
        worst_b = max([d for _, d in b if d is not None] or [0]) / 1e6
        if a or b:
            print(
                "  %-18s (b) %d races, same decisions: %s; first press -> race line at most %.2f "
                "ms (without the display %.2f ms)" % ("", len(a), same, worst_a, worst_b)
            )
    print("(c) CPU on the unix ports")
    status = cpu_figures("MicroPython, refbox.oled", MICROPYTHON_OLED, "micropython")
    try:
        simulate.circuitpython_binary()
    except simulate.SimError as e:
        print("  CircuitPython: not measured (%s)" % e)
        return status
    font = runner.font_bytes().hex()
    status = status or cpu_figures(
        "CircuitPython, refbox.oled_cp", CIRCUITPYTHON_OLED % font, "circuitpython"
    )
    # the same code on MicroPython's interpreter: what is the module, what the interpreter
    return status or cpu_figures(
        "MicroPython, refbox.oled_cp", CIRCUITPYTHON_OLED % font, "micropython", "circuitpython"
    )


MICROPYTHON_OLED = """
import ssd1306
from refbox.oled import Oled
class Bus:
    def writeto(self, addr, buf, stop=True): return len(buf)
    def writevto(self, addr, v, stop=True): return 1
oled = Oled(ssd1306.SSD1306_I2C(128, 64, Bus(), 0x3C))
"""
CIRCUITPYTHON_OLED = """
import adafruit_ssd1306
from refbox.oled_cp import OledCP
class Bus:  # busio.I2C's interface, nothing on the wire
    def try_lock(self): return True
    def unlock(self): pass
    def writeto(self, addr, buf, *, start=0, end=None): pass
oled = OledCP(adafruit_ssd1306.SSD1306_I2C(128, 64, Bus(), addr=0x3C), bytes.fromhex("%s"))
"""


def cpu_figures(title, setup, interpreter, board=None):
    # the heap the driver, its libraries, the drawing module and their objects take
    code = "import gc\ngc.collect()\nfree = gc.mem_free()\n" + setup + """
gc.collect()
print("#heap", free - gc.mem_free())
import time
try:
    now_us = time.ticks_us
    def diff(a, b): return time.ticks_diff(a, b)
except AttributeError:  # CircuitPython: no ticks_us
    def now_us(): return time.monotonic_ns() // 1000
    def diff(a, b): return a - b
pictures = [
    ((1, "Red or Black  R2"), (3, "10H"), (1, "P1 10 of hearts"), (1, "P2 answers"),
     (1, "YES  higher"), (1, "NO   lower")),
    ((1, "Quiz          Q3"), (2, "P3 first"), (1, "by 840 ns"), (1, ""), (1, ""),
     (1, "YES  right"), (1, "NO   wrong")),
]
other = ((1, "Diddly        R3"), (2, "P4 = 17"), (1, "dealer P2"), (1, "P4 total 40"),
         (1, "ARM  +1"), (1, "NO   -1"), (1, "YES  P4 = 17"))
def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]
for pic in pictures:
    n = 100
    plans = []
    renders = []
    sends = []
    chunks = 0
    for i in range(n):
        for shown in (other, pic):
            t = now_us()
            oled.draw(shown)
            took = diff(now_us(), t)
            lines = len(oled._todo)
            count = len(oled._dirty)
            t = now_us()
            while oled._todo:
                oled.work()
            rendered = diff(now_us(), t)
            t = now_us()
            while oled.pending():
                oled.work()
            if shown is pic:
                plans.append(took)
                renders.append(rendered / lines)
                sends.append(diff(now_us(), t) / count)
                chunks = count
    print("#bench %.1f %.1f %d %.1f" % (median(plans), median(renders), chunks, median(sends)))
"""
    cmd = simulate.micropython_command(code, interpreter=interpreter, board=board or interpreter)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        said = (proc.stderr or proc.stdout).strip().splitlines() or ["(nothing said)"]
        print("  %s: the unix port failed: %s" % (title, said[-1]))
        return 1
    heap = [x for x in proc.stdout.splitlines() if x.startswith("#heap")][0].split()[1]
    print("  %s: the driver, the drawing module and their objects take %s bytes of heap" % (
        title, heap))
    for line, what in zip(
        [x for x in proc.stdout.splitlines() if x.startswith("#bench")],
        ("a card picture (scale 3)", "a race picture (scale 2)"),
        strict=True,
    ):
        plan, render, chunks, send = line.split()[1:]
        print(
            "  %-26s plan %s us, render %s us a line, %s chunks, send %s us a chunk of Python"
            % (what, plan, render, chunks, send)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
