"""Evidence's part of the room's view (docs/games/evidence.md): the round, the photos'
orientation, the markers claimed, who sits out, the count and the tokens (never the count being
entered: that is the desk's alone). Every field comes from the board's events; `FOLD` says which
event sets what."""

from tablebuzz.views.words import count, duration, joined


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


# ---------------------------------------------------------------- its sentences
def say_claim(n, ev):
    return "claim: %s takes marker %d" % (n.p(ev["player"]), ev["marker"])


def say_lost(n, ev):
    if ev.get("tie"):
        how = "a tie, drawn"
    else:
        how = "%s earlier" % duration(ev["margin_ns"])
    return "lost: %s lost marker %d to %s (%s)" % (
        n.p(ev["player"]), ev["marker"], n.p(ev["winner"]), how
    )


def say_countdown(n, ev):
    return "countdown: %s is the last without a marker, %d ms to claim" % (
        n.p(ev["player"]), ev["ms"]
    )


def say_sit_out(n, ev):
    return "sit out: %s is out of round %d's scoring" % (n.p(ev["player"]), ev["round"])


def say_claims(n, ev):
    taken = [
        "%d %s" % (m + 1, n.p(p)) for m, p in enumerate(ev["markers"]) if p is not None
    ]
    return "claims closed, round %d: %s" % (
        ev["round"], ", ".join(taken) if taken else "no marker taken"
    )


def say_dial(n, ev):
    return "count entered so far: %d" % ev["value"]


def say_tokens(n, ev):
    colours = []
    for colour in ("green", "yellow", "red"):
        colours.append("%s %s" % (colour, n.p(ev[colour]) if ev[colour] else "nobody"))
    return "round %d: %s; %s" % (
        ev["round"], count(ev["differences"], "differences"), ", ".join(colours)
    )


def say_playoff(n, ev):
    return "play-off: %s still tied, round %d decides" % (
        joined([n.p(p) for p in ev["players"]]), ev["round"]
    )


# event name -> its sentence: f(narrator, the event) (tablebuzz.views.eventlog.Narrator)
WORDS = {
    "claim": say_claim,
    "lost": say_lost,
    "countdown": say_countdown,
    "sit_out": say_sit_out,
    "claims": say_claims,
    "dial": say_dial,
    "tokens": say_tokens,
    "playoff": say_playoff,
}
