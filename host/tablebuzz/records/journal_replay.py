"""A journal file (pulled off the board with `tablebuzz pull`) turned back into the game's events.

The firmware's own referee folds the journal's log entry by entry, exactly as the board decided
them, and every protocol event it emits is kept: the `game` line (with the commitment), scores,
judgements, prompts, lockouts after wrong answers, the `game_over` with its ranking and seed. What
the journal never held is not invented: presses and race margins (a `win` entry says who won,
not by how much) and decisions taken back by an undo before the save (the log holds what stands).
For those, replay a saved protocol log instead. A long game's journal holds its log from its last
checkpoint on: the replay starts there, with the scores then. See docs/architecture.md "The
journal".
"""

from refbox import journal, pinmap
from refbox.protocol import encode_event
from refbox.referee import Referee


class JournalError(ValueError):
    """The file is no journal this firmware can replay (the message says why)."""


def journal_events(data):
    """The protocol event lines (str) of the game in journal bytes `data`.

    Raises JournalError for a file that holds no game, another format version, or a log this
    firmware cannot fold. A torn tail is ignored (the last whole record wins, as at boot)."""
    saved, whole, status = journal.read(data)
    if status == "version":
        raise JournalError("not a tablebuzz journal of format version %d" % journal.VERSION)
    if saved.game is None:
        raise JournalError("the journal holds no game")
    lines = []

    def emit(name, fields=()):
        lines.append(encode_event(name, fields))

    referee = Referee(pinmap.PLAYER_COUNT, emit, lambda freq, ms: None, lambda: saved.seed, tuple)
    try:
        referee.new_game(saved.game, saved.players, saved.options)
        if saved.base is not None:  # a long game: its log from its checkpoint on (the state
            game = referee.game  # before it folded: docs/architecture.md "Checkpoints")
            game.base, game.base_len = saved.base, saved.base_len
            game.restart()
            emit(*game.score_event())
        for entry in saved.log:
            referee.record(entry)
        if saved.over and referee.game.phase != "over":
            referee.open_menu()  # abandoned: the game_over line says so, with the seed
    except Exception as e:  # a hand-made log the game refuses: say which, never a traceback
        raise JournalError("the log cannot be folded (%s: %s)" % (type(e).__name__, e)) from None
    lines = [line for line in lines if not line.startswith('{"ev":"menu"')]
    return lines


def journal_torn(data):
    """True if journal bytes `data` end in a record that is not whole (cut short, edited)."""
    return journal.read(data)[2] == "torn"
