"""The scoreboard's view (tablebuzz.views.table) folded from whole scripted games, undos included,
checked against what the device says at the end (the `table` events, the revealed deal)."""

import json

from tablebuzz.link.connection import Item
from tablebuzz.paths import REPO
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse, read_setup
from tablebuzz.views.table import Table, behind_ns

COLOURS = [(255, 0, 0), (0, 96, 255), (0, 200, 0), (255, 160, 0), (200, 0, 255), (0, 220, 200)]


def events_of(script):
    text = (REPO / "examples" / script).read_text()
    setup = read_setup(text)
    header = {"seed": setup.get("seed", "1"), "game": setup["game"],
              "players": setup["players"], "options": setup.get("options", {})}
    records = parse(text, setup["players"], ["arm", "yes", "no", "undo"])
    return [json.loads(line) for _, line in simulate.run(header, records)]


def fold(events, until=None):
    """A Table fed `events` up to (not including) the first of kind `until`."""
    table = Table(COLOURS, clock=lambda: 0.0)
    for ev in events:
        if ev["ev"] == until:
            return table, ev
        table.apply(Item("event", json.dumps(ev), ev))
    return table, None


def test_red_or_black_hands_and_penalties_survive_the_undos():
    simulate._ensure_paths()
    from refbox.games.redblack import RedBlack, card_text

    for script in ("redblack_2p.jsonl", "redblack_6p.jsonl"):
        events = events_of(script)
        assert any(ev["ev"] == "undo" for ev in events)
        table, final = fold(events, until="table")
        view = table.game["view"]
        assert view["given"] == final["given"] and view["received"] == final["received"]
        game_ev = next(ev for ev in events if ev["ev"] == "game")
        over = next(ev for ev in events if ev["ev"] == "game_over")
        deal = RedBlack(game_ev["players"], game_ev["options"], bytes.fromhex(over["seed"]))
        n = game_ev["players"]
        burned = 0  # the scripts' undos each take back an answer: its card is put aside
        truth = {}
        for ev in events:
            if ev["ev"] == "undo":
                burned += 1
            elif ev["ev"] == "guess":
                card = card_text(deal.deck[(ev["round"] - 1) * n + ev["player"] - 1 + burned])
                assert ev["card"] == card
                truth[(ev["player"], ev["round"])] = card
        for p in range(n):
            assert view["hands"][p] == [truth[(p + 1, r)] for r in range(1, 5)], (script, p)
        turned = [c for c in view["lines"]["top"] + view["lines"]["bottom"] if c]
        assert len(turned) == 16


def test_diddly_grid_survives_the_undos():
    for script in ("diddly_2p.jsonl", "diddly_6p.jsonl"):
        events = events_of(script)
        assert any(ev["ev"] == "undo" for ev in events)
        table, final = fold(events, until="table")
        assert table.game["view"]["rounds"] == final["rounds"], script
        assert table.game["scores"] == final["scores"]


def test_evidence_tokens_follow_the_undone_count():
    events = events_of("evidence_4p.jsonl")
    table = Table(COLOURS, clock=lambda: 0.0)
    checked = after_undo = 0
    undoing = False  # an undo's `score` comes before the `state` that carries the tokens
    for ev in events:
        table.apply(Item("event", json.dumps(ev), ev))
        undoing = ev["ev"] == "undo" or (undoing and ev["ev"] != "state")
        if ev["ev"] in ("score", "state") and not undoing and table.game["view"]["round"]:
            tally = table.game["view"]["tally"]
            points = [3 * g + 2 * y + r for g, y, r in tally]
            assert points == ev["scores"]
            checked += 1
            after_undo += ev["ev"] == "state"
    assert checked > 10 and after_undo >= 1 and any(ev["ev"] == "undo" for ev in events)


def test_difference_places_and_the_race_order():
    events = events_of("difference_6p.jsonl")
    table, _ = fold(events)
    g = table.game
    assert g["view"]["places"] == {"3": 1}
    assert g["over"]["ranking"][0]["player"] == 3 and g["over"]["abandoned"] is False


def test_buzz_order_lists_everyone_behind_the_winner_across_the_tick_wrap():
    table = Table(COLOURS, clock=lambda: 0.0)
    period_us = 1 << 30
    for ev in (
        {"ev": "game", "game": "quiz", "players": 3, "options": {}, "commit": "c"},
        {"ev": "armed", "players": [1, 2, 3]},
        {"ev": "press", "player": 2, "t_us": period_us - 1, "t_ns": 500},
        {"ev": "race", "winner": 2, "margin_ns": None, "tie": False, "tied": [],
         "t_us": period_us - 1, "t_ns": 500},
        {"ev": "press", "player": 3, "t_us": 2, "t_ns": 0},  # after the wrap: 2.5 µs later
        {"ev": "margin", "winner": 2, "player": 3, "margin_ns": 2500},
    ):
        table.apply(Item("event", json.dumps(ev), ev))
    race = table.view()["game"]["race"]
    assert [(r["player"], r["behind_text"]) for r in race["order"]] == [
        (2, "first"), (3, "+2.50 µs")]
    assert race["margin_text"] == "by 2.50 µs"
    assert behind_ns(0, (period_us - 1) * 1000) == 1000


def test_evidence_count_being_entered_is_for_the_desk_only():
    table = Table(COLOURS, clock=lambda: 0.0)
    for ev in (
        {"ev": "game", "game": "evidence", "players": 2, "options": {}, "commit": "c"},
        {"ev": "claims", "round": 1, "markers": [1, 2] + [None] * 8},
        {"ev": "dial", "value": 23},
    ):
        table.apply(Item("event", json.dumps(ev), ev))
    assert "23" not in json.dumps(table.view())
    assert table.view(desk=True)["desk_only"]["dial"]["value"] == 23


def test_quiz_teams_names_and_timers():
    from helpers import timeline

    header = {"seed": "9", "game": "quiz", "players": 4,
              "options": {"teams": [[1, 2], [3, 4]], "answer_s": 10}}
    text = timeline(
        {"at_us": 100000, "send": {"cmd": "act", "action": "name", "team": 2, "text": "Owls"}},
        {"at_us": 150000, "send": {"cmd": "act", "action": "name", "player": 3, "text": "Ann"}},
        {"at_us": 200000, "control": "arm"},
        {"at_us": 500000, "press": 3},
        {"at_us": 600000, "release": 3},
    )
    events = [json.loads(line) for _, line in simulate.run(
        header, parse(text, 4, ["arm", "yes", "no", "undo"]))]
    table = Table(COLOURS, clock=lambda: 0.0)
    for ev in events:
        table.apply(Item("event", json.dumps(ev), ev))
    g = table.view()["game"]
    assert g["names"] == {"3": "Ann"}
    assert [(t["name"], t["players"]) for t in g["view"]["teams"]] == [(None, [1, 2]),
                                                                      ("Owls", [3, 4])]
    assert g["answering"] == 3 and g["view"]["question"] == 1
    assert g["timers"] == [{"label": "P3 Ann to answer", "remaining_ms": 10000,
                            "running": True}]
    judged = {"ev": "judge", "player": 3, "correct": True, "points": 1}
    score = {"ev": "score", "scores": [0, 0, 1, 0], "unit": "points", "teams": [0, 1]}
    for ev in (judged, score):
        table.apply(Item("event", json.dumps(ev), ev))
    g = table.view()["game"]
    assert g["timers"] == [] and g["view"]["teams"][1]["score"] == 1


def test_quiz_tournament_on_the_scoreboard_view_next_in_line_dead_and_team_colours():
    events = events_of("quiz_tournament.jsonl")
    table = Table(COLOURS, clock=lambda: 0.0)
    seen = {}
    for ev in events:
        table.apply(Item("event", json.dumps(ev), ev))
        g = table.game
        if ev["ev"] == "next_in_line" and "next" not in seen:
            seen["next"] = dict(g["race"]["next"])
        if ev["ev"] == "dead":
            seen["dead"] = (g["phase"], g["race"], g["armed"], g["view"]["dead"])
    assert seen["next"]["player"] == 5 and seen["next"]["behind_text"] == "+1.20 ms"
    assert seen["dead"] == ("ready", None, False, "question 2: nobody scores (cancelled)")
    g = table.view()["game"]
    hexes = g["colours"]
    assert hexes[0] == hexes[1] != hexes[2] == hexes[3] != hexes[4] == hexes[5]
    assert [(t["name"], t["score"]) for t in g["view"]["teams"]] == [("Owls", 35), ("Foxes", 25),
                                                                     ("Hares", 5)]
    assert g["names"]["3"] == "Zoë" and g["view"]["sudden_death"] == [1, 2, 3, 4]
    assert g["over"]["team_ranking"][0]["name"] == "Owls"


def test_the_desks_names_reach_the_log_lines_of_the_new_game():
    table = Table(COLOURS, clock=lambda: 0.0)
    table.set_names({1: "Ann"})
    for ev in ({"ev": "game", "game": "quiz", "players": 2, "options": {}, "commit": "ab"},
               {"ev": "race", "winner": 1, "margin_ns": 840000, "tie": False, "tied": [],
                "t_us": 5, "t_ns": 0}):
        table.apply(Item("event", json.dumps(ev), ev))
    assert table.log[-1] == "race: P1 Ann by 840.00 µs"


def test_deglingo_nobody_stays_out_into_the_next_round():
    events = events_of("deglingo_4p.jsonl")
    table = Table(COLOURS, clock=lambda: 0.0)
    checked = 0
    for ev in events:
        table.apply(Item("event", json.dumps(ev), ev))
        g = table.game
        if ev["ev"] == "armed" and g is not None:
            out = [int(p) for p, lk in g["locked"].items() if lk["reason"] == "wrong"]
            assert not set(out) & set(ev["players"]), ev
            assert g["view"]["active"] not in out
            checked += 1
    assert checked > 5


def test_deglingo_after_an_undo_the_state_says_what_the_room_sees():
    """The board's `state` after an undo carries Déglingo's round, active player, observers out
    and timer; the view folds them, and they are what it showed before the decision taken back
    (the moment each undo returns to: before the judgement, the call or the round's end)."""
    events = events_of("deglingo_4p.jsonl")
    table = Table(COLOURS, clock=lambda: 0.0)
    saved = []  # the view before each decision an undo can take back
    undone = None
    checked = 0
    last = None
    for ev in events:
        g = table.game
        if g is not None and ev["ev"] in ("judge", "deglingo", "round_over") and not (
                ev["ev"] == "round_over" and last in ("judge", "score")):
            v = g["view"]
            saved.append((v["round"], v["active"], sorted(v["out"])))
        if ev["ev"] == "undo":
            undone = saved.pop()
        table.apply(Item("event", json.dumps(ev), ev))
        if ev["ev"] == "state" and undone is not None:
            v = table.game["view"]
            assert (ev["round"], ev["active"], sorted(ev["out"])) == undone
            assert (v["round"], v["active"], sorted(v["out"])) == undone
            wrong = sorted(int(p) for p, lk in table.game["locked"].items()
                           if lk["reason"] == "wrong")
            assert wrong == undone[2]
            undone = None
            checked += 1
        last = ev["ev"]
    assert checked == 2  # the script's two undos
