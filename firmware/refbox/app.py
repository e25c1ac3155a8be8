"""The application loop: capture -> debounce -> arbitration -> game -> protocol events and LEDs.

`App.step()` is one pass of the loop; on the board `run()` repeats it every millisecond, in the
simulator the runner calls it on the virtual clock. The App reads the clock once per step (the
board's clock, passed in) and hands that time to the pure core.
Interrupts record, the loop decides: the board's handlers only fill the capture ring.
"""

from refbox import FIRMWARE_VERSION, PROTOCOL_VERSION
from refbox.arbiter import ARMED, DECIDED, READY
from refbox.capture import open_reader
from refbox.compat import const
from refbox.controls import ControlButtons
from refbox.debounce import bank_of
from refbox.games import GAME_ORDER, warm
from refbox.games.base import GameError
from refbox.leds import moves, palette_colours, render
from refbox.protocol import LineAssembler, ProtocolError, encode_event, encode_race
from refbox.referee import Referee
from refbox.ticks import Stamp, ticks_add, ticks_diff

# Persist before emit (docs/architecture.md "The journal"): a decision's lines wait until the
# journal holds it, except these time-critical ones, which go out at once (ahead of a decision
# still waiting): the race path (a winner must not wait for the flash; the save before the
# race covers it, and a resume names a race it reopened), every line while a race is open (no
# write may happen then), and lockouts while a race is about to open (a false start's: the
# players must see it).
AT_ONCE = ("press", "race", "margin", "armed")
# Lines that decide nothing: they never make a decision wait, and keep their place behind one.
NEUTRAL = ("hello", "error", "state", "menu", "done", "buttons")
# where the stamp is in the (key, value) fields of a `race` event (winner, margin_ns, tie, tied,
# t_us, t_ns) and of a `press` event (player, t_us, t_ns), as refbox.referee builds them
_RACE_T_US = const(4)
_RACE_T_NS = const(5)
_PRESS_T_US = const(1)
_PRESS_T_NS = const(2)
# refbox.ticks's tick arithmetic, for the loops written out over every debouncer (App._poll)
_HALF = const(1 << 29)
_MAX = const((1 << 30) - 1)
# refbox.debounce's states, read straight off the waiting debouncers in the loops over them
# (`_poll`, `horizons`, `_still_waiting`): on the chip a method call is ~30 µs, an attribute
# ~5 µs, and these loops run for every waiting debouncer before a race's decision (issue 20:
# 8 presses, ~1.3 ms). tests/test_core.py checks they are refbox.debounce's.
_CANDIDATE = const(1)
_DOWN = const(2)
# and the fields of their state arrays read there (refbox.debounce.V_STATE, V_FIRST_US, ...)
_V_STATE = const(0)
_V_FIRST_US = const(6)
_V_FIRST_NS = const(7)
_V_DUE_US = const(8)


class App:
    # how long after an edge it is surely in the capture (`capture_lag_us`): the DMA moves a
    # PIO word a few cycles after its push (datasheet §2.5), so 50 µs is ample
    pio_lag_us = 50
    loop_ms = 1
    # µs the loop sleeps between passes while a race is open: the pass that first sees a press
    # comes at most this plus an idle pass (~0.3 ms on the chip) after it, not a whole period
    # (the deciding pass waits for that one's end: issue 20)
    armed_sleep_us = 200
    # µs after the last line written before a warming import (_warm_one): an import runs no
    # bytecode, so MicroPython's USB task waits for it and the bytes queued in the USB FIFO
    # with it (stock, 200 MHz: `resume` reached the host 49 ms later with the warming right
    # after its write)
    warm_quiet_us = 200_000
    gc_threshold = 48 * 1024  # bytes: no automatic gc before this much is allocated
    # µs after a decision's lines went out that the garbage is collected (at the next safe
    # moment): the next command then has `gc_threshold` bytes to allocate from, and the lines
    # have left the USB buffers (a collection stops the console's background task meanwhile)
    gc_after_lines_us = 20000
    frame_us = 25000  # a moving frame is re-rendered this often (every blink period divides it)

    def __init__(self, board, clock, pinmap, boot_game=None, journal=None):
        self.board = board
        self.journal = journal  # refbox.journal.Journal, loaded (refbox.boot), or None
        self.watchdog = None  # machine.WDT on the board (refbox.boot), fed every pass
        self.clock = clock
        self.pinmap = pinmap
        self.stations = pinmap.PLAYER_COUNT
        self.debouncers = bank_of(self.stations)
        self.capture_lag_us = self.pio_lag_us
        self._reader = open_reader(board, self.clock, self.stations, self.debouncers)
        started = Stamp(board.capture_start_tick).after_ns(board.capture_start_ns)
        for deb in self.debouncers:
            deb.settle_from(started)  # a contact bouncing at power-up is no press
        self.controls = ControlButtons([name for name, _ in pinmap.CONTROLS])
        self.controls.held_at_boot(board.control_levels())
        self.assembler = LineAssembler()
        count = pinmap.STATION_PIXELS + pinmap.MARKER_PIXELS
        self._frame = [None] * count  # the frame shown (None: nothing yet)
        self._next = [None] * count  # the frame being rendered
        self._dirty = True  # something happened since the last render
        self._moving = False  # the frame shown changes with time alone
        self._render_at = 0
        self._happenings = []
        self._capture = board.capture
        self._control_edges = board.control_edges  # refbox.board.ControlEdges's ring
        self._outbox = board.outbox
        self._busy = True  # a timer or a control to poll: the first pass finds out
        # µs tick before which a busy pass has nothing to do: only a game timer runs and its
        # deadline is still ahead of the horizon (_rest_until); None: work every busy pass
        self._quiet_until = None  # type: int | None
        # the debouncers judging a closure or a release; at first every one, each settling
        self._waiting = list(self.debouncers)
        self._controls_idle = False
        self._kept = 0  # tick of the last keepalive
        self._tone_until = None
        self._gc_due = False  # a collection is due at the next safe moment (see _before_race)
        self._collected_race = None  # the cue (Arbiter.armed_at) of the race last collected after
        self._gc_after = None  # µs tick from which a collection is due (_collect_after_lines)
        self.warm = []  # games whose module to import once, one a safe moment (_warm_one; boot)
        self._wrote_at = 0  # µs tick of the last pass that had lines to write
        self._fault_at = None  # µs tick of the last `internal` error sent (report_fault)
        self._faults_hidden = 0  # faults not reported since then
        self.display = getattr(board, "display", None)  # refbox.oled.Oled, if one answered
        self.keyboard = getattr(board, "keyboard", None)  # refbox.keys.Typist: USB keyboard mode
        if self.display is not None:
            from refbox.screen import picture  # only with a display: no RAM for it otherwise

            self._picture = picture
        self._stale = True  # something the display shows may have changed
        self._held_drawn = []  # the buzzers held when the picture was composed
        self._composed = None  # a picture composed, to be drawn at the next safe pass
        self._save_due = False  # an event went out since the journal last looked
        self._held = []  # (name, fields) of events waiting for a race's line (see emit)
        self._racing = False  # a `race` line went out this pass: the rest waits for the LEDs
        self._floor_lit = False  # the winner's station lit at the decision (_light_floor)
        self._colours_kept = (None, None, ())  # type: tuple  # (game, palette, colours)
        self._unsaved = []  # lines of decisions waiting for the journal to hold them (str)
        self._hold = False  # persist before emit (set once booted, with a journal)
        self.now = clock.ticks_us()
        # the ticks of this pass and of the one before it (refbox.capture.PioWords.read);
        # before the first pass, the capture's start: the boot (journal, resume) can outlast a
        # counter wrap
        self._last_pass = self._this_pass = board.capture_start_tick
        self.referee = Referee(
            self.stations, self.emit, self.tone, board.entropy, self._hello_fields
        )
        self.referee.announce = self.announce  # the race line's writer, at its decision
        self.referee.standard = pinmap.PLAYER_COLOURS
        self._kept_palette = "standard"  # the station colours as refbox.settings holds them
        if journal is not None:
            from refbox import settings  # here: compiled after the big modules, on the heap left

            self._settings = settings
            self.referee.palette = self._kept_palette = settings.load(journal.fs)
        self.emit("hello", self._hello_fields())
        board.flush()  # out now, before a resumed game's refold (~0.2 s on the chip)
        note = getattr(board, "display_note", None)
        if note:
            self._error("display", note)
        note = getattr(board, "keyboard_note", None)
        if note:
            self._error("usb_keyboard", note)
        if journal is None or not self._resume(journal):
            if boot_game is None:
                self.referee.open_menu()
            else:
                try:
                    self.referee.new_game(*boot_game)
                except GameError as e:
                    self.referee.error(e.code, e.detail)
                    self.referee.open_menu()
        self.referee.save = self._before_race
        self.referee.decided = self._race_decided
        self.referee.cue = self.show_cue
        self.referee.letting_go = self._let_go
        if journal is not None:
            self._hold = True
        self.referee.prompts()  # what the controls do at power-up (a `buttons` event)
        board.flush()

    def _resume(self, journal):
        """Say what the journal's load noticed, then resume its unfinished game (True) or leave
        the menu to the caller (False). A journal that cannot be folded is set aside: a bad
        journal never stops the boot."""
        for code, detail in journal.notes:
            self._error(code, detail)
        saved = journal.saved
        if saved.setup is not None and hasattr(self.referee, "last_setup"):
            self.referee.last_setup = saved.setup
        if not saved.resumable():
            journal.adopt(self.referee)
            return False
        self.referee.now = self.now
        try:
            self.referee.resume(saved)
        except Exception as e:  # an edited log this firmware cannot fold: start fresh
            aside = journal.set_aside(".bad") or "-"
            self._error("journal_bad", "journal kept as %s, not resumed (%s)" % (aside, e))
            self.referee.menu = None
            self.referee.game = None  # type: ignore[assignment]
            return False
        journal.adopt(self.referee)
        journal.forget()  # the game holds its log now: not a second list of it
        return True

    # ------------------------------------------------------------------ output
    def emit(self, name, fields=()):
        """Send one event, or hold it while a race is being decided: the winner's light first,
        the `race` line next, then the held lines in their order (`press` lines of the race,
        `margin`, the game's bookkeeping), so what the players wait for costs no encoding of
        anything else (docs/protocol.md "Order of lines"). A `race` event's light and line are
        out already: the referee gave them to `announce` at the decision, before the event."""
        self._dirty = True  # every change of state comes with an event: redraw, then save it
        self._save_due = True
        self._stale = True  # and may change the display
        if name == "race":
            if self.keyboard is not None:
                for key, value in fields:
                    if key == "winner":
                        self.keyboard.race(value)  # typed after the line and the LED (step)
            return
        arbiter = self.referee.arbiter
        if (
            self._held
            or self._racing
            or (name == "press" and arbiter.phase == ARMED)
            or arbiter.is_deciding()
        ):
            self._held.append((name, fields))  # encoded after the race line (see _release)
            return
        self._out(name, fields)

    def announce(self, fields):
        """A race is decided (`fields`: its `race` event's; refbox.referee.Referee.arbiter_events,
        the race line's one moment): the winner's light before any encoding, then the lines held
        from before the race's first press, then the `race` line, never held and never behind
        the journal (a race opens only after a save): one bytes format and one write
        (refbox.protocol.encode_race, refbox.outbox.Outbox.send). Every later line of this pass
        waits for the LEDs (`_racing`)."""
        self._racing = True
        self._light_floor(fields[0][1] - 1)
        if self._held:
            self._out_before(fields)
        self.board.send_line(encode_race(fields))

    def _out_before(self, race):
        """The held lines of what came before a race's first counted press go out ahead of its
        `race` line (fields `race`), in their order: a `press` stamped before it (a station not
        in the race) and what followed it. Whether such a line was held depends on when the loop
        handed its press over (a noise closure elsewhere holds the press horizon back), so
        without this a noise pulse moved it behind the race (issue 19 "a line changes
        nothing"). The race's own `press` lines (stamped at or after its first) stay held: the
        race line costs nothing more then. Allocates only when a line goes."""
        t_us = race[_RACE_T_US][1]
        t_ns = race[_RACE_T_NS][1]
        held = self._held
        n = 0
        for name, fields in held:
            if name == "press":
                d = ticks_diff(fields[_PRESS_T_US][1], t_us)
                if d > 0 or (d == 0 and fields[_PRESS_T_NS][1] >= t_ns):
                    break
            n += 1
        if n:
            for name, fields in held[:n]:
                self._out(name, fields)
            del held[:n]

    def _out(self, name, fields):
        """One event line to the console, unless it must wait for the journal (persist before
        emit: docs/architecture.md "The journal"): a decision's line leaves only once the save
        holding it is done; the race path and what decides nothing go out at once."""
        board = self.board
        line = encode_event(name, fields)
        unsaved = self._unsaved
        if self._hold:
            if unsaved:
                # behind the decision that waits for the journal, whatever this line is: the
                # lines' order must not depend on when the save could run (a host polling, a
                # stalled console or noise move it; issue 19 "a line changes nothing"). A
                # `race` line never comes here: it goes out at once (announce).
                unsaved.append(line)
                return
            else:
                phase = self.referee.arbiter.phase
                locks = name == "lockout" or name == "unlock"
                if name in AT_ONCE or phase == ARMED or (locks and phase == READY):
                    pass  # time-critical: out now (nothing waits for the journal)
                elif name not in NEUTRAL:
                    unsaved.append(line)  # persist before emit: out once the journal holds it
                    return
        board.write_line(line)
        if not self._outbox.careful:
            board.flush()  # out now, not at the end of the pass: the rest of a decision's
            # Python (the game's bookkeeping) costs milliseconds on the chip

    def _release(self):
        """The held lines, in the order they were emitted, once no race is being decided (each
        still through the journal's gate, `_out`)."""
        held = self._held
        self._held = []
        self._racing = False
        for name, fields in held:
            self._out(name, fields)
        self.board.flush()

    def _release_saved(self):
        """The journal holds every decision made so far: their lines may go out now."""
        board = self.board
        for line in self._unsaved:
            board.write_line(line)
        self._unsaved = []
        board.flush()

    def _error(self, code, detail):
        self.referee.error(code, detail)

    def _hello_fields(self):
        return (
            ("fw", FIRMWARE_VERSION),
            ("proto", PROTOCOL_VERSION),
            ("stations", self.stations),
            ("capture", self.board.capture_mode),
            ("sample_ns", self._sample_ns()),
            ("controls", [name for name, _ in self.pinmap.CONTROLS]),
            ("games", list(GAME_ORDER)),
        ) + (self.referee.palette_fields()[0], self.referee.palette_fields()[2])  # name, colours

    def _sample_ns(self):
        """One capture sample in ns, rounded up: equal stamps are a tie, so two presses less
        than this apart may be one (the photo finish's tie bound). PIO: 7 cycles a sample
        (refbox.capture.EdgeDecoder, 7000 / MHz ns)."""
        mhz = self.board.pio_mhz
        return (7000 + mhz - 1) // mhz

    # ------------------------------------------------------------------ the loop
    def wake_in_us(self, now):
        """µs the loop may sleep after a pass at tick `now`: the loop period, or less when a
        closure being judged can be decided sooner (its due tick, refbox.debounce.V_DUE_US, kept
        at every edge of a closure: its confirmation, its drop as noise or its cap, plus the
        capture lag): the pass that accepts it, and so decides its race, comes then instead of
        up to a period later; and as soon as the horizon passes the instant of the first input
        waiting in the referee's stream (a line queued at its arrival tick: an `arm` is handed
        over, and its cue lit, ~50 µs after it arrived, not a period on). Allocates nothing; 0
        as soon as one is due (a crowd's 8 closures cost ~0.4 ms here on the chip with a
        ticks_diff call each, between the pass that read them and the one that decides)."""
        wait = self.loop_ms * 1000
        lag = self.capture_lag_us + 1
        queue = self.referee._switches  # (Referee's stream, read off: a call saved)
        if queue:  # an input waits for the horizon to pass its instant: then, not a period on
            left = ((queue[0][0].us - now + _HALF) & _MAX) - _HALF + lag
            if left <= 0:
                return 0
            if left < wait:
                wait = left
        for deb in self._waiting:
            due = deb.v[_V_DUE_US]  # (-1: not a closure: a release, the boot's quiet spell)
            if due < 0:
                continue
            left = ((due - now + _HALF) & _MAX) - _HALF + lag  # (refbox.ticks.ticks_diff)
            if left < wait:
                if left <= 0:
                    return 0
                wait = left
        return wait

    def run(self):  # pragma: no cover - the board's forever loop
        sleep_ms = self.clock.sleep_ms
        sleep_us = getattr(self.clock, "sleep_us", None)  # (CircuitPython's time has none)
        ticks_us = self.clock.ticks_us
        self.board.collect()
        self.board.gc_threshold(self.gc_threshold)
        while True:
            if self.watchdog is not None:
                self.watchdog.feed()  # a hung loop stops feeding: the chip resets and resumes
            try:
                self.step()
            except Exception as e:  # a bug must not kill the referee mid-game: report, go on
                self.report_fault(e, ticks_us())
            except KeyboardInterrupt as e:  # Ctrl-C: what fits goes out, then the REPL
                self.board.flush()
                raise e
            armed = self.referee.arbiter.phase == ARMED
            if sleep_us is None or not (self._waiting or armed or self.referee._switches):
                sleep_ms(self.loop_ms)
            else:  # a press being confirmed (wake for it), or a race open (look again soon)
                wait = self.wake_in_us(ticks_us())
                sleep_us(self.armed_sleep_us if armed and wait > self.armed_sleep_us else wait)

    def report_fault(self, e, now):
        """A pass raised `e` (App.run: a bug or a full heap must not kill the referee
        mid-game): an `internal` error line ("<type>: <message>"), at most one a second, which
        counts the faults not reported since ("(+N more)"). A report that finds no room (a
        MemoryError making it: the stock board's heap in pieces) is made again after a
        collection, with the exception's type alone, so that the host hears of a command the
        fault took; if that fails too, the fault is counted for the next report."""
        if self._fault_at is not None and ticks_diff(now, self._fault_at) < 1000000:
            self._faults_hidden += 1  # a repeating fault must not flood the line
            return
        hidden = self._faults_hidden
        try:
            self._error("internal", "%s: %s%s" % (
                type(e).__name__, e, " (+%d more)" % hidden if hidden else ""))
        except MemoryError:
            self.board.collect()  # what the fault and the report left goes first
            try:
                self._error("internal", type(e).__name__)
            except MemoryError:
                self.board.collect()
                self._faults_hidden += 1
                return
        self._fault_at, self._faults_hidden = now, 0

    def step(self):
        """One pass of the loop at the clock's current tick.

        An idle pass (no capture word, no console byte, every control released and settled, no
        timer running) makes a few calls (the DMA count, the console poll, one GPIO_IN read) and
        reads a few flags the last working pass left: it allocates nothing and costs a small part
        of the 1 ms period on the chip (bench/README.md). What can start a timer only happens in a
        working pass, so the flags are fresh. The simulator skips idle passes altogether, which is
        why they must change nothing."""
        self.now = now = self.clock.ticks_us()
        self._last_pass = self._this_pass  # (a word read now came after that pass looked)
        self._this_pass = now
        board = self.board
        capture = self._capture
        n = capture.pending()
        data = board.read_input()
        edges = self._control_edges
        busy = self._busy
        if busy and self._quiet_until is not None and ticks_diff(now, self._quiet_until) < 0:
            busy = False  # only a game timer runs, its deadline still ahead (_rest_until)
        if n or data or busy or capture.count == 0 or edges.head != edges.tail or edges.lost:
            self._work(now, n, data)
        elif now - self._kept > 1000000 or now < self._kept:  # raw ticks: a wrap also counts
            self._kept = now
            self._reader.keepalive(now)
        if self._tone_until is not None and ticks_diff(now, self._tone_until) >= 0:
            board.tone(0)
            self._tone_until = None
        if (self._dirty or self._moving) and not self._unsaved:
            self._show(now)  # (a decision waiting for the journal shows once it holds it)
        if (self._held or self._racing) and not self.referee.arbiter.is_deciding():
            self._release()  # after the race line and the winner's LED
        keyboard = self.keyboard
        if keyboard is not None and keyboard.pending and not self._racing:
            keyboard.service()  # the winner's key: after the race line, the LED, the held lines
        outbox = self._outbox
        wrote = 0
        if outbox.size or outbox.dropped:
            wrote = board.flush()  # what this pass decided goes out before anything may block
            self._wrote_at = now
        # a change to save, a collection due, the DMA to re-arm: only at a safe moment, and in a
        # pass that wrote nothing (the decision's lines are out, or the host is not taking any)
        if wrote:
            return
        maintained = False
        gc_after = self._gc_after
        if gc_after is not None and ticks_diff(now, gc_after) >= 0 and not self._compacting():
            self._gc_after = None
            self._gc_due = True  # (_collect_after_lines; after a compaction, whose garbage too)
        if self._save_due or self._gc_due or capture.count < capture.rearm_below:
            if self.can_block():
                if self.journal is not None and self._save_due:
                    self._sync_journal(now)  # one write burst, after a decision
                if self.journal is not None and self.referee.palette != self._kept_palette:
                    self._kept_palette = self._settings.keep(self)  # the menu's station colours
                self._save_due = False
                if self._unsaved:
                    self._release_saved()  # the journal holds the decision: the room may see it
                    self._show(self.clock.ticks_us())  # on the LEDs too, right after its lines
                    self._collect_after_lines()
                self._after_race()
                self._maintain()
                maintained = True
        journal = self.journal
        if not maintained and journal is not None and journal.compacting() and self.can_block():
            self._compact_journal()  # one piece of a long game's snapshot (refbox.journal)
        elif (not maintained and self.warm and not outbox.size
              and ticks_diff(now, self._wrote_at) >= self.warm_quiet_us and self.can_block()):
            self._warm_one()  # (once the boot's lines are out: `hello`, `resume` wait for none)
        if self.display is not None and self._display_due() and self.can_block():
            self._update_display()

    def _display_due(self):
        """True while the display has work: a picture being drawn, or something changed (an
        event went out, a buzzer was pressed or let go). Allocates nothing."""
        display = self.display
        if display is None:
            return False
        if display.pending() or self._composed is not None or self._stale:
            return True
        return self.referee.holding != self._held_drawn

    def _update_display(self):
        """At a safe moment, one piece of display work a pass (refbox.screen, refbox.oled): render
        one line or send one chunk (~1 ms on the bus) of the picture being drawn; else plan the
        picture composed at an earlier pass; else, when something changed, compose it. Each
        piece takes 1-3 ms on the chip (bench/README.md). A panel that stops answering is
        dropped with one error."""
        display = self.display
        if display is None:
            return
        try:
            if display.pending():
                display.work()
            elif self._composed is not None:
                display.draw(self._composed)
                self._composed = None
            else:
                self._stale = False
                self._held_drawn = list(self.referee.holding)
                shown = self._picture(self.referee)
                if shown != display.picture:
                    self._composed = shown
        except OSError as e:
            self.display = None
            self._error("display", "the display stopped answering (%s): going on without it" % e)

    def _work(self, now, n, data):
        """The working part of a pass: capture, debounce, arbitration, controls, commands,
        timers; then the flags the idle passes read. Each part runs only if it has something to
        do: on the chip every call costs ~10 µs."""
        happenings = self._happenings
        try:
            if n or self._capture.count == 0:
                self._read_capture(n, happenings)  # edges go to the debouncers
                self._waiting = _still_waiting(self.debouncers)
            settled = Stamp(ticks_add(now, -self.capture_lag_us))
            if len(self._waiting) == 1:
                self._waiting[0].poll(settled, happenings)
            elif self._waiting:
                self._poll(settled, happenings)
            referee = self.referee
            referee.now = now
            edges = self._control_edges
            if happenings:
                self._dirty = True  # (anything else that changes the frame emits an event)
                self._handle_switches(happenings)
            elif n and not data and self._controls_idle and edges.head == edges.tail:
                if not edges.lost and not referee.may_decide():
                    self._judging(now)  # capture words that are no press yet: the rest waits
                    return
            horizon, press_horizon = self.horizons(settled)
            controls = not self._controls_idle or edges.head != edges.tail or edges.lost
            if controls or data:  # (a pass of switches alone: Referee.tick is given them)
                referee.horizons(horizon, press_horizon)  # a control or a command hands over
            if controls:  # no more than them
                self._take_controls(edges, now)
            if data:  # (what a line changes comes with an event: App.emit marks the frame)
                arrived = self.board.input_tick  # commands run at their line's arrival, in order
                for item in self.assembler.feed(data):
                    if isinstance(item, ProtocolError):
                        self._error(item.code, item.detail)
                    else:
                        referee.line_at(item, arrived)
            referee.tick(now, horizon, press_horizon)
        finally:
            # handed over once: a pass that raised (a MemoryError on a full heap) must not
            # hand the same presses over again in every pass after it
            happenings.clear()
        if self._waiting:
            self._waiting = _still_waiting(self._waiting)
        self._busy = bool(self._waiting) or not self._controls_idle or self.referee.is_busy()
        self._rest_until()
        self._kept = now
        self._reader.keepalive(now)

    def _rest_until(self):
        """After a working pass: when nothing but a game timer keeps the loop busy (no closure
        being judged, the controls idle, Referee.quiet_until), the passes before its deadline
        reaches the horizon (`capture_lag_us` after it) are idle ones: they would hand nothing
        over and fire nothing, as the timer acts at its deadline's stamp whichever pass runs it
        (docs/architecture.md "Deadlines"). Each made its horizons' Stamps, ~0.4 KB a pass while
        a quiz timer ran, which filled MicroPython's collection threshold every ~100 passes,
        inside the race (bench/README.md "Idle frames"). An input (a capture word, a line, a
        control edge) makes a working pass as before."""
        self._quiet_until = None
        if self._busy and not self._waiting and self._controls_idle:
            due = self.referee.quiet_until()
            if due is not None:
                self._quiet_until = ticks_add(due, self.capture_lag_us)

    def _poll(self, settled, happenings):
        """Judge the waiting debouncers up to Stamp `settled`, the closure that began first before
        the others; once it is a press, a closure that began after that press is left to the
        next pass. Such a closure holds the press horizon just before its first edge, after the
        press, so the press's race is decided in this pass all the same, and its own press (a
        runner-up) would only wait behind the `race` line (App.emit): on the chip each closure
        judged costs ~0.3 ms before that line (issue 20). A closure that began at the press's
        stamp or before it is judged now (a tie, noise that may hold the race). Every rule is a
        function of the stamps alone (refbox.debounce), so which pass judges a closure changes
        no press and no stamp. Allocates only what the debouncers report."""
        waiting = self._waiting
        earliest = None
        ahead = 0  # ns from `settled` to the earliest closure's first edge (<= 0)
        tick = settled.us
        # (the tick arithmetic of refbox.ticks written out: a call costs ~15 µs on the chip, and
        # this runs for every waiting debouncer, twice)
        for deb in waiting:
            v = deb.v
            due = v[_V_DUE_US]
            if due >= 0 and ((due - tick + _HALF) & _MAX) - _HALF > 0:
                continue  # its confirmation is later: nothing to judge (Debouncer.poll)
            if v[_V_STATE] != _CANDIDATE:  # (Debouncer.press_pending() is None)
                deb.poll(settled, happenings)  # a release being judged, the boot's quiet spell
                continue
            d = (((v[_V_FIRST_US] - tick + _HALF) & _MAX) - _HALF) * 1000 + v[_V_FIRST_NS]
            if earliest is None or d < ahead:
                earliest, ahead = deb, d
        if earliest is None:
            return
        reported = len(happenings)
        earliest.poll(settled, happenings)
        if len(happenings) == reported:  # no press (yet): judge every other closure now
            press_us = press_ns = None
        else:
            press = happenings[-1][2]
            press_us, press_ns = press.us, press.ns
        for deb in waiting:
            if deb is earliest:
                continue
            v = deb.v
            due = v[_V_DUE_US]
            if due >= 0 and ((due - tick + _HALF) & _MAX) - _HALF > 0:
                continue
            if v[_V_STATE] != _CANDIDATE:
                continue  # (judged above)
            if press_us is not None:
                d = (((v[_V_FIRST_US] - press_us + _HALF) & _MAX) - _HALF) * 1000
                d += v[_V_FIRST_NS] - press_ns
                if d > 0:
                    continue  # began after the press: the next pass
            deb.poll(settled, happenings)

    def _judging(self, now):
        """The end of a pass that only read capture words which are no press or release yet (a
        closure being judged, bounce): no switch is queued and no race is being decided, so
        nothing could be handed over or decided, and the horizons and the game's timers wait
        for the next pass, at most a loop period on. Their decisions are taken by stamps, not
        by when the loop looks (docs/architecture.md "Deadlines"): only a timer's line can come
        a pass later. This is the pass right before a race's deciding one, which comes at the
        press's confirmation (`wake_in_us`): kept short, that pass starts on time (issue 20:
        the horizons and the referee's tick cost ~0.7 ms here on the chip)."""
        if self._waiting:
            self._waiting = _still_waiting(self._waiting)
        self._busy = True  # the next pass works: its horizons and timers
        self._quiet_until = None
        self._kept = now
        self._reader.keepalive(now)

    def _take_controls(self, edges, now):
        """The control edges the handlers stamped since the last pass, then what time alone did
        (a debounce ending, a repeat, a hold): each action to the referee, in time order
        (refbox.controls)."""
        controls = self.controls
        actions = []
        stamps = controls.stamps
        del stamps[:]
        while edges.pending():
            code, tick = edges.pop()
            controls.edge(code >> 1, not code & 1, tick, actions)
        if edges.lost:  # the ring was full: the levels read now stand in for the lost edges
            edges.lost = 0
            controls.resync(self.board.control_levels(), self.clock.ticks_us(), actions)
        controls.poll(now, actions)
        for i in range(len(actions)):  # each at its own instant (Referee.control_at)
            self.referee.control_at(actions[i], stamps[i])
        self._controls_idle = controls.is_idle()
        self._dirty = True

    def _sync_journal(self, now):
        """Save the journal (refbox.journal.Journal.sync): the flash write masks every interrupt,
        so the controls are told that presses latched meanwhile are real (refbox.controls).
        Returns what sync returns."""
        clock = self.clock
        began = clock.ticks_us()
        self.controls.masked_since(began)
        try:
            return self.journal.sync(self.referee, now)
        finally:  # latched edges' handlers ran as the write let interrupts back: before this
            ended = clock.ticks_us()
            self.controls.unmasked(ended)

    def _compact_journal(self):
        """One piece of the journal's compaction (Journal.work: ~256 bytes written, one flash
        commit), as a save is made: the controls told of the mask."""
        clock = self.clock
        began = clock.ticks_us()
        self.controls.masked_since(began)
        try:
            self.journal.work(self.referee)  # type: ignore[union-attr]  # (step checked it)
        finally:
            ended = clock.ticks_us()
            self.controls.unmasked(ended)

    def _compacting(self):
        """True while the journal is being compacted in idle passes (Journal.compacting: a
        change of game's, right after its lines). Allocates nothing."""
        journal = self.journal
        return journal is not None and journal.compacting()

    def maintenance_due(self):
        """True when the next pass will save, collect, re-arm or compact the journal (the
        simulator steps it)."""
        due = self._save_due or self._gc_due or self._capture.count < self._capture.rearm_below
        due = due or bool(self.warm)
        return (due or self._compacting()) and self.can_block()

    def _timed(self):
        """True while a timer runs: a debouncer accepting or releasing, a race window, a
        lockout, a game timer."""
        for deb in self.debouncers:
            if deb.is_waiting():
                return True
        return self.referee.is_busy()

    def _light_floor(self, winner):
        """The race is decided for 0-based `winner`: its station lights in its colour (its team's)
        and every other station goes dark at once, before the `race` line is encoded and before
        the game records the win (docs/protocol.md "Order of lines around a race"). That is the
        floor as the LED language shows it (refbox.leds.render: the marker bar follows with the
        pass's own frame, a few ms later). Nothing when the board cannot (a CPU pixel write
        would mask the capture's interrupts): the full frame then comes as before."""
        referee = self.referee
        game = referee.game
        if game is None:
            return
        kept = self._colours_kept  # (from the cue: _station_colours, its check written out)
        if kept[0] is game and kept[1] == referee.palette:
            colours = kept[2]
        else:
            colours = self._station_colours(game)
        if self.board.show_floor(winner, colours[winner]):
            self._floor_lit = True

    def _station_colours(self, game):
        """Each station's colour in `game` with the chosen palette (its team's, refbox.leds's
        palettes), kept from the race's cue (show_cue) for its decision: the winner's light
        looks nothing up on the race path. Made again for another game or palette."""
        referee = self.referee
        kept = self._colours_kept
        if kept[0] is not game or kept[1] != referee.palette:
            colours = game.station_colours(palette_colours(referee.palette, referee.standard))
            kept = self._colours_kept = (game, referee.palette, colours)
        return kept[2]

    def _race_decided(self):
        """A race's `race` line is out and its win recorded: light the winner's LED now, before
        the game's timers, the prompts and the held lines (docs/protocol.md "Order of lines
        around a race"), unless the floor is lit already (`_light_floor`): the pass's own
        render then writes the whole frame. It writes only a frame that changed."""
        if self._floor_lit:
            self._floor_lit = False
            return
        self._show(self.now)

    def show_cue(self):
        """A race is opening at its cue, the instant of the input that opened it (the `arm`
        line, ARM, a judgement, a time-out: refbox.referee): light its eligible stations in full
        colour now (`Board.show_stations`: the station pixels only, as the winner's light is
        written), before the pre-race save and collection (`_before_race`: the flash write and
        ~25 ms of gc on the chip), so the players see the cue within the pass's own work of its
        instant. A station locked out stays dark until the armed frame. A press stamped from the
        cue on counts, whenever the loop reads it (docs/architecture.md "One ordered stream");
        the `armed` line and the whole frame (the marker bar) follow the arming."""
        referee = self.referee
        game = referee.game
        if game is None:
            return
        colours = self._station_colours(game)  # (the palette's, as every frame shows them)
        eligible = game.eligible()
        arbiter = referee.arbiter
        dark = (0, 0, 0)
        lit = [colours[p] if p in eligible and not arbiter.is_locked(p) else dark
               for p in range(min(referee.players, len(colours)))]
        self.board.show_stations(lit)

    def _before_race(self):
        """A decision opens a race: the last safe moment before it. Save the journal (if any),
        then collect the garbage, so that MicroPython's automatic collection (after
        `gc_threshold` bytes) cannot fall inside the race: the race path allocates far less than
        that (bench/README.md). The race then opens at the tick after them, so the time they
        took is no part of it. Not at a safe moment (a press being judged), the collection waits
        for the next one (`_gc_due`); the save never waits: both a press being judged and an
        unread capture word are decided by their stamps after the write, and skipping the save
        kept the decisions before the race back until the race was decided, behind the race's
        own lines (issue 19 "a line changes nothing")."""
        if self.journal is not None and self._sync_journal(self.referee.now):
            self.referee.now = self.clock.ticks_us()
        if self._unsaved:
            self._release_saved()  # what was decided before the race is in the journal
        if not self.can_block():
            self._gc_due = True
            return
        self._gc_due = False
        self._gc_after = None  # (this one serves)
        self.board.collect()
        self.referee.now = self.clock.ticks_us()

    def _after_race(self):
        """A race is decided and its lines are out and saved: collect the garbage now (at this
        safe moment, once a race), while the table hears the answer, so that the judgement
        that follows has `gc_threshold` bytes to allocate from. Without it the automatic
        collection (~8 ms at 200 MHz on the emulated chip, the tablebuzz image) fell inside
        most judgements: the race and the judgement together reach the threshold from the
        collection before the race (bench/README.md "bench_budget_chip.py")."""
        arbiter = self.referee.arbiter
        if arbiter.phase == DECIDED and arbiter.armed_at is not self._collected_race:
            self._collected_race = arbiter.armed_at
            self._gc_due = True
            self._gc_after = None  # (this one serves)

    def _warm_one(self):
        """One game module imported and let go again at a safe moment after power-up (`warm`,
        refbox.games.warm: stock MicroPython interns its names while the heap is young), the
        garbage then collected. A module that finds no room ends the warming: each game is
        imported when it is started, as without it. Nothing is sent."""
        referee = self.referee
        if referee.game is not None:
            keep = referee.game.name
        else:
            keep = referee.menu.game if referee.menu is not None else ""
        try:
            warm(self.warm.pop(0), keep)
        except GameError:
            self.warm = []
        self.board.collect()

    def _let_go(self):
        """The referee lets its game go from RAM (a change of game on a heap that cannot hold
        two: Referee.new_game): what the App and the journal hold of it goes too."""
        self._colours_kept = (None, None, ())
        if self.journal is not None:
            self.journal.let_go()

    def _collect_after_lines(self):
        """A decision's lines went out: collect the garbage `gc_after_lines_us` later, at a safe
        moment, so that the next command (a `new_game`, a judgement, a control) has
        `gc_threshold` bytes to allocate from. Without it MicroPython's automatic collection
        (~8 ms at 200 MHz on the emulated chip) fell inside `new_game` -> `game` at whatever
        allocation crossed the threshold (bench/README.md "bench_budget_chip.py"). A race
        collects before it and after it anyway (_before_race, _after_race). A compaction of the
        journal under way (a new game's file, ~50 ms of idle passes after its lines on the
        emulated chip) is waited for: its pieces' garbage then goes in the same collection, not
        into the next command's threshold (a change of game's `game` line came 4-9 ms later)."""
        self._gc_after = ticks_add(self.clock.ticks_us(), self.gc_after_lines_us)

    def can_block(self):
        """True at a safe moment: no race open (the arbiter is not ARMED, so no decision is
        awaited), no input waiting in the referee's stream for its instant (an `arm` line read
        this pass: its cue comes next pass, never behind a flash write), no debouncer waiting
        to accept or release a press, no capture word unread. Flash writes, gc.collect() and
        big redraws happen only then (docs/architecture.md "Safe moments")."""
        if self.referee.arbiter.phase == ARMED or self.referee.may_decide():
            return False  # (an input queued for its instant: its hand-over is a pass away)
        for deb in self.debouncers:
            if deb.is_waiting():
                return False
        return not self._capture.pending()

    def _maintain(self):
        """What may block the loop, at a safe moment: re-arm the capture DMA before it runs
        out; a gc.collect() that could not run before a race (`_before_race`)."""
        capture = self._capture
        if capture.count < capture.rearm_below:
            happenings = []
            capture.stop()  # words wait in the RX FIFO meanwhile (8 of them)
            self._read_capture(capture.pending(), happenings)
            capture.restart()
            self._handle_switches(happenings)
        if self._gc_due:
            self._gc_due = False
            self.board.collect()

    def horizons(self, settled):
        """(horizon, press_horizon), two Stamps no later than `settled`: every press stamped at
        or before `press_horizon` has been delivered (accepted or refused as noise), and every
        press or release stamped at or before `horizon` too. A closure still being debounced
        holds them just before its first edge; a press that may be ending holds `horizon` just
        before the contact opened. `settled` = now - capture_lag_us: every edge up to it is in
        the ring. Timed decisions are taken against these (docs/architecture.md "Deadlines")."""
        # the earliest first edge of a closure, and of anything open, as ns from `settled`'s µs
        # tick (refbox.ticks written out; None: none): one Stamp made for each at the end
        first = since = None
        tick = settled.us
        for deb in self._waiting:  # (the others hold nothing back)
            v = deb.v
            state = v[_V_STATE]  # (Debouncer.pending() and press_pending() read off)
            if state == _CANDIDATE:
                d = (((v[_V_FIRST_US] - tick + _HALF) & _MAX) - _HALF) * 1000 + v[_V_FIRST_NS]
                if first is None or d < first:
                    first = d  # (a closure's first edge is its pending edge)
            elif state == _DOWN and deb.opened is not None:
                edge = deb.opened
                d = (((edge.us - tick + _HALF) & _MAX) - _HALF) * 1000 + edge.ns
            else:
                continue
            if since is None or d < since:
                since = d
        press_horizon = settled  # just before those edges, at most `settled`
        if first is not None and first <= settled.ns:
            press_horizon = settled.after_ns(first - settled.ns - 1)
        horizon = settled
        if since is not None and since <= settled.ns:
            horizon = settled.after_ns(since - settled.ns - 1)
        if horizon.diff_ns(press_horizon) > 0:
            horizon = press_horizon
        return horizon, press_horizon

    def is_busy(self):
        """True while something is timed: the simulator keeps stepping every loop period until
        False."""
        if self._tone_until is not None or not self.controls.is_idle():
            return True
        if self.keyboard is not None and self.keyboard.pending:
            return True  # a key report waits for the host's next poll
        if self._gc_after is not None:
            return True  # a collection after a decision's lines (_collect_after_lines)
        return self._timed() or self._display_due()  # the picture is not all out yet

    # ------------------------------------------------------------------ capture
    def _read_capture(self, n, happenings):
        """Decode what the capture holds (`n`: its `pending()`) into debouncer edges
        (refbox.capture: either path, one interface)."""
        reader = self._reader
        edges = reader.read(n, self._last_pass, happenings)
        if edges is None:
            return  # nothing came: nothing allocated
        if reader.lost:
            self._capture_lost(reader.lost, edges)
        for station, closed, stamp in edges:
            self.debouncers[station].edge(closed, stamp, happenings)

    def _capture_lost(self, count, edges):
        """Capture words or records were lost: say so, re-read the levels, and make the open race
        a declared tie of everyone who may have pressed (docs/architecture.md "Lost words")."""
        self._error("capture_overflow", "%d capture words lost; levels re-read" % count)
        tick = self.clock.ticks_us()
        levels = self.board.player_levels()
        self._reader.resync(levels, tick, edges)
        closed = []
        for station in range(self.stations):
            if not (levels >> station) & 1:
                closed.append(station)
        self.referee.capture_lost(closed)

    def _handle_switches(self, happenings):
        if not happenings:
            return
        self._stale = True  # a buzzer held or let go may change the display
        if len(happenings) > 1:
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
        """Render the LEDs when the frame may have changed: after a pass that did anything, or
        every `frame_us` while the frame moves (blinks, pulses, chases: refbox.leds.moves). A
        frame is written only if it differs from the one shown. Both frames are preallocated.
        Not while a decision's lines wait for the journal (`_unsaved`): the table sees it on the
        LEDs when the host sees its lines, once a power cut can no longer take it back."""
        if self.board.pixels_mask_irqs and self.referee.arbiter.phase == ARMED:
            return  # a CPU NeoPixel write would mask the capture interrupts while a race is open
        if not self._dirty and (not self._moving or ticks_diff(now, self._render_at) < 0):
            return
        pm = self.pinmap
        frame = render(
            self.referee,
            now // 1000,
            pm.PLAYER_COLOURS,
            pm.STATION_PIXELS,
            pm.MARKER_PIXELS,
            self._next,
        )
        self._moving = moves(self.referee)
        self._render_at = ticks_add(now, self.frame_us - now % self.frame_us)
        if frame != self._frame:
            if self.board.show(frame) is False:
                return  # the previous frame is still going out: offer it again next pass
            self._next, self._frame = self._frame, frame
        self._dirty = False


def _still_waiting(debouncers):
    """Those of `debouncers` with a timer running (Debouncer.is_waiting, read off: a candidate
    being judged, a press that may be ending, the boot's quiet spell)."""
    return [
        deb
        for deb in debouncers
        if deb.v[_V_STATE] == _CANDIDATE
        or deb.quiet_from is not None
        or (deb.v[_V_STATE] == _DOWN and deb.opened is not None)
    ]
