"""Where power-on and `new_game` spend their time on the emulated RP2040 (issue 20: power-on →
`resume` ≤ 300 ms, `new_game` ≤ 30 ms).

Deploys the firmware as `make flash` does, with a probe in place of main.py
(bench/boot_probe_firmware.py) that imports the firmware's modules one by one in the order the
boot does, timing each (µs, ticks_us) and the heap it keeps (bytes, gc.mem_free), then builds the
App as refbox.boot.start does (journal read, Board, App), then starts each game with
`Referee.new_game` and saves it (`App._sync_journal`), timing the two apart. Prints a table.

  RP2EMU=DIR   rp2emu with `npm install` done (default: ../shared/rp2emu next to the repository)
  UF2=FILE     MicroPython v1.28.0 for RPI_PICO (default: $RP2EMU/RPI_PICO.uf2)

Without the emulator it says so and exits 0. About 1 wall minute (the deploy, then ~3 emulated s).
rp2040js makes flash erase and program calls instant: the figures are CPU time only (a real
chip adds the flash's own erase/program time to each save).
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "host"))
sys.path.insert(0, str(REPO / "bench"))

from bench_chip_latency import _environment  # noqa: E402


def main():
    env = _environment()
    if isinstance(env, str):
        print("bench_boot_chip: the emulated RP2040 is not available: %s; nothing measured" % env)
        return 0
    emu, uf2 = env
    from tablebuzz.link import flash

    run_env = dict(os.environ, UF2=str(uf2))
    with tempfile.TemporaryDirectory() as tmp:
        build = Path(tmp) / "mpy"
        flash.build(out=build)
        (build / "main.py").write_text((REPO / "bench" / "boot_probe_firmware.py").read_text())
        empty = Path(tmp) / "empty.jsonl"
        empty.write_text("")
        run = ["npx", "tsx", "board_run.ts", "--firmware", str(build), "--timeline", str(empty)]
        run += ["--ms", "6000", "--allow-silent"]
        proc = subprocess.run(run, cwd=emu, env=run_env, capture_output=True, text=True)
        if proc.returncode != 0:
            print("run failed:\n" + proc.stderr[-3000:])
            return 1
    rows = []
    for raw in proc.stdout.splitlines():
        try:
            line = json.loads(raw).get("line", "")
        except ValueError:
            continue
        if line.startswith("probe "):
            rows.append(line[len("probe "):])
            if line.startswith("probe gc.collect"):
                break  # the first boot after the deploy only (the probe then stands down)
    if not rows:
        print("the probe printed nothing:\n" + proc.stdout[-2000:])
        return 1
    print("bench_boot_chip: the emulated RP2040 (rp2040js, 125 MHz), MicroPython v1.28.0, .mpy")
    print("%-28s %9s %9s" % ("step", "µs", "heap B"))
    for row in rows:
        name, us, heap = row.split()
        print("%-28s %9s %9s" % (name, us, heap))
    return 0


if __name__ == "__main__":
    sys.exit(main())
