"""The registry of games the device can play: name -> class (see refbox.games.base.Game)."""

from refbox.games.difference import Difference
from refbox.games.quiz import Quiz

GAMES = {
    "quiz": Quiz,
    "difference": Difference,
}
GAME_ORDER = ("quiz", "difference")  # the menu's order (dicts are unordered on MicroPython)
