"""A resync (`state`) never makes the desk stale (issue 36; found by the newcomer pass,
tests/newcomer_pass.py): Red or Black's `state` lists one entry a pick (`picks`: a receiver
picked twice comes twice), so the penalties left to hand out are the board's, not one more."""

import json

from refbox import pinmap
from tablebuzz.link.connection import Item
from tablebuzz.views.table import Table


def _fold(table, *events):
    for ev in events:
        table.apply(Item("event", json.dumps(ev), event=ev))


def test_red_or_black_s_state_with_a_receiver_picked_twice_leaves_nothing_to_give():
    table = Table(pinmap.PLAYER_COLOURS)
    _fold(table,
          {"ev": "game", "game": "redblack", "players": 2, "options": {}, "commit": "00"},
          {"ev": "give", "player": 1, "penalties": 2},
          {"ev": "pick", "giver": 1, "player": 2, "penalties": 1, "left": 1},
          {"ev": "pick", "giver": 1, "player": 2, "penalties": 1, "left": 0})
    assert table.view()["game"]["view"]["handing_out"]["left"] == 0
    _fold(table, {"ev": "state", "game": "redblack", "players": 2, "phase": "give",
                  "scores": [0, 0], "unit": "points", "eligible": [1, 2], "locked": [],
                  "answering": None, "turn": 1, "log": 3, "given": [0, 0], "received": [0, 0],
                  "column": 0, "giver": 1, "to_give": 2, "picks": [[2, 1], [2, 1]]})
    handing = table.view()["game"]["view"]["handing_out"]
    assert handing["left"] == 0 and handing["picks"] == {"2": 2}
