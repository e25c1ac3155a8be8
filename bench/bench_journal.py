"""The journal's cost: bytes per decision, flash writes per game, how long a write blocks the loop
(the simulator's flash model), and boot-to-resumed time on the unix port.

(a) One full scripted game of each of the six games (the scripts tests/test_journal.py cuts) on the
    simulated flash: decisions saved (log entries that stand, plus those undone), write bursts,
    bytes written and per burst, the journal's final size, compactions, and the interrupt mask
    (= CPU stall) each burst costs in the model of tablebuzz.sim.flashfs: mean, worst, total.
(b) Boot to resumed on the unix port, real files: refbox.boot through the simulator's platform with
    an unfinished game's journal (the longest script, Evidence, cut three quarters in) against the
    same boot with no journal. The board is about 50-120x slower than the unix port here.
Run: .venv/bin/python bench/bench_journal.py   (figures: bench/README.md)
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "host"), str(ROOT / "tests")]

from tablebuzz.sim import simulate  # noqa: E402

simulate._ensure_paths()
from journal_games import GAMES, Played  # noqa: E402
from refbox import journal  # noqa: E402

BOOT_PROBE = """
import time
from tablebuzz.sim import runner
best = None
for _ in range(%d):
    t0 = time.ticks_us()
    sim = runner.Simulation({"seed": "1", "flash": {"dir": %r}}, lambda t, line: None)
    dt = time.ticks_diff(time.ticks_us(), t0)
    best = dt if best is None or dt < best else best
    assert (sim.app.referee.game is not None) == %r
print("#bench", best)
"""


def games():
    print("(a) six full games on the simulated flash (W25Q16JV-class model: 0.4 ms a page,")
    print("    45 ms a 4 KiB erase; the CPU stalls and interrupts are masked while it writes)")
    head = "%-11s %9s %7s %8s %9s %8s %8s %9s %9s %9s"
    print(head % ("game", "decisions", "bursts", "bytes", "B/burst", "file B", "compact",
                  "mean ms", "worst ms", "total ms"))
    for name in GAMES:
        game = Played(name)
        j = game.sim.app.journal
        lines = [json.loads(line) for _, line in game.lines]
        undone = sum(ev["dropped"] for ev in lines if ev["ev"] == "undo")
        final = journal.read(game.fs.files["journal.tbj"])[0]
        decisions = len(final.log) + undone
        renames = sum(1 for _, kind, _ in game.fs.trace if kind == "rename")
        # one burst = its commits' masks, which follow each other
        masks = [(end - start) / 1e6 for start, end in game.fs.masks]
        per_burst = []
        for first, last, _ in game.saves:
            per_burst.append(sum(masks[i] for i in _commit_indexes(game, first, last)))
        print(head % (
            name, decisions, j.writes, j.bytes_written, "%.0f" % (j.bytes_written / j.writes),
            len(game.fs.files["journal.tbj"]), renames,
            "%.2f" % (sum(per_burst) / len(per_burst)), "%.1f" % max(per_burst),
            "%.1f" % sum(per_burst),
        ))


def _commit_indexes(game, first, last):
    """Indexes into fs.masks of the commits made by ops first..last."""
    committing = ("close", "flush", "rename", "remove")
    index = -1
    out = []
    for op, kind, _ in game.fs.trace:
        if kind in committing and _did_commit(game, op, kind):
            index += 1
            if first <= op <= last:
                out.append(index)
    return out


def _did_commit(game, op, kind):
    if kind in ("rename", "remove"):
        return True
    return any(c[0] == op for c in game.fs.commits)


def boot_to_resumed():
    print()
    print("(b) boot to resumed on the unix port (refbox.boot, real files; best of 5)")
    game = Played("evidence")
    k = game.saves[len(game.saves) * 3 // 4][1]
    data = game.fs.history[k]["journal.tbj"]
    entries = len(journal.read(data)[0].log)
    cases = (("no journal", {}, False), ("resume", {"journal.tbj": data}, True))
    for label, files, resumes in cases:
        with tempfile.TemporaryDirectory() as d:
            for name, content in files.items():
                Path(d, name).write_bytes(content)
            code = BOOT_PROBE % (5, d + "/", resumes)
            proc = subprocess.run(
                simulate.micropython_command(code), capture_output=True, text=True
            )
            if proc.returncode != 0 or "#bench" not in proc.stdout:
                print("bench_journal: the MicroPython run failed:\n" + proc.stderr[-2000:])
                sys.exit(1)
            us = int(proc.stdout.split("#bench")[1].split()[0])
        what = "%d log entries, %d bytes" % (entries, len(data)) if resumes else "menu"
        print("  %-11s %7.1f ms  (%s; on the chip ~%.0f-%.0f ms)" % (
            label, us / 1000, what, us * 50 / 1000, us * 120 / 1000))


def long_quiz(questions=300):
    """(c) A long quiz's saves against its compactions (refbox.compaction), in the flash model."""
    from helpers import CONTROLS
    from journal_games import LONG_QUIZ_PLAYERS
    from journal_games import long_quiz as quiz_timeline
    from tablebuzz.sim import runner
    from tablebuzz.sim.flashfs import FlashFS
    from tablebuzz.sim.timeline import parse

    print()
    print("(c) a %d-question quiz (6 players, a race and a judgement a question): what each save"
          % questions)
    print("    and each compaction pass writes and how long the flash model masks for it (ms)")
    fs = FlashFS()
    head = {"seed": "ab12", "game": "quiz", "players": LONG_QUIZ_PLAYERS, "flash": {},
            "options": {"questions": 0, "target": 0}}
    sim = runner.Simulation(head, lambda t, line: None, fs=fs)
    j = sim.app.journal
    rows = {"save": [], "compaction pass": []}

    def watched(real, kind):
        def call(*args):
            masks, written = len(fs.masks), fs._written  # (bytes committed, the model's)
            out = real(*args)
            ms = sum((end - start) / 1e6 for start, end in fs.masks[masks:])
            if fs._written > written or ms:
                rows[kind].append((fs._written - written, ms))
            return out
        return call

    j.sync = watched(j.sync, "save")
    j.work = watched(j.work, "compaction pass")
    sim.run(parse(quiz_timeline(questions), LONG_QUIZ_PLAYERS, CONTROLS))
    renames = sum(1 for _, kind, _ in fs.trace if kind == "rename")
    print("  %-16s %6s %9s %9s %9s %9s" % ("", "count", "max B", "mean ms", "max ms",
                                         "total ms"))
    for kind, got in rows.items():
        if not got:
            continue
        ms = [m for _, m in got]
        print("  %-16s %6d %9d %9.2f %9.1f %9.1f" % (
            kind, len(got), max(b for b, _ in got), sum(ms) / len(ms), max(ms), sum(ms)))
    print("  renames (game start + compactions): %d; journal %d bytes at the end" % (
        renames, len(fs.files["journal.tbj"])))


if __name__ == "__main__":
    games()
    boot_to_resumed()
    long_quiz()
