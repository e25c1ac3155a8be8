"""`tablebuzz show`: the scoreboard and the host's desk, served on the local network.

A Starlette app under uvicorn. The pages are static files (no build step); live updates go over
one WebSocket per page (`/ws`). The device is reached through the connection layer
(tablebuzz.link.connection): a board (`--port`, or found by USB vendor id) or the simulator
(`--sim`). The `Hub` polls the connection every 5 ms, folds each item into the `Table`
(tablebuzz.views.table), writes it to the records (tablebuzz.records.store) and sends the new view
to every page.

Who may act (docs/security.md): every request and WebSocket passes `guard.HostOriginGuard`
(its `Host` one of this server's names, its `Origin`, if any, the page's own). A page is read-only
(the scoreboard, the standings, the overlay) until its hello carries the desk's key
(`guard.Pairing`: `show` prints the desk's URL with it, and its QR code, on the terminal); only
then may it act, and only then does its view carry `desk_only` (the packet, a number being
entered).

Messages from a page (JSON text frames of at most MAX_MESSAGE bytes; see docs/show.md):
- `{"type": "hello", "role": "scoreboard" | "desk", "key": "...", "client": "..."}`: `key` pairs
  a desk; `client` (at most 64 characters) names the page across reconnections;
- every other message is a paired desk's, and carries an `id` (an integer from 0 to 2**53, or a
  string of at most 64 characters) unique for its client:
- `{"type": "cmd", "id": n, "cmd": {...}}`: a protocol command for the device;
- `{"type": "new_game", "id": n, "game", "players", "options", "names"}`: names are the host's;
- `{"type": "names", "id": n, "names": {"1": "Ann"}}`;
- `{"type": "mark", "id": n, "word_index": i}`, `{"type": "photo", "id": n}`;
- `{"type": "press", "id": n, "player": p}`, `{"type": "control", "id": n, "name": "arm"}`,
  `{"type": "power", "id": n, "on": false}`: the simulator's buzzers, buttons and power switch
  (refused on a real board); `{"type": "hold", "id": n, "player": p, "down": bool}`: a buzzer
  pressed and held (a pointer down), then let go (up), each at its own instant; a page that
  goes away lets go of what it held;
- `{"type": "screen", "id": n, "screen": "standings" | null}`: the room's screens show the
  full-screen standings, or the board again;
- `{"type": "sound", "id": n, "sounds": bool, "speech": bool}`: the TV's short sounds and its
  spoken calls on or off;

Answers to the page that acted: `{"type": "reply", "id": n, "ok": true, "text": ...}` once the
device has run it, `{"type": "reply", "id": n, "ok": false, "text": ...}` when it could not be
sent, the device refused it, the page may not act, or the host is busy ("busy: ... try again":
more than MAX_IN_FLIGHT commands wait on the device, or the page sends faster than RATE_PER_S).
Each command goes to the device with an id of the host's own (docs/protocol.md "Command ids");
the device's `done` or `error` line naming that id is routed to the page that sent it. A message
sent again with an id already seen from its client is never applied again: it gets the first
one's answer (or that answer when it comes).
Every page gets `{"type": "view", "view": ..., "pages": {"desk": n, "scoreboard": m},
"paired": bool}`.

Nobody waits on a slow screen: each page has its own sender task and bounded queue (the latest
view, and at most MAX_REPLIES replies); the poll loop only hands them over. A page whose send
takes more than SEND_TIMEOUT_S, or whose replies pile up, is closed.
"""

import asyncio
import contextlib
import json
import sys
import time
from collections import deque
from pathlib import Path

from starlette.applications import Starlette
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from tablebuzz.link.serial_link import LinkError
from tablebuzz.views.show import guard

STATIC = Path(__file__).parent / "static"
POLL_S = 0.005
REPLY_TIMEOUT_S = 5.0  # a command the device has not answered by then gets "no answer"
MAX_MESSAGE = 4096  # bytes a page message may hold
MAX_ID = 2 ** 53  # a message id: an integer JavaScript holds exactly
MAX_TEXT_ID = 64
MAX_IN_FLIGHT = 8  # commands sent to the device and not answered yet; more: "busy"
RATE_PER_S = 20  # a page's messages a second, on average (a host clicks a few a second)
BURST = 40  # ...and at once
MAX_REPLIES = 256  # replies queued for one page; more and it is closed
SEND_TIMEOUT_S = 5.0  # one send to a page; longer and it is closed
MAX_PAGES = 64  # pages connected at once; more are refused
ACTS = ("cmd", "new_game", "names", "mark", "photo", "screen", "sound", "power", "press",
        "hold", "control")
NOT_PAIRED = ("this page is not a paired desk, so it cannot act: open the desk address that "
              "`tablebuzz show` printed (with its key), or scan its QR code")


class RefusedError(Exception):
    """A page's message that is not acted on: its text is the reply."""


class Page:
    """One WebSocket page: its role ("scoreboard", "desk" once paired, "unpaired" for a page
    that asked to be a desk without the key), its client name, its rate limit and its send
    queue (the latest view, and the replies in order)."""

    def __init__(self, ws):
        self.ws = ws
        self.role = "scoreboard"
        self.client = None
        self.bucket = guard.Bucket(RATE_PER_S, BURST)
        self.view = None  # the latest view text not sent yet
        self.replies = deque()
        self.wake = asyncio.Event()
        self.gone = asyncio.Event()
        self.close_code = None
        self.close_reason = ""
        self.sender = None
        self.held = set()  # the simulator's buzzers this page holds down (`hold`)

    @property
    def paired(self):
        return self.role == "desk"

    def post_view(self, text):
        self.view = text  # an older one not sent yet is dropped: the latest is what counts
        self.wake.set()

    def post(self, msg):
        if self.gone.is_set():
            return
        if len(self.replies) >= MAX_REPLIES:
            self.close(1008, "too many replies waiting: the page is not reading")
            return
        self.replies.append(msg if isinstance(msg, str) else json.dumps(msg, ensure_ascii=False))
        self.wake.set()

    def close(self, code, reason):
        """Close after the replies already queued."""
        if self.close_code is None:
            self.close_code, self.close_reason = code, reason[:120]
        self.wake.set()


def game_specs(stations):
    """The desk's new-game form, from the firmware's own catalogue, option checks and words
    (tablebuzz.views.describe): a new option in a game appears here without a change to the
    host."""
    from tablebuzz.views.describe import game_specs as specs

    return specs(stations)


class Hub:
    """Between the connection and the pages (see the module doc). `pairing`: the desk's key
    (guard.Pairing; a new one when not given)."""

    def __init__(self, link, table, recorder=None, simulator=False, stations=6, pairing=None):
        self.link = link
        self.table = table
        self.recorder = recorder
        self.simulator = simulator
        self.stations = stations
        self.pairing = pairing or guard.Pairing()
        self.pages = {}  # WebSocket -> Page
        self._awaiting = {}  # device command id -> (page, message id, deadline, seen entry)
        self._seen = guard.Seen()  # (client, message id) -> {"reply": ..., "cid": ...}
        self._next_id = 0
        self._task = None

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
        for page in list(self.pages.values()):
            page.gone.set()
            if page.sender is not None:
                page.sender.cancel()
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
        """One poll of the connection: fold, record, answer, broadcast. Nothing here waits on
        a page: sends are handed to each page's own sender."""
        if self.simulator:
            items = self.link.poll()  # the simulator runs in this thread: no locking
        else:  # a board: its reading thread queues items; wait for them off the loop
            items = await loop.run_in_executor(None, self.link.wait, 0.05)
        if items:
            changed = False
            for item in items:
                if self.recorder is not None:  # in the records before it is interpreted
                    try:
                        self.recorder.item(item)
                    except OSError as e:
                        self.table.notices.append("could not write the records: %s" % e)
                try:
                    changed |= self.table.apply(item)
                except Exception as e:  # noqa: BLE001 - a line the host cannot interpret
                    self.table.notices.append("a board line the host cannot interpret (%s: %s)"
                                              ": %s" % (type(e).__name__, e, item.text[:120]))
                    changed = True
                self._answer(item)
            if changed:
                self.broadcast()
        if self._awaiting:
            self._expire()
        if self.simulator:
            await asyncio.sleep(POLL_S)

    def _reply(self, page, msg_id, ok, text, entry=None):
        reply = {"type": "reply", "id": msg_id, "ok": ok, "text": text}
        if entry is not None:
            entry["reply"] = reply
        if page is not None:
            page.post(reply)

    def _answer(self, item):
        """The device's `done` or `error` naming a command id answers the page that sent it."""
        if item.kind != "event" or "id" not in item.event:
            return
        ev = item.event
        if ev.get("ev") not in ("done", "error"):
            return
        waiting = self._awaiting.pop(ev["id"], None)
        if waiting is None:
            return  # another host's command
        page, msg_id, _, entry = waiting
        if ev["ev"] == "done":
            self._reply(page, msg_id, True, "done", entry)
        else:
            self._reply(page, msg_id, False, self.table.narrator.line(ev), entry)

    def _expire(self):
        now = time.monotonic()
        for cid, (page, msg_id, deadline, entry) in list(self._awaiting.items()):
            if now > deadline:
                del self._awaiting[cid]
                self._reply(page, msg_id, False,
                            "no answer from the device within %g s: look at the board before "
                            "you act again (the device may still run it)" % REPLY_TIMEOUT_S)
                entry["late"] = True  # a retry with this id is still not sent again

    def counts(self):
        counts = {"desk": 0, "scoreboard": 0}
        for page in self.pages.values():
            role = "desk" if page.paired else "scoreboard"
            counts[role] += 1
        return counts

    def message(self, role="scoreboard", counts=None):
        """The view message for a page of `role`: only a paired desk's carries `desk_only`."""
        return {"type": "view", "view": self.table.view(desk=role == "desk"),
                "pages": counts or self.counts(), "simulator": self.simulator,
                "paired": role == "desk"}

    def broadcast(self):
        """Hand the latest view to every page's sender (never waits)."""
        texts = {}
        counts = self.counts()
        for page in list(self.pages.values()):
            if page.role not in texts:
                texts[page.role] = json.dumps(self.message(page.role, counts),
                                              ensure_ascii=False)
            page.post_view(texts[page.role])

    # ---------------------------------------------------------------- pages
    async def _sender(self, page):
        """Send `page` its queue, in order, the latest view last; close it when it stops
        reading (a send longer than SEND_TIMEOUT_S) or when asked."""
        ws = page.ws
        try:
            while True:
                await page.wake.wait()
                page.wake.clear()
                while page.replies or page.view is not None:
                    if page.replies:
                        text = page.replies.popleft()
                    else:
                        text, page.view = page.view, None
                    await asyncio.wait_for(ws.send_text(text), SEND_TIMEOUT_S)
                if page.close_code is not None:
                    await asyncio.wait_for(ws.close(page.close_code, page.close_reason),
                                           SEND_TIMEOUT_S)
                    return
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a page gone or not reading: forget it, not the others
            pass
        finally:
            page.gone.set()
            if self.pages.pop(ws, None) is not None:
                self.broadcast()

    async def page(self, ws):
        if len(self.pages) >= MAX_PAGES:
            await ws.close(code=1013)  # before the handshake: refused with 403
            return
        await ws.accept()
        page = Page(ws)
        self.pages[ws] = page
        page.sender = asyncio.create_task(self._sender(page))
        page.post_view(json.dumps(self.message(), ensure_ascii=False))
        gone = asyncio.ensure_future(page.gone.wait())
        try:
            while True:
                receiving = asyncio.ensure_future(ws.receive())
                done, _ = await asyncio.wait({receiving, gone},
                                             return_when=asyncio.FIRST_COMPLETED)
                if receiving not in done:  # the sender closed it: stop reading it
                    receiving.cancel()
                    break
                try:
                    message = receiving.result()
                except (WebSocketDisconnect, RuntimeError):
                    break  # the page went away (RuntimeError: starlette, after a close)
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    page.post({"type": "reply", "id": None, "ok": False,
                               "text": "binary frames are not taken: send JSON text"})
                    page.close(1003, "binary frames are not taken: send JSON text")
                    break
                self._message(page, text)
            if page.close_code is not None:  # let the sender say why, then close
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(asyncio.shield(page.sender), SEND_TIMEOUT_S)
        finally:
            gone.cancel()
            page.gone.set()
            if self.simulator:
                self._let_go_of(page)
            if page.sender is not None and not page.sender.done():
                page.sender.cancel()
            if self.pages.pop(ws, None) is not None:
                self.broadcast()

    @staticmethod
    def _parse(text):
        """The page's message as a dict, and its id. Raises RefusedError (id None)."""
        if len(text) > MAX_MESSAGE or len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
            raise RefusedError("a message is at most %d bytes" % MAX_MESSAGE)
        try:
            msg = json.loads(text)
        except RecursionError:
            raise RefusedError("the page sent something the host cannot use: nested too deep") \
                from None
        except ValueError as e:
            raise RefusedError("the page sent something the host cannot use: not JSON (%s)" % e) \
                from None
        if not isinstance(msg, dict):
            raise RefusedError("the page sent something the host cannot use: not an object")
        return msg

    @staticmethod
    def _check_id(msg_id):
        if isinstance(msg_id, bool) or not (
                (isinstance(msg_id, int) and 0 <= msg_id <= MAX_ID) or
                (isinstance(msg_id, str) and 0 < len(msg_id) <= MAX_TEXT_ID)):
            raise RefusedError("a desk's message carries an id: an integer from 0 to 2**53, or a "
                          "text of at most %d characters" % MAX_TEXT_ID)
        return msg_id

    def _message(self, page, text):
        """One text frame from `page`: checked, then acted on; every outcome is one reply."""
        msg_id = None
        entry = None
        kind = None
        try:
            msg = self._parse(text)
            kind = msg.get("type")
            raw_id = msg.get("id")
            if isinstance(raw_id, (int, str)) and not isinstance(raw_id, bool):
                msg_id = raw_id if isinstance(raw_id, int) or len(raw_id) <= MAX_TEXT_ID else None
            if not page.bucket.take():
                raise RefusedError("busy: this page sends faster than %d messages a second; try "
                              "again" % RATE_PER_S)
            if kind == "hello":
                self._hello(page, msg)
                return
            if kind not in ACTS:
                raise RefusedError("the page sent something the host cannot use: unknown message "
                              "type %r" % (str(kind)[:40],))
            if not page.paired:
                raise RefusedError(NOT_PAIRED)
            msg_id = self._check_id(raw_id)
            key = (page.client or "page-%x" % id(page), msg_id)
            entry = self._seen.get(key)
            if entry is not None:
                self._again(page, msg_id, entry)
                return
            if kind in ("cmd", "new_game") and len(self._awaiting) >= MAX_IN_FLIGHT:
                raise RefusedError("busy: the device is still answering %d commands; try again"
                              % len(self._awaiting))
            entry = self._seen.add(key, {"reply": None, "cid": None})
            self._act(page, kind, msg, msg_id, entry)
        except RefusedError as e:
            self._reply(page, msg_id, False, str(e))
        except LinkError as e:
            self._reply(page, msg_id, False, str(e), entry)
        except (ValueError, TypeError, KeyError, OverflowError) as e:
            self._reply(page, msg_id, False,
                        "the page sent something the host cannot use: %s" % e, entry)
        except Exception as e:  # noqa: BLE001 - a host bug: said, and the page keeps its link
            print("tablebuzz: internal error on a page's %s message (the show goes on): %s: %s"
                  % (str(kind)[:20], type(e).__name__, e), file=sys.stderr)
            self._reply(page, msg_id, False, "the host could not do it (an internal error: "
                        "%s); nothing else changed" % type(e).__name__, entry)

    def _again(self, page, msg_id, entry):
        """A message whose (client, id) was seen: never applied again. Its answer, if it has
        come; else the answer goes to this page when it comes."""
        if entry["reply"] is not None and not entry.get("late"):
            page.post(dict(entry["reply"], id=msg_id, again=True))
            return
        waiting = self._awaiting.get(entry["cid"]) if entry["cid"] is not None else None
        if waiting is not None:
            self._awaiting[entry["cid"]] = (page, msg_id) + waiting[2:]
            return
        if entry["reply"] is not None:  # late: the device's answer came after the timeout
            page.post(dict(entry["reply"], id=msg_id, again=True))
            return
        page.post({"type": "reply", "id": msg_id, "ok": False, "again": True,
                   "text": "already sent, not sent again: the device has not answered it; "
                           "look at the board"})

    def _hello(self, page, msg):
        """A page says what it is. A desk whose key is not this server's stays read-only, and
        is told so."""
        role = msg.get("role")
        if role not in ("desk", "scoreboard"):
            raise RefusedError("a hello's role is \"desk\" or \"scoreboard\"")
        client = msg.get("client")
        if isinstance(client, str) and 0 < len(client) <= MAX_TEXT_ID:
            page.client = client
        if role == "desk":
            page.role = "desk" if self.pairing.check(msg.get("key")) else "unpaired"
        else:
            page.role = "scoreboard"
        self.broadcast()
        if page.role == "unpaired":
            raise RefusedError(NOT_PAIRED)

    def _act(self, page, kind, msg, msg_id, entry):
        """A paired desk's message (see the module doc). Raises LinkError, ValueError,
        TypeError."""
        if kind == "cmd":
            self._command(msg.get("cmd"), page, msg_id, entry)
            return  # the device's done / error is the reply
        if kind == "new_game":
            names = msg.get("names") or {}
            if not isinstance(names, dict):
                raise ValueError("names are an object")
            cmd = {"cmd": "new_game", "game": msg.get("game"), "players": msg.get("players"),
                   "options": msg.get("options") or {}}
            self.table.set_names(checked_names(names), next_game=True)  # not the running game's
            if self.recorder is not None:
                self.recorder.set_names(self.table.pending_names, next_game=True)
            self._command(cmd, page, msg_id, entry)
            return
        if kind == "mark":  # the desk tapped the word being read at the buzz
            mark = self.table.mark(msg.get("word_index"))
            if self.recorder is not None:
                self.recorder.mark(mark)
        elif kind == "photo":  # the desk shows the last photo finish again
            if not self.table.show_photo():
                raise ValueError("no race has been decided by less than 10 ms yet")
        elif kind == "screen":  # the desk puts the standings on the room's screens
            self.table.set_screen(msg.get("screen"))
        elif kind == "sound":  # the desk switches the TV's sounds and spoken calls
            self.table.set_sound(msg.get("sounds"), msg.get("speech"))
        elif kind == "power":  # the simulator's power switch (a cut, then power on)
            if not self.simulator or not hasattr(self.link, "power"):
                raise LinkError("the power switch on this page works with the simulator only")
            self.link.power(msg.get("on") is True)
        elif kind == "names":
            names = msg.get("names") or {}
            if not isinstance(names, dict):
                raise ValueError("names are an object")
            self.table.set_names(checked_names(names))
            if self.recorder is not None:
                self.recorder.set_names(self.table.pending_names)
        elif kind in ("press", "hold", "control"):
            if not self.simulator:
                raise LinkError("the buzzers on this page work with the simulator only; "
                                "on a board, press the real ones")
            if kind == "hold":
                self._hold(page, msg)
            elif kind == "press":
                player = msg.get("player")
                if not isinstance(player, int) or isinstance(player, bool) or \
                        not 1 <= player <= self.stations:
                    raise ValueError("player is a station from 1 to %d" % self.stations)
                self.link.press(player)
            else:
                name = msg.get("name")
                if name not in ("arm", "yes", "no", "undo"):
                    raise ValueError("a control is arm, yes, no or undo")
                self.link.control(name)
        if kind in ("mark", "photo", "screen", "sound", "names"):
            self.broadcast()
        self._reply(page, msg_id, True, "sent", entry)

    def _hold(self, page, msg):
        """A desk's `hold` message: its buzzer goes down (held) or up (let go) now. Checked
        first: a player from 1 to the stations, `down` a bool. Raises ValueError."""
        player, down = msg.get("player"), msg.get("down")
        if not isinstance(player, int) or isinstance(player, bool) or \
                not 1 <= player <= self.stations:
            raise ValueError("player is a station from 1 to %d" % self.stations)
        if not isinstance(down, bool):
            raise ValueError("down is true (pressed and held) or false (let go)")
        if not self.link.hold_player(player, down):
            raise ValueError("P%d's buzzer is %s" % (player, "down already" if down
                                                     else "not held"))
        (page.held.add if down else page.held.discard)(player)

    def _let_go_of(self, page):
        """A page went away: the buzzers it held are let go (none stays down for good)."""
        for player in sorted(page.held):
            with contextlib.suppress(Exception):
                self.link.hold_player(player, False)
        page.held = set()

    def _command(self, cmd, page, msg_id, entry):
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
        entry["cid"] = self._next_id
        self._awaiting[self._next_id] = (page, msg_id, time.monotonic() + REPLY_TIMEOUT_S, entry)


class FrameErrors:
    """A logging filter for uvicorn's error log: a text frame that is not UTF-8 is closed by
    uvicorn with 1007 (RFC 6455 7.4.1) and logged with a traceback; this makes it one warning
    line, since it is a page's mistake, not the server's."""

    def filter(self, record):
        if record.getMessage().startswith("Invalid UTF-8 sequence received from client"):
            record.msg, record.args = ("a page sent a text frame that is not UTF-8: closed "
                                       "(1007)"), ()
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = 30, "WARNING"
        return True


def checked_names(names):
    """{player: name} from a desk, each name checked by the device's own rule
    (refbox.games.quiz.name_fault: no control characters, no bidi controls). Raises
    ValueError naming the player."""
    from refbox.games.quiz import name_fault

    out = {}
    for k, v in names.items():
        if not isinstance(v, str):
            raise ValueError("the name of player %s is not text" % str(k)[:8])
        fault = name_fault(v)
        if fault:
            raise ValueError("the name of player %s: %s" % (str(k)[:8], fault))
        out[k] = v
    return out


def make_app(hub, allowed_hosts=None):
    """The Starlette app for `hub`, behind guard.HostOriginGuard (`allowed_hosts`: a set from
    guard.allowed_hosts; by default this computer's loopback names only)."""

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
    app = Starlette(routes=routes, lifespan=lifespan)
    allowed = allowed_hosts if allowed_hosts is not None else guard.allowed_hosts("127.0.0.1")
    return guard.HostOriginGuard(app, allowed)
