"""Diddly: being built (see docs/games.md). Starting it answers with an error until it lands."""

from refbox.games.base import Game, GameError


class Diddly(Game):
    name = "diddly"

    def reset(self):
        raise GameError("not_built", "Diddly is not built yet")
