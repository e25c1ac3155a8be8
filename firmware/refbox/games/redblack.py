"""Red or Black: being built (see docs/games.md). Starting it answers with an error until it lands."""

from refbox.games.base import Game, GameError


class RedBlack(Game):
    name = "redblack"

    def reset(self):
        raise GameError("not_built", "Red or Black is not built yet")
