"""The CircuitPython board module next to the MicroPython one, each on its own interpreter's unix
port: idle pass cost and bytes per pass, the live heap in each game, and first press -> race.

Lanes: refbox.board on the MicroPython unix port (v1.28, .venv/bin/micropython), refbox.board_cp
on CircuitPython's unix port (10.2.1, `make circuitpython`), and refbox.board_cp on the
MicroPython port (to tell the interpreter from the board module). Each scenario is built through
the simulator (tablebuzz.sim.runner.Simulation, the unchanged firmware with that board's fakes),
then App.step() is called once per simulated millisecond (World.run_until between calls, outside
the timing). Per pass: the median µs (a monotonic clock around step() alone; this machine is
shared, so the median) and bytes allocated (gc.mem_alloc() with gc disabled). Heap: gc.mem_alloc()
after gc.collect() once the game is set up (the firmware, the simulator and the fakes together, so
compare the lanes, not the absolute figures). Race: six presses 10 µs apart with typical bounce,
every pass from the first press to the `race` line: passes, total µs, bytes.
On the chip a pass costs 50-120x its unix-port time (shared/design.md); CircuitPython's fakes
(rp2pio, keypad, usb_cdc) are Python here and C on the board, as MicroPython's are.
Run: .venv/bin/python bench/bench_circuitpython.py   (figures: bench/README.md)
"""

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from tablebuzz.sim import simulate  # noqa: E402

PASSES = 300
HEAP = "2M"

CODE = """pass
import gc, json
try:
    from time import ticks_us, ticks_diff
except ImportError:  # CircuitPython: no ticks_us; its unix port's monotonic_ns is the host clock's
    from time import monotonic_ns
    def ticks_us():
        return monotonic_ns() // 1000
    def ticks_diff(a, b):
        return a - b
from tablebuzz.sim import runner

BOARD = "@BOARD@"
PASSES = @PASSES@

def sim_for(header, lines=()):
    header = dict(header)
    header["board"] = BOARD
    sim = runner.Simulation(header, lambda t, line: None)
    for line in lines:
        sim.console.feed(line.encode() + b"\\n")
    sim.world.run_until(sim.world.now + 60000000)
    return sim

def passes(sim, n):
    w = sim.world
    step = sim.app.step
    alloc = 0
    ds = [0] * n
    gc.collect()
    gc.disable()
    for i in range(n):
        w.run_until(w.now + 1000000)
        a = gc.mem_alloc()
        t = ticks_us()
        step()
        ds[i] = ticks_diff(ticks_us(), t)
        alloc += gc.mem_alloc() - a
    gc.enable()
    ds.sort()
    return ds[n // 2], alloc / n

def report(name, sim):
    passes(sim, 30)
    med, per = passes(sim, PASSES)
    print("#bench", json.dumps(["pass", name, med, per]))

def heap(name, sim):
    gc.collect()
    print("#bench", json.dumps(["heap", name, gc.mem_alloc(), gc.mem_free()]))

report("menu idle", sim_for({"seed": "1"}))
report("quiz ready idle", sim_for({"seed": "1", "game": "quiz", "players": 6}))
report("quiz armed idle", sim_for({"seed": "1", "game": "quiz", "players": 6}, ['{"cmd":"arm"}']))
for game in ("quiz", "difference", "deglingo", "redblack", "diddly", "evidence"):
    heap(game, sim_for({"seed": "1", "game": game, "players": 4}))

sim = sim_for({"seed": "1", "game": "quiz", "players": 6, "bounce": "typical"}, ['{"cmd":"arm"}'])
w = sim.world
start = w.now + 500000
for i, c in enumerate(sim.players):
    w.at(start + 10000 * i, lambda contact: contact.press(), c)
raced = []
emit = sim.app.referee.emit
def noted(name, fields=()):
    raced.append(name)
    emit(name, fields)
sim.app.referee.emit = noted
w.run_until(start)
total = alloc = n = 0
gc.collect()
gc.disable()
while "race" not in raced and n < 100:
    w.run_until(w.now + 1000000)
    a = gc.mem_alloc()
    t = ticks_us()
    sim.app.step()
    total += ticks_diff(ticks_us(), t)
    alloc += gc.mem_alloc() - a
    n += 1
gc.enable()
print("#bench", json.dumps(["race", n, total, alloc]))
""".replace("@PASSES@", str(PASSES))

LANES = (
    ("MicroPython port, refbox.board", "micropython", "micropython"),
    ("CircuitPython port, refbox.board_cp", "circuitpython", "circuitpython"),
    ("MicroPython port, refbox.board_cp", "micropython", "circuitpython"),
)


def run(interpreter, board):
    cmd = simulate.micropython_command(
        CODE.replace("@BOARD@", board), HEAP, interpreter=interpreter, board=board
    )
    env = dict(os.environ, MICROPYPATH="")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout)[-3000:]
        raise SystemExit("%s run failed:\n%s" % (interpreter, tail))
    lines = proc.stdout.splitlines()
    return [json.loads(line[7:]) for line in lines if line.startswith("#bench ")]


def main():
    results = {}
    for label, interpreter, board in LANES:
        try:
            results[label] = run(interpreter, board)
        except simulate.SimError as e:
            print("(%s: skipped, %s)" % (label, e))
    labels = list(results)
    print("App.step() per lane (unix ports, -X heapsize=%s): median µs, bytes a pass" % HEAP)
    print("  %-22s" % "scenario" + "".join("  %-36s" % lab for lab in labels))
    rows = {}
    for lab in labels:
        for row in results[lab]:
            rows.setdefault((row[0], row[1] if row[0] != "race" else ""), {})[lab] = row
    for (kind, name), per in rows.items():
        cells = []
        for lab in labels:
            row = per.get(lab)
            if row is None:
                cells.append("-")
            elif kind == "pass":
                cells.append("%6.1f µs %6.0f B/pass" % (row[2], row[3]))
            elif kind == "heap":
                cells.append("live %7d B, free %7d B" % (row[2], row[3]))
            else:
                cells.append("%d passes %7d µs %7d B" % (row[1], row[2], row[3]))
        title = {"pass": name, "heap": "heap: " + name, "race": "first press -> race"}[kind]
        print("  %-22s" % title + "".join("  %-36s" % c for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
