"""The registry of games the device can play: name -> class (see docs/games.md)."""

from refbox.games.deglingo import Deglingo
from refbox.games.diddly import Diddly
from refbox.games.difference import Difference
from refbox.games.evidence import Evidence
from refbox.games.quiz import Quiz
from refbox.games.redblack import RedBlack

GAMES = {
    "quiz": Quiz,
    "difference": Difference,
    "deglingo": Deglingo,
    "redblack": RedBlack,
    "diddly": Diddly,
    "evidence": Evidence,
}
GAME_ORDER = ("quiz", "difference", "deglingo", "redblack", "diddly", "evidence")  # menu order
