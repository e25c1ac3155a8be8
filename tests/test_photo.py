"""The photo finish (issue 22): every race decided by less than 10 ms gets a picture drawn from
the board's own stamps (tablebuzz.views.photo): on the scoreboard's view for a few seconds and on
demand, kept beside the record as SVG, written by `tablebuzz replay FILE --photos DIR`.
"""

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

from helpers import events, run_sim, timeline
from helpers import races as decided
from tablebuzz.link.connection import Item
from tablebuzz.records import store as records
from tablebuzz.views import photo

TABLEBUZZ = [sys.executable, "-m", "tablebuzz.cli"]


def races():
    """A close race (P3, then P1 738 µs later), a clear one (P2, then P4 15 ms later), a lone
    press (P1 alone): only the first is a photo finish."""
    return run_sim(timeline(
        {"at_us": 100000, "control": "arm"},
        {"at_us": 200000, "press": 3}, {"at_us": 200738, "press": 1},
        {"at_us": 260000, "release": 3}, {"at_us": 261000, "release": 1},
        {"at_us": 400000, "control": "yes"},
        {"at_us": 600000, "control": "arm"},
        {"at_us": 700000, "press": 2}, {"at_us": 715000, "press": 4},
        {"at_us": 760000, "release": 2}, {"at_us": 770000, "release": 4},
        {"at_us": 900000, "control": "yes"},
        {"at_us": 1100000, "control": "arm"},
        {"at_us": 1200000, "press": 1}, {"at_us": 1250000, "release": 1},
        {"at_us": 1400000, "control": "yes"},
    ), players=4)


def test_only_the_race_won_by_less_than_10_ms_is_pictured():
    result = races()
    evs = [ev for _, ev in result]
    (finish,) = photo.finishes(evs)
    race = decided(result)[0]  # its margin from the `margin` line after it
    assert finish["winner"] == 3 and finish["margin_ns"] == race["margin_ns"]
    assert abs(finish["margin_ns"] - 738_000) <= 70  # as stamped: two 35 ns samples at most
    assert [p for p, _ in finish["presses"]] == [3, 1] and finish["presses"][0][1] == 0
    assert finish["presses"][1][1] == finish["margin_ns"]
    assert finish["sample_ns"] == events(result, "hello")[0]["sample_ns"] == 35
    assert finish["question"] == 1


def test_the_picture_shows_the_stations_winner_margin_and_tie_bound():
    (finish,) = photo.finishes([ev for _, ev in races()])
    picture = photo.svg(finish, photo.colours_by_player(), {3: "Zoë"})
    root = ET.fromstring(picture)  # well-formed SVG
    assert root.tag.endswith("svg")
    text = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    assert "Photo finish Q1: P3 wins by 738 µs" in text
    assert "P3 Zoë" in text and "P1" in text and "+738 µs" in text
    assert "one sample = 35 ns: closer than this is a tie" in text and "margin 738 µs" in text
    tie = dict(finish, tie=True, tied=[3, 1], margin_ns=0)
    assert "wins a tie, drawn" in photo.svg(tie)


def test_the_record_keeps_it_and_replay_writes_it(tmp_path):
    rec = records.Recorder(tmp_path / "records", "simulator")
    from tablebuzz.sim import simulate
    from tablebuzz.sim.timeline import parse

    text = (tmp_path / "t.jsonl")
    text.write_text(timeline(
        {"at_us": 100000, "control": "arm"},
        {"at_us": 200000, "press": 3}, {"at_us": 200738, "press": 1},
        {"at_us": 400000, "control": "yes"},
        {"at_us": 600000, "send": {"cmd": "end"}},
    ))
    lines = simulate.run({"seed": "1", "game": "quiz", "players": 4, "options": {}},
                         parse(text.read_text(), 4, ["arm", "yes", "no", "undo"]))
    for _, line in lines:
        rec.item(Item("event", line, json.loads(line)))
    rec.close()
    (kept,) = rec.photos
    assert kept.name.endswith("-quiz-photo-1.svg") and kept.parent == rec.paths[0].parent
    assert "wins by 738 µs" in kept.read_text()
    assert records.read_record(rec.paths[0])[0]["sample_ns"] == 35
    out = tmp_path / "photos"
    done = subprocess.run(TABLEBUZZ + ["replay", str(rec.paths[0]), "--photos", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (written,) = sorted(out.glob("*.svg"))
    assert written.read_text() == kept.read_text()


def test_the_scoreboard_view_shows_it_for_a_few_seconds_and_on_demand():
    from tablebuzz.views.table import Table

    now = [100.0]
    table = Table([(255, 0, 0)] * 8, clock=lambda: now[0])
    assert table.show_photo() is False
    for _, ev in races():
        table.apply(Item("event", json.dumps(ev), ev))
    shot = table.view()["photo"]
    assert shot["showing"] and shot["winner"] == 3 and "<svg" in shot["svg"]
    now[0] += Table.PHOTO_S + 1
    assert not table.view()["photo"]["showing"]
    assert table.show_photo() and table.view()["photo"]["showing"]
