"""Arm -> cue in the simulator's CPU model: how long after the cue the LEDs show it, and the
`armed` line.

The cue is the instant of the input that opened the race (the `arm` line's arrival tick, ARM's
debounced press: the `armed` line's t_us/t_ns, docs/architecture.md "Instants the rules name").
The App lights the race's frame then (App.show_cue), before the pre-race journal write and
collection; the `armed` line follows them. This bench plays a 4-player quiz in the simulator
with the chip's CPU model (tablebuzz.sim.cost) and a journal or none, armed by an `arm` line or
by the ARM button, and prints, from the cue: the end of the first frame with every station in
full colour, and the `armed` line. The emulated chip's figure: bench_chip_latency.py ("arm: cue
->").

Run: .venv/bin/python bench/bench_arm_cue.py   (figures: bench/README.md)
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "host"))

from tablebuzz.sim.simulate import _ensure_paths  # noqa: E402

_ensure_paths()

from tablebuzz.sim import runner  # noqa: E402
from tablebuzz.sim.timeline import parse  # noqa: E402

CONTROLS = ["arm", "yes", "no", "undo"]
PLAYERS = 4
ARM_US = 2_000_000


def measure(arm, journal):
    """(ms from the cue to the LEDs in full colour, ms from the cue to the `armed` line)."""
    from refbox import pinmap

    lines = []
    header = {"seed": "1", "game": "quiz", "players": PLAYERS}
    if journal:
        header["flash"] = {}
    sim = runner.Simulation(header, lambda t, line: lines.append((t, line)))
    first = ({"at_us": ARM_US, "control": "arm"} if arm == "ARM"
             else {"at_us": ARM_US, "send": {"cmd": "arm"}})
    records = [first, {"at_us": ARM_US + 400_000, "send": {"cmd": "state"}}]
    text = "".join(json.dumps(r) + "\n" for r in records)
    sim.run(parse(text, PLAYERS, CONTROLS))
    ((line_ns, armed),) = [(t, json.loads(x)) for t, x in lines if '"armed"' in x]
    cue_ns = armed["t_us"] * 1000 + armed["t_ns"]
    full = [tuple(c * 64 // 255 for c in pinmap.PLAYER_COLOURS[p]) for p in range(PLAYERS)]
    shown = [t for t, _, frame in sim.world.pixel_frames
             if t >= cue_ns and [tuple(px) for px in frame[:PLAYERS]] == full]
    return (shown[0] - cue_ns) / 1e6 if shown else None, (line_ns - cue_ns) / 1e6


def main():
    print("arm -> cue in the simulator's CPU model (%d-player quiz), ms from the cue:" % PLAYERS)
    print("  %-6s %-10s %8s %14s" % ("arm", "journal", "LEDs", "armed line"))
    for arm in ("line", "ARM"):
        for journal in (False, True):
            led, line = measure(arm, journal)
            print("  %-6s %-10s %8.1f %14.1f" % (arm, "yes" if journal else "none", led, line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
