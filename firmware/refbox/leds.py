"""The LED language: one pixel per station, then the marker bar. Pure: state in, frame out.

Station pixel:  off = not in this game or out of this question (judged wrong);
                dim colour = in the game, buzzers not armed;  full colour = armed (the cue to
                press); blinking colour (4 Hz) = locked out after a false start;
                winner: full colour, every other station off; after a tie the winner alternates
                colour / white (2 Hz) so the table sees the race was drawn.
Marker bar:     dim white while armed; the winner's colour after a race; a point tally otherwise.
Documented in README.md "LED language".
"""

from refbox.arbiter import ARMED, DECIDED

_OFF = (0, 0, 0)
_WHITE = (255, 255, 255)


def _scale(colour, num, den):
    return (colour[0] * num // den, colour[1] * num // den, colour[2] * num // den)


def render(view, now_ms, colours, station_pixels, marker_pixels):
    """A frame: list of (r, g, b) 0..255, `station_pixels` + `marker_pixels` long.

    `view` is the App (read-only): players, game, arbiter, tie_shown.
    """
    frame = [_OFF] * (station_pixels + marker_pixels)
    game = view.game
    arbiter = view.arbiter
    if game is None:
        return frame
    blink_fast = (now_ms // 125) & 1
    blink_slow = (now_ms // 250) & 1
    eligible = game.eligible()
    winner = getattr(game, "answering", None)
    for p in range(min(view.players, station_pixels)):
        colour = colours[p]
        if winner is not None:
            if p == winner:
                frame[p] = _WHITE if (view.tie_shown and blink_slow) else colour
        elif arbiter.is_locked(p):
            frame[p] = colour if blink_fast else _OFF
        elif p not in eligible:
            frame[p] = _OFF
        elif arbiter.phase == ARMED:
            frame[p] = colour
        else:
            frame[p] = _scale(colour, 1, 10)
    bar = station_pixels
    if winner is not None or arbiter.phase == DECIDED:
        colour = colours[winner] if winner is not None else _WHITE
        for i in range(marker_pixels):
            frame[bar + i] = colour
    elif arbiter.phase == ARMED:
        for i in range(marker_pixels):
            frame[bar + i] = (24, 24, 24)
    else:
        scores = getattr(game, "scores", None) or []
        for i in range(min(marker_pixels, len(scores))):
            if scores[i]:
                frame[bar + i] = _scale(colours[i], 1, 4)
    return frame
