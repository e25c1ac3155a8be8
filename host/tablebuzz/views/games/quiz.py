"""The quiz's part of the room's view (README "Quiz", docs/quizbowl.md): its questions and
values, the powers the board offers, teams and their totals and places, bonuses, timers, dead
questions, next in line, sudden death, overtime, protests. Every field comes from the board's
events (docs/protocol.md); `FOLD` says which event sets what."""

from tablebuzz.views.words import DEAD_WHY, count, duration, joined, seconds


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
    table._colour_players(g)  # a team's players in its colour (views.colours)


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


# ---------------------------------------------------------------- its sentences
def say_question(n, ev):
    return "question %d, worth %s%s: buzzers armed" % (
        ev["question"], count(ev["points"], "points"),
        ", sudden death" if ev.get("sudden_death") else "",
    )


def say_dead(n, ev):
    return "question %d is dead, nobody scores: %s" % (
        ev["question"], DEAD_WHY.get(ev["reason"], str(ev["reason"]).replace("_", " "))
    )


def say_next_in_line(n, ev):
    waiting = ev["waiting"]
    return "next in line: %s has the floor, %s after the first press%s; %s" % (
        n.p(ev["player"]), duration(ev["behind_ns"]),
        " (a tie, drawn)" if ev.get("tie") else "",
        "%d more waiting" % waiting if waiting else "nobody else waiting",
    )


def say_read(n, ev):
    return "question %d read to the end: a wrong answer now is no interrupt" % ev["question"]


def say_protest(n, ev):
    who = "team %d" % ev["team"] if ev.get("team") else "a team"
    return "protest on question %d by %s: %s" % (ev["question"], who, ev.get("note") or "")


def say_power_mark(n, ev):
    return "question %d: the power mark passed, a buzz now earns no power" % ev["question"]


def say_time_warning(n, ev):
    return "time: %s left for %s" % (seconds(ev["ms"]), n.p(ev["player"]))


def say_time_up(n, ev):
    if ev.get("timer") == "bonus":
        return "time up: the bonus part's time ran out"
    return "time up: %s ran out of time to answer" % n.p(ev["player"])


def say_adjust(n, ev):
    return "by hand: %s %+d" % (n.p(ev["player"]), ev["points"])


def say_name(n, ev):
    if ev.get("team"):
        names, number, who = n.team_names, ev["team"], "team %s" % ev["team"]
    else:
        names, number, who = n.names, ev["player"], "P%s" % ev["player"]
        n.learnt.setdefault(number, n.names.get(number))
    if ev.get("name"):
        names[number] = ev["name"]
        return "name: %s is %s" % (who, ev["name"])
    names.pop(number, None)
    return "name: %s has no name" % who


def say_bonus(n, ev):
    return "bonus: %s plays the bonus of tossup %d (%s of %s)" % (
        n.team(ev["team"]), ev["question"], count(ev["parts"], "parts"),
        count(ev["points"], "points"))


def say_part(n, ev):
    if ev.get("team") is None:
        return "bonus part %d: missed" % ev["part"]
    return "bonus part %d: %s %+d" % (ev["part"], n.team(ev["team"]), ev["points"])


def say_bonus_scored(n, ev):
    parts = []
    for i, (team, points) in enumerate(zip(ev["parts"], ev["points"], strict=True)):
        who = "missed" if team is None else "%s %+d" % (n.team(team), points)
        if team is not None and team != ev["team"]:
            who += " (bounced back)"
        parts.append("part %d %s" % (i + 1, who))
    return "bonus of tossup %d: %s" % (ev["question"], "; ".join(parts))


def say_overtime(n, ev):
    return "overtime: a tie after the tossups; %s more" % count(ev["questions"], "tossups")


def say_sudden_death(n, ev):
    return "sudden death: a tie at the top; only %s race" % joined(
        [n.p(p) for p in ev["players"]]
    )


def say_team_ranking(n, ev):
    unit = ev.get("unit", "points")
    return "teams: " + ", ".join(
        "%d. %s (%s)" % (r["place"], n.team(r["team"]), count(r["score"], unit))
        for r in ev["ranking"]
    )


# event name -> its sentence: f(narrator, the event) (tablebuzz.views.eventlog.Narrator)
WORDS = {
    "question": say_question,
    "dead": say_dead,
    "next_in_line": say_next_in_line,
    "read": say_read,
    "protest": say_protest,
    "power_mark": say_power_mark,
    "time_warning": say_time_warning,
    "time_up": say_time_up,
    "adjust": say_adjust,
    "name": say_name,
    "bonus": say_bonus,
    "part": say_part,
    "bonus_scored": say_bonus_scored,
    "overtime": say_overtime,
    "sudden_death": say_sudden_death,
    "team_ranking": say_team_ranking,
}
