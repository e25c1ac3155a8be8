"""The games the device can play, loaded on demand (see docs/games.md).

A Pico has about 200 KB of heap, and the six games' code would take a good part of it, so only the
game being set up or played is imported: the catalogue knows names and player counts without
loading anything, `game_class(name)` imports one game, and on the board `release_others(name)`
lets the others' code be collected, unless it is frozen into the firmware (release_others).
"""

import gc
import sys

from refbox.compat import const

# (name, module, class, fewest players, most players): the menu's order; a row's slots by name
_NAME = const(0)
_FEWEST = const(3)
_MOST = const(4)
CATALOG = (
    ("quiz", "refbox.games.quiz", "Quiz", 2, 8),
    ("difference", "refbox.games.difference", "Difference", 2, 6),
    ("deglingo", "refbox.games.deglingo", "Deglingo", 2, 6),
    ("redblack", "refbox.games.redblack", "RedBlack", 2, 6),
    ("diddly", "refbox.games.diddly", "Diddly", 2, 6),
    ("evidence", "refbox.games.evidence", "Evidence", 2, 6),
)
# MicroPython names a frozen module's __file__ after its .py source and a module loaded from the
# filesystem after its .mpy file (py/builtinimport.c): the game modules' code is then in flash
# (`make firmware`), and keeping one imported costs only its functions' and classes' objects
_FROZEN = sys.implementation.name == "micropython" and __file__.endswith(".py")
GAME_ORDER = tuple([name for name, _, _, _, _ in CATALOG])
# the names people read (README's game table), ASCII for the display's 8x8 font
TITLES = (
    ("quiz", "Quiz"),
    ("difference", "Difference"),
    ("deglingo", "Deglingo"),
    ("redblack", "Red or Black"),
    ("diddly", "Diddly"),
    ("evidence", "Evidence"),
)


def title(name):
    """The name people read for game `name` ("Red or Black"); `name` itself if it has none."""
    for key, text in TITLES:
        if key == name:
            return text
    return name


def _entry(name):
    """CATALOG's row of game `name`: (name, module, class, fewest, most). Raises KeyError."""
    for row in CATALOG:
        if row[_NAME] == name:
            return row
    raise KeyError(name)


def is_game(name):
    return name in GAME_ORDER


def player_range(name):
    """(fewest, most) players of game `name`, without loading it. Raises KeyError."""
    row = _entry(name)
    return row[_FEWEST], row[_MOST]


def game_class(name):
    """The class of game `name`, its module imported now. Raises KeyError for an unknown name,
    GameError `no_memory` when the heap cannot hold the module even after the other games'
    modules are released and the garbage collected (on a CircuitPython Pico, a fifth change of
    game in a row ran out so: the game in play and the next one's module were both in RAM);
    Referee.new_game then lets the game in play go and asks again."""
    _, module, cls, _, _ = _entry(name)
    for retry in (False, True):
        if retry:  # a game module no game uses any longer goes now, not after
            release_others(name, True)
            gc.collect()
        try:
            return getattr(__import__(module, None, None, (cls,)), cls)
        except MemoryError:
            pass  # out of the except clause: the traceback's memory goes with it
    gc.collect()  # what the failed import took: the refusal's own line must fit
    raise no_room(name)


def no_room(name):
    """The GameError `no_memory` refusing game `name` (its module or the game itself does not
    fit in the heap)."""
    from refbox.games.base import GameError

    return GameError("no_memory", "no room in the heap for %s" % name)


def needs_warming():
    """True on MicroPython (both builds): warm() each game once after power-up. Not on CPython
    or CircuitPython."""
    return sys.implementation.name == "micropython"


def warm(name, keep):
    """Import game `name`'s module once and encode its `game` event's options (the defaults:
    every value given has the same keys in the same order) once, then let every game module but
    game `keep`'s go again where modules are let go ("" keeps none: release_others).

    Why, on stock MicroPython (`make flash`): it interns the names of a module loaded from a
    .mpy file into its qstr pools, which are never freed and grow by doubling, each time into
    one new block (v1.28.0 py/qstr.c `qstr_add`: a pool of 1,280 names is one 7,692-byte block;
    its MemoryError says "allocating 1280 bytes", the count of names). On the emulated stock
    RP2040, after two games had been played, the heap had 72 KB free in pieces of at most 3.5 KB
    and the next game's import failed allocating such a pool even with the game in play let go,
    and so did a start from the menu; with every game's module imported once at power-up every
    change of game fitted. On the image (`make firmware`) the module is kept (release_others)
    and its options' JSON shape too (refbox.protocol's dict shapes): a game's first `new_game`
    -> `game` after power-up made both, 8-13 ms more than the next ones at 200 MHz on the
    emulated chip (the quiz 60 ms, then 46-47). Stock does not encode the shape: with it
    (474c556..81e6c2b) the heap's layout at the warming left the 640-name pool full and no
    7.7 KB in one piece (5.9 KB at most) for the next, so the first name a `new_game` interned
    raised MemoryError, and the emulated stock board answered no command after power-up (pools
    read from the emulated RAM: docs/architecture.md "Memory"). Raises GameError
    `no_memory` (game_class)."""
    cls = game_class(name)
    if _FROZEN:  # (not on stock: there the board no longer answered after power-up, below)
        from refbox.games.base import parse_options
        from refbox.protocol import encode_value

        encode_value(parse_options(cls.OPTIONS, {}))  # (nothing sent: its shape kept)
    release_others(keep, not _FROZEN)


def release_others(keep, force=False):
    """On the board, forget every game module but game `keep`'s (and its helpers: "" keeps
    none) so the GC can free their code.

    Not when their code is frozen into the firmware (_FROZEN: the tablebuzz image, ~190 KB of
    heap free with a game; also the unix port run from the .py sources), unless `force` (a
    module that found no room): importing one again cost 5-12 ms of `new_game` -> `game` at
    200 MHz on the emulated chip. Stock MicroPython (`make flash`: .mpy files, their bytecode in
    RAM, ~60 KB free) and the simulator's memory model (tablebuzz.sim.heap: .mpy) let them go.

    On both boards' interpreters, MicroPython and CircuitPython (on a CircuitPython Pico the
    games kept after each new_game ran its ~160 KB heap out by the fourth, emulated); not on
    CPython, whose test runs keep their classes (the same class object for the same game). The
    event streams do not depend on it either way.
    """
    if sys.implementation.name == "cpython":
        return
    if _FROZEN and not force:
        return  # (not imported again at the next change of game)
    package = sys.modules.get("refbox.games")
    kept = "-" if keep == "" else _entry(keep)[1]
    for module in [m for m in sys.modules if m.startswith("refbox.games.")]:
        # a game's own helpers (diddly_scoring) go and stay with it; the rules' base stays
        if module != "refbox.games.base" and not module.startswith(kept):
            del sys.modules[module]
            try:
                delattr(package, module.rsplit(".", 1)[1])
            except (AttributeError, TypeError):
                pass
