"""`tablebuzz show`: the scoreboard and the host's desk, served on the local network.

A Starlette app under uvicorn. The pages are static files (no build step); live updates go over
one WebSocket per page (`/ws`). The device is reached through the connection layer
(tablebuzz.link.connection): a board (`--port`, or found by USB vendor id) or the simulator
(`--sim`). The `Hub` polls the connection every 5 ms, folds each item into the `Table`
(tablebuzz.views.table), writes it to the records (tablebuzz.records.store) and sends the new view
to every page.

Messages from a page (JSON objects; see docs/show.md):
- `{"type": "hello", "role": "scoreboard" | "desk"}`
- `{"type": "cmd", "id": n, "cmd": {...}}`: a protocol command for the device;
- `{"type": "new_game", "id": n, "game", "players", "options", "names"}`: names are the host's;
- `{"type": "names", "id": n, "names": {"1": "Ann"}}`;
- `{"type": "press", "id": n, "player": p}`, `{"type": "control", "id": n, "name": "arm"}`,
  `{"type": "power", "id": n, "on": false}`: the simulator's buzzers, buttons and power switch
  (refused on a real board);
- `{"type": "screen", "id": n, "screen": "standings" | null}`: the room's screens show the
  full-screen standings, or the board again;
- `{"type": "sound", "id": n, "sounds": bool, "speech": bool}`: the TV's short sounds and its
  spoken calls on or off;

Answers to the page that acted: `{"type": "reply", "id": n, "ok": true, "text": ...}` once the
device has run it, `{"type": "reply", "id": n, "ok": false, "text": ...}` when it could not be
sent, the device refused it, or no answer came within REPLY_TIMEOUT_S. Each command goes to the
device with an id of the host's own (docs/protocol.md "Command ids"); the device's `done` or
`error` line naming that id is routed to the page that sent it, so two desks acting at once each
get their own answers.
Every page gets `{"type": "view", "view": ..., "pages": {"desk": n, "scoreboard": m}}`.
"""

import asyncio
import contextlib
import json
import sys
import time
from pathlib import Path

from starlette.applications import Starlette
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from tablebuzz.link.serial_link import LinkError

STATIC = Path(__file__).parent / "static"
POLL_S = 0.005
REPLY_TIMEOUT_S = 5.0  # a command the device has not answered by then gets "no answer"
MAX_MESSAGE = 4096  # bytes a page message may hold


def game_specs(stations):
    """The desk's new-game form, from the firmware's own catalogue, option checks and words
    (tablebuzz.views.describe): a new option in a game appears here without a change to the
    host."""
    from tablebuzz.views.describe import game_specs as specs

    return specs(stations)


class Hub:
    """Between the connection and the pages (see the module doc)."""

    def __init__(self, link, table, recorder=None, simulator=False, stations=6):
        self.link = link
        self.table = table
        self.recorder = recorder
        self.simulator = simulator
        self.stations = stations
        self.pages = {}  # WebSocket -> role
        self._awaiting = {}  # device command id -> (websocket, page's message id, deadline)
        self._next_id = 0
        self._task = None
        self.sent_at = {}  # for the bench: when each view version went out

    # ---------------------------------------------------------------- the loop
    async def start(self):
        self.link.start()
        self._task = asyncio.create_task(self._run())

    async def stop(self):
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        self.link.close()
        if self.recorder is not None:
            self.recorder.close()

    async def _run(self):
        loop = asyncio.get_running_loop()
        reported = 0.0
        while True:
            try:
                await self._pass(loop)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - a host bug must not freeze the room's screen
                if time.monotonic() - reported > 5:
                    reported = time.monotonic()
                    print("tablebuzz: internal error in the scoreboard (it goes on): %s: %s"
                          % (type(e).__name__, e), file=sys.stderr)
                await asyncio.sleep(0.1)

    async def _pass(self, loop):
        """One poll of the connection: fold, record, answer, broadcast."""
        if self.simulator:
            items = self.link.poll()  # the simulator runs in this thread: no locking
        else:  # a board: its reading thread queues items; wait for them off the loop
            items = await loop.run_in_executor(None, self.link.wait, 0.05)
        if items:
            changed = False
            for item in items:
                changed |= self.table.apply(item)
                if self.recorder is not None:
                    try:
                        self.recorder.item(item)
                    except OSError as e:
                        self.table.notices.append("could not write the records: %s" % e)
                await self._answer(item)
            if changed:
                await self.broadcast()
        if self._awaiting:
            await self._expire()
        if self.simulator:
            await asyncio.sleep(POLL_S)

    async def _answer(self, item):
        """The device's `done` or `error` naming a command id answers the page that sent it."""
        if item.kind != "event" or "id" not in item.event:
            return
        ev = item.event
        waiting = self._awaiting.pop(ev["id"], None)
        if waiting is None or ev.get("ev") not in ("done", "error"):
            return  # another host's command, or one that timed out
        ws, msg_id, _ = waiting
        if ev["ev"] == "done":
            await self._send(ws, {"type": "reply", "id": msg_id, "ok": True, "text": "done"})
        else:
            await self._send(ws, {"type": "reply", "id": msg_id, "ok": False,
                                  "text": self.table.narrator.line(ev)})

    async def _expire(self):
        now = time.monotonic()
        for cid, (ws, msg_id, deadline) in list(self._awaiting.items()):
            if now > deadline:
                del self._awaiting[cid]
                await self._send(ws, {"type": "reply", "id": msg_id, "ok": False,
                                      "text": "no answer from the device"})

    def message(self, role="scoreboard"):
        """The view message for a page of `role`: only a desk's carries `desk_only`."""
        counts = {"desk": 0, "scoreboard": 0}
        for r in self.pages.values():
            counts[r] = counts.get(r, 0) + 1
        return {"type": "view", "view": self.table.view(desk=role == "desk"), "pages": counts,
                "simulator": self.simulator}

    async def broadcast(self):
        texts = {}
        for ws, role in list(self.pages.items()):
            if role not in texts:
                texts[role] = json.dumps(self.message(role), ensure_ascii=False)
            await self._send(ws, texts[role])

    async def _send(self, ws, msg):
        try:
            if isinstance(msg, str):
                await ws.send_text(msg)
            else:
                await ws.send_text(json.dumps(msg, ensure_ascii=False))
        except Exception:  # noqa: BLE001 - a page that went away: forget it, keep the others
            self.pages.pop(ws, None)

    # ---------------------------------------------------------------- pages
    async def page(self, ws):
        await ws.accept()
        self.pages[ws] = "scoreboard"
        await self._send(ws, self.message())
        try:
            while True:
                try:
                    text = await ws.receive_text()
                except (WebSocketDisconnect, RuntimeError):
                    break  # the page went away (RuntimeError: starlette, after a send failed)
                await self._message(ws, text)
        finally:
            self.pages.pop(ws, None)
            await self.broadcast()

    async def _message(self, ws, text):
        msg_id = None
        try:
            if len(text.encode("utf-8")) > MAX_MESSAGE:
                raise ValueError("message too long")
            msg = json.loads(text)
            if not isinstance(msg, dict):
                raise ValueError("not an object")
            msg_id = msg.get("id")
            kind = msg.get("type")
            if kind == "hello":
                role = msg.get("role")
                self.pages[ws] = role if role in ("desk", "scoreboard") else "scoreboard"
                await self.broadcast()
                return
            if kind == "cmd":
                self._command(msg.get("cmd"), ws, msg_id)
                return  # the device's done / error is the reply
            elif kind == "new_game":
                names = msg.get("names") or {}
                if not isinstance(names, dict):
                    raise ValueError("names are an object")
                self.table.set_names(names, next_game=True)  # not the running game's
                if self.recorder is not None:
                    self.recorder.set_names(self.table.pending_names, next_game=True)
                cmd = {"cmd": "new_game", "game": msg.get("game"), "players": msg.get("players"),
                       "options": msg.get("options") or {}}
                self._command(cmd, ws, msg_id)
                return
            elif kind == "mark":  # the desk tapped the word being read at the buzz
                mark = self.table.mark(msg.get("word_index"))
                if self.recorder is not None:
                    self.recorder.mark(mark)
                await self.broadcast()
            elif kind == "photo":  # the desk shows the last photo finish again
                if not self.table.show_photo():
                    raise ValueError("no race has been decided by less than 10 ms yet")
                await self.broadcast()
            elif kind == "screen":  # the desk puts the standings on the room's screens
                self.table.set_screen(msg.get("screen"))
                await self.broadcast()
            elif kind == "sound":  # the desk switches the TV's sounds and spoken calls
                self.table.set_sound(msg.get("sounds"), msg.get("speech"))
                await self.broadcast()
            elif kind == "power":  # the simulator's power switch (a cut, then power on)
                if not self.simulator or not hasattr(self.link, "power"):
                    raise LinkError("the power switch on this page works with the simulator "
                                    "only")
                self.link.power(msg.get("on") is True)
            elif kind == "names":
                self.table.set_names(msg.get("names") or {})
                if self.recorder is not None:
                    self.recorder.set_names(self.table.pending_names)
                await self.broadcast()
            elif kind in ("press", "control"):
                if not self.simulator:
                    raise LinkError("the buzzers on this page work with the simulator only; "
                                    "on a board, press the real ones")
                if kind == "press":
                    self.link.press(int(msg.get("player")))
                else:
                    self.link.control(str(msg.get("name")))
            else:
                raise ValueError("unknown message type %r" % kind)
        except LinkError as e:
            await self._send(ws, {"type": "reply", "id": msg_id, "ok": False, "text": str(e)})
            return
        except (ValueError, TypeError) as e:
            await self._send(ws, {"type": "reply", "id": msg_id, "ok": False,
                                  "text": "the page sent something the host cannot use: %s" % e})
            return
        await self._send(ws, {"type": "reply", "id": msg_id, "ok": True, "text": "sent"})

    def _command(self, cmd, ws, msg_id):
        """Send a page's command with an id of the host's own (any id the page put in it is
        replaced), and wait for the device's answer naming it."""
        if not isinstance(cmd, dict):
            raise ValueError("a command is an object")
        from tablebuzz.link.connection import encode_command

        self._next_id = (self._next_id + 1) & 0x3FFFFFFF  # the protocol's id range
        cmd = dict(cmd, id=self._next_id)
        line = encode_command(cmd)
        self.link.send(cmd)  # raises LinkError: not connected
        if self.recorder is not None:
            self.recorder.sent(line)
        self._awaiting[self._next_id] = (ws, msg_id, time.monotonic() + REPLY_TIMEOUT_S)


def make_app(hub):
    """The Starlette app for `hub`."""

    async def scoreboard(request):
        return FileResponse(STATIC / "scoreboard.html")

    async def desk(request):
        return FileResponse(STATIC / "desk.html")

    async def overlay(request):  # the OBS overlay (docs/rooms.md); the rooms' hub serves it too
        return FileResponse(STATIC / "overlay.html")

    async def api_view(request):
        return JSONResponse(hub.message())

    async def api_games(request):
        return JSONResponse(game_specs(hub.stations))

    async def ws_endpoint(websocket: WebSocket):
        await hub.page(websocket)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        await hub.start()
        yield
        await hub.stop()

    routes = [
        Route("/", scoreboard),
        Route("/desk", desk),
        Route("/standings", scoreboard),  # the scoreboard page, standings full screen
        Route("/overlay", overlay),
        Route("/api/view", api_view),
        Route("/api/games", api_games),
        WebSocketRoute("/ws", ws_endpoint),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan)
