"""The LED language: one pixel per station, then the marker bar. Pure: state in, frame out.

Station pixel:  off = not in this game, out of this question (judged wrong) or out of cards;
                whose turn it is: pulsing colour (2 Hz) while the buzzers are not armed;
                dim colour = in the game, buzzers not armed;  full colour = armed (the cue to
                press); blinking colour (4 Hz) = locked out after a false start;
                has the floor: full colour, every other station off; after a tie the winner
                alternates colour / white (2 Hz) so the table sees the race was drawn;
                game over: the winner blinks (a quiz team: all its stations), the others
                show dim. With quiz teams every station shows its team's colour.
Marker bar:     dim white while armed; the floor-holder's colour while they answer; a point
                tally (quiz) otherwise; a chase in the winner's colour at game over.
Menu:           the bar lights as many pixels as the position of the value shown (1..10), the
                stations light up to the chosen number of players (a quarter of their colour);
                a buzzer pressed lights its station in full colour for 0.3 s (wiring test);
                on the station colours step every station shows its colour in full.
Colours:        the palette chosen in the menu (standard = the pin map's colours, or the
                colour-blind-safe set below), everywhere a station's colour shows.
Documented in README.md "LED language".

The palettes (the menu's "station colours" step, refbox.menu): `standard` is the pin map's
PLAYER_COLOURS (red, blue, green, orange, violet, cyan, white, pink); `okabe_ito` a
colour-blind-safe set, the eight colours of Okabe & Ito, "Color Universal Design" (2008), as
published in B. Wong, "Points of view: Color blindness", Nature Methods 8, 441 (2011): vermillion,
blue, bluish green, orange, reddish purple, sky blue and yellow as given there, in an order whose
first stations differ most. Their black is white here: a dark pixel means "not in this game", so
black would hide a station. The device announces the set in use (`hello`, `palette` event:
docs/protocol.md), so every page draws each station as the box lights it. They live here rather
than in a module of their own: one module less to hold in the chip's heap (tests/test_chip_heap).
"""

from refbox.arbiter import ARMED

STANDARD = "standard"
OKABE_ITO = "okabe_ito"
PALETTES = (STANDARD, OKABE_ITO)  # the menu's order
_OKABE_ITO = (
    (213, 94, 0),  # vermillion
    (0, 114, 178),  # blue
    (0, 158, 115),  # bluish green
    (230, 159, 0),  # orange
    (204, 121, 167),  # reddish purple
    (86, 180, 233),  # sky blue
    (255, 255, 255),  # white (Wong's black: see the module doc)
    (240, 228, 66),  # yellow
)


def palette_colours(name, standard):
    """The stations' colours of palette `name`: a tuple of (r, g, b) 0..255 as the pixels are
    driven, at least as long as `standard` (the pin map's PLAYER_COLOURS, which `standard` is).
    The same tuple every call: a render allocates nothing."""
    if name == OKABE_ITO and len(standard) <= len(_OKABE_ITO):
        return _OKABE_ITO
    return standard


def palette_text(name):
    """The palette's name for people: "standard", "colour-blind safe"."""
    return "colour-blind safe" if name == OKABE_ITO else name


def palette_fields(name, standard, stations):
    """The fields of the `palette` event: the palette's name, its words ("colour-blind safe")
    and each of the `stations` stations' colour as [r, g, b], station 1 first (`hello` carries
    the name and the colours)."""
    shown = palette_colours(name, standard)
    return (
        ("palette", name),
        ("text", palette_text(name)),
        ("colours", [list(shown[i]) for i in range(stations)]),
    )


_OFF = (0, 0, 0)
_WHITE = (255, 255, 255)
_MENU = (64, 64, 64)
_ARMED_BAR = (24, 24, 24)


_DIMMED = {}  # den -> {colour: colour // den}: each computed once, so a frame allocates no tuple


def dimmed(colour, den):
    """`colour` ((r, g, b) 0..255) with each channel divided by `den` (floor), the same tuple
    every call: a frame that moves (a blink every 25 ms) must allocate nothing, or it fills
    MicroPython's collection threshold in seconds and the collection falls inside a command
    (bench/README.md "Idle frames"). Keeps one tuple per colour and `den` seen."""
    kept = _DIMMED.get(den)
    if kept is None:
        kept = _DIMMED[den] = {}
    dim = kept.get(colour)
    if dim is None:
        dim = kept[colour] = (colour[0] // den, colour[1] // den, colour[2] // den)
    return dim


NOTHING_SHOWN = (None, 0, None, None, None, None, None)


def shown(view, colours):
    """What a frame of `view`'s game needs from its state, computed once per log revision, phase
    (the state is the fold of the log; an abandoned game ends without an entry) and palette
    (`colours`, the stations' colours): (game, revision, phase, colours, eligible(),
    station_colours(colours), champions() at game over else None). `view.shown` keeps it
    (refbox.referee.Referee: NOTHING_SHOWN at first, and again when a game is let go). Every
    game's `eligible` and `champions` make a new list: asked every 25 ms while a frame moves,
    they filled the collection threshold in seconds (bench/README.md "Idle frames")."""
    game = view.game
    known = view.shown
    if (known[0] is not game or known[1] != game.revision or known[2] != game.phase
            or known[3] is not colours):
        champions = game.champions() if game.phase == "over" else None
        known = (game, game.revision, game.phase, colours, game.eligible(),
                 game.station_colours(colours), champions)
        view.shown = known
    return known


def moves(view):
    """True when `view`'s frame changes with time alone (a blink, a pulse, a chase, a game's own
    painting), so the loop must render it again as time passes; False when only a new event can
    change it (refbox.app.App._show). Follows `render` branch by branch."""
    if view.menu is not None:
        return view.menu.is_busy()  # a wiring-test light goes out on its timer
    game = view.game
    if game is None:
        return False
    if game.phase == "over" or view.arbiter.locked:
        return True  # the champion's blink and chase; a locked-out station blinks
    if game.answering is not None:  # the floor alternates with white after a tie; a game's
        return bool(view.tie_shown) or game.frame_moves()  # own painting (the answer time)
    if game.turn is not None and view.arbiter.phase != ARMED:
        return True  # whose turn it is: pulsing
    return game.frame_moves()  # a game that paints its own pixels


def render(view, now_ms, colours, station_pixels, marker_pixels, frame=None):
    """A frame: list of (r, g, b) 0..255, `station_pixels` + `marker_pixels` long, written into
    `frame` when given (a list of that length: the loop's preallocated frame) or a new list.

    `view` is the Referee (read-only): menu, game, arbiter, players, tie_shown, palette (the
    station colours' name, refbox.palette: `colours`, the pin map's, are its standard set).
    """
    colours = palette_colours(getattr(view, "palette", "standard"), colours)
    if frame is None:
        frame = [_OFF] * (station_pixels + marker_pixels)
    else:
        for i in range(station_pixels + marker_pixels):
            frame[i] = _OFF
    bar = station_pixels
    if view.menu is not None:
        _, index, _ = view.menu.position()
        for i in range(min(index + 1, marker_pixels)):
            frame[bar + i] = _MENU
        if view.menu.colours_step:  # choosing the station colours: every station in full
            for p in range(min(view.menu.stations, station_pixels)):
                frame[p] = colours[p]
            return frame
        for p in range(min(view.menu.players, station_pixels)):
            frame[p] = dimmed(colours[p], 4)
        for p in view.menu.lit_stations(view.now):  # the wiring test: a pressed buzzer lights
            if p < station_pixels:
                frame[p] = colours[p]
        return frame
    game = view.game
    arbiter = view.arbiter
    if game is None:
        return frame
    known = shown(view, colours)
    colours = known[5]  # a team shares one colour
    if game.phase == "over":
        champions = known[6]
        for p in range(min(view.players, station_pixels)):
            frame[p] = dimmed(colours[p], 10)
        if (now_ms // 250) & 1:
            for champion in champions:
                if champion < station_pixels:
                    frame[champion] = colours[champion]
        frame[bar + (now_ms // 100) % marker_pixels] = colours[champions[0]]
        return frame
    blink_fast = (now_ms // 125) & 1
    blink_slow = (now_ms // 250) & 1
    eligible = known[4]
    floor = game.answering
    for p in range(min(view.players, station_pixels)):
        colour = colours[p]
        if floor is not None:
            if p == floor:
                frame[p] = _WHITE if (view.tie_shown and blink_slow) else colour
        elif arbiter.is_locked(p):
            frame[p] = colour if blink_fast else _OFF
        elif p not in eligible:
            frame[p] = _OFF
        elif arbiter.phase == ARMED:
            frame[p] = colour
        else:
            frame[p] = dimmed(colour, 10)
    if floor is not None:
        for i in range(marker_pixels):
            frame[bar + i] = colours[floor]
    elif arbiter.phase == ARMED:
        for i in range(marker_pixels):
            frame[bar + i] = _ARMED_BAR
    elif game.unit == "points":
        scores = game.scores
        for i in range(min(marker_pixels, len(scores))):
            if scores[i]:
                frame[bar + i] = dimmed(colours[i], 4)
    turn = game.turn
    if turn is not None and floor is None and arbiter.phase != ARMED and turn < station_pixels:
        frame[turn] = colours[turn] if blink_slow else dimmed(colours[turn], 4)
    game.decorate(frame, now_ms, colours, station_pixels, marker_pixels)
    return frame
