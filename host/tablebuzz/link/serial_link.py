"""The USB serial link to a board: finding its port, opening it, and framing its byte stream into
lines. The connection layer (tablebuzz.link.connection) builds the host tools' link on these
pieces.

The board's USB CDC console turns every "\\n" into "\\r\\n", may be interrupted mid-line (unplug,
soft reset), and prints non-protocol text too (the boot banner, tracebacks, the ">>> " prompt).
So the host side never trusts the stream: `LineReader` frames bytes into bounded lines whatever
the chunking, and `parse_line` turns one line into a dict or a `LineError` with a clear reason.

Errors a user can cause (no board, busy port, no permission, unplug) become a `LinkError` whose
text is one line in plain words (what happened, what to do), never a traceback.
"""

import errno
import json
import os

import serial
import serial.tools.list_ports

PICO_VID = 0x2E8A  # Raspberry Pi: every rp2 MicroPython build enumerates with this USB vendor id
# CircuitPython on a Pico enumerates as Adafruit's (ports/raspberrypi/boards/raspberry_pi_pico/
# mpconfigboard.mk: USB_VID 0x239A) with two serial channels; the protocol is on the second, whose
# interface is named "CircuitPython CDC2 control" (shared-module/usb_cdc/__init__.c)
CIRCUITPYTHON_VID = 0x239A
CIRCUITPYTHON_DATA = "CDC2"
MAX_LINE = 512  # bytes per protocol line, CR/LF excluded; the firmware's protocol.MAX_LINE
DOCS = "see docs/flashing.md"


class LinkError(Exception):
    """A problem with the port or the board, as one line for people (no "tablebuzz:" prefix)."""


class LineError(ValueError):
    """A line that is not a protocol line: `reason` says why, `raw` holds its bytes (maybe b"")."""

    def __init__(self, reason, raw=b""):
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


# -------------------------------------------------------------------------------- finding ports
def find_boards(circuitpython=True):
    """Serial ports that look like a Pico running the referee, sorted by device: MicroPython's
    (USB VID 0x2E8A) and, with `circuitpython`, CircuitPython's protocol channel (VID 0x239A,
    the "CDC2" interface; where the system does not name interfaces, every such port).

    Returns a list of pyserial `ListPortInfo` (with `device`, `serial_number`, `description`).
    """
    found = []
    for p in serial.tools.list_ports.comports():
        if p.vid == PICO_VID:
            found.append(p)
        elif circuitpython and p.vid == CIRCUITPYTHON_VID:
            interface = getattr(p, "interface", None)
            if interface is None or CIRCUITPYTHON_DATA in interface:
                found.append(p)  # (the console channel, "CDC control", keeps the REPL)
    return sorted(found, key=lambda p: p.device)


def describe_ports(ports):
    """One line naming each port and, when known, its USB serial number: "a (serial X), b"."""
    return ", ".join(
        p.device + (" (serial %s)" % p.serial_number if p.serial_number else "") for p in ports
    )


def choose_port(port=None):
    """The port to use: `port` itself if given, else the single Pico found by USB VID.

    Raises LinkError when no Pico is plugged in, or when several are (the user must pick one).
    """
    if port:
        return port
    boards = find_boards()
    if not boards:
        raise LinkError(
            "no MicroPython board found (no USB serial port with vendor id 2e8a), nor a "
            "CircuitPython one's data channel (239a) — plug in a Pico running the referee (%s)"
            % DOCS
        )
    if len(boards) > 1:
        raise LinkError("several boards found: %s — pick one with --port" % describe_ports(boards))
    return boards[0].device


def open_error(port, exc):
    """One-line LinkError for a failure to open `port`, from the pyserial/OS exception `exc`.

    Sorts the usual causes apart by errno: missing port, someone else holding it (another
    mpremote or terminal; on Linux also ModemManager probing new modems), no permission.
    """
    code = getattr(exc, "errno", None)
    text = str(exc)
    if isinstance(exc, ValueError):  # pyserial: a name or setting it cannot use
        return LinkError("cannot use %s as a serial port (%s)" % (port, text or "bad name"))
    if code in (errno.ENOENT, errno.ENXIO, errno.ENODEV):
        return LinkError(
            "no MicroPython board found on %s — plug in a Pico running MicroPython (%s)"
            % (port, DOCS)
        )
    if code in (errno.EACCES, errno.EPERM):
        return LinkError(
            "permission denied on %s — on Linux add yourself to the dialout group "
            "(sudo usermod -aG dialout $USER, then log in again)" % port
        )
    if code in (errno.EBUSY, errno.EAGAIN) or "exclusively lock" in text:
        return LinkError(
            "%s is busy — close the other program using it (mpremote, a terminal, Thonny; "
            "on Linux also ModemManager)" % port
        )
    if code == errno.ENOTTY:
        return LinkError("%s is not a serial port — give the board's port, e.g. --port "
                         "/dev/ttyACM0 (list them: python -m serial.tools.list_ports)" % port)
    if code == errno.EISDIR:
        return LinkError("%s is a folder, not a serial port" % port)
    if isinstance(code, int):
        return LinkError("cannot open %s: %s" % (port, os.strerror(code).lower()))
    first = text.splitlines()[0] if text else "unknown error"
    return LinkError("cannot open %s: %s" % (port, first))


def probe_open(port):
    """Open and close `port` once, only to learn why it cannot be opened.

    Returns None when it opens fine, else the LinkError describing why not. Used after a
    library (mpremote) failed with a generic message that lost the errno.
    """
    try:
        serial.Serial(port, 115200, exclusive=True).close()
    except (OSError, ValueError) as e:  # SerialException is an OSError; ValueError: bad name
        return open_error(port, e)
    return None


def open_port(port, timeout=0.2):
    """An open `serial.Serial` on `port`, locked exclusively so no second program interleaves.

    `timeout` (s) bounds each read so Ctrl-C is seen promptly. Raises LinkError.
    """
    try:
        return serial.Serial(port, 115200, timeout=timeout, exclusive=True)
    except (OSError, ValueError) as e:
        raise open_error(port, e) from None


# ------------------------------------------------------------------------------------ framing
class LineTooLong:
    """Marker that `LineReader` emits where it dropped a line longer than `limit` bytes."""

    def __init__(self, limit):
        self.limit = limit

    def __eq__(self, other):
        return isinstance(other, LineTooLong) and other.limit == self.limit

    def __hash__(self):
        return hash(("LineTooLong", self.limit))

    def __repr__(self):
        return "LineTooLong(%d)" % self.limit


class LineReader:
    """Cuts a byte stream into complete lines, whatever sizes the chunks arrive in.

    `feed(data: bytes) -> list` returns, in stream order, each complete line as `bytes` (without
    its LF; every CR removed, since the console writes "\\r\\n" and JSON text never holds a raw CR;
    empty lines dropped) and a `LineTooLong` marker for each line longer than `max_line` bytes.
    A long line is reported as soon as it crosses the limit and its remaining bytes are skipped up
    to the next LF, so memory stays bounded at `max_line` bytes even if the LF never comes.
    Bytes are not decoded here: non-UTF-8 garbage reaches `parse_line`, which reports it.
    """

    def __init__(self, max_line=MAX_LINE):
        self.max_line = max_line
        self._buf = bytearray()
        self._skipping = False  # inside a too-long line, already reported

    def feed(self, data):
        out = []
        parts = bytes(data).replace(b"\r", b"").split(b"\n")
        for i, part in enumerate(parts):
            if not self._skipping:
                if len(self._buf) + len(part) > self.max_line:
                    self._buf = bytearray()
                    self._skipping = True
                    out.append(LineTooLong(self.max_line))
                else:
                    self._buf += part
            if i < len(parts) - 1:  # an LF followed this part: the line is complete
                if self._buf:
                    out.append(bytes(self._buf))
                self._buf = bytearray()
                self._skipping = False
        return out

    @property
    def pending(self):
        """Bytes of the incomplete current line held so far (0 while skipping a long line)."""
        return len(self._buf)


def parse_line(raw):
    """The protocol event in one line (bytes from `LineReader`) as a dict.

    Raises LineError("not UTF-8 ..."), LineError("not JSON: ...") or
    LineError("not a JSON object ...") — the console also prints banners and tracebacks.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LineError("not UTF-8 (byte 0x%02x at %d)" % (raw[e.start], e.start), raw) from None
    try:
        value = json.loads(text)
    except ValueError as e:
        raise LineError("not JSON: %s" % e.msg, raw) from None
    if not isinstance(value, dict):
        raise LineError("not a JSON object (a %s)" % type(value).__name__, raw)
    return value
