"""Run the firmware on the virtual clock from a normalized timeline. MicroPython-subset code.

Input (from tablebuzz.sim.timeline, already validated): a header dict and records, each a dict with
"t" (ns from the start of the run) and "k" (kind): press/release {"p": 1-based player}, control
{"name"}, send {"line": text}, glitch {"p", "ns"}, mask {"ns"}, gc {"ns"}, power {"on": bool},
host {"reading": bool}, hang {} (the next loop pass never returns: the watchdog model resets the
board, `Simulation.watchdog_reset`).
Output: (ns, line) for every line the device wrote, in order.

The board boots from firmware/main.py, as on the chip (refbox.boot with this Simulation as its
PLATFORM). Header "flash": {} gives the board a simulated littlefs (tablebuzz.sim.flashfs;
"capacity" in bytes), {"dir": "path/"} the interpreter's own filesystem under that folder: the
journal is then kept, and a power cut ("power": "off") leaves it as littlefs would; "power": "on"
boots main.py again BOOT_NS later with the chip's ticks counting from 0.

The loop steps on a 1 ms grid like the board's loop, but only while something can happen: after a
PIO push or an interrupt handler, a control edge or a command, and for as long as the App reports a
running timer.
That idle skipping changes no decision and no stamp (timers decide against the decision horizon,
commands count from their line's arrival): the header's "every_ms": true steps the loop on every
grid point instead, and the tests compare the two.
"""

import binascii
import sys

from refbox import pinmap, sysclock
from refbox.arbiter import ARMED
from refbox.prng import seed_from_hex

from tablebuzz.sim import cost, heap
from tablebuzz.sim import world as world_module
from tablebuzz.sim.cost import CpuModel
from tablebuzz.sim.flashfs import PowerCutError
from tablebuzz.sim.physics import Contact

FIRMWARE_MHZ = sysclock.SYS_MHZ  # the clock the firmware's main.py sets (a header may say 125)
LOOP_NS = 1000000
# the board's loop period while a race is open: an idle pass (~0.3 ms on the chip) and then
# App.armed_sleep_us (App.run)
ARMED_LOOP_NS = 500000
TAIL_NS = 2000000000  # keep running this long after the last record while timers run
HEARTBEAT_NS = 30000000000  # 30 s: the longest the simulated loop sleeps
GC_NS = 10000000  # a gc.collect() without the CPU model (with it: tablebuzz.sim.cost's "gc")
BOOT_NS = 20000000  # power-on to main.py: +20.8 ms on the emulated RP2040 (shared/rp2emu); the
# CPU model adds the import of the firmware (tablebuzz.sim.cost's "boot")


class FakeConsole:
    """The USB serial console as the App sees it: bytes in; bytes out through a model of
    MicroPython's CDC output (v1.28.0 shared/tinyusb/mp_usbd_cdc.c), lines to `sink` stamped with
    the virtual time at which the host took their last byte.

    The device's TX FIFO holds FIFO_BYTES. A reading host (the default) takes every byte at once.
    A stalled host (timeline {"host": "stall"}: connected, its buffers full) takes nothing: the
    FIFO fills; POLLOUT (`writable`) is false once it is full; a write larger than the room left
    writes what fits and then waits for the host, as `mp_usbd_cdc_tx_strn` does, up to
    TX_TIMEOUT_NS without progress (twice: see `write`), during which the loop is blocked, and
    returns the count the FIFO took; the rest stays with the writer.
    """

    FIFO_BYTES = 256  # CFG_TUD_CDC_TX_BUFSIZE at full speed (shared/tinyusb/tusb_config.h)
    TX_TIMEOUT_NS = 500000000  # MICROPY_HW_USB_CDC_TX_TIMEOUT (ports/rp2/mphalport.h)

    def __init__(self, world, sink):
        self.interrupt_char = 3  # Ctrl-C on MicroPython's console; None: CircuitPython's data
        self.world = world
        self.sink = sink
        self.inbox = bytearray()
        self._read = 0
        self.reading = True
        self.interrupted = False  # a 0x03 arrived: KeyboardInterrupt is pending
        self._fifo = bytearray()  # bytes the host has not taken
        self._line = bytearray()  # the host's partial line
        self.blocked_ns = 0  # total time the loop spent inside console writes
        self.short_writes = 0  # writes that returned fewer bytes than they were given

    def pending(self):
        return self._read < len(self.inbox)

    def feed(self, data):
        """Bytes from the host arrive. A 0x03 (Ctrl-C) among them acts on arrival, whatever the
        firmware reads: MicroPython v1.28.0 `shared/tinyusb/mp_usbd_cdc.c` `tud_cdc_rx_cb` moves
        each received byte into stdin's ring buffer, and on `mp_interrupt_char` empties that
        buffer (bytes not read yet are gone) and calls `mp_sched_keyboard_interrupt()`: the
        running Python code raises KeyboardInterrupt at once (`interrupted`; the simulator
        raises it at the loop's next pass, or inside a console write that waits). Bytes after
        the 0x03 go to the REPL. On CircuitPython's `usb_cdc.data` channel (`interrupt_char`
        None) a 0x03 is a byte like any other: the interrupt character is the REPL console's."""
        if self._read:  # drop what was read already
            self.inbox = self.inbox[self._read :]
            self._read = 0
        cut = data.rfind(b"\x03") if self.interrupt_char == 3 else -1
        if cut >= 0:
            self.inbox = bytearray(data[cut + 1 :])
            self.interrupted = True
            return
        self.inbox += data

    def read(self):
        """At most 64 bytes a loop pass, as the board's console reads."""
        if self.interrupted:
            raise KeyboardInterrupt  # (the simulator raised it before the pass already)
        cpu = self.world.cpu
        if self._read >= len(self.inbox):
            if cpu is not None:
                cpu.poll(b"")  # once a pass: the pass's own cost
            return b""  # nothing waiting: like the board's poll, no allocation
        data = bytes(self.inbox[self._read : self._read + 64])
        if cpu is not None:
            cpu.poll(data)
        self._read += len(data)
        return data

    def waiting(self):
        """Bytes the host sent that were not read yet (usb_cdc's in_waiting)."""
        return len(self.inbox) - self._read

    def take(self, n):
        """The next `n` waiting bytes, read with no Ctrl-C meaning (CircuitPython's data
        channel)."""
        data = bytes(self.inbox[self._read : self._read + n])
        self._read += len(data)
        return data

    # ------------------------------------------------------------------ output
    def tx_used(self):
        """Bytes in the TX FIFO the host has not taken (usb_cdc's out_waiting)."""
        return len(self._fifo)

    def write_nowait(self, data):
        """Write what fits in the TX FIFO now; returns the count (usb_cdc write_timeout 0)."""
        room = self.FIFO_BYTES - len(self._fifo)
        n = min(room, len(data))
        self._fifo += bytes(data[:n])
        self._host_takes()
        return n

    def writable(self):
        """select.poll POLLOUT on stdout: room in the TX FIFO."""
        return len(self._fifo) < self.FIFO_BYTES

    def write(self, data, start, end):
        """sys.stdout.buffer.write(data[start:end]): returns the bytes the TX FIFO took.

        As in MicroPython v1.28.0: `py/stream.c` `mp_stream_rw` calls the stream's write
        (`shared/runtime/sys_stdio_mphal.c` `stdio_buffer_write` -> `ports/rp2/mphalport.c`
        `mp_hal_stdout_tx_strn` -> `shared/tinyusb/mp_usbd_cdc.c` `mp_usbd_cdc_tx_strn`) until
        everything is written or a call writes nothing. `mp_usbd_cdc_tx_strn`, connected, writes
        what fits, then waits 1 ms at a time for room; it gives up after
        MICROPY_HW_USB_CDC_TX_TIMEOUT without progress (the timer restarts at each byte taken)
        and returns the count written. So a write the host does not take returns after one
        timeout if it took nothing, two if it took a part (the second call for the rest takes
        nothing). What was not taken stays with the caller: no byte is lost."""
        self.world.catch_up()  # the bytes leave when the loop's work has got this far
        n = end - start
        taken = call_took = self._take(data, start, end)  # the first call's first tud_cdc_write
        world = self.world
        step = 1000000  # mp_event_wait_ms(1)
        waited = 0
        while taken < n:
            idle = 0  # ns since this call last took a byte (or began)
            while taken < n and idle < self.TX_TIMEOUT_NS:  # blocked: the clock runs on
                world.run_until(world.now + step)
                if world.halted:
                    raise PowerCutError("power")  # the power went off while the loop waited
                waited += step
                idle += step
                if self.interrupted:  # mp_event_wait_ms handles the pending exception
                    self.blocked_ns += waited
                    raise KeyboardInterrupt
                got = self._take(data, start + taken, end)
                if got:
                    taken += got
                    call_took += got
                    idle = 0
            if taken < n and call_took == 0:
                break  # a call that wrote nothing: mp_stream_rw returns what was done
            call_took = 0  # timed out after a part: mp_stream_rw calls again for the rest
        if waited:
            self.blocked_ns += waited
        if taken < n:
            self.short_writes += 1
        return taken

    def _take(self, data, start, end):
        """Into the TX FIFO what fits of data[start:end] (tud_cdc_write, limited to
        tud_cdc_write_available() while connected); the host takes what it reads."""
        room = self.FIFO_BYTES - len(self._fifo)
        take = min(room, end - start)
        if take > 0:
            self._fifo += data[start : start + take]
            self._host_takes()
        return take if take > 0 else 0

    def host_reading(self, reading):
        self.reading = reading
        self._host_takes()

    def _host_takes(self):
        if not self.reading or not self._fifo:
            return
        data = self._fifo
        self._fifo = bytearray()
        for b in data:
            if b == 10:
                self.sink(self.world.now, self._line.decode("utf-8", "replace"))
                self._line = bytearray()
            else:
                self._line.append(b)

    def power_off(self):
        """What was not read yet is lost with the board, and so is its TX FIFO."""
        self.interrupted = False
        self.inbox = bytearray()
        self._read = 0
        self._fifo = bytearray()
        self._line = bytearray()


def _main_py():
    """The source of the entry point next to the refbox package: firmware/main.py, or code.py on
    a folder filled as CIRCUITPY (CircuitPython runs code.py before main.py). Raises OSError
    when there is neither."""
    import refbox

    root = refbox.__file__.replace("\\", "/").rsplit("/", 2)[0]
    try:
        f = open(root + "/code.py")
    except OSError:
        f = open(root + "/main.py")
    with f:
        return f.read()


_font = None


def font_bytes():
    """MicroPython framebuf's 8x8 glyphs for codes 32..127, 8 column bytes each: the bytes
    `tablebuzz flash --circuitpython` puts on the drive for refbox.oled_cp. Drawn with the
    interpreter's own framebuf where it has one (the unix ports), else read from the MicroPython
    unix port (tablebuzz.sim.font8x8, CPython). Raises FontUnavailableError there without it."""
    global _font
    if _font is None:
        try:
            import framebuf
        except ImportError:
            framebuf = None
        if framebuf is not None and hasattr(framebuf, "MONO_VLSB"):
            line = bytearray(8)
            fb = framebuf.FrameBuffer(line, 8, 8, framebuf.MONO_VLSB)
            out = bytearray()
            for code in range(32, 128):
                fb.fill(0)
                fb.text(chr(code), 0, 0, 1)
                out += line
            _font = bytes(out)
        else:
            from tablebuzz.sim.font8x8 import font_file

            _font = font_file()
    return _font


class Simulation:
    def __init__(self, header, sink, fs=None):
        """`fs`: a filesystem to boot with (tests: a FlashFS as a power cut left it), instead of
        the one header "flash" describes."""
        seed = seed_from_hex(header.get("seed", "0"))
        self.world = world = world_module.World(seed, header.get("ticks_origin_us", 0))
        world_module.current = world
        heap.lean(world, header)
        if header.get("cpu", cost.DEFAULT) != "off":
            # the firmware's Python costs what it does on the chip, times "cpu_scale" (a check
            # that CPU time changes no decision: docs/architecture.md "One ordered stream")
            world.cpu = CpuModel(world, scale=header.get("cpu_scale", 1))
        self._entropy_count = 0
        self._seed = seed
        bounce = header.get("bounce", "typical")
        self.players = [
            Contact(world, pinmap.PLAYER_BASE_GPIO + i, bounce) for i in range(pinmap.PLAYER_COUNT)
        ]
        self.controls = {}
        for name, gpio in pinmap.CONTROLS:
            self.controls[name] = Contact(world, gpio, bounce)
        self.console = FakeConsole(world, sink)
        self._font = header.get("font")  # the panel's glyphs as hex (simulate.run gives them)
        self.panel = None  # the simulated SSD1306, if the header asks for one
        if header.get("display"):
            from tablebuzz.sim.oled import Ssd1306Panel

            self.panel = Ssd1306Panel()
            world.i2c_devices[self.panel.address] = self.panel
        self._step_at = None
        self._stepping = False
        self._last_step = -LOOP_NS
        self._booting = False
        self.stopped = False
        self._every_ms = header.get("every_ms") is True  # never skip idle time (tests)
        self._heartbeat_at = None
        self.sink = sink
        self.header = header
        self._end = 0  # ns of the last timeline action (run(): the tail counts from it)
        self._hang_next = False  # a timeline "hang": the next loop pass never returns
        self.hung = False  # the loop is inside a pass that never returns
        self.watchdog_resets = 0

        if header.get("capture", "pio") != "pio":
            # the board captures presses with PIO only (docs/architecture.md "Capture")
            raise ValueError("capture %r: the board captures presses with PIO only"
                             % header.get("capture"))
        self._pixels = header.get("pixels", "pio")
        # the board module: refbox.board (MicroPython's fakes) or refbox.board_cp (CircuitPython's
        # fakes, tablebuzz.sim.fakes_cp; the caller put them on sys.path)
        self._cp = header.get("board", "micropython") == "circuitpython"
        world.usb_console = self.console  # what the CircuitPython usb_cdc.data fake talks to
        self.boot_game = None
        if header.get("game"):
            self.boot_game = (
                header["game"],
                header.get("players", pinmap.PLAYER_COUNT),
                header.get("options", {}),
            )
        self.fs = fs
        flash = header.get("flash")
        if fs is not None:
            if hasattr(fs, "world"):
                fs.world = world
        elif flash is not None:
            if "dir" in flash:
                from refbox.journal import OsFiles

                self.fs = OsFiles(flash["dir"])
            else:
                from tablebuzz.sim.flashfs import FlashFS

                self.fs = FlashFS(flash.get("capacity"))
                self.fs.world = world
                if flash.get("stall") is False:  # as the emulated chip, whose flash takes no time
                    self.fs.page_us = self.fs.erase_us = 0
                stretch = flash.get("stall_scale", 1)  # flash stalls lengthened (or shortened)
                self.fs.page_us = int(self.fs.page_us * stretch)
                self.fs.erase_us = int(self.fs.erase_us * stretch)
        self.app = None
        self.board = None
        self.boots = 0
        # the capture's DMA ring wakes the loop; a control edge does through its hard IRQ handler
        # (refbox.board.ControlEdges), as every handler does (_wrap_handlers)
        world.loop_wakers.append(self._request_step)
        self._wrap_handlers()
        self._boot()

    # ------------------------------------------------------------------ power and boot
    # The platform refbox.boot asks for (see refbox.boot.BoardPlatform for the board's).
    def control_held(self, name):
        if self._cp:
            from refbox.board_cp import control_held
        else:
            from refbox.board import control_held

        for control, gpio in pinmap.CONTROLS:
            if control == name:
                return control_held(gpio)
        return False

    def make_board(self, clock):
        if self._cp:
            return self._make_cp_board(clock)
        from refbox.board import Board  # imports the fakes: machine, rp2, neopixel

        self.board = Board(
            pinmap,
            clock,
            pixels=self._pixels,
            console=self.console,
            entropy=self._entropy,
            collect=self._collect,
        )
        if self.world.cpu is not None:
            self._charge(self.board, self.world.cpu)
        return self.board

    def _make_cp_board(self, clock):
        """refbox.board_cp's Board on the CircuitPython fakes, talking through usb_cdc.data (as
        boot.py enables it) to this run's console."""
        import usb_cdc
        from refbox.board_cp import Board

        usb_cdc._simulated_boot()
        font = None
        if self.panel is not None:  # the glyphs flash puts on the drive (refbox.oled_cp)
            given = self._font
            font = bytes.fromhex(given) if given else font_bytes()
        self.board = Board(pinmap, clock, entropy=self._entropy, collect=self._collect, font=font)
        return self.board

    def _charge(self, board, cpu):
        """Charge the CPU model for what the board's firmware does through `board`: each event
        encoded, each capture word decoded, each LED frame (which shows when the work before it
        is done)."""
        world = self.world
        write_line = board.write_line
        show = board.show

        def charged_write_line(line):
            cpu.line(line)
            write_line(line)

        def charged_show(frame):
            cpu.frame()
            world.catch_up()
            return show(frame)

        send_line = board.send_line
        show_floor = board.show_floor

        def charged_send_line(line):
            cpu.race_line(line)
            world.catch_up()
            return send_line(line)

        def charged_show_floor(station, colour):
            cpu.floor()
            world.catch_up()
            return show_floor(station, colour)

        board.write_line = charged_write_line
        board.show = charged_show
        board.send_line = charged_send_line
        board.show_floor = charged_show_floor
        show_stations = board.show_stations

        def charged_show_stations(colours):
            cpu.floor()  # (the same short write: the station pixels' words)
            world.catch_up()
            return show_stations(colours)

        board.show_stations = charged_show_stations
        capture = board.capture
        taken = capture.taken

        def charged_taken(n):
            cpu.words(n)
            taken(n)

        capture.taken = charged_taken

    def adopt(self, app):
        self.app = app
        cpu = self.world.cpu
        if cpu is not None:  # each press a debouncer accepts: the referee queues it, the arbiter
            press = app.referee.press  # takes it

            def charged_press(station, stamp):
                cpu.accept()
                press(station, stamp)

            app.referee.press = charged_press
            cpu.waiting = lambda: len(app._waiting)  # (App._still_waiting's, each pass)
            for deb in app.debouncers:  # each edge judged in Python (refbox.edgeloop's slow path)
                deb.edge_at = _charged_edge_at(deb.edge_at, cpu)

    def _board_module(self):
        """The board module this run plays (refbox.board, or refbox.board_cp for CircuitPython)."""
        if self._cp:
            from refbox import board_cp

            return board_cp
        from refbox import board

        return board

    def start_watchdog(self):
        """The firmware's own start (the board module's start_watchdog, its fakes here)."""
        from refbox import boot

        return self._board_module().start_watchdog(boot.WATCHDOG_MS)

    def stop_watchdog(self):
        self._board_module().stop_watchdog()

    def _boot(self, _=None):
        """Run firmware/main.py as the chip does at power-up."""
        from refbox import boot

        self.clock = self.world
        self.pinmap = pinmap
        boot.PLATFORM = self
        # the clock main.py sets (refbox.sysclock): the firmware's, or the header's "clock_mhz"
        # (125: a board built to stay at MicroPython's own clock, as the CPU model's calibration)
        sysclock.SYS_MHZ = self.header.get("clock_mhz", FIRMWARE_MHZ)
        cpu = self.world.cpu
        if cpu is not None:
            # a run starts with the board up: the timeline's 0 is the firmware ready, the
            # header's game started (free); a power-on imports the firmware and boots (charged)
            cpu.paused = not self.boots
            if self.boots:
                cpu.boot()
        self._stepping = True  # a power cut meanwhile stops the boot where it is
        heap.collect(self.header)  # the chip's heap is empty at power-up: the last run's garbage
        try:
            self._boot_py()
            exec(_main_py(), {"__name__": "__main__"})
        except PowerCutError:
            pass  # (world.halted is set: the power goes off below)
        except KeyboardInterrupt:  # Ctrl-C while main.py set up (a write that waited)
            self._interrupted()
        finally:
            boot.PLATFORM = None
            self._stepping = False
            if cpu is not None:
                cpu.paused = False
        if self.world.halted:
            self.power_off()
            return
        self.boots += 1
        self.boot_game = None  # the header's game is the first boot's only
        self._request_step()

    def _boot_py(self):
        """What the board's boot.py does before main.py: the USB keyboard mode when the header
        has "usb_keyboard" (usb_keyboard.json's object; docs/usb-keyboard.md), on a USB device
        and stack fresh from the power-up (the fake machine.USBDevice, micropython-lib's
        usb.device when on sys.path)."""
        if self._cp:
            return
        from refbox import board

        board._keyboard = None
        config = self.header.get("usb_keyboard")
        if config is None:
            return
        import machine

        from tablebuzz.sim import usbhost

        machine.USBDevice._instance = None  # a power-up: no runtime device yet
        usbhost.host(self.world).power_up()  # the host saw the device go (it keeps its record)
        core = sys.modules.get("usb.device.core")
        if core is not None:
            core._dev = None  # micropython-lib's singleton is the chip's RAM too
        board.start_usb_keyboard(pinmap.PLAYER_COUNT, config=config)

    def power_off(self):
        """Cut the power now: the chip stops, the flash keeps what it had committed."""
        if self.app is None and not self.world.halted:
            return
        self.app = None
        self.board = None
        self._step_at = None
        self._heartbeat_at = None
        self.hung = False
        self._hang_next = False
        self.world.power_off()
        self.console.power_off()
        if self.fs is not None and hasattr(self.fs, "power_cut"):
            self.fs.power_cut()

    def power_on(self):
        if self.app is not None or self._booting:
            return
        self.world.power_on()
        self._booting = True
        self.world.at(self.world.now + BOOT_NS, self._boot_after_power_on)

    def _boot_after_power_on(self, _):
        self._booting = False
        self.hung = False
        self.stopped = False
        self._last_step = -LOOP_NS
        self._boot()

    def _entropy(self):
        """Deterministic 'chip entropy': the run's seed and the game number through SHA-256."""
        import hashlib

        self._entropy_count += 1
        count = b"%d" % self._entropy_count
        return hashlib.sha256(b"sim-entropy:" + self._seed + b":" + count).digest()[:16]

    def _collect(self):
        """The firmware's gc.collect(): the loop stops for GC_NS, or the CPU model's "gc" (hard
        IRQs and the DMA go on). With the chip's heap (tablebuzz.sim.heap) it collects too, as the
        board does then: the heap's pieces are where the chip's would be."""
        heap.collect(self.header)
        cpu = self.world.cpu
        if cpu is None:
            self.world.gc_pause(GC_NS)
        else:
            cpu.collected()
            self.world.collect(cpu.at_clock(cpu.table["gc"] * cpu.scale_milli // 1000))

    def _wrap_handlers(self):
        """Step the loop after every hard IRQ handler (the loop would see the ring on its next
        pass)."""
        world = self.world
        sim = self
        original = world.request_irq

        def request_irq(key, priority, handler, arg):
            def wrapped(a):
                handler(a)
                sim._request_step()

            original(key, priority, wrapped, arg)

        world.request_irq = request_irq

    def _request_step(self, wake_us=None):
        """The next pass: on the loop's 1 ms grid, or `wake_us` after the pass ended when the
        firmware wakes sooner for a press being confirmed (App.wake_in_us, as App.run sleeps)."""
        now = self.world.now
        period = LOOP_NS
        if self.app is not None and self.app.referee.arbiter.phase == ARMED:
            period = ARMED_LOOP_NS
        t = (now // period + 1) * period
        if t <= self._last_step:
            t = self._last_step + period
        busy_until = self.world.loop_free_at()
        while t < busy_until:
            t += period
        if wake_us is not None and wake_us * 1000 < period:
            woken = max(now, busy_until) + wake_us * 1000
            if self._last_step < woken < t:
                t = woken
        if self._step_at is not None and self._step_at <= t:
            return
        self._step_at = t
        self.world.at(t, self._step, t)

    def _step(self, t):
        if self._step_at != t:
            return
        self._step_at = None
        if self._stepping:  # the loop is still inside a pass (a blocked console write)
            self._request_step()
            return
        if t < self.world.loop_free_at():
            self._request_step()
            return
        if self.stopped or self.app is None:
            return
        if self.hung:
            if self.console.interrupted:  # Ctrl-C reaches a loop hung in Python code too
                self._interrupted()
            return
        self._last_step = t
        if self.app.watchdog is not None:
            self.app.watchdog.feed()  # as App.run: every pass feeds the watchdog first
        if self._hang_next:
            self._hang_next = False
            self._hang()
            return
        self._stepping = True
        try:
            if self.console.interrupted:
                raise KeyboardInterrupt  # Ctrl-C arrived since the last pass (FakeConsole.feed)
            self.app.step()
        except KeyboardInterrupt:  # Ctrl-C on the console: the firmware stops, as on the board
            self._interrupted()
            return
        except PowerCutError:  # fault injection: the power failed inside a filesystem operation
            self._stepping = False
            self.power_off()
            return
        finally:
            self._stepping = False
        if self.world.halted:  # the power went off after the pass's last visible act
            self.power_off()
            return
        if self.app is None or self.board is None:
            return  # the power went off while the pass waited (a console write, a stalled host)
        output = self.board.outbox.pending() and self.console.writable()
        due = output or self.app.maintenance_due()  # the board's next pass would do it
        if self._every_ms or self.app.is_busy() or self.console.pending() or due:
            self._request_step(self.app.wake_in_us(self.app.clock.ticks_us()))
        elif self._heartbeat_at is None:
            # the board's loop never sleeps for long: a pass at least every HEARTBEAT_NS keeps
            # what the loop does with time alone (the capture chain's keepalive) as on the board
            self._heartbeat_at = t + HEARTBEAT_NS
            self.world.at(self._heartbeat_at, self._heartbeat)

    # ------------------------------------------------------------------ hang and watchdog
    def _hang(self):
        """This pass never returns (a loop in Python that does not end: hard IRQs, PIO and DMA go
        on, no later pass runs, nothing feeds the watchdog). The watchdog resets the chip
        WATCHDOG_MS after the pass's feed; without one running the board stays hung."""
        self.hung = True
        self.world.log.append((self.world.now, "the loop hangs"))
        self._plan_watchdog()

    def _plan_watchdog(self):
        world = self.world
        if world.watchdog_ms is None:
            return
        bite = world.watchdog_fed + world.watchdog_ms * 1000000
        if bite > self._end:
            self._end = bite  # the run goes on until the reset and the resumed boot
        world.at(bite, self._watchdog_due)

    def _watchdog_due(self, _):
        """The watchdog's counter reached 0 unless a feed reloaded it (RP2040 datasheet §4.7).
        Only a hung loop misses feeds here: the simulator skips idle passes, each of which feeds
        it on the board, so a loop that is not hung counts as fed."""
        world = self.world
        if not self.hung or world.watchdog_ms is None or self.app is None:
            return
        if world.now - world.watchdog_fed < world.watchdog_ms * 1000000:
            self._plan_watchdog()
            return
        self.watchdog_reset()

    def watchdog_reset(self):
        """The watchdog resets the chip: as a power cut and an immediate power-up (the flash
        kept as a cut leaves it, USB gone and back, ticks_us() from 0), main.py BOOT_NS later."""
        self.world.log.append((self.world.now, "watchdog reset"))
        self.watchdog_resets += 1
        self.power_off()
        self.power_on()

    def _interrupted(self):
        """KeyboardInterrupt ended the loop: main.py's way out to the REPL (App.run: what fits
        goes out; refbox.boot.main: the watchdog is stopped), then the traceback's last line."""
        from refbox.board import stop_watchdog

        self.stopped = True
        self.hung = False
        self._stepping = False
        self.console.interrupted = False  # (raised once: the REPL has the console now)
        if self.board is not None:
            try:
                self.board.flush()
            except KeyboardInterrupt:
                pass
        stop_watchdog()
        self.sink(self.world.now, "KeyboardInterrupt: ")

    def _heartbeat(self, _):
        self._heartbeat_at = None
        self._request_step()

    def step_every_loop(self):
        """From now on step the loop every LOOP_NS whatever happens, as the board's loop runs
        (the batch run steps only while something can happen). The real-time runs use it: the
        LED patterns without a timer (a tie winner's colour/white) then show as on the table."""
        self.world.at(self.world.now + LOOP_NS, self._every_loop, self.world.now + LOOP_NS)

    def _every_loop(self, t):
        self._request_step()
        self.world.at(t + LOOP_NS, self._every_loop, t + LOOP_NS)

    # ------------------------------------------------------------------ records
    def _record(self, rec):
        kind = rec["k"]
        world = self.world
        if kind == "press":
            self.players[rec["p"] - 1].press()
        elif kind == "release":
            self.players[rec["p"] - 1].release()
        elif kind == "control":
            contact = self.controls[rec["name"]]
            contact.press()
            world.at(world.now + rec.get("hold_ns", 120000000), self._release_control, contact)
        elif kind == "send":
            if self.app is not None:  # no USB while the power is off
                # queued like a pin edge: a loop pass already due at this ns runs before it arrives
                world.at(world.now, self._feed, rec["line"].encode() + b"\n")
        elif kind == "send_bytes":
            if self.app is not None:
                world.at(world.now, self._feed, binascii.unhexlify(rec["hex"]) + b"\n")
        elif kind == "glitch":
            self.players[rec["p"] - 1].glitch(rec["ns"])
        elif kind == "mask":
            # a mask stands for one of the firmware's own masking calls (a CPU NeoPixel or flash
            # write): the control pins' hard IRQ handlers run at its end
            world.mask_interrupts(rec["ns"])
        elif kind == "gc":
            world.gc_pause(rec["ns"])
        elif kind == "power":
            if rec["on"]:
                self.power_on()
            elif self._stepping:
                world.halted = True  # inside a pass: it stops at its next visible act
            else:
                self.power_off()
        elif kind == "host":
            self.console.host_reading(rec["reading"])
        elif kind == "hang":
            if self.app is not None and not self.hung:
                self._hang_next = True
        if self.app is not None:
            self._request_step()

    def _feed(self, data):
        if self.app is None:
            return  # the power went off in between
        self.console.feed(data)
        self._request_step()

    def _release_control(self, contact):
        contact.release()
        if self.app is not None:
            self._request_step()

    def run(self, records):
        """Play `records` (an iterable in time order, read lazily) and run on until the device is
        idle, at most TAIL_NS after the last record, or longer while console input waits."""
        world = self.world
        self._records = iter(records)
        self._end = 0
        self._records_done = False
        self._schedule_next_record()
        while True:
            nxt = world.next_time()
            if nxt is None or not world.foreground_pending():
                break  # (a periodic timer alone keeps nothing going)
            late = self._records_done and nxt > self._end + TAIL_NS
            if late and not self.console.pending():
                break
            world.run_until(nxt)
        return self

    def _schedule_next_record(self):
        rec = next(self._records, None)
        if rec is None:
            self._records_done = True
            return
        # records go before anything the run itself queues for the same ns (as if all had been
        # queued up front), in file order
        self.world.at_first(rec["t"], self._play_record, rec)
        last = rec["t"] + rec.get("hold_ns", 0)  # a held control acts until it is let go
        if last > self._end:
            self._end = last

    def _play_record(self, rec):
        self._record(rec)
        self._schedule_next_record()


def run(header, records):
    """Run a whole simulation; returns [(ns, line)]."""
    lines = []
    Simulation(header, lambda t, line: lines.append((t, line))).run(records)
    return lines


def main():
    """MicroPython entry: header JSON on the first stdin line, then one record per line; prints 'ns
    line'."""
    import json

    header = json.loads(sys.stdin.readline())

    def records():  # one at a time: a long timeline never sits in the heap
        while True:
            line = sys.stdin.readline()
            if not line:
                return
            line = line.strip()
            if line:
                yield json.loads(line)

    def sink(t, text):
        sys.stdout.write("%d %s\n" % (t, text))

    Simulation(header, sink).run(records())


def _charged_edge_at(edge_at, cpu):
    """`Debouncer.edge_at` (bound) charging the CPU model for each edge (CpuModel.edge)."""

    def charged(closed, us, ns, out):
        cpu.edge()
        edge_at(closed, us, ns, out)

    return charged
