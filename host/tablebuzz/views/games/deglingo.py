"""Déglingo's part of the room's view (docs/games/deglingo.md): the round, the active player,
the observers out of the round, the round timer as the board runs it, the last round's outcome.
Every field comes from the board's events; `FOLD` says which event sets what."""

from tablebuzz.views.words import DEGLINGO_HOW, count


def blank(players, size):
    """Déglingo's view before its first event: {round, active, out, last_round}."""
    return {"round": 1, "active": 1, "out": [], "last_round": None}


def lockout(table, g, ev):
    """An observer the board judged wrong is out of the round (its `lockout`, reason wrong)."""
    if ev["reason"] == "wrong" and ev["player"] not in g["view"]["out"]:
        g["view"]["out"].append(ev["player"])


def drop_wrong_locks(g):
    g["locked"] = {p: lk for p, lk in g["locked"].items() if lk["reason"] != "wrong"}


def deglingo(table, g, ev):
    drop_wrong_locks(g)  # a new round: nobody is out any more
    v = g["view"]
    v["round"], v["active"], v["out"] = ev["round"], ev["active"], []
    g["turn"] = ev["active"]


def state(table, g, ev):
    """Déglingo's own `state` fields (the round, the active player, the observers out,
    whether the round timer runs): after an undo they are what the room sees."""
    v = g["view"]
    if "round" not in ev:  # a board from before these fields: the turn at least
        if ev.get("turn"):
            v["active"] = ev["turn"]
        return
    v["round"], v["active"], v["out"] = ev["round"], ev["active"], list(ev["out"])
    now = table.clock()
    for p in v["out"]:  # judged wrong: out of this round, as a `lockout` "wrong" says
        g["locked"][str(p)] = {"reason": "wrong", "until": None, "since": now}
    last = v.get("last_round")
    if last is not None and last.get("round") is not None and last["round"] >= ev["round"]:
        v["last_round"] = None  # the round it told of is being played again
    running = bool(ev.get("timer_running"))
    for t in g["timers"]:  # the round timer shown runs or stops as the board's does
        if t["running"] and not running:
            t["remaining_ms"] = max(0, t["remaining_ms"] - (now - t["at"]) * 1000)
            t["running"] = False
        elif running and not t["running"]:
            t["running"], t["at"] = True, now


def timer(table, g, ev):
    """The round timer as the board runs it: started (its length), paused while an observer
    has the floor, running again (its `timer` event's `running`; the countdown shown stops
    and goes on where it stood)."""
    now = table.clock()
    running = ev.get("running") is not False
    if ev.get("ms") is not None:
        g["timers"] = [{"label": "round timer", "remaining_ms": ev["ms"],
                        "running": running, "at": now}]
        return
    for t in g["timers"]:
        if t["running"] and not running:
            t["remaining_ms"] = max(0, t["remaining_ms"] - (now - t["at"]) * 1000)
        t["running"], t["at"] = running, now


def round_over(table, g, ev):
    v = g["view"]
    v["last_round"] = {k: ev.get(k) for k in ("round", "active", "how", "replaced",
                                               "found", "points")}
    v["last_round"]["text"] = table.narrator.line(ev)
    if ev.get("how") == "time":
        table.time_is_up(v["last_round"]["text"])
    v["out"] = []
    drop_wrong_locks(g)
    g["timers"] = []
    g["race"] = None
    if ev.get("next"):
        v["active"] = ev["next"]
        v["round"] = ev["round"] + 1
        g["turn"] = ev["next"]
    g["phase"] = "eyes_closed"


# event name -> its part of the fold: f(table, the game dict, the event)
FOLD = {
    "deglingo": deglingo,
    "timer": timer,
    "round_over": round_over,
    "lockout": lockout,
    "state": state,
}


# ---------------------------------------------------------------- its sentences
def say_deglingo(n, ev):
    return "Déglingo! %s called it (round %d): the observers race" % (
        n.p(ev["active"]), ev["round"]
    )


def say_round_over(n, ev):
    how = DEGLINGO_HOW.get(ev["how"], str(ev["how"]).replace("_", " "))
    gains = [
        "%s +%d" % (n.p(i + 1), n) for i, n in enumerate(ev.get("points") or []) if n
    ]
    text = "round %d over: %s; %s replaced, %d found; %s" % (
        ev["round"], how, count(ev["replaced"], "cards"), ev["found"],
        ", ".join(gains) if gains else "no points",
    )
    if ev.get("next"):
        text += "; next active player %s" % n.p(ev["next"])
    return text


# event name -> its sentence: f(narrator, the event) (tablebuzz.views.eventlog.Narrator)
WORDS = {
    "deglingo": say_deglingo,
    "round_over": say_round_over,
}
