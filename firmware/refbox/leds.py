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
                a buzzer pressed lights its station in full colour for 0.3 s (wiring test).
Documented in README.md "LED language".
"""

from refbox.arbiter import ARMED

_OFF = (0, 0, 0)
_WHITE = (255, 255, 255)
_MENU = (64, 64, 64)
_ARMED_BAR = (24, 24, 24)


def _scale(colour, num, den):
    return (colour[0] * num // den, colour[1] * num // den, colour[2] * num // den)


_TENTHS = {}  # colour -> a tenth of it: computed once per colour, so a render allocates no tuple
_QUARTERS = {}


def _tenth(colour):
    dim = _TENTHS.get(colour)
    if dim is None:
        dim = _TENTHS[colour] = _scale(colour, 1, 10)
    return dim


def _quarter(colour):
    dim = _QUARTERS.get(colour)
    if dim is None:
        dim = _QUARTERS[colour] = _scale(colour, 1, 4)
    return dim


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
    if game.answering is not None:
        return bool(view.tie_shown)  # the floor alternates with white after a tie
    if game.turn is not None and view.arbiter.phase != ARMED:
        return True  # whose turn it is: pulsing
    return game.frame_moves()  # a game that paints its own pixels


def render(view, now_ms, colours, station_pixels, marker_pixels, frame=None):
    """A frame: list of (r, g, b) 0..255, `station_pixels` + `marker_pixels` long, written into
    `frame` when given (a list of that length: the loop's preallocated frame) or a new list.

    `view` is the Referee (read-only): menu, game, arbiter, players, tie_shown.
    """
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
        for p in range(min(view.menu.players, station_pixels)):
            frame[p] = _quarter(colours[p])
        for p in view.menu.lit_stations(view.now):  # the wiring test: a pressed buzzer lights
            if p < station_pixels:
                frame[p] = colours[p]
        return frame
    game = view.game
    arbiter = view.arbiter
    if game is None:
        return frame
    colours = game.station_colours(colours)  # a team shares one colour
    if game.phase == "over":
        champions = game.champions()
        for p in range(min(view.players, station_pixels)):
            frame[p] = _tenth(colours[p])
        if (now_ms // 250) & 1:
            for champion in champions:
                if champion < station_pixels:
                    frame[champion] = colours[champion]
        frame[bar + (now_ms // 100) % marker_pixels] = colours[champions[0]]
        return frame
    blink_fast = (now_ms // 125) & 1
    blink_slow = (now_ms // 250) & 1
    eligible = game.eligible()
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
            frame[p] = _tenth(colour)
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
                frame[bar + i] = _quarter(colours[i])
    turn = game.turn
    if turn is not None and floor is None and arbiter.phase != ARMED and turn < station_pixels:
        frame[turn] = colours[turn] if blink_slow else _quarter(colours[turn])
    game.decorate(frame, now_ms, colours, station_pixels, marker_pixels)
    return frame
