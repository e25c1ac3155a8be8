"""A long game's power-up on the emulated RP2040: does the board resume it, and how fast?

For each length of `QUESTIONS`, a 6-player quiz of that many questions is played in the
simulator on its flash (tests/journal_games.py `play_long_quiz`: each question armed, raced,
judged), and its journal file put on the board with the firmware as `make flash` deploys it
(bench_chip_latency.deployed_run). The board is booted from that image (t0 = power-on) and plays
one more question. Prints, per length: the log's entries, the journal's bytes and records,
power-on -> `hello` and -> `resume` (ms, when their "\\n" reached the host), whether the
resumed scores are the simulator's, the `race` and `score` of the question after, and any
`error` line or traceback (a `journal_bad`, a `not_saved`).

  QUESTIONS=LIST  lengths, each 1 or more (default 200,500,1000)
  FALSE_STARTS=1  the quiz of tests/journal_games.py `false_start_quiz` instead (a false start,
                  a lockout entry, every question), and the question played after it on the
                  board opens with a false start too
  RP2EMU=DIR, UF2=FILE, PACK=1, FROZEN=1 (UF2 the tablebuzz image) as bench_chip_latency.py

Without the emulator it says so and exits 0. About 30 wall seconds per length.
"""

import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "host"))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests"))

from bench_chip_latency import _environment, deployed_run  # noqa: E402

PLAY = [
    {"at_us": 3_000_000, "send": {"cmd": "arm"}},
    {"at_us": 3_200_000, "press": 3},
    {"at_us": 3_300_000, "release": 3},
    {"at_us": 3_400_000, "send": {"cmd": "judge", "correct": True}},
]


def main():
    try:  # a game of no question has no score line to compare: lengths of 1 or more
        lengths = os.environ.get("QUESTIONS") or "200,500,1000"
        questions = [int(q) for q in lengths.split(",") if q]
        if not questions or min(questions) < 1:
            raise ValueError
    except ValueError:
        print("bench_long_journal_chip: QUESTIONS must be whole numbers of 1 or more, "
              "comma-separated (e.g. QUESTIONS=20,50), not %r" % os.environ.get("QUESTIONS"))
        return 2
    env = _environment()
    if isinstance(env, str):
        print("bench_long_journal_chip: the emulated RP2040 is not available: %s; nothing "
              "measured" % env)
        return 0
    emu, uf2 = env
    from tablebuzz.sim import simulate

    simulate._ensure_paths()  # the simulator's own loader: the firmware and its fakes
    from journal_games import play_long_quiz

    false_starts = bool(os.environ.get("FALSE_STARTS"))
    play = PLAY
    if false_starts:  # a press before ARM: a lockout entry, saved, before the race
        play = [{"at_us": 2_700_000, "press": 5}, {"at_us": 2_730_000, "release": 5}] + PLAY
    text = "".join(json.dumps(d) + "\n" for d in play)
    args = ["--ms", "3900", "--pins", "2,3,4,5,6,7,8,9", "--quiet", "--allow-silent"]
    print("%9s %7s %7s %7s %9s %9s %7s %s" % ("questions", "entries", "bytes", "records",
                                               "->hello", "->resume", "scores", "after"))
    status = 0
    for n in questions:
        fs, score = play_long_quiz(n, false_starts=false_starts)
        data = fs.files["journal.tbj"]
        from refbox.journal import read

        entries = len(read(data)[0].log)
        proc, failed = deployed_run(emu, uf2, text, args, extra={"journal.tbj": data})
        if failed:
            print(failed)
            return 1
        seen = {}
        notes = []
        after = []
        for raw in proc.stdout.splitlines():
            row = json.loads(raw)
            line = row.get("line", "")
            ev = row.get("json") or {}
            kind = ev.get("ev")
            if kind in ("hello", "resume") and kind not in seen:
                seen[kind] = row["at_us"] / 1000
            elif kind == "score" and "score" not in seen:
                seen["score"] = ev["scores"]
            elif kind == "error":
                notes.append("%s: %s" % (ev.get("code"), ev.get("detail", "")[:70]))
            elif "Traceback" in line or "Error" in line and not ev:
                notes.append(line[:90])
            if kind in ("lockout", "race", "score") and row["at_us"] > play[0]["at_us"]:
                after.append(kind)
        same = "same" if seen.get("score") == score["scores"] else "DIFFER"
        if same != "same" or "resume" not in seen:
            status = 1
        print("%9d %7d %7d %7d %9s %9s %7s %s" % (
            n, entries, len(data), data.count(b"\n") - 1,
            "%.0f" % seen["hello"] if "hello" in seen else "-",
            "%.0f" % seen["resume"] if "resume" in seen else "-",
            same, ",".join(after) or "-"))
        for note in notes:
            print("%9s %s" % ("", note))
    return status


if __name__ == "__main__":
    sys.exit(main())
