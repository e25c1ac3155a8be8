"""`tablebuzz show --mqtt HOST:PORT --room NAME`: a room publishes its game (docs/rooms.md).

The scoreboard's hub (tablebuzz.views.show.server.Hub) hands every connection item to its recorder;
`Tee` stands in for the recorder, passing each item on to it and to the room's sinks: the
`Publisher` here, and the OSC sender (tablebuzz.rooms.osc). Called on the scoreboard's event loop,
a sink never blocks it: the publisher appends to its spool (a flushed line) and returns.

The publisher's own thread holds the broker link:
- connect (a new paho client each time: no state of a lost session is carried over), with the
  will `status {"online": false}` retained; on CONNACK publish `status {"online": true}`;
- send the spool's messages in order, QoS 1, at most `WINDOW` without the broker's PUBACK at
  once;
- subscribe to the room's `ack` topic: the hub says there, retained, up to which `seq` of each
  run its store holds the room's messages (tablebuzz.rooms.topics); the spool forgets them then,
  and not at the broker's PUBACK: a broker that is killed, or a hub killed with its embedded
  broker, loses nothing a room sent, since the room sends it again;
- when the hub has acknowledged nothing more for `RESEND_S` while messages wait for it (the hub
  was away, or its broker lost its session), send them again from the oldest, and wait twice as
  long before the next time (up to `MAX_RESEND_S`) until the hub has them all: a hub that is
  only slow is not flooded with what it is still reading;
- publish the latest view (retained) whenever it changed;
- when the link drops: every message the hub has not acknowledged is sent again from the spool
  after the reconnection (the hub keeps one of each, by its `run` and `seq`); reconnect after
  `BACKOFF_S` doubled at each failure up to `MAX_BACKOFF_S`, with ±20 % jitter so that many
  rooms do not all come back at one instant.
"""

import random
import sys
import threading
import time

from tablebuzz.records.store import RECORD_KIND, now_text
from tablebuzz.rooms import topics
from tablebuzz.rooms.broker import connack_text, make_client

WINDOW = 64  # QoS 1 messages in flight at once
RESEND_S = 10.0  # the hub has acknowledged nothing of what was sent this long: send it again
MAX_RESEND_S = 60.0
BACKOFF_S = 0.25
MAX_BACKOFF_S = 8.0
KEEPALIVE_S = 10
LOOP_S = 0.01  # the link thread's poll of its socket


class Tee:
    """The show hub's recorder, extended: `recorder` (or None) and every sink get each item.
    It answers what the hub asks of a recorder (`item`, `sent`, `set_names(names, next_game)`,
    `mark`, `close`). A sink gets `item(item, table)`, `names(names, table)`, `close()`, and
    `mark(mark)` if it has one; a sink's failure is said once on stderr and never stops the
    room's screen or its records. Names the desk gives for a new game reach the sinks just
    before that game's `game` event, so they name the new game, never the one still running."""

    def __init__(self, recorder, table, sinks):
        self.recorder = recorder
        self.table = table
        self.sinks = list(sinks)
        self._said = set()
        self._next_names = None  # the desk's names for the game about to start

    def _each(self, method, *args):
        for sink in self.sinks:
            if method == "mark" and not hasattr(sink, "mark"):
                continue
            try:
                getattr(sink, method)(*args)
            except Exception as e:  # noqa: BLE001 - a sink's bug must not stop the room
                if (type(sink), method) not in self._said:
                    self._said.add((type(sink), method))
                    print("tablebuzz: %s.%s failed (the room goes on): %s: %s" % (
                        type(sink).__name__, method, type(e).__name__, e), file=sys.stderr)

    def item(self, item):
        if self._next_names is not None and item.kind == "event" and \
                item.event.get("ev") == "game":
            names, self._next_names = self._next_names, None
            self._each("names", names, self.table)
        try:
            if self.recorder is not None:
                self.recorder.item(item)
        finally:
            self._each("item", item, self.table)

    def sent(self, line):
        if self.recorder is not None:
            self.recorder.sent(line)

    def set_names(self, names, next_game=False):
        try:
            if self.recorder is not None:
                self.recorder.set_names(names, next_game=next_game)
        finally:
            if next_game:
                self._next_names = dict(names or {})
            else:
                self._next_names = None
                self._each("names", names, self.table)

    def mark(self, mark):
        try:
            if self.recorder is not None:
                self.recorder.mark(mark)
        finally:
            self._each("mark", mark)

    def close(self):
        try:
            if self.recorder is not None:
                self.recorder.close()
        finally:
            self._each("close")


class Publisher:
    """One room's publisher (see the module doc). `config`: tablebuzz.rooms.broker.BrokerConfig;
    `room`: its checked name; `spool`: tablebuzz.rooms.spool.Spool; `source`: the link's label
    for the records' header; `say(text)`: where news of the broker link goes (stderr)."""

    def __init__(self, config, room, spool, source="board", say=None):
        self.config = config
        self.room = topics.check_room(room)
        self.spool = spool
        self.source = source
        self.say = say or (lambda text: print("tablebuzz: " + text, file=sys.stderr))
        self.run = spool.run
        self.player_names = {}
        self.game = None  # the current game's id
        self.game_n = 0  # events of the current game so far
        self.record = None  # {"header": ..., "lines": [...]}: the current game's record
        self._view_lock = threading.Lock()
        self._view = None  # the latest view message (text) not yet published
        self._stop = threading.Event()
        self._thread = None
        self.connected = False
        self.status = "not started"
        self.stats = {"connects": 0, "resent": 0, "published": 0}
        # the link thread's own
        self._inflight = {}  # mid -> seq
        self._sent_upto = 0
        self._hub_acked = 0  # the hub's store holds every message of this run up to here
        self._waiting_since = None  # monotonic s: sent messages the hub has not acknowledged
        self._resend_s = RESEND_S

    # ---------------------------------------------------------------- the room's side
    def start(self):
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="tablebuzz-mqtt-" + self.room,
                                            daemon=True)
            self._thread.start()

    def item(self, item, table):
        """One connection item (after the table folded it): events are spooled; the view is
        republished."""
        if item.kind == "event":
            self._event(item)
        self.view(table)

    def names(self, names, table):
        self.player_names = {str(k): v for k, v in (names or {}).items()}
        if self.record is not None:
            self.record["lines"].append({"at": now_text(), "names": self.player_names})
        self.view(table)

    def view(self, table):
        message = topics.dumps({"room": self.room, "run": self.run, "at": now_text(),
                                "wall": time.time(), "seq": self.spool.last_seq,
                                "view": table.view()})
        with self._view_lock:
            self._view = message

    def _event(self, item):
        ev = item.event
        kind = ev.get("ev")
        at = now_text(item.wall)
        seq = self.spool.next_seq()
        if kind == "game" or (kind in ("state", "resume") and self.game is None):
            self.game = "%s-%d" % (self.run, seq)
            self.game_n = 0
            self.record = {"header": {
                "record": RECORD_KIND, "version": 1, "started": at, "source": self.source,
                "game": ev.get("game"), "players": ev.get("players"), "names": self.player_names,
                "joined": kind != "game", "room": self.room, "id": self.game}, "lines": []}
        elif kind == "menu" and self.game is not None:
            self.game = None  # back in the menu without the game over: no record of it
            self.record = None
        if self.game is not None:
            self.game_n += 1
        self.spool.append(topics.topic(self.room, "events"), topics.dumps({
            "room": self.room, "run": self.run, "seq": seq, "game": self.game,
            "n": self.game_n if self.game else None, "at": at, "line": item.text}))
        if self.record is not None:
            self.record["lines"].append({"at": at, "line": item.text})
            if kind == "game_over":
                seq = self.spool.next_seq()
                self.spool.append(topics.topic(self.room, "records"), topics.dumps({
                    "room": self.room, "run": self.run, "seq": seq, "game": self.game,
                    "record": self.record}))
                self.record = None
                self.game = None

    def close(self, timeout=3.0):
        """Stop the link (publishing `online: false`); the spool keeps what was not sent."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.spool.close()

    def flushed(self):
        """True when the hub has every spooled message and the broker the latest view."""
        with self._view_lock:
            view_sent = self._view is None
        return view_sent and not self.spool.unsent_after(0, 1)

    # ---------------------------------------------------------------- the link thread
    def _news(self, text, connected):
        self.connected = connected
        if text != self.status:
            self.status = text
            self.say(text)

    def _run(self):
        backoff = BACKOFF_S
        while not self._stop.is_set():
            try:
                if self._session():
                    backoff = BACKOFF_S
            except Exception as e:  # noqa: BLE001 - the link must outlive anything it meets
                self._news("broker link failed: %s: %s" % (type(e).__name__, e), False)
            if self._stop.is_set():
                break
            kept = len(self.spool.unsent_after(0, 1 << 30))
            self._news("the broker at %r is away (%s); the room plays on, %d messages kept "
                       "on disk; retrying" % (self.config, self._why, kept), False)
            self._stop.wait(backoff * random.uniform(0.8, 1.2))
            backoff = min(backoff * 2, MAX_BACKOFF_S)

    def _session(self):
        """One connection, until it drops or the publisher stops. True if it was accepted."""
        import paho.mqtt.client as mqtt

        self._why = "not reached"
        state = {"accepted": False, "refused": None}
        client = make_client(self.config, "tablebuzz-room-%s-%s" % (self.room, self.run[:8]))
        status_topic = topics.topic(self.room, "status")
        client.will_set(status_topic, topics.dumps({"room": self.room, "online": False}),
                        qos=1, retain=True)

        def on_connect(client, userdata, flags, reason_code, properties):
            if reason_code.is_failure:
                state["refused"] = connack_text(reason_code)
            else:
                state["accepted"] = True

        def on_publish(client, userdata, mid, reason_code, properties):
            self._inflight.pop(mid, None)

        def on_message(client, userdata, message):
            self._hub_ack(message.payload)

        client.on_connect = on_connect
        client.on_publish = on_publish
        client.on_message = on_message
        client.max_inflight_messages_set(WINDOW)
        try:
            client.connect(self.config.host, self.config.port, keepalive=KEEPALIVE_S)
        except (OSError, ValueError) as e:
            self._why = str(e) or type(e).__name__
            return False
        self._inflight = {}
        self._sent_upto = self.spool.acked
        announced = False
        try:
            while not self._stop.is_set():
                rc = client.loop(timeout=LOOP_S)
                if state["refused"]:
                    self._why = state["refused"]
                    return False
                if rc != mqtt.MQTT_ERR_SUCCESS:
                    self._why = "connection lost: %s" % mqtt.error_string(rc)
                    return state["accepted"]
                if not state["accepted"]:
                    continue
                if not announced:
                    announced = True
                    self.stats["connects"] += 1
                    self.stats["resent"] += len(self.spool.unsent_after(0, 1 << 30))
                    client.subscribe(topics.topic(self.room, topics.ACK), qos=1)
                    client.publish(status_topic, topics.dumps(
                        {"room": self.room, "online": True, "at": now_text()}), qos=1,
                        retain=True)
                    with self._view_lock:  # the broker may have lost the retained view
                        if self._view is None and self._last_view is not None:
                            self._view = self._last_view
                    self._news("publishing to the broker at %r as room %s" % (
                        self.config, self.room), True)
                self._pump(client)
            # stopping: say so, give the last messages a moment
            client.publish(status_topic, topics.dumps(
                {"room": self.room, "online": False, "at": now_text()}), qos=1, retain=True)
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline and (self._inflight or not self.flushed()):
                if client.loop(timeout=LOOP_S) != mqtt.MQTT_ERR_SUCCESS:
                    break
                self._pump(client)
            client.disconnect()
            client.loop(timeout=LOOP_S)
            return True
        finally:
            self.connected = False
            try:
                client.socket() and client.socket().close()
            except OSError:
                pass

    _last_view = None

    def _hub_ack(self, payload):
        """The hub's `ack` message (bytes): `{"room", "acked": {run: seq}}`; anything else is
        ignored."""
        import json

        try:
            upto = json.loads(payload)["acked"][self.run]
        except (ValueError, KeyError, TypeError, RecursionError):
            return
        if isinstance(upto, int) and not isinstance(upto, bool) and upto > self._hub_acked:
            self._hub_acked = upto

    def _pump(self, client):
        # what the hub's store holds: the spool forgets it
        mark = min(self._hub_acked, self.spool.last_seq)
        now = time.monotonic()
        if mark > self.spool.acked:
            self.spool.ack(mark)
            self._waiting_since = now
        if self._sent_upto <= self.spool.acked:
            self._waiting_since = None  # nothing sent waits for the hub
            self._resend_s = RESEND_S
        elif self._waiting_since is None:
            self._waiting_since = now
        elif not self._inflight and now - self._waiting_since > self._resend_s:
            self._sent_upto = self.spool.acked  # go back: send again what the hub lacks
            self.stats["resent"] += 1
            self._waiting_since = now
            self._resend_s = min(self._resend_s * 2, MAX_RESEND_S)
        room = WINDOW - len(self._inflight)
        if room > 0:
            for seq, topic, payload, retain in self.spool.unsent_after(self._sent_upto, room):
                info = client.publish(topic, payload, qos=1, retain=retain)
                self._inflight[info.mid] = seq
                self._sent_upto = seq
                self.stats["published"] += 1
        with self._view_lock:
            view, self._view = self._view, None
        if view is not None:
            client.publish(topics.topic(self.room, "view"), view, qos=1, retain=True)
            self._last_view = view
