"""The one connection layer of the host tools: a real board over USB serial, or the simulator in
real time. `tablebuzz monitor`, the TUI (`tablebuzz sim`) and the scoreboard (`tablebuzz show`)
all talk to the device through a `Connection` and nothing else.

A connection is polled: `poll()` returns the `Item`s that arrived since the last call, without
blocking; `wait(timeout)` blocks until there are some. An item is an `event` (a protocol event:
`event` holds the dict, `text` the line exactly as received), a `notice` (console text that is
not a protocol line: a REPL banner, a traceback, a cut-off line; shown to people, never fatal) or
a `status` (the link itself: connected, lost, waiting; `fatal` when it will not try again).
`send(cmd)` sends one command dict; it raises `LinkError` (one line for people) when there is no
board to send it to. Commands are never queued for later: an `arm` that reached the board a
minute late would start a race nobody expects.

- `BoardConnection(port=None)`: finds a Pico by its USB vendor id 0x2E8A (or uses `port`), opens
  it exclusively, and on open sends `hello` and `state` so the host learns what the board is
  doing (a resync: the board keeps the game; the host only lost its view of it). A port that
  fails (unplugged, busy, vanished) is retried every `retry_s`; each reconnect resyncs the same
  way. A board that answers nothing for `hello_timeout_s` gets a notice saying so. The reading
  runs on a thread; `poll()` hands its items over.
- `SimConnection(header, records)`: the firmware in the simulator (tablebuzz.sim.runner) on the
  wall clock. Simulated ns 0 is the moment `start()` is called; `poll()` runs the world up to the
  wall clock minus `lag_s`, so a press stamped "now" by the caller is still in the simulated
  future and keeps its exact time. It is driven by a timeline (`records`), by the caller
  (`send`, `tap`, `press`, `control`), or both. The firmware loop is stepped every simulated
  millisecond, as on the board.
"""

import json
import queue
import threading
import time

import serial

from tablebuzz.link import serial_link
from tablebuzz.link.serial_link import LineError, LineReader, LineTooLong, LinkError, parse_line

MAX_COMMAND = serial_link.MAX_LINE  # bytes a command line may hold (the firmware's bound)
HELLO_TIMEOUT_S = 3.0
RETRY_S = 1.0

# The simulator on the wall clock (see SimConnection).
LAG_S = 0.020  # the world runs this far behind the wall clock: the margin for input to arrive
MAX_BEHIND_NS = 5_000_000_000  # after a stall (a suspended process) simulated time skips the rest
HOLD_NS = 120_000_000  # a tap holds its contact this long (the timeline's default control press)
MIN_HOLD_NS = 30_000_000  # a held contact opens no sooner than this after it closed: the shortest
# press a hand makes (a page's pointer down and up can come a few ms apart), always a press to
# the debouncer (refbox.debounce: 1 ms closed), never noise


class Item:
    """One thing that came over a connection (see the module doc). `wall` is time.time() when
    it arrived; `ns` the simulated ns (simulator only, else None)."""

    __slots__ = ("kind", "text", "event", "wall", "ns", "fatal")

    def __init__(self, kind, text, event=None, ns=None, fatal=False, wall=None):
        self.kind = kind
        self.text = text
        self.event = event
        self.ns = ns
        self.fatal = fatal
        self.wall = time.time() if wall is None else wall

    def __repr__(self):  # for test failures only
        return "Item(%s, %r)" % (self.kind, self.text)


def encode_command(cmd):
    """One command line (str, no newline) for `cmd`, a dict with "cmd" first. UTF-8 text is sent
    as is (the firmware reads UTF-8); control characters are escaped by JSON, so a 0x03 (Ctrl-C)
    can never slip into a command. Raises LinkError when the line would exceed 512 bytes."""
    if not isinstance(cmd, dict) or not isinstance(cmd.get("cmd"), str):
        raise LinkError("a command is a JSON object with a \"cmd\" field")
    body = {"cmd": cmd["cmd"]}
    body.update((k, v) for k, v in cmd.items() if k != "cmd")
    line = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    if len(line.encode("utf-8")) > MAX_COMMAND:
        raise LinkError("command too long (%d bytes; the board takes %d)" % (
            len(line.encode("utf-8")), MAX_COMMAND))
    return line


def items_from_lines(reader_items, ns=None):
    """Items for what `LineReader.feed` framed: events, or notices for anything else."""
    out = []
    for raw in reader_items:
        if isinstance(raw, LineTooLong):
            out.append(Item("notice", "dropped a line longer than %d bytes" % raw.limit, ns=ns))
            continue
        try:
            event = parse_line(raw)
        except LineError as e:
            out.append(Item("notice", "board console: %s  [%s]" % (
                raw.decode("utf-8", "replace"), e.reason), ns=ns))
            continue
        if not isinstance(event.get("ev"), str):
            out.append(Item("notice", "not a protocol event (no \"ev\"): %s" % raw.decode(
                "utf-8", "replace"), ns=ns))
            continue
        out.append(Item("event", raw.decode("utf-8"), event, ns=ns))
    return out


class Connection:
    """The interface every host tool uses (see the module doc)."""

    label = "device"
    connected = False

    def start(self):
        """Begin (open the port / start the clock). Idempotent."""

    def poll(self):
        """[Item] arrived since the last call; never blocks."""
        raise NotImplementedError

    def wait(self, timeout):
        """[Item]: blocks up to `timeout` s for at least one."""
        deadline = time.monotonic() + timeout
        while True:
            items = self.poll()
            if items or time.monotonic() >= deadline:
                return items
            time.sleep(0.005)

    def send(self, cmd):
        """Send one command dict. Raises LinkError (not connected, too long, write failed)."""
        raise NotImplementedError

    def close(self):
        """Stop and release the port; idempotent."""


# ------------------------------------------------------------------------------ a real board
class BoardConnection(Connection):
    """A board over USB serial, found by VID or named by `port`, reconnected when it goes away.

    `first_failure_fatal`: if the very first attempt cannot open a port, post a fatal status and
    stop (for `monitor`, where a wrong --port should fail at once); otherwise keep waiting for a
    board (for `show`, whose page says "waiting for a board"). `opener(port)` opens a port
    (tests pass another); it raises LinkError.
    """

    def __init__(self, port=None, retry_s=RETRY_S, hello_timeout_s=HELLO_TIMEOUT_S,
                 first_failure_fatal=False, opener=None):
        self.port = port
        self.retry_s = retry_s
        self.hello_timeout_s = hello_timeout_s
        self.first_failure_fatal = first_failure_fatal
        self._opener = opener or serial_link.open_port
        self._queue = queue.Queue()
        self._ser = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        self.connected = False
        self.device = None  # the port in use now
        self.label = "board" + (" on %s" % port if port else "")

    def start(self):
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="tablebuzz-serial",
                                            daemon=True)
            self._thread.start()

    def poll(self):
        out = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out

    def wait(self, timeout):
        try:
            first = self._queue.get(timeout=timeout)
        except queue.Empty:
            return []
        return [first] + self.poll()

    def send(self, cmd):
        line = encode_command(cmd)
        with self._write_lock:
            ser = self._ser
            if ser is None:
                raise LinkError("no board connected%s; the command was not sent" % (
                    " (waiting for %s)" % self.port if self.port else " (waiting for one)"))
            try:
                ser.write(line.encode("utf-8") + b"\n")
                ser.flush()
            except (OSError, serial.SerialException) as e:
                raise LinkError("could not send to the board on %s: %s" % (
                    self.device, _first_line(e))) from None

    def close(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._drop_port()

    # ---------------------------------------------------------------- the reading thread
    def _post(self, kind, text, fatal=False):
        self._queue.put(Item(kind, text, fatal=fatal))

    def _run(self):
        last_problem = None
        first = True
        while not self._stop.is_set():
            try:
                device = serial_link.choose_port(self.port)
                ser = self._opener(device)
            except LinkError as e:
                if first and self.first_failure_fatal:
                    self._post("status", str(e), fatal=True)
                    return
                if str(e) != last_problem:  # say it once, not every retry
                    self._post("status", "%s; waiting for a board" % e)
                    last_problem = str(e)
                first = False
                self._stop.wait(self.retry_s)
                continue
            first = False
            last_problem = None
            self._serve(device, ser)
            if not self._stop.is_set():
                self._stop.wait(self.retry_s)

    def _serve(self, device, ser):
        with self._write_lock:
            self._ser = ser
        self.device = device
        self.connected = True
        reader = LineReader()
        answered = False
        try:
            self.send({"cmd": "hello"})  # resync: who are you, and what is going on
            self.send({"cmd": "state"})
        except LinkError as e:
            self._post("notice", str(e))
        self._post("status", "connected to the board on %s" % device)
        deadline = time.monotonic() + self.hello_timeout_s
        while not self._stop.is_set():
            try:
                data = ser.read(ser.in_waiting or 1)
            except (OSError, serial.SerialException, TypeError) as e:
                # TypeError: pyserial reading a port closed under it by another thread
                cut = reader.pending
                self._post("status", "lost the board on %s (unplugged?): %s; reconnecting" % (
                    device, _first_line(e)))
                if cut:
                    self._post("notice", "a line was cut off by the loss (%d bytes dropped)"
                               % cut)
                break
            items = items_from_lines(reader.feed(data))
            for item in items:
                if item.kind == "event":
                    answered = True
                self._queue.put(item)
                if item.kind == "event" and _lost_lines(item.event):
                    try:  # the board dropped lines we never read: ask where the game is now
                        self.send({"cmd": "state"})
                    except LinkError as e:
                        self._post("notice", str(e))
            if not answered and time.monotonic() > deadline:
                self._post("notice", (
                    "no answer from %s after %g s: is it a board running the tablebuzz "
                    "firmware? (flash it with make flash; see docs/flashing.md)")
                    % (device, self.hello_timeout_s))
                answered = True  # said once
        self._drop_port()

    def _drop_port(self):
        with self._write_lock:
            ser, self._ser = self._ser, None
        self.connected = False
        if ser is not None:
            try:
                ser.close()
            except (OSError, serial.SerialException):
                pass  # already gone (unplugged): nothing left to release


def _lost_lines(event):
    """True for the board's `output_overflow` error: its output queue filled while the host was
    not reading and lines were lost (docs/protocol.md "Errors": send `state` to resync)."""
    return event.get("ev") == "error" and event.get("code") == "output_overflow"


def _first_line(exc):
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


# ------------------------------------------------------------------------------ the simulator
class SimConnection(Connection):
    """The firmware in the simulator on the wall clock (see the module doc).

    `header`: the simulation header (tablebuzz.sim.runner); `records`: normalized timeline
    records (tablebuzz.sim.timeline), played at their simulated ns; `clock`: the wall clock in
    seconds (tests pass a fake one: the world then moves only when it does).
    """

    label = "simulator"

    def __init__(self, header, records=None, clock=time.monotonic, lag_s=LAG_S):
        from tablebuzz.sim import simulate

        self.header = dict(header)
        self._clock = clock
        self.lag_s = lag_s
        self._origin = None
        self._inbox = []
        self.sim = simulate.simulation(self.header, self._sink)
        self.world = self.sim.world
        self.players = self.sim.players
        self.controls = self.sim.controls
        self._held_until = {}
        self._holding = {}  # contact -> the sim ns it closed, while held (`hold`)
        self.connected = True
        self.sim.step_every_loop()
        for rec in records or ():
            self.world.at(rec["t"], self.sim._record, rec)

    # ---------------------------------------------------------------- the clock
    def start(self):
        if self._origin is None:
            self._origin = self._clock()

    def sim_ns(self, wall):
        """Simulated ns for a wall-clock time (seconds on the connection's clock)."""
        return int(round((wall - self._origin) * 1e9))

    def now_ns(self):
        """Simulated ns of the wall clock's now (ahead of the world by the lag)."""
        return self.sim_ns(self._clock())

    def pump(self):
        """Run the world up to the wall clock minus the lag."""
        if self._origin is None:
            return
        target = self.sim_ns(self._clock() - self.lag_s)
        behind = target - self.world.now
        if behind > MAX_BEHIND_NS:  # the process was stopped: skip, do not replay the gap
            self._origin += (behind - MAX_BEHIND_NS) / 1e9
            target = self.world.now + MAX_BEHIND_NS
        if target > self.world.now:
            self.world.run_until(target)

    def _sink(self, ns, line):
        self._inbox.append((ns, line))

    def poll(self):
        self.pump()
        lines, self._inbox = self._inbox, []
        out = []
        for ns, line in lines:
            out += items_from_lines([line.encode("utf-8")], ns=ns)
        return out

    # ---------------------------------------------------------------- input
    def send(self, cmd):
        line = encode_command(cmd)
        self.start()
        self.world.at(max(self.world.now, self.now_ns()), self._feed, line)

    def _feed(self, line):
        self.sim._record({"k": "send", "line": line})

    def _closing(self, contact, at_ns):
        """When `contact` closes for `tap` or `hold`: (simulated ns, late_ns), `at_ns` (default:
        the wall clock's now) moved to the world's now if already past (late_ns by how much);
        None while the contact is still closed (an earlier tap, a hold)."""
        self.start()
        if at_ns is None:
            at_ns = self.now_ns()
        if at_ns < self._held_until.get(contact, -1) or contact in self._holding:
            return None
        if at_ns < self.world.now:
            return self.world.now, self.world.now - at_ns
        return at_ns, 0

    def tap(self, contact, at_ns=None, hold_ns=HOLD_NS):
        """Close `contact` at simulated `at_ns` (default: the wall clock's now) and open it
        `hold_ns` later. Returns (accepted, late_ns): not accepted while the contact is still
        held from an earlier tap; `late_ns` > 0 when `at_ns` was already past (a stall), the
        press then happening at the world's now."""
        closing = self._closing(contact, at_ns)
        if closing is None:
            return False, 0
        at_ns, late = closing
        self._held_until[contact] = at_ns + hold_ns
        self.world.at(at_ns, _close, contact)
        self.world.at(at_ns + hold_ns, _open, contact)
        return True, late

    def hold(self, contact, at_ns=None):
        """Close `contact` at simulated `at_ns` (default: the wall clock's now) and keep it closed
        until `let_go`: a button held as long as the hand holds it. Returns (accepted, late_ns)
        as `tap` does: not accepted while the contact is closed already (a tap, a hold)."""
        closing = self._closing(contact, at_ns)
        if closing is None:
            return False, 0
        at_ns, late = closing
        self._holding[contact] = at_ns
        self.world.at(at_ns, _close, contact)
        return True, late

    def let_go(self, contact, at_ns=None):
        """Open `contact`, closed by `hold`, at simulated `at_ns` (default: the wall clock's
        now), no sooner than MIN_HOLD_NS after it closed. Returns the ns it opens at, or None
        when it was not held."""
        since = self._holding.pop(contact, None)
        if since is None:
            return None
        if at_ns is None:
            at_ns = self.now_ns()
        at_ns = max(at_ns, self.world.now, since + MIN_HOLD_NS)
        self._held_until[contact] = at_ns
        self.world.at(at_ns, _open, contact)
        return at_ns

    def holding(self):
        """The contacts held now (by `hold`, not yet let go)."""
        return list(self._holding)

    def power(self, on):
        """Switch the simulated board's power off (`on` False: a cut, its journal kept on the
        simulated flash when the simulation has one) or on again, now. Raises LinkError when the
        simulation has no flash (the game would be lost: `show --sim --flash`)."""
        if "flash" not in self.header:
            raise LinkError("this simulation has no flash, a power cut would lose the game: "
                            "start it with --flash")
        self.start()
        self.world.at(max(self.world.now, self.now_ns()), self.sim._record,
                      {"k": "power", "on": bool(on)})

    def press(self, player, hold_ns=HOLD_NS, at_ns=None):
        """Tap player `player`'s buzzer (1-based). Raises LinkError for a station that does not
        exist."""
        if not 1 <= player <= len(self.players):
            raise LinkError("no station P%s (this box has %d)" % (player, len(self.players)))
        return self.tap(self.players[player - 1], at_ns, hold_ns)

    def hold_player(self, player, down, at_ns=None):
        """Player `player`'s buzzer (1-based) pressed and held (`down` True) or let go (False),
        at their own instants (`hold`, `let_go`). Returns True when it changed: False for a
        buzzer already down, or let go while not held. Raises LinkError for a station that does
        not exist."""
        if not 1 <= player <= len(self.players):
            raise LinkError("no station P%s (this box has %d)" % (player, len(self.players)))
        contact = self.players[player - 1]
        if down:
            return self.hold(contact, at_ns)[0]
        return self.let_go(contact, at_ns) is not None

    def control(self, name, hold_ns=HOLD_NS, at_ns=None):
        """Tap control button `name` (arm, yes, no, undo). Raises LinkError for another name."""
        if name not in self.controls:
            raise LinkError("no control %s (controls: %s)" % (name, ", ".join(self.controls)))
        return self.tap(self.controls[name], at_ns, hold_ns)


def _close(contact):
    contact.press()


def _open(contact):
    contact.release()


# ------------------------------------------------------------------------------ a saved game
class RecordConnection(Connection):
    """A saved game played back on the wall clock (`tablebuzz replay --show`).

    `lines`: [(seconds from the start, protocol line text)] in order; `speed`: 2.0 plays twice as
    fast. Gaps longer than `max_gap_s` (a pause at the table) are shortened to it. Commands are
    refused: a record cannot change.
    """

    label = "replay"

    def __init__(self, lines, speed=1.0, clock=time.monotonic, max_gap_s=5.0):
        self.speed = speed if speed > 0 else 1.0
        self._clock = clock
        self._origin = None
        self._lines = []
        offset = 0.0
        last = None
        for t, text in lines:
            if last is not None:
                offset += min(max(t - last, 0.0), max_gap_s)
            last = t
            self._lines.append((offset, text))
        self._next = 0
        self.connected = True

    def start(self):
        if self._origin is None:
            self._origin = self._clock()

    @property
    def done(self):
        return self._next >= len(self._lines)

    def poll(self):
        if self._origin is None:
            return []
        elapsed = (self._clock() - self._origin) * self.speed
        out = []
        while self._next < len(self._lines) and self._lines[self._next][0] <= elapsed:
            out += items_from_lines([self._lines[self._next][1].encode("utf-8")])
            self._next += 1
        return out

    def send(self, cmd):
        raise LinkError("this is a replay of a saved game: nothing can be sent to it")
