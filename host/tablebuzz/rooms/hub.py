"""`tablebuzz hub`: the tournament director's page over every room (docs/rooms.md "The hub").

The hub subscribes to `tablebuzz/+/#` at QoS 1 with a kept session (client id
`tablebuzz-hub-<name>`, clean session off), so that a broker with persistence queues what the
rooms publish while the hub itself is away. paho's network thread folds each message into the
`HubState` under a lock; the event loop sends the rooms that changed to every page at most every
`PUSH_S` (one message however many rooms moved meanwhile).

Routes: `/` the director's page; `/overlay/<room>` a room's OBS overlay; `/rooms.json` (rooms and
standings); `/export.jsonl` every finished game's record, one a line; `/tournament.qbj` the
finished quiz games as one QBJ tournament (HubState.tournament_qbj); `/standings.csv`; `/ws` the
pages' live link: `{"type": "rooms", "rooms": [summary], "standings": {...}, "full": bool,
"sent": time.time()}`.
"""

import asyncio
import contextlib
import csv
import io
import json
import sys
import threading
import time
from pathlib import Path

from starlette.applications import Starlette
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from tablebuzz.records.cells import safe_row
from tablebuzz.rooms import topics
from tablebuzz.rooms.broker import connack_text, make_client
from tablebuzz.rooms.state import HubState
from tablebuzz.views.show.server import STATIC as SHOW_STATIC

STATIC = Path(__file__).parent / "static"  # the director's page
PUSH_S = 0.05  # the pages get what changed at most this often
ACK_S = 0.2  # the rooms hear what is in the store at most this often


class DirectorHub:
    """The hub (see the module doc). `config`: tablebuzz.rooms.broker.BrokerConfig; `embedded`:
    an EmbeddedBroker to start first (or None); `name`: the hub's session name; `store`: a
    tablebuzz.rooms.keep.HubStore (or None): what it holds is folded in before the broker is
    reached, and every message that changes the state is written to it."""

    def __init__(self, config, colours, embedded=None, name="director", say=None, store=None):
        self.config = config
        self.embedded = embedded
        self.store = store
        self.name = topics.check_room(name)
        self.state = HubState(colours)
        self.say = say or (lambda text: print("tablebuzz: " + text, file=sys.stderr))
        self.lock = threading.Lock()
        self.pages = set()
        self.connected = False
        self.connected_since = time.time()  # when `connected` last changed (the hub's clock)
        self._broker_dirty = False  # the broker came or went: the pages get a full snapshot
        self._dirty = set()
        self._standings_dirty = True
        self._problems_seen = 0
        self._ack_dirty = set()  # rooms to tell what the hub has (their `ack` topic)
        self._wake = None
        self._loop = None
        self._client = None
        self._task = None
        self._ack_task = None

    # ---------------------------------------------------------------- the broker side
    async def start(self):
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        if self.store is not None:
            with self.lock:
                count = self.store.restore(self.state)
                self.state.keep = self.store.keep
                self.state.keep_problem = self.store.keep_problem
            if count:
                self.say("hub: %d messages read back from %s" % (count, self.store.path))
        if self.embedded is not None:
            await self.embedded.start()
        client = make_client(self.config, "tablebuzz-hub-" + self.name, clean=False)

        def on_connect(client, userdata, flags, reason_code, properties):
            if reason_code.is_failure:
                self.say(connack_text(reason_code))
                return
            self.connected = True
            self.connected_since = time.time()
            self._broker_dirty = True
            client.subscribe(topics.PREFIX + "/+/#", qos=1)
            with self.lock:  # the broker may have lost the retained acknowledgements
                self._ack_dirty.update(self.state.rooms_by_name)
            self._loop.call_soon_threadsafe(self._wake.set)
            self.say("hub: subscribed at the broker %r" % self.config)

        def on_disconnect(client, userdata, flags, reason_code, properties):
            if self.connected:
                self.say("hub: lost the broker at %r (%s); reconnecting" % (
                    self.config, reason_code))
                self.connected_since = time.time()
                self._broker_dirty = True
            self.connected = False
            self._loop.call_soon_threadsafe(self._wake.set)  # the pages say so at once

        def on_message(client, userdata, message):
            # paho acknowledges a QoS 1 message (PUBACK) when this returns: what changed the
            # state is on disk by then (self.state.keep)
            with self.lock:
                try:
                    room = self.state.apply(message.topic, message.payload, time.time())
                except Exception as e:  # noqa: BLE001 - one bad message must not stop the hub
                    self.state.problems = (self.state.problems + [{
                        "room": None, "topic": message.topic[:100], "at": time.time(),
                        "why": "the hub failed on it: %s: %s" % (type(e).__name__, e)}])[-50:]
                    self.state.problems_seen += 1
                    room = None
                problems = self.state.problems_seen
                if problems != self._problems_seen:
                    self._problems_seen = problems
                    self._standings_dirty = True  # the problems go with the standings
                if room is not None:
                    self._dirty.add(room.name)
                    if message.topic.endswith("/records"):
                        self._standings_dirty = True
                where = topics.parse_topic(message.topic)
                if where is not None and where[1] in ("events", "records") and \
                        where[0] in self.state.rooms_by_name:
                    self._ack_dirty.add(where[0])  # a repeat too: its room waits for this
            self._loop.call_soon_threadsafe(self._wake.set)

        client.on_connect = on_connect
        client.on_disconnect = on_disconnect
        client.on_message = on_message
        client.reconnect_delay_set(0.25, 4)
        client.connect_async(self.config.host, self.config.port, keepalive=10)
        client.loop_start()  # paho's thread: connects, and reconnects with backoff
        self._client = client
        self._task = asyncio.create_task(self._push())
        self._ack_task = asyncio.create_task(self._acks())

    async def _acks(self):
        """Tells each room what the store holds of it (`tablebuzz/<room>/ack`, retained: see
        tablebuzz.rooms.topics), at most every ACK_S."""
        while True:
            await asyncio.sleep(ACK_S)
            if not self.connected:
                continue
            with self.lock:
                rooms, self._ack_dirty = self._ack_dirty, set()
                messages = [(name, {"room": name,
                                     "acked": self.state.rooms_by_name[name].acked()})
                            for name in sorted(rooms)]
            for name, message in messages:
                try:
                    self._client.publish(topics.topic(name, topics.ACK),
                                         topics.dumps(message), qos=1, retain=True)
                except Exception as e:  # noqa: BLE001 - the next change says it again
                    self.say("hub: could not acknowledge room %s: %s" % (name, e))

    async def stop(self):
        for task in (self._task, self._ack_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._client is not None:
            self._client.disconnect()
            self._client.loop_stop()
        if self.embedded is not None:
            await self.embedded.stop()
        if self.store is not None:
            with self.lock:
                self.store.close()

    # ---------------------------------------------------------------- the pages
    def snapshot(self, names=None, standings=True):
        with self.lock:
            rooms = self.state.rooms(names)
            out = {"type": "rooms", "rooms": rooms, "full": names is None,
                   "broker": {"address": repr(self.config), "connected": self.connected,
                              "since": self.connected_since},
                   "sent": time.time()}
            if standings:
                out["standings"] = self.state.standings()
                out["problems"] = list(self.state.problems)
            return out

    async def _push(self):
        """Sends what changed to every page, for as long as the hub runs: a failure is said on
        the terminal and the next change is sent all the same."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self._push_once()
            except Exception as e:  # noqa: BLE001 - the pages' only live link must not die
                self.say("hub: a page update failed (%s: %s); the next one is whole"
                         % (type(e).__name__, e))
                with self.lock:
                    self._dirty.update(self.state.rooms_by_name)
                    self._standings_dirty = True
                    self._broker_dirty = True
            await asyncio.sleep(PUSH_S)

    async def _push_once(self):
        with self.lock:
            names, self._dirty = self._dirty, set()
            standings, self._standings_dirty = self._standings_dirty, False
            broker, self._broker_dirty = self._broker_dirty, False
        if names or standings or broker:
            text = json.dumps(self.snapshot(None if broker else names, standings),
                              ensure_ascii=False)
            for ws in list(self.pages):
                try:
                    await ws.send_text(text)
                except Exception:  # noqa: BLE001 - a page that went away
                    self.pages.discard(ws)

    async def page(self, ws):
        await ws.accept()
        self.pages.add(ws)
        try:
            await ws.send_text(json.dumps(self.snapshot(), ensure_ascii=False))
            while True:  # the page says nothing that matters: text, bytes, all read and dropped
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.pages.discard(ws)


def standings_csv(standings):
    """The standings as CSV text: one row per side, every text cell through
    tablebuzz.records.cells.safe_cell (a name `=HYPERLINK(...)` is shown, never run)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["game", "place", "name", "rooms", "games", "wins", "losses", "ties",
                     "points", "ppg", "powers", "gets", "negs"])
    for game, rows in sorted(standings.items()):
        for i, r in enumerate(rows, 1):  # powers, gets, negs: the quiz's rows only
            writer.writerow(safe_row([
                game, i, r["name"], " ".join(r["rooms"]), r["games"], r["wins"], r["losses"],
                r["ties"], r["points"], r["ppg"], r.get("powers", ""), r.get("gets", ""),
                r.get("negs", "")]))
    return out.getvalue()


def make_app(hub, allowed_hosts=None):
    """The director's Starlette app for `hub`, behind the show's Host and Origin check
    (tablebuzz.views.show.guard.HostOriginGuard: a DNS-rebinding page or a page of another site
    in the director's browser gets 403); `allowed_hosts`: a set from guard.allowed_hosts, by
    default this computer's loopback names only."""
    async def director(request):
        return FileResponse(STATIC / "director.html")

    async def overlay(request):
        return FileResponse(SHOW_STATIC / "overlay.html")  # the scoreboard's, one room's view

    async def rooms_json(request):
        snap = hub.snapshot()
        return JSONResponse({"rooms": snap["rooms"], "standings": snap["standings"],
                             "problems": snap["problems"], "broker": snap["broker"]})

    async def export(request):
        with hub.lock:
            games = hub.state.export()
        body = "".join(json.dumps(g, ensure_ascii=False) + "\n" for g in games)
        return Response(body, media_type="application/x-ndjson", headers={
            "Content-Disposition": "attachment; filename=tablebuzz-event.jsonl"})

    async def tournament(request):
        with hub.lock:
            doc, problems = hub.state.tournament_qbj()
        if problems:  # said on the hub's terminal; the file holds every match that could be read
            hub.say("tournament.qbj: left out " + "; ".join(problems))
        return Response(json.dumps(doc, ensure_ascii=False, indent=1) + "\n",
                        media_type="application/json", headers={
                            "Content-Disposition": "attachment; filename=tablebuzz-event.qbj"})

    async def standings(request):
        with hub.lock:
            text = standings_csv(hub.state.standings())
        return Response(text, media_type="text/csv", headers={
            "Content-Disposition": "attachment; filename=tablebuzz-standings.csv"})

    async def ws_endpoint(websocket: WebSocket):
        await hub.page(websocket)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        await hub.start()
        yield
        await hub.stop()

    routes = [
        Route("/", director),
        Route("/overlay/{room}", overlay),
        Route("/rooms.json", rooms_json),
        Route("/export.jsonl", export),
        Route("/standings.csv", standings),
        Route("/tournament.qbj", tournament),
        WebSocketRoute("/ws", ws_endpoint),
    ]
    from tablebuzz.views.show import guard

    app = Starlette(routes=routes, lifespan=lifespan)
    allowed = allowed_hosts if allowed_hosts is not None else guard.allowed_hosts("127.0.0.1")
    return guard.HostOriginGuard(app, allowed)
