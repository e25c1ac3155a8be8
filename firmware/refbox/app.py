"""The application loop: capture -> debounce -> arbitration -> game -> protocol events and LEDs.

`App.step()` is one pass of the loop; on the board `run()` repeats it every millisecond, in the
simulator the runner calls it on the virtual clock. The App reads the clock once per step (the
board's clock, passed in) and hands that time to the pure core.
Interrupts record, the loop decides: the board's handlers only fill the capture ring.
"""

from refbox import FIRMWARE_VERSION, PROTOCOL_VERSION
from refbox.arbiter import ARMED
from refbox.capture import RECORD_PIO, RECORD_RESYNC, EdgeDecoder
from refbox.controls import ControlButtons
from refbox.debounce import Debouncer
from refbox.games import GAME_ORDER
from refbox.games.base import GameError
from refbox.leds import render
from refbox.protocol import LineAssembler, ProtocolError, encode_event
from refbox.referee import Referee
from refbox.ticks import Stamp, ticks_add, ticks_diff


class App:
    capture_lag_us = 1000  # a press may wait this long in the PIO FIFO and ring
    loop_ms = 1

    def __init__(self, board, clock, pinmap, boot_game=None):
        self.board = board
        self.clock = clock
        self.pinmap = pinmap
        self.stations = pinmap.PLAYER_COUNT
        self.decoder = EdgeDecoder(self.stations, 7000, board.pio_mhz)
        self.decoder.start(board.capture_start_tick)
        self.debouncers = [Debouncer(i) for i in range(self.stations)]
        self.controls = ControlButtons([name for name, _ in pinmap.CONTROLS])
        self.assembler = LineAssembler()
        self._frame = None
        self._tone_until = None
        self.now = clock.ticks_us()
        self.referee = Referee(
            self.stations, self.emit, self.tone, board.entropy, self._hello_fields
        )
        self.emit("hello", self._hello_fields())
        if boot_game is None:
            self.referee.open_menu()
        else:
            try:
                self.referee.new_game(*boot_game)
            except GameError as e:
                self.referee.error(e.code, e.detail)
                self.referee.open_menu()

    # ------------------------------------------------------------------ output
    def emit(self, name, fields=()):
        self.board.write_line(encode_event(name, fields))

    def _error(self, code, detail):
        self.referee.error(code, detail)

    def _hello_fields(self):
        return (
            ("fw", FIRMWARE_VERSION),
            ("proto", PROTOCOL_VERSION),
            ("stations", self.stations),
            ("capture", self.board.capture_mode),
            ("controls", [name for name, _ in self.pinmap.CONTROLS]),
            ("games", list(GAME_ORDER)),
        )

    # ------------------------------------------------------------------ the loop
    def run(self):  # pragma: no cover - the board's forever loop
        sleep_ms = self.clock.sleep_ms
        ticks_us = self.clock.ticks_us
        reported = None  # tick of the last `internal` error sent
        hidden = 0
        while True:
            try:
                self.step()
            except Exception as e:  # a bug must not kill the referee mid-game: report, go on
                now = ticks_us()
                if reported is None or ticks_diff(now, reported) >= 1000000:
                    more = " (+%d more)" % hidden if hidden else ""
                    self._error("internal", "%s: %s%s" % (type(e).__name__, e, more))
                    reported, hidden = now, 0
                else:
                    hidden += 1  # at most one report a second: a repeating fault must not flood
            sleep_ms(self.loop_ms)

    def step(self):
        """One pass of the loop at the clock's current tick."""
        self.now = now = self.clock.ticks_us()
        settled = Stamp(ticks_add(now, -self.capture_lag_us))
        happenings = []
        self._read_capture(happenings)
        for deb in self.debouncers:
            deb.poll(settled, happenings)
        self.referee.now = now
        self._handle_switches(happenings)
        for name in self.controls.poll(self.board.control_levels(), now):
            self.referee.control(name)
        data = self.board.read_input()
        if data:
            self.referee.now = self.board.input_tick  # commands run at their line's arrival
            for item in self.assembler.feed(data):
                if isinstance(item, ProtocolError):
                    self._error(item.code, item.detail)
                else:
                    self.referee.command_line(item)
        horizon, press_horizon = self.horizons(settled)
        self.referee.tick(now, horizon, press_horizon)
        if self._tone_until is not None and ticks_diff(now, self._tone_until) >= 0:
            self.board.tone(0)
            self._tone_until = None
        self._show(now)

    def horizons(self, settled):
        """(horizon, press_horizon), two Stamps no later than `settled`: every press stamped at
        or before `press_horizon` has been delivered (accepted or refused as noise), and every
        press or release stamped at or before `horizon` too. A closure still being debounced
        holds them just before its first edge; a press that may be ending holds `horizon` just
        before the contact opened. `settled` = now - capture_lag_us: every edge up to it is in
        the ring. Timed decisions are taken against these (docs/architecture.md "Deadlines")."""
        horizon = press_horizon = settled
        for deb in self.debouncers:
            first = deb.press_pending()
            if first is not None and press_horizon.diff_ns(first) >= 0:
                press_horizon = first.after_ns(-1)
            since = deb.pending()
            if since is not None and horizon.diff_ns(since) >= 0:
                horizon = since.after_ns(-1)
        if horizon.diff_ns(press_horizon) > 0:
            horizon = press_horizon
        return horizon, press_horizon

    def is_busy(self):
        """True while something is timed: the simulator keeps stepping every loop period until
        False."""
        busy = self.referee.is_busy() or self._tone_until is not None
        if busy or not self.controls.is_idle():
            return True
        for deb in self.debouncers:
            if deb.is_waiting():
                return True
        return False

    # ------------------------------------------------------------------ capture
    def _read_capture(self, happenings):
        edges = []
        ring = self.board.ring
        base = self.pinmap.PLAYER_BASE_GPIO
        while ring.pending():
            kind, value, tick = ring.pop()
            if kind == RECORD_PIO:
                self.decoder.word(value, tick, edges)
            else:
                if kind == RECORD_RESYNC:
                    self._error(
                        "capture_overflow", "PIO FIFO overflowed; levels re-read from GPIO_IN"
                    )
                self.decoder.snapshot(value >> base, tick, edges)
        self.decoder.keepalive(self.now)
        if ring.lost:
            ring.lost = 0
            self._error("capture_overflow", "capture ring overflowed; levels re-read from GPIO_IN")
            self.decoder.snapshot(self.board.player_levels(), self.clock.ticks_us(), edges)
        for station, closed, stamp in edges:
            self.debouncers[station].edge(closed, stamp, happenings)

    def _handle_switches(self, happenings):
        if not happenings:
            return
        ref = happenings[0][2]
        happenings.sort(key=lambda h: (h[2].diff_ns(ref), h[1]))  # in the order they happened
        for kind, station, stamp in happenings:
            if kind == "press":
                self.referee.press(station, stamp)
            else:
                self.referee.release(station, stamp)

    # ------------------------------------------------------------------ LEDs and sound
    def tone(self, freq, ms):
        self.board.tone(freq)
        self._tone_until = ticks_add(self.now, ms * 1000)

    def _show(self, now):
        if self.board.pixels_mask_irqs and self.referee.arbiter.phase == ARMED:
            return  # a CPU NeoPixel write would mask the capture interrupts while a race is open
        pm = self.pinmap
        frame = render(
            self.referee, now // 1000, pm.PLAYER_COLOURS, pm.STATION_PIXELS, pm.MARKER_PIXELS
        )
        if frame != self._frame and self.board.show(frame) is not False:
            self._frame = frame
