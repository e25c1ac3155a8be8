"""The modules a press crosses: one lone press in the simulator under CPython, traced with
sys.setprofile from the capture read of its PIO stamp to the race line written and the winner's
LED lit, and the firmware modules (refbox.*) it went through, with the Python calls in each.

The timeline: an 8-player quiz, ARM at 300 ms, P3 pressed at 600 ms and held, no bounce, no
noise, the simulator's CPU model as for `tablebuzz sim`. The trace opens at the first
`App._read_capture` that reads capture words while the race is open (the press's first edge,
its PIO stamp) and closes when `App.announce` returns (the winner's station lit,
`Board.show_floor`, and the `race` line written). Every Python call in between is counted by the
module of its code (`__name__`) inside the board's loop (`App.step`, `App.wake_in_us`, as
`App.run` calls them; not the simulator's questions between passes), the passes that judged
the closure included: what the press crosses, not only the pass that decided. C functions
(builtins) are not counted.

    .venv/bin/python bench/press_path.py            # this tree
    PYTHONPATH=DIR/firmware:DIR/host .venv/bin/python bench/press_path.py
                                                    # another tree (git archive of a commit)
    .venv/bin/python bench/press_path.py --json     # the counts as JSON (tests/test_press_path.py)

Prints each module with its calls, most first, then the count of modules. Figures:
bench/README.md "press_path.py".
"""

import argparse
import json
import sys
from pathlib import Path

if not any(Path(p, "tablebuzz").is_dir() for p in sys.path if p):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from tablebuzz.sim import simulate  # noqa: E402
from tablebuzz.sim.timeline import parse  # noqa: E402

CONTROLS = ["arm", "yes", "no", "undo"]
HEADER = {"seed": "1", "game": "quiz", "players": 8, "options": {}, "bounce": "none", "cpu": "on"}
RECORDS = [
    {"at_us": 300000, "control": "arm"},
    {"at_us": 600000, "press": 3},
    {"at_us": 800000, "release": 3},
]


def trace():
    """({module: Python calls}, the race line's winner (1-based), {"module.function": calls})
    from the press's capture read to the race line and the LED. Raises RuntimeError when the
    trace never opened or closed."""
    simulate._ensure_paths()
    from refbox import app as app_module
    from refbox.arbiter import ARMED

    read_code = app_module.App._read_capture.__code__
    announce_code = app_module.App.announce.__code__
    # the board's loop (App.run): a pass and its sleep; the simulator's own questions between
    # passes (App.is_busy, maintenance_due) are no part of the chip's path
    loop_codes = (app_module.App.step.__code__, app_module.App.wake_in_us.__code__)
    calls = {}
    functions = {}  # "module.function" -> calls (--functions)
    state = {"open": False, "closed": False, "winner": None, "in_loop": 0}

    def profile(frame, event, arg):
        if state["closed"]:
            return
        code = frame.f_code
        if code in loop_codes:
            state["in_loop"] += 1 if event == "call" else -1 if event == "return" else 0
        if event == "call" and state["in_loop"]:
            if not state["open"]:
                if code is read_code and frame.f_locals.get("n"):
                    app = frame.f_locals["self"]
                    if app.referee.arbiter.phase == ARMED:
                        state["open"] = True
                if not state["open"]:
                    return
            name = frame.f_globals.get("__name__", "")
            if name.startswith("refbox"):
                calls[name] = calls.get(name, 0) + 1
                where = "%s.%s" % (name, code.co_qualname if hasattr(code, "co_qualname")
                                   else code.co_name)
                functions[where] = functions.get(where, 0) + 1
        elif event == "return" and code is announce_code and state["open"]:
            state["closed"] = True
            state["winner"] = frame.f_locals["fields"][0][1]

    lines = []
    records = parse("\n".join(json.dumps(r) for r in RECORDS) + "\n", HEADER["players"], CONTROLS)
    sys.setprofile(profile)
    try:
        lines = simulate.run(dict(HEADER), records)
    finally:
        sys.setprofile(None)
    if not state["closed"]:
        raise RuntimeError("the trace never reached App.announce (lines: %d)" % len(lines))
    return calls, state["winner"], functions


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print {module: calls} as JSON")
    parser.add_argument("--functions", action="store_true", help="also each function's calls")
    args = parser.parse_args()
    calls, winner, functions = trace()
    if args.json:
        print(json.dumps(calls, sort_keys=True))
        return
    print("a lone press (P%d won): capture read of its stamp -> race line and LED" % winner)
    for name, n in sorted(calls.items(), key=lambda item: (-item[1], item[0])):
        print("  %-28s %5d calls" % (name, n))
    if args.functions:
        for name in sorted(functions):
            print("    %-50s %5d" % (name, functions[name]))
    print("modules crossed: %d, calls: %d" % (len(calls), sum(calls.values())))


if __name__ == "__main__":
    main()
