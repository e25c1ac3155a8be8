"""Déglingo: being built (see docs/games.md). Starting it answers with an error until it lands."""

from refbox.games.base import Game, GameError


class Deglingo(Game):
    name = "deglingo"

    def reset(self):
        raise GameError("not_built", "Déglingo is not built yet")
