"""Topic names and message shapes of the rooms (docs/rooms.md "Topics"), for a room and the hub.

Under `tablebuzz/<room>/`:
- `events`  QoS 1, in order: `{"room", "run", "seq", "game", "n", "at", "line"}`: one protocol
  event (`line`, the text exactly as the box sent it). `run` + `seq` identify the message (seq 1,
  2, ... per run with no gaps: the room's spool numbers them); `game` is the game's id
  (`<run>-<k>`, k-th game of the run) and `n` the event's number in that game (1, 2, ...);
  `at` the wall-clock time the host received it (ISO 8601 with the offset).
- `records` QoS 1: `{"room", "run", "seq", "game", "record": {"header": {...}, "lines": [...]}}`,
  each finished game's record, in the records' own format (tablebuzz.records.store).
- `view`    QoS 1, retained: `{"room", "run", "at", "wall", "view": {...}}`: the room's scoreboard
  view (tablebuzz.views.table.Table.view(), never the desk's), the latest only.
- `status`  QoS 1, retained: `{"room", "online": true|false, "at"}`; the broker publishes
  `online: false` itself (the client's will) when the room's connection is lost.

And one topic the hub publishes, the room reads:
- `ack`     QoS 1, retained: `{"room", "acked": {run: seq}}`: for each of the room's runs, every
  `events` and `records` message up to `seq` is in the hub's store; the room's spool forgets
  them then, and not before (tablebuzz.rooms.publisher).
"""

import json

PREFIX = "tablebuzz"
KINDS = ("events", "records", "view", "status")  # what a room publishes
ACK = "ack"  # what the hub publishes to a room
MAX_ROOM = 32  # characters of a room name


def check_room(name):
    """The room name `name`, checked: 1..32 letters, digits, `-` or `_` (a topic level: no `/`,
    `+`, `#`). Raises ValueError with the rule."""
    text = str(name or "")
    if not 0 < len(text) <= MAX_ROOM or not all(c.isascii() and (c.isalnum() or c in "-_")
                                                 for c in text):
        raise ValueError("a room name is 1 to %d letters, digits, - or _ (got %r)"
                         % (MAX_ROOM, name))
    return text


def topic(room, kind):
    """`tablebuzz/<room>/<kind>`."""
    return "%s/%s/%s" % (PREFIX, room, kind)


def parse_topic(text):
    """(room, kind) for a rooms topic, or None for another."""
    parts = text.split("/")
    if len(parts) != 3 or parts[0] != PREFIX or parts[2] not in KINDS:
        return None
    try:
        return check_room(parts[1]), parts[2]
    except ValueError:
        return None


def is_ack(text):
    """True for `tablebuzz/<room>/ack`."""
    parts = text.split("/")
    if len(parts) != 3 or parts[0] != PREFIX or parts[2] != ACK:
        return False
    try:
        check_room(parts[1])
    except ValueError:
        return False
    return True


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
