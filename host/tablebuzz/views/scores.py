"""The scores' part of the room's view, for every game: the scores and their unit, the names
the board keeps, the seed's commitment, the game-over ranking with its tie notes, and the
standings screen's rows. Every field comes from the board's events (docs/protocol.md); `FOLD`
says which event sets what."""

from tablebuzz.views import race


def score(table, g, ev):
    g["scores"] = list(ev["scores"])
    g["unit"] = ev.get("unit", g["unit"])


def reseed(table, g, ev):
    g["commit"] = ev["commit"]


def game_over(table, g, ev):
    unit = ev.get("unit", g["unit"])
    ranking = [dict(r, name=g["names"].get(str(r["player"]))) for r in ev["ranking"]]
    g["over"] = {
        "ranking": ranking,
        "team_ranking": g["view"].get("team_ranking"),
        "abandoned": bool(ev.get("abandoned")),
        "seed": ev["seed"],
        "commit": g["commit"],
        "notes": [] if ev.get("abandoned") else table.narrator.tie_notes(
            ev.get("game"), ev["ranking"], unit, ev.get("tie_break")),
        "unit": unit,
    }
    g["phase"] = "over"
    if g["race"] is not None and g["race"].get("winner") is None:
        g["race"] = None  # a race opened but nobody pressed: nothing to show
    elif g["race"] is not None:
        g["race"]["settled"] = True  # the game is over: no press comes any more
        g["race"]["margin_text"] = race.margin_text(g["race"])
    g["armed"] = False
    g["answering"] = None
    g["timers"] = []
    g["locked"] = {}


def name(table, g, ev):
    """A name the device keeps (the quiz's `act name`): shown like the desk's names."""
    name = ev.get("name")
    if ev.get("player"):
        key = str(ev["player"])
        if name:
            g["names"][key] = name
        else:
            g["names"].pop(key, None)
        table.narrator.names = {int(k): v for k, v in g["names"].items()}
        table.room_narrator.names = dict(table.narrator.names)
    elif ev.get("team"):
        for team in g["view"].get("teams") or []:
            if team["team"] == ev["team"]:
                team["name"] = name


def standings(game):
    """The standings screen's rows: each team (a quiz with teams) or each player, with its
    score, best first for a game scored highest-first (the quiz; its teams' ranking once the
    board sends it), else in seat order. [{"label", "players", "score", "leader"}]."""
    if game is None:
        return []
    view = game["view"] or {}
    teams = view.get("teams") if game["name"] == "quiz" else None
    if teams:
        rows = [{"label": t["name"] or "team %d" % t["team"], "players": list(t["players"]),
                 "score": t["score"], "team": t["team"], "place": t.get("place")}
                for t in teams]
    else:
        places = (view.get("places") or []) if game["name"] == "quiz" else []
        rows = [{"label": "P%d" % (i + 1), "players": [i + 1], "score": s, "team": None,
                 "place": places[i] if i < len(places) else None}
                for i, s in enumerate(game["scores"])]
    if all(r["place"] for r in rows):  # the board ranks them (the quiz's `score` places)
        rows.sort(key=lambda r: r["place"])
    ahead = any(r["place"] and r["place"] > 1 for r in rows)  # someone is behind
    for r in rows:
        r["leader"] = ahead and r["place"] == 1
    return rows


# event name -> its part of the fold: f(table, the game dict, the event)
FOLD = {
    "score": score,
    "reseed": reseed,
    "game_over": game_over,
    "name": name,
}
