"""The rooms' command-line side: `tablebuzz hub`, and the sinks `tablebuzz show` adds with
`--mqtt ... --room NAME` and `--osc HOST:PORT` (docs/rooms.md). User mistakes become one line
on stderr and exit status 2, never a traceback."""

import sys
from pathlib import Path

from tablebuzz.records import store as records_module


class RoomsError(ValueError):
    """A bad rooms option (one line for people)."""


def add_broker_options(parser):
    """--mqtt and its login options, shared by `show` and `hub`."""
    parser.add_argument("--mqtt", metavar="HOST:PORT",
                        help="the MQTT broker (docs/rooms.md); the port defaults to 1883")
    parser.add_argument("--mqtt-tls", action="store_true",
                        help="TLS to the broker (port 8883 by default), the system's CAs")
    parser.add_argument("--mqtt-ca", metavar="FILE", help="TLS with this CA (PEM) instead")
    parser.add_argument("--mqtt-user", metavar="NAME",
                        help="username at the broker; the password is $TABLEBUZZ_MQTT_PASSWORD")


def add_show_options(show):
    """`tablebuzz show`'s rooms options."""
    add_broker_options(show)
    show.add_argument("--room", metavar="NAME",
                      help="with --mqtt or --osc: this room's name (letters, digits, - _)")
    show.add_argument("--spool", metavar="FILE",
                      help="with --mqtt: where messages wait for the broker (default: "
                           "next to the records, rooms-spool/ROOM.jsonl)")
    show.add_argument("--osc", metavar="HOST:PORT",
                      help="send the show's OSC messages there (e.g. QLab: 127.0.0.1:53000)")


def config_of(args):
    from tablebuzz.rooms.broker import parse_mqtt

    try:
        return parse_mqtt(args.mqtt, tls=args.mqtt_tls, ca=args.mqtt_ca,
                          username=args.mqtt_user)
    except ValueError as e:
        raise RoomsError(str(e)) from None


def default_spool(room):
    return records_module.default_folder().parent / "rooms-spool" / ("%s.jsonl" % room)


def default_store(name):
    """The hub's store when no --store is given: `hub/NAME.sqlite3` beside the records folder."""
    return records_module.default_folder().parent / "hub" / ("%s.sqlite3" % name)


def show_sinks(args, label):
    """[sink] for `tablebuzz show` (a Publisher, an OscSender) and a line for the banner.
    Raises RoomsError."""
    from tablebuzz.rooms import topics

    sinks = []
    said = []
    if args.room and not (args.mqtt or args.osc):
        raise RoomsError("--room names the room on a broker (--mqtt) or in OSC addresses (--osc)")
    if args.mqtt:
        from tablebuzz.rooms.publisher import Publisher
        from tablebuzz.rooms.spool import Spool, SpoolError

        config = config_of(args)
        if not args.room:
            raise RoomsError("--mqtt needs --room NAME (the room's name on the director's page)")
        try:
            room = topics.check_room(args.room)
        except ValueError as e:
            raise RoomsError(str(e)) from None
        path = Path(args.spool) if args.spool else default_spool(room)
        try:
            spool = Spool(path)
        except (SpoolError, OSError) as e:
            raise RoomsError("spool %s: %s" % (path, e)) from None
        publisher = Publisher(config, room, spool, source=label)
        publisher.start()
        sinks.append(publisher)
        said.append("room %s on %r" % (room, config))
    if args.osc:
        from tablebuzz.rooms.osc import OscSender, parse_osc

        try:
            host, port = parse_osc(args.osc)
        except ValueError as e:
            raise RoomsError(str(e)) from None
        try:
            room = topics.check_room(args.room or "room")
        except ValueError as e:
            raise RoomsError(str(e)) from None
        sinks.append(OscSender(host, port, room=room))
        said.append("OSC to %s:%d" % (host, port))
    return sinks, "   ".join(said)


def join_lines(store, rooms, listen):
    """The lines `tablebuzz hub --join ROOM...` prints: each room's join code and the command
    its laptop runs. Raises RoomsError for a bad room name."""
    from tablebuzz.rooms import logins, topics

    secret = store.secret()
    out = []
    for room in rooms:
        try:
            room = topics.check_room(room)
        except ValueError as e:
            raise RoomsError(str(e)) from None
        out.append("%s  %s   TABLEBUZZ_MQTT_PASSWORD=%s tablebuzz show --mqtt %s --mqtt-user %s "
                   "--room %s" % (room, logins.join_code(secret, room),
                                  logins.join_code(secret, room), listen, room, room))
    return out


def cmd_hub(args):
    """`tablebuzz hub [--mqtt H:P | --listen H:P] [--http H:P] [--name N] [--store FILE]`, or
    `tablebuzz hub --join ROOM...` (the rooms' join codes, then exit)."""
    import uvicorn
    from refbox import pinmap

    from tablebuzz.address import check_free, listening_socket, parse_http
    from tablebuzz.rooms import logins, topics
    from tablebuzz.rooms.broker import BrokerConfig
    from tablebuzz.rooms.embedded import EmbeddedBroker
    from tablebuzz.rooms.hub import DirectorHub, make_app
    from tablebuzz.rooms.keep import HubStore

    def fail(text):
        print("tablebuzz: " + text, file=sys.stderr)
        return 2

    try:
        name = topics.check_room(args.name)
        if args.mqtt and args.join:
            return fail("--join gives the embedded broker's join codes; with --mqtt the "
                        "broker's own password file holds the logins (docs/rooms.md)")
        if args.mqtt and args.listen:
            return fail("--listen is the embedded broker's; with --mqtt the broker is elsewhere")
        if not args.mqtt and (args.mqtt_tls or args.mqtt_ca or args.mqtt_user):
            return fail("--mqtt-tls, --mqtt-ca, --mqtt-user go with --mqtt")
        store = HubStore(Path(args.store) if args.store else default_store(name))
        if args.join:
            for line in join_lines(store, args.join, args.listen or "127.0.0.1:1883"):
                print(line)
            return 0
        host, port = parse_http(args.http, any_port=True)
        sock = listening_socket(host, port)  # held: no other program takes it before the server
        port = sock.getsockname()[1]  # (--http HOST:0: the one the system gave)
        embedded = None
        if args.mqtt:
            config = config_of(args)
        else:
            bhost, bport = parse_http(args.listen or "127.0.0.1:1883")
            try:
                check_free(bhost, bport)
            except OSError:
                return fail("%s:%d is in use (another broker? a Mosquitto service?): use it "
                            "with --mqtt %s:%d, or choose another port with --listen"
                            % (bhost, bport, bhost, bport))
            secret = store.secret()
            embedded = EmbeddedBroker(bhost, bport, secret)
            user = logins.hub_user(name)
            config = BrokerConfig("127.0.0.1" if bhost in ("0.0.0.0", "") else bhost, bport,
                                  username=user, password=logins.join_code(secret, user))
        hub = DirectorHub(config, pinmap.PLAYER_COLOURS, embedded, name=name, store=store)
    except (ValueError, OSError, RoomsError) as e:
        return fail(str(e))
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    print("tablebuzz: director http://%s:%d/   broker %s%r   store %s   (Ctrl-C stops)" % (
        shown, port, "embedded " if embedded else "", config, store.path), file=sys.stderr)
    if embedded:
        print("tablebuzz: rooms log in with a join code: tablebuzz hub --join ROOM... prints "
              "them", file=sys.stderr)
    from tablebuzz.views.show import guard

    allowed = guard.allowed_hosts(host, getattr(args, "allow_host", None) or ())
    server = uvicorn.Server(uvicorn.Config(make_app(hub, allowed), log_level="warning",
                                           access_log=False))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0
