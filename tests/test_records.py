"""Records (tablebuzz.records.store): one JSON-lines file per game as it plays, `tablebuzz
replay` and `tablebuzz export` (CSV of a night), a torn last line, a game joined mid-way."""

import csv
import io
import json
import subprocess
import sys

from tablebuzz.link.connection import Item
from tablebuzz.paths import REPO
from tablebuzz.records import store as records
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse

TABLEBUZZ = [sys.executable, "-m", "tablebuzz.cli"]


def play(folder, script="quiz_demo.jsonl", game="quiz", players=6, seed="1", names=None):
    """Record a whole simulated game as `tablebuzz show` does; returns the recorder."""
    text = (REPO / "examples" / script).read_text()
    header = {"seed": seed, "game": game, "players": players, "options": {}}
    lines = simulate.run(header, parse(text, players, ["arm", "yes", "no", "undo"]))
    rec = records.Recorder(folder, "simulator")
    if names:
        rec.set_names(names)
    for _, line in lines:
        rec.item(Item("event", line, json.loads(line)))
    rec.close()
    return rec, [line for _, line in lines]


def test_a_game_is_one_file_with_a_header_names_and_every_line(tmp_path):
    rec, lines = play(tmp_path, names={1: "Ann", 5: "Eve"})
    assert len(rec.paths) == 1
    path = rec.paths[0]
    assert path.parent.parent == tmp_path and path.name.endswith("-quiz.jsonl")
    header, body, problems = records.read_record(path)
    assert header["record"] == "tablebuzz-game" and header["game"] == "quiz"
    assert header["names"] == {"1": "Ann", "5": "Eve"} and header["joined"] is False
    assert problems == []
    recorded = [obj["line"] for obj in body]
    first = next(i for i, line in enumerate(lines) if '"ev":"game"' in line)
    last = max(i for i, line in enumerate(lines) if '"ev":"game_over"' in line)
    assert recorded == lines[first : last + 1]  # from `game` to `game_over`, nothing lost
    assert all(obj["at"][:4].isdigit() for obj in body)


def test_replay_prints_the_game_in_words_and_export_checks_the_seed(tmp_path):
    rec, _ = play(tmp_path, names={5: "Eve"})
    out = subprocess.run(TABLEBUZZ + ["replay", str(rec.paths[0])], capture_output=True,
                         text=True, check=True).stdout
    assert "# quiz, 6 players" in out
    assert "game over: 1. P5 Eve (1 point)" in out and "None" not in out
    csv_out = subprocess.run(TABLEBUZZ + ["export", "--records", str(tmp_path)],
                             capture_output=True, text=True, check=True)
    rows = list(csv.DictReader(io.StringIO(csv_out.stdout)))
    assert len(rows) == 1
    row = rows[0]
    assert row["game"] == "quiz" and row["winner"] == "P5 Eve" and row["abandoned"] == "no"
    assert row["verified"] == "yes" and row["seed"] and row["commitment"]
    assert "1 games from" in csv_out.stderr


def test_a_torn_last_line_is_skipped_and_named(tmp_path):
    rec, _ = play(tmp_path)
    path = rec.paths[0]
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"at":"2026-12-01T20:00:00.000+00:00","line":"{\\"ev\\":\\"pre')  # power cut
    result = subprocess.run(TABLEBUZZ + ["replay", str(path)], capture_output=True, text=True)
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "is not JSON (skipped)" in result.stderr
    assert "game over" in result.stdout


def test_replay_of_something_else_is_one_line(tmp_path):
    bad = tmp_path / "notes.jsonl"
    bad.write_text('{"hello": 1}\n')
    cases = ((bad, "not a tablebuzz game record"), (tmp_path / "nope", "cannot read"))
    for target, words in cases:
        result = subprocess.run(TABLEBUZZ + ["replay", str(target)], capture_output=True,
                                text=True)
        assert result.returncode == 2 and words in result.stderr
        assert result.stderr.count("\n") == 1


def test_a_game_met_mid_way_is_recorded_from_the_resync(tmp_path):
    rec = records.Recorder(tmp_path, "board on /dev/ttyACM0")
    state = ('{"ev":"state","game":"quiz","players":2,"phase":"ready","scores":[1,0],'
             '"unit":"points","eligible":[],"locked":[],"answering":null,"turn":null,"log":3}')
    rec.item(Item("event", state, json.loads(state)))
    rec.item(Item("status", "lost the board on /dev/ttyACM0 (unplugged?): gone; reconnecting"))
    rec.close()
    header, body, _ = records.read_record(rec.paths[0])
    assert header["joined"] is True and header["source"] == "board on /dev/ttyACM0"
    assert body[-1]["status"].startswith("lost the board")
    row = records.summary(rec.paths[0])
    assert row["abandoned"] == "unfinished" and row["scores"] == "1 0"


def test_seed_check_matches_the_firmware():
    simulate._ensure_paths()
    from refbox.prng import commitment, seed_hex

    seed = bytes(range(16))
    assert records.seed_matches(seed_hex(seed), commitment(seed))
    assert not records.seed_matches("00" * 16, commitment(seed))


def test_replay_takes_a_journal_pulled_off_the_board(tmp_path):
    from journal_games import Played

    game = Played("quiz")
    journal = tmp_path / "journal.tbj"
    journal.write_bytes(game.fs.files["journal.tbj"])
    out = subprocess.run(TABLEBUZZ + ["replay", str(journal)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "from the journal journal.tbj" in out.stdout and "game over" in out.stdout
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x01 nothing")
    result = subprocess.run(TABLEBUZZ + ["replay", str(junk)], capture_output=True, text=True)
    assert result.returncode == 2 and "as a journal:" in result.stderr
    assert result.stderr.count("\n") == 1


def test_the_command_line_is_exact(tmp_path):
    """`replay --json` prints only JSON; a file that is no record nor journal is named as such;
    `export --date` takes only a real date (issue 21, item 6)."""
    from journal_games import Played

    journal = tmp_path / "journal.tbj"
    journal.write_bytes(Played("quiz").fs.files["journal.tbj"])
    out = subprocess.run(TABLEBUZZ + ["replay", "--json", str(journal)], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout and all(json.loads(line) for line in out.stdout.splitlines())
    text = tmp_path / "notes.txt"
    text.write_text("just some notes\nnot a game\n")
    result = subprocess.run(TABLEBUZZ + ["replay", str(text)], capture_output=True, text=True)
    assert result.returncode == 2 and "is empty" not in result.stderr
    assert "notes.txt is neither a game record nor a journal" in result.stderr
    result = subprocess.run(TABLEBUZZ + ["export", "--records", str(tmp_path), "--date",
                                         "2026-13-45"], capture_output=True, text=True)
    assert result.returncode == 2 and "is not a date" in result.stderr
