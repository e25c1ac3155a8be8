"""Evidence's part of the room's view (docs/games/evidence.md): the round, the photos'
orientation, the markers claimed, who sits out, the count and the tokens (never the count being
entered: that is the desk's alone). Every field comes from the board's events; `FOLD` says which
event sets what."""


def blank(players, size):
    """Evidence's view before its first event, the firmware's markers."""
    return {"round": 0, "orientation": None, "markers": [None] * size["markers"],
            "claimers": [], "tally": [[0, 0, 0] for _ in range(players)], "counting": False,
            "last_tokens": None, "sit_out": [], "playoff": False}


def state(table, g, ev):
    """Evidence's own `state` field: every player's tokens (after an undo, what stands)."""
    if ev.get("tally") is not None:
        g["view"]["tally"] = [list(t) for t in ev["tally"]]


def round(table, g, ev):
    v = g["view"]
    v.update(round=ev["round"], orientation=ev["orientation"], claimers=list(ev["players"]),
             playoff=bool(ev.get("playoff")), counting=False,
             markers=[None] * len(v["markers"]), sit_out=[])
    g["phase"] = "claiming"
    g["timers"] = []


def claim(table, g, ev):
    g["view"]["markers"][ev["marker"] - 1] = ev["player"]
    g["timers"] = [t for t in g["timers"] if t.get("player") != ev["player"]]


def lost(table, g, ev):
    g["view"]["markers"][ev["marker"] - 1] = ev["winner"]
    g["view"]["lost"] = {k: ev[k] for k in ("player", "marker", "winner", "margin_ns",
                                            "tie")}


def countdown(table, g, ev):
    name = g["names"].get(str(ev["player"]))
    g["timers"] = [{"label": "P%d%s to claim" % (ev["player"], " " + name if name else ""),
                    "player": ev["player"], "remaining_ms": ev["ms"], "running": True,
                    "at": table.clock()}]


def sit_out(table, g, ev):
    v = g["view"]
    if ev["player"] not in v["sit_out"]:
        v["sit_out"].append(ev["player"])
    g["timers"] = []


def claims(table, g, ev):
    v = g["view"]
    v.update(round=ev["round"], markers=list(ev["markers"]), counting=True)
    g["phase"] = "counting"
    g["timers"] = []


def tokens(table, g, ev):
    v = g["view"]
    v["tally"] = [list(t) for t in ev["tally"]]
    v["last_tokens"] = {k: ev[k] for k in ("round", "differences", "green", "yellow",
                                           "red")}
    v["counting"] = False
    g["phase"] = "next"


def playoff(table, g, ev):
    g["view"]["playoff_players"] = list(ev["players"])



def undo(table, g, ev):
    g["view"]["last_tokens"] = None  # the count they came from is taken back

# event name -> its part of the fold: f(table, the game dict, the event)
FOLD = {
    "round": round,
    "claim": claim,
    "lost": lost,
    "countdown": countdown,
    "sit_out": sit_out,
    "claims": claims,
    "tokens": tokens,
    "playoff": playoff,
    "state": state,
    "undo": undo,
}
