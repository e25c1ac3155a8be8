"""HOST:PORT addresses given on the command line: where `tablebuzz show` and `tablebuzz hub` serve
their pages, where the hub's embedded broker listens, where OSC messages go. `parse_http` reads
one; `listening_socket` takes the address for the web server before anything is announced;
`check_free` tells before serving that an address can be served (a plain message, not a
traceback from deep inside the web server)."""

import socket


def parse_http(text, any_port=False):
    """(host, port) from "HOST:PORT" (or ":PORT", or "PORT"); port 0 ("any free port", which
    the caller then announces) only with `any_port`. Raises ValueError."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "", text
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not (0 if any_port else 1) <= int(port) < 65536:
        raise ValueError("--http wants HOST:PORT, e.g. 127.0.0.1:8765 (got %r)" % text)
    return host, int(port)


def listening_socket(host, port):
    """A TCP socket listening on HOST:PORT (port 0: one the system picks; getsockname() says
    which), for the web server (uvicorn.Server.run(sockets=...)), whose connections wait in its
    backlog until the server accepts them. Held from here, so that no other program takes the
    address between a check and the server's start (a socket that listens excludes every
    other bind, SO_REUSEADDR or not), and nothing is announced for an address this program did
    not get. Raises OSError with a plain message (in use, bad host)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen()
    except OSError as e:
        sock.close()
        if e.errno == 98:  # EADDRINUSE
            raise OSError("%s:%d is in use (another tablebuzz show?); choose another with "
                          "--http %s:%d" % (host, port, host, port + 1)) from None
        raise OSError("cannot serve on %s:%d: %s" % (host, port, e.strerror or e)) from None
    return sock


def check_free(host, port):
    """Raise OSError with a plain message when HOST:PORT cannot be served (in use, bad host):
    for a server that binds its address itself (the embedded MQTT broker)."""
    listening_socket(host, port).close()  # (closed at once: the broker binds it)
