"""Where power-on and `new_game` spend their time on the emulated RP2040 (issue 20: power-on →
`resume` ≤ 300 ms, `new_game` ≤ 30 ms).

Deploys the firmware as `make flash` does, with a probe in place of main.py
(bench/boot_probe_firmware.py) that imports the firmware's modules one by one in the order the
boot does, timing each (µs, ticks_us) and the heap it keeps (bytes, gc.mem_free), then builds the
App as refbox.boot.start does (journal read, Board, App), then starts each game with
`Referee.new_game` and saves it (`App._sync_journal`), timing the two apart; between the two it
loads journals of a snapshot and 0, 20, 100, 200 deltas (`Journal.load`, as power-up does).
Prints a table.

Then the paths of issue 20's item 2 end to end, as the room sees them: the real main.py deployed
(`--save-flash`) and booted from that image (`--load-flash`, t0 = power-on) to play `PATHS`: a
6-player quiz started, two questions armed, pressed and judged, a Difference started, the quiz
started again, a question judged, the power cut and restored (the journal resumes the quiz), one
more question. From the board's USB lines (µs when their "\n" reached the host): power-on ->
`hello` and -> `resume`, `new_game` -> `game`, `judge` -> `judge` and -> `score`, `arm` ->
`armed`. Each is a command's arrival on the wire to the line, so it includes the loop's reading
of the command and, where the journal persists before emitting, the save.

  RP2EMU=DIR   rp2emu with `npm install` done (default: ../shared/rp2emu next to the repository)
  UF2=FILE     MicroPython v1.28.0 for RPI_PICO (default: $RP2EMU/RPI_PICO.uf2)
  PACK=1       deploy with refbox.pack, as `tablebuzz flash --pack` (default: as `make flash`)

Without the emulator it says so and exits 0. About 4 wall minutes (two deploys, ~9 emulated s).
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

from bench_chip_latency import DEPLOY_EXT, PACK, _environment, deployed_run  # noqa: E402


def main():
    env = _environment()
    if isinstance(env, str):
        print("bench_boot_chip: the emulated RP2040 is not available: %s; nothing measured" % env)
        return 0
    emu, uf2 = env
    status = probe(emu, uf2)
    if status:
        return status
    return paths(emu, uf2)


def probe(emu, uf2):
    """The probe's table (the module docstring); 0, or 1 when the run failed."""
    from tablebuzz.link import flash

    run_env = dict(os.environ, UF2=str(uf2))
    with tempfile.TemporaryDirectory() as tmp:
        build = Path(tmp) / "mpy"
        flash.build(out=build, arch=flash.PICO_ARCH, pack=PACK)
        (build / "main.py").write_text((REPO / "bench" / "boot_probe_firmware.py").read_text())
        empty = Path(tmp) / "empty.jsonl"
        empty.write_text("")
        run = ["npx", "tsx", "board_run.ts", "--firmware", str(build), "--timeline", str(empty)]
        run += [*DEPLOY_EXT, "--ms", "15000", "--allow-silent"]
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
    print("  native modules: %s" % (", ".join(flash.NATIVE) or "none (bytecode only)"))
    print("%-28s %9s %9s" % ("step", "µs", "bytes"))  # heap kept; a journal: its file
    for row in rows:
        name, us, heap = row.split()
        print("%-28s %9s %9s" % (name, us, heap))
    return 0


# (at_us, stimulus) for board_run.ts: what `paths` plays (t0 = power-on)
PATHS = (
    (1_000_000, {"send": {"cmd": "new_game", "game": "quiz", "players": 6}}),
    (1_300_000, {"send": {"cmd": "arm"}}),
    (1_380_000, {"press": 2}),
    (1_450_000, {"release": 2}),
    (1_530_000, {"send": {"cmd": "judge", "correct": True}}),
    (1_700_000, {"send": {"cmd": "arm"}}),
    (1_780_000, {"press": 3}),
    (1_850_000, {"release": 3}),
    (1_930_000, {"send": {"cmd": "judge", "correct": False}}),
    (2_100_000, {"send": {"cmd": "new_game", "game": "difference", "players": 4}}),
    (2_400_000, {"send": {"cmd": "new_game", "game": "quiz", "players": 6}}),
    (2_700_000, {"send": {"cmd": "arm"}}),
    (2_780_000, {"press": 4}),
    (2_850_000, {"release": 4}),
    (2_930_000, {"send": {"cmd": "judge", "correct": True}}),
    (3_100_000, {"power": "off"}),
    (3_200_000, {"power": "on"}),
    (4_200_000, {"send": {"cmd": "arm"}}),
    (4_280_000, {"press": 5}),
    (4_350_000, {"release": 5}),
    (4_430_000, {"send": {"cmd": "judge", "correct": True}}),
)
# (path, the stimulus it starts from, the event that ends it)
SPANS = (
    ("power-on -> hello", "power", "hello"),
    ("power-on -> resume", "power", "resume"),
    ("new_game -> game", "new_game", "game"),
    ("arm -> armed", "arm", "armed"),
    ("judge -> judge", "judge", "judge"),
    ("judge -> score", "judge", "score"),
)


def spans(rows):
    """{path: [ms, ...]} from board_run.ts's output rows for `PATHS` (SPANS's pairs: each
    stimulus to the first such event after it and before the next command or power cut)."""
    starts = {"power": [0], "new_game": [], "arm": [], "judge": []}
    ends = []
    for at, stim in PATHS:
        if stim.get("power") == "on":
            starts["power"].append(at)
        elif "send" in stim:
            starts[stim["send"]["cmd"]].append(at)
        if "send" in stim or stim.get("power") == "off":
            ends.append(at)
    events = []
    for row in rows:
        value = row.get("json")
        if isinstance(value, dict) and "ev" in value:
            events.append((row["at_us"], value["ev"]))
    out = {}
    for path, kind, ev in SPANS:
        for t in starts[kind]:
            end = min([e for e in ends if e > t], default=None)
            for at, name in events:
                if at >= t and (end is None or at < end) and name == ev:
                    out.setdefault(path, []).append((at - t) / 1000)
                    break
    return out


def paths(emu, uf2):
    """The real main.py playing `PATHS`: prints each path's ms; 0, or 1 when a run failed."""
    text = "".join(json.dumps(dict(s, at_us=at)) + "\n" for at, s in PATHS)
    proc, failed = deployed_run(emu, uf2, text, ["--ms", "400", "--quiet"])
    if failed:
        print("run failed:\n" + failed)
        return 1
    rows = [json.loads(text) for text in proc.stdout.splitlines() if text.strip()]
    found = spans(rows)
    print("issue 20 item 2's paths, the real main.py, booted from its flash image, ms:")
    for path, _, _ in SPANS:
        ms = found.get(path, [])
        print("  %-20s %s" % (path, " / ".join("%.1f" % m for m in ms) or "not seen"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
