"""Arbitration decisions per second, and simulated games per second, on CPython and MicroPython.

1. refbox.arbiter.Arbiter driven directly, as the App drives it: arm(Stamp, players), N presses
   stamped with refbox.ticks.Stamp, then one tick(Stamp) past the settle window, which decides the
   race. Scenarios: a lone press, a close race of two, six presses inside 1 ms, a six-way tie
   (equal stamps: a PRNG draw). The same code runs in this CPython process and under the unix port.
2. The whole quiz demo (examples/quiz_demo.jsonl) through the simulator (tablebuzz.sim.runner), a
   fresh Simulation each session, modules already imported: wall time per session and simulated
   seconds per wall second; plus one cold `tablebuzz.sim.simulate.run` (process start, imports,
   compile of the .py files), which is what a test pays per scripted game.
Run: .venv/bin/python bench/bench_arbitration.py   (figures: bench/README.md)
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from tablebuzz.paths import REPO  # noqa: E402
from tablebuzz.sim import simulate  # noqa: E402
from tablebuzz.sim.timeline import parse  # noqa: E402

simulate._ensure_paths()
from refbox import pinmap  # noqa: E402

SCRIPT = REPO / "examples" / "quiz_demo.jsonl"
HEADER = {"seed": "1", "game": "quiz", "players": 6, "options": {}}
DECISIONS = 20000  # per scenario and batch
SESSIONS = 10  # demo sessions per batch
REPEATS = 3  # batches; the fastest counts (other work on the machine only ever slows a batch down)

# Runs unchanged in CPython (exec'd here) and under the unix port. MicroPython subset only.
CODE = """
try:
    from time import ticks_diff, ticks_us

    def clock():
        return ticks_us()

    def seconds_since(t0):
        return ticks_diff(ticks_us(), t0) / 1000000
except ImportError:
    from time import perf_counter as clock

    def seconds_since(t0):
        return clock() - t0

from refbox.arbiter import Arbiter
from refbox.prng import Prng
from refbox.ticks import Stamp, ticks_add

SCENARIOS = (
    ("1 press", ((0, 0),)),
    ("2 presses, 840 us apart", ((2, 0), (0, 840000))),
    ("6 presses inside 1 ms", ((3, 0), (1, 56), (5, 112), (0, 300000), (2, 650000), (4, 999000))),
    ("6-way tie (PRNG draw)", ((0, 500), (1, 500), (2, 500), (3, 500), (4, 500), (5, 500))),
)
EVERYONE = (0, 1, 2, 3, 4, 5)


def decide_many(presses, count):
    arbiter = Arbiter(Prng(b"0123456789abcdef"))
    arbiter.false_start = 250
    races = 0
    t = 1000
    out = []
    t0 = clock()
    for _ in range(count):
        arbiter.arm(Stamp(t), EVERYONE)
        cue = ticks_add(t, 150000)  # presses come 150 ms after the cue
        for player, ns in presses:
            arbiter.press(player, Stamp(ticks_add(cue, ns // 1000), ns % 1000), out)
        arbiter.tick(Stamp(ticks_add(cue, 3000)), out)  # past every press: decided
        for item in out:
            if item[0] == "race":
                races += 1
        out.clear()
        t = ticks_add(t, 400000)  # wraps every ~2700 decisions: wrap-safe arithmetic exercised
    return seconds_since(t0), races


def measure_arbiter(count, repeats):
    results = []
    for name, presses in SCENARIOS:
        decide_many(presses, 200)  # warm up
        best = None
        for _ in range(repeats):
            seconds, races = decide_many(presses, count)
            if best is None or seconds < best[0]:
                best = (seconds, races)
        results.append((name, count, best[0], best[1]))
    return results


def measure_sessions(header, records, count, repeats):
    from tablebuzz.sim import runner

    lines = []

    def sink(t, line):
        lines.append(line)

    runner.Simulation(header, sink).run(records)  # warm up; the reference lines
    first = list(lines)
    lines.clear()
    passes = [0]
    sim = runner.Simulation(header, sink)
    step = sim.app.step

    def counted():
        passes[0] += 1
        step()

    sim.app.step = counted
    sim.run(records)
    simulated_ns = sim.world.now
    same = lines == first
    best = None
    for _ in range(repeats):
        t0 = clock()
        for _ in range(count):
            lines.clear()
            runner.Simulation(header, sink).run(records)
            if lines != first:
                same = False
        seconds = seconds_since(t0)
        if best is None or seconds < best:
            best = seconds
    return best, simulated_ns, passes[0], len(first), same
"""

MICROPYTHON_MAIN = """
import json, sys
header = json.loads(sys.stdin.readline())
records = [json.loads(line) for line in sys.stdin.read().split("\\n") if line.strip()]
for name, count, seconds, races in measure_arbiter(@DECISIONS@, @REPEATS@):
    print("#bench arbiter", json.dumps([name, count, seconds, races]))
sessions = measure_sessions(header, records, @SESSIONS@, @REPEATS@)
print("#bench sessions", json.dumps(list(sessions)))
"""


def demo_records():
    text = SCRIPT.read_text(encoding="utf-8")
    return parse(text, HEADER["players"], [name for name, _ in pinmap.CONTROLS])


def on_cpython(records):
    namespace = {"__name__": "bench_arbitration_code"}
    exec(compile(CODE, "bench_arbitration.CODE", "exec"), namespace)
    arbiter = namespace["measure_arbiter"](DECISIONS, REPEATS)
    sessions = namespace["measure_sessions"](HEADER, records, SESSIONS, REPEATS)
    return arbiter, sessions


def on_micropython(records):
    main = MICROPYTHON_MAIN.replace("@DECISIONS@", str(DECISIONS))
    main = main.replace("@SESSIONS@", str(SESSIONS)).replace("@REPEATS@", str(REPEATS))
    cmd = simulate.micropython_command("pass\n" + CODE + main)
    feed = "\n".join([json.dumps(HEADER)] + [json.dumps(r) for r in records]) + "\n"
    env = dict(os.environ, MICROPYPATH="")
    proc = subprocess.run(cmd, input=feed, capture_output=True, text=True, env=env, timeout=120)
    if proc.returncode != 0:
        raise SystemExit("MicroPython run failed:\n" + (proc.stderr or proc.stdout)[-3000:])
    arbiter, sessions = [], None
    for line in proc.stdout.splitlines():
        if line.startswith("#bench arbiter "):
            arbiter.append(json.loads(line[len("#bench arbiter ") :]))
        elif line.startswith("#bench sessions "):
            sessions = json.loads(line[len("#bench sessions ") :])
    return arbiter, sessions


def cold_run(records, interpreter):
    t0 = time.perf_counter()
    lines = simulate.run(HEADER, records, interpreter)
    return time.perf_counter() - t0, lines


def main():
    records = demo_records()
    # cold runs first, before this process has imported the simulator
    cold = {name: cold_run(records, name) for name in ("cpython", "micropython")}
    results = {"CPython": on_cpython(records), "MicroPython": on_micropython(records)}

    print(f"1. Arbiter decisions per second (best of {REPEATS} x {DECISIONS} decisions; one")
    print("   decision = arm + the presses + one tick past the settle window)")
    print(f"  {'scenario':<28} {'interpreter':<12} {'decisions/s':>12} {'µs/decision':>12}")
    ok = True
    for interpreter, (arbiter, _) in results.items():
        for name, count, seconds, races in arbiter:
            ok = ok and races == count
            flag = "" if races == count else f"  ONLY {races} RACES DECIDED"
            print(f"  {name:<28} {interpreter:<12} {count / seconds:12,.0f} "
                  f"{seconds / count * 1e6:12.2f}{flag}")

    script = SCRIPT.relative_to(REPO)
    print(f"\n2. Simulated quiz demo ({script}): best of {REPEATS} x {SESSIONS} sessions, a fresh")
    print("   Simulation per session, modules already imported; µs/loop pass = session / passes)")
    print(f"  {'interpreter':<12} {'ms/session':>11} {'sessions/s':>11} {'sim s/wall s':>13} "
          f"{'µs/loop pass':>13}  identical")
    for interpreter, (_, sessions) in results.items():
        seconds, simulated_ns, passes, lines, same = sessions
        per = seconds / SESSIONS
        ok = ok and same
        print(f"  {interpreter:<12} {per * 1000:11.2f} {SESSIONS / seconds:11.1f} "
              f"{simulated_ns / 1e9 / per:13.0f} {per / passes * 1e6:13.1f}  "
              f"{'yes' if same else 'NO'}")
    _, sessions = results["CPython"]
    print(f"  one session: {sessions[1] / 1e9:.3f} simulated s, {sessions[2]} loop passes, "
          f"{sessions[3]} device lines")
    same = cold["cpython"][1] == cold["micropython"][1]
    ok = ok and same
    print("  cold, one tablebuzz.sim.simulate.run"
          " (first imports; MicroPython: process + compile):")
    for name, (seconds, _) in cold.items():
        print(f"    {name:<12} {seconds * 1000:8.1f} ms")
    print(f"  CPython and MicroPython event streams identical: {'yes' if same else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
