"""Difference's part of the room's view (docs/games/difference.md): the board's finishing
places. The cards left are the scores (`score`); `FOLD` says which event sets what."""


def blank(players, size):
    """Difference's view before its first event: {places: {player: place}}."""
    return {"places": {}}


def score(table, g, ev):
    if ev.get("places") is not None:
        g["view"]["places"] = {str(p): place for p, place in enumerate(ev["places"], 1)
                               if place}  # the board's finishing places (an undo's too)


def finished(table, g, ev):
    g["view"]["places"][str(ev["player"])] = ev["place"]


# event name -> its part of the fold: f(table, the game dict, the event)
FOLD = {
    "score": score,
    "finished": finished,
}
