"""The command-line verbs around the scoreboard: `tablebuzz show`, `tablebuzz replay`,
`tablebuzz export` (cli.py dispatches to them).

A verb, not a view: it puts together the link to a board or the simulator (`link`, `sim`), the
scoreboard's server and view (`views`), the records and the rooms, so it stands beside cli.py,
above those packages (docs/host.md). Each turns user mistakes into one line on stderr and exit
status 2 (never a traceback).
"""

import datetime
import logging
import sys
import time
from pathlib import Path

from tablebuzz.address import listening_socket, parse_http
from tablebuzz.records import store as records_module


def _fail(message):
    print("tablebuzz: " + message, file=sys.stderr)
    return 2


def serve(hub, host, sock, banner, allowed_hosts=None):
    """Run the web app for `hub` on `sock` (address.listening_socket for `host`) until Ctrl-C,
    saying `banner` first (the address is this program's by then); only requests naming
    `allowed_hosts` (a set from guard.allowed_hosts; by default this computer's names for
    `host`) are served."""
    import uvicorn

    from tablebuzz.views.show import guard
    from tablebuzz.views.show.server import FrameErrors, make_app

    if allowed_hosts is None:
        allowed_hosts = guard.allowed_hosts(host)
    print(banner, file=sys.stderr)
    config = uvicorn.Config(make_app(hub, allowed_hosts), log_level="warning",
                            access_log=False, ws_max_size=64 * 1024)
    logging.getLogger("uvicorn.error").addFilter(FrameErrors())
    uvicorn.Server(config).run(sockets=[sock])


def _url_host(host):
    return "[%s]" % host if ":" in host else host


def _banner(host, port, extra, pairing=None):
    """The lines `show` prints: the scoreboard's address, the desk's with its key (and a QR
    code of it for a phone), the records. The key goes to this terminal only, never to a page."""
    from tablebuzz.views.show import guard

    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    if host in guard.ANY_ADDRESSES:
        shown = (guard.lan_addresses() or ["localhost"])[0]
    base = "http://%s:%d" % (_url_host(shown), port)
    lines = ["tablebuzz: scoreboard %s/   %s (Ctrl-C stops)" % (base, extra)]
    if pairing is not None:
        url = pairing.desk_url(base)
        lines.append("tablebuzz: desk %s   (the key in it pairs the desk: keep it off the "
                     "TV; a page without it only watches)" % url)
        lines.append(_qr(url))
    else:
        lines.append("tablebuzz: desk %s/desk" % base)
    return "\n".join(line for line in lines if line)


def _qr(text):
    """A QR code of `text` drawn with block characters for a terminal (segno), with a line
    saying what it is; "" when segno cannot draw it."""
    import io

    import segno

    out = io.StringIO()
    try:
        segno.make(text, error="m").terminal(out=out, compact=True)
    except (ValueError, OSError):
        return ""
    return "tablebuzz: the desk on a phone: scan this\n" + out.getvalue().rstrip("\n")


def sim_link(args, clock=time.monotonic):
    """(SimConnection, seed) for `show --sim`: the same set-up as `tablebuzz sim`
    (tablebuzz.sim.set_up), a flash included when the timeline cuts the power or --flash asks
    (`give_flash`), so that a `power` line resumes the game as on the board. `clock`: the wall
    clock in seconds. Raises set_up.CommandLineError with the message for the user."""
    from tablebuzz.link.connection import SimConnection
    from tablebuzz.sim import set_up

    header, text, seed = set_up.simulation_setup(args, args.script is None)
    records = None
    if args.script is not None:
        records = set_up.timeline_records(args, text, header["players"])
    if not 0.1 <= args.speed <= 50:
        raise set_up.CommandLineError("--speed is 0.1 to 50")
    set_up.give_flash(args, header, records)
    speed = args.speed
    return SimConnection(header, records, clock=lambda: clock() * speed), seed


def cmd_show(args):
    """`tablebuzz show [--http H:P] [--port DEV | --sim [--script F --seed S --game G ...]]`."""
    from refbox import pinmap

    from tablebuzz.link.connection import BoardConnection
    from tablebuzz.sim.set_up import CommandLineError
    from tablebuzz.views.show.server import Hub
    from tablebuzz.views.table import Table

    try:
        host, port = parse_http(args.http, any_port=True)
    except ValueError as e:
        return _fail(str(e))
    seed = None
    if args.sim:
        if args.port:
            return _fail("--port is for a board; --sim uses the simulator: give one of them")
        try:
            link, seed = sim_link(args)
        except CommandLineError as e:
            return _fail(str(e))
        source = {"kind": "simulator", "label": "simulator", "status": "simulator running"}
    else:
        if args.script or args.seed or args.game or args.players or args.options or \
                args.speed != 1.0:
            return _fail("--script, --seed, --game, --players, --options, --speed are for --sim; "
                         "with a board, start games from the desk")
        link = BoardConnection(args.port)
        source = {"kind": "board", "label": "board" + (" on " + args.port if args.port else "")}
    try:
        sock = listening_socket(host, port)
    except OSError as e:
        return _fail(str(e))
    port = sock.getsockname()[1]  # (--http HOST:0: the one the system gave)
    recorder = None
    extra = "records: off"
    if not args.no_records:
        folder = Path(args.records) if args.records else records_module.default_folder()
        recorder = records_module.Recorder(folder, source["label"])
        extra = "records: %s" % folder
    table = Table(pinmap.PLAYER_COLOURS, source=source)
    if getattr(args, "packet", None):
        from tablebuzz.views import packet as packet_module

        try:
            table.packet = packet_module.load(args.packet)
        except (packet_module.PacketError, OSError) as e:
            return _fail("--packet %s: %s" % (args.packet, e))
    from tablebuzz.rooms.command import RoomsError, show_sinks
    from tablebuzz.rooms.publisher import Tee

    try:
        sinks, rooms_extra = show_sinks(args, source["label"])
    except RoomsError as e:
        return _fail(str(e))
    if sinks:  # the rooms (docs/rooms.md) get every item the records get
        recorder = Tee(recorder, table, sinks)
        for sink in sinks:
            sink.names({}, table)  # the first view: waiting for the board
        extra += "   " + rooms_extra
    from tablebuzz.views.show import guard

    allowed = guard.allowed_hosts(host, getattr(args, "allow_host", None) or ())
    hub = Hub(link, table, recorder, simulator=args.sim, stations=pinmap.PLAYER_COUNT)
    try:
        serve(hub, host, sock, _banner(host, port, extra, hub.pairing), allowed)
    except KeyboardInterrupt:
        pass
    if seed is not None and args.seed is None and not getattr(args, "given_seed", None):
        print("tablebuzz: simulated chip seed %s (replay with --seed)" % seed, file=sys.stderr)
    return 0


def _offsets(lines):
    """[(seconds from the first, text)] from a record's lines with ISO "at" times."""
    out = []
    first = None
    for obj in lines:
        if "line" not in obj:
            continue
        try:
            t = datetime.datetime.fromisoformat(obj.get("at", "")).timestamp()
        except (TypeError, ValueError):
            t = first or 0.0
        if first is None:
            first = t
        out.append((t - first, obj["line"]))
    return out


JOURNAL_STEP_S = 0.5  # a journal holds no times: its events are played this far apart


def _without_name(text, path):
    """`text` without a leading "NAME: " or "NAME " naming `path` (it is said once)."""
    name = Path(path).name
    for lead in (name + ": ", name + " "):
        if text.startswith(lead):
            return text[len(lead):]
    return text


def _qbj_replay(path):
    """(header, [(seconds, line)], []) of a QBJ file's race records (tablebuzz.records.qbj
    .replay_events: each tossup's presses, races, lockouts and judgements), or None when the
    file is no QBJ file holding a Match."""
    import json

    from tablebuzz.records import qbj

    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        events, names, bound = qbj.replay_events(doc)
    except (ValueError, qbj.QbjError, OSError, TypeError, KeyError, AttributeError):
        return None
    header = {"game": "quiz", "players": events[0]["players"], "started": "(a QBJ file)",
              "source": "QBJ file %s" % Path(path).name, "names": names, "sample_ns": bound}
    lines = [(i * JOURNAL_STEP_S, json.dumps(ev)) for i, ev in enumerate(events)]
    return header, lines, []


def load_replay(path):
    """(header, [(seconds, line)], problems) for a game record, a QBJ file (its tablebuzz_race
    records: docs/quizbowl.md), or for a journal pulled off the board (`tablebuzz pull`), whose
    events the firmware's referee rebuilds
    (tablebuzz.records.journal_replay; presses and margins are not in a journal). Raises
    RecordError (naming both readings) or OSError."""
    try:
        header, lines, problems = records_module.read_record(path)
        return header, _offsets(lines), problems
    except records_module.RecordError as not_a_record:
        qbj_file = _qbj_replay(path)
        if qbj_file is not None:
            return qbj_file
        from tablebuzz.records.journal_replay import JournalError, journal_events, journal_torn

        with open(path, "rb") as f:
            data = f.read()
        try:
            events = journal_events(data)
        except JournalError as e:
            raise records_module.RecordError(
                "%s is neither a game record nor a journal (as a record: %s; as a journal: %s)"
                % (Path(path).name, _without_name(str(not_a_record), path), e)) from None
    import json

    first = json.loads(events[0]) if events else {}
    header = {"game": first.get("game"), "players": first.get("players"),
              "started": "(a journal: no times)", "source": "journal %s" % Path(path).name,
              "names": {}}
    problems = []
    if journal_torn(data):
        problems.append("%s: cut short: replayed up to its last whole record" % Path(path).name)
    return header, [(i * JOURNAL_STEP_S, line) for i, line in enumerate(events)], problems


def cmd_replay(args):
    """`tablebuzz replay FILE [--show] [--speed X] [--json] [--photos DIR]`: a saved game,
    printed or played, or its photo finishes written as SVG (tablebuzz.views.photo)."""
    import json

    from tablebuzz.views.eventlog import Narrator

    try:
        header, lines, problems = load_replay(args.file)
    except OSError as e:
        return _fail("cannot read %s: %s" % (args.file, e.strerror or e))
    except records_module.RecordError as e:
        return _fail(str(e))
    for problem in problems:
        print("tablebuzz: %s" % problem, file=sys.stderr)
    names = {int(k): v for k, v in (header.get("names") or {}).items() if str(k).isdigit()}
    if getattr(args, "photos", None):
        from tablebuzz.views import photo

        evs = []
        for _, text in lines:
            try:
                ev = json.loads(text)
            except ValueError:
                continue
            if isinstance(ev, dict):
                evs.append(ev)
        out = Path(args.photos)
        out.mkdir(parents=True, exist_ok=True)
        written = photo.write_photos(evs, out / Path(args.file).stem, header.get("sample_ns"),
                                     names)
        for path in written:
            print("tablebuzz: wrote %s" % path, file=sys.stderr)
        if not written:
            print("tablebuzz: no race of this game was decided by less than 10 ms",
                  file=sys.stderr)
        return 0
    if not args.show:
        narrator = Narrator(names)
        if not args.json:  # --json prints the protocol lines and nothing else
            print("# %s, %s players, started %s, from the %s%s" % (
                header.get("game"), header.get("players"), header.get("started"),
                header.get("source"), " (joined mid-game)" if header.get("joined") else ""))
        try:
            for t, text in lines:
                if args.json:
                    print(text)
                    continue
                try:
                    ev = json.loads(text)
                    said = narrator.line(ev) if isinstance(ev, dict) else text
                except ValueError:
                    said = "console: " + text
                except records_module.UNREADABLE as e:  # a line shaped otherwise: said, skipped
                    said = "(a line this version cannot read: %s: %s)" % (
                        type(e).__name__, str(e)[:80])
                print("%9.3f s  %s" % (t, said))
            sys.stdout.flush()
        except BrokenPipeError:
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    from refbox import pinmap

    from tablebuzz.link.connection import RecordConnection
    from tablebuzz.views.show.server import Hub
    from tablebuzz.views.table import Table

    try:
        host, port = parse_http(args.http, any_port=True)
        sock = listening_socket(host, port)
    except (ValueError, OSError) as e:
        return _fail(str(e))
    port = sock.getsockname()[1]
    link = RecordConnection(lines, speed=args.speed)
    table = Table(pinmap.PLAYER_COLOURS, source={"kind": "replay", "label": "replay of %s" % (
        Path(args.file).name), "status": "replaying"})
    table.set_names(names)
    hub = Hub(link, table, None, simulator=True, stations=pinmap.PLAYER_COUNT)
    try:
        serve(hub, host, sock, _banner(host, port, "replaying %s" % args.file, hub.pairing))
    except KeyboardInterrupt:
        pass
    return 0


def cmd_export(args):
    """`tablebuzz export [--records DIR] [--date D] [--format csv|qbj|match] [-o FILE]`: one CSV
    row per game, one QBJ Match per two-team quiz game, or the last one's Match alone
    (tablebuzz.records.qbj)."""
    import datetime

    folder = Path(args.records) if args.records else records_module.default_folder()
    if args.date:
        try:
            datetime.date.fromisoformat(args.date)
        except ValueError:
            return _fail("--date %s is not a date: give it as YYYY-MM-DD (e.g. %s)" % (
                args.date, datetime.date.today().isoformat()))
        folder = folder / args.date
    if not folder.is_dir():
        return _fail("no records in %s (tablebuzz show writes them there)" % folder)
    write = records_module.night_csv
    if getattr(args, "format", "csv") in ("qbj", "match"):
        from tablebuzz.records import qbj

        write = qbj.night_qbj if args.format == "qbj" else qbj.night_match
    try:
        if args.output:
            with open(args.output, "w", encoding="utf-8", newline="") as out:
                count, problems = write(folder, out)
        else:
            count, problems = write(folder, sys.stdout)
    except OSError as e:
        return _fail("cannot write %s: %s" % (args.output, e.strerror or e))
    for problem in problems:
        print("tablebuzz: skipped %s" % problem, file=sys.stderr)
    print("tablebuzz: %d games from %s" % (count, folder), file=sys.stderr)
    return 0
