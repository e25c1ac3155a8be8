"""What the room reads (issue 22, "A room that reads at a glance"): every phase of every game says
what is happening in the board's words (the `buttons` event's `doing`, Game.doing), short, and
never a secret; the quiz's prompts say what each judgement scores; the scoreboard's log is in
words with no raw µs stamps while the desk's keeps them; time's up and the standings."""

import json

import pytest
from helpers import run_sim, timeline
from tablebuzz.link.connection import Item
from tablebuzz.paths import REPO
from tablebuzz.sim import simulate
from tablebuzz.views.eventlog import RoomNarrator, margin_words
from tablebuzz.views.table import Table
from test_table import COLOURS, events_of


def sim(text, players, **header):
    return [ev for _, ev in run_sim(text, players=players, **header)]

EXAMPLES = sorted(p.name for p in (REPO / "examples").glob("*.jsonl"))


def fold(events, clock=lambda: 0.0):
    table = Table(COLOURS + [(255, 255, 255), (128, 128, 128)], clock=clock)
    for ev in events:
        table.apply(Item("event", json.dumps(ev), ev))
    return table


@pytest.mark.parametrize("script", EXAMPLES)
def test_every_phase_of_the_examples_says_what_is_happening_in_a_line(script):
    simulate._ensure_paths()
    from refbox.games.base import DOING_MAX

    events = events_of(script)
    said = [ev["doing"] for ev in events if ev["ev"] == "buttons"]
    assert said, script
    for text in said:
        assert 0 < len(text) <= DOING_MAX, (script, text)
        assert "None" not in text and "%" not in text, (script, text)
    games = {ev["game"] for ev in events if ev["ev"] == "game"}
    assert len(set(said)) >= 3 or games == {"diddly"}, (script, said)  # it follows the game


def test_the_secret_count_being_entered_never_changes_what_the_room_reads():
    """Evidence's count (ARM +1 while counting) and two-player Déglingo's replaced cards (YES +1
    with eyes closed) change the desk's prompts, never `doing`."""
    script = timeline(
        {"at_us": 100000, "control": "arm"},  # round 1
        *[{"at_us": 200000 + i * 100000, "send": {"cmd": "act", "action": "claim",
                                                  "player": p, "value": m}}
          for i, (p, m) in enumerate(((1, 3), (2, 7)))],
        *[{"at_us": 600000 + i * 200000, "control": "arm"} for i in range(5)],
    )
    evs = [ev for ev in sim(script, 2, game="evidence") if ev["ev"] == "buttons"]
    counting = [ev for ev in evs if ev["buttons"][-1][1].startswith("count")]
    assert {ev["buttons"][-1][1] for ev in counting} == {"count %d" % n for n in range(6)}
    assert {ev["doing"] for ev in counting} == {"round 1: the table counts the differences"}
    script = timeline(*[{"at_us": 100000 + i * 200000, "control": "yes"} for i in range(3)])
    evs = [ev for ev in sim(script, 2, game="deglingo") if ev["ev"] == "buttons"]
    assert {ev["doing"] for ev in evs} == {"eyes closed: P1 changes the picture"}


def test_the_quiz_prompts_say_what_each_judgement_scores():
    early = timeline({"at_us": 100000, "control": "arm"}, {"at_us": 300000, "press": 2},
                     {"at_us": 400000, "release": 2})
    naqt = {"format": "naqt", "teams": [[1, 2], [3, 4]]}
    evs = sim(early, 4, game="quiz", options=naqt)
    last = [ev for ev in evs if ev["ev"] == "buttons"][-1]
    assert last["buttons"] == [["YES", "right +10"], ["NO", "wrong -5"]]  # an interrupt
    assert last["doing"] == "question 1: P2 answers"
    evs = sim(early, 4, game="quiz", options={"points": 20})
    last = [ev for ev in evs if ev["ev"] == "buttons"][-1]
    assert last["buttons"] == [["YES", "right +20"], ["NO", "wrong"]]  # a wrong answer scores 0


def test_the_rooms_log_has_no_raw_stamps_and_the_desks_keeps_them():
    table = fold(events_of("quizbowl_naqt.jsonl"))
    room = table.view()["log"]
    desk = table.view(desk=True)["log"]
    assert room != desk
    everything = fold(events_of("quiz_tournament.jsonl"))
    narrator = RoomNarrator()
    for ev in events_of("quizbowl_naqt.jsonl") + events_of("difference_6p.jsonl"):
        line = narrator.line(ev)
        if ev["ev"] == "press":
            assert line is None
        elif line is not None:
            assert " at " not in line or "µs" not in line, line
            assert "t_us" not in line and "t_ns" not in line, line
    assert all("press:" not in line for line in everything.view()["log"])
    race = {"ev": "race", "winner": 3, "margin_ns": 738000, "tie": False, "tied": []}
    assert narrator.line(race) == "P3 buzzed first, by 738 µs"


@pytest.mark.parametrize("ns, words", [(336, "336 ns"), (7412, "7.4 µs"), (738000, "738 µs"),
                                       (1645000, "1.6 ms"), (23400000, "23 ms"),
                                       (None, "unknown")])
def test_margins_in_words(ns, words):
    assert margin_words(ns) == words


def test_times_up_for_a_few_seconds_and_the_standings_best_first():
    now = [0.0]
    script = timeline({"at_us": 100000, "control": "arm"}, {"at_us": 300000, "press": 3},
                      {"at_us": 400000, "release": 3},
                      {"at_us": 3000000, "send": {"cmd": "state"}})
    options = {"answer_s": 2, "teams": [[1, 2], [3, 4]]}
    events = sim(script, 4, game="quiz", options=options)
    assert any(ev["ev"] == "time_up" for ev in events)
    table = fold(events, clock=lambda: now[0])
    up = table.view()["time_up"]
    assert up["text"] == "P3 ran out of time to answer" and up["left_ms"] == 4000
    now[0] = 4.5
    assert table.view()["time_up"] is None  # gone after 4 s
    table.apply(Item("event", "", {"ev": "score", "scores": [0, 0, 10, 0], "teams": [0, 10],
                                   "places": [2, 2, 1, 2], "team_places": [2, 1]}))
    rows = table.view()["standings"]
    assert [(r["label"], r["score"], r["leader"]) for r in rows] == [
        ("team 2", 10, True), ("team 1", 0, False)]
    table.set_screen("standings")
    assert table.view()["screen"] == "standings"
    with pytest.raises(ValueError):
        table.set_screen("nonsense")


def test_the_rooms_doing_has_the_names_and_red_or_blacks_cards_with_their_suits():
    table = fold(events_of("redblack_6p.jsonl")[:0])
    table.set_names({2: "Ann"})
    said = []
    for ev in events_of("redblack_6p.jsonl"):
        table.apply(Item("event", json.dumps(ev), ev))
        if ev["ev"] == "buttons" and table.view()["doing"]:
            said.append(table.view()["doing"])
    assert "P2 Ann, round 1: red or black?" in said
    between = [s for s in said if "between or outside" in s]
    assert between and all(any(sign in s for sign in "♠♥♦♣") for s in between), between
