"""HOST:PORT addresses given on the command line: where `tablebuzz show` and `tablebuzz hub` serve
their pages, where the hub's embedded broker listens, where OSC messages go. `parse_http` reads
one, `check_free` tells before serving that it can be served (a plain message, not a traceback
from deep inside the web server)."""

import socket


def parse_http(text):
    """(host, port) from "HOST:PORT" (or ":PORT", or "PORT"). Raises ValueError."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "", text
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError("--http wants HOST:PORT, e.g. 127.0.0.1:8765 (got %r)" % text)
    return host, int(port)


def check_free(host, port):
    """Raise OSError with a plain message when HOST:PORT cannot be served (in use, bad host)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    probe = socket.socket(family, socket.SOCK_STREAM)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
    except OSError as e:
        if e.errno == 98:  # EADDRINUSE
            raise OSError("%s:%d is in use (another tablebuzz show?); choose another with "
                          "--http %s:%d" % (host, port, host, port + 1)) from None
        raise OSError("cannot serve on %s:%d: %s" % (host, port, e.strerror or e)) from None
    finally:
        probe.close()
