"""`tablebuzz`: the command line. Subcommands: sim, flash, pull, monitor, show, tui, replay,
export, pinmap.

User mistakes (a bad option, a malformed timeline, no board) print one clear line and exit
non-zero; no traceback.
"""

import argparse
import json
import os
import sys
from importlib.metadata import PackageNotFoundError, version

from refbox import FIRMWARE_VERSION, PROTOCOL_VERSION

from tablebuzz.sim import simulate
from tablebuzz.sim.set_up import (
    CommandLineError,
    add_simulation_args,
    give_flash,
    simulation_setup,
    timeline_records,
)

BOUNCE = ("typical", "none", "worn")
try:
    __version__ = version("tablebuzz")
except PackageNotFoundError:  # pragma: no cover - run from a source tree without installing
    __version__ = "unknown"


def _version():
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
    add_simulation_args(sim)
    sim.add_argument("--interpreter", choices=simulate.INTERPRETERS, default="cpython")
    sim.add_argument(
        "--board",
        choices=simulate.BOARDS,
        default=None,
        help="the board module: refbox.board (micropython) or refbox.board_cp (circuitpython; "
        "the default with --interpreter circuitpython)",
    )
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
    sim.add_argument(
        "--cpu-scale",
        type=float,
        default=1.0,
        metavar="X",
        help="the chip's CPU time times X (0.25: four times faster, 4: four times slower): the "
        "decisions must not change, only the lines' times (docs/architecture.md)",
    )
    sim.add_argument(
        "--flash-stall-scale",
        type=float,
        default=1.0,
        metavar="X",
        help="with --flash: every flash write's stall times X",
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
        "--pack",
        action="store_true",
        help="also put the modules in one file, refbox.pack: power-up ~150 ms shorter, every "
        "race line ~0.5 ms later on the emulated RP2040 (docs/flashing.md)",
    )
    flash.add_argument(
        "--frozen",
        action="store_true",
        help="the board runs the tablebuzz image with refbox frozen in (make firmware): copy "
        "main.py alone and remove refbox/ (docs/flashing.md)",
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
        "--mpy-cross",
        metavar="PATH",
        help="--circuitpython: CircuitPython's mpy-cross to compile refbox/ with (default: "
        ".venv/bin/mpy-cross-circuitpython, which `make circuitpython` builds, or on PATH)",
    )
    flash.add_argument(
        "--source",
        action="store_true",
        help="--circuitpython: copy refbox/ as .py instead of compiled .mpy (only for boards "
        "with more RAM than a Pico: compiling on import runs a Pico out of memory)",
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
        help="where to serve the pages (default 127.0.0.1:8765; 0.0.0.0:8765 for phones; "
             "port 0: any free port, printed)",
    )
    show.add_argument(
        "--port", default=os.environ.get("PORT") or None,
        help="the board's serial port (default: found by USB vendor id)",
    )
    show.add_argument(
        "--allow-host", action="append", metavar="NAME",
        help="a further host name the pages may be opened by (e.g. a DNS name of this "
             "computer); repeatable. Allowed already: the --http address, localhost, "
             "127.0.0.1, [::1], and this computer's addresses when serving on 0.0.0.0",
    )
    show.add_argument("--sim", action="store_true", help="the simulator instead of a board")
    show.add_argument("--packet", metavar="FILE",
                      help="a quizbowl packet (MODAQ's JSON) for the desk: the reader's tossups, "
                           "power marks, answers and bonuses")
    add_simulation_args(show)
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
        help="where to serve the director's page (default 127.0.0.1:8780; port 0: any free "
             "port, printed)",
    )
    add_broker_options(hub)
    hub.add_argument(
        "--listen", metavar="HOST:PORT",
        help="without --mqtt: the embedded broker listens here (default 127.0.0.1:1883)",
    )
    hub.add_argument(
        "--allow-host", action="append", metavar="NAME",
        help="a further host name the director's pages may be opened by; repeatable. Allowed "
             "already: the --http address, localhost, 127.0.0.1, [::1], and this computer's "
             "addresses when serving on 0.0.0.0 (docs/security.md)",
    )
    hub.add_argument("--name", default="director", help="the hub's session name at the broker")
    hub.add_argument("--store", metavar="FILE",
                     help="where the hub keeps what it received (SQLite; default: "
                          "hub/NAME.sqlite3 beside the records folder)")
    hub.add_argument("--join", nargs="+", metavar="ROOM",
                     help="print these rooms' join codes for the embedded broker, and exit")

    tui = sub.add_parser(
        "tui", help="the terminal screen on a board (--port, or found by USB id) or --sim"
    )
    tui.add_argument(
        "--port", default=os.environ.get("PORT") or None, help="serial port (default: auto)"
    )
    tui.add_argument("--sim", action="store_true", help="the simulator (as tablebuzz sim)")
    add_simulation_args(tui)

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
    export.add_argument("--format", choices=("csv", "qbj", "match"), default="csv",
                        help="csv: one row a game (default); qbj: the two-team quiz games as "
                             "quizbowl Matches of one QBJ file (YellowFruit imports it); match: "
                             "the last one as a lone Match (the file MODAQ imports)")

    sub.add_parser("pinmap", help="regenerate firmware/refbox/pinmap.py from hardware/pinmap.json")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        if args.command == "sim":
            return cmd_sim(args)
        if args.command == "flash" and args.circuitpython:
            from tablebuzz.link.flash_cp import cmd_flash as cmd_flash_cp

            return cmd_flash_cp(args)
        if args.command == "flash":
            if args.drive or args.no_circup or args.mpy_cross or args.source:
                return _fail(
                    "--drive, --no-circup, --mpy-cross and --source go with --circuitpython"
                )
            from tablebuzz.link.flash import cmd_flash

            return cmd_flash(args)
        if args.command == "pull":
            from tablebuzz.link.pull import cmd_pull

            return cmd_pull(args)
        if args.command == "monitor":
            from tablebuzz.views.monitor import cmd_monitor

            return cmd_monitor(args)
        if args.command == "hub":
            from tablebuzz.rooms.command import cmd_hub

            return cmd_hub(args)
        if args.command == "show":
            from tablebuzz.show_command import cmd_show

            return cmd_show(args)
        if args.command == "tui":
            if not sys.stdout.isatty():
                return _fail("the screen needs a terminal; use tablebuzz monitor")
            if not args.sim:
                if args.script or args.seed or args.game or args.players or args.options:
                    return _fail("--script, --seed, --game, --players, --options are for --sim")
                from tablebuzz.views.tui import board

                return board.run_board(args.port)
            if args.script:
                return _fail("tui --sim is interactive; play a timeline with tablebuzz sim "
                             "--script or tablebuzz show --sim --script")
            try:
                header, _, seed = simulation_setup(args, True)
            except CommandLineError as e:
                return _fail(str(e))
            from tablebuzz.views.tui import simulator

            status, saved = simulator.run(header)
            _tell_seed(args, seed, saved, interactive=True)
            return status
        if args.command == "replay":
            from tablebuzz.show_command import cmd_replay

            return cmd_replay(args)
        if args.command == "export":
            from tablebuzz.show_command import cmd_export

            return cmd_export(args)
        if args.command == "pinmap":
            from tablebuzz.hardware import pinmap_gen

            return pinmap_gen.main([])
    except KeyboardInterrupt:
        return 130
    return 2


def _fail(message):
    print("tablebuzz: " + message, file=sys.stderr)
    return 2


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
        from tablebuzz.views.tui import simulator

        status, saved = simulator.run(header, save=args.save)
        _tell_seed(args, seed, saved, interactive=True)
        return status
    give_flash(args, header, records)
    if args.cpu_scale <= 0 or args.flash_stall_scale < 0:
        return _fail("--cpu-scale must be above 0 and --flash-stall-scale at least 0")
    if args.cpu_scale != 1:
        header["cpu_scale"] = args.cpu_scale
    if args.flash_stall_scale != 1 and "flash" in header:
        header["flash"] = dict(header["flash"], stall_scale=args.flash_stall_scale)
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
        from tablebuzz.views.eventlog import Narrator

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


if __name__ == "__main__":
    sys.exit(main())
