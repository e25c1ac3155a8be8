"""The connection layer (tablebuzz.link.connection): the simulator in real time, and a board over a
serial port, here the firmware running under the real MicroPython unix port behind a
pseudo-terminal: resync on connect, an unplug mid-line, a replug, a busy port, a port where
nothing answers, and garbage on the line."""

import os
import select
import time

import pytest
import serial
from helpers import unix_port_board
from tablebuzz.link.connection import BoardConnection, SimConnection, encode_command
from tablebuzz.link.serial_link import LinkError

HEADER = {"seed": "5", "game": None, "players": 4, "options": {}, "capture": "pio",
          "pixels": "pio", "bounce": "typical", "ticks_origin_us": 0}


def collect(link, until, timeout=20.0):
    """Items from `link` until `until(items)` is true; fails after `timeout` s."""
    items = []
    deadline = time.monotonic() + timeout
    while not until(items):
        assert time.monotonic() < deadline, "gave up waiting; got %r" % items[-12:]
        items += link.wait(0.1)
    return items


def events(items, kind=None):
    return [i.event for i in items if i.kind == "event" and (kind is None or
                                                             i.event["ev"] == kind)]


def has_event(kind, **fields):
    def check(items):
        return any(all(ev.get(k) == v for k, v in fields.items()) for ev in events(items, kind))
    return check


# ------------------------------------------------------------------------------ commands
def test_commands_are_compact_json_with_cmd_first_and_bounded():
    assert encode_command({"players": 2, "cmd": "new_game", "game": "quiz"}) == (
        '{"cmd":"new_game","players":2,"game":"quiz"}')
    assert encode_command({"cmd": "act", "text": "Zoé\x03"}) == (
        '{"cmd":"act","text":"Zoé\\u0003"}')  # no raw Ctrl-C can reach the board
    with pytest.raises(LinkError, match="too long"):
        encode_command({"cmd": "act", "text": "x" * 600})
    with pytest.raises(LinkError):
        encode_command(["arm"])


# ------------------------------------------------------------------------------ simulator
class FakeClock:
    def __init__(self):
        self.t = 50.0

    def __call__(self):
        return self.t


def test_simulator_runs_on_the_wall_clock_and_takes_commands_and_presses():
    clock = FakeClock()
    link = SimConnection(dict(HEADER, game="quiz"), clock=clock)
    link.start()
    clock.t += 0.1
    first = link.poll()
    assert [i.event["ev"] for i in first][:3] == ["hello", "game", "score"]
    assert all(i.ns <= 80_000_000 for i in first)  # the world stays 20 ms behind the clock
    link.send({"cmd": "arm"})
    clock.t += 0.1
    assert events(link.poll(), "armed")
    at = link.now_ns()
    assert link.press(3) == (True, 0)
    assert link.press(3) == (False, 0)  # still held: ignored, as a held key
    clock.t += 0.2
    race = events(link.poll(), "race")
    assert race[0]["winner"] == 3
    # stamped at the wall-clock instant it was pressed, not when the world got there
    press_us = race[0]["t_us"] * 1000 + race[0]["t_ns"]
    assert 0 <= press_us - at < 100_000
    with pytest.raises(LinkError, match="no station P9"):
        link.press(9)
    with pytest.raises(LinkError, match="no control"):
        link.control("reset")


def test_simulator_plays_a_timeline_and_the_caller_at_once():
    from tablebuzz.sim.timeline import parse

    records = parse('{"at_us": 100000, "control": "arm"}\n', 4, ["arm", "yes", "no", "undo"])
    clock = FakeClock()
    link = SimConnection(dict(HEADER, game="quiz"), records=records, clock=clock)
    link.start()
    clock.t += 0.3
    assert events(link.poll(), "armed")
    link.press(2)
    clock.t += 0.3
    assert events(link.poll(), "race")[0]["winner"] == 2


# ------------------------------------------------------------------------------ a board on a pty
@pytest.fixture
def board(tmp_path):
    cable = unix_port_board(tmp_path / "ttyBOARD", dict(HEADER, game=None))
    yield cable
    cable.close()


@pytest.mark.micropython
def test_board_on_a_pty_resyncs_survives_an_unplug_mid_line_and_a_replug(board):
    link = BoardConnection(str(board.path), retry_s=0.1)
    link.start()
    try:
        # on connect the host asks hello + state: the board answers (the menu, here)
        items = collect(link, lambda it: events(it, "hello") and events(it, "menu"))
        assert items[0].kind == "status" and "connected" in items[0].text
        link.send({"cmd": "new_game", "game": "quiz", "players": 3})
        collect(link, has_event("game", game="quiz"))
        link.send({"cmd": "arm"})
        collect(link, has_event("armed"))

        board.unplug(partial=b'{"ev":"press","pla')  # the cable goes mid-line
        items = collect(link, lambda it: any(i.kind == "status" and "lost" in i.text
                                             for i in it))
        assert any("cut off" in i.text for i in items if i.kind == "notice")
        assert not events(items, "press")  # half a line is never taken for an event
        with pytest.raises(LinkError, match="no board connected"):
            link.send({"cmd": "judge", "correct": True})

        board.plug()  # same name, new pty: the host finds it again and resyncs
        items = collect(link, has_event("state", phase="racing"))
        assert any(i.kind == "status" and "connected" in i.text for i in items)
        assert events(items, "hello")
        state = events(items, "state")[-1]
        assert state["game"] == "quiz" and state["players"] == 3  # the game went on
        assert "Traceback" not in "".join(i.text for i in items)
    finally:
        link.close()


def test_busy_port_is_said_once_then_taken_when_freed(tmp_path):
    master, slave = os.openpty()
    name = os.ttyname(slave)
    holder = serial.Serial(name, exclusive=True)  # another program holds the port
    link = BoardConnection(name, retry_s=0.05, hello_timeout_s=30)
    link.start()
    try:
        time.sleep(0.4)
        items = link.poll()
        busy = [i for i in items if i.kind == "status"]
        assert len(busy) == 1 and "is busy" in busy[0].text and "waiting" in busy[0].text
        holder.close()
        collect(link, lambda it: any("connected" in i.text for i in it))
        assert os.read(master, 100).startswith(b'{"cmd":"hello"}')  # the resync asked
    finally:
        link.close()
        os.close(master)
        os.close(slave)


def test_port_where_nothing_answers_says_so_after_the_timeout():
    master, slave = os.openpty()
    link = BoardConnection(os.ttyname(slave), hello_timeout_s=0.5)
    link.start()
    try:
        items = collect(link, lambda it: any(i.kind == "notice" for i in it), timeout=10)
        notice = [i for i in items if i.kind == "notice"][0].text
        assert "no answer from %s after 0.5 s" % os.ttyname(slave) in notice
        assert "make flash" in notice
    finally:
        link.close()
        os.close(master)
        os.close(slave)


def test_garbage_from_the_board_becomes_notices_and_events_still_come_through():
    master, slave = os.openpty()
    link = BoardConnection(os.ttyname(slave))
    link.start()
    try:
        collect(link, lambda it: any("connected" in i.text for i in it))
        os.write(master, b"MicroPython v1.28.0 on 2026-01-01; Raspberry Pi Pico\r\n>>> \r\n"
                 b"\xff\xfe\r\n[1,2]\r\n{\"no_ev\":1}\r\n" + b"x" * 700 + b"\r\n"
                 b'{"ev":"hel' )
        time.sleep(0.05)
        os.write(master, b'lo","fw":"0.1.0"}\r\n')
        items = collect(link, lambda it: events(it, "hello"))
        notices = [i.text for i in items if i.kind == "notice"]
        assert notices == [
            "board console: MicroPython v1.28.0 on 2026-01-01; Raspberry Pi Pico  "
            "[not JSON: Expecting value]",
            "board console: >>>   [not JSON: Expecting value]",
            "board console: \ufffd\ufffd  [not UTF-8 (byte 0xff at 0)]",
            "board console: [1,2]  [not a JSON object (a list)]",
            'not a protocol event (no "ev"): {"no_ev":1}',
            "dropped a line longer than 512 bytes",
        ]
        assert events(items, "hello") == [{"ev": "hello", "fw": "0.1.0"}]
    finally:
        link.close()
        os.close(master)
        os.close(slave)


def test_lost_output_lines_make_the_host_ask_for_the_state():
    """The board's output queue filled while the host was not reading (`output_overflow`,
    docs/protocol.md): the connection asks for `state` at once, so its view catches up."""
    master, slave = os.openpty()
    link = BoardConnection(os.ttyname(slave))
    link.start()
    try:
        collect(link, lambda it: any("connected" in i.text for i in it))
        time.sleep(0.2)
        os.read(master, 4096)  # the hello + state sent on connect
        os.write(master, b'{"ev":"error","code":"output_overflow","detail":"3 lines lost"}\r\n')
        collect(link, lambda it: events(it, "error"))
        sent = b""
        deadline = time.monotonic() + 5
        while b'"state"' not in sent and time.monotonic() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                sent += os.read(master, 4096)
        assert sent == b'{"cmd":"state"}\n'
    finally:
        link.close()
        os.close(master)
        os.close(slave)


def test_a_missing_port_is_fatal_only_when_asked():
    link = BoardConnection("/dev/ttyNOPE", first_failure_fatal=True)
    link.start()
    items = collect(link, lambda it: it, timeout=10)
    assert items[0].fatal and "no MicroPython board found on /dev/ttyNOPE" in items[0].text
    link.close()
    waiting = BoardConnection("/dev/ttyNOPE", retry_s=0.05)
    waiting.start()
    time.sleep(0.3)
    items = waiting.poll()
    waiting.close()
    assert len(items) == 1 and not items[0].fatal and "waiting for a board" in items[0].text
