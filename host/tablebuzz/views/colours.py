"""The players' colours as the box lights them, from what the board announced.

The board names its station colours in `hello` and in `palette` events (docs/protocol.md: the
palette chosen in the box's menu); a quiz with teams lights every station of team k in station
k's colour (README "LED language"). Pages and exports draw these, never a colour table of their
own: `station_colours(events)` reads the announced ones, `player_colours` maps them to players.
"""


def hex_colour(rgb):
    """"#rrggbb" of [r, g, b] 0..255."""
    return "#%02x%02x%02x" % tuple(rgb)


def checked(colours):
    """The board's `colours` field as a list of "#rrggbb", or None when it is not a list of
    [r, g, b] with each value an int 0..255 (a bad line changes nothing)."""
    if not isinstance(colours, list):
        return None
    for c in colours:
        if not (isinstance(c, list) and len(c) == 3 and
                all(type(v) is int and 0 <= v <= 255 for v in c)):
            return None
    return [hex_colour(c) for c in colours]


def player_colours(stations, game, players, options):
    """Each player's colour ("#rrggbb", player 1 first) in `game` with `players` players and
    `options`: their station's colour from `stations` (a list of "#rrggbb"), or with quiz
    teams the colour of the team's number (team k: station k's)."""
    colours = list(stations[:players])
    teams = (options or {}).get("teams") or [] if game == "quiz" else []
    for t, members in enumerate(teams):
        for p in members if isinstance(members, list) else []:
            if type(p) is int and 0 < p <= len(colours) and t < len(stations):
                colours[p - 1] = stations[t]
    return colours


def by_player(events, fallback):
    """{player: "#rrggbb"} as the box lit them at the end of `events` (event dicts: the last
    `hello` / `palette` colours, the last `game` / `resume` for teams); `fallback`: the station
    colours ("#rrggbb") when the board announced none (a record of an older firmware)."""
    stations = list(fallback)
    game, players, options = None, len(stations), {}
    for ev in events:
        kind = ev.get("ev")
        if kind in ("hello", "palette"):
            stations = checked(ev.get("colours")) or stations
        elif kind in ("game", "resume") and isinstance(ev.get("players"), int):
            game, players, options = ev.get("game"), ev["players"], ev.get("options") or {}
    return dict(enumerate(player_colours(stations, game, players, options), 1))
