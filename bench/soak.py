"""The night soak, long (issue 19 item 7): generated whole sessions of every game with a polling
host, desk commands, box buttons, power cuts, flash stalls, a stalled host and noise (tests/soak.py
says what a night holds and how each invariant is read). Prints, per invariant, how many checks
failed of how many, then the seeds of the failing nights and their first failures.

    python bench/soak.py --nights 100            # seeds 0..99, CPython
    python bench/soak.py --nights 20 --micropython   # also the unix port, byte for byte
    python bench/soak.py --write 16 night.jsonl  # night 16 as a timeline:
    tablebuzz sim --script night.jsonl           # ...replayed
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "host"), str(ROOT / "tests")]

from tablebuzz.sim.simulate import _ensure_paths  # noqa: E402

_ensure_paths()

import soak  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=100)
    parser.add_argument("--start", type=int, default=0, help="the first night's seed")
    parser.add_argument("--micropython", action="store_true", help="also run the unix port")
    parser.add_argument("--write", nargs=2, metavar=("SEED", "FILE"), help="write one night")
    args = parser.parse_args(argv)
    if args.write:
        seed, path = int(args.write[0]), args.write[1]
        Path(path).write_text(soak.replay_text(soak.night(seed)))
        print("night %d (%s) written to %s" % (seed, soak.night(seed).head["game"], path))
        return 0
    interpreters = ("cpython", "micropython") if args.micropython else ("cpython",)
    seeds = range(args.start, args.start + args.nights)
    t0 = time.time()
    counts, failing = soak.run_nights(seeds, interpreters)
    print("%d nights (seeds %d..%d, %s) in %.1f s" % (
        args.nights, seeds[0], seeds[-1], " + ".join(interpreters), time.time() - t0))
    print(soak.table(counts))
    if failing:
        print("failing nights: %s" % " ".join(str(s) for s in failing))
        for note in counts.notes:
            print("  " + note[:300])
    return 0


if __name__ == "__main__":
    sys.exit(main())
