"""Red or Black's part of the room's view (docs/games/redblack.md): each player's turned cards,
who is asked what, the penalty table, a giving under way, Part 2's two lines and the table at the
end. Every field comes from the board's events; `FOLD` says which event sets what."""

from tablebuzz.views.words import QUESTIONS, SUIT_NAMES, card, count, spread


def blank(players, size):
    """Red or Black's view before its first event, its hands and columns of the firmware's
    sizes (`size`: describe.layout)."""
    return {
        "hands": [[None] * size["hand"] for _ in range(players)],
        "asking": None,
        "given": [0] * players,
        "received": [0] * players,
        "handing_out": None,
        "lines": None,
        "give_line": None,
        "suit": None,
        "table": None,
    }


def ask(table, g, ev):
    v = g["view"]
    player, rnd = ev["player"], ev["round"]
    v["asking"] = {"player": player, "round": rnd, "question": ev["question"]}
    v["handing_out"] = None
    v["suit"] = None
    g["turn"] = player
    # the cards this player holds, as the device says; nobody after them in play order
    # can hold a card of this round or later (an undo went back)
    hand = list(ev.get("hand") or [])
    last = v.get("last_guess")
    if last is not None and (last["round"], last["player"]) >= (rnd, player):
        v["last_guess"] = None  # that answer was taken back: it is being asked again
    n = len(v["hands"][player - 1])
    v["hands"][player - 1] = (hand + [None] * n)[:n]
    for p in range(g["players"]):
        for r in range(n):
            if (r + 1, p + 1) >= (rnd, player):
                v["hands"][p][r] = None
    for r, c in enumerate(hand):
        v["hands"][player - 1][r] = c


def state(table, g, ev):
    """Red or Black's own `state` fields: the penalty table, the columns turned, a giving
    under way. After an undo they are what the room sees."""
    if ev.get("given") is None:
        return
    v = g["view"]
    v["given"], v["received"] = list(ev["given"]), list(ev["received"])
    v["handing_out"] = None
    if ev.get("giver"):
        picks = {}
        for r, c in ev.get("picks") or []:  # one entry a pick: a receiver may come twice
            picks[str(r)] = picks.get(str(r), 0) + c
        v["handing_out"] = {"player": ev["giver"], "penalties": ev["to_give"],
                            "left": ev["to_give"] - sum(picks.values()), "picks": picks}
        g["turn"] = ev["giver"]
    if v["lines"] is not None:  # the columns after `column` are not turned (any more)
        for line in v["lines"].values():
            for i in range(ev["column"], len(line)):
                line[i] = None
        v["column"] = ev["column"]
    if ev["phase"] != "over":
        v["table"] = None


def guess(table, g, ev):
    v = g["view"]
    v["hands"][ev["player"] - 1][ev["round"] - 1] = ev["card"]
    v["last_guess"] = {k: ev[k] for k in ("player", "round", "answer", "card", "right",
                                          "penalties")}


def score(table, g, ev):
    """The penalty table as the board keeps it (its `score` event's `given`, `received`)."""
    v = g["view"]
    if ev.get("given") is not None:
        v["given"], v["received"] = list(ev["given"]), list(ev["received"])


def give(table, g, ev):
    g["view"]["handing_out"] = {"player": ev["player"], "penalties": ev["penalties"],
                                "left": ev["penalties"], "picks": {}}
    g["turn"] = ev["player"]


def pick(table, g, ev, sign=1):
    h = g["view"]["handing_out"]
    if h is None:
        return
    key = str(ev["player"])
    h["picks"][key] = h["picks"].get(key, 0) + sign
    if h["picks"][key] <= 0:
        del h["picks"][key]
    h["left"] = ev["left"]


def unpick(table, g, ev):
    pick(table, g, ev, -1)


def given(table, g, ev):
    g["view"]["handing_out"] = None  # the totals come with the `score` that follows


def suit(table, g, ev):
    g["view"]["suit"] = ev["suit"]


def lines(table, g, ev):
    v = g["view"]
    v["asking"] = None
    v["lines"] = {"top": [None] * ev["columns"], "bottom": [None] * ev["columns"]}
    v["give_line"] = ev["give_line"]
    g["turn"] = None


def column(table, g, ev):
    v = g["view"]
    i = ev["column"] - 1
    give_line = v["give_line"] or g["options"]["give_line"]  # the `lines`, or the `game`
    take_line = "bottom" if give_line == "top" else "top"
    if v["lines"] is None:  # joined after the `lines` event: the columns seen so far
        v["lines"] = {"top": [], "bottom": []}
    for line in v["lines"].values():
        line.extend([None] * (i + 1 - len(line)))
    v["lines"][give_line][i] = ev["give"]
    v["lines"][take_line][i] = ev["take"]
    v["column"] = ev["column"]  # the penalties taken come with the `score` that follows


def table(table, g, ev):
    v = g["view"]
    v["given"], v["received"] = list(ev["given"]), list(ev["received"])
    v["table"] = True
    v["handing_out"] = None


# event name -> its part of the fold: f(table, the game dict, the event)
FOLD = {
    "ask": ask,
    "guess": guess,
    "score": score,
    "give": give,
    "pick": pick,
    "unpick": unpick,
    "given": given,
    "suit": suit,
    "lines": lines,
    "column": column,
    "table": table,
    "state": state,
}


# ---------------------------------------------------------------- its sentences
def say_ask(n, ev):
    hand = " ".join(card(c) for c in ev.get("hand") or []) or "no card yet"
    return "%s, round %d: %s (holds %s)" % (
        n.p(ev["player"]), ev["round"], QUESTIONS.get(ev["question"], ev["question"]), hand
    )


def say_guess(n, ev):
    answer = SUIT_NAMES.get(ev["answer"], ev["answer"])
    return "%s said %s: %s, %s (%s)" % (
        n.p(ev["player"]), answer, card(ev["card"]), "right" if ev["right"] else "wrong",
        count(ev["penalties"], "penalties"),
    )


def say_take(n, ev):
    return "%s takes %s" % (n.p(ev["player"]), count(ev["penalties"], "penalties"))


def say_give(n, ev):
    return "%s hands out %s" % (n.p(ev["player"]), count(ev["penalties"], "penalties"))


def say_pick(n, ev):
    return "%s gives a penalty to %s (%d left)" % (
        n.p(ev["giver"]), n.p(ev["player"]), ev["left"]
    )


def say_unpick(n, ev):
    return "%s takes back a penalty from %s (%d left)" % (
        n.p(ev["giver"]), n.p(ev["player"]), ev["left"]
    )


def say_given(n, ev):
    return "%s gave %s" % (n.p(ev["player"]), spread(ev["to"]) or "nothing")


def say_suit(n, ev):
    return "%s: suit shown %s" % (n.p(ev["player"]), SUIT_NAMES.get(ev["suit"], ev["suit"]))


def say_lines(n, ev):
    return "part 2: two lines of %d cards; the %s line gives" % (
        ev["columns"], ev["give_line"]
    )


def say_column(n, ev):
    text = "column %d: give %s, take %s" % (ev["column"], card(ev["give"]), card(ev["take"]))
    if ev.get("givers"):
        text += "; gives: " + spread(ev["givers"])
    if ev.get("takers"):
        text += "; takes: " + spread(ev["takers"])
    return text


# event name -> its sentence: f(narrator, the event) (tablebuzz.views.eventlog.Narrator)
WORDS = {
    "ask": say_ask,
    "guess": say_guess,
    "take": say_take,
    "give": say_give,
    "pick": say_pick,
    "unpick": say_unpick,
    "given": say_given,
    "suit": say_suit,
    "lines": say_lines,
    "column": say_column,
}
