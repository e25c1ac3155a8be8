"""Who may reach `tablebuzz show`, and who may act on the game (docs/security.md).

- `allowed_hosts(bind, extra)`: the names a request's `Host` may carry: the bind address,
  localhost, 127.0.0.1 and [::1], every address of this computer's interfaces when bound to
  0.0.0.0 or :: (ifaddr), and the names given with `--allow-host`.
- `HostOriginGuard`: an ASGI middleware that refuses, before any route runs, an HTTP request or a
  WebSocket whose `Host` is not allowed (a DNS-rebinding page) or whose `Origin` is not the
  page's own (a page from another site or another local server, in the host's own browser).
- `Pairing`: the desk's secret (`secrets.token_urlsafe`, 128 bits), compared in constant time
  (`hmac.compare_digest`). Only a page that says it with its hello acts on the game.
- `Bucket`: a token bucket, one per page: commands beyond its rate are refused "busy".
- `Seen`: the answers of the last commands by (client, id), so that a command sent again with
  the same id is answered again and never applied twice.
"""

import hmac
import ipaddress
import secrets
import time
from collections import OrderedDict
from urllib.parse import urlsplit

LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
ANY_ADDRESSES = ("0.0.0.0", "::", "")


def own_addresses():
    """Every IP address of this computer's network interfaces, as text (IPv6 without its scope
    id), from ifaddr. An empty list when they cannot be read."""
    try:
        import ifaddr

        adapters = ifaddr.get_adapters()
    except Exception:  # noqa: BLE001 - no list of interfaces: only the named hosts are allowed
        return []
    out = []
    for adapter in adapters:
        for ip in adapter.ips:
            address = ip.ip[0] if isinstance(ip.ip, tuple) else ip.ip
            out.append(str(address).split("%")[0])
    return out


def lan_addresses():
    """This computer's addresses a phone on the venue's network may open: IPv4, not loopback,
    not link-local, private ranges first."""
    found = []
    for text in own_addresses():
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            continue
        if address.version == 4 and not address.is_loopback and not address.is_link_local:
            found.append(address)
    found.sort(key=lambda a: (not a.is_private, int(a)))
    return [str(a) for a in found]


def allowed_hosts(bind, extra=()):
    """The set of lower-case host names (IPv6 without brackets) a request's `Host` may name,
    for pages served on `bind` (the --http host); `extra`: names given with --allow-host."""
    names = set(LOCAL_NAMES)
    names.add(bind.strip("[]").lower())
    if bind in ANY_ADDRESSES:
        names.update(a.lower() for a in own_addresses())
    names.update(str(n).strip().strip("[]").lower() for n in extra if str(n).strip())
    names.discard("")
    return names


def split_host(value):
    """(name, port or None) from a Host header value ("name:port", "[::1]:8765", "name"), the
    name lower-case without brackets. Raises ValueError for a value that is not one."""
    value = value.strip().lower()
    if not value or any(c in value for c in "/@?# \\"):
        raise ValueError("not a host")
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            raise ValueError("not a host")
        name, rest = value[1:end], value[end + 1:]
        if rest and not rest.startswith(":"):
            raise ValueError("not a host")
        port = rest[1:] if rest else None
    else:
        name, sep, port = value.partition(":")
        port = port if sep else None
        if ":" in (port or ""):
            raise ValueError("not a host")
    if port is not None and (not port.isdigit() or not 0 < int(port) < 65536):
        raise ValueError("not a port")
    return name, (int(port) if port is not None else None)


def same_origin(origin, host, scheme):
    """True when the `Origin` header `origin` is the origin of a page served by this server at
    `host` (its Host header) over `scheme` ("http", "https", "ws", "wss")."""
    try:
        parts = urlsplit(origin)
        o_name, o_port = parts.hostname, parts.port
        h_name, h_port = split_host(host)
    except ValueError:
        return False
    secure = scheme in ("https", "wss")
    if parts.scheme not in ("http", "https") or o_name is None or \
            (parts.scheme == "https") != secure:
        return False
    default = 443 if secure else 80
    return o_name.lower() == h_name and (o_port or default) == (h_port or default)


class HostOriginGuard:
    """ASGI middleware in front of the show's app: every HTTP request and WebSocket handshake
    must name an allowed host (`allowed`: a set from `allowed_hosts`), and carry no `Origin` or
    its own page's. A refused request gets 403 and a one-line reason (HTTP), or a handshake
    refused with 403 (WebSocket); nothing of the app runs."""

    def __init__(self, app, allowed):
        self.app = app
        self.allowed = set(allowed)

    def reason(self, scope):
        """Why `scope` is refused, or None."""
        headers = {}
        for key, value in scope.get("headers") or ():
            headers.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
        host = headers.get("host", "")
        try:
            name, _ = split_host(host)
        except ValueError:
            return "a request without a valid Host header"
        if name not in self.allowed:
            return ("this server answers only to its own addresses, not to %r (DNS rebinding?);"
                    " tablebuzz show --allow-host NAME adds one" % name[:80])
        origin = headers.get("origin")
        if origin is not None and not same_origin(origin, host, scope.get("scheme", "http")):
            return "a page from another site (%s) cannot use this server" % origin[:80]
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        why = self.reason(scope)
        if why is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": why[:120]})
            return
        body = ("403 refused: %s\n" % why).encode("utf-8")
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class Pairing:
    """The desk's secret. `key`: the text a desk URL carries (`/desk#key=...`); a new one at
    each start unless given."""

    def __init__(self, key=None):
        self.key = key or secrets.token_urlsafe(16)

    def check(self, given):
        """True when `given` (a str from a page's hello) is the key; constant time."""
        if not isinstance(given, str) or len(given) > 256:
            return False
        return hmac.compare_digest(given.encode("utf-8"), self.key.encode("utf-8"))

    def desk_url(self, base):
        """The desk's address with the key in its fragment: a browser never sends a fragment
        to a server, so the key stays out of requests, logs and Referer headers."""
        return "%s/desk#key=%s" % (base.rstrip("/"), self.key)


class Bucket:
    """A token bucket: `rate` messages a second on average, `burst` at once. `clock`: seconds."""

    def __init__(self, rate, burst, clock=time.monotonic):
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = float(burst)
        self.at = clock()

    def take(self):
        """True (and one token less) when a message may go now."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Seen:
    """The last `size` commands by key (client, id): each one's entry (a dict the hub fills:
    its answer, or the device command id it waits on). The oldest go first."""

    def __init__(self, size=4096):
        self.size = size
        self.entries = OrderedDict()

    def get(self, key):
        return self.entries.get(key)

    def add(self, key, entry):
        self.entries[key] = entry
        while len(self.entries) > self.size:
            self.entries.popitem(last=False)
        return entry
