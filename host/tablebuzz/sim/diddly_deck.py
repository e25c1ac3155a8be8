"""A Diddly deck for tests and the simulator, and generators of random legal boards (CPython).

The deck is the house reading's (shared/rules/README.md section "diddly"; rulebook
shared/rules/003_805fe10dc7c48be8.txt "What's in the Box"): number cards 1-10 x8, Diddly x8,
Diddly Swap x4, Diddly Half x4, Peek x4, Recycle x4 (104 cards). Card names are the firmware's
wire names (docs/games/diddly.md): "1".."10", "DIDDLY", "SWAP", "HALF", "PEEK", "RECYCLE".
Written independently of the firmware's engine, so tests can hold one against the other.

Every generator takes a `random.Random` and returns boards as lists of card names, columns being
consecutive pairs (cards 1-2 are column 1, ...).
"""

import random
from collections import Counter

NUMBER_CARDS = [str(n) for n in range(1, 11)]
DECK_COPIES = {name: 8 for name in NUMBER_CARDS}
DECK_COPIES.update({"DIDDLY": 8, "SWAP": 4, "HALF": 4, "PEEK": 4, "RECYCLE": 4})
CARD_NAMES = sorted(DECK_COPIES)


def new_deck():
    """The 104 card names of a full deck, in a fixed order."""
    return [name for name in CARD_NAMES for _ in range(DECK_COPIES[name])]


def deal_round(rng: random.Random, players: int, columns: int = 3) -> list[list[str]]:
    """One round's boards (one per player, 2 * columns cards each) dealt from one shuffled deck:
    together they never hold more copies of a card than the deck has."""
    deck = new_deck()
    rng.shuffle(deck)
    size = 2 * columns
    return [deck[i * size : (i + 1) * size] for i in range(players)]


def random_legal_board(rng: random.Random, columns: int = 3) -> list[str]:
    """A random board of 2 * columns cards a real deck can deal."""
    return deal_round(rng, 1, columns)[0]


# Column recipes by points, written from the house reading's scoring list: (top, bottom) pairs.
def _column_recipes() -> dict[int, list[tuple[str, str]]]:
    recipes: dict[int, list[tuple[str, str]]] = {v: [] for v in range(21)}
    tens = ["PEEK", "RECYCLE"]
    diddlies = ["DIDDLY", "SWAP", "HALF"]
    for name in NUMBER_CARDS + tens:
        recipes[0].append((name, name))  # a match
    for a in diddlies:
        for b in diddlies:
            recipes[0].append((a, b))  # Diddly cards score nothing (Half halves 0)
    for n in range(1, 11):
        for d in ("DIDDLY", "SWAP"):
            recipes[n].append((str(n), d))
        recipes[(n + 1) // 2].append((str(n), "HALF"))  # the Half table: 10/9 -> 5 ... 2/1 -> 1
    for t in tens:
        for d in ("DIDDLY", "SWAP"):
            recipes[10].append((t, d))
        recipes[5].append((t, "HALF"))
        for n in range(1, 11):
            recipes[n + 10].append((str(n), t))
    recipes[20].append(("PEEK", "RECYCLE"))
    for a in range(1, 11):
        for b in range(1, 11):
            if a != b:
                recipes[a + b].append((str(a), str(b)))
    return recipes


COLUMN_RECIPES = _column_recipes()


def board_with_score(
    rng: random.Random, columns: int, target: int, used: Counter | None = None
) -> list[str]:
    """A random legal board of `columns` columns scoring `target` points (0..20 * columns), whose
    cards together with `used` (a Counter of cards already on this round's boards, updated in
    place) stay within the deck. Raises ValueError when no such board is found."""
    if not 0 <= target <= 20 * columns:
        raise ValueError("a %d-column board scores 0..%d" % (columns, 20 * columns))
    used = Counter() if used is None else used
    for _ in range(2000):
        # split the target into column points 0..20 at random
        left = target
        parts = []
        for c in range(columns):
            rest = columns - c - 1
            low, high = max(0, left - 20 * rest), min(20, left)
            part = rng.randint(low, high)
            parts.append(part)
            left -= part
        board: list[str] = []
        counts = Counter(used)
        for part in parts:
            top, bottom = rng.choice(COLUMN_RECIPES[part])
            if rng.random() < 0.5:
                top, bottom = bottom, top
            board += [top, bottom]
            counts[top] += 1
            counts[bottom] += 1
        if all(counts[name] <= DECK_COPIES[name] for name in counts):
            used.update(board)
            return board
    raise ValueError("no legal %d-column board scoring %d found" % (columns, target))
