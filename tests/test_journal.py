"""The journal: its format, resume after a power cut, safe boot, bad journals, fault injection.

Fault injection (docs/architecture.md "The journal"): a full scripted game of each of the six
games is played on the simulated flash, which keeps the files after every filesystem operation;
for every k the board is powered up on the files as a cut after operation k left them (and, for
each commit, as an append torn at several bytes would), and the resumed game must be the state of
the save before or after the interrupted one: never a partial state, never a crash.
"""

import json
import os
import random
import re
import shutil
import signal
import subprocess
import time

import pytest
from helpers import CONTROLS, events, timeline
from hypothesis import given
from hypothesis import strategies as st
from journal_games import GAMES, Played, boot, fingerprint, header, kept_in, records
from refbox import journal as journal_module
from refbox.arbiter import ARMED
from refbox.journal import OsFiles
from tablebuzz.sim import runner
from tablebuzz.sim.flashfs import FlashFS
from tablebuzz.sim.simulate import micropython_command
from tablebuzz.sim.timeline import TimelineError, parse

_PLAYED = {}
REPO_EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[1] / "examples"


def played(name):
    """Each game is played once per test session (a few hundredths of a second each)."""
    if name not in _PLAYED:
        _PLAYED[name] = Played(name)
    return _PLAYED[name]


_DELTAS = {}


def deltas_file(name):
    """The journal of game `name` played with no compaction between decisions (a snapshot and
    a delta a save: the record-level tests need many records)."""
    if name not in _DELTAS:
        saved = journal_module.Journal.compact_records
        journal_module.Journal.compact_records = 1 << 30
        try:
            game = Played(name)
        finally:
            journal_module.Journal.compact_records = saved
        _DELTAS[name] = game.fs.files["journal.tbj"]
    return _DELTAS[name]


def run(text, players=4, game="quiz", fs=None, **head):
    """[(ns, event dict)] and the flash, for a timeline on a board with a journal."""
    fs = fs if fs is not None else FlashFS()
    h = {"seed": "1", "game": game, "players": players, "flash": {}, "options": {}}
    h.update(head)
    lines = []
    runner.Simulation(h, lambda t, line: lines.append((t, line)), fs=fs).run(
        parse(text, players, CONTROLS)
    )
    return [(t, json.loads(line)) for t, line in lines if line.startswith("{")], fs


def after(result, kind, nth=1):
    """The events after the nth event of `kind`."""
    seen = 0
    for i, (_, ev) in enumerate(result):
        if ev["ev"] == kind:
            seen += 1
            if seen == nth:
                return [e for _, e in result[i + 1 :]]
    raise AssertionError("no %s #%d" % (kind, nth))


# ------------------------------------------------------------------ the format
def _record_ends(data):
    ends = []
    pos = data.index(b"\n") + 1
    while pos < len(data):
        pos = data.index(b"\n", pos) + 1
        ends.append(pos)
    return ends


def test_every_prefix_reads_as_its_last_whole_record():
    data = played("quiz").fs.files["journal.tbj"]
    ends = _record_ends(data)
    header_len = data.index(b"\n") + 1
    for cut in range(len(data) + 1):
        saved, whole, status = journal_module.read(data[:cut])
        last = max([e for e in ends if e <= cut] or [header_len if cut >= header_len else 0])
        assert whole == last
        assert status == ("empty" if not cut else "ok" if cut == last else "torn")
        expected = journal_module.read(data[:last])[0]
        assert (saved.game, saved.log, saved.seed, saved.over) == (
            expected.game,
            expected.log,
            expected.seed,
            expected.over,
        )


def test_an_edited_record_ends_the_journal_before_it():
    data = played("difference").fs.files["journal.tbj"]
    ends = _record_ends(data)
    start = ends[9]  # the 11th record
    for offset in (0, 3, 20):  # its length, its checksum, its payload
        i = start + offset
        edited = data[:i] + (b"7" if data[i : i + 1] != b"7" else b"8") + data[i + 1 :]
        saved, whole, status = journal_module.read(edited)
        assert (whole, status) == (start, "torn")
        assert saved.log == journal_module.read(data[:start])[0].log


def test_another_version_or_no_journal_at_all_is_not_read():
    for data in (b"tablebuzz-journal 2\n", b"hello\nworld\n", b"\x00\xff" * 10):
        saved, whole, status = journal_module.read(data)
        assert (saved.game, whole, status) == (None, 0, "version")
    assert journal_module.read(b"tablebuzz-jour")[2] == "torn"  # the header itself cut short


def test_a_record_carries_its_length_and_checksum():
    line = journal_module.encode_record({"keep": 3, "t": 12})
    assert line == b"17 " + journal_module.checksum(b'{"keep":3,"t":12}').encode() + (
        b' {"keep":3,"t":12}\n'
    )


# ------------------------------------------------------------------ resume after a power cut
QUIZ = [
    {"at_us": 100000, "control": "arm"},
    {"at_us": 300000, "press": 2},
    {"at_us": 400000, "release": 2},
    {"at_us": 600000, "control": "yes"},
    {"at_us": 700000, "control": "arm"},
    {"at_us": 800000, "press": 3},
    {"at_us": 801000, "press": 1},
    {"at_us": 900000, "release": 3},
    {"at_us": 900000, "release": 1},
    {"at_us": 1100000, "control": "no"},
]


def test_a_power_cut_resumes_the_game_exactly():
    text = timeline(
        *QUIZ,
        {"at_us": 1500000, "send": {"cmd": "state"}},
        {"at_us": 2000000, "power": "off"},
        {"at_us": 5000000, "power": "on"},
        {"at_us": 5500000, "send": {"cmd": "state"}},
    )
    result, fs = run(text)
    before = [ev for _, ev in result if ev["ev"] == "state"][0]
    resumed = after(result, "hello", 2)
    assert [e["ev"] for e in resumed[:4]] == ["resume", "score", "armed", "state"]
    resume = resumed[0]
    game = [ev for _, ev in result if ev["ev"] == "game"][0]
    assert resume == {
        "ev": "resume",
        "game": "quiz",
        "players": 4,
        "options": game["options"],
        "commit": game["commit"],
        "log": before["log"],
        "reopened": True,  # P3 was judged wrong: the race was open again at the last save
    }
    after_state = [e for e in resumed if e["ev"] == "state"]
    assert after_state[0] == before and after_state[-1] == before  # P1 and P2 may race again
    assert resumed[1]["scores"] == [0, 1, 0, 0]


def test_undo_works_across_the_reboot():
    text = timeline(
        *QUIZ,
        {"at_us": 2000000, "power": "off"},
        {"at_us": 3000000, "power": "on"},
        {"at_us": 3500000, "control": "undo"},
        {"at_us": 3800000, "control": "undo"},
    )
    result, _ = run(text)
    resumed = after(result, "hello", 2)
    scores = [e["scores"] for e in resumed if e["ev"] == "score"]
    assert scores == [[0, 1, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]]  # resume, undo "no", undo "yes"
    undos = [e for e in resumed if e["ev"] == "undo"]
    assert len(undos) == 2


def test_a_race_open_at_the_cut_reopens_and_no_stale_press_decides_it():
    text = timeline(
        {"at_us": 100000, "control": "arm"},
        {"at_us": 500000, "press": 2},  # held through the cut and the power-up
        {"at_us": 500500, "power": "off"},  # before the race could be decided
        {"at_us": 2000000, "power": "on"},
        {"at_us": 2600000, "press": 3},
        {"at_us": 2700000, "release": 3},
        {"at_us": 2800000, "release": 2},
    )
    result, _ = run(text)
    resumed = after(result, "hello", 2)
    assert [e["ev"] for e in resumed[:3]] == ["resume", "score", "armed"]
    races = [e for e in resumed if e["ev"] == "race"]
    assert [r["winner"] for r in races] == [3]
    assert all(e.get("winner") != 2 for e in resumed)


@pytest.mark.parametrize("off_us", [700000, 30000])  # the saved tick: ahead of, behind the chip
def test_stamps_after_a_resume_run_on_the_resumed_clock(off_us):
    """The resumed game's clock continues from the last save's tick; press stamps (the DMA
    anchor reads the chip's own timer) must run on that clock too, or margins, lockouts and
    timers would mix two time bases."""
    text = timeline(
        {"at_us": off_us - 20000, "control": "arm"},
        {"at_us": off_us, "power": "off"},
        {"at_us": 2000000, "power": "on"},
        {"at_us": 2600000, "press": 3},
        {"at_us": 2700000, "release": 3},
    )
    result, fs = run(text)
    saves = fs.files["journal.tbj"].split(b"\n")[1:-1]
    t_saved = json.loads(saves[-2].split(b" ", 2)[2])["t"]  # the last save before the cut
    resumed = after(result, "hello", 2)
    press = [e for e in resumed if e["ev"] == "press"][0]
    race = [e for e in resumed if e["ev"] == "race"][0]
    # boot at 2.0 s + BOOT_NS runs at the saved tick; the press came 0.58 s later
    expected = t_saved + 2600000 - 2000000 - runner.BOOT_NS // 1000
    assert abs(press["t_us"] - expected) < 50
    assert race["winner"] == 3 and race["t_us"] == press["t_us"]


def test_the_resume_leaks_nothing_hidden():
    """Red or Black deals from the seed: the seed (and so the deck) is never on the wire before
    the end, resumed or not; the resume tells only the published commitment."""
    name = "redblack"
    recs = records(name)
    cut_at = recs[len(recs) // 2]["t"] + 1000
    extra = [
        {"t": cut_at, "k": "power", "on": False, "line_no": 0},
        {"t": cut_at + 2000000000, "k": "power", "on": True, "line_no": 0},
    ]
    later = [dict(r, t=r["t"] + 2100000000) for r in recs if r["t"] > cut_at]
    lines = []
    head = header(name)
    runner.Simulation(head, lambda t, line: lines.append(line)).run(
        [r for r in recs if r["t"] < cut_at] + extra + later
    )
    evs = [json.loads(line) for line in lines]
    over = [i for i, e in enumerate(evs) if e["ev"] == "game_over"]
    seed = evs[over[-1]]["seed"] if over else None
    resume = [e for e in evs if e["ev"] == "resume"][0]
    assert set(resume) == {"ev", "game", "players", "options", "commit", "log", "reopened"}
    until = over[0] if over else len(evs)
    assert seed is None or all(seed not in line for line in lines[:until])
    prompts_before = {e["ev"] for e in evs[: evs.index(resume)]}
    assert {e["ev"] for e in evs[evs.index(resume) :]} <= prompts_before | {"resume", "hello"}


# ------------------------------------------------------------------ safe boot and bad journals
def test_undo_held_at_power_up_starts_fresh_and_keeps_the_old_journal():
    text = timeline(
        *QUIZ,
        {"at_us": 2000000, "power": "off"},
        {"at_us": 2500000, "control": "undo", "hold_ms": 1500},
        {"at_us": 3000000, "power": "on"},
        {"at_us": 5000000, "power": "off"},
        {"at_us": 5500000, "power": "on"},
    )
    result, fs = run(text)
    booted = after(result, "hello", 2)
    # letting go of UNDO gives no UNDO: the menu stays, with its prompts, until the next cut
    assert [e["ev"] for e in booted[:4]] == ["error", "menu", "buttons", "hello"]
    assert booted[0]["code"] == "safe_boot"
    assert "journal.tbj.old" in booted[0]["detail"]
    assert booted[1]["ev"] == "menu"
    assert not [e for e in booted if e["ev"] == "resume"]
    old, _, _ = journal_module.read(fs.files["journal.tbj.old"])
    assert old.resumable() and old.game == "quiz"
    assert after(result, "hello", 3)[0]["ev"] == "menu"  # and the next power-up stays fresh


def _boot_on(data):
    sim, lines = boot({"journal.tbj": data})
    return sim, [json.loads(line) for line in lines]


def test_a_journal_from_another_version_is_set_aside_with_a_message():
    sim, evs = _boot_on(b"tablebuzz-journal 7\n12 00000000 {}\n")
    assert [e["ev"] for e in evs] == ["hello", "error", "menu", "buttons"]  # (its prompts)
    assert evs[1]["code"] == "journal_version" and "journal.tbj.old" in evs[1]["detail"]
    assert sim.fs.files == {"journal.tbj.old": b"tablebuzz-journal 7\n12 00000000 {}\n"}


def test_a_truncated_journal_resumes_from_its_last_whole_record_and_says_so():
    data = deltas_file("diddly")
    ends = _record_ends(data)
    sim, evs = _boot_on(data[: ends[20] + 5])
    assert [e["ev"] for e in evs[:3]] == ["hello", "error", "resume"]
    assert evs[1]["code"] == "journal_torn"
    assert evs[2]["log"] == len(journal_module.read(data[: ends[20]])[0].log)
    # the torn tail is rewritten away at the first save: later records stay readable
    sim.run(parse(timeline({"at_us": 1000, "control": "yes"}), 2, CONTROLS))
    assert journal_module.read(sim.fs.files["journal.tbj"])[2] == "ok"


@pytest.mark.parametrize(
    "game",
    [
        {"game": "quiz", "players": 4, "options": {}, "log": [["nonsense"]]},
        {"game": "quiz", "players": 99, "options": {}, "log": []},
        {"game": "quiz", "players": 4, "options": {"false_start": "soon"}, "log": []},
        {"game": "chess", "players": 2, "options": {}, "log": []},
    ],
)
def test_a_whole_record_this_firmware_cannot_fold_is_set_aside(game):
    record = journal_module.encode_record(dict(game, seed="00" * 16, over=False, t=5))
    sim, evs = _boot_on(journal_module.header() + record)
    assert [e["ev"] for e in evs] == ["hello", "error", "menu", "buttons"]  # (its prompts)
    assert evs[1]["code"] == "journal_bad"
    assert "journal.tbj.bad" in sim.fs.files


@given(st.data())
def test_no_journal_ever_crashes_the_boot(data):
    base = played("evidence").fs.files["journal.tbj"]
    start = data.draw(st.integers(0, len(base)))
    stop = data.draw(st.integers(start, min(len(base), start + 40)))
    junk = data.draw(st.binary(max_size=40))
    sim, evs = _boot_on(base[:start] + junk + base[stop:])
    kinds = [e["ev"] for e in evs]
    assert kinds[0] == "hello"
    assert "resume" in kinds or "menu" in kinds


def test_a_full_filesystem_says_the_game_is_no_longer_saved_and_play_goes_on():
    name = "quiz"
    plain = [json.loads(line) for _, line in played(name).lines]
    lines = []
    sim = runner.Simulation(
        header(name), lambda t, line: lines.append(json.loads(line)), fs=FlashFS(capacity=700)
    )
    sim.run(records(name))
    errors = [e for e in lines if e["ev"] == "error" and e["code"] == "not_saved"]
    assert len(errors) == 1 and "full" in errors[0]["detail"]
    assert [e for e in lines if e["ev"] != "error"] == [e for e in plain if e["ev"] != "error"]


# ------------------------------------------------------------------ flash writes and races
@pytest.mark.parametrize("name", sorted(GAMES))
def test_no_race_is_ever_open_during_a_flash_write(name, monkeypatch):
    violations = []

    def probe(sim):
        if sim.app.referee.arbiter.phase == ARMED:
            violations.append(sim.world.now)

    from refbox.arbiter import Arbiter

    real_arm = Arbiter.arm
    arms = []

    def arm(self, now, eligible, out=None):
        arms.append(now.us)
        real_arm(self, now, eligible, out)

    monkeypatch.setattr(Arbiter, "arm", arm)
    game = Played(name, probe=probe)
    assert game.saves and not violations
    # (a race's cue is the instant of the input that armed it, before the write that saves
    # it: issue 39; the arbiter is ARMED only once that write is over, checked above)
    plain_head = header(name)
    del plain_head["flash"]
    plain = [json.loads(line) for _, line in runner.run(plain_head, records(name))]
    saved = [json.loads(line) for _, line in game.lines]
    decisions = ("race", "judge", "score", "game_over", "undo")
    assert [e for e in saved if e["ev"] in decisions] == [e for e in plain if e["ev"] in decisions]


# ------------------------------------------------------------------ fault injection
@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_cut_after_any_filesystem_operation_resumes_before_or_after_that_save(name):
    game = played(name)
    assert game.saves[-1][2] is None  # the script plays to the end
    for k in range(game.fs.ops + 1):
        sim, _ = boot(game.fs.history[k])
        assert fingerprint(sim.app.referee) in game.allowed(k), "cut after op %d" % k


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_append_torn_at_any_byte_resumes_before_or_after_that_save(name):
    game = played(name)
    rng = random.Random(name)
    for op, file, base, new in game.fs.commits:
        for n in sorted({0, 1, len(new) // 2, len(new) - 1, rng.randrange(len(new))}):
            files = dict(game.fs.history[op - 1])
            files[file] = base + new[:n]
            sim, lines = boot(files)
            assert fingerprint(sim.app.referee) in game.allowed(op - 1), (op, n)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_cut_inside_a_compaction_resumes_the_last_save(name, monkeypatch):
    """The journal compacted in idle passes (refbox.compaction: pieces of the snapshot to
    journal.tbj.new, the records saved meanwhile copied after it, one rename), made to happen
    all through the game: a cut after any of its operations resumes the last save, and one
    torn in any of its commits too."""
    # (due once 128 bytes came after the snapshot: compacted again and again)
    monkeypatch.setattr(journal_module.Journal, "_due", lambda j, g: j._size > j._base_bytes + 128)
    game = Played(name)  # (not the session's)
    renamed = [op for op, kind, file in game.fs.trace if kind == "rename"]
    pieces = [op for op, kind, file in game.fs.trace if kind == "write" and file.endswith(".new")]
    assert len(renamed) >= 3 and len(pieces) > 2 * len(renamed)  # compacted, in pieces
    inside = [op for op in pieces if not any(first <= op <= last for first, last, _ in game.saves)]
    assert inside  # written between saves, not inside one
    for k in range(game.fs.ops + 1):
        sim, _ = boot(game.fs.history[k])
        assert fingerprint(sim.app.referee) in game.allowed(k), "cut after op %d" % k
    rng = random.Random(name)
    for op, file, old, new in game.fs.commits:
        n = rng.randrange(len(new) + 1)
        files = dict(game.fs.history[op - 1])
        files[file] = old + new[:n]
        sim, _ = boot(files)
        assert fingerprint(sim.app.referee) in game.allowed(op - 1), (op, n)


def test_soak_a_thousand_random_cuts_across_the_six_games():
    rng = random.Random(1000)
    names = sorted(GAMES)
    resumed = 0
    for _ in range(1000):
        game = played(rng.choice(names))
        k = rng.randrange(game.fs.ops + 1)
        files = dict(game.fs.history[k])
        commits = [c for c in game.fs.commits if c[0] == k + 1]
        if commits and rng.random() < 0.5:  # the next op was a commit: tear it somewhere
            _, file, base, new = commits[0]
            files[file] = base + new[: rng.randrange(len(new) + 1)]
        sim, lines = boot(files)
        fp = fingerprint(sim.app.referee)
        assert fp in game.allowed(k)
        resumed += fp is not None
    assert resumed > 500


# ------------------------------------------------------------------ the timeline's power lines
def test_power_lines_must_alternate_from_on():
    with pytest.raises(TimelineError, match="already on"):
        parse(timeline({"at_us": 5, "power": "on"}), 4, CONTROLS)
    with pytest.raises(TimelineError, match="already off"):
        parse(timeline({"at_us": 5, "power": "off"}, {"at_us": 6, "power": "off"}), 4, CONTROLS)
    with pytest.raises(TimelineError, match='"off" or "on"'):
        parse(timeline({"at_us": 5, "power": "reset"}), 4, CONTROLS)


def test_what_happens_while_the_power_is_off_reaches_no_board():
    text = timeline(
        {"at_us": 100000, "power": "off"},
        {"at_us": 200000, "send": {"cmd": "arm"}},
        {"at_us": 300000, "press": 1},
        {"at_us": 400000, "release": 1},
        {"at_us": 900000, "power": "on"},
    )
    result, _ = run(text)
    kinds = [ev["ev"] for _, ev in result]
    assert kinds.count("hello") == 2
    assert "press" not in kinds and "armed" not in kinds
    boot_ns = [t for t, ev in result if ev["ev"] == "hello"][1] - 900000000
    assert runner.BOOT_NS <= boot_ns < runner.BOOT_NS + 1000000  # (+ the capture's start-up)
    assert events(result, "resume")[0]["log"] == 0


# ------------------------------------------------------------------ the unix port, real files
def _micropython(header_, recs, wait=True):
    feed = "\n".join([json.dumps(header_)] + [json.dumps(r) for r in recs]) + "\n"
    cmd = micropython_command("from tablebuzz.sim.runner import main; main()")
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, MICROPYPATH=""),
    )
    if not wait:
        proc.stdin.write(feed.encode())
        proc.stdin.close()
        return proc
    out, err = proc.communicate(feed.encode())
    assert proc.returncode == 0, err.decode()[-2000:]
    return [line.split(" ", 1)[1] for line in out.decode().splitlines()]


@pytest.mark.micropython
@pytest.mark.parametrize("name", ["difference", "diddly"])
def test_the_unix_port_killed_at_random_resumes_from_its_real_files(name, tmp_path):
    (tmp_path / "reference").mkdir()
    reference = Played(name, fs=OsFiles(str(tmp_path / "reference") + "/"))
    assert len(reference.kept) > 5
    rng = random.Random(name)
    (tmp_path / "whole").mkdir()
    start = time.monotonic()
    whole_run = _micropython(
        dict(header(name), flash={"dir": str(tmp_path) + "/whole/"}), records(name)
    )
    whole = time.monotonic() - start
    assert len(whole_run) > 20
    hit = []
    for i in range(4):
        run_dir = tmp_path / ("run%d" % i)
        run_dir.mkdir()
        head = dict(header(name), flash={"dir": str(run_dir) + "/"})
        proc = _micropython(head, records(name), wait=False)
        time.sleep(rng.uniform(0.2, 0.95) * whole)
        proc.send_signal(signal.SIGKILL)  # the power cut: no clean-up of any kind
        proc.wait()
        path = run_dir / "journal.tbj"
        data = path.read_bytes() if path.exists() else b""
        saved, _, status = journal_module.read(data)
        assert status in ("ok", "torn", "empty")
        assert kept_in(saved) in reference.kept
        hit.append(reference.kept.index(kept_in(saved)))
        copy = tmp_path / ("copy%d" % i)
        shutil.copytree(run_dir, copy)
        state = [{"t": 1000000, "k": "send", "line": '{"cmd":"state"}', "line_no": 1}]
        booted = _micropython({"seed": "b007", "flash": {"dir": str(run_dir) + "/"}}, state)
        cpython = runner.run({"seed": "b007", "flash": {"dir": str(copy) + "/"}}, state)
        # a race open at the cut reopens at the resumed boot's tick (`armed` t_us: the cue),
        # which the unix port's real boot and the simulated one reach at different µs
        assert _cue_out(booted) == _cue_out([line for _, line in cpython])
        assert any('"ev":"resume"' in line for line in booted) == (kept_in(saved) is not None)
    print("saves hit by the kills:", hit, "of", len(reference.kept))


def test_the_menu_remembers_the_last_setup_across_a_power_cut():
    game = played("difference")  # 3 players, played to the end
    sim, lines = boot(game.fs.files)
    menu = [json.loads(line) for line in lines if '"ev":"menu"' in line]
    assert menu and (menu[0]["game"], menu[0]["players"]) == ("difference", 3)
    assert sim.app.referee.last_setup[:2] == ("difference", 3)


def test_no_fault_of_the_journal_changes_the_game():
    """A save that fails in any way (here: out of memory while writing) says so once and the game
    plays on exactly as without a journal."""

    class Failing(FlashFS):
        def open(self, name, mode):
            if "r" not in mode:
                raise MemoryError("memory allocation failed")
            return FlashFS.open(self, name, mode)

    name = "difference"
    lines = []
    sim = runner.Simulation(
        header(name), lambda t, line: lines.append(json.loads(line)), fs=Failing()
    )
    sim.run(records(name))
    errors = [e for e in lines if e["ev"] == "error" and e["code"] == "not_saved"]
    assert len(errors) == 1 and "MemoryError" in errors[0]["detail"]
    plain = [json.loads(line) for _, line in played(name).lines]
    decisions = ("race", "judge", "score", "game_over", "undo", "armed")
    assert [e for e in lines if e["ev"] in decisions] == [e for e in plain if e["ev"] in decisions]


def test_a_tournament_quiz_resumes_with_its_teams_names_line_and_scores():
    """Teams, names (log entries), a pass to the next in line, a cancel, a bonus, a hand
    adjustment: all folded back after a power cut (examples/quiz_tournament.jsonl)."""
    from tablebuzz.sim.timeline import read_setup

    text = (REPO_EXAMPLES / "quiz_tournament.jsonl").read_text()
    setup = read_setup(text)
    lines = [line for line in text.splitlines() if line.startswith("{\"at_us\"")]
    kept = [json.loads(line) for line in lines if json.loads(line)["at_us"] <= 5000000]
    script = timeline(
        *kept,
        {"at_us": 5200000, "send": {"cmd": "state"}},
        {"at_us": 5300000, "power": "off"},
        {"at_us": 6000000, "power": "on"},
        {"at_us": 6500000, "send": {"cmd": "state"}},
    )
    result, _ = run(script, players=6, options=setup["options"])
    resumed = after(result, "hello", 2)
    played_before = [ev for _, ev in result][: len(result) - len(resumed)]
    before = [ev for ev in played_before if ev["ev"] == "state"][-1]
    states = [e for e in resumed if e["ev"] == "state"]
    assert states[-1] == before and before["teams"] == [30, 15, 10]
    names = [(e["player"], e["team"], e["name"]) for e in resumed if e["ev"] == "name"][-4:]
    assert names == [(3, None, "Zo\u00eb"), (None, 1, "Owls"), (None, 2, "Foxes"),
                     (None, 3, "Hares")]


def test_a_timed_out_question_undone_resumes_untimed():
    text = timeline(
        {"at_us": 100000, "send": {"cmd": "arm"}},
        {"at_us": 2500000, "send": {"cmd": "undo"}},  # the 1 s buzz window ran out: undone
        {"at_us": 3000000, "power": "off"},
        {"at_us": 4000000, "power": "on"},
        {"at_us": 9000000, "send": {"cmd": "state"}},
    )
    result, _ = run(text, players=2, options={"buzz_s": 1})
    resumed = after(result, "hello", 2)
    assert [e["reason"] for _, e in result if e["ev"] == "dead"] == ["time"]  # only before
    state = [e for e in resumed if e["ev"] == "state"][-1]
    assert state["phase"] == "racing" and state["timer"] is None


@pytest.mark.parametrize("rule", [1000, "race"])
def test_a_false_start_lockout_survives_the_power_cut(rule):
    text = timeline(
        {"at_us": 100000, "press": 2},  # a false start: out for 1 s, or for the whole race
        {"at_us": 150000, "release": 2},
        {"at_us": 300000, "control": "arm"},  # the arm is saved with the lockout
        {"at_us": 500000, "power": "off"},
        {"at_us": 2000000, "power": "on"},
        {"at_us": 2300000, "press": 3},
        {"at_us": 2400000, "release": 3},
    )
    result, _ = run(text, options={"false_start": rule})
    boot_ns = [t for t, ev in result if ev["ev"] == "hello"][1]
    resumed = after(result, "hello", 2)
    assert [e for e in resumed if e["ev"] == "state"][0]["locked"] == [2]
    unlocks = [(t, ev) for t, ev in result if t > boot_ns and ev["ev"] == "unlock"]
    if rule == "race":  # out for this whole question: P3 wins its race, P2 is still out
        assert [e["winner"] for e in resumed if e["ev"] == "race"] == [3]
        assert not unlocks
    else:  # the second that was left at the save is served after the power-up
        press = [ev for _, ev in result if ev["ev"] == "press"][0]
        saved_us = [t for t, ev in result if ev["ev"] == "armed"][0] // 1000  # the arm's save
        left_us = press["t_us"] + 1000000 - saved_us  # the lockout's end minus the arm's save
        assert abs((unlocks[0][0] - boot_ns) / 1000 - left_us) < 3000


# ------------------------------------------------------------------ the snapshot's encoding
_SNAPSHOT_SAME = """
from refbox.games import GAME_ORDER, game_class
from refbox.games.base import parse_options
from refbox.journal import encode_record, encode_snapshot
for name in GAME_ORDER:
    cls = game_class(name)
    options = parse_options(cls.OPTIONS, {}, cls.presets)
    other = dict(options, false_start=0) if "false_start" in options else dict(options, x=1)
    base = {"t": 1234567, "game": name, "players": 4, "options": options, "seed": "ab" * 16,
            "log": [("race", 2, 1380000, 284, None), ("judge", True)], "ties": [1, 2, 3, 4],
            "locked": [], "over": False}
    for setup in ((name, 4, dict(options)), (name, 3, other), None):
        fields = dict(base, setup=setup)
        assert encode_snapshot(fields) == encode_record(fields), (name, setup)
    state = [["prng", [1, 2, 3, 4]], ["deck", list(range(52))], ["opened", {"s": [5, 6]}]]
    long = dict(base, setup=(name, 4, dict(options)), base=state, base_len=700,
                log=[("win", i % 6) for i in range(300)], next_base=(150, 50, state))
    assert encode_snapshot(long) == encode_record(long), name  # (in pieces: refbox.journal)
print("same")
"""


def test_a_snapshot_is_the_same_bytes_as_its_generic_record():
    """encode_snapshot (the options' text made once) writes exactly what encode_record would,
    for every game's options, its set-up the same, different or none."""
    exec(_SNAPSHOT_SAME, {})


@pytest.mark.micropython
def test_a_snapshot_is_the_same_bytes_as_its_generic_record_on_micropython():
    proc = subprocess.run(micropython_command(_SNAPSHOT_SAME), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.split() == ["same"], proc.stderr[-2000:]


def _cue_out(lines):
    """`lines` with each `armed` line's cue (t_us, t_ns) taken out."""
    return [re.sub(r',"t_us":\d+,"t_ns":\d+}$', "}", line) if '"ev":"armed"' in line else line
            for line in lines]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_short_snapshot_made_at_once_is_the_snapshot_made_in_pieces(game):
    """Journal._write_snapshot makes a game's start's snapshot as one record (encode_record of
    its fields) and a longer one a piece at a time (encode_snapshot's pieces): the same bytes
    either way, with the options' text made once for the game (protocol.Encoded) in both
    places."""
    from helpers import bare_referee
    from refbox.journal import encode_record, encode_snapshot, snapshot_fields

    ref, _ = bare_referee()
    ref.new_game(game, 4, {})
    fields = snapshot_fields(1234, ref, ref.game, False, ref.last_setup)
    whole = encode_record(fields)
    assert whole == encode_snapshot(fields)
    parsed = json.loads(whole.split(b" ", 2)[2])
    assert parsed["options"] == ref.game.options == parsed["setup"][2]


@pytest.mark.parametrize("game", ["quiz", "redblack"])
def test_a_game_s_start_with_no_block_for_its_record_is_saved_in_pieces(monkeypatch, game):
    """A game's start's snapshot is made as one record; on a heap with no block of its size in
    one piece (stock MicroPython after a night of games: MemoryError, emulated RP2040) it is
    made in pieces instead: the same file, and no `not_saved`."""
    import refbox.journal as journal_module

    text = timeline({"at_us": 200_000, "send": {"cmd": "new_game", "game": game, "players": 4}})
    roomy, roomy_fs = run(text, game=game)
    real, refused = journal_module.encode_record, []

    def tight(fields):
        if "log" in fields and not refused:  # (the snapshot's record: deltas have "keep")
            refused.append(1)
            raise MemoryError("memory allocation failed, allocating 796 bytes")
        return real(fields)

    monkeypatch.setattr(journal_module, "encode_record", tight)
    tight_run, tight_fs = run(text, game=game)
    assert refused == [1]
    assert tight_fs.files["journal.tbj"] == roomy_fs.files["journal.tbj"]
    assert tight_run == roomy
    assert "not_saved" not in json.dumps(tight_run)


# ------------------------------------------------------------------ a change of game
_CHANGES = [
    {"at_us": 200_000, "send": {"cmd": "arm"}},
    {"at_us": 300_000, "press": 1},
    {"at_us": 380_000, "release": 1},
    {"at_us": 500_000, "send": {"cmd": "judge", "correct": True}},
    {"at_us": 800_000, "send": {"cmd": "new_game", "game": "quiz", "players": 3}},
    {"at_us": 1_000_000, "send": {"cmd": "arm"}},
    {"at_us": 1_100_000, "press": 2},
    {"at_us": 1_180_000, "release": 2},
    {"at_us": 1_300_000, "send": {"cmd": "judge", "correct": False}},
    {"at_us": 1_600_000, "send": {"cmd": "new_game", "game": "difference", "players": 3}},
    {"at_us": 1_601_000, "send": {"cmd": "state"}},
    {"at_us": 2_400_000, "send": {"cmd": "new_game", "game": "redblack", "players": 3}},
]


def test_a_change_of_game_appends_its_snapshot_and_a_cut_anywhere_resumes_a_save():
    """A new game's snapshot is one more record of the journal (one littlefs commit, not a new
    file and its rename inside `new_game` -> `game`: Journal._append_snapshot), and the older
    games' records go in idle passes afterwards (a compaction). A cut after any filesystem
    operation, or inside any commit, resumes the last save or the one being made."""
    # three changes of game: the second right after a decision, the third while a read-only
    # line is answered
    script = ({"seed": "c0de", "players": 3}, "\n".join(json.dumps(line) for line in _CHANGES))
    game = Played("quiz", script=script)
    starts = [(first, last) for first, last, fp in game.saves if fp is not None and not fp[4]]
    assert len(starts) == 4  # the boot's quiz and the three new games, each saved at its start
    for first, last in starts[1:]:
        kinds = [kind for op, kind, file in game.fs.trace if first <= op <= last]
        assert "rename" not in kinds, kinds  # appended: no new file inside the save
    renamed = [op for op, kind, file in game.fs.trace if kind == "rename"]
    compacted = [op for op in renamed if not any(a <= op <= b for a, b, _ in game.saves)]
    assert len(compacted) == 3  # each new game's file compacted after its save, not in it
    data = game.fs.files["journal.tbj"]
    assert data.count(b'"game":"redblack"') == 1 and b'"game":"difference"' not in data
    for k in range(game.fs.ops + 1):
        sim, _ = boot(game.fs.history[k])
        assert fingerprint(sim.app.referee) in game.allowed(k), "cut after op %d" % k
    for op, file, old, new in game.fs.commits:
        for n in sorted({0, 1, len(new) // 2, len(new) - 1}):
            files = dict(game.fs.history[op - 1])
            files[file] = old + new[:n]
            sim, _ = boot(files)
            assert fingerprint(sim.app.referee) in game.allowed(op - 1), (op, n)
