"""The simulator's CPU model against the emulated chip: every latency figure, side by side.

The emulated RP2040 (rp2emu, the real MicroPython v1.28.0 firmware) played the timelines under
bench/data/cpu/ (NAME.sim.jsonl: the timeline with its set-up line; NAME.meta.json: what each race
drove; NAME.chip.jsonl: each line the chip wrote with its emulated µs, from board_run.ts; written
by `SAVE=bench/data/cpu bench/bench_chip_latency.py`). This
bench plays the same timelines in the simulator (tablebuzz.sim.cost's table, the flash's write
times off as the emulator has none) and prints, per figure, the chip's and the simulator's
min / median / max in ms and the ratio of `typical` (the medians of a race's lines, the
fastest of a command's), flagged when outside ±30%:
- first press -> `race` line and -> the first `press` line, by race kind (1, 2, 4, 6 and 8
  presses 1-30 µs apart, a lone press in 64-edge noise bursts on 2 other stations);
- a command -> each line it gives (`new_game`, `arm`, `judge`).
The lines must be the same events in the same order (the decisions never depend on the model).
tests/test_cpu_model.py checks the same figures.

Run: .venv/bin/python bench/bench_cpu_model.py [--interpreter micropython]
Redo the fit: see bench/README.md "The simulator's CPU model".
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "host"))

from tablebuzz.sim import simulate  # noqa: E402
from tablebuzz.sim.timeline import parse, read_setup  # noqa: E402

DATA = ROOT / "bench" / "data" / "cpu"
RUNS = ("latency_a",)
TOLERANCE = 0.30
CONTROLS = ["arm", "yes", "no", "undo"]


def header_for(setup):
    """The simulator's header for a calibration timeline: as the emulator ran it (no bounce
    beyond the driven edges, a littlefs whose writes take no time)."""
    head = {"seed": setup.get("seed", "1"), "bounce": "none", "flash": {"stall": False},
            "clock_mhz": 125}  # the emulated chip's clock in those runs
    if setup.get("game", "menu") != "menu":
        head["game"] = setup["game"]
        head["players"] = setup.get("players", 6)
        head["options"] = setup.get("options", {})
    return head


def chip_lines(name):
    out = []
    with open(DATA / (name + ".chip.jsonl")) as f:
        for text in f:
            rec = json.loads(text)
            out.append((rec["at_us"] * 1000, rec["line"]))
    return out


def sim_lines(name, interpreter="cpython"):
    text = (DATA / (name + ".sim.jsonl")).read_text()
    setup = read_setup(text)
    records = parse(text, setup.get("players", 6), CONTROLS)
    return simulate.run(header_for(setup), records, interpreter)


def figures(name, lines):
    """{figure: [ms]} for one run's lines [(ns, line)]."""
    meta = json.loads((DATA / (name + ".meta.json")).read_text())
    stimuli = []
    with open(DATA / (name + ".sim.jsonl")) as f:
        for text in f:
            rec = json.loads(text)
            if "send" in rec:
                stimuli.append((rec["at_us"] * 1000, rec["send"]["cmd"]))
    out = {}
    events = [(ns, json.loads(line)["ev"]) for ns, line in lines if line.startswith("{")]
    for race in meta["races"]:
        first = min(p[1] for p in race["presses"]) * 1000
        after = [(ns, ev) for ns, ev in events if ns >= first]
        race_at = next((ns for ns, ev in after if ev == "race"), None)
        press_at = next((ns for ns, ev in after if ev == "press"), None)
        kind = race["kind"]
        if race_at is not None:
            out.setdefault("race line, " + kind, []).append((race_at - first) / 1e6)
        if press_at is not None:
            out.setdefault("press line, " + kind, []).append((press_at - first) / 1e6)
    for i, (at, cmd) in enumerate(stimuli):
        end = stimuli[i + 1][0] if i + 1 < len(stimuli) else None
        for ns, ev in events:
            if ns >= at and (end is None or ns < end):
                if ev in ("press", "race"):
                    break  # a race's lines: its own figures
                key = "%s -> %s" % (cmd, ev)
                out.setdefault(key, []).append((ns - at) / 1e6)
    return out


def compare(interpreter="cpython"):
    """[(figure, chip ms list, sim ms list)] over every run; raises if the events differ."""
    rows = {}
    for name in RUNS:
        chip = chip_lines(name)
        sim = sim_lines(name, interpreter)
        chip_events = [json.loads(line)["ev"] for _, line in chip if line.startswith("{")]
        sim_events = [json.loads(line)["ev"] for _, line in sim if line.startswith("{")]
        if chip_events != sim_events:
            raise AssertionError("%s: the simulator's events differ from the chip's" % name)
        c, s = figures(name, chip), figures(name, sim)
        for key in c:
            rows.setdefault(key, ([], []))
            rows[key][0].extend(c[key])
            rows[key][1].extend(s.get(key, []))
    return [(key, rows[key][0], rows[key][1]) for key in sorted(rows)]


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def typical(key, values):
    """The figure compared for `key`: the median of a race's lines; a command's fastest, its
    runs without MicroPython's automatic collection. Where that collection falls (a save that
    crosses App.gc_threshold) is all-or-nothing for each command, ~25 ms, and which of a
    run's arms and judgements take it moves with any change to the firmware's allocations
    (on one timeline: 3 of 18 judgements, then 10 of 18 after a change that allocates nothing
    on that path): a median of such a split says which side won, not the model's speed."""
    if key.startswith(("race line", "press line")):
        return median(values)
    return min(values)


def main():
    interpreter = "micropython" if "micropython" in sys.argv[1:] else "cpython"
    print("CPU model vs the emulated chip (ms; ratio = simulator / chip: the medians of a race's")
    print("lines, the fastest of a command's: `typical`)")
    print(
        "%-30s %3s  %7s %7s %7s | %7s %7s %7s  %5s"
        % ("figure", "n", "chip", "median", "max", "sim", "median", "max", "ratio")
    )
    bad = 0
    for key, chip, sim in compare(interpreter):
        ratio = typical(key, sim) / typical(key, chip)
        flag = "" if abs(ratio - 1) <= TOLERANCE else "  <- outside ±30%"
        bad += bool(flag)
        print(
            "%-30s %3d  %7.1f %7.1f %7.1f | %7.1f %7.1f %7.1f  %5.2f%s"
            % (key, len(chip), min(chip), median(chip), max(chip), min(sim), median(sim),
               max(sim), ratio, flag)
        )
    print("figures outside ±30%%: %d" % bad)


if __name__ == "__main__":
    main()
