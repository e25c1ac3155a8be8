"""A team night reads as a team night (issue 36): the CSV's winner is the winning team, the
scoreboard's top line has no "P1+P2 vs P3+P4" (the teams are drawn with their names), the board's
"team 2" in what is happening reads as the team's name, and the room's words are words."""

import csv
import io
import json
import subprocess
import sys

from helpers import example_header
from tablebuzz.link.connection import Item
from tablebuzz.paths import REPO
from tablebuzz.records import store as records
from tablebuzz.sim import simulate
from tablebuzz.views.eventlog import Narrator
from tablebuzz.views.table import Table

TOURNAMENT = REPO / "examples" / "quiz_tournament.jsonl"  # 3 teams, named Owls, Foxes, Hares
COLOURS = [(255, 0, 0)] * 8


def tournament_lines():
    head, recs = example_header(TOURNAMENT)
    return [line for _, line in simulate.run(head, recs)]


def test_the_csv_names_the_winning_team(tmp_path):
    rec = records.Recorder(tmp_path, "simulator")
    for line in tournament_lines():
        rec.item(Item("event", line, json.loads(line)))
    rec.close()
    out = subprocess.run([sys.executable, "-m", "tablebuzz.cli", "export", "--records",
                          str(tmp_path)], capture_output=True, text=True, check=True).stdout
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert row["team_ranking"].startswith("1. team 1 Owls")
    assert row["winner"] == "team 1 Owls"


def test_no_p1_p2_on_the_top_line_of_a_team_quiz():
    table = Table(COLOURS, clock=lambda: 0.0)
    for line in tournament_lines():
        table.apply(Item("event", line, json.loads(line)))
        game = table.view()["game"]
        assert game is None or "+P" not in game["options_text"]
    assert table.view()["game"]["view"]["teams"][0]["name"] == "Owls"


def test_the_bonus_banner_says_the_team_s_name():
    table = Table(COLOURS, clock=lambda: 0.0)
    for ev in ({"ev": "game", "game": "quiz", "players": 4, "commit": "00",
                "options": {"teams": [[1, 2], [3, 4]], "bonus": 10}},
               {"ev": "name", "player": None, "team": 2, "name": "Foxes"},
               {"ev": "buttons", "buttons": [["YES", "part right"]], "phase": "bonus",
                "doing": "bonus of question 1: team 2, part 1 of 3", "answering": None,
                "turn": None}):
        table.apply(Item("event", json.dumps(ev), ev))
    assert table.view()["doing"] == "bonus of question 1: Foxes, part 1 of 3"


def test_the_room_s_words_are_words():
    n = Narrator()
    assert n.line({"ev": "error", "code": "not_now", "detail": "nobody has the floor"}) == (
        "refused: nobody has the floor")
    assert n.line({"ev": "undo", "dropped": 1}) == "undo: the last decision taken back"
    race = n.line({"ev": "race", "winner": 1, "margin_ns": None, "tie": False, "tied": [],
                   "t_us": 5, "t_ns": 0})
    assert race == "race: P1 first (nobody else yet)"
