"""Each game's part of the room's view, one module a game: `blank(players, size)` (its view
before the first event, of the firmware's sizes: describe.layout) and `FOLD` (event name ->
f(table, the game dict, the event); "game", "state" and "undo" are its part of those events) and
`WORDS` (event name -> f(narrator, the event): the log's sentence of each of its own events,
tablebuzz.views.eventlog). The parts every game shares are tablebuzz.views.race,
tablebuzz.views.scores and tablebuzz.views.eventlog's `Narrator.WORDS`."""

from tablebuzz.views.games import deglingo, diddly, difference, evidence, quiz, redblack

GAMES = {
    "quiz": quiz,
    "difference": difference,
    "deglingo": deglingo,
    "redblack": redblack,
    "diddly": diddly,
    "evidence": evidence,
}
