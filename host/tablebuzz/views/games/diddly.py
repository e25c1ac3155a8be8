"""Diddly's part of the room's view (docs/games/diddly.md): the score sheet (every player's
round scores), the round, the dealer, whose score is entered, the last board. Every field comes
from the board's events; `FOLD` says which event sets what."""

from tablebuzz.views.words import count


def blank(players, size):
    """Diddly's view before its first event, its score sheet of the firmware's rounds."""
    return {"rounds": [[None] * size["rounds"] for _ in range(players)], "round": 1,
            "dealer": 1, "turn": None, "entering": None}


def state(table, g, ev):
    """Diddly's own `state` field: the board's score sheet (after an undo, what stands)."""
    if ev.get("rounds") is None:
        return
    for p, rounds in enumerate(ev["rounds"]):
        n = len(g["view"]["rounds"][p])
        g["view"]["rounds"][p] = (list(rounds) + [None] * n)[:n]


def score(table, g, ev):
    v = g["view"]
    for key in ("round", "dealer", "turn"):
        if key in ev:
            v[key] = ev[key]
    g["turn"] = ev.get("turn")
    v["entering"] = None


def round_score(table, g, ev):
    v = g["view"]
    v["rounds"][ev["player"] - 1][ev["round"] - 1] = ev["value"]
    v["entering"] = None


def enter(table, g, ev):
    g["view"]["entering"] = {"player": ev["player"], "round": ev["round"],
                             "value": ev["value"]}


def board(table, g, ev):
    g["view"]["last_board"] = {k: ev[k] for k in ("player", "round", "cards", "columns",
                                                  "value")}


def table(table, g, ev):
    v = g["view"]
    for p, rounds in enumerate(ev["rounds"]):
        n = len(v["rounds"][p])
        v["rounds"][p] = (list(rounds) + [None] * n)[:n]
    g["scores"] = list(ev["scores"])


# event name -> its part of the fold: f(table, the game dict, the event)
FOLD = {
    "score": score,
    "round_score": round_score,
    "enter": enter,
    "board": board,
    "table": table,
    "state": state,
}


# ---------------------------------------------------------------- its sentences
def say_enter(n, ev):
    return "entering %s's round %d score: %d" % (
        n.p(ev["player"]), ev["round"], ev["value"]
    )


def say_board(n, ev):
    return "board of %s, round %d: %s -> columns %s = %s" % (
        n.p(ev["player"]), ev["round"], " ".join(str(c) for c in ev["cards"]),
        " + ".join(str(c) for c in ev["columns"]), count(ev["value"], "points"),
    )


def say_round_score(n, ev):
    return "round %d: %s scores %s" % (
        ev["round"], n.p(ev["player"]), count(ev["value"], "points")
    )


# event name -> its sentence: f(narrator, the event) (tablebuzz.views.eventlog.Narrator)
WORDS = {
    "enter": say_enter,
    "board": say_board,
    "round_score": say_round_score,
}
