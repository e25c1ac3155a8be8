"""Words for people, shared by every sentence the host writes (tablebuzz.views.eventlog, each
game's part under tablebuzz.views.games, the room's view): the games' names, durations and
margins, counts with their unit ("1 point", "3 points"), places, option values in the board's own
words (tablebuzz.views.describe), cards with their suit signs, lists of players.

Sources: docs/protocol.md, docs/games/*.md.
"""

import json

from tablebuzz.views import describe as device_words

GAME_NAMES = {
    "quiz": "quiz",
    "difference": "Difference",
    "deglingo": "Déglingo",
    "redblack": "Red or Black",
    "diddly": "Diddly",
    "evidence": "Evidence",
}

DEAD_WHY = {"cancel": "cancelled", "wrong": "every team was wrong", "time": "time ran out"}

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
QUESTIONS = {
    "red_black": "red or black?",
    "higher_lower": "higher or lower?",
    "between_outside": "between or outside?",
    "suit": "which suit?",
}
DEGLINGO_HOW = {
    "found": "an observer found it",
    "all_wrong": "every observer was wrong",
    "gave_up": "the table gave up",
    "time": "time ran out",
    "wrong": "the observer was wrong",
    "stop": "the observer stopped",
    "all_found": "the observer found them all",
    "all_locked": "every observer false-started",
}
PLACE_WORDS = {1: "1st", 2: "2nd", 3: "3rd"}


def menu_text(ev):
    """A `menu` event's step and value for people, in the board's words (its `label` and
    `text`): "time to buzz: no timer", "game: Red or Black", "false start: 250 ms". Without a
    text (an older board), a game is named by the host's own name for it."""
    step = str(ev.get("step"))
    value = ev.get("text")
    if not value:
        value = game_name(ev.get("value")) if step == "game" else ev.get("value")
    label = ev.get("label") or device_words.option_label(ev.get("game"), step)
    return "%s: %s" % (label, value)


def game_name(name):
    """The game's name as people write it ("Déglingo"); an unknown name as given."""
    return GAME_NAMES.get(name, str(name))


def duration(ns):
    """A margin for people: ms at 1 ms and above, else µs ("840.00 µs", "0.336 µs", "1.25 ms").
    `ns` is an int (ns) or None ("unknown")."""
    if ns is None:
        return "unknown"
    if abs(ns) >= 1000000:
        return "%.2f ms" % (ns / 1e6)
    if abs(ns) >= 1000:
        return "%.2f µs" % (ns / 1000)
    return "%.3f µs" % (ns / 1000)


def count(n, unit):
    """'1 point', '3 cards', '0 points', '1 penalty'."""
    if n == 1 and unit.endswith("ies"):
        unit = unit[:-3] + "y"
    elif n == 1 and unit.endswith("s"):
        unit = unit[:-1]
    return "%d %s" % (n, unit)


def seconds(ms):
    """'5 s', '2.5 s'."""
    return ("%d s" % (ms // 1000)) if ms % 1000 == 0 else ("%.1f s" % (ms / 1000))


def place(n):
    return PLACE_WORDS.get(n, "%dth" % n)


def value_text(value):
    """A protocol value in words: true/false -> on/off, null -> none, lists and objects as JSON."""
    if value is True:
        return "on"
    if value is False:
        return "off"
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def option_text(name, value, game=None):
    """One option of `game` for people, in the board's own words (tablebuzz.views.describe: the
    firmware's game class): "false start: 250 ms", "target: no target", "beginner: off"."""
    return device_words.option_words(game, name, value)


def card(text):
    """A card from the wire ("10S", "QH") with its suit sign: "10♠", "Q♥"."""
    if not isinstance(text, str) or not text:
        return value_text(text)
    return text[:-1] + SUITS.get(text[-1], text[-1])


def players_text(players, empty="nobody"):
    """"P1 P3" for [1, 3], `empty` for []."""
    if not players:
        return empty
    return " ".join("P%s" % p for p in players)


def joined(items):
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def spread(given):
    """[{player, penalties}] -> "P1 2, P3 1"."""
    return ", ".join("P%s %s" % (d.get("player"), d.get("penalties")) for d in given or [])


def fields_text(ev):
    """Fallback for an event this module does not know: its fields with JSON values."""
    return ", ".join(
        "%s %s" % (k, value_text(v)) for k, v in ev.items() if k != "ev"
    )



def margin_words(ns):
    """A margin for a room's screen, rounded to what a person reads: "336 ns", "7.4 µs",
    "738 µs", "1.3 ms", "12 ms". `ns` is an int (ns) or None ("unknown")."""
    if ns is None:
        return "unknown"
    size = abs(ns)
    if size < 1000:
        return "%d ns" % ns
    if size < 10000:
        return "%.1f µs" % (ns / 1000)
    if size < 1000000:
        return "%d µs" % round(ns / 1000)
    if size < 10000000:
        return "%.1f ms" % (ns / 1e6)
    return "%d ms" % round(ns / 1e6)
