"""The registry of games the device can play: name -> class (see refbox.games.base.Game)."""

from refbox.games.quiz import Quiz

GAMES = {
    "quiz": Quiz,
}
