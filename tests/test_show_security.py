"""`tablebuzz show` attacked as docs/security.md says it may be: from another origin in the host's
own browser (real Chromium, a second local server), with a forged Host (DNS rebinding), from a
plain WebSocket client that never paired, with a flood of commands, a page that never reads, and
frames no browser would send. Each attack runs against the real server (the CLI under uvicorn on
127.0.0.1, or the app under uvicorn in this process) and reads what a user would see: replies,
views, scores, and the server's log.
"""

import asyncio
import base64
import contextlib
import http.server
import json
import os
import socket
import struct
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import websockets
from test_show import browser, on, open_page, show, wait_text  # noqa: F401 - fixtures


def run(coro, timeout=120):
    """Run `coro` on a loop of its own (Playwright's sync API holds this thread's loop), for at
    most `timeout` s (then TimeoutError)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(coro, timeout)).result()


def ws_url(server):
    return server.url.replace("http", "ws") + "/ws"


async def until(ws, test, timeout=20, seen=None):
    """The first message from `ws` for which test(msg) is true; every message before it is
    appended to `seen` (a list), if given."""
    deadline = time.monotonic() + timeout
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic())))
        if test(msg):
            return msg
        if seen is not None:
            seen.append(msg)


def raw_ws(port, host=None, rcvbuf=None):
    """A socket that did a WebSocket handshake with the server by hand; (socket, status line)."""
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
               % (host or "127.0.0.1:%d" % port, key)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            break
        head += chunk
    return s, head.split(b"\r\n")[0].decode()


def http_get(port, path, headers):
    """(status, body text) of a GET of `path` on 127.0.0.1:`port` with these `headers`."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def ws_status(port, host=None):
    """The status line of a WebSocket handshake on 127.0.0.1:`port` (`host`: its Host)."""
    s, status = raw_ws(port, host=host)
    s.close()
    return status


def frame(opcode, payload):
    """One masked client frame."""
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_close(s, timeout=10):
    """The close code the server sent on raw socket `s` (frames before it skipped)."""
    s.settimeout(timeout)
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return None
        data += chunk
        while len(data) >= 2:
            opcode, n = data[0] & 0x0F, data[1] & 0x7F
            at = 2
            if n == 126:
                n, at = struct.unpack(">H", data[2:4])[0], 4
            elif n == 127:
                n, at = struct.unpack(">Q", data[2:10])[0], 10
            if len(data) < at + n:
                break
            if opcode == 0x8:
                return struct.unpack(">H", data[at:at + 2])[0] if n >= 2 else 1005
            data = data[at + n:]


# ------------------------------------------------------------------------------ Host and Origin
def test_a_forged_host_is_refused_on_every_request_and_the_websocket(show):  # noqa: F811
    """DNS rebinding: a name that resolves to 127.0.0.1 reaches the server with its own Host.
    Every route answers 403; the WebSocket handshake is refused; the real names still work."""
    server = show("--sim")
    for path in ("/", "/desk", "/api/view", "/api/games", "/overlay", "/static/desk.js"):
        status, body = http_get(server.port, path, {"Host": "evil.example:%d" % server.port})
        assert status == 403, (path, status)
        assert "evil.example" in body and "allow-host" in body
    for host in ("localhost:%d" % server.port, "127.0.0.1:%d" % server.port,
                 "[::1]:%d" % server.port):
        assert http_get(server.port, "/api/view", {"Host": host})[0] == 200, host
    status = ws_status(server.port, host="evil.example:%d" % server.port)
    assert " 403 " in status, status
    status = ws_status(server.port)
    assert " 101 " in status, status


def test_allow_host_adds_a_name(show):  # noqa: F811
    server = show("--sim", "--allow-host", "quiz.example")
    assert http_get(server.port, "/", {"Host": "quiz.example:%d" % server.port})[0] == 200


class _Attacker(http.server.SimpleHTTPRequestHandler):
    page = b""

    def do_GET(self):  # noqa: N802 - http.server's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def attacker_site(page):
    """A second local web server (another origin) serving `page` (bytes)."""
    handler = type("Handler", (_Attacker,), {"page": page})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield "http://127.0.0.1:%d/" % httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_page_from_another_origin_cannot_act_even_with_the_key(browser, show):  # noqa: F811
    """A page of another local server, open in the host's own browser, opens the show's
    WebSocket and (as if the key had leaked) pairs and adjusts P2 by +777: the handshake is
    refused, P2's score stays 0, and the real desk still works."""
    server = show("--sim", "--game", "quiz", "--players", "2")
    evil = ("""<!doctype html><script>
window.result = "pending";
const ws = new WebSocket("ws://127.0.0.1:%d/ws");
ws.onopen = () => { window.result = "open";
  ws.send(JSON.stringify({type: "hello", role: "desk", key: "%s", client: "evil"}));
  ws.send(JSON.stringify({type: "cmd", id: 1, cmd: {cmd: "act", action: "adjust", player: 2,
                          value: 777}})); };
ws.onmessage = (e) => {
  const m = JSON.parse(e.data); if (m.type === "reply") window.result = m.text; };
ws.onclose = () => { if (window.result === "pending") window.result = "refused"; };
</script>""" % (server.port, server.key)).encode()
    board = browser.new_page()
    page = browser.new_page()
    desk = browser.new_page()
    try:
        open_page(board, server.url + "/")
        wait_text(board, "#players", ["P2"])
        with attacker_site(evil) as url:
            page.goto(url)
            page.wait_for_function("() => window.result !== 'pending' && window.result !== "
                                   "'open'", timeout=20000)
            assert page.evaluate("() => window.result") == "refused"
        time.sleep(0.5)
        assert "777" not in board.locator("#players").inner_text()
        open_page(desk, server.desk)  # the host's own desk, same origin: it acts
        desk.evaluate("() => send({type: 'cmd', cmd: {cmd: 'act', action: 'adjust', player: 2,"
                      " value: 5}}, 'adjust')")
        wait_text(board, "[data-player='2'] .score", ["5"])
        wait_text(on(desk), "#message", ["done"])
    finally:
        for p in (board, page, desk):
            p.close()


# ------------------------------------------------------------------------------ pairing
ACTIONS = [
    {"type": "cmd", "cmd": {"cmd": "act", "action": "adjust", "player": 1, "value": 1000}},
    {"type": "new_game", "game": "quiz", "players": 2, "names": {"1": "Mallory"}},
    {"type": "names", "names": {"1": "Mallory"}},
    {"type": "mark", "word_index": 1},
    {"type": "photo"},
    {"type": "screen", "screen": "standings"},
    {"type": "press", "player": 1},
    {"type": "control", "name": "arm"},
    {"type": "power", "on": False},
]


def test_a_client_that_is_not_paired_is_refused_every_command_and_sees_no_desk_data(show):  # noqa: F811
    """A plain WebSocket client (no hello; a desk hello without the key; with a wrong key)
    gets "not a paired desk" for every action and views without `desk_only` (the packet's
    answers). The paired desk gets them; the key is nowhere in what the room's pages get."""
    import urllib.request

    from tablebuzz.paths import REPO

    server = show("--sim", "--game", "quiz", "--players", "2",
                  "--packet", str(REPO / "examples" / "packet_sample.json"))
    qr = [server.proc.stderr.readline() for _ in range(4)]  # the desk URL's QR code, after it
    assert "scan this" in qr[0] and "█" in qr[2], qr

    async def attack(hello):
        async with websockets.connect(ws_url(server)) as ws:
            seen = []
            if hello is not None:
                await ws.send(json.dumps(hello))
                seen.append(await until(ws, lambda m: m["type"] == "reply", seen=seen))
            replies = {}
            for i, action in enumerate(ACTIONS):
                await ws.send(json.dumps(dict(action, id=i + 1)))
                replies[i + 1] = await until(ws, lambda m: m["type"] == "reply", timeout=5,
                                             seen=seen)
            return seen, replies

    async def all_attacks():
        out = []
        for hello in (None, {"type": "hello", "role": "desk"},
                      {"type": "hello", "role": "desk", "key": server.key[:-1] + "x"},
                      {"type": "hello", "role": "desk", "key": ["x"]}):
            out.append(await attack(hello))
        return out

    for seen, replies in run(all_attacks()):
        assert all(r["ok"] is False and "not a paired desk" in r["text"]
                   for r in replies.values()), replies
        views = [m for m in seen if m["type"] == "view"]
        assert views
        for msg in views:
            assert "desk_only" not in msg["view"] and msg["paired"] is False
            assert "ANSWER" not in json.dumps(msg) and "gold" not in json.dumps(msg)

    async def paired():
        async with websockets.connect(ws_url(server)) as ws:
            await ws.send(json.dumps({"type": "hello", "role": "desk", "key": server.key,
                                      "client": "t"}))
            view = await until(ws, lambda m: m["type"] == "view" and m["paired"])
            await ws.send(json.dumps(dict(ACTIONS[0], id=1)))
            reply = await until(ws, lambda m: m["type"] == "reply")
            return view, reply

    view, reply = run(paired())
    assert view["view"]["desk_only"]["packet"]["tossup"]["answer"] == "gold"
    assert reply == {"type": "reply", "id": 1, "ok": True, "text": "done"}
    api = urllib.request.urlopen(server.url + "/api/view", timeout=10).read().decode()
    page = urllib.request.urlopen(server.url + "/", timeout=10).read().decode()
    assert server.key not in api and server.key not in page and "desk_only" not in api
    # the room's score did not move for any unpaired attempt: only the paired +1000
    assert json.loads(api)["view"]["game"]["scores"] == [1000, 0]


# ------------------------------------------------------------------------------ commands
def test_a_flood_of_adjust_commands_is_answered_at_once_and_applied_once(show):  # noqa: F811
    """2,000 `adjust` +1 sent as fast as a client can: every one is answered exactly once,
    "done" or refused "busy: ... try again", never "no answer"; the score is the number of
    "done" answers, and stays so (nothing runs later). The same ids sent again apply nothing."""
    server = show("--sim", "--game", "quiz", "--players", "2")
    n = 2000

    async def flood():
        async with websockets.connect(ws_url(server), max_queue=None) as ws:
            await ws.send(json.dumps({"type": "hello", "role": "desk", "key": server.key,
                                      "client": "flood"}))
            for i in range(n):
                await ws.send(json.dumps({"type": "cmd", "id": i, "cmd": {
                    "cmd": "act", "action": "adjust", "player": 1, "value": 1}}))
            replies = {}
            while len(replies) < n:
                msg = await until(ws, lambda m: m["type"] == "reply")
                assert msg["id"] not in replies, msg
                replies[msg["id"]] = msg
            await asyncio.sleep(REPLY_WAIT_S)  # anything that would run late runs now
            done = [i for i, r in replies.items() if r["ok"]]
            # the same ids again (a retry after a lost answer): each answered, none applied
            for i in done[:20]:
                await ws.send(json.dumps({"type": "cmd", "id": i, "cmd": {
                    "cmd": "act", "action": "adjust", "player": 1, "value": 1}}))
            again = [await until(ws, lambda m: m["type"] == "reply") for _ in done[:20]]
            return replies, again

    replies, again = run(flood())
    texts = [r["text"] for r in replies.values()]
    done = sum(1 for r in replies.values() if r["ok"])
    assert all(t == "done" or t.startswith("busy:") for t in texts), set(texts)
    assert done > 0 and "no answer" not in " ".join(texts)
    assert all(r["ok"] and r["again"] and r["text"] == "done" for r in again), again
    import urllib.request

    view = json.loads(urllib.request.urlopen(server.url + "/api/view", timeout=10).read())
    assert view["view"]["game"]["scores"][0] == done


REPLY_WAIT_S = 6.0  # longer than the host's REPLY_TIMEOUT_S: a late command would have run


# ------------------------------------------------------------------------------ slow screens
def test_a_page_that_never_reads_does_not_stop_the_other_pages(tmp_path):
    """A client that completes the handshake and never reads (a tiny receive buffer): 600 large
    views broadcast; the hub never waits on it, and a reading page gets the last view."""
    import uvicorn
    from refbox import pinmap
    from tablebuzz.link.connection import RecordConnection
    from tablebuzz.views.show.server import Hub, make_app
    from tablebuzz.views.table import Table

    table = Table(pinmap.PLAYER_COLOURS, source={"kind": "replay", "label": "test"})
    hub = Hub(RecordConnection([]), table, None, simulator=True, stations=8)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(make_app(hub), host="127.0.0.1", port=port, log_level="warning",
                            ws_max_size=64 * 1024)
    server = uvicorn.Server(config)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(server.serve(),),
                              daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        stuck, status = raw_ws(port, rcvbuf=4096)
        assert " 101 " in status
        stuck.sendall(frame(0x1, json.dumps({"type": "hello", "role": "scoreboard"}).encode()))

        async def many():
            for i in range(600):
                table.notices = ["%d %s" % (i, "x" * 20000)]
                result = hub.broadcast()
                if asyncio.iscoroutine(result):  # the hub's broadcast as it was
                    await result
                await asyncio.sleep(0)
            return True

        assert asyncio.run_coroutine_threadsafe(asyncio.wait_for(many(), 60), loop).result(90)

        async def reader():
            async with websockets.connect("ws://127.0.0.1:%d/ws" % port,
                                          max_size=None) as ws:
                msg = await until(ws, lambda m: m["type"] == "view", timeout=20)
                return msg["view"]["notices"][0].split()[0]

        assert run(reader(), 60) == "599"
        stuck.close()
    finally:
        server.should_exit = True
        thread.join(15)


# ------------------------------------------------------------------------------ malformed frames
def test_malformed_frames_get_a_clear_close_or_error_and_no_traceback(show):  # noqa: F811
    """Frames no page sends: binary, 4,000 nested brackets, a huge one, bad UTF-8, wrong types.
    Each gets an error reply or a close with a code that says why; the server's log has no
    traceback and the page that sent a bad message still works."""
    server = show("--sim", "--game", "quiz", "--players", "2")
    cases = {}
    for name, opcode, payload in (
            ("binary", 0x2, b'{"type": "hello"}'),
            ("huge", 0x1, b'"' + b"x" * 200000 + b'"'),
            ("bad utf-8", 0x1, b'{"type": "hello", "role": "\xff\xfe"}')):
        s, status = raw_ws(server.port)
        assert " 101 " in status
        s.sendall(frame(opcode, payload))
        cases[name] = read_close(s)
        s.close()
    assert cases == {"binary": 1003, "huge": 1009, "bad utf-8": 1007}, cases

    bad = ["[" * 4000 + "]" * 4000, '{"type": "hello"' + "," * 10, "[]", '"x"', "17",
           json.dumps({"type": 5}), json.dumps({"type": "hello", "role": ["desk"]}),
           json.dumps({"type": "cmd", "id": {"a": 1}, "cmd": {"cmd": "arm"}}),
           json.dumps({"type": "cmd", "id": True, "cmd": {"cmd": "arm"}}),
           json.dumps({"type": "cmd", "id": 2 ** 80, "cmd": {"cmd": "arm"}}),
           json.dumps({"type": "cmd", "id": 3, "cmd": [[[["arm"]]]]}),
           json.dumps({"type": "cmd", "id": 4, "cmd": {"cmd": {"x": 1}}}),
           json.dumps({"type": "press", "id": 5, "player": "1e999"}),
           json.dumps({"type": "press", "id": 6, "player": 10 ** 30}),
           json.dumps({"type": "control", "id": 7, "name": {"arm": 1}}),
           json.dumps({"type": "names", "id": 8, "names": ["Ann"]}),
           json.dumps({"type": "names", "id": 9, "names": {"1": {"x": 1}}}),
           json.dumps({"type": "new_game", "id": 10, "game": ["quiz"], "players": "2"}),
           json.dumps({"type": "mark", "id": 11, "word_index": -1e308}),
           json.dumps({"type": "screen", "id": 12, "screen": {"x": []}}),
           json.dumps({"type": "x" * 3000, "id": 13})]

    async def wrong_types():
        async with websockets.connect(ws_url(server)) as ws:
            await ws.send(json.dumps({"type": "hello", "role": "desk", "key": server.key,
                                      "client": "bad"}))
            replies = []
            for text in bad:
                await ws.send(text)
                replies.append(await until(ws, lambda m: m["type"] == "reply"))
            await ws.send(json.dumps({"type": "cmd", "id": 99, "cmd": {
                "cmd": "act", "action": "adjust", "player": 2, "value": 3}}))
            last = await until(ws, lambda m: m["type"] == "reply")
            return replies, last

    replies, last = run(wrong_types())
    assert all(r["ok"] is False and r["text"] for r in replies), replies
    assert last == {"type": "reply", "id": 99, "ok": True, "text": "done"}
    err = server.stop()
    assert "Traceback" not in err and "Exception" not in err and "ERROR" not in err, err
