"""The race's part of the room's view: who may race (`armed`), the presses in their order
with each one's delay behind the winner, the winner and the margin (`race`, `margin`), the
judgement, the lockouts, and the photo finish of a close race (tablebuzz.views.photo). Every
field comes from the board's events and stamps (docs/protocol.md); `FOLD` says which event sets
what."""

from tablebuzz.views.words import duration

TICKS_PERIOD_US = 1 << 30  # the device's µs ticks wrap here (docs/protocol.md)


def stamp_ns(ev):
    """A press/race stamp as ns on the device's wrapping µs clock."""
    return ev.get("t_us", 0) * 1000 + ev.get("t_ns", 0)


def behind_ns(later, earlier):
    """ns from stamp `earlier` to `later` across the 2**30 µs wrap (ticks_diff)."""
    period = TICKS_PERIOD_US * 1000
    d = (later - earlier) % period
    return d - period if d >= period // 2 else d


def photo_track(table, kind, ev):
    """Keep this race's events; once it is decided by < 10 ms, its picture
    (tablebuzz.views.photo) becomes the view's `photo`, shown for PHOTO_S seconds."""
    from tablebuzz.views import photo

    if kind == "armed":
        table.race_events = []
    events = getattr(table, "race_events", [])
    events.append(ev)
    table.race_events = events
    if kind == "press" and any(e.get("ev") == "race" for e in events):
        pass  # a press line after the race line (the board sends the race first): redraw
    elif kind not in ("race", "margin"):
        return
    sample = (table.board or {}).get("sample_ns")
    found = photo.finishes([{"ev": "question", "question": table.question_no()}] + events,
                           sample)
    if not found:
        return
    finish = found[-1]
    names = {int(k): v for k, v in ((table.game or {}).get("names") or {}).items()}
    lit = (table.game or {}).get("colours") or table.colours  # as the box lit them (a team's)
    colours = dict(enumerate(lit, 1))
    table.photo = {"svg": photo.svg(finish, colours, names), "winner": finish["winner"],
                  "margin_ns": finish["margin_ns"], "tie": finish["tie"],
                  "question": finish["question"]}
    table.photo_at = table.clock()
    table.photo_shown = getattr(table, "photo_shown", 0) + 1  # the page opens it once a showing


def armed(table, g, ev):
    for p in ev["players"]:  # whoever may race now is not out, whatever we missed
        lock = g["locked"].get(str(p))
        if lock is not None and lock["reason"] == "wrong":
            del g["locked"][str(p)]
    g["armed"] = True
    g["phase"] = "racing"
    g["eligible"] = list(ev["players"])
    g["answering"] = None
    previous = g["race"]
    if previous is not None and previous.get("winner") is None:
        previous = previous.get("previous")  # re-armed before anyone pressed
    if previous is not None:
        previous = {k: v for k, v in previous.items() if k not in ("previous", "presses")}
    g["race"] = {"open": True, "presses": [], "winner": None, "previous": previous}
    doing = ev.get("doing")  # the race's words (the `buttons` event's are not sent in it)
    table.doing = (doing, "racing") if isinstance(doing, str) and doing else None


def press(table, g, ev):
    race = g["race"]
    if race is None:
        return
    player = ev["player"]
    if any(p["player"] == player for p in race["presses"]):
        return  # only each player's first press counts for the order
    if race["winner"] is None and not race["open"]:
        return
    race["presses"].append({"player": player, "stamp": stamp_ns(ev)})
    order(table, race)


def race(table, g, ev):
    race = g["race"] or {"open": True, "presses": []}
    race.update(
        open=False,
        winner=ev["winner"],
        tie=bool(ev.get("tie")),
        tied=list(ev.get("tied") or []),
        margin_ns=ev.get("margin_ns"),
        stamp=stamp_ns(ev),
    )
    race["margin_text"] = margin_text(race)
    g["race"] = race
    g["armed"] = False
    g["answering"] = ev["winner"]
    g["phase"] = "answering"
    order(table, race)


def margin(table, g, ev):
    race = g["race"]
    if race is not None and race.get("margin_ns") is None:
        race["margin_ns"] = ev["margin_ns"]
        race["margin_text"] = margin_text(race)


def margin_text(race):
    if race.get("tie"):
        return "tie: %s, drawn" % " & ".join("P%d" % p for p in race["tied"])
    if race.get("margin_ns") is None:
        return "nobody else pressed" if race.get("settled") else "nobody else yet"
    return "by " + duration(race["margin_ns"])


def order(table, race):
    """The buzz order: the winner first, then everyone who pressed, each with their delay
    behind the winner (ties at 0)."""
    winner = race.get("winner")
    presses = race["presses"]
    if winner is not None and not any(p["player"] == winner for p in presses):
        presses.append({"player": winner, "stamp": race.get("stamp", 0)})
    if not presses:
        race["order"] = []
        return
    base = race.get("stamp")
    if base is None:
        base = min(p["stamp"] for p in presses)
    rows = []
    for p in presses:
        d = behind_ns(p["stamp"], base)
        rows.append((0 if p["player"] == winner else 1, max(d, 0), p["player"]))
    rows.sort()
    race["order"] = [
        {"player": pl, "behind_ns": d,
         "behind_text": "first" if pl == winner else "+" + duration(d)}
        for _, d, pl in rows
    ]


def judge(table, g, ev):
    g["answering"] = None
    if g["race"] is not None:
        g["race"]["judged"] = "correct" if ev["correct"] else "wrong"


def lockout(table, g, ev):
    now = table.clock()
    until = now + ev["ms"] / 1000 if ev.get("ms") is not None else None
    reason = "false start" if ev["reason"] == "false_start" else "wrong"
    g["locked"][str(ev["player"])] = {"reason": reason, "until": until, "since": now}


def unlock(table, g, ev):
    g["locked"].pop(str(ev["player"]), None)
    if g["armed"] and ev["player"] not in g["eligible"]:  # the race open: they may buzz now
        g["eligible"] = sorted(g["eligible"] + [ev["player"]])


# event name -> its part of the fold: f(table, the game dict, the event)
FOLD = {
    "armed": armed,
    "press": press,
    "race": race,
    "margin": margin,
    "judge": judge,
    "lockout": lockout,
    "unlock": unlock,
}
