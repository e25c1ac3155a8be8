"""The photo finish: a picture of every race decided by less than 10 ms.

Made from what the board sends, nothing else (docs/protocol.md): each `press` is stamped at its
contact's first closing edge (`t_us`, `t_ns`); the `race` event names the winner, the margin to
the runner-up (`margin_ns`) and a tie; `hello.sample_ns` is one capture sample, the tie bound
(two stamps closer than that may be one press, so equal stamps are a tie, drawn). The picture puts
each station's press on one µs axis, one row a station, the winner in front, the margin between
the first two, and the one-sample band at the winner's stamp.

`finishes(events)` finds the close races of an event stream, `svg(finish, colours)` draws one
(an SVG document as text); the scoreboard shows it for a few seconds and on demand, the records
keep it, `tablebuzz replay FILE --photos DIR` writes a record's pictures.
"""

from xml.sax.saxutils import escape

CLOSE_NS = 10_000_000  # a race decided by less than this gets a picture
WINDOW_NS = 20_000_000  # presses up to this long after the first belong to the picture


def _ns(ev):
    return int(ev["t_us"]) * 1000 + int(ev.get("t_ns") or 0)


def finishes(events, sample_ns=None):
    """[finish dict] for every race of `events` (event dicts in order) decided by < 10 ms or
    tied: {"question" (or None), "winner", "margin_ns" (None: nobody else pressed), "tie",
    "tied", "sample_ns" (None if no `hello` said), "presses": [(player, ns from the first
    press)] earliest first, each station's first press in the race}. The t_us wrap (2^30 µs on
    the board) is not unwound: a race spans milliseconds. `sample_ns`: the tie bound when the
    events hold no `hello` (a record keeps it in its header)."""
    out = []
    sample = sample_ns
    question = None
    presses = []  # (player, absolute ns) since the race opened
    open_race = None  # the finish being filled (presses after the decision still come)
    for ev in events:
        kind = ev.get("ev")
        if kind == "hello":
            sample = ev.get("sample_ns")
        elif kind == "question":
            question = ev.get("question")
        elif kind == "armed":
            presses = []
            open_race = None
        elif kind == "press" and "t_us" in ev:
            presses.append((ev["player"], _ns(ev)))
            if open_race is not None:
                _add(open_race, ev["player"], _ns(ev))
        elif kind == "margin" and open_race is not None and out and out[-1] is open_race:
            open_race["margin_ns"] = ev.get("margin_ns")
            if ev["margin_ns"] is not None and ev["margin_ns"] >= CLOSE_NS:
                out.pop()  # the runner-up came 10 ms or more later: no photo finish
                open_race = None
        elif kind == "race" and "t_us" in ev:
            margin = ev.get("margin_ns")
            if not ev.get("tie") and margin is not None and margin >= CLOSE_NS:
                open_race = None
                continue
            first = _ns(ev)
            finish = {"question": question, "winner": ev["winner"], "margin_ns": margin,
                      "tie": bool(ev.get("tie")), "tied": list(ev.get("tied") or []),
                      "sample_ns": sample, "first_ns": first, "presses": []}
            for player, ns in presses:
                _add(finish, player, ns)
            out.append(finish)
            open_race = finish
    result = []
    for f in out:
        if f["margin_ns"] is None and not f["tie"]:
            continue  # nobody else pressed: no race to picture
        first = f.pop("first_ns")
        f["presses"] = sorted(((p, ns - first) for p, ns in f["presses"]),
                              key=lambda item: (item[1], item[0]))
        result.append(f)
    return result


def _add(finish, player, ns):
    if 0 <= ns - finish["first_ns"] <= WINDOW_NS and player not in [p for p, _ in
                                                                    finish["presses"]]:
        finish["presses"].append((player, ns))


def _us(ns):
    """ns as people read a race: "738 µs", "1.204 ms", "56 ns"."""
    if abs(ns) < 1000:
        return "%d ns" % ns
    if abs(ns) < 1_000_000:
        return "%d µs" % round(ns / 1000)
    return "%.3f ms" % (ns / 1e6)


def _colour(c):
    """An SVG colour from (r, g, b) or a CSS colour string; light grey for none."""
    if isinstance(c, str):
        return escape(c, {'"': "&quot;"})
    if isinstance(c, (list, tuple)) and len(c) >= 3:
        return "#%02x%02x%02x" % tuple(int(v) for v in c[:3])
    return "#c8c8c8"


def svg(finish, colours=None, names=None):
    """The picture of `finish` (from finishes()) as an SVG document (str): one row a station
    that pressed, its press a bar at its time on a µs axis from the first press, the winner's row
    marked, the margin drawn between the first two, the one-sample tie band at 0. `colours`:
    {player: (r, g, b)}; `names`: {player: name}."""
    colours = colours or {}
    names = names or {}
    presses = finish["presses"]
    span = max([ns for _, ns in presses] + [finish["sample_ns"] or 0, 1000])
    width, left, right = 960, 170, 60
    row_h, top = 56, 96
    height = top + row_h * len(presses) + 70
    plot = width - left - right

    def x(ns):
        return left + plot * ns / (span * 1.1)

    title = "Photo finish%s: P%d %s" % (
        " Q%d" % finish["question"] if finish["question"] else "", finish["winner"],
        "wins a tie, drawn" if finish["tie"] else "wins by %s" % _us(finish["margin_ns"]))
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" '
        'font-family="sans-serif">' % (width, height, width, height),
        '<rect width="100%" height="100%" fill="#101418"/>',
        '<text x="24" y="44" font-size="30" fill="#ffffff" font-weight="bold">%s</text>'
        % escape(title),
    ]
    sample = finish["sample_ns"]
    if sample:
        parts.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#ffd54a" '
                     'opacity="0.35"/>' % (x(0), top - 10, max(x(sample) - x(0), 2),
                                           row_h * len(presses) + 10))
        parts.append('<text x="%.1f" y="%d" font-size="16" fill="#ffd54a">one sample = %s: '
                     'closer than this is a tie</text>' % (x(0) + 4, top - 16, _us(sample)))
    for i, (player, ns) in enumerate(presses):
        y = top + row_h * i
        colour = _colour(colours.get(player))
        label = "P%d" % player + (" %s" % names[player] if names.get(player) else "")
        won = player == finish["winner"]
        parts.append('<text x="24" y="%d" font-size="22" fill="%s"%s>%s</text>' % (
            y + 30, colour, ' font-weight="bold"' if won else "", escape(label[:14])))
        parts.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#3a4450" stroke-width="2"/>'
                     % (left, y + 24, width - right, y + 24))
        parts.append('<rect x="%.1f" y="%d" width="6" height="36" fill="%s"/>' % (
            x(ns) - 3, y + 6, colour))
        when = "first" if ns == 0 else "+" + _us(ns)
        parts.append('<text x="%.1f" y="%d" font-size="18" fill="#e0e6ec">%s%s</text>' % (
            x(ns) + 8, y + 20, when, "  winner" if won else ""))
    if len(presses) > 1 and finish["margin_ns"] is not None and not finish["tie"]:
        y = top + row_h * len(presses) + 20
        x0, x1 = x(0), x(finish["margin_ns"])
        parts.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ffffff" '
                     'stroke-width="3"/>' % (x0, y, x1, y))
        parts.append('<text x="%.1f" y="%d" font-size="20" fill="#ffffff">margin %s</text>'
                     % (x0, y + 28, _us(finish["margin_ns"])))
    axis_y = height - 8
    parts.append('<text x="%d" y="%d" font-size="14" fill="#8a96a3">µs from the first press '
                 '(stamps as the board sent them)</text>' % (left, axis_y))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def colours_by_player(events=()):
    """{player: "#rrggbb"}: each player's colour as the box lit them (views.colours: the
    palette the board announced in `events`, a team's colour; the pin map's standard colours
    when it announced none)."""
    from refbox import pinmap

    from tablebuzz.views.colours import by_player, hex_colour

    return by_player(events, [hex_colour(c) for c in pinmap.PLAYER_COLOURS])


def write_photos(events, stem, sample_ns=None, names=None):
    """Write one SVG per close race of `events` as `<stem>-photo-<n>.svg` (stem: a Path without
    suffix); returns the paths written."""
    from pathlib import Path

    paths = []
    for n, finish in enumerate(finishes(events, sample_ns), 1):
        path = Path("%s-photo-%d.svg" % (stem, n))
        path.write_text(svg(finish, colours_by_player(events), names), encoding="utf-8")
        paths.append(path)
    return paths
