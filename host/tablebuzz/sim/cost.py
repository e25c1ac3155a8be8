"""What the firmware's Python costs on the chip: the simulator's CPU model, and its one table.

The simulator runs the firmware at the speed of the host, so by itself it would say a `race` line
leaves ~1 ms after the press while the chip takes ~3.6 ms (a lone press) to ~5.5 ms (8 presses).
`CpuModel` charges every loop pass the CPU time the chip would spend on it, from counts the
simulator can see (so CPython and the MicroPython unix port, which see the same counts, give the
same bytes):

- a loop pass (its console poll), each command line and byte read;
- each capture word decoded (PIO path), and each edge the debouncers judge in Python;
- each event encoded: a fixed part, a part per byte of the line, and the decision work the firmware
  does before that event (a judgement, a new game, a race decided), by event name;
- each LED frame written;
- each filesystem operation and byte written (the journal's JSON, SHA-256 and littlefs: the Python
  and C work; the flash's own program and erase times are `tablebuzz.sim.flashfs`'s);
- gc.collect(), and the import of the firmware at power-up.

The charge accumulates in `World.cpu_until` (what the loop reads from ticks_us); whatever the
firmware does that the world can see (a console write, an LED frame, a flash operation) first
brings the world's clock up to it, with the PIO, DMA and interrupts running meanwhile
(`World.catch_up`), and the next loop pass starts after it. So lines leave at the modelled time
within the pass, and the presses and commands that come meanwhile wait for the next pass, as on
the chip.

All figures are ns at 125 MHz (`CLOCK_MHZ`), fitted on the emulated RP2040 (`CALIBRATION`); a
charge lasts CLOCK_MHZ / the firmware's clock as long (main.py runs the chip at 200 MHz:
refbox.sysclock; the flash's own times do not scale); `bench/README.md`
"The simulator's CPU model" compares the simulator with the chip, and how to redo the fit.
A header {"cpu_scale": x} (`tablebuzz sim --cpu-scale X`) multiplies every charge by x: a
slower or faster chip. Only the lines' times may change with it, never a decision (docs/
architecture.md "One ordered stream"; tests/test_stamp_order.py).
A header {"clock_mhz": 125} runs the firmware at 125 MHz (main.py's refbox.sysclock set-up
given that clock, as a board built with SYS_MHZ = 125): the calibration's own clock.
A header {"cpu": "off"} (`tablebuzz sim` never sets it) turns the model off: a host as fast as
the firmware's Python is free, as before the model; only tests that need that old zero-cost
timing use it.
"""

CLOCK_MHZ = 125  # the clk_sys of CALIBRATION: every TABLE figure is CPU time at this clock
DEFAULT = "on"  # the model when a simulator header has no "cpu": "on" (the chip's speed) or "off"

CALIBRATION = {
    "date": "2026-12-03",
    "chip": "rp2emu (rp2040js, 125 MHz) with the real MicroPython v1.28.0 RPI_PICO firmware",
    "deploy": ".mpy (tablebuzz.link.flash.build for armv6m: the modules of flash.NATIVE as "
    "Thumb machine code, the rest bytecode), booted from a saved flash image",
    "firmware": "main 8913962 (issue 20: the capture's per-edge loop's common words as "
    "asm_thumb machine code on the RP2040, refbox.edgeloop_thumb, the rest through the viper "
    "loop; a press alone in its pass announced its race at once, since removed: the race line "
    "comes at the decision; "
    "before them: the viper loop, candidates judged on machine words, a closure's due tick, "
    "the games' timer check skipped before their next deadline, the winner's station lit first, "
    "the race line one bytes format, native hot modules)",
    "runs": "SAVE=bench/data/cpu bench/bench_chip_latency.py: latency_a (an 8-player quiz, 21 "
    "races: 1, 2, 4, 6 and 8 presses 1-30 µs apart and lone presses in 64-edge noise bursts on "
    "two and on four other stations, 3 of each, each armed, pressed 150 ms later and judged); "
    "board_run.ts --load-flash --watch-pins 16 --pins 2,3,4,5,6,7,8,9. Fit by hand: word "
    "refitted (3 µs: asm_thumb), every race figure within 0.79-1.08 of the chip, the "
    "commands' fastest within 0.82-1.16 (bench_cpu_model.py, `typical`)",
}

TABLE = {
    # a loop pass that does anything: the console poll, the flags, the debouncers' polls and
    # the horizons (an idle pass is 0.28 ms on the chip, bench/README.md "Native modules")
    "pass": 422000,
    # and each debouncer it looks at (a closure being judged, a release: App._poll, horizons,
    # wake_in_us go through them one by one)
    "waiting": 100000,
    "input_line": 2350000,  # a command line parsed (JSON, the command's checks)
    "input_byte": 20000,
    # a pass that decodes capture words: the debouncers (a pass that only read closures being
    # judged stops there: App._judging)
    "words": 900000,
    "word": 3000,  # each capture word decoded (refbox.edgeloop_thumb: asm_thumb on the chip)
    # each edge that loop hands to Debouncer.edge_at, Python (a press or a drop at an edge, a
    # release, the boot's quiet spell: refbox.edgeloop); from the profile (0.10-0.19 ms an
    # edge_at on the chip: bench/profile_race_chip.py), as no race of the fit has one
    "edge": 150000,
    "accept": 350000,  # a press accepted: the debouncer, the referee's queue
    "line": 1900000,  # an event encoded and queued, besides its bytes
    "line_byte": 10000,  # the shapes are cached: only strings are walked
    "frame": 3010000,  # an LED frame rendered and handed to the PIO (~2.4 ms race line -> LED)
    # the race line at its announcement: one bytes format and one write (App.announce, ~0.2
    # and ~0.1 ms on the chip) with the referee's work before it
    "race_line": 600000,
    "floor": 300000,  # the winner's station lit at the decision (Board.show_floor)
    "fs_op": 1000000,  # open, write, close, rename, remove
    "fs_byte": 69000,  # a journal byte written: encode_value, SHA-256, the littlefs copy
    "fs_read_byte": 10000,  # a journal byte read at boot: the checks, json.loads, the fold
    # gc.collect() with a game's heap, and an automatic one (a quiz's heap: 23.7 ms on the chip
    # with the native modules loaded, 18.7 ms with bytecode only; rp2emu's perf_main.py)
    "gc": 25000000,
    # Python CPU ns between automatic collections, a loop pass itself not counted (see _auto_gc
    # and _spend): the loop collects before
    # every race (App._before_race) and once after it (App._after_race), so a race, and then
    # its judgement, each fit between two collections
    "auto_gc_after": 250000000,
    "boot": 386000000,  # power-up: main.py imports the firmware (.mpy), until the App starts
    # the decision's own work before its event goes out, by event name
    "event": {
        "game": 147000000,
        "resume": 150000000,
        "judge": 15700000,
        "question": 9500000,
        "race": 0,
        "press": 0,
    },
}


def _none_waiting():
    return 0


OVERRIDE = None  # a dict of TABLE entries to try instead (bench/bench_cpu_model.py --fit)


class CpuModel:
    """Charges `world` (tablebuzz.sim.world.World) for the firmware's work, from `table`."""

    def __init__(self, world, table=None, scale=1):
        self.world = world
        # every charge times `scale`, in thousandths (integer ns on every interpreter)
        self.scale_milli = int(round(scale * 1000))
        if table is None:
            table = TABLE
            if OVERRIDE:
                table = dict(TABLE)
                table.update(OVERRIDE)
        self.table = table
        self.charged = {}  # cost name -> ns charged, for the bench and the tests
        self._since_gc = 0  # Python CPU ns since the last collection
        self.paused = False  # charge nothing (the run's first boot: its 0 is the board up)
        self.waiting = _none_waiting  # how many debouncers the loop's passes look at (runner's)

    def _spend(self, what, ns, mhz=0):
        """Charge `ns` of CPU at the calibration's clock (CLOCK_MHZ), as it lasts at the
        firmware's clock: the world's (machine.freq(), 200 MHz once main.py set it up), or `mhz`.
        The Python's allocation, and so the automatic collections, follow the work, not the
        clock."""
        if self.scale_milli != 1000:
            ns = ns * self.scale_milli // 1000
        if ns and not self.paused:
            work = ns
            ns = self.at_clock(ns, mhz)
            self.charged[what] = self.charged.get(what, 0) + ns
            self.world.spend(ns)
            if what != "pass":  # (a loop pass itself allocates nothing: bench/README.md)
                self._since_gc += work
            if self._since_gc >= self.table["auto_gc_after"]:
                self._auto_gc()

    def at_clock(self, ns, mhz=0):
        """`ns` of CPU at CLOCK_MHZ as it lasts at `mhz` (default: the world's clock): CPU-bound
        work scales with clk_sys (bench/README.md "The clock" measures it on the emulated chip)."""
        mhz = mhz or self.world.sys_hz // 1000000
        return ns if mhz == CLOCK_MHZ else ns * CLOCK_MHZ // mhz

    def _auto_gc(self):
        """MicroPython collects by itself once gc.threshold bytes were allocated since the last
        collection (App.gc_threshold: 48 KB). The model takes allocation as proportional to
        the Python's CPU time, so the collection comes after `auto_gc_after` ns of it."""
        self._since_gc = 0
        ns = self.at_clock(self.table["gc"] * self.scale_milli // 1000)
        self.charged["auto_gc"] = self.charged.get("auto_gc", 0) + ns
        self.world.collect(ns)

    def collected(self):
        """The firmware called gc.collect() (the runner charges its time)."""
        self._since_gc = 0

    def poll(self, data):
        """A loop pass polled the console and read `data` (bytes, maybe empty)."""
        t = self.table
        self._spend("pass", t["pass"] + t["waiting"] * self.waiting())
        if data:
            lines = data.count(b"\n")
            self._spend("input", lines * t["input_line"] + len(data) * t["input_byte"])

    def words(self, n):
        """`n` capture words decoded in one pass."""
        if n:
            self._spend("word", self.table["words"] + n * self.table["word"])

    def edge(self):
        """A capture edge handed to Debouncer.edge_at as Python (refbox.edgeloop feeds the others,
        a closure's bounce and a noise burst's spikes, as machine code: part of `word`)."""
        self._spend("edge", self.table["edge"])

    def accept(self):
        """A press accepted by its debouncer, handed to the referee."""
        self._spend("accept", self.table["accept"])

    def race_line(self, line):
        """The `race` line encoded and written at once (bytes, "\n" included: refbox.protocol
        encode_race, refbox.outbox.Outbox.send), with the decision's work before it."""
        self._spend("race_line", self.table["race_line"])

    def floor(self):
        """The winner's station lit at the decision (refbox.board.Board.show_floor)."""
        self._spend("floor", self.table["floor"])

    def line(self, text):
        """An event line encoded (str, no newline): `{"ev":"NAME",...`."""
        t = self.table
        name = text[7 : text.find('"', 7)] if text.startswith('{"ev":"') else ""
        ns = t["line"] + len(text) * t["line_byte"] + t["event"].get(name, 0)
        self._spend("line", ns)

    def frame(self):
        self._spend("frame", self.table["frame"])

    def fs_op(self):
        self._spend("fs", self.table["fs_op"])

    def fs_bytes(self, n):
        self._spend("fs", n * self.table["fs_byte"])

    def fs_read(self, n):
        self._spend("fs", n * self.table["fs_read_byte"])

    def collect(self):
        self._spend("gc", self.table["gc"])

    def boot(self):
        """Power-up: main.py's imports, at the clock main.py sets first (refbox.sysclock)."""
        from refbox import sysclock

        self._spend("boot", self.table["boot"], sysclock.SYS_MHZ)
