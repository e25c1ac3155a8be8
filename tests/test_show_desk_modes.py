"""Every desk action in every mode of `tablebuzz show --sim`: plain, `--packet`, and a room
publishing with `--mqtt` (a Mosquitto of the test's own) or `--osc` (with the packet, so the
desk's word marks go through the rooms' Tee too). A paired desk (a WebSocket client with the
key the banner prints) starts a named game, arms, buzzes, marks the word, judges, renames,
puts the standings on the TV, asks for the photo finish, undoes, cuts and restores the power
and ends the game; each gets the answer a host expects, and the records and the broker see it.
"""

import asyncio
import json
import socket
import time

import pytest
import websockets
from brokers import Mosquitto
from tablebuzz.paths import REPO
from test_show import show  # noqa: F401 - the fixture
from test_show_security import run, until, ws_url

PACKET = str(REPO / "examples" / "packet_sample.json")
OPTIONS = {"format": "naqt", "teams": [[1], [2]]}


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def desk_session(server, packet):
    """Play every desk action; returns [(action, reply)] and the last view."""
    out = []
    async with websockets.connect(ws_url(server), max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "role": "desk", "key": server.key,
                                  "client": "modes"}))
        state = {"id": 0, "view": None}

        def keep(msg):
            if msg["type"] == "view":
                state["view"] = msg["view"]

        async def act(msg, expect=True):
            state["id"] += 1
            await ws.send(json.dumps(dict(msg, id=state["id"])))
            while True:
                reply = json.loads(await asyncio.wait_for(ws.recv(), 20))
                keep(reply)
                if reply["type"] == "reply" and reply["id"] == state["id"]:
                    break
            out.append((msg["type"], reply))
            if expect is not None:
                assert reply["ok"] is expect, (msg, reply)
            return reply

        async def view_until(test):
            if state["view"] is not None and test(state["view"]):
                return state["view"]
            msg = await until(ws, lambda m: m["type"] == "view" and test(m["view"]))
            state["view"] = msg["view"]
            return msg["view"]

        def game(v):
            return v.get("game") or {}

        await act({"type": "new_game", "game": "quiz", "players": 2, "options": OPTIONS,
                   "names": {"1": "Ann", "2": "Bob"}})
        await view_until(lambda v: game(v).get("names", {}).get("1") == "Ann")
        await act({"type": "control", "name": "arm"})
        await view_until(lambda v: game(v).get("phase") == "racing")
        await act({"type": "press", "player": 1})
        await view_until(lambda v: game(v).get("answering") == 1)
        reply = await act({"type": "mark", "word_index": 2}, expect=packet)
        if not packet:
            assert "a word is marked" in reply["text"]
        await act({"type": "cmd", "cmd": {"cmd": "judge", "correct": True}})
        await act({"type": "names", "names": {"1": "Anna", "2": "Bob"}})
        await view_until(lambda v: game(v).get("names", {}).get("1") == "Anna")
        await act({"type": "screen", "screen": "standings"})
        await view_until(lambda v: v.get("screen") == "standings")
        await act({"type": "screen", "screen": None})
        reply = await act({"type": "photo"}, expect=None)  # one press: no photo finish
        assert reply["ok"] is False and "10 ms" in reply["text"]
        await act({"type": "cmd", "cmd": {"cmd": "undo"}})
        await act({"type": "power", "on": False})
        await act({"type": "power", "on": True})
        await view_until(lambda v: game(v).get("resumed"))
        await act({"type": "cmd", "cmd": {"cmd": "end"}})
        last = await view_until(lambda v: game(v).get("over"))
    return out, last


@pytest.mark.parametrize("mode", ["plain", "packet", "mqtt", "osc"])
def test_every_desk_action_in_every_mode(show, tmp_path, mode):  # noqa: F811
    args = ["--sim", "--seed", "5", "--flash"]
    broker = None
    if mode != "plain":
        args += ["--packet", PACKET]
    if mode == "mqtt":
        broker = Mosquitto(tmp_path / "broker")
        args += ["--mqtt", "127.0.0.1:%d" % broker.port, "--room", "east",
                 "--spool", str(tmp_path / "east.jsonl")]
    if mode == "osc":
        args += ["--osc", "127.0.0.1:%d" % free_udp_port(), "--room", "east"]
    try:
        server = show(*args, records=tmp_path / "records")
        actions, last = run(desk_session(server, mode != "plain"))
        assert [a for a, _ in actions] == [
            "new_game", "control", "press", "mark", "cmd", "names", "screen", "screen", "photo",
            "cmd", "power", "power", "cmd"]
        assert last["game"]["names"]["1"] == "Anna"
        (record,) = sorted((tmp_path / "records").rglob("*.jsonl"))
        lines = [json.loads(line) for line in record.read_text().splitlines()]
        assert lines[0]["names"] == {"1": "Ann", "2": "Bob"}
        marks = [line["mark"] for line in lines if "mark" in line]
        assert marks == ([{"question": 1, "player": 1, "word_index": 2, "power": True}]
                         if mode != "plain" else [])
        if mode == "mqtt":
            import paho.mqtt.subscribe as subscribe

            # the room publishes its views coalesced, a moment after the desk's answer: the
            # retained one says the game is over once that last view is out
            deadline = time.monotonic() + 15
            while True:
                msg = subscribe.simple("tablebuzz/east/view", hostname="127.0.0.1",
                                       port=broker.port, retained=True)
                view = json.loads(msg.payload)["view"]
                if view["game"]["over"] or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            assert view["game"]["names"]["1"] == "Anna" and view["game"]["over"]
        server.stop()  # no traceback in its log
    finally:
        if broker is not None:
            broker.stop()
