"""Stamps decide, never the loop (issue 39), long: every example game (up to its first power
cut) on a chip four times faster and four times slower and with flash stalls four times longer,
and with a `state` or a refused line slipped in at each ms from -8 to +8 ms around every press,
release and event, one line a run. Prints, per check, how many runs decided differently of how
many, and the first difference of each failing run. The quick selection of the same checks is
in `make test` (tests/test_stamp_order.py, tests/test_line_changes_nothing.py).

    python bench/stamp_order.py                    # every example, CPython
    python bench/stamp_order.py --games quiz_demo --slips 200
"""

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "host"), str(ROOT / "tests")]

from tablebuzz.sim.simulate import _ensure_paths  # noqa: E402

_ensure_paths()

from slips import KINDS, answers_removed, first_difference, slip  # noqa: E402
from test_stamp_order import EXAMPLES, _decisions, _scaled  # noqa: E402


def _moments(lines, records):
    times = {float(r["at_us"]) for r in records if "press" in r or "release" in r}
    times |= {ns / 1000 for ns, _ in lines[3:]}
    return sorted(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=sorted(EXAMPLES))
    parser.add_argument("--slips", type=int, default=0,
                        help="slipped-line runs per game at most (0: every ms around each moment)")
    args = parser.parse_args(argv)
    counts = {}  # check -> [failed, runs]
    started = time.time()
    for name in args.games:
        head, records = EXAMPLES[name]
        plain = _scaled(head, records)
        base = _decisions(plain)
        checks = [("cpu x0.25", {"cpu_scale": 0.25}), ("cpu x4", {"cpu_scale": 4}),
                  ("flash stalls x4", {"flash": {"stall_scale": 4}})]
        for check, scales in checks:
            other = _scaled(head, records, **scales)
            if "flash" in scales:
                base_here = _decisions(_scaled(head, records, flash={}))
            else:
                base_here = base
            bad = _decisions(other) != base_here
            counts.setdefault(check, [0, 0])
            counts[check][0] += bad
            counts[check][1] += 1
            if bad:
                print("%s %s: %s" % (name, check, first_difference(base_here, _decisions(other))))
        times = sorted({m + off * 1000 for m in _moments(plain, records)
                        for off in range(-8, 9) if m + off * 1000 > 2000})
        if args.slips:
            times = times[:: max(1, len(times) // args.slips)]
        without = [line for _, line in plain]
        for i, at in enumerate(times):
            kind = KINDS[i % len(KINDS)]
            mixed_records, slipped = slip(records, [at], [kind])
            mixed = _scaled(head, mixed_records)
            kept = [line for _, line in answers_removed(mixed, slipped)]
            check = "a slipped %s line" % ("state" if kind is KINDS[0] else "refused")
            counts.setdefault(check, [0, 0])
            counts[check][1] += 1
            if kept != without:
                counts[check][0] += 1
                print("%s, line at %.1f µs: %s" % (name, at, first_difference(without, kept)))
    print("\n%d games, %.0f s" % (len(args.games), time.time() - started))
    for check, (failed, runs) in sorted(counts.items()):
        print("  %-24s %d of %d runs decided differently" % (check, failed, runs))
    print(json.dumps({k: v for k, v in counts.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
