"""A press crosses few modules (issue 39): bench/press_path.py traces a lone press in the
simulator under CPython, from the capture read of its PIO stamp to the race line written and the
winner's LED lit (sys.setprofile), and counts the firmware modules and the Python calls on the
way. Counts, not times: this fails when the path grows past the figures of bench/README.md
"press_path.py" (10 modules, 87 calls), so a new module or call on the race path is a choice
made in the open."""

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "press_path.py"
# the modules a lone press crosses, each with its one job on the path
CROSSED = {
    "refbox.app",  # the loop: the capture read, the horizons, the winner's light and line
    "refbox.board",  # the capture's DMA ring, the LEDs' PIO, the console
    "refbox.capture",  # PIO words to edges
    "refbox.edgeloop",  # the per-edge loop (its Python form under CPython)
    "refbox.debounce",  # the debounce and noise rule: the station's closure judged a press
    "refbox.ticks",  # Stamps and tick arithmetic
    "refbox.referee",  # the ordered stream, the decision's one moment
    "refbox.arbiter",  # first press, ties
    "refbox.protocol",  # the race line's bytes
    "refbox.outbox",  # the console's output queue: the line's one write
}
CALLS = 87


def _trace():
    spec = importlib.util.spec_from_file_location("press_path", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.trace()


def test_a_lone_press_crosses_no_more_modules_and_calls_than_measured():
    calls, winner, _ = _trace()
    assert winner == 3  # (the race the trace followed: P3 alone)
    assert set(calls) <= CROSSED, sorted(set(calls) - CROSSED)
    assert len(calls) <= 10
    assert sum(calls.values()) <= CALLS, calls
