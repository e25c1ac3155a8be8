"""Packets on the desk (issue 22): `tablebuzz show --packet FILE` in MODAQ's JSON shape; the power
mark `(*)`; a tap marks the word being read at a buzz (QBJ's buzz_position, a power when at or
before the mark); the room sees the number and category, never the answer."""

import json

import pytest
from tablebuzz.link.connection import Item
from tablebuzz.paths import REPO
from tablebuzz.records import qbj
from tablebuzz.views import packet
from tablebuzz.views.table import Table

SAMPLE = REPO / "examples" / "packet_sample.json"


def test_the_sample_packet_loads_and_its_power_marks_split_the_words():
    p = packet.load(SAMPLE)
    assert len(p["tossups"]) == 20 and len(p["bonuses"]) == 20
    words, power = packet.words("Abraham Lincoln (*) was president")
    assert words == ["Abraham", "Lincoln", "was", "president"] and power == 1
    assert packet.words("glued(*)on here") == (["glued", "on", "here"], 0)
    assert packet.words("no mark at all")[1] is None


@pytest.mark.parametrize("bad", [
    {}, {"tossups": []}, {"tossups": [{"question": "q"}]},
    {"tossups": [{"question": "q", "answer": "a"}], "bonuses": [{"parts": ["x"], "answers": [],
                                                                   "values": [10]}]},
    {"tossups": [{"question": "q", "answer": "a"}], "bonuses": [{"parts": ["x"],
                                                                   "answers": ["y"],
                                                                   "values": [-1]}]},
])
def test_a_bad_packet_is_refused_with_its_reason(bad):
    with pytest.raises(packet.PacketError):
        packet.check(bad)


def feed(table, *evs):
    for ev in evs:
        table.apply(Item("event", json.dumps(ev), ev))


def test_a_mark_is_the_buzz_position_and_the_room_never_sees_the_answer():
    table = Table([(255, 0, 0)] * 8)
    table.packet = packet.load(SAMPLE)
    feed(table,
         {"ev": "game", "game": "quiz", "players": 2, "commit": "ab",
          "options": {"format": "naqt", "power": 15, "bonus": 10}},
         {"ev": "question", "question": 1, "points": 10, "sudden_death": False},
         {"ev": "armed", "players": [1, 2]})
    with pytest.raises(ValueError):
        table.mark(3)  # nobody has the floor yet
    feed(table, {"ev": "press", "player": 2, "t_us": 10, "t_ns": 0},
         {"ev": "race", "winner": 2, "margin_ns": None, "tie": False, "tied": [], "t_us": 10,
          "t_ns": 0})
    mark = table.mark(9)
    assert mark == {"question": 1, "player": 2, "word_index": 9, "power": True}
    assert table.mark(16)["power"] is False  # after the (*)
    room = table.view()
    assert room["packet"] == {"question": 1, "category": "Science - Chemistry"}
    assert "gold" not in json.dumps(room) and "alchemists" not in json.dumps(room)
    desk = table.view(desk=True)["desk_only"]["packet"]
    assert desk["tossup"]["answer"] == "gold" and desk["mark"]["word_index"] == 16
    feed(table, {"ev": "judge", "player": 2, "correct": True, "points": 10},
         {"ev": "bonus", "question": 1, "team": 2, "parts": 3, "points": 10})
    desk = table.view(desk=True)["desk_only"]["packet"]
    assert desk["bonus"]["number"] == 1 and desk["bonus"]["answers"][0] == "nucleus"
    # the record's mark becomes the QBJ buzz position
    evs = [{"ev": "game", "game": "quiz", "players": 2, "options": {}, "commit": "ab"},
           {"ev": "question", "question": 1, "points": 10, "sudden_death": False},
           {"ev": "race", "winner": 2, "margin_ns": None, "t_us": 10, "t_ns": 0},
           {"ev": "judge", "player": 2, "correct": True, "points": 10}]
    match = qbj.match([("", ev) for ev in evs], marks=[mark])
    assert match["match_questions"][0]["buzzes"][0]["buzz_position"] == {"word_index": 9}
