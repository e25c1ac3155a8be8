"""USB keyboard mode: from each race line to the winner's key, on the modelled chip.

Scripted games (examples/quiz_demo.jsonl, quiz_tournament.jsonl, quizbowl_naqt.jsonl) played in
the simulator under the MicroPython unix port with the keyboard on (every station its number-row
key), micropython-lib's real usb-device packages (from MPLIB_SRC) on the fake machine.USBDevice
and the simulated host (host/tablebuzz/sim/usbhost.py: 8 ms polls). For each game: races, taps
the host received, and per race the time from the `race` line to the key report handed to the
USB stack, and to the host taking it (p50 / max, ms of simulated time; a tap the box never
typed, e.g. queued when the power was cut, counts in neither). Also whether every line
and its time is the same as without the keyboard. The CPU model charges nothing for the
library's own Python (docs/usb-keyboard.md). Without MPLIB_SRC it says so and prints nothing else.
Run: MPLIB_SRC=path/to/micropython-lib .venv/bin/python bench/bench_usb_keyboard.py
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from tablebuzz import simulate  # noqa: E402
from tablebuzz.paths import REPO  # noqa: E402
from tablebuzz.sim import mplib  # noqa: E402
from tablebuzz.sim.timeline import parse, read_setup  # noqa: E402

simulate._ensure_paths()
from refbox import pinmap  # noqa: E402

CONTROLS = [name for name, _ in pinmap.CONTROLS]
GAMES = ("quiz_demo.jsonl", "quiz_tournament.jsonl", "quizbowl_naqt.jsonl")
SCRIPT = r"""
import json, sys
sys.path.insert(0, %(lib)r)
from tablebuzz.sim.runner import Simulation
from tablebuzz.sim import usbhost
header = json.loads(sys.stdin.readline())
records = [json.loads(line) for line in sys.stdin]
lines = []
sim = Simulation(header, lambda t, line: lines.append((t, line))).run(records)
host = usbhost.host(sim.world)
print(json.dumps({"lines": lines, "downs": [t for t, _, data in host.submits if any(data)],
                  "taken": [t for t, _, data in host.reports if any(data)]}))
"""


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def run(lib, path):
    text = path.read_text()
    setup = read_setup(text) or {}
    players = setup.get("players", 6)
    header = {"seed": setup.get("seed", "1"), "game": "quiz", "players": players,
              "options": setup.get("options", {}), "flash": {}, "usb_keyboard": {}}
    records = list(parse(text, players, CONTROLS))
    feed = "\n".join([json.dumps(header)] + [json.dumps(r) for r in records]) + "\n"
    done = subprocess.run(simulate.micropython_command(SCRIPT % {"lib": str(lib)}), input=feed,
                          capture_output=True, text=True, env={"MICROPYPATH": ""})
    if done.returncode != 0:
        raise SystemExit("%s: the unix port failed:\n%s" % (path.name, done.stderr[-2000:]))
    out = json.loads(done.stdout.splitlines()[-1])
    plain = dict(header)
    del plain["usb_keyboard"]
    same = [list(x) for x in simulate.run(plain, records, "micropython")] == out["lines"]
    races = [t for t, line in out["lines"] if line.startswith('{"ev":"race"')]
    handed, polled = [], []
    for i, race in enumerate(races):  # each race's tap: the first key-down after its line
        end = races[i + 1] if i + 1 < len(races) else None
        down = [t for t in out["downs"] if t >= race and (end is None or t < end)]
        taken = [t for t in out["taken"] if t >= race and (end is None or t < end)]
        if down:
            handed.append((down[0] - race) / 1e6)
        if taken:
            polled.append((taken[0] - race) / 1e6)
    return {"game": path.name, "races": len(races), "typed": len(out["taken"]),
            "handed": handed, "polled": polled, "same": same}


def main():
    try:
        with tempfile.TemporaryDirectory() as folder:
            lib = mplib.usb_library(out=folder)
            results = [run(lib, REPO / "examples" / name) for name in GAMES]
    except mplib.MplibMissingError as e:
        print("bench_usb_keyboard: skipped: %s" % e)
        return
    print("race line -> winner's key report (ms, simulated; host polls every 8 ms)")
    print("%-24s %5s %5s  %-15s %-15s %s" % ("game", "races", "typed", "handed p50/max",
                                           "taken p50/max", "lines same"))
    for r in results:
        print("%-24s %5d %5d  %6.1f / %-6.1f  %6.1f / %-6.1f  %s" % (
            r["game"], r["races"], r["typed"], percentile(r["handed"], 50),
            max(r["handed"]), percentile(r["polled"], 50), max(r["polled"]),
            "yes" if r["same"] else "NO"))


if __name__ == "__main__":
    main()
