"""Fit the simulator's memory model (tablebuzz.sim.heap) and show what it says.

Prints first the fit's lane figure: the live heap after a collection of a 6-player quiz resumed
after one question (its power-up on the journal the question left), in the MicroPython lane with
the simulator's records kept small (`"heap": "chip"`, the firmware's .mpy modules as the tests
run them): LANE_RESUMED_LIVE_KB, the pair of the chip's CHIP_RESUMED_FREE_KB
(bench_budget_chip.py's heap row). Then, for each game set up, the live heap and the heap left
free in the model. Then the false-start quiz (tests/journal_games.false_start_quiz) under the
model: the question at which a `not_saved`, `journal_bad` or MemoryError appears, if any.
Run: .venv/bin/python bench/bench_chip_heap_model.py [QUESTIONS]   (figures: bench/README.md)
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "host"), str(REPO / "tests")]

from helpers import CONTROLS  # noqa: E402
from journal_games import false_start_quiz  # noqa: E402
from tablebuzz.link import flash  # noqa: E402
from tablebuzz.sim import heap, simulate  # noqa: E402
from tablebuzz.sim.timeline import parse  # noqa: E402

SETUP = """
import gc, json, sys
from tablebuzz.sim import runner
head = json.loads(sys.stdin.readline())
sim = runner.Simulation(head, lambda t, line: None)
sim.run([])
gc.collect()
print("#live", gc.mem_alloc(), gc.mem_free())
"""


def live_kb(game, players, heapsize):
    folder = tempfile.mkdtemp(prefix="tablebuzz-heap-")
    head = {"seed": "1", "game": game, "players": players, "heap": "chip",
            "flash": {"dir": folder + "/"}}
    cmd = simulate.micropython_command(SETUP, heap=heapsize)
    env = dict(os.environ, MICROPYPATH="")
    proc = subprocess.run(cmd, input=json.dumps(head) + "\n", capture_output=True, text=True,
                          env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("#live"):
            _, alloc, free = line.split()
            return int(alloc) / 1024, int(free) / 1024
    raise SystemExit(proc.stderr[-2000:])


def resumed_live_kb():
    """KB live in the lane (after a collection) once a 6-player quiz is resumed after its first
    question: the false-start quiz's first 1.3 s played, then a power-up on the journal it left
    (a new process, as the chip starts with an empty heap)."""
    folder = tempfile.mkdtemp(prefix="tablebuzz-heap-")
    head = {"seed": "ab12", "game": "quiz", "players": 6, "heap": "chip",
            "flash": {"dir": folder + "/"}, "options": {"questions": 0, "target": 0}}
    first = [r for r in parse(false_start_quiz(1), 6, CONTROLS) if r["t"] < 1_500_000_000]
    simulate.run(head, first, "micropython")
    cmd = simulate.micropython_command(SETUP, heap="8M", root=REPO)  # (a power-up resumes)
    env = dict(os.environ, MICROPYPATH="")
    proc = subprocess.run(cmd, input=json.dumps(head) + "\n", capture_output=True, text=True,
                          env=env, cwd=str(REPO))
    for line in proc.stdout.splitlines():
        if line.startswith("#live"):
            return int(line.split()[1]) / 1024
    raise SystemExit(proc.stderr[-2000:])


def main():
    questions = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    os.environ.setdefault(simulate.FIRMWARE_BUILD_ENV,
                          str(flash.cached_build(REPO / "build" / "lane-mpy")))
    print("model: -X heapsize=%s (LANE_RESUMED_LIVE_KB %.1f + %d x CHIP_RESUMED_FREE_KB %.1f)" % (
        heap.CHIP_HEAPSIZE, heap.LANE_RESUMED_LIVE_KB, heap.POINTER_SCALE,
        heap.CHIP_RESUMED_FREE_KB))
    print("a quiz resumed after one question, live in the lane now: %.1f KB" % resumed_live_kb())
    print("%-11s %9s %13s" % ("game", "live KB", "free KB, model"))
    for game, players in (("quiz", 6), ("difference", 3), ("deglingo", 3), ("redblack", 2),
                          ("diddly", 2), ("evidence", 2)):
        live, _ = live_kb(game, players, "8M")
        _, free = live_kb(game, players, heap.CHIP_HEAPSIZE)
        print("%-11s %9.1f %13.1f" % (game, live, free))
    folder = tempfile.mkdtemp(prefix="tablebuzz-heap-")  # littlefs's files are not in the heap
    head = {"seed": "ab12", "game": "quiz", "players": 6, "flash": {"dir": folder + "/"},
            "heap": "chip", "options": {"questions": 0, "target": 0}}
    text = false_start_quiz(questions)
    out = simulate.run(head, parse(text, 6, CONTROLS), "micropython")
    judged = 0
    for _, line in out:
        ev = json.loads(line) if line.startswith("{") else {}
        if ev.get("ev") == "score":
            judged += 1
        if ev.get("code") in ("not_saved", "journal_bad"):
            print("false-start quiz: %s after %d scores: %s" % (ev["code"], judged - 1,
                                                                ev["detail"]))
            return
    print("false-start quiz: %d questions, %d scores, no error" % (questions, judged - 1))


if __name__ == "__main__":
    main()
