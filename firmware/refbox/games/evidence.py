"""Evidence: being built (see docs/games.md). Starting it answers with an error until it lands."""

from refbox.games.base import Game, GameError


class Evidence(Game):
    name = "evidence"

    def reset(self):
        raise GameError("not_built", "Evidence is not built yet")
