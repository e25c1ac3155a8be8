"""QBJ the field's own tools import (issue 37): what YellowFruit's and MODAQ's importers require
of a Match (docs/quizbowl.md "What the importers require"), checked without them on scripted
matches (tests/scripts_quizbowl.py): NAQT by the book with overtime and sudden death, a house
format with a bounce-back, ACF, a 3-team quiz. tests/qbj/importers runs the real importers
when they are set up (it skips here and says why).
"""

import io
import json
import subprocess
import sys

import jsonschema
import pytest
from scripts_quizbowl import export, record
from tablebuzz.paths import REPO
from tablebuzz.records import qbj

SCHEMA = json.loads((REPO / "tests" / "qbj" / "qbj.schema.json").read_text())
TWO_TEAMS = ("naqt", "house", "acf")


def nulls(node, path="$"):
    """JSON paths of every null in `node`."""
    if node is None:
        return [path]
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in nulls(v, "%s.%s" % (path, k))]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in nulls(v, "%s[%d]" % (path, i))]
    return []


def importer_problems(match):
    """What YellowFruit (FileParser.parseMatch: teams and players resolved by name inside the
    match) or MODAQ (QBJ.fromQBJ) would refuse or crash on, as messages; [] when both take it."""
    problems = ["null at %s" % p for p in nulls(match)]
    teams = match.get("match_teams") or []
    if len(teams) != 2:
        return problems + ["%d match teams: both importers take exactly 2" % len(teams)]
    roster = {}
    for i, mt in enumerate(teams, 1):
        team = mt.get("team") or {}
        if "$ref" in team or not str(team.get("name", "")).strip():
            problems.append("team %d: no name written out (MODAQ reads team.name)" % i)
            continue
        names = [p.get("name") for p in team.get("players") or []]
        if len(set(names)) != len(names) or not all(names):
            problems.append("team %s: player names missing or repeated" % team["name"])
        roster[team["name"]] = set(names)
        if mt.get("bonus_points", 0) < 0:
            problems.append("team %s: negative bonus points" % team["name"])
        for where, refs in (("match_players", [m.get("player") for m in mt["match_players"]]),
                            ("lineup", (mt.get("lineups") or [{}])[0].get("players"))):
            for ref in refs or [None]:
                if not isinstance(ref, dict) or ref.get("name") not in roster[team["name"]]:
                    problems.append("team %s: %s player %r not resolvable by name"
                                    % (team["name"], where, ref))
    if len(roster) != 2:
        problems.append("the two teams need two different names")
    for q in match.get("match_questions") or []:
        for b in q.get("buzzes") or []:
            team, player = b.get("team") or {}, b.get("player") or {}
            if player.get("name") not in roster.get(team.get("name"), ()):
                problems.append("tossup %d: buzz player %r not on team %r"
                                % (q["question_number"], player, team))
            if not isinstance(b.get("buzz_position"), dict):
                problems.append("tossup %d: a buzz without buzz_position (MODAQ crashes)"
                                % q["question_number"])
            elif "word_index" in b["buzz_position"] and not (
                    isinstance(b["buzz_position"]["word_index"], int)
                    and b["buzz_position"]["word_index"] >= 0):
                problems.append("tossup %d: a bad word_index" % q["question_number"])
    return problems


@pytest.fixture(scope="module")
def matches(tmp_path_factory):
    out = {}
    for name in TWO_TEAMS:
        out[name] = export(name, tmp_path_factory.mktemp(name))
    return out


@pytest.mark.parametrize("name", TWO_TEAMS)
def test_each_scripted_match_plays_and_exports_what_both_importers_take(matches, name):
    match, evs, expected = matches[name]
    assert not [ev for ev in evs if ev["ev"] == "error"]
    jsonschema.validate(qbj.document([match]), SCHEMA)
    assert importer_problems(match) == []
    totals = [0, 0]
    for q in match["match_questions"]:
        for b in q["buzzes"]:
            totals[0 if b["team"]["name"] == "Team 1" else 1] += b["result"]["value"]
    for i, mt in enumerate(match["match_teams"]):
        totals[i] += mt["bonus_points"] + mt["bonus_bounceback_points"]
    assert totals == expected["totals"]
    ranking = [ev for ev in evs if ev["ev"] == "team_ranking"][-1]["ranking"]
    assert sorted(r["score"] for r in ranking) == sorted(expected["totals"])
    assert (match["tossups_read"], match["overtime_tossups_read"]) == (
        expected["read"], expected["overtime"])


def test_overtime_and_sudden_death_tossups_are_counted_with_bonuses_on(matches):
    """YellowFruit checks tossups_read against the buzzes: the overtime tossups (no bonus in a
    bonus format) and the sudden-death one count; regulation 4 + overtime 3 + sudden death 1."""
    match, evs, _ = matches["naqt"]
    assert [ev["ev"] for ev in evs].count("overtime") == 1
    assert [ev["ev"] for ev in evs].count("sudden_death") == 1
    numbers = [q["question_number"] for q in match["match_questions"]]
    assert numbers == list(range(1, 9))
    assert match["tossups_read"] == 8 and match["overtime_tossups_read"] == 4
    assert ["bonus" in q for q in match["match_questions"]] == [
        True, False, True, False, False, False, False, False]
    a, b = match["match_teams"]
    assert a["correct_tossups_without_bonuses"] == 1 and b["correct_tossups_without_bonuses"] == 1


def test_one_neg_a_tossup_and_the_protest_are_in_the_match(matches):
    match, _, _ = matches["naqt"]
    second = match["match_questions"][1]
    assert [b["result"]["value"] for b in second["buzzes"]] == [-5, 0]
    assert match["match_questions"][2]["tablebuzz_protests"] == [
        {"team": 1, "note": "4.5 m/s was right"}]
    assert "tablebuzz_protests" not in match["match_questions"][0]  # absent, never null


def test_a_bounced_bonus_is_bounceback_points(matches):
    match, _, _ = matches["house"]
    assert match["match_questions"][0]["bonus"]["parts"][1] == {
        "controlled_points": 0, "bounceback_points": 10}
    assert [t["bonus_bounceback_points"] for t in match["match_teams"]] == [0, 10]


def test_a_buzz_without_a_marked_word_has_an_empty_buzz_position(tmp_path):
    """No word tapped: the position is unknown, written as an empty buzz_position (both
    importers take it; MODAQ crashed on a buzz without one), never a guessed word."""
    match, _, _ = export("acf", tmp_path, marks=False)
    buzzes = [b for q in match["match_questions"] for b in q["buzzes"]]
    assert buzzes and all(b["buzz_position"] == {} for b in buzzes)
    assert importer_problems(match) == []


def test_every_press_is_on_record(matches):
    """The tablebuzz_race extension (docs/quizbowl.md): each press's station, stamp and margin
    behind the first, the winner, the tie bound; lockouts; absent when no race ran."""
    match, evs, _ = matches["naqt"]
    race = match["match_questions"][0]["tablebuzz_race"]
    assert race["tie_bound_ns"] == 35
    (first,) = race["races"]
    assert [p["station"] for p in first["presses"]] == [1, 3]
    assert first["presses"][0]["behind_ns"] == 0
    assert abs(first["presses"][1]["behind_ns"] - 738_000) <= 70  # two 35 ns samples
    assert first["winner"] == 1 and first["margin_ns"] == first["presses"][1]["behind_ns"]
    presses = [ev for ev in evs if ev["ev"] == "press"]
    assert first["presses"][0]["t_us"] == presses[0]["t_us"]
    second = match["match_questions"][1]["tablebuzz_race"]
    assert len(second["races"]) == 2  # the race reopened after the neg
    assert {"station": 3, "reason": "wrong"} in second["lockouts"]
    dead = match["match_questions"][3]
    assert "tablebuzz_race" not in dead or dead["tablebuzz_race"]["races"] == []
    assert nulls(match) == []


def test_a_three_team_quiz_is_left_out_with_a_message(tmp_path):
    path, _, _ = record("three", tmp_path)
    with pytest.raises(qbj.QbjError, match="3 teams"):
        qbj.from_record(path)
    out = io.StringIO()
    count, problems = qbj.night_qbj(tmp_path, out)
    assert count == 0 and len(problems) == 1 and "3 teams" in problems[0]
    done = subprocess.run([sys.executable, "-m", "tablebuzz.cli", "export", "--format", "qbj",
                           "--records", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0 and "3 teams" in done.stderr


def test_a_match_alone_is_what_modaq_opens(tmp_path):
    """MODAQ imports one Match object a file (as it exports them): `export --format match`
    writes the last two-team quiz game's, passing over the 3-team one after it."""
    record("house", tmp_path / "a")
    record("three", tmp_path / "b")
    out = tmp_path / "last.qbj"
    done = subprocess.run([sys.executable, "-m", "tablebuzz.cli", "export", "--format", "match",
                           "--records", str(tmp_path), "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "3 teams" in done.stderr and "1 games" in done.stderr
    match = json.loads(out.read_text())
    assert match["type"] == "Match" and "objects" not in match
    assert importer_problems(match) == []
    assert match["match_teams"][1]["bonus_bounceback_points"] == 10


def test_replay_and_the_photo_finish_read_the_race_record_back(matches, tmp_path):
    """`tablebuzz replay FILE.qbj` tells each tossup's presses and races from tablebuzz_race;
    `--photos` draws the 738 µs finish of tossup 1 (the board's tie bound from the file)."""
    from tablebuzz.views import photo

    match, evs, _ = matches["naqt"]
    path = tmp_path / "night.qbj"
    path.write_text(json.dumps(qbj.document([match])))
    told = subprocess.run([sys.executable, "-m", "tablebuzz.cli", "replay", str(path)],
                          capture_output=True, text=True)
    assert told.returncode == 0, told.stderr
    assert "race: P1 Ann by 738" in told.stdout and "press: P3 Cy at" in told.stdout
    assert "protest on question 3 by team 1: 4.5 m/s was right" in told.stdout
    replayed, names, bound = qbj.replay_events(match)
    assert bound == 35 and names[3] == "Cy"
    (finish,) = photo.finishes(replayed, bound)
    (original,) = photo.finishes(evs, 35)
    assert finish == original  # the same picture as from the record itself
    drawn = subprocess.run([sys.executable, "-m", "tablebuzz.cli", "replay", str(path),
                            "--photos", str(tmp_path / "photos")], capture_output=True, text=True)
    assert drawn.returncode == 0 and len(list((tmp_path / "photos").glob("*.svg"))) == 1
    with pytest.raises(qbj.QbjError):
        qbj.replay_events({"version": "2.1.1", "objects": []})
