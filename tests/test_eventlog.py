"""The readable formatter (tablebuzz.views.eventlog): every event of every example game in plain
words, abandoned games marked abandoned, tie-breaks explained."""

import json
import re

import pytest
from tablebuzz.paths import REPO
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse
from tablebuzz.views.eventlog import Narrator, describe, duration, menu_text, option_text
from tablebuzz.views.games import GAMES

EXAMPLES = [  # (timeline, game, players, options, seed): as the game pages play them
    ("quiz_demo.jsonl", "quiz", 6, {}, "1"),
    ("quiz_tournament.jsonl", "quiz", 6, {"teams": [[1, 2], [3, 4], [5, 6]], "points": 10,
                                          "wrong_points": -5, "next_in_line": True,
                                          "questions": 4, "sudden_death": True,
                                          "buzz_s": 20, "answer_s": 30}, "1"),
    ("deglingo_2p.jsonl", "deglingo", 2, {}, "1"),
    ("deglingo_4p.jsonl", "deglingo", 4, {"timer": 3}, "1"),
    ("diddly_2p.jsonl", "diddly", 2, {}, "1"),
    ("evidence_4p.jsonl", "evidence", 4, {}, "1"),
    ("redblack_2p.jsonl", "redblack", 2, {}, "2b"),
]
REPR = re.compile(r"\b(None|True|False)\b|\{'|': |\[\]|\{\}")


def example_events(name, game, players, options, seed):
    text = (REPO / "examples" / name).read_text()
    header = {"seed": seed, "game": game, "players": players, "options": options}
    records = parse(text, players, ["arm", "yes", "no", "undo"])
    return [json.loads(line) for _, line in simulate.run(header, records)]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_every_event_of_the_examples_reads_as_words(example):
    narrator = Narrator()
    for ev in example_events(*example):
        text = narrator.line(ev)
        assert not REPR.search(text), text
        said = ev["ev"] in Narrator.WORDS or ev["ev"] in GAMES[example[1]].WORDS
        assert said, "no sentence for %s in eventlog or views/games/%s" % (ev["ev"], example[1])


def test_an_abandoned_game_is_marked_abandoned_not_won():
    ev = {"ev": "game_over", "game": "quiz", "ranking": [
        {"place": 1, "player": 1, "score": 0}, {"place": 1, "player": 2, "score": 0},
        {"place": 1, "player": 3, "score": 0}], "unit": "points", "abandoned": True,
        "seed": "ab" * 16}
    text = describe(ev)
    assert text.startswith("game abandoned (no winner): quiz stopped with P1 0 points")
    assert "1." not in text and "share" not in text


def test_a_split_tie_is_explained_in_the_board_s_words():
    n = Narrator()
    over = {"ev": "game_over", "game": "diddly", "ranking": [
        {"place": 1, "player": 1, "score": 50}, {"place": 2, "player": 2, "score": 50}],
        "unit": "points", "abandoned": False, "seed": "0" * 32,
        "tie_break": "P1 has the lowest round score, 3 vs 10"}
    assert "P1 and P2 tied on 50 points; P1 has the lowest round score, 3 vs 10" in n.line(over)
    del over["tie_break"]  # no words from the board: the host does not make them up
    assert n.line(over).endswith("P1 and P2 tied on 50 points; seed " + "0" * 32)


def test_the_games_give_their_own_tie_break_words():
    """The firmware's games say why a tie was split (game_over.tie_break): Diddly by the rounds
    compared lowest first, Evidence by green tokens, then the play-off."""
    from refbox.games.diddly import Diddly
    from refbox.games.evidence import Evidence

    diddly = Diddly(2, {"columns": 3})
    diddly.table = [[12, 3, 20, 7, 8], [10, 10, 10, 10, 10]]
    assert diddly.tie_break() == "P1 has the lowest round score, 3 vs 10"
    evidence = Evidence(3, {"countdown": 3000, "commit": "hold"})
    evidence.scores, evidence.winner = [12, 12, 0], 0
    evidence.tally = [[3, 0, 1], [2, 1, 1], [0, 0, 0]]
    assert evidence.tie_break() == "P1 has more green tokens, 3 vs 2"
    evidence.tally = [[3, 0, 1], [3, 0, 1], [0, 0, 0]]
    assert evidence.tie_break() == "P1 won the play-off"
    evidence.scores = [13, 12, 0]
    assert evidence.tie_break() is None


def test_shared_places_are_said_as_shared():
    text = describe({"ev": "game_over", "game": "quiz", "ranking": [
        {"place": 1, "player": 2, "score": 3}, {"place": 1, "player": 4, "score": 3}],
        "unit": "points", "abandoned": False, "seed": "0" * 32})
    assert "P2 and P4 share 1st place on 3 points" in text


def test_margins_in_ms_or_us_and_options_with_units():
    assert duration(840000) == "840.00 µs"
    assert duration(336) == "0.336 µs"
    assert duration(1250000) == "1.25 ms"
    assert duration(None) == "unknown"
    # the board's own words for them (the firmware's game classes: tests/test_words.py)
    assert option_text("false_start", 250, "quiz") == "false start: 250 ms"
    assert option_text("target", 0, "quiz") == "target: no target"
    assert option_text("play_on", True, "difference") == "play on: on"
    assert option_text("false_start", "race", "difference") == "false start: until decided"
    assert option_text("teams", [[1, 2], [3, 4]], "quiz") == "teams: P1+P2 vs P3+P4"


def test_unknown_and_malformed_events_show_fields_as_json_words():
    assert describe({"ev": "future", "a": None, "b": [1, 2], "c": False}) == (
        "future: a none, b [1, 2], c off")
    assert describe({"ev": "race"}) == "race"  # missing fields: no traceback


def test_quiz_names_are_learnt_from_name_events_and_forgotten_with_the_game():
    narrator = Narrator()
    assert narrator.line({"ev": "name", "player": 3, "team": None, "name": "Zoë"}) == (
        "name: P3 is Zoë"
    )
    narrator.line({"ev": "name", "player": None, "team": 2, "name": "Owls"})
    line = narrator.line({"ev": "score", "scores": [1, 0, 2], "unit": "points", "teams": [1, 2]})
    assert line == "points: P1 1, P2 0, P3 Zoë 2 · teams: team 1 1, team 2 Owls 2"
    assert narrator.line({"ev": "next_in_line", "player": 3, "behind_ns": 1_200_000,
                          "tie": False, "waiting": 0}) == (
        "next in line: P3 Zoë has the floor, 1.20 ms after the first press; nobody else waiting"
    )
    narrator.line({"ev": "game", "game": "quiz", "players": 3, "options": {}, "commit": "ab"})
    assert narrator.line({"ev": "judge", "player": 3, "correct": False, "points": -5,
                          "interrupt": True}) == "judge: P3 wrong, an interrupt (-5 points)"


def test_a_menu_line_reads_as_words():
    ev = {"ev": "menu", "step": "buzz_s", "value": "0", "index": 1, "of": 5, "text": "no timer",
          "label": "time to buzz", "game": "quiz"}
    assert describe(ev) == "menu: time to buzz: no timer  (1 of 5)"
    del ev["label"]  # an older board: the label from the firmware's game class
    assert describe(ev) == "menu: time to buzz: no timer  (1 of 5)"
    assert menu_text({"step": "false_start", "value": "250"}) == "false start: 250"  # no text
    assert menu_text({"step": "game", "value": "redblack", "text": "Red or Black"}) == (
        "game: Red or Black")
