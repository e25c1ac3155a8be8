"""Checkpoints (refbox.games.base, docs/architecture.md "Checkpoints"): the log in RAM, in the
journal and folded at power-up starts at the game's state after the entries before it, so a night
of any length stays small; the games decide exactly as without them, a power cut still resumes
before or after the interrupted save, and UNDO reaches back at least UNDO_KEEP decisions, also
after a resume."""

import json
import random

import pytest
from helpers import CONTROLS
from journal_games import (
    GAMES,
    Played,
    boot,
    false_start_quiz,
    fingerprint,
    header,
    long_quiz,
    records,
    with_cut,
)
from refbox.games import base
from refbox.journal import PATH
from tablebuzz.sim import runner
from tablebuzz.sim.flashfs import FlashFS
from tablebuzz.sim.timeline import parse

QUIZ_HEAD = {"seed": "ab12", "game": "quiz", "players": 6,
             "options": {"questions": 0, "target": 0}}  # fmt: skip


@pytest.fixture
def small_checkpoints(monkeypatch):
    """Checkpoints at every decision (and 8 entries): the short scripted games cross many."""
    monkeypatch.setattr(base, "UNDO_KEEP", 1)
    monkeypatch.setattr(base, "LOG_CAP", 8)


def _lines(head, text, fs=None):
    out = []
    runner.Simulation(head, lambda t, line: out.append(line), fs=fs).run(
        parse(text, head["players"], CONTROLS)
    )
    return out


def _scores(lines):
    return [json.loads(line)["scores"] for line in lines if '"ev": "score"' in line
            or line.startswith('{"ev":"score"')]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_state_a_game_folds_to_comes_back_from_its_checkpoint(name, monkeypatch):
    real = base.Game.record
    checked = []

    def record(self, entry):
        events = real(self, entry)
        again = type(self)(self.players, self.options, self.seed)
        again.base = json.loads(json.dumps(self.state()))  # as the journal keeps it
        again.restart()
        assert again.state() == self.state()
        for key, value in self.__dict__.items():
            if key not in base._NOT_STATE:
                assert again.__dict__[key] == value, key
        checked.append(1)
        return events

    monkeypatch.setattr(base.Game, "record", record)
    head = header(name)
    del head["flash"]
    runner.run(head, records(name))
    assert len(checked) >= 10


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_game_with_checkpoints_decides_exactly_as_without(name, monkeypatch):
    head = header(name)
    del head["flash"]
    plain = runner.run(head, records(name))
    monkeypatch.setattr(base, "UNDO_KEEP", 1)
    monkeypatch.setattr(base, "LOG_CAP", 8)
    moved = []
    real = base.Game._checkpoint

    def spy(self, scoring):
        real(self, scoring)
        moved.append(self.base_len)

    monkeypatch.setattr(base.Game, "_checkpoint", spy)
    assert runner.run(head, records(name)) == plain
    assert max(moved) > 0  # the log was cut at a checkpoint


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_cut_after_any_operation_resumes_before_or_after_that_save_with_checkpoints(
    name, small_checkpoints
):
    game = Played(name)
    assert any(fp is not None and fp[5][0] > 0 for _, _, fp in game.saves)  # checkpoints
    for k in range(game.fs.ops + 1):
        sim, _ = boot(game.fs.history[k])
        assert fingerprint(sim.app.referee) in game.allowed(k), "cut after op %d" % k
    rng = random.Random(name)
    for op, file, old, new in game.fs.commits:  # an append or a snapshot torn at any byte
        for n in sorted({0, 1, len(new) // 2, len(new) - 1, rng.randrange(len(new))}):
            files = dict(game.fs.history[op - 1])
            files[file] = old + new[:n]
            sim, _ = boot(files)
            assert fingerprint(sim.app.referee) in game.allowed(op - 1), (op, n)


def test_undo_reaches_back_undo_keep_decisions_after_a_resume():
    questions = 80  # 107 decisions: the log holds the last 57 of them after its checkpoint
    text = false_start_quiz(questions)
    end = 200_000 + questions * 1_300_000
    head = dict(QUIZ_HEAD, flash={})
    undos = 60
    uncut = with_cut(text, end, undos=undos)  # (the cut after the last question: none)
    uncut = "\n".join(line for line in uncut.splitlines() if '"power"' not in line)
    evs = [json.loads(line) for line in _lines(head, with_cut(text, end, undos))]
    resume = [e for e in evs if e["ev"] == "resume"][0]
    assert resume["log"] > base.LOG_CAP // 2  # the whole game's entries, not the RAM's
    after = evs[evs.index(resume) :]
    taken = len([e for e in after if e["ev"] == "undo"])
    assert base.UNDO_KEEP <= taken < undos
    refused = [e for e in after if e["ev"] == "error"]
    assert len(refused) == undos - taken
    assert {(e["code"], e["detail"]) for e in refused} == {
        ("nothing_to_undo", "UNDO reaches back 50 decisions: older ones stand")
    }
    plain = [json.loads(line) for line in _lines(head, uncut)]
    assert len([e for e in plain if e["ev"] == "undo"]) == taken
    plain_scores = _scores(json.dumps(e) for e in plain)
    assert _scores(json.dumps(e) for e in after) == plain_scores[-taken - 1 :]


@pytest.mark.parametrize("questions", [1000])
def test_a_thousand_question_quiz_resumes_after_a_cut_at_any_point(questions):
    fs = FlashFS()
    fs.history = []
    head = dict(QUIZ_HEAD, flash={})
    saves = []
    sim = runner.Simulation(head, lambda t, line: None, fs=fs)
    journal = sim.app.journal
    real = journal.sync

    def sync(referee, now):
        before = fs.ops
        wrote = real(referee, now)
        if wrote:
            saves.append((before + 1, fs.ops, fingerprint(referee)))
        return wrote

    journal.sync = sync
    sim.run(parse(long_quiz(questions), 6, CONTROLS))
    final = _scores(_lines(QUIZ_HEAD, long_quiz(questions)))[-1]
    assert sim.app.referee.game.scores == final  # the same scores as the simulator
    assert len(sim.app.referee.game.log) <= base.LOG_CAP
    assert len(fs.files[PATH]) < 24 * 1024  # the journal stays small
    rng = random.Random(questions)
    cuts = sorted(rng.sample(range(fs.ops + 1), 40) + [fs.ops])
    for k in cuts:
        allowed = [None]
        for first, last, fp in saves:
            if last <= k:
                allowed = [fp]
            elif first <= k + 1:
                allowed.append(fp)
                break
        booted, lines = boot(fs.history[k])
        assert fingerprint(booted.app.referee) in allowed, "cut after op %d" % k


def test_a_pulled_journal_of_a_long_game_replays_from_its_checkpoint():
    from tablebuzz.records.journal_replay import journal_events

    fs = FlashFS()
    lines = _lines(dict(QUIZ_HEAD, flash={}), long_quiz(90), fs=fs)
    events = [json.loads(line) for line in journal_events(fs.files[PATH])]
    assert events[0]["ev"] == "game"
    assert _scores(json.dumps(e) for e in events)[-1] == _scores(lines)[-1]


def test_a_game_starts_when_the_heap_has_no_room_for_its_whole_log(monkeypatch):
    """The log's list is reserved for LOG_CAP entries at the start; on stock MicroPython after a
    few games the emulated RP2040 had no 1.6 KB in one piece for it (MemoryError: an `internal`
    error, no game). Then the game starts with a list that grows (here: a reservation no heap
    holds)."""
    plain = _lines(dict(QUIZ_HEAD, flash={}), long_quiz(3))
    monkeypatch.setattr(base, "LOG_CAP", 1 << 60)
    lines = _lines(dict(QUIZ_HEAD, flash={}), long_quiz(3))
    assert [json.loads(line)["ev"] for line in lines].count("game") == 1
    assert lines == plain  # the same game, line for line


@pytest.mark.parametrize("timeline", ["plain", "false starts"])
def test_power_up_folds_a_bounded_tail_of_any_night(timeline, monkeypatch):
    """Issue 38: power-on -> `resume` <= 400 ms at any length on the emulated RP2040, where each
    journal record folded costs ~2.5 ms and each log entry stepped ~1 ms. Power-up folds the
    last snapshot and at most Journal.compact_records records after it (and the few a
    compaction's tail copied), then steps only the log entries after the latest state point
    (the snapshot's "now" or the pending checkpoint): a bounded amount however long the night.
    The game it restores is the one a whole refold from the checkpoint gives, and UNDO still
    reaches back (test_undo_reaches_back_undo_keep_decisions_after_a_resume)."""
    from refbox.games.quiz import Quiz
    from refbox.journal import Journal, read

    questions = 300
    text = long_quiz(questions) if timeline == "plain" else false_start_quiz(questions)
    fs = FlashFS()
    fs.history = []
    runner.Simulation(dict(QUIZ_HEAD, flash={}), lambda t, line: None, fs=fs).run(
        parse(text, 6, CONTROLS)
    )
    steps = []
    real = Quiz.step

    def step(self, entry):
        steps.append(entry)
        return real(self, entry)

    monkeypatch.setattr(Quiz, "step", step)
    rng = random.Random(timeline)
    cuts = sorted(rng.sample(range(fs.ops // 2, fs.ops + 1), 30) + [fs.ops])
    most_records = most_steps = 0
    for k in cuts:
        files = fs.history[k]
        saved = read(files[PATH])[0]
        most_records = max(most_records, saved.deltas)
        del steps[:]
        booted, _ = boot(files)
        game = booted.app.referee.game
        most_steps = max(most_steps, len(steps))
        again = Quiz(game.players, game.options, game.seed)
        again.base, again.base_len = game.base, game.base_len
        again.restart()
        for entry in game.log:
            real(again, entry)
        assert again.state() == game.state(), "cut after op %d" % k
        assert len(game.log) > len(steps)  # the log before the point: kept, not stepped
    assert most_records <= Journal.compact_records + 8
    assert most_steps <= 3 * Journal.compact_records
