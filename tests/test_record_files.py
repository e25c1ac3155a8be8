"""Record files that cannot hurt (issue 35, docs/security.md "The hub and the rooms"): CSV cells
a spreadsheet would run are neutralised (OWASP's CSV-injection rule), `tablebuzz export` and
`tablebuzz replay` name a malformed record file and finish the rest, and a board line the host
cannot interpret is in the records and a notice, never a crash of the scoreboard's loop.
"""

import asyncio
import csv
import json
import subprocess

import pytest
from brokers import TABLEBUZZ
from tablebuzz.link.connection import RecordConnection
from tablebuzz.paths import REPO
from tablebuzz.records import store
from tablebuzz.records.cells import safe_cell
from tablebuzz.views.show.server import Hub
from tablebuzz.views.table import Table

COLOURS = [(255, 0, 0), (0, 96, 255), (0, 200, 0), (255, 160, 0), (200, 0, 255), (0, 220, 200)]
LINES = None


def sim_lines():
    global LINES
    if LINES is None:
        LINES = subprocess.run([str(TABLEBUZZ), "sim", "--script",
                                str(REPO / "examples" / "quiz_demo.jsonl")], capture_output=True,
                               text=True, check=True).stdout.splitlines()
    return LINES


def write_record(path, lines, **header):
    head = {"record": "tablebuzz-game", "version": 1, "started": "2026-12-05T20:00:00.000+00:00",
            "source": "sim", "game": "quiz", "players": 6, "names": {}, "joined": False}
    head.update(header)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        f.write(json.dumps(head) + "\n")
        for line in lines:
            f.write(json.dumps({"at": "2026-12-05T20:00:01.000+00:00", "line": line}) + "\n")
    return path


def test_safe_cell_follows_owasp():
    for text in ("=1+1", "+3-1", "-2+3", "@SUM(A1)", "\tx", "\rx", "=HYPERLINK(\"x\")"):
        assert safe_cell(text) == "'" + text
    for value in ("-5", "+3", "-1.5", "P1 Ann", "", 5, -5, None):
        assert safe_cell(value) == value


def _malformed(folder):
    """Record files the host did not write: each a shape the readers once crashed on."""
    over = next(i for i, line in enumerate(sim_lines()) if '"ev":"game_over"' in line)
    no_place = sim_lines()[:over] + [sim_lines()[over].replace('"place":', '"rank":')]
    write_record(folder / "a-no-place.jsonl", no_place)
    write_record(folder / "b-names-list.jsonl", sim_lines(), names=["Ann", "Bob"])
    deep = folder / "c-deep.jsonl"
    write_record(deep, sim_lines())
    with open(deep, "a") as f:
        f.write("[" * 4000 + "]" * 4000 + "\n")
        f.write(json.dumps({"at": "x", "line": "[" * 4000 + "]" * 4000}) + "\n")
    write_record(folder / "d-ranking-text.jsonl", sim_lines()[:over] + [
        '{"ev":"game_over","ranking":"P1","abandoned":false}'])
    write_record(folder / "e-line-not-text.jsonl", []).open("a").write(
        json.dumps({"at": "x", "line": 5}) + "\n")
    return ["a-no-place", "b-names-list", "d-ranking-text"]


def test_export_skips_each_malformed_file_with_one_line_and_writes_the_rest(tmp_path):
    folder = tmp_path / "records" / "2026-12-05"
    unit = "=cmd|' /C calc'!A0"
    lines = [line.replace('"unit":"points"', '"unit":%s' % json.dumps(unit))
             for line in sim_lines()]
    write_record(folder / "z-good.jsonl", lines, game="-2+3", names={"1": "=HYPERLINK(\"x\")"})
    skipped = _malformed(folder)
    out = tmp_path / "night.csv"
    done = subprocess.run([str(TABLEBUZZ), "export", "--records", str(folder), "-o", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("tablebuzz: skipped")]
    for name in skipped:
        assert sum(name in line for line in said) == 1, (name, said)
    rows = list(csv.DictReader(out.open()))
    good = next(r for r in rows if r["file"].endswith("z-good.jsonl"))
    assert good["game"] == "'-2+3" and good["unit"] == "'" + unit
    assert good["names"].startswith("P1 =HYPERLINK")  # not at a cell's start: no formula
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "@", "\t", "\r")), value
            assert not value.startswith("-") or value.lstrip("-").replace(".", "").isdigit()
    qbj = subprocess.run([str(TABLEBUZZ), "export", "--records", str(folder), "--format", "qbj"],
                         capture_output=True, text=True, timeout=60)
    assert qbj.returncode == 0 and "Traceback" not in qbj.stderr, qbj.stderr
    json.loads(qbj.stdout)


@pytest.mark.parametrize("name", ["a-no-place", "b-names-list", "c-deep", "d-ranking-text",
                                  "e-line-not-text"])
def test_replay_of_a_malformed_file_says_why_in_a_line_never_a_traceback(tmp_path, name):
    _malformed(tmp_path)
    done = subprocess.run([str(TABLEBUZZ), "replay", str(tmp_path / (name + ".jsonl"))],
                          capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    if name == "b-names-list":
        assert done.returncode == 2 and "names is not an object" in done.stderr
    else:
        assert done.returncode == 0, done.stderr


def test_a_board_line_the_host_cannot_interpret_is_recorded_first_and_is_a_notice(tmp_path):
    bad = '{"ev":"score","scores":[1e999,0,0,0,0,0],"unit":"points"}'
    over = next(i for i, line in enumerate(sim_lines()) if '"ev":"game_over"' in line)
    lines = sim_lines()[:5] + [bad] + sim_lines()[5:over + 1]
    link = RecordConnection([(0.0, line) for line in lines], speed=1000)
    table = Table(COLOURS)
    recorder = store.Recorder(tmp_path, "replay")
    hub = Hub(link, table, recorder, simulator=True)

    async def run():
        link.start()
        for _ in range(200):
            await hub._pass(asyncio.get_running_loop())
            if recorder.paths and recorder._file is None:
                break

    asyncio.run(run())
    recorder.close()
    (path,) = recorder.paths
    header, got, problems = store.read_record(path)
    assert [o["line"] for o in got if "line" in o] == lines[1:]  # every line, the bad one too
    assert any("cannot interpret" in n for n in table.notices)
    assert table.game["over"] is not None  # the lines after it were folded
