"""Diddly's pure scoring engine: card names, the board of columns of two cards, the tie-break.

Rules: shared/rules/003_805fe10dc7c48be8.txt (Diddly rulebook) sections "What's in the Box",
"Let's Get Started!", "Scoring" and "End of the Game", read through the house reading in
shared/rules/README.md section "diddly" (the rulebook is partly garbled; the house reading
decides).

Card names (upper case on the wire; input is case-insensitive, aliases in ALIASES):
  "1".."10" number cards, "DIDDLY", "SWAP" (Diddly Swap), "HALF" (Diddly Half), "PEEK", "RECYCLE".
A board is a list of 2 * columns card names; the columns are consecutive pairs (cards 1-2 are
column 1, cards 3-4 column 2, ...). No clock, no floats: integers only.
"""

from refbox.games.base import GameError
from refbox.protocol import printable_ascii

NUMBERS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10")
DIDDLY = "DIDDLY"
SWAP = "SWAP"
HALF = "HALF"
PEEK = "PEEK"
RECYCLE = "RECYCLE"
CARDS = NUMBERS + (DIDDLY, SWAP, HALF, PEEK, RECYCLE)  # every card name, in a fixed order

# Copies of each card in the deck (house reading "diddly": numbers 1-10 x8, Diddly x8, Diddly
# Swap x4, Diddly Half x4, Peek x4, Recycle x4; 104 cards).
COPIES = {DIDDLY: 8, SWAP: 4, HALF: 4, PEEK: 4, RECYCLE: 4}
for _n in NUMBERS:
    COPIES[_n] = 8

ALIASES = {
    "DS": SWAP,
    "DIDDLY SWAP": SWAP,
    "DIDDLY_SWAP": SWAP,
    "DH": HALF,
    "DIDDLY HALF": HALF,
    "DIDDLY_HALF": HALF,
}

COLUMN_MAX = 20  # the most one column can score (Peek + Recycle, or 10 + Peek / Recycle)


def _ascii_upper(text):
    if not printable_ascii(text):  # (not a str a character: refbox.protocol.code_points)
        return ""  # not a card name
    return text.upper()  # (printable ASCII: a-z alone change)


def card_name(value, position=0):
    """The canonical name (str, one of CARDS) of a card given on the wire: a name (any case, or
    an alias such as "DH") or an int 1..10. `position` (1-based, 0 = none) only words the error.
    Raises GameError("bad_value") for anything else."""
    where = (" (card %d)" % position) if position else ""
    if isinstance(value, int) and value is not True and value is not False:
        if 1 <= value <= 10:
            return str(value)
        raise GameError("bad_value", "no number card %d%s: numbers are 1 to 10" % (value, where))
    if not isinstance(value, str):
        raise GameError("bad_value", "a card is a name or a number%s" % where)
    # ASCII only: CPython's upper()/strip() know Unicode, MicroPython's do not, and both
    # interpreters must answer alike
    name = _ascii_upper(value.strip(" \t"))
    if name in ALIASES:
        return ALIASES[name]
    if name in COPIES:
        return name
    raise GameError(
        "bad_value",
        "unknown card '%s'%s; cards are 1..10, DIDDLY, SWAP, HALF, PEEK, RECYCLE"
        % (value[:16], where),
    )


def card_value(card):
    """Points of canonical `card` when it scores alone (rulebook "Scoring"): a number card its
    face value, Peek and Recycle 10, every Diddly card (Diddly, Swap, Half) 0."""
    if card == PEEK or card == RECYCLE:
        return 10
    if card == DIDDLY or card == SWAP or card == HALF:
        return 0
    return int(card)


def column_score(top, bottom):
    """Points of one column of two canonical cards (rulebook "Scoring"; house reading "diddly").

    Matching cards (the same number, both Peek or both Recycle) score 0. Otherwise each card scores
    alone (card_value), except that a Diddly Half halves its partner, rounding up: 10/9 -> 5,
    8/7 -> 4, 6/5 -> 3, 4/3 -> 2, 2/1 -> 1, Peek/Recycle -> 5 (the Half itself scores 0).
    Returns 0..COLUMN_MAX."""
    if top == bottom and card_value(top):
        return 0  # a match (Diddly cards score 0 anyway)
    if top == HALF:
        return (card_value(bottom) + 1) // 2
    if bottom == HALF:
        return (card_value(top) + 1) // 2
    return card_value(top) + card_value(bottom)


def check_copies(cards, already=None, what="this board"):
    """Raise GameError("bad_value") if canonical `cards`, added to `already` (a dict name ->
    copies already on the table, or None), hold more copies of a card than the deck has (COPIES).
    Returns the updated counts as a new dict. Cards are checked in CARDS order, so the error named
    is the same on every interpreter."""
    counts = {}
    if already:
        for name in already:
            counts[name] = already[name]
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    for card in CARDS:
        if counts.get(card, 0) > COPIES[card]:
            raise GameError(
                "bad_value",
                "impossible board: the deck has %d %s, %s would hold %d"
                % (COPIES[card], card, what, counts[card]),
            )
    return counts


def read_board(values, columns):
    """The canonical card names (list of str) of a board given on the wire: `values` a list of
    2 * `columns` cards (names or ints, see card_name). Raises GameError("bad_value") for a wrong
    card count, an unknown card, or more copies of a card than the deck holds."""
    if not isinstance(values, list):
        raise GameError("bad_value", "a board is a list of cards")
    need = 2 * columns
    if len(values) != need:
        raise GameError(
            "bad_value",
            "a %d-column board has %d cards (2 per column, top then bottom); got %d"
            % (columns, need, len(values)),
        )
    cards = [card_name(v, i + 1) for i, v in enumerate(values)]
    check_copies(cards)
    return cards


def score_board(cards, columns):
    """(total points, [points of column 1, column 2, ...]) of a board of 2 * `columns` canonical
    cards, columns being consecutive pairs (rulebook "Scoring"). Raises GameError("bad_value") for
    an impossible board (see read_board)."""
    cards = read_board(list(cards), columns)
    points = [column_score(cards[2 * c], cards[2 * c + 1]) for c in range(columns)]
    return sum(points), points


def compare(rounds_a, rounds_b):
    """-1 if a player with round scores `rounds_a` (list of int points) ranks before one with
    `rounds_b`, 1 if after, 0 if they share the place (rulebook "End of the Game"; house reading
    "diddly"): the lower total first; equal totals compare the rounds sorted from lowest, the first
    difference decides (the lower single-round score wins); identical lists share. Lists of
    unequal length (a game ended early) are compared over their common length."""
    total_a = sum(rounds_a)
    total_b = sum(rounds_b)
    if total_a != total_b:
        return -1 if total_a < total_b else 1
    a = sorted(rounds_a)
    b = sorted(rounds_b)
    for i in range(min(len(a), len(b))):
        if a[i] != b[i]:
            return -1 if a[i] < b[i] else 1
    return 0


def rank(rounds):
    """[(place, player 1-based, total)] from `rounds`, one list of round scores per player (P1
    first): place = 1 + the number of players who rank strictly before (compare), so tied players
    share a place and the next place is skipped; listed by place, then player."""
    places = []
    for p in range(len(rounds)):
        before = 0
        for q in range(len(rounds)):
            if q != p and compare(rounds[q], rounds[p]) < 0:
                before += 1
        places.append((before + 1, p + 1, sum(rounds[p])))
    places.sort()
    return places
