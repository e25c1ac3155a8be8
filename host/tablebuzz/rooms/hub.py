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

from tablebuzz.rooms import topics
from tablebuzz.rooms.broker import connack_text, make_client
from tablebuzz.rooms.state import HubState, summary
from tablebuzz.views.show.server import STATIC as SHOW_STATIC

STATIC = Path(__file__).parent / "static"  # the director's page
PUSH_S = 0.05  # the pages get what changed at most this often


class DirectorHub:
    """The hub (see the module doc). `config`: tablebuzz.rooms.broker.BrokerConfig; `embedded`:
    an EmbeddedBroker to start first (or None); `name`: the hub's session name."""

    def __init__(self, config, colours, embedded=None, name="director", say=None):
        self.config = config
        self.embedded = embedded
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
        self._wake = None
        self._loop = None
        self._client = None
        self._task = None

    # ---------------------------------------------------------------- the broker side
    async def start(self):
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
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
            with self.lock:
                try:
                    room = self.state.apply(message.topic, message.payload, time.time())
                except Exception as e:  # noqa: BLE001 - one bad message must not stop the hub
                    self.state.problems.append("%s: %s: %s" % (message.topic,
                                                               type(e).__name__, e))
                    room = None
                if room is not None:
                    self._dirty.add(room.name)
                    if message.topic.endswith("/records"):
                        self._standings_dirty = True
            self._loop.call_soon_threadsafe(self._wake.set)

        client.on_connect = on_connect
        client.on_disconnect = on_disconnect
        client.on_message = on_message
        client.reconnect_delay_set(0.25, 4)
        client.connect_async(self.config.host, self.config.port, keepalive=10)
        client.loop_start()  # paho's thread: connects, and reconnects with backoff
        self._client = client
        self._task = asyncio.create_task(self._push())

    async def stop(self):
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._client is not None:
            self._client.disconnect()
            self._client.loop_stop()
        if self.embedded is not None:
            await self.embedded.stop()

    # ---------------------------------------------------------------- the pages
    def snapshot(self, names=None, standings=True):
        with self.lock:
            if names is None:
                rooms = self.state.rooms()
            else:
                rooms = [summary(self.state.rooms_by_name[n]) for n in sorted(names)]
            out = {"type": "rooms", "rooms": rooms, "full": names is None,
                   "broker": {"address": repr(self.config), "connected": self.connected,
                              "since": self.connected_since},
                   "sent": time.time()}
            if standings:
                out["standings"] = self.state.standings()
            return out

    async def _push(self):
        while True:
            await self._wake.wait()
            self._wake.clear()
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
            await asyncio.sleep(PUSH_S)

    async def page(self, ws):
        await ws.accept()
        self.pages.add(ws)
        try:
            await ws.send_text(json.dumps(self.snapshot(), ensure_ascii=False))
            while True:
                await ws.receive_text()  # the page says nothing that matters
        except WebSocketDisconnect:
            pass
        finally:
            self.pages.discard(ws)


def standings_csv(standings):
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["game", "place", "name", "rooms", "games", "wins", "losses", "ties",
                     "points", "ppg", "powers", "gets", "negs"])
    for game, rows in sorted(standings.items()):
        for i, r in enumerate(rows, 1):  # powers, gets, negs: the quiz's rows only
            writer.writerow([game, i, r["name"], " ".join(r["rooms"]), r["games"], r["wins"],
                             r["losses"], r["ties"], r["points"], r["ppg"],
                             r.get("powers", ""), r.get("gets", ""), r.get("negs", "")])
    return out.getvalue()


def make_app(hub):
    async def director(request):
        return FileResponse(STATIC / "director.html")

    async def overlay(request):
        return FileResponse(SHOW_STATIC / "overlay.html")  # the scoreboard's, one room's view

    async def rooms_json(request):
        snap = hub.snapshot()
        return JSONResponse({"rooms": snap["rooms"], "standings": snap["standings"],
                             "broker": snap["broker"]})

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
    return Starlette(routes=routes, lifespan=lifespan)
