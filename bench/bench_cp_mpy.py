"""What `tablebuzz flash --circuitpython` gains by putting refbox/ on the drive as .mpy (compiled
by CircuitPython's own mpy-cross) instead of .py: the heap the firmware needs on CircuitPython.

Both forms run on CircuitPython 10.2.1's unix port (`make circuitpython`): the .py sources of
firmware/, and the folder that `flash_cp.flash` fills as a CIRCUITPY drive (refbox/*.mpy, the
libraries in lib/). Each run boots the firmware in the simulator with the CircuitPython board
module (tablebuzz.sim.runner.Simulation, its fakes) at the menu, then starts every game in turn
with a `new_game` line, checking each `game` event. Figures, per form:
- smallest heap: the least `-X heapsize` (bisected to HEAP_STEP bytes) in which all of that
  succeeds, the run's MemoryError being the only failure accepted below it;
- live after boot and after the last game: gc.mem_alloc() after gc.collect(), bytes;
- boot: wall ms from the first line of the process to the menu (the median of RUNS; the unix
  port's ticks_us, this machine's clock).
The simulator, its fakes and the libraries are in the heap too, the same in both forms, so the
difference between the forms is the figure, not the absolute numbers; and the unix port is 64-bit
(objects twice the size of the RP2040's). Run: .venv/bin/python bench/bench_cp_mpy.py
(figures: bench/README.md).
"""

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from tablebuzz.link import flash_cp  # noqa: E402
from tablebuzz.sim import simulate  # noqa: E402

GAMES = ("quiz", "difference", "deglingo", "redblack", "diddly", "evidence")
HEAP_STEP = 4096
RUNS = 5

CODE = """pass
import gc, time
t0 = time.ticks_us()
from tablebuzz.sim import runner
out = []
sim = runner.Simulation({"seed": "1", "board": "circuitpython"}, lambda t, line: out.append(line))
w = sim.world
w.run_until(w.now + 10000000)
booted = time.ticks_diff(time.ticks_us(), t0)
gc.collect()
print("#boot", booted, gc.mem_alloc())
games = @GAMES@
sim.run([
    {"t": w.now + 100000000 + 2000000000 * i, "k": "send",
     "line": '{"cmd":"new_game","game":"%s","players":4}' % game}
    for i, game in enumerate(games)
])
for game in games:
    if not [line for line in out if '"ev":"game"' in line and '"game":"%s"' % game in line]:
        raise SystemExit("no game event for " + game + ": " + repr(out[-3:]))
gc.collect()
print("#games", gc.mem_alloc())
""".replace("@GAMES@", repr(GAMES))


def run(heap, drive=None):
    """(ok, {"boot_us", "boot_live", "games_live"}) of one run with `heap` bytes; ok False only
    for a MemoryError (anything else stops the bench)."""
    cmd = simulate.micropython_command(
        CODE, str(heap), interpreter="circuitpython", board="circuitpython", drive=drive
    )
    proc = subprocess.run(
        cmd, capture_output=True, text=True, env=dict(os.environ, MICROPYPATH=""), timeout=600
    )
    said = proc.stdout + proc.stderr
    if proc.returncode != 0:
        if "MemoryError" in said:
            return False, {}
        raise SystemExit("run failed (heap %d):\n%s" % (heap, said[-3000:]))
    figures = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if parts[:1] == ["#boot"]:
            figures["boot_us"], figures["boot_live"] = int(parts[1]), int(parts[2])
        elif parts[:1] == ["#games"]:
            figures["games_live"] = int(parts[1])
    return True, figures


def smallest_heap(drive, high=4 << 20):
    """The least heap (a multiple of HEAP_STEP) in which run() succeeds."""
    ok, _ = run(high, drive)
    if not ok:
        raise SystemExit("even %d bytes of heap were not enough" % high)
    low = HEAP_STEP  # fails
    while high - low > HEAP_STEP:
        mid = (low + high) // 2 // HEAP_STEP * HEAP_STEP
        ok, _ = run(mid, drive)
        if ok:
            high = mid
        else:
            low = mid
    return high


def main():
    try:
        simulate.circuitpython_binary()
        compiler = flash_cp.find_mpy_cross((10, 2, 1))
    except (simulate.SimError, flash_cp.FlashError) as e:
        print("skipped: %s" % e)
        return 0
    with tempfile.TemporaryDirectory(prefix="tablebuzz-bench-drive-") as folder:
        drive = Path(folder) / "CIRCUITPY"
        drive.mkdir()
        (drive / "boot_out.txt").write_text(
            "Adafruit CircuitPython 10.2.1 on 2026-05-12; Raspberry Pi Pico with rp2040\n"
        )
        flash_cp.flash(drive, log=lambda s: None, use_circup=False, mpy_cross=compiler)
        forms = (("refbox/*.py (--source)", None), ("refbox/*.mpy (default)", drive))
        print(
            "CircuitPython 10.2.1 unix port (64-bit), board_cp in the simulator: boot to the "
            "menu, then new_game for %s" % ", ".join(GAMES)
        )
        print(
            "  %-24s %14s %16s %18s %14s"
            % ("form", "smallest heap", "live after boot", "live after games", "boot (median)")
        )
        for label, where in forms:
            least = smallest_heap(where)
            runs = [run(4 << 20, where)[1] for _ in range(RUNS)]
            boot_ms = statistics.median(r["boot_us"] for r in runs) / 1000
            print(
                "  %-24s %11.0f KB %13.1f KB %15.1f KB %11.0f ms"
                % (
                    label,
                    least / 1024,
                    runs[0]["boot_live"] / 1024,
                    runs[0]["games_live"] / 1024,
                    boot_ms,
                )
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
