"""A desk's command flood on `tablebuzz show --sim`, with and without a page that never reads.

The real server (the CLI under uvicorn on 127.0.0.1) plays a 2-player quiz. A paired desk (the
key from the banner) sends N `adjust` +1 commands as fast as its WebSocket takes them; every
answer is timed from the moment its command was sent. Printed: how many were "done" and how
many refused "busy", the answer time p50 / p99 / max, and whether the score equals the number
of "done" (nothing applied twice, nothing run late). The second run adds a page that completed
its handshake and never reads (a 4 KiB receive buffer) and a scoreboard that does: how many
views the scoreboard got meanwhile, and the longest gap between two of them.

    .venv/bin/python bench/bench_show_flood.py [N]
"""

import asyncio
import base64
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

TABLEBUZZ = Path(sys.executable).parent / "tablebuzz"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(name="bench_show_flood"):
    """`tablebuzz show --sim` (a 2-player quiz, seed 1, no records) on a free port of 127.0.0.1:
    (process, port, the desk's key read from the banner), once it answers. Exits, the server
    stopped, when it does not within 30 s (`name` says whose bench)."""
    port = free_port()
    proc = subprocess.Popen(
        [str(TABLEBUZZ), "show", "--sim", "--game", "quiz", "--players", "2", "--seed", "1",
         "--http", "127.0.0.1:%d" % port, "--no-records"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    key = ""
    for line in proc.stderr:
        if line.startswith("tablebuzz: desk "):
            key = line.split()[2].partition("#key=")[2]
            break
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port, key
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise SystemExit("%s: the server did not start" % name) from None
            time.sleep(0.1)


def stuck_page(port):
    """A socket that did the WebSocket handshake and will never read."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13"
               "\r\n\r\n" % (port, key)).encode())
    return s


async def flood(port, key, n, watch):
    import websockets

    uri = "ws://127.0.0.1:%d/ws" % port
    views = []

    async def scoreboard(stop):
        async with websockets.connect(uri, max_size=None) as ws:
            while not stop.is_set():
                try:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                except TimeoutError:
                    continue
                if msg["type"] == "view":
                    views.append(time.monotonic())

    stop = asyncio.Event()
    board = asyncio.create_task(scoreboard(stop)) if watch else None
    async with websockets.connect(uri, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "role": "desk", "key": key,
                                  "client": "bench"}))
        sent = {}
        answers = {}

        async def reader():
            while len(answers) < n:
                msg = json.loads(await ws.recv())
                if msg["type"] == "reply" and msg["id"] in sent and msg["id"] not in answers:
                    answers[msg["id"]] = (time.monotonic() - sent[msg["id"]], msg)

        reading = asyncio.create_task(reader())
        t0 = time.monotonic()
        for i in range(n):
            sent[i] = time.monotonic()
            await ws.send(json.dumps({"type": "cmd", "id": i, "cmd": {
                "cmd": "act", "action": "adjust", "player": 1, "value": 1}}))
        await asyncio.wait_for(reading, 120)
        elapsed = time.monotonic() - t0
    stop.set()
    if board is not None:
        await board
    return answers, elapsed, views


def report(label, port, answers, elapsed, views):
    times = sorted(t * 1000 for t, _ in answers.values())
    done = sum(1 for _, m in answers.values() if m["ok"])
    busy = sum(1 for _, m in answers.values() if m["text"].startswith("busy"))
    other = len(answers) - done - busy
    time.sleep(6)  # longer than the host's reply timeout: anything late would have run
    with urllib.request.urlopen("http://127.0.0.1:%d/api/view" % port, timeout=10) as r:
        score = json.loads(r.read())["view"]["game"]["scores"][0]
    print("%s: %d commands in %.2f s: %d done, %d busy, %d other; answer p50 %.1f ms, "
          "p99 %.1f ms, max %.1f ms; score %d (%s the done count)" % (
              label, len(answers), elapsed, done, busy, other, statistics.median(times),
              times[int(len(times) * 0.99) - 1], times[-1], score,
              "equals" if score == done else "DIFFERS FROM"))
    if views:
        gaps = [b - a for a, b in zip(views, views[1:], strict=False)]
        print("    a reading scoreboard meanwhile: %d views, longest gap %.0f ms" % (
            len(views), max(gaps) * 1000 if gaps else 0))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    for label, with_stuck in (("flood", False), ("flood + a page that never reads", True)):
        proc, port, key = start()
        stuck = stuck_page(port) if with_stuck else None
        try:
            answers, elapsed, views = asyncio.run(flood(port, key, n, with_stuck))
            report(label, port, answers, elapsed, views)
        finally:
            if stuck is not None:
                stuck.close()
            proc.terminate()
            proc.wait(15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
