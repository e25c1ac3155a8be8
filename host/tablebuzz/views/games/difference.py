"""Difference's part of the room's view (docs/games/difference.md): the board's finishing
places. The cards left are the scores (`score`); `FOLD` says which event sets what."""

from tablebuzz.views.words import count, place


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


# ---------------------------------------------------------------- its sentences
def say_finished(n, ev):
    return "finished: %s emptied their pile, %s place" % (
        n.p(ev["player"]), place(ev["place"])
    )


def say_skip(n, ev):
    return "skip: %s puts the card under the pile (%s left)" % (
        n.p(ev["player"]), count(ev["cards"], "cards")
    )


# event name -> its sentence: f(narrator, the event) (tablebuzz.views.eventlog.Narrator)
WORDS = {
    "finished": say_finished,
    "skip": say_skip,
}
