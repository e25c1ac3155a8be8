"""The serial link: line framing (whatever the chunking), line parsing, port choice, and
`tablebuzz monitor`: its failure paths (one line on stderr, no traceback), its readable mode and
the commands typed into it."""

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import serial
from hypothesis import given
from hypothesis import strategies as st
from tablebuzz.link import serial_link
from tablebuzz.link.serial_link import LineError, LineReader, LineTooLong, LinkError, parse_line

TABLEBUZZ = Path(sys.executable).parent / "tablebuzz"


# ------------------------------------------------------------------------------------ LineReader
def test_console_line_endings_and_partial_lines():
    r = LineReader()
    assert r.feed(b'{"ev":"hel') == []
    assert r.pending == 10
    assert r.feed(b'lo"}\r') == []
    assert r.feed(b'\n{"ev":"x"}\r\n\r\n') == [b'{"ev":"hello"}', b'{"ev":"x"}']
    assert r.pending == 0


def test_stray_cr_anywhere_is_dropped_and_empty_lines_skipped():
    assert LineReader().feed(b"\r\r\na\rb\r\n\n\nc\n") == [b"ab", b"c"]


def test_line_at_the_limit_passes_one_byte_more_is_dropped_and_reported():
    r = LineReader(max_line=8)
    assert r.feed(b"12345678\r\n") == [b"12345678"]
    assert r.feed(b"123456789") == [LineTooLong(8)]  # reported at once, before its LF
    assert r.pending == 0
    assert r.feed(b"more of the long line" * 50) == []  # memory stays bounded while skipping
    assert r.pending == 0
    assert r.feed(b"\nok\n") == [b"ok"]


def test_default_limit_matches_the_firmware():
    from refbox import protocol

    assert serial_link.MAX_LINE == protocol.MAX_LINE == 512


def test_garbage_bytes_come_through_for_parse_line_to_report():
    assert LineReader().feed(b"\xff\xfe\x00junk\n") == [b"\xff\xfe\x00junk"]


line_bytes = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b""))


def expected(lines, limit):
    """What LineReader must produce for `lines` each followed by b"\\r\\n"."""
    out = []
    for line in lines:
        clean = line.replace(b"\r", b"")
        if len(clean) > limit:
            out.append(LineTooLong(limit))
        elif clean:
            out.append(clean)
    return out


@given(
    lines=st.lists(line_bytes, max_size=30),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=40),
    limit=st.integers(min_value=1, max_value=48),
)
def test_any_chunking_gives_the_same_lines(lines, cuts, limit):
    stream = b"".join(line + b"\r\n" for line in lines)
    bounds = sorted({c % (len(stream) + 1) for c in cuts} | {0, len(stream)})
    r = LineReader(max_line=limit)
    got = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        got += r.feed(stream[a:b])
    assert got == expected(lines, limit)
    assert got == LineReader(max_line=limit).feed(stream)
    assert r.pending == 0


@given(st.binary(max_size=600), st.integers(min_value=1, max_value=64))
def test_memory_stays_bounded_on_any_input(data, step):
    r = LineReader(max_line=32)
    for i in range(0, len(data), step):
        r.feed(data[i : i + step])
        assert r.pending <= 32


def test_loop_url_round_trip_in_odd_chunks():
    port = serial.serial_for_url("loop://", timeout=0.05)
    events = [{"ev": "hello", "v": 1}, {"ev": "press", "player": 3, "t_us": 123456}]
    wire = b"".join(json.dumps(e).encode() + b"\r\n" for e in events) + b"MPY: soft reboot\r\n"
    r = LineReader()
    got = []
    for i in range(0, len(wire), 7):  # the device writes in 7-byte bursts
        port.write(wire[i : i + 7])
        got += r.feed(port.read(port.in_waiting or 1))
    got += r.feed(port.read(port.in_waiting))
    port.close()
    assert [parse_line(line) for line in got[:2]] == events
    assert got[2] == b"MPY: soft reboot"


# ------------------------------------------------------------------------------------ parse_line
def test_parse_line_gives_a_dict():
    assert parse_line(b'{"ev":"score","p":[1,2]}') == {"ev": "score", "p": [1, 2]}


@pytest.mark.parametrize(
    "raw, reason",
    [
        (b"\xffoops", "not UTF-8 (byte 0xff at 0)"),
        (b'{"ev":', "not JSON: Expecting value"),
        (b">>> ", "not JSON: Expecting value"),
        (b"[1, 2]", "not a JSON object (a list)"),
        (b"42", "not a JSON object (a int)"),
    ],
)
def test_parse_line_errors_are_clear(raw, reason):
    with pytest.raises(LineError) as err:
        parse_line(raw)
    assert err.value.reason == reason
    assert err.value.raw == raw


# ------------------------------------------------------------------------------------ ports
def fake_port(device, serial_number=None, vid=serial_link.PICO_VID):
    return SimpleNamespace(device=device, serial_number=serial_number, vid=vid)


def test_choose_port_prefers_the_given_port(monkeypatch):
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [])
    assert serial_link.choose_port("/dev/ttyACM7") == "/dev/ttyACM7"


def test_choose_port_finds_the_one_pico_by_vid(monkeypatch):
    ports = [fake_port("/dev/ttyUSB0", vid=0x10C4), fake_port("/dev/ttyACM0", "E661")]
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports)
    assert serial_link.choose_port(None) == "/dev/ttyACM0"


def test_choose_port_with_several_picos_lists_them_and_asks(monkeypatch):
    ports = [fake_port("/dev/ttyACM1", "B"), fake_port("/dev/ttyACM0", "A")]
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports)
    with pytest.raises(LinkError) as err:
        serial_link.choose_port(None)
    assert str(err.value) == (
        "several boards found: /dev/ttyACM0 (serial A), /dev/ttyACM1 (serial B) — pick one with "
        "--port"
    )


def test_a_circuitpython_pico_is_found_by_its_data_channel(monkeypatch):
    """CircuitPython's Pico shows two ports; the protocol is on the CDC2 one, the REPL on the
    other (firmware/circuitpython/boot.py)."""
    console = SimpleNamespace(device="/dev/ttyACM0", serial_number="DE", vid=0x239A,
                              interface="CircuitPython CDC control")
    data = SimpleNamespace(device="/dev/ttyACM1", serial_number="DE", vid=0x239A,
                           interface="CircuitPython CDC2 control")
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [console, data])
    assert serial_link.choose_port(None) == "/dev/ttyACM1"
    assert serial_link.find_boards(circuitpython=False) == []  # not for MicroPython's flash


def test_choose_port_with_no_pico(monkeypatch):
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [fake_port("/x", vid=1)])
    with pytest.raises(LinkError, match="no MicroPython board found"):
        serial_link.choose_port(None)


@pytest.mark.parametrize(
    "exc, words",
    [
        (serial.SerialException(errno.ENOENT, "could not open port"), "no MicroPython board"),
        (serial.SerialException(errno.EACCES, "could not open port"), "dialout"),
        (serial.SerialException(errno.EBUSY, "could not open port"), "busy"),
        (serial.SerialException(errno.EAGAIN, "Could not exclusively lock port"), "ModemManager"),
        (serial.SerialException(errno.EIO, "I/O error"), "cannot open /dev/ttyACM0: input/"),
        (serial.SerialException(errno.ENOTTY, "ioctl"), "is not a serial port"),
        (ValueError("bad"), "cannot use /dev/ttyACM0 as a serial port"),
    ],
)
def test_open_errors_become_one_clear_line(exc, words):
    text = str(serial_link.open_error("/dev/ttyACM0", exc))
    assert words in text and "\n" not in text
    assert "Errno" not in text and "[" not in text  # plain words, no exception text


def test_monitor_on_a_missing_port_is_one_line():
    result = subprocess.run([str(TABLEBUZZ), "monitor", "--port", "/dev/ttyNOPE"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        "tablebuzz: no MicroPython board found on /dev/ttyNOPE — plug in a Pico running "
        "MicroPython (see docs/flashing.md)"
    ]


@contextlib.contextmanager
def monitor_on_pty(*args):
    """`tablebuzz monitor --port PTY ARGS` on a pseudo-terminal standing in for the board (we
    write to its master side). Yields (proc, master) once it says it is monitoring; then stops it
    with Ctrl-C (SIGINT), which must end it quietly with status 0."""
    master, slave = os.openpty()
    proc = subprocess.Popen([str(TABLEBUZZ), "monitor", "--port", os.ttyname(slave)] + list(args),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while not proc.stderr.readline().startswith("tablebuzz: monitoring"):
            assert time.monotonic() < deadline and proc.poll() is None
        yield proc, master
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
        os.close(master)
        os.close(slave)
    assert proc.returncode == 0
    assert "Traceback" not in err


def test_monitor_on_a_pty_prints_events_and_stops_quietly_on_ctrl_c():
    with monitor_on_pty() as (proc, master):
        os.write(master, b'{"ev":"hel')
        time.sleep(0.05)
        os.write(master, b'lo","v":1}\r\n')
        assert json.loads(proc.stdout.readline()) == {"ev": "hello", "v": 1}


def test_monitor_pretty_sends_typed_commands_and_explains_bad_ones():
    with monitor_on_pty("--pretty") as (proc, master):
        proc.stdin.write("judge yes\nfly away\nact give player=2 value=3\n")
        proc.stdin.flush()
        assert "unknown command 'fly away'" in proc.stderr.readline()
        sent = b""
        while sent.count(b"\n") < 4:  # hello + state (the resync), then the two commands
            sent += os.read(master, 1000)
        assert sent.splitlines() == [
            b'{"cmd":"hello"}', b'{"cmd":"state"}', b'{"cmd":"judge","correct":true}',
            b'{"cmd":"act","action":"give","player":2,"value":3}',
        ]
        os.write(master, b'{"ev":"race","winner":3,"margin_ns":840000,"tie":false,"tied":[],'
                         b'"t_us":1,"t_ns":0}\r\n')
        assert proc.stdout.readline() == "race: P3 by 840.00 µs\n"


@pytest.mark.parametrize("typed, cmd", [
    ("arm", {"cmd": "arm"}),
    ("judge no", {"cmd": "judge", "correct": False}),
    ("new quiz 4 {\"false_start\": 500}",
     {"cmd": "new_game", "game": "quiz", "players": 4, "options": {"false_start": 500}}),
    ("control undo:hold", {"cmd": "control", "name": "undo:hold"}),
    ('{"cmd":"act","action":"count","value":7}', {"cmd": "act", "action": "count", "value": 7}),
    ("act hearts player=3", {"cmd": "act", "action": "hearts", "player": 3}),
])
def test_typed_commands(typed, cmd):
    from tablebuzz.views.monitor import parse_command

    assert parse_command(typed) == cmd


@pytest.mark.parametrize("typed", ["", "judge maybe", "new quiz four", "act give 2", "{1"])
def test_typed_mistakes_are_refused_with_a_reason(typed):
    from tablebuzz.views.monitor import CommandError, parse_command

    with pytest.raises(CommandError):
        parse_command(typed)


def test_monitor_on_a_port_where_nothing_answers_says_so():
    with monitor_on_pty() as (proc, _):
        deadline = time.monotonic() + 20
        line = ""
        while "no answer from" not in line:
            assert time.monotonic() < deadline and proc.poll() is None
            line = proc.stderr.readline()
        assert "after 3 s" in line and "make flash" in line
