"""The application loop: capture -> debounce -> arbitration -> game -> protocol events and LEDs.

`App.step()` is one pass of the loop; on the board `run()` repeats it every millisecond, in the
simulator the runner calls it on the virtual clock. The App reads the clock once per step (the
board's clock, passed in) and hands that time to the pure core.
Interrupts record, the loop decides: the board's handlers only fill the capture ring.
"""

from refbox import FIRMWARE_VERSION, PROTOCOL_VERSION
from refbox.arbiter import ARMED, DECIDED, READY, Arbiter
from refbox.capture import RECORD_PIO, RECORD_RESYNC, EdgeDecoder
from refbox.controls import ControlButtons
from refbox.debounce import Debouncer
from refbox.games import GAMES
from refbox.games.base import Game, GameError, parse_options  # noqa: F401 (Game: type comment)
from refbox.leds import render
from refbox.prng import Prng, commitment, seed_hex
from refbox.protocol import LineAssembler, ProtocolError, encode_event, parse_command
from refbox.ticks import Stamp, ticks_add, ticks_diff


class App:
    capture_lag_us = (
        1000  # presses may sit this long in the PIO FIFO / ring before the loop sees them
    )
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
        self.game = None  # type: Game  # type: ignore[assignment]
        self.arbiter = Arbiter(None)
        self.players = 0
        self.seed = None
        self.tie_shown = False
        self._frame = None
        self._tone_until = None
        self._games_started = 0
        self.now = clock.ticks_us()
        self.emit("hello", self._hello_fields())
        name, players, options = boot_game or ("quiz", self.stations, {})
        try:
            self.new_game(name, players, options)
        except GameError as e:
            self._error(e.code, e.detail)
            self.new_game("quiz", self.stations, {})

    # ------------------------------------------------------------------ output
    def emit(self, name, fields=()):
        self.board.write_line(encode_event(name, fields))

    def _error(self, code, detail):
        self.emit("error", (("code", code), ("detail", detail)))

    def _hello_fields(self):
        return (
            ("fw", FIRMWARE_VERSION),
            ("proto", PROTOCOL_VERSION),
            ("stations", self.stations),
            ("capture", self.board.capture_mode),
            ("controls", [name for name, _ in self.pinmap.CONTROLS]),
            ("games", sorted(GAMES)),
        )

    # ------------------------------------------------------------------ the loop
    def run(self):  # pragma: no cover - the board's forever loop
        sleep_ms = self.clock.sleep_ms
        while True:
            try:
                self.step()
            except Exception as e:  # a bug must not kill the referee mid-game: report, go on
                self._error("internal", "%s: %s" % (type(e).__name__, e))
            sleep_ms(self.loop_ms)

    def step(self):
        """One pass of the loop at the clock's current tick."""
        self.now = now = self.clock.ticks_us()
        settled = Stamp(ticks_add(now, -self.capture_lag_us))
        happenings = []
        self._read_capture(happenings)
        for deb in self.debouncers:
            deb.poll(settled, happenings)
        self._handle_switches(happenings)
        for name in self.controls.poll(self.board.control_levels(), now):
            self.control(name)
        data = self.board.read_input()
        if data:
            for item in self.assembler.feed(data):
                if isinstance(item, ProtocolError):
                    self._error(item.code, item.detail)
                else:
                    self.command_line(item)
        out = []
        self.arbiter.tick(settled, out)
        self._handle_arbiter(out)
        if self._tone_until is not None and ticks_diff(now, self._tone_until) >= 0:
            self.board.tone(0)
            self._tone_until = None
        self._show(now)

    def is_busy(self):
        """True while something is timed: the simulator keeps stepping every loop period until
        False."""
        if self.arbiter.is_busy() or self._tone_until is not None or not self.controls.is_idle():
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
        if ring.lost:
            ring.lost = 0
            self._error("capture_overflow", "capture ring overflowed; levels re-read from GPIO_IN")
            self.decoder.snapshot(self.board.player_levels(), self.clock.ticks_us(), edges)
        for station, closed, stamp in edges:
            self.debouncers[station].edge(closed, stamp, happenings)

    def _handle_switches(self, happenings):
        presses = [h for h in happenings if h[0] == "press"]
        if not presses:
            return
        ref = presses[0][2]
        presses.sort(key=lambda h: (h[2].diff_ns(ref), h[1]))
        for _, station, stamp in presses:
            if station >= self.players:
                continue
            self.emit("press", (("player", station + 1), ("t_us", stamp.us), ("t_ns", stamp.ns)))
            out = []
            self.arbiter.press(station, stamp, out)
            self._handle_arbiter(out)

    def _handle_arbiter(self, out):
        for item in out:
            kind = item[0]
            if kind == "lockout":
                self.emit(
                    "lockout", (("player", item[1] + 1), ("reason", item[2]), ("ms", item[3]))
                )
                self.tone(220, 200)
            elif kind == "unlock":
                self.emit("unlock", (("player", item[1] + 1),))
            elif kind == "margin":
                self.emit(
                    "margin",
                    (("winner", item[1] + 1), ("player", item[2] + 1), ("margin_ns", item[3])),
                )
            elif kind == "race":
                _, winner, margin, tied, first = item
                self.tie_shown = bool(tied)
                self.emit(
                    "race",
                    (
                        ("winner", winner + 1),
                        ("margin_ns", margin),
                        ("tie", bool(tied)),
                        ("tied", [p + 1 for p in tied]),
                        ("t_us", first.us),
                        ("t_ns", first.ns),
                    ),
                )
                self.tone(1760, 150)
                self._record(self.game.win_entry(winner))

    # ------------------------------------------------------------------ game flow
    def new_game(self, name, players, given_options):
        """Start game `name` for `players` with options from the wire. Raises GameError."""
        if name not in GAMES:
            raise GameError("unknown_game", "games: %s" % ", ".join(sorted(GAMES)))
        cls = GAMES[name]
        high = min(cls.max_players, self.stations)
        if not cls.min_players <= players <= high:
            raise GameError(
                "bad_players", "%s takes %d to %d players" % (name, cls.min_players, high)
            )
        options = parse_options(cls.OPTIONS, given_options)
        if self.game is not None and self.game.phase != "over" and self.game.log:
            self._game_over(abandoned=True)  # reveal the seed of a game that was played
        self.game = cls(players, options)
        self.players = players
        self._games_started += 1
        self.seed = self.board.entropy()
        self.arbiter = Arbiter(Prng(self.seed))
        self.arbiter.false_start = options.get("false_start", 250)
        self.tie_shown = False
        self.emit(
            "game",
            (
                ("game", name),
                ("players", players),
                ("options", options),
                ("commit", commitment(self.seed)),
            ),
        )
        self._sync_arbiter()

    def _record(self, entry):
        for name, fields in self.game.record(entry):
            self.emit(name, fields)
        self._sync_arbiter()

    def _sync_arbiter(self):
        game = self.game
        phase = game.phase
        arbiter = self.arbiter
        if phase == "over":
            arbiter.idle()
            self._game_over(abandoned=False)
        elif phase == "ready":
            if arbiter.phase != READY:
                arbiter.ready()
        elif phase == "racing":
            eligible = game.eligible()
            if arbiter.phase != ARMED or arbiter.eligible != eligible:
                arbiter.arm(Stamp(self.now), eligible)
                self.tie_shown = False
                self.emit("armed", (("players", [p + 1 for p in eligible]),))
                self.tone(988, 80)
        elif arbiter.phase != DECIDED:
            arbiter.idle()

    def _game_over(self, abandoned):
        game = self.game
        self.emit(
            "game_over",
            (
                ("game", game.name),
                (
                    "ranking",
                    [{"place": pl, "player": p, "points": pts} for pl, p, pts in game.ranking()],
                ),
                ("abandoned", abandoned),
                ("seed", seed_hex(self.seed)),
            ),
        )
        game.phase = "over"

    def control(self, name):
        """A control button (or the `control` command): arm, yes, no, undo."""
        try:
            if self.game.phase == "over":
                raise GameError("not_now", "the game is over; start a new one")
            if name == "arm":
                self._record(self.game.arm_entry())
            elif name == "yes" or name == "no":
                self._record(self.game.judge_entry(name == "yes"))
            elif name == "undo":
                self.undo()
            else:
                self._error("bad_value", "unknown control %s" % name)
        except GameError as e:
            self._error(e.code, e.detail)

    def undo(self):
        dropped = self.game.undo()
        self.emit("undo", (("dropped", dropped),))
        self.emit("score", (("scores", list(self.game.scores)),))
        self._sync_arbiter()

    # ------------------------------------------------------------------ commands
    def command_line(self, line):
        try:
            name, args = parse_command(line)
            self.command(name, args)
        except ProtocolError as e:
            self._error(e.code, e.detail)
        except GameError as e:
            self._error(e.code, e.detail)

    def command(self, name, args):
        """Run one parsed command (see docs/protocol.md). Raises ProtocolError or GameError."""
        if name == "hello":
            self.emit("hello", self._hello_fields())
        elif name == "state":
            self.emit("state", self._state_fields())
        elif name == "new_game":
            self.new_game(
                args["game"], args.get("players", self.stations), args.get("options", {})
            )
        elif name == "control":
            self.control(args["name"])
        elif self.game.phase == "over":
            raise GameError("not_now", "the game is over; start a new one")
        elif name == "arm":
            self._record(self.game.arm_entry())
        elif name == "judge":
            self._record(self.game.judge_entry(args["correct"]))
        elif name == "undo":
            self.undo()
        elif name == "end":
            self._record(("end",))

    def _state_fields(self):
        game = self.game
        return (
            ("game", game.name),
            ("players", self.players),
            ("phase", game.phase),
            ("scores", list(game.scores)),
            ("eligible", [p + 1 for p in game.eligible()]),
            ("locked", sorted([p + 1 for p in self.arbiter.locked])),
            ("log", len(game.log)),
        )

    # ------------------------------------------------------------------ LEDs and sound
    def tone(self, freq, ms):
        self.board.tone(freq)
        self._tone_until = ticks_add(self.now, ms * 1000)

    def _show(self, now):
        if self.board.pixels_mask_irqs and self.arbiter.phase == ARMED:
            return  # a CPU NeoPixel write would mask the capture interrupts while a race is open
        pm = self.pinmap
        frame = render(self, now // 1000, pm.PLAYER_COLOURS, pm.STATION_PIXELS, pm.MARKER_PIXELS)
        if frame != self._frame:
            self._frame = frame
            self.board.show(frame)
