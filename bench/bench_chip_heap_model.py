"""Fit the simulator's memory model (tablebuzz.sim.heap) and show what it says.

Prints, for each game set up in the MicroPython lane with the simulator's records kept small
(`"heap": "chip"`, the firmware's .mpy modules as the tests run them), the live heap after a
collection (LANE_LIVE_KB is the quiz's), the heapsize fitted from it and the chip's free heap,
and the heap then left free in the model beside the chip's figure scaled (POINTER_SCALE).
Then the false-start quiz (tests/journal_games.false_start_quiz) under the model: the question
at which a `not_saved`, `journal_bad` or MemoryError appears, if any.
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


def main():
    questions = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    os.environ.setdefault(simulate.FIRMWARE_BUILD_ENV,
                          str(flash.cached_build(REPO / "build" / "lane-mpy")))
    print("model: -X heapsize=%s (LANE_LIVE_KB %d + %d x %.1f KB)" % (
        heap.CHIP_HEAPSIZE, heap.LANE_LIVE_KB, heap.POINTER_SCALE, heap.CHIP_FREE_KB["quiz"]))
    print("%-11s %9s %13s %18s" % ("game", "live KB", "free KB, model", "chip free KB x2"))
    for game, players in (("quiz", 6), ("difference", 3), ("deglingo", 3), ("redblack", 2),
                          ("diddly", 2), ("evidence", 2)):
        live, _ = live_kb(game, players, "8M")
        _, free = live_kb(game, players, heap.CHIP_HEAPSIZE)
        chip = heap.POINTER_SCALE * heap.CHIP_FREE_KB[game]
        print("%-11s %9.1f %13.1f %18.1f" % (game, live, free, chip))
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
