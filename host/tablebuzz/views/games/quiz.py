"""The quiz's part of the room's view (README "Quiz", docs/quizbowl.md): its questions and
values, the powers the board offers, teams and their totals and places, bonuses, timers, dead
questions, next in line, sudden death, overtime, protests. Every field comes from the board's
events (docs/protocol.md); `FOLD` says which event sets what."""

from tablebuzz.views.eventlog import duration


def blank(players, size):
    """The quiz's view before its first event: {question, points, teams, sudden_death, dead,
    read, overtime, protest, power}."""
    return {"question": 0, "points": None, "teams": [], "sudden_death": None,
            "dead": None, "read": False, "overtime": False, "protest": None, "power": 0}


def new_game(table, g, ev):
    """The teams of the `game` event's options (the board's), each player in their team's
    colour, as on the box (team k: station k's colour; README "LED language")."""
    teams = (ev.get("options") or {}).get("teams") or []
    g["view"]["teams"] = [
        {"team": i + 1, "players": list(members), "name": None, "score": 0}
        for i, members in enumerate(teams)
    ]
    colours = g["colours"]
    for t, members in enumerate(teams):
        for p in members:
            if 0 < p <= len(colours) and t < len(table.colours):
                colours[p - 1] = table.colours[t]


def state(table, g, ev):
    """The quiz's own `state` fields: the question and its value, sudden death, overtime, the
    team totals and the timer running (with its time left)."""
    v = g["view"]
    v["question"] = ev.get("question", v["question"])
    v["points"] = ev.get("points", v["points"])
    v["sudden_death"] = ev.get("sudden_death")
    v["overtime"] = bool(ev.get("overtime"))  # the board's: past the `questions` limit
    for team, score in zip(v["teams"], ev.get("teams") or [], strict=False):
        team["score"] = score
    g["timers"] = []
    if ev.get("timer") and ev.get("left_ms") is not None:
        g["timers"] = [timer_entry(table, g, ev["timer"], ev.get("answering"), ev["left_ms"])]


def score(table, g, ev):
    for team, score in zip(g["view"]["teams"], ev.get("teams") or [], strict=False):
        team["score"] = score
    for team, place in zip(g["view"]["teams"], ev.get("team_places") or [], strict=False):
        team["place"] = place
    if ev.get("places") is not None:
        g["view"]["places"] = list(ev["places"])  # the board's ranking, P1 first


def bonus(table, g, ev):
    g["phase"] = "bonus"  # the controlling team plays its bonus (the board's phase too)
    g["answering"] = None
    # the board's bonus: its team, its parts and each part's value; parts judged so far
    g["view"]["bonus"] = {"team": ev["team"], "parts": ev["parts"], "points": ev["points"],
                          "judged": 0}


def part(table, g, ev):
    if g["view"].get("bonus"):
        g["view"]["bonus"]["judged"] = ev["part"]


def bonus_scored(table, g, ev):
    g["phase"] = "ready"
    g["view"]["bonus"] = None


def question(table, g, ev):
    v = g["view"]
    v.update(question=ev["question"], points=ev.get("points"), dead=None, read=False,
             power=ev.get("power") or 0)  # the board's power value for this tossup
    if ev.get("sudden_death") and not v.get("sudden_death"):
        v["sudden_death"] = []


def read(table, g, ev):
    g["view"]["read"] = True
    g["view"]["power"] = 0  # the board: a press at or after the reading's end earns none


def power_mark(table, g, ev):
    g["view"]["power"] = 0  # the board: a press at or after the power mark earns none


def timer_entry(table, g, kind, player, ms):
    if kind == "buzz":
        label = "time to buzz"
    else:
        name = g["names"].get(str(player))
        label = "P%s%s to answer" % (player, " " + name if name else "")
    return {"label": label, "kind": kind, "remaining_ms": ms, "running": True,
            "at": table.clock()}


def timer(table, g, ev):
    g["timers"] = [timer_entry(table, g, ev["timer"], ev.get("player"), ev["ms"])]


def time_warning(table, g, ev):
    for t in g["timers"]:
        if t.get("kind") == "answer":
            t["remaining_ms"], t["at"] = ev["ms"], table.clock()


def time_up(table, g, ev):
    g["timers"] = []
    table.time_is_up(table.room_narrator.line(ev))


def race(table, g, ev):
    g["timers"] = [t for t in g["timers"] if t.get("kind") != "buzz"]


def judge(table, g, ev):
    g["timers"] = [t for t in g["timers"] if t.get("kind") != "answer"]
    if ev.get("correct"):
        g["phase"] = "ready"  # the tossup is over; a `bonus` event right after says bonus


def overtime(table, g, ev):
    g["view"]["overtime"] = True


def protest(table, g, ev):
    g["view"]["protest"] = {"question": ev.get("question"), "team": ev.get("team"),
                            "note": ev.get("note")}


def dead(table, g, ev):
    why = {"cancel": "cancelled", "wrong": "every team was wrong",
           "time": "nobody buzzed in time"}.get(ev.get("reason"), str(ev.get("reason")))
    g["view"]["dead"] = "question %s: nobody scores (%s)" % (ev.get("question"), why)
    if ev.get("reason") == "time":
        table.time_is_up("question %s: nobody buzzed in time" % ev.get("question"))
    g["timers"] = []
    g["answering"] = None
    g["armed"] = False
    g["phase"] = "ready"  # the next ARM asks the next question (or the same, if cancelled)
    if g["race"] is not None and g["race"].get("winner") is None:
        g["race"] = None  # armed, and nobody won that race: nothing to show


def next_in_line(table, g, ev):
    g["answering"] = ev["player"]
    g["phase"] = "answering"
    if g["race"] is not None:
        g["race"]["next"] = {"player": ev["player"], "behind_text": "+" + duration(
            ev.get("behind_ns") or 0), "waiting": ev.get("waiting")}


def sudden_death(table, g, ev):
    g["view"]["sudden_death"] = list(ev["players"])


def team_ranking(table, g, ev):
    v = g["view"]
    names = {t["team"]: t["name"] for t in v["teams"]}
    v["team_ranking"] = [dict(r, name=names.get(r["team"])) for r in ev["ranking"]]


# event name -> its part of the fold: f(table, the game dict, the event)
FOLD = {
    "score": score,
    "bonus": bonus,
    "part": part,
    "bonus_scored": bonus_scored,
    "question": question,
    "read": read,
    "power_mark": power_mark,
    "timer": timer,
    "time_warning": time_warning,
    "time_up": time_up,
    "race": race,
    "judge": judge,
    "overtime": overtime,
    "protest": protest,
    "dead": dead,
    "next_in_line": next_in_line,
    "sudden_death": sudden_death,
    "team_ranking": team_ranking,
    "game": new_game,
    "state": state,
}
