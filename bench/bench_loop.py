"""Cost and allocation of one loop pass (App.step) on the MicroPython unix port, with the chip
estimate next to the 1 ms budget.

Each scenario is built through the simulator (tablebuzz.sim.runner.Simulation, the unchanged
firmware with the fakes) under .venv/bin/micropython, then App.step() is called once per simulated
millisecond (World.run_until between calls, outside the timing). Per pass: µs (time.ticks_us around
step() alone, mean and worst) and bytes allocated (gc.mem_alloc() with gc disabled).
The "mean" column is the median pass (this machine is shared: a mean would carry other jobs'
pauses); the race row sums every pass. Scenarios: menu idle; quiz ready idle; quiz armed idle;
a 6-way race (six presses 10 µs apart with
typical bounce, every pass from the first press to the `race` line); each game's start phase
idle; the quiz with its buzz timer running and Déglingo with its timer running (timers tick every
pass), the quiz with its answer timer running, and Difference over (the champion's blink). A
moving frame (a pulse, a blink, a timer bar) is rendered every 25 ms, so B/pass is what 40
frames a second allocate, spread over the passes. The pixels are written by the firmware's own
Board.show into a state machine that keeps nothing, as the chip's (the simulator's records them).
Chip estimate: the design notes' ratio, a pass on the chip costs 50-120x its unix-port time here
(shared/design.md "Measured on the emulated RP2040"). The fakes (machine.mem32, rp2.DMA.count, the
console) are Python here and C on the board, so idle figures are pessimistic. Figures measured on
the emulated RP2040 itself are in bench/README.md.
Run: .venv/bin/python bench/bench_loop.py
"""

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from tablebuzz.sim import simulate  # noqa: E402

PASSES = 300
RATIO = (50, 120)
BUDGET_US = 1000

CODE = """pass
import gc, time, json
from tablebuzz.sim import runner

PASSES = @PASSES@

class Quiet:  # the PIO state machine's put as on the chip (C, nothing allocated)
    def put(self, words, shift):
        pass

def sim_for(header, lines=()):
    sim = runner.Simulation(header, lambda t, line: None)
    for line in lines:
        sim.console.feed(line.encode() + b"\\n")
    sim.world.run_until(sim.world.now + 1000000000)  # boot, the commands, their tones out
    del sim.app.board.show  # the firmware's own Board.show, not the CPU model's charge
    sim.app.board.pixels.sm = Quiet()
    return sim

def passes(sim, n):
    w = sim.world
    step = sim.app.step
    total = worst = alloc = 0
    ds = [0] * n
    gc.collect()
    gc.disable()
    for i in range(n):
        w.run_until(w.now + 1000000)
        a = gc.mem_alloc()
        t = time.ticks_us()
        step()
        d = time.ticks_diff(time.ticks_us(), t)
        alloc += gc.mem_alloc() - a
        total += d
        ds[i] = d
        if d > worst:
            worst = d
    gc.enable()
    ds.sort()
    return ds[n // 2] * n, worst, alloc

def report(name, sim, n=PASSES):
    passes(sim, 30)  # warm up
    total, worst, alloc = passes(sim, n)
    print("#bench", json.dumps([name, n, total, worst, alloc]))

report("menu idle", sim_for({"seed": "1"}))
report("quiz ready idle", sim_for({"seed": "1", "game": "quiz", "players": 6}))
report("quiz armed idle", sim_for({"seed": "1", "game": "quiz", "players": 6}, ['{"cmd":"arm"}']))
quiz_timer = {"seed": "1", "game": "quiz", "players": 6, "options": {"buzz_s": 60}}
report("quiz armed, buzz timer running", sim_for(quiz_timer, ['{"cmd":"arm"}']))
answer_timer = {"seed": "1", "game": "quiz", "players": 6, "options": {"answer_s": 60}}
sim = sim_for(answer_timer, ['{"cmd":"arm"}'])
sim.players[0].press()  # the floor: its answer time runs
sim.world.run_until(sim.world.now + 60000000)
sim.players[0].release()
sim.world.run_until(sim.world.now + 100000000)
report("quiz answering, answer timer running", sim)
for game in ("difference", "deglingo", "redblack", "diddly", "evidence"):
    report(game + " start idle", sim_for({"seed": "1", "game": game, "players": 4}))
report("difference over (the champion blinks)",
       sim_for({"seed": "1", "game": "difference", "players": 4}, ['{"cmd":"end"}']))
deg = {"seed": "1", "game": "deglingo", "players": 4, "options": {"timer": 60}}
sim = sim_for(deg)
sim.players[0].press()  # the active player calls: the others race, the round's timer runs
sim.world.run_until(sim.world.now + 100000000)
sim.players[0].release()
sim.world.run_until(sim.world.now + 100000000)
report("deglingo racing, timer running" if sim.app.is_busy() else "deglingo (NOT racing)", sim)

# a 6-way race: every pass from the first press to the race line
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
total = worst = alloc = n = 0
gc.collect()
gc.disable()
while "race" not in raced and n < 100:
    w.run_until(w.now + 1000000)
    a = gc.mem_alloc()
    t = time.ticks_us()
    sim.app.step()
    d = time.ticks_diff(time.ticks_us(), t)
    alloc += gc.mem_alloc() - a
    total += d
    worst = max(worst, d)
    n += 1
gc.enable()
print("#bench", json.dumps(["6-way race, first press to decision", n, total, worst, alloc]))
""".replace("@PASSES@", str(PASSES))


def run():
    import json

    cmd = simulate.micropython_command(CODE, "8M")
    env = dict(os.environ, MICROPYPATH="")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        raise SystemExit("MicroPython run failed:\n" + (proc.stderr or proc.stdout)[-3000:])
    rows = []
    for line in proc.stdout.splitlines():
        if line.startswith("#bench "):
            rows.append(json.loads(line[7:]))
    return rows


def main():
    rows = run()
    low, high = RATIO
    print(
        f"App.step() on the MicroPython unix port, through the simulator's fakes; chip estimate "
        f"= {low}-{high}x (design notes), budget {BUDGET_US} µs a pass"
    )
    print(f"  {'scenario':<40} {'passes':>6} {'µs med.':>8} {'µs worst':>8} {'B/pass':>7}"
          f"   {'chip µs':>15}")
    for name, n, total, worst, alloc in rows:
        mean = total / n
        chip = f"{mean * low:,.0f}-{mean * high:,.0f}"
        print(f"  {name:<40} {n:>6} {mean:>8.1f} {worst:>8} {alloc / n:>7.0f}   {chip:>15}")
    print("  (the race row: every pass from the first press to the race line; its B/pass is")
    print("   what a race allocates, against App.gc_threshold = 48 KB before an automatic gc)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
