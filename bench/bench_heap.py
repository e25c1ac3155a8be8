"""Heap of a scripted race session under the MicroPython unix port.

Runs examples/quiz_demo.jsonl (parsed by tablebuzz.timeline) through the simulator under
`micropython -X heapsize=...` and prints:
  (a) mem_info() after the run at the default heap;
  (b) the smallest -X heapsize (bisection, 1 KB steps) with which the session still runs and prints
      the same events as under CPython;
  (c) the firmware alone: its compiled code, the Board and App objects built at boot, and the live
      heap (after gc.collect()) after boot, at every loop pass and after the session.
The simulator's world and fakes share the heap in (a) and (b); (c) separates them out.
Run: .venv/bin/python bench/bench_heap.py   (figures: bench/README.md)
"""

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from tablebuzz import simulate  # noqa: E402
from tablebuzz.paths import REPO  # noqa: E402
from tablebuzz.timeline import parse  # noqa: E402

simulate._ensure_paths()
from refbox import pinmap  # noqa: E402

SCRIPT = REPO / "examples" / "quiz_demo.jsonl"
HEADER = {"seed": "1", "game": "quiz", "players": 6, "options": {}}
DEFAULT_HEAP_KB = 2048
LOW_KB = 8  # surely too small: the interpreter alone needs a few KB
MARK = "#bench "

# (a)/(b): the simulator's own entry point, then mem_info().
RUN_CODE = """pass
import gc, micropython
from tablebuzz.sim.runner import main
main()
print("%sstats", micropython.mem_total(), micropython.mem_current(), micropython.mem_peak(),
      gc.mem_alloc(), gc.mem_free())
gc.collect()
print("%slive", gc.mem_alloc())
micropython.mem_info()
""" % (MARK, MARK)

# (c): the firmware apart from the simulator. live() = bytes still reachable after gc.collect().
FIRMWARE_CODE = """pass
import gc, json, sys
def live():
    gc.collect()
    return gc.mem_alloc()
def note(name, value):
    print("%%s%%s %%d" %% (MARK, name, value))
MARK = "%s"
note("start", live())
header = json.loads(sys.stdin.readline())
records = [json.loads(line) for line in sys.stdin.read().split("\\n") if line.strip()]
note("input", live())
import machine, rp2, neopixel
from tablebuzz.sim import world, physics
note("sim_code", live())
from refbox import pinmap
import refbox.app, refbox.board
note("firmware_code", live())
from tablebuzz.sim import runner
note("runner_code", live())

Board = refbox.board.Board
App = refbox.app.App

class MeasuredBoard(Board):
    def __init__(self, *args, **kwargs):
        before = live()
        Board.__init__(self, *args, **kwargs)
        note("board_objects", live() - before)

class MeasuredApp(App):
    def __init__(self, *args, **kwargs):
        before = live()
        App.__init__(self, *args, **kwargs)
        note("app_objects", live() - before)

refbox.board.Board = MeasuredBoard
runner.App = MeasuredApp

def sink(t, text):
    sys.stdout.write("%%d %%s\\n" %% (t, text))

before = live()
sim = runner.Simulation(header, sink)
note("simulation_objects", live() - before)
note("after_boot", live())
app = sim.app
loop_step = app.step
high = [0, 0]
def step():
    loop_step()
    now = live()
    high[1] += 1
    if now > high[0]:
        high[0] = now
app.step = step
sim.run(records)
note("loop_passes", high[1])
note("loop_high_water", high[0])
note("after_session", live())
w = sim.world
note("world_frames", len(w.pixel_frames))
note("world_tones", len(w.tones))
w.pixel_frames = []
w.tones = []
w.log = []
note("after_session_no_recordings", live())
note("game_log_entries", len(app.game.log))
""" % MARK


def demo_records():
    text = SCRIPT.read_text(encoding="utf-8")
    return parse(text, HEADER["players"], [name for name, _ in pinmap.CONTROLS])


def feed(records):
    return "\n".join([json.dumps(HEADER)] + [json.dumps(r) for r in records]) + "\n"


def run_micropython(code, heap_kb, stdin):
    cmd = simulate.micropython_command(code, "%dK" % heap_kb)
    env = dict(os.environ, MICROPYPATH="")
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, timeout=60)


def event_lines(stdout):
    """The device's lines ('ns line') from a MicroPython run, as simulate.run returns them."""
    lines = []
    for text in stdout.splitlines():
        ns, _, line = text.partition(" ")
        if ns.isdigit():
            lines.append((int(ns), line))
    return lines


def marks(stdout):
    found = {}
    for text in stdout.splitlines():
        if text.startswith(MARK):
            name, *values = text[len(MARK) :].split()
            found[name] = [int(v) for v in values]
    return found


def same_session(heap_kb, stdin, expected):
    proc = run_micropython(RUN_CODE, heap_kb, stdin)
    return proc.returncode == 0 and event_lines(proc.stdout) == expected


def kb(n):
    return "%.1f KB" % (n / 1024)


def main():
    records = demo_records()
    stdin = feed(records)
    expected = simulate.run(HEADER, records, "cpython")
    print("session: %s, %d records, %d device lines under CPython" % (
        SCRIPT.relative_to(REPO), len(records), len(expected)))

    # (a) default heap
    proc = run_micropython(RUN_CODE, DEFAULT_HEAP_KB, stdin)
    if proc.returncode != 0:
        print((proc.stderr or proc.stdout)[-2000:], file=sys.stderr)
        return 1
    same = event_lines(proc.stdout) == expected
    found = marks(proc.stdout)
    total, current, peak, alloc, free = found["stats"]
    print("\n(a) whole session under micropython -X heapsize=%dK (simulator + firmware)"
          % DEFAULT_HEAP_KB)
    print("  events identical to CPython:        %s" % ("yes" if same else "NO"))
    print("  mem_info peak:                      %s" % kb(peak))
    print("  mem_info total / current:           %s / %s" % (kb(total), kb(current)))
    print("    (MICROPY_MEM_STATS counts every allocation and only explicit frees; the GC's")
    print("     sweeps are not subtracted, so 'peak' is ~bytes allocated, not a live-heap peak)")
    print("  GC heap used at exit / after gc:    %s / %s" % (kb(alloc), kb(found["live"][0])))
    for text in proc.stdout.splitlines():
        if text.startswith(("mem:", "stack:", "GC:")):
            print("  | " + text.strip())

    # (b) bisection on -X heapsize
    low, high = LOW_KB, DEFAULT_HEAP_KB
    if same_session(low, stdin, expected) or not same:
        print("bisection bounds are wrong: %dK passes or the default heap fails" % low)
        return 1
    runs = 0
    while high - low > 1:
        mid = (low + high) // 2
        runs += 1
        if same_session(mid, stdin, expected):
            high = mid
        else:
            low = mid
    print("\n(b) smallest -X heapsize running the same session with the same events")
    print("  minimum heap:                       %d KB  (%dK fails; %d runs)" % (high, low, runs))
    checks = [high + 1, high + 2, high + 4, high + 8]
    failed = [k for k in checks if not same_session(k, stdin, expected)]
    print("  also passes at +1/+2/+4/+8 KB:       %s" % (
        "yes" if not failed else "NO, fails at %s KB (fragmentation?)" % failed))

    # (c) the firmware apart from the simulator
    proc = run_micropython(FIRMWARE_CODE, DEFAULT_HEAP_KB, stdin)
    if proc.returncode != 0:
        print((proc.stderr or proc.stdout)[-2000:], file=sys.stderr)
        return 1
    m = {k: v[0] for k, v in marks(proc.stdout).items()}
    same = event_lines(proc.stdout) == expected
    print("\n(c) live heap after gc.collect() (gc.mem_alloc), firmware apart from the simulator")
    print("  interpreter at start:               %s" % kb(m["start"]))
    print("  simulator fakes + world (code):     %s" % kb(m["sim_code"] - m["input"]))
    print("  firmware code (refbox, from .py):   %s" % kb(m["firmware_code"] - m["sim_code"]))
    print("  Board objects at boot:             %s" % kb(m["board_objects"]))
    print("  App objects at boot:               %s" % kb(m["app_objects"]))
    print("  => firmware after boot:             %s  (code + Board + App)" % kb(
        m["firmware_code"] - m["sim_code"] + m["board_objects"] + m["app_objects"]))
    print("  whole process after boot:           %s" % kb(m["after_boot"]))
    print("  whole process, loop high-water:     %s  (over %d loop passes)" % (
        kb(m["loop_high_water"]), m["loop_passes"]))
    print("  whole process after session:        %s" % kb(m["after_session"]))
    print("  ... without the world's recordings: %s  (%d LED frames, %d tones dropped)" % (
        kb(m["after_session_no_recordings"]), m["world_frames"], m["world_tones"]))
    print("  => firmware growth over the session: %s  (game log: %d entries)" % (
        kb(m["after_session_no_recordings"] - m["after_boot"]), m["game_log_entries"]))
    print("  events identical to CPython:        %s" % ("yes" if same else "NO"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
