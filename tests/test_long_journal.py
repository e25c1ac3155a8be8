"""A long game's journal: read a record at a time at power-up, never a crash when RAM is short, and
compacted only once it has grown past twice its snapshot (refbox.journal, docs/architecture.md
"The journal").

On the emulated RP2040 a 200-question quiz (~500 log entries, a 14 KB journal) read whole at
power-up ran out of memory inside the boot: the board stopped at the REPL at every power-up, its
game lost. These tests hold the three rules that fixed it on the simulator's flash."""

import json

from helpers import CONTROLS
from journal_games import LONG_QUIZ_PLAYERS, boot, long_quiz, play_long_quiz
from refbox import journal as journal_module
from refbox.journal import PATH
from tablebuzz.sim import runner
from tablebuzz.sim.flashfs import FlashFS, _File
from tablebuzz.sim.timeline import parse


def test_a_long_game_is_read_a_record_at_a_time_and_resumes_exactly(monkeypatch):
    monkeypatch.setattr(journal_module.Journal, "compact_records", 1 << 30)  # (many records)
    fs, score = play_long_quiz(35)  # (46 judgements: no checkpoint yet, refbox.games.base)
    data = fs.files[PATH]
    assert data.count(b"\n") > 40  # a snapshot and many deltas
    reads = []
    real = _File.read

    def read(self, n=-1):
        chunk = real(self, n)
        reads.append(len(chunk))
        return chunk

    monkeypatch.setattr(_File, "read", read)
    sim, lines = boot(fs.files)
    longest = max(len(line) + 1 for line in data.split(b"\n"))
    assert reads and max(reads) <= longest < len(data) // 2  # never the whole file at once
    resumed = [json.loads(line) for line in lines if line.startswith("{")]
    assert [e["ev"] for e in resumed][:2] == ["hello", "resume"]
    assert [e for e in resumed if e["ev"] == "score"][0]["scores"] == score["scores"]


def test_short_of_memory_the_journal_is_read_again_and_then_set_aside(monkeypatch):
    fs, score = play_long_quiz(10)
    calls = []
    real = _File.read

    def read_once_short(self, n=-1):  # the first read finds the heap too fragmented
        calls.append(1)
        if len(calls) == 1:
            raise MemoryError("memory allocation failed, allocating 2048 bytes")
        return real(self, n)

    monkeypatch.setattr(_File, "read", read_once_short)
    sim, lines = boot(fs.files)
    evs = [json.loads(line) for line in lines if line.startswith("{")]
    assert [e["ev"] for e in evs][:2] == ["hello", "resume"]  # collected, read again: resumed
    assert [e for e in evs if e["ev"] == "score"][0]["scores"] == score["scores"]

    def read_short(self, n=-1):
        raise MemoryError("memory allocation failed, allocating 2048 bytes")

    monkeypatch.setattr(_File, "read", read_short)
    sim, lines = boot(fs.files)  # never a traceback at power-up: the menu, the file kept
    evs = [json.loads(line) for line in lines if line.startswith("{")]
    assert [e["ev"] for e in evs][:3] == ["hello", "error", "menu"]
    assert evs[1]["code"] == "journal_bad" and "MemoryError" in evs[1]["detail"]
    assert sim.fs.files[PATH + ".bad"] == fs.files[PATH]


def test_a_snapshot_over_compact_bytes_is_not_rewritten_at_every_save(monkeypatch):
    # compact_bytes made small, so the snapshot outgrows it within a short game: with "compact
    # past compact_bytes" alone, every save past that point would rewrite the whole log
    monkeypatch.setattr(journal_module.Journal, "compact_bytes", 1024)
    fs = FlashFS()
    fs, score = play_long_quiz(40, fs)
    renames = [op for op in fs.trace if op[1] == "rename"]
    writes = [op for op in fs.trace if op[1] == "write"]
    data = fs.files[PATH]
    snapshot = len(journal_module.header()) + len(data.split(b"\n")[1]) + 1
    assert snapshot > 1024 and len(data) <= 2 * snapshot + max(map(len, data.split(b"\n"))) + 1
    assert len(renames) <= len(writes) // 4  # most saves are appended deltas
    sim, lines = boot(fs.files)
    evs = [json.loads(line) for line in lines if line.startswith("{")]
    assert [e for e in evs if e["ev"] == "score"][0]["scores"] == score["scores"]


def test_a_snapshot_is_read_into_its_own_buffer_and_one_cut_short_loses_nothing_else(monkeypatch):
    """The snapshot's line (~6 KB after 120 questions) is read in one readinto into a buffer of
    its own size: `buf + more` held it twice, and on the emulated RP2040 a 120-question journal
    then ran out of heap at power-up (bench_long_journal_chip.py). A file cut inside that line
    reads as a torn record: no traceback, and the board still comes up."""
    fs, score = play_long_quiz(120)
    data = fs.files[PATH]
    lines = data.split(b"\n")
    snapshot = max(range(len(lines)), key=lambda i: len(lines[i]))
    assert len(lines[snapshot]) > 1000
    sizes = []
    real = _File.readinto

    def readinto(self, buf):
        sizes.append(len(buf))
        return real(self, buf)

    monkeypatch.setattr(_File, "readinto", readinto)
    sim, out = boot(fs.files)
    evs = [json.loads(line) for line in out if line.startswith("{")]
    assert [e["ev"] for e in evs][:2] == ["hello", "resume"]
    assert [e for e in evs if e["ev"] == "score"][0]["scores"] == score["scores"]
    assert sizes and max(sizes) <= len(lines[snapshot]) + 1  # (its rest, with the newline)

    start = sum(len(line) + 1 for line in lines[:snapshot])
    torn = dict(fs.files)
    torn[PATH] = data[: start + len(lines[snapshot]) // 2]  # the power cut mid-snapshot
    sim, out = boot(torn)
    assert not any("Traceback" in line for line in out)
    assert json.loads(out[0])["ev"] == "hello"


def test_a_long_game_is_compacted_in_idle_passes_never_inside_a_save():
    """Issue 38: no decision waits for a long game's snapshot (~15 KB after 300 questions: ~0.5 s
    of flash in the model, inside one judge -> score). Every save appends one small record; the
    snapshot is written ~256 bytes a pass between decisions and renamed over the journal in one
    step (Journal.work), and the journal stays small."""
    fs = FlashFS()
    fs.history = []  # (the commits are kept: what each save wrote)
    head = {"seed": "ab12", "game": "quiz", "players": LONG_QUIZ_PLAYERS, "flash": {},
            "options": {"questions": 0, "target": 0}}  # fmt: skip
    out = []
    sim = runner.Simulation(head, lambda t, line: out.append(line), fs=fs)
    journal = sim.app.journal
    sync = journal.sync
    sizes = []  # bytes each save wrote

    def watched(referee, now):
        before = len(fs.commits)
        wrote = sync(referee, now)
        sizes.append(sum(len(c[3]) for c in fs.commits[before:]))
        return wrote

    journal.sync = watched
    sim.run(parse(long_quiz(300), LONG_QUIZ_PLAYERS, CONTROLS))
    assert len([op for op in fs.trace if op[1] == "rename"]) >= 3  # compacted again and again
    assert max(sizes) <= 2048, max(sizes)  # a delta (with a checkpoint's state), no snapshot
    assert len(fs.files[PATH]) < 24 * 1024
    score = [json.loads(line) for line in out if line.startswith('{"ev":"score"')][-1]
    booted, lines = boot(fs.files)
    evs = [json.loads(line) for line in lines if line.startswith("{")]
    assert [e for e in evs if e["ev"] == "score"][0]["scores"] == score["scores"]
