"""The simulator's set-up from the command line, shared by `tablebuzz sim`, `tui --sim` and
`show --sim` (and the benches that start a simulation as they do): the set-up flags
(`add_simulation_args`), and the flags with a timeline's set-up line made into the simulation
header (`simulation_setup`; the header's shape: tablebuzz.sim.runner), its records
(`timeline_records`) and its flash (`give_flash`).

A mistake (an unknown game, bad options, an unreadable timeline) raises `CommandLineError`, whose
text is one line for the user; the commands print it and exit 2.
"""

import argparse
import json
import os
import sys
import unicodedata

from refbox import pinmap
from refbox.games import GAME_ORDER, TITLES, game_class, is_game
from refbox.games.base import GameError, parse_options
from refbox.prng import seed_from_hex

from tablebuzz.sim.timeline import TimelineError, parse, read_setup


class CommandLineError(Exception):
    """A command-line mistake: the message is printed as one line."""


def seed_arg(text):
    try:
        seed_from_hex(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text.lower()


def options_arg(text):
    try:
        value = json.loads(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            "options are a JSON object, e.g. '{\"false_start\": 500}'"
        ) from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("options are a JSON object")
    return value


def game_name(text):
    """The firmware's name for a game as people write it: "Red or Black", "red-black", "Déglingo",
    "DEGLINGO" -> "redblack", "deglingo" (case, accents, spaces and punctuation do not matter).
    Returns None for no game."""
    def key(value):
        letters = unicodedata.normalize("NFKD", value.casefold())
        return "".join(ch for ch in letters if ch.isalnum())

    wanted = key(text)
    for name, title in TITLES:
        if wanted in (key(name), key(title)):
            return name
    return None


def add_simulation_args(sim):
    """The simulator's set-up flags, shared by `sim` and `show --sim`."""
    sim.add_argument(
        "--flash",
        action="store_true",
        help="give the board a simulated littlefs: the journal is kept and power cuts resume "
        '(on by itself when the timeline has "power" lines)',
    )
    sim.add_argument(
        "--script", metavar="FILE", help="JSON-lines timeline to play ('-' for stdin)"
    )
    sim.add_argument(
        "--seed", type=seed_arg, help="hex seed for the simulated chip (default: random)"
    )
    sim.add_argument(
        "--game",
        default=None,
        help="game to start: quiz, difference, deglingo (Déglingo), redblack (Red or Black), "
        "diddly, evidence, or menu (the set-up menu, as at power-up); any case, accents "
        "optional (default: the timeline's set-up line, else quiz for --script; the menu on "
        "screen)",
    )
    sim.add_argument(
        "--players",
        type=int,
        default=None,
        help="players (default: the timeline's set-up line, else every station)",
    )
    sim.add_argument(
        "--options",
        type=options_arg,
        default=None,
        help="game options as a JSON object (default: the timeline's set-up line, else none)",
    )


def _wants_display(args):
    """--display / --no-display, else the simulated SSD1306 on the interactive screen only."""
    display = getattr(args, "display", None)
    if display is None:
        return getattr(args, "command", None) == "sim" and getattr(args, "script", None) is None
    return bool(display)


def _header(args, players, seed):
    """The simulation header (see tablebuzz.sim.runner) from the command line."""
    return {
        "seed": seed,
        "game": args.game,
        "players": players,
        "options": args.options or {},
        "pixels": getattr(args, "pixels", "pio"),
        "bounce": getattr(args, "bounce", "typical"),
        "ticks_origin_us": getattr(args, "ticks_start", 0),
        "display": _wants_display(args),
    }


def simulation_setup(args, interactive):
    """(header, timeline text, seed) for the simulator from the command line and the timeline's
    set-up line. Raises CommandLineError with the message for the user. Used by `sim` and
    `show --sim`."""
    text = ""
    setup = {}  # the timeline's set-up line: what the flags do not say
    if not interactive:
        if getattr(args, "save", None):
            raise CommandLineError("--save is for the interactive simulator (without --script)")
        try:
            text = _read_script(args.script)
            setup = read_setup(text)
        except (OSError, UnicodeDecodeError, TimelineError) as e:
            raise CommandLineError(_script_error(args.script, e)) from None
        if args.game is None:
            args.game = setup.get("game", "quiz")
        if args.players is None:
            args.players = setup.get("players")
        if args.options is None:
            args.options = setup.get("options", {})
        if getattr(args, "display", None) is None:
            args.display = setup.get("display", False)
        if args.seed is None and "seed" in setup:
            try:
                args.given_seed = seed_arg(setup["seed"])
            except argparse.ArgumentTypeError as e:
                raise CommandLineError("%s: set-up seed: %s" % (args.script, e)) from None
    if args.game is not None and args.game.strip().lower() == "menu":
        args.game = None  # the set-up menu, as at power-up
    elif args.game is not None:
        name = game_name(args.game)
        if name is None or not is_game(name):
            raise CommandLineError(
                "unknown game %r (games: %s)" % (args.game, ", ".join(GAME_ORDER))
            )
        args.game = name
    high = pinmap.PLAYER_COUNT
    if args.game is not None:
        cls = game_class(args.game)
        high = min(cls.max_players, pinmap.PLAYER_COUNT)
        try:
            parse_options(cls.OPTIONS, args.options or {})
        except GameError as e:
            raise CommandLineError("--options: %s" % e.detail) from None
        low = cls.min_players
    else:
        low = 2
    players = args.players if args.players is not None else high
    if not low <= players <= high:
        raise CommandLineError("--players must be %d..%d here" % (low, high))
    if not 0 <= getattr(args, "ticks_start", 0) < 1 << 30:
        raise CommandLineError("--ticks-start must be 0..2**30-1")
    # The simulated chip's seed decides every game's seed: it is told only after the run, so a
    # dealer game in the simulator cannot be read ahead from it.
    seed = args.seed or getattr(args, "given_seed", None) or os.urandom(16).hex()
    if getattr(args, "given_seed", None):
        args.seed = seed  # from the set-up line: nothing to tell
    return _header(args, players, seed), text, seed


def timeline_records(args, text, players):
    """The normalized records of a timeline text. Raises CommandLineError naming the line."""
    try:
        return parse(text, players, [name for name, _ in pinmap.CONTROLS])
    except TimelineError as e:
        raise CommandLineError("%s: %s" % (args.script, e)) from None


def give_flash(args, header, records):
    """Give the simulated board a littlefs (header "flash") when --flash asks for one or the
    timeline cuts the power: without a flash a power cut loses the game. Used by `sim` and
    `show --sim`, so that both resume after a `power` line."""
    if getattr(args, "flash", False) or any(rec["k"] == "power" for rec in records or ()):
        header["flash"] = {}


def _read_script(path):
    """The timeline text of `path` ('-' = stdin). Raises OSError, UnicodeDecodeError."""
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def _script_error(path, error):
    if isinstance(error, OSError):
        return "cannot read %s: %s" % (path, error.strerror)
    if isinstance(error, UnicodeDecodeError):
        return "%s is not UTF-8 text" % path
    return "%s: %s" % (path, error)
