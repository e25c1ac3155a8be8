"""The rooms' logins at the hub's embedded broker (docs/rooms.md "Logins").

The hub draws a secret once (32 random bytes, kept in its store, tablebuzz.rooms.keep) and every
room's **join code** comes from it: `join_code(secret, room)` = the first 80 bits of
HMAC-SHA256(secret, "tablebuzz-room:" + room), in base 32 (16 letters and digits). The hub
needs no list of rooms: whoever knows a room's code can publish as that room, and nobody can
compute a code without the secret. `tablebuzz hub --join ROOM...` prints them. A room logs in
with its name as the username and the code as the password (`--mqtt-user ROOM`,
`$TABLEBUZZ_MQTT_PASSWORD`). The hub's own client logs in as `hub:NAME` (a `:` is never in a
room's name) with `join_code(secret, "hub:NAME")`.
"""

import base64
import hashlib
import hmac
import secrets

HUB_PREFIX = "hub:"


def new_secret():
    """A new hub secret (hex)."""
    return secrets.token_hex(32)


def join_code(secret, who):
    """The password of `who` (a room's name, or `hub:NAME`) under `secret` (hex)."""
    digest = hmac.new(bytes.fromhex(secret), b"tablebuzz-room:" + who.encode("utf-8"),
                      hashlib.sha256).digest()
    return base64.b32encode(digest[:10]).decode("ascii").lower()


def hub_user(name):
    return HUB_PREFIX + name


def is_hub(user):
    return str(user).startswith(HUB_PREFIX)


def check_login(secret, user, password):
    """True when `password` is `user`'s join code (a room's checked name, or the hub's);
    compared in constant time."""
    from tablebuzz.rooms import topics

    if not isinstance(user, str) or not isinstance(password, str):
        return False
    if not is_hub(user):
        try:
            topics.check_room(user)
        except ValueError:
            return False
    return hmac.compare_digest(join_code(secret, user).encode(), password.encode())
