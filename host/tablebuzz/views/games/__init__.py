"""Each game's part of the room's view, one module a game: `blank(players, size)` (its view
before the first event, of the firmware's sizes: describe.layout) and `FOLD` (event name ->
f(table, the game dict, the event); "game" and "state" are its part of those events). The parts
every game shares are tablebuzz.views.race and tablebuzz.views.scores."""

from tablebuzz.views.games import deglingo, diddly, difference, evidence, quiz, redblack

GAMES = {
    "quiz": quiz,
    "difference": difference,
    "deglingo": deglingo,
    "redblack": redblack,
    "diddly": diddly,
    "evidence": evidence,
}
