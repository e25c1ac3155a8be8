"""`tablebuzz`: the command line. Subcommands: sim, flash, pull, monitor, show, tui, replay,
export, pinmap.

User mistakes (a bad option, a malformed timeline, no board) print one clear line and exit
non-zero; no traceback.
"""

import argparse
import json
import os
import sys
import unicodedata
from importlib.metadata import PackageNotFoundError, version

from tablebuzz import simulate
from tablebuzz.timeline import TimelineError, parse, read_setup

BOUNCE = ("typical", "none", "worn")
try:
    __version__ = version("tablebuzz")
except PackageNotFoundError:  # pragma: no cover - run from a source tree without installing
    __version__ = "unknown"


def _seed(text):
    simulate._ensure_paths()
    from refbox.prng import seed_from_hex

    try:
        seed_from_hex(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text.lower()


def _options(text):
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
    simulate._ensure_paths()
    from refbox.games import TITLES

    def key(value):
        letters = unicodedata.normalize("NFKD", value.casefold())
        return "".join(ch for ch in letters if ch.isalnum())

    wanted = key(text)
    for name, title in TITLES:
        if wanted in (key(name), key(title)):
            return name
    return None


def _version():
    simulate._ensure_paths()
    from refbox import FIRMWARE_VERSION, PROTOCOL_VERSION

    return "tablebuzz %s (firmware %s, protocol %d)" % (
        __version__,
        FIRMWARE_VERSION,
        PROTOCOL_VERSION,
    )


def build_parser():
    parser = argparse.ArgumentParser(
        prog="tablebuzz", description="tablebuzz referee box: host tools"
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("sim", help="run the firmware in the simulator")
    _simulation_args(sim)
    sim.add_argument("--interpreter", choices=simulate.INTERPRETERS, default="cpython")
    sim.add_argument(
        "--board",
        choices=simulate.BOARDS,
        default=None,
        help="the board module: refbox.board (micropython) or refbox.board_cp (circuitpython; "
        "the default with --interpreter circuitpython)",
    )
    sim.add_argument("--capture", choices=("pio", "irq"), default="pio", help="press capture path")
    sim.add_argument("--pixels", choices=("pio", "cpu"), default="pio", help="NeoPixel driver")
    sim.add_argument("--bounce", choices=BOUNCE, default="typical", help="contact bounce profile")
    sim.add_argument(
        "--ticks-start",
        type=int,
        default=0,
        metavar="US",
        help="ticks_us() at the start of the run (0..2**30-1), to cross the wrap early",
    )
    sim.add_argument("--pretty", action="store_true", help="a human-readable log instead of JSON")
    sim.add_argument(
        "--display",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="attach the optional SSD1306 display on I2C (default: on screen yes, for --script "
        "the set-up line's, else no)",
    )
    sim.add_argument(
        "--save",
        metavar="FILE",
        help="interactive: write the session as a timeline to FILE on quitting (key w: now)",
    )
    sim.add_argument(
        "--stamp", action="store_true", help="prefix each event with its simulated µs"
    )

    flash = sub.add_parser(
        "flash", help="compile firmware/ with mpy-cross and copy it to the board"
    )
    flash.add_argument(
        "--port", default=os.environ.get("PORT") or None, help="serial port (default: auto)"
    )
    flash.add_argument(
        "--dry-run", action="store_true", help="build only; show what would be copied"
    )
    flash.add_argument(
        "--circuitpython",
        action="store_true",
        help="a Pico running CircuitPython: copy the firmware to its CIRCUITPY drive and the "
        "Adafruit libraries with circup (docs/flashing.md)",
    )
    flash.add_argument(
        "--drive", metavar="PATH", help="--circuitpython: the CIRCUITPY drive (default: found)"
    )
    flash.add_argument(
        "--no-circup",
        action="store_true",
        help="--circuitpython: put the pinned library copies of this environment in lib/ "
        "without asking circup (offline)",
    )
    flash.add_argument(
        "--ssd1306",
        metavar="PATH",
        help="the display driver to copy if the board has none (micropython-lib's ssd1306.py; "
        "default: mpremote mip install ssd1306, which needs the internet)",
    )
    flash.add_argument(
        "--usb-keyboard",
        metavar="KEYS",
        help="USB keyboard mode: a race's winner types their key (docs/usb-keyboard.md). KEYS: "
        "default (station k types k), 1=A,2=B,3=LEFT_SHIFT+C, or off; installs micropython-lib's "
        "usb-device-keyboard with mip (needs the internet)",
    )

    pull = sub.add_parser(
        "pull", help="copy the board's journal (the game it keeps across power cuts) off it"
    )
    pull.add_argument(
        "--port", default=os.environ.get("PORT") or None, help="serial port (default: auto)"
    )
    pull.add_argument("--to", default=".", metavar="DIR", help="folder to copy into (default: .)")

    mon = sub.add_parser(
        "monitor", help="print a connected board's events; commands typed on stdin are sent"
    )
    mon.add_argument(
        "--port", default=os.environ.get("PORT") or None, help="serial port (default: auto)"
    )
    mon.add_argument("--pretty", action="store_true", help="readable sentences instead of JSON")

    show = sub.add_parser(
        "show", help="the scoreboard and the host's desk in a browser (a board, or --sim)"
    )
    show.add_argument(
        "--http", default="127.0.0.1:8765", metavar="HOST:PORT",
        help="where to serve the pages (default 127.0.0.1:8765; 0.0.0.0:8765 for phones)",
    )
    show.add_argument(
        "--port", default=os.environ.get("PORT") or None,
        help="the board's serial port (default: found by USB vendor id)",
    )
    show.add_argument("--sim", action="store_true", help="the simulator instead of a board")
    show.add_argument("--packet", metavar="FILE",
                      help="a quizbowl packet (MODAQ's JSON) for the desk: the reader's tossups, "
                           "power marks, answers and bonuses")
    _simulation_args(show)
    show.add_argument(
        "--speed", type=float, default=1.0, metavar="X",
        help="--sim only: run the simulated clock X times faster (a long timeline in a demo)",
    )
    show.add_argument("--records", metavar="DIR", help="where the game records go")
    show.add_argument("--no-records", action="store_true", help="keep no records")
    from tablebuzz.rooms.command import add_broker_options, add_show_options

    add_show_options(show)

    hub = sub.add_parser(
        "hub", help="the tournament director's page over every room on an MQTT broker"
    )
    hub.add_argument(
        "--http", default="127.0.0.1:8780", metavar="HOST:PORT",
        help="where to serve the director's page (default 127.0.0.1:8780)",
    )
    add_broker_options(hub)
    hub.add_argument(
        "--listen", metavar="HOST:PORT",
        help="without --mqtt: the embedded broker listens here (default 127.0.0.1:1883)",
    )
    hub.add_argument("--name", default="director", help="the hub's session name at the broker")

    tui = sub.add_parser(
        "tui", help="the terminal screen on a board (--port, or found by USB id) or --sim"
    )
    tui.add_argument(
        "--port", default=os.environ.get("PORT") or None, help="serial port (default: auto)"
    )
    tui.add_argument("--sim", action="store_true", help="the simulator (as tablebuzz sim)")
    _simulation_args(tui)

    replay = sub.add_parser("replay", help="print a saved game, or play it on the scoreboard")
    replay.add_argument(
        "file", metavar="FILE", help="a game record (.jsonl), or a journal from tablebuzz pull"
    )
    replay.add_argument("--show", action="store_true", help="play it on the scoreboard")
    replay.add_argument("--speed", type=float, default=1.0, help="playback speed (--show)")
    replay.add_argument("--http", default="127.0.0.1:8765", metavar="HOST:PORT")
    replay.add_argument("--json", action="store_true", help="print the protocol lines as JSON")
    replay.add_argument("--photos", metavar="DIR",
                        help="write the photo finish of every race won by < 10 ms (SVG) here")

    export = sub.add_parser("export", help="a CSV of the games in the records (one row a game)")
    export.add_argument("--records", metavar="DIR", help="records folder (default: see docs)")
    export.add_argument("--date", metavar="YYYY-MM-DD", help="one night only")
    export.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    export.add_argument("--format", choices=("csv", "qbj"), default="csv",
                        help="csv: one row a game (default); qbj: the quiz games as quizbowl "
                             "Matches (QBJ, as MODAQ writes and stats tools read)")

    sub.add_parser("pinmap", help="regenerate firmware/refbox/pinmap.py from hardware/pinmap.json")
    return parser


def _simulation_args(sim):
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
        "--seed", type=_seed, help="hex seed for the simulated chip (default: random)"
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
        type=_options,
        default=None,
        help="game options as a JSON object (default: the timeline's set-up line, else none)",
    )


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        if args.command == "sim":
            return cmd_sim(args)
        if args.command == "flash" and args.circuitpython:
            from tablebuzz.flash_cp import cmd_flash as cmd_flash_cp

            return cmd_flash_cp(args)
        if args.command == "flash":
            if args.drive or args.no_circup:
                return _fail("--drive and --no-circup go with --circuitpython")
            from tablebuzz.flash import cmd_flash

            return cmd_flash(args)
        if args.command == "pull":
            from tablebuzz.pull import cmd_pull

            return cmd_pull(args)
        if args.command == "monitor":
            from tablebuzz.monitor import cmd_monitor

            return cmd_monitor(args)
        if args.command == "hub":
            from tablebuzz.rooms.command import cmd_hub

            return cmd_hub(args)
        if args.command == "show":
            from tablebuzz.show.command import cmd_show

            return cmd_show(args)
        if args.command == "tui":
            if not sys.stdout.isatty():
                return _fail("the screen needs a terminal; use tablebuzz monitor")
            from tablebuzz import tui

            if not args.sim:
                if args.script or args.seed or args.game or args.players or args.options:
                    return _fail("--script, --seed, --game, --players, --options are for --sim")
                return tui.run_board(args.port)
            if args.script:
                return _fail("tui --sim is interactive; play a timeline with tablebuzz sim "
                             "--script or tablebuzz show --sim --script")
            try:
                header, _, seed = simulation_setup(args, True)
            except CommandLineError as e:
                return _fail(str(e))
            status, saved = tui.run(header)
            _tell_seed(args, seed, saved, interactive=True)
            return status
        if args.command == "replay":
            from tablebuzz.show.command import cmd_replay

            return cmd_replay(args)
        if args.command == "export":
            from tablebuzz.show.command import cmd_export

            return cmd_export(args)
        if args.command == "pinmap":
            from tablebuzz import pinmap_gen

            return pinmap_gen.main([])
    except KeyboardInterrupt:
        return 130
    return 2


def _fail(message):
    print("tablebuzz: " + message, file=sys.stderr)
    return 2


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
        "capture": getattr(args, "capture", "pio"),
        "pixels": getattr(args, "pixels", "pio"),
        "bounce": getattr(args, "bounce", "typical"),
        "ticks_origin_us": getattr(args, "ticks_start", 0),
        "display": _wants_display(args),
    }


def _tell_seed(args, seed, saved=None, interactive=False):
    if saved:
        print(
            "tablebuzz: session saved to %s; replay it: tablebuzz sim --script %s"
            % (saved, saved),
            file=sys.stderr,
        )
    elif args.seed is None and interactive:
        print(
            "tablebuzz: simulated chip seed %s (to replay a session, save it: key w, or --save "
            "FILE, then tablebuzz sim --script FILE)" % seed,
            file=sys.stderr,
        )
    elif args.seed is None:
        print("tablebuzz: simulated chip seed %s (replay with --seed)" % seed, file=sys.stderr)


class CommandLineError(Exception):
    """A command-line mistake: the message is printed as one line."""


def simulation_setup(args, interactive):
    """(header, timeline text, seed) for the simulator from the command line and the timeline's
    set-up line. Raises CommandLineError with the message for the user. Used by `sim` and
    `show --sim`."""
    simulate._ensure_paths()
    from refbox import pinmap
    from refbox.games import GAME_ORDER, game_class, is_game
    from refbox.games.base import GameError, parse_options

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
                args.given_seed = _seed(setup["seed"])
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
    from refbox import pinmap

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


def cmd_sim(args):
    interactive = args.script is None
    try:
        header, text, seed = simulation_setup(args, interactive)
        records = None if interactive else timeline_records(args, text, header["players"])
    except CommandLineError as e:
        return _fail(str(e))
    if interactive:
        if args.interpreter != "cpython":
            return _fail("the interactive simulator runs on CPython; use --script for MicroPython")
        if not sys.stdout.isatty():
            return _fail("the interactive simulator needs a terminal; use --script FILE")
        from tablebuzz import tui

        status, saved = tui.run(header, save=args.save)
        _tell_seed(args, seed, saved, interactive=True)
        return status
    give_flash(args, header, records)
    board = args.board or ("circuitpython" if args.interpreter == "circuitpython" else None)
    if board is not None:
        header["board"] = board
    try:
        lines = simulate.run(header, records, args.interpreter)
    except simulate.SimError as e:
        return _fail(str(e))
    _tell_seed(args, seed)
    try:
        _print_lines(args, lines, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has gone; stop quietly, as cat does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush must not fail too
    return 0


def _print_lines(args, lines, out):
    if args.pretty:
        from tablebuzz.eventlog import Narrator

        narrator = Narrator()
        for ns, line in lines:
            try:
                text = narrator.line(json.loads(line))
            except ValueError:
                text = "console: " + line  # not a protocol line (e.g. the REPL after Ctrl-C)
            out.write("%12.3f ms  %s\n" % (ns / 1e6, text))
    else:
        for ns, line in lines:
            out.write(("%d.%03d " % (ns // 1000, ns % 1000) if args.stamp else "") + line + "\n")


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


if __name__ == "__main__":
    sys.exit(main())
