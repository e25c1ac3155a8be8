"""Decision timing in the core: first press -> `race` line, in the simulator's virtual time.

A race is decided once the press horizon (docs/architecture.md "Deadlines") has passed the first
press: no earlier or equal press can still come. The budget, from the firmware's own constants:
  debounce confirmation of the first press (Debouncer.press_us of closure, openings not counted)
  + capture lag (App.pio_lag_us: an edge is in the ring by then)
  + one loop period (App.loop_ms: the pass that notices)
A closure on another station that began before the first press (noise, a runner-up closing 2 ms
later does not) holds the decision until it is judged.
This bench plays races through the whole simulated capture path (PIO, bounce, noise on
other stations) on the 1 ms loop grid and prints the distribution of first press -> race line.
The loop's own cost on the chip is not in it (issue 16 makes the pass itself fast).
Run: .venv/bin/python bench/bench_decision.py   (figures: bench/README.md)
"""

import json
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from tablebuzz.sim import simulate  # noqa: E402
from tablebuzz.sim.timeline import parse  # noqa: E402

simulate._ensure_paths()
from refbox.app import App  # noqa: E402
from refbox.debounce import Debouncer  # noqa: E402

RACES = int(os.environ.get("RACES", "150"))  # per scenario
ARM_US = 20000
CONTROLS = ["arm", "yes", "no", "undo"]


def _us(ns):
    """A timeline "at_us" for a time in ns (at most three decimals)."""
    return ns // 1000 if ns % 1000 == 0 else float("%d.%03d" % divmod(ns, 1000))


def race(rng, scenario):
    """(timeline text, header, first press ns) for one random race of `scenario`."""
    bounce, capture, kind = scenario
    t0 = 50000000 + rng.randrange(0, 1000000)  # ns, off the 1 ms grid
    recs = [{"at_us": ARM_US, "send": {"cmd": "arm"}}, {"at_us": _us(t0), "press": 1}]
    if kind in ("close", "noise"):
        # a runner-up up to 2 ms later (the old settle window): it no longer delays the decision
        late = t0 + 2000000 - rng.randrange(1000, 300000)
        recs.append({"at_us": _us(late), "press": 2})
    if kind == "noise":
        for station in (4, 5, 6):
            at = t0 + rng.randrange(-3000000, 2000000)
            width = rng.randrange(50, 200000)
            recs.append({"at_us": _us(at), "glitch": station, "width_ns": width})
    recs.append({"at_us": _us(t0 + 200000000), "release": 1})
    if kind != "alone":
        recs.append({"at_us": _us(t0 + 200000000), "release": 2})
    recs.sort(key=lambda r: r["at_us"])
    text = "\n".join(json.dumps(r) for r in recs) + "\n"
    header = {
        "seed": "%x" % rng.randrange(1, 2**32),
        "game": "quiz",
        "players": 6,
        "bounce": bounce,
        "capture": capture,
        "cpu": "off",  # the rule's own timing: the chip's Python is bench_chip_latency's
    }
    return text, header, t0


def measure(scenario, rng):
    lags = []
    for _ in range(RACES):
        text, header, first_ns = race(rng, scenario)
        lines = simulate.run(header, parse(text, 6, CONTROLS))
        decided = [ns for ns, line in lines if line.startswith('{"ev":"race"')]
        if len(decided) != 1:
            print("no single race decision in", header, text)
            sys.exit(1)
        lags.append((decided[0] - first_ns) / 1e6)
    lags.sort()
    return lags


def main():
    press_ms = Debouncer.press_us / 1000
    lag_ms = App.pio_lag_us / 1000
    total = lag_ms + press_ms + App.loop_ms
    print(
        "budget: confirmation %.1f (+ its bounce openings) + capture lag %.2f + loop"
        " period %d ms = %.2f ms + openings" % (press_ms, lag_ms, App.loop_ms, total)
    )
    print("first press -> race line, ms (virtual time, %d races each):" % RACES)
    head = ("bounce", "cap", "race", "min", "median", "p95", "max")
    print("%-8s %-4s %-6s %6s %6s %6s %6s" % head)
    rng = random.Random(10)
    worst = 0.0
    for capture in ("pio",):
        for bounce in ("none", "typical", "worn"):
            for kind in ("alone", "close", "noise"):
                lags = measure((bounce, capture, kind), rng)
                p95 = lags[int(len(lags) * 0.95) - 1]
                worst = max(worst, lags[-1])
                row = (bounce, capture, kind, lags[0], lags[len(lags) // 2], p95, lags[-1])
                print("%-8s %-4s %-6s %6.2f %6.2f %6.2f %6.2f" % row)
    print("worst of all: %.2f ms (requirement: within 5 ms of the first press)" % worst)


if __name__ == "__main__":
    main()
