"""Records and interchange (issue 22): an 8-player NAQT match (examples/quizbowl_naqt.jsonl, 4 v 4,
20 tossups with powers, negs, bonuses and a power cut) recorded as `tablebuzz show` records it,
exported as QBJ that validates against tests/qbj/qbj.schema.json (the published quizbowl
Tournament Schema's Match, see the schema's $comment), and as CSV with the teams. A new game
never writes into the last one's record.
"""

import csv
import io
import json
import subprocess
import sys

import jsonschema
import pytest
from tablebuzz.link.connection import Item
from tablebuzz.paths import REPO
from tablebuzz.records import qbj
from tablebuzz.records import store as records
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse, read_setup

TABLEBUZZ = [sys.executable, "-m", "tablebuzz.cli"]
SCHEMA = json.loads((REPO / "tests" / "qbj" / "qbj.schema.json").read_text())
NAQT = REPO / "examples" / "quizbowl_naqt.jsonl"


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    """The NAQT match played in the simulator and recorded: (records folder, protocol lines)."""
    folder = tmp_path_factory.mktemp("records")
    text = NAQT.read_text()
    setup = read_setup(text)
    header = {"seed": setup["seed"], "game": "quiz", "players": 8, "options": setup["options"],
              "flash": {}}
    lines = simulate.run(header, parse(text, 8, ["arm", "yes", "no", "undo"]))
    rec = records.Recorder(folder, "simulator")
    rec.set_names({1: "Ann", 5: "Eve"})
    for _, line in lines:
        rec.item(Item("event", line, json.loads(line)))
    rec.close()
    return folder, [json.loads(line) for _, line in lines]


def test_the_naqt_match_plays_to_its_hand_scored_result(night):
    _, evs = night
    assert not [ev for ev in evs if ev["ev"] == "error"]
    assert [ev["ev"] for ev in evs].count("resume") == 1  # the power cut, resumed in the bonus
    (ranking,) = [ev for ev in evs if ev["ev"] == "team_ranking"]
    assert [(r["team"], r["score"]) for r in ranking["ranking"]] == [(1, 260), (2, 235)]
    judged = [ev for ev in evs if ev["ev"] == "judge"]
    assert len([j for j in judged if j["power"]]) == 5
    assert len([j for j in judged if j["interrupt"]]) == 4


def test_the_qbj_export_validates_and_holds_every_tossup(night, tmp_path):
    folder, _ = night
    out = tmp_path / "night.qbj"
    done = subprocess.run(TABLEBUZZ + ["export", "--format", "qbj", "--records", str(folder),
                                       "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    (match,) = doc["objects"][0]["phases"][0]["rounds"][0]["matches"]
    assert match["tossups_read"] == 20 and match["overtime_tossups_read"] == 0
    questions = match["match_questions"]
    assert [q["question_number"] for q in questions] == list(range(1, 21))
    assert questions[5]["buzzes"] == [] and "bonus" not in questions[5]  # dead: nobody buzzed
    values = [b["result"]["value"] for q in questions for b in q["buzzes"]]
    assert values.count(15) == 5 and values.count(-5) == 4 and values.count(0) == 1
    team1, team2 = match["match_teams"]
    assert team1["team"]["name"] == "Team 1" and team1["team"]["players"][0]["name"] == "Ann"
    assert [p["name"] for p in team2["team"]["players"]] == ["Eve", "P6", "P7", "P8"]
    tossup_points = {1: 0, 2: 0}
    for q in questions:
        for b in q["buzzes"]:
            tossup_points[1 if b["team"]["name"] == "Team 1" else 2] += b["result"]["value"]
    assert tossup_points[1] + team1["bonus_points"] + team1["bonus_bounceback_points"] == 260
    assert tossup_points[2] + team2["bonus_points"] + team2["bonus_bounceback_points"] == 235
    assert team1["bonus_bounceback_points"] == 0 and team2["bonus_bounceback_points"] == 0
    first = questions[0]["buzzes"][0]
    assert first["player"] == {"name": "Ann"} and first["tablebuzz_t_us"] > 0
    assert "tablebuzz_margin_ns" in first
    assert questions[0]["bonus"]["parts"] == [
        {"controlled_points": 10, "bounceback_points": 0},
        {"controlled_points": 10, "bounceback_points": 0},
        {"controlled_points": 0, "bounceback_points": 0}]
    heard = team1["match_players"][0]
    assert heard["tossups_heard"] == 20 and {"number": 1, "answer_type": {"value": 15}} in (
        heard["answer_counts"])


def test_the_schema_can_fail():
    """A buzz without its result, a negative word index, points and bonus_points together are
    each refused: the validation is no formality."""
    buzz = {"player": {"$ref": "player_1"}, "team": {"$ref": "team_1"}, "result": {"value": 10}}
    team = {"team": {"id": "team_1", "name": "A", "players": [{"id": "player_1", "name": "Ann"}]}}
    good = qbj.document([{"type": "Match", "match_teams": [team],
                          "match_questions": [{"question_number": 1, "buzzes": [buzz]}]}])
    jsonschema.validate(good, SCHEMA)
    bad = [
        {"player": buzz["player"], "team": buzz["team"]},
        dict(buzz, buzz_position={"word_index": -1}),
        dict(buzz, points=10),
    ]
    for wrong in bad:
        doc = json.loads(json.dumps(good))
        doc["objects"][0]["phases"][0]["rounds"][0]["matches"][0]["match_questions"][0][
            "buzzes"] = [wrong]
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(doc, SCHEMA)
    doc = json.loads(json.dumps(good))
    doc["objects"][0]["phases"][0]["rounds"][0]["matches"][0]["match_teams"][0].update(
        points=1, bonus_points=1)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, SCHEMA)


def test_a_desk_mark_gives_the_buzz_position():
    evs = [{"ev": "game", "game": "quiz", "players": 2, "options": {}, "commit": "ab"},
           {"ev": "question", "question": 1, "points": 10, "sudden_death": False},
           {"ev": "race", "winner": 2, "margin_ns": 738000, "t_us": 5, "t_ns": 0},
           {"ev": "judge", "player": 2, "correct": True, "points": 10}]
    match = qbj.match([("", ev) for ev in evs], marks=[{"question": 1, "player": 2,
                                                        "word_index": 17}])
    (buzz,) = match["match_questions"][0]["buzzes"]
    assert buzz["buzz_position"] == {"word_index": 17} and buzz["tablebuzz_margin_ns"] == 738000
    with pytest.raises(qbj.QbjError):
        qbj.match([("", dict(evs[0], game="evidence"))])


def test_undo_takes_a_buzz_back_out_of_the_match():
    evs = [{"ev": "game", "game": "quiz", "players": 2, "options": {}, "commit": "ab"},
           {"ev": "question", "question": 1, "points": 1, "sudden_death": False},
           {"ev": "race", "winner": 1, "margin_ns": None, "t_us": 5, "t_ns": 0},
           {"ev": "judge", "player": 1, "correct": True, "points": 1},
           {"ev": "undo", "dropped": 1},
           {"ev": "race", "winner": 2, "margin_ns": None, "t_us": 9, "t_ns": 0},
           {"ev": "judge", "player": 2, "correct": True, "points": 1}]
    match = qbj.match([("", ev) for ev in evs])
    assert [b["player"] for b in match["match_questions"][0]["buzzes"]] == [{"name": "P2"}]


def test_the_csv_has_names_teams_team_scores_and_ranking(night):
    folder, _ = night
    out = io.StringIO()
    records.night_csv(folder, out)
    (row,) = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert row["names"] == "P1 Ann; P5 Eve"
    assert row["teams"] == ("team 1: P1 Ann, P2, P3, P4; team 2: P5 Eve, P6, P7, P8")
    assert row["team_scores"] == "260 235"
    assert row["team_ranking"] == "1. team 1 (260); 2. team 2 (235)"


def test_a_new_game_never_writes_into_the_last_ones_record(tmp_path):
    from tablebuzz.views.table import Table

    rec = records.Recorder(tmp_path, "simulator")
    game = '{"ev":"game","game":"quiz","players":2,"options":{},"commit":"ab"}'
    rec.item(Item("event", game, json.loads(game)))
    rec.set_names({1: "Ann"})  # renamed during play: the running game's record says so
    rec.set_names({1: "Zoe", 2: "Max"}, next_game=True)  # the desk starts the next game
    rec.item(Item("event", game, json.loads(game)))
    rec.close()
    first, second = rec.paths
    _, lines, _ = records.read_record(first)
    assert [obj["names"] for obj in lines if "names" in obj] == [{"1": "Ann"}]
    assert records.read_record(second)[0]["names"] == {"1": "Zoe", "2": "Max"}
    table = Table([(255, 0, 0), (0, 0, 255)])
    table.game = {"names": {"1": "Ann"}}
    table.set_names({1: "Zoe"}, next_game=True)
    assert table.game["names"] == {"1": "Ann"} and table.pending_names == {1: "Zoe"}
