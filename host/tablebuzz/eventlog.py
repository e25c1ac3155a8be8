"""Human-readable lines for protocol events ("race: P3 by 0.84 ms", "tie P1/P4 -> draw P4")."""


def _ms(ns):
    if ns is None:
        return "?"
    if abs(ns) < 1000:
        return "%d ns" % ns
    if abs(ns) < 1000000:
        return "%.2f µs" % (ns / 1000)
    return "%.2f ms" % (ns / 1e6)


def _count(n, unit):
    """'1 point', '3 cards'."""
    return "%d %s" % (n, unit[:-1] if n == 1 and unit.endswith("s") else unit)


def describe(ev):
    """One line for one event dict (unknown events are shown as their JSON fields)."""
    kind = ev.get("ev")
    if kind == "race":
        if ev.get("tie"):
            tied = "/".join("P%d" % p for p in ev["tied"])
            return "race: tie %s -> draw P%d" % (tied, ev["winner"])
        if ev.get("margin_ns") is None:
            return "race: P%d first (nobody else yet)" % ev["winner"]
        return "race: P%d by %s" % (ev["winner"], _ms(ev["margin_ns"]))
    if kind == "margin":
        return "margin: P%d beat P%d by %s" % (ev["winner"], ev["player"], _ms(ev["margin_ns"]))
    if kind == "press":
        return "press: P%d at t=%d.%03d µs" % (ev["player"], ev["t_us"], ev.get("t_ns", 0))
    if kind == "lockout":
        if ev.get("ms") is not None:
            length = "%d ms" % ev["ms"]
        elif ev["reason"] == "wrong":
            length = "out until the game lets them back"
        else:
            length = "for this race"
        return "lockout: P%d (%s, %s)" % (ev["player"], ev["reason"].replace("_", " "), length)
    if kind == "unlock":
        return "unlock: P%d may race again" % ev["player"]
    if kind == "armed":
        return "armed: " + " ".join("P%d" % p for p in ev["players"])
    if kind == "score":
        unit = ev.get("unit", "points")
        return "%s: " % unit + "  ".join("P%d=%d" % (i + 1, s) for i, s in enumerate(ev["scores"]))
    if kind == "finished":
        return "finished: P%d takes place %d" % (ev["player"], ev["place"])
    if kind == "skip":
        return "skip: P%d puts the card under the pile (%d left)" % (ev["player"], ev["cards"])
    if kind == "menu":
        return "menu: %s = %s  (%d/%d)" % (ev["step"], ev["value"], ev["index"], ev["of"])
    if kind == "judge":
        return "judge: P%d %s" % (ev["player"], "correct" if ev["correct"] else "wrong")
    if kind == "game_over":
        unit = ev.get("unit", "points")
        ranks = "  ".join(
            "%d. P%d (%s)" % (r["place"], r["player"], _count(r["score"], unit))
            for r in ev["ranking"]
        )
        return "game over: %s  seed %s" % (ranks, ev["seed"])
    if kind == "error":
        return "error %s: %s" % (ev["code"], ev["detail"])
    fields = ", ".join("%s=%s" % (k, v) for k, v in ev.items() if k != "ev")
    return "%s: %s" % (kind, fields)
