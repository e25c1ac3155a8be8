"""What the display shows, as text: a picture is a tuple of lines (scale, text), top down, each
8 * scale pixels high on a 128x64 panel (16 characters at scale 1, 8 at scale 2, 5 at scale 3).
Pure: the Referee in, the picture out; refbox.oled draws it.

Layout: a header line (the game, its round); the body (the game's own lines from Game.screen, the
race winner and margin while they have the floor, or the scores); at the bottom what each
control does now (Referee.buttons). In the menu: the step and its value in words. Never anything
the rules keep hidden: the body comes only from what the game has shown the table (turned cards,
numbers entered on the controls, published scores). Documented in README.md "The display".
"""

from refbox.games import title
from refbox.referee import RACE_MARGIN, RACE_TIED, RACE_WINNER

ROWS = 8
COLUMNS = 16


def margin_text(ns):
    """A race margin for people, ASCII: "by 840 ns", "by 12.3 us", "by 4.25 ms", "by 125 ms"."""
    if ns < 1000:
        return "by %d ns" % ns
    if ns < 100000:
        return "by %d.%d us" % (ns // 1000, ns % 1000 // 100)
    if ns < 10000000:
        return "by %d.%02d ms" % (ns // 1000000, ns % 1000000 // 10000)
    return "by %d ms" % (ns // 1000000)


def _prompt(control, meaning):
    return "%-4s %s" % (control, meaning)


def _fit(scale, text):
    """A line that fits the panel's width: a long one drops to scale 1, then is cut."""
    while scale > 1 and len(text) * scale > COLUMNS:
        scale -= 1
    return (scale, text[:COLUMNS])


def _menu(menu):
    step, index, count = menu.position()
    label = menu.label(step)
    label = label[:1].upper() + label[1:]  # MicroPython's str has no capitalize()
    lines = [(1, "SET UP %9s" % ("%d/%d" % (index + 1, count))), (1, label)]
    lines.append(_fit(2, menu.text(step)))
    return lines, menu.buttons()


def _scores(game):
    lines = []
    scores = game.scores
    for i in range(0, len(scores), 2):
        left = "P%d %4d" % (i + 1, scores[i])
        if i + 1 < len(scores):
            left += "  P%d %4d" % (i + 2, scores[i + 1])
        lines.append((1, left))
    return lines


def _ranking(view):
    game = view.game
    lines = [(1, "abandoned" if view.abandoned else "final %s" % game.unit)]
    for place, player, score in game.ranking():
        lines.append((1, "%d. P%d %6d" % (place, player, score)))
    return lines


def _race(view):
    race = view.last_race
    game = view.game
    if race is None or game.answering is None or race[RACE_WINNER] != game.answering:
        return None
    winner, margin, tied = race[RACE_WINNER], race[RACE_MARGIN], race[RACE_TIED]
    if tied:
        names = " ".join(["P%d" % (p + 1) for p in tied])
        return [(2, "P%d wins" % (winner + 1)), (1, "tie %s: drawn" % names)]
    by = "alone" if margin is None else margin_text(margin)
    return [(2, "P%d first" % (winner + 1)), (1, by)]


def picture(view):
    """The display's picture for the Referee `view`: a tuple of (scale, text), at most ROWS rows
    of 8 pixels in all. In the menu: "SET UP", the step, its value (with its unit), the
    controls; in a game: the header, the body, the controls (UNDO is not listed)."""
    if view.menu is not None:
        body, prompts = _menu(view.menu)
        head = []
    else:
        game = view.game
        if game is None:
            return ()
        prompts = view.buttons()
        name = title(game.name)
        info = game.status() if game.phase != "over" else "GAME OVER"
        gap = max(1, COLUMNS - len(name) - len(info)) if info else 0
        head = [(1, (name + " " * gap + info)[:COLUMNS])]
        if game.phase == "over":
            body = _ranking(view)
        else:
            body = game.screen(view.holding) or _race(view) or _scores(game)
    room = ROWS - len(head) - len(prompts)
    lines = list(head)
    for scale, text in body:
        scale, text = _fit(scale, text)
        if scale > room:
            break
        lines.append((scale, text))
        room -= scale
    for _ in range(room):
        lines.append((1, ""))
    for control, meaning in prompts:
        lines.append((1, _prompt(control, meaning)[:COLUMNS]))
    return tuple(lines)
