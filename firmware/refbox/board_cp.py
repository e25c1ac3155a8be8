"""The board on CircuitPython: the same interface as refbox.board (what refbox.app uses), built
from CircuitPython's modules instead of `machine` and `rp2`. refbox.boot picks it when
`sys.implementation.name == "circuitpython"`. Sources: CircuitPython 10.2.1 (shared-bindings,
ports/raspberrypi/common-hal) and the Adafruit libraries pinned in pyproject.toml.

Capture: the same PIO edge timestamper as refbox.board (the same 19 instructions, assembled from
text by `adafruit_pioasm`), run by `rp2pio.StateMachine`. `background_read(loop=ring)` (in
CircuitPython since 9.2.2) gives it a DMA channel paced by the SM's RX DREQ that writes every word
into `ring` in order and, at the ring's end, is pointed back at its start by the DMA completion
interrupt (common-hal/rp2pio/StateMachine.c, rp2pio_statemachine_dma_complete_read). CircuitPython
tells Python no DMA position, so the ring is read by content: every slot holds -1 (no word can be
negative: words are 30 bits) until the DMA writes a word there, and the loop writes -1 back into
each slot it has read (`taken`). Overflow bounds:
- the RX FIFO (8 words, joined) fills only while the completion interrupt is delayed past 8 edge
  words (each word is at least 14 PIO cycles apart: 8 words take >= 0.9 µs, so only with
  interrupts masked for longer, i.e. a flash write); `rxstall` then says words were lost;
- the ring (RING_WORDS) laps only when the loop leaves more than RING_WORDS words unread: with
  the worst bounce seen (30 edges a press), 34 presses while one pass is held. A lap is not
  detectable by content; the loop never blocks that long outside a safe moment (no race open).
Stamps share the µs tick clock: the SM is started by `restart()` between two reads of the chip's
TIMER (TIMERAWL) and its start is taken at their midpoint. CircuitPython offers no DMA to stamp the
start as refbox.board does: the anchor's error is half the bracket (a few µs on the chip), the same
for every stamp of a boot, so margins and ties between players are exact and only the comparison
of a stamp with a timer (a false start against a lockout's end) carries it.

Controls: `keypad.Keys` scans the control pins in the background and queues every debounced
change (64 events; a full queue sets `overflowed`, then the levels are re-read from the events
seen). Its stamps are `supervisor.ticks_ms()` of the scan, turned into µs ticks here: ms
resolution plus the scan interval, which is fine because controls never decide a race (a race is
decided by the buzzers' PIO stamps alone: refbox.controls).
LEDs: adafruit_neopixel over adafruit_pixelbuf, which writes through `neopixel_write` (a PIO state
machine, interrupts left enabled, the CPU waiting ~30 µs a pixel). Piezo: `pwmio.PWMOut`.
Serial: the protocol on `usb_cdc.data` (enabled by the CircuitPython boot.py); the REPL keeps
`usb_cdc.console`. Writes never wait: `write_timeout = 0`, and `writable` needs room for a whole
Outbox chunk in the 256-byte TX FIFO (CFG_TUD_CDC_TX_BUFSIZE).
Display: the optional SSD1306 on the I2C pins of the pin map, through `adafruit_ssd1306` on a
`busio.I2C` at 400 kHz, drawn by refbox.oled_cp (the MicroPython build's pictures and pieces:
one chunk a pass, only at a safe moment). A panel that answers but cannot be used (no driver in
lib/, no font file) is reported in `display_note`.
"""

import array

import board
import digitalio
import keypad
import microcontroller
import neopixel
import pwmio
import rp2pio
import supervisor

from refbox.compat import const
from refbox.outbox import Outbox
from refbox.ring import CaptureRing
from refbox.ticks import ticks_add, ticks_diff

RING_WORDS = const(1024)  # 4 KB of edge words
_EMPTY = const(-1)  # a slot the DMA has not written since the loop read it
_BRIGHTNESS = const(64)  # of 255, as refbox.board
_TICKS_MAX = const((1 << 30) - 1)
_TICKS_MS_HALF = const(1 << 28)  # supervisor.ticks_ms() wraps at 2**29
_TICKS_MS_MAX = const((1 << 29) - 1)
_TIMERAWL = const(0x40054028)  # RP2040 datasheet §4.6.5: the µs timer's low word
_GPIO_IN = const(0xD0000004)  # SIO GPIO_IN (RP2040 datasheet §2.3.1.7)
_TX_FIFO = const(256)  # CFG_TUD_CDC_TX_BUFSIZE (ports/raspberrypi/Makefile)
_KEY_SCAN_S = 0.005  # keypad scan interval: a press of 30 ms or more is never missed
_KEY_DEBOUNCE = const(2)  # scans a change must persist (keypad debounce_threshold)
_PIXEL_GAP_US = const(2000)  # neopixel_write waits 2 supervisor ticks after the last write
OLED_ADDRESS = const(0x3C)  # as refbox.board
_I2C_HZ = 400000


def pin(gpio):
    """The `board` pin of RP2040 GPIO `gpio` (board.GPn on the Pico)."""
    return getattr(board, "GP%d" % gpio)


class ChipClock:
    """µs ticks from the chip's TIMER (TIMERAWL, one 32-bit read through `memorymap`) modulo
    2**30, like MicroPython's time.ticks_us; `time.monotonic_ns()` counts 1/32768 s on the
    raspberrypi port (supervisor/port.c), too coarse for a race. Each read makes a 4-byte
    bytearray (memorymap has no allocation-free word read)."""

    def __init__(self):
        import time

        import memorymap

        self._timer = memorymap.AddressRange(start=_TIMERAWL, length=4)
        self._sleep = time.sleep

    def ticks_us(self):
        return int.from_bytes(self._timer[0:4], "little") & _TICKS_MAX

    def sleep_ms(self, ms):
        self._sleep(ms / 1000)


def edge_timestamper(n_pins):
    """refbox.board.edge_timestamper in pioasm text (the same instructions, in the same order:
    tests/test_circuitpython_board.py compares the machine code), for adafruit_pioasm: an
    adafruit_pioasm.Program (its `assembled` words, its `pio_kwargs`).

    adafruit_pioasm is imported for this one use and, on CircuitPython, forgotten again
    (sys.modules), so the GC can free its code: the capture keeps only the assembled words. That
    is ~11 KB of heap on CircuitPython's 64-bit unix port, in a Pico heap of ~160 KB."""
    import adafruit_pioasm

    counter_bits = 30 - n_pins
    program = adafruit_pioasm.Program(
        """
.program edge_timestamper
    mov y, ~null
    mov x, ~null
    jmp sample
changed:
    mov y, x
    mov isr, null
    in osr, %d
    in y, %d
    push noblock
    irq 0 rel
    mov x, osr
    jmp x-- pad
pad:
    jmp x-- sample
.wrap_target
sample:
    mov osr, x
    mov isr, null
    in pins, %d
    mov x, isr
    jmp x!=y changed
    mov x, osr
    jmp x-- sample
.wrap
"""
        % (counter_bits, n_pins, n_pins)
    )
    _forget("adafruit_pioasm")
    return program


def _forget(module):
    """Drop `module` from sys.modules on CircuitPython (the board), so nothing holds its code."""
    import sys

    if sys.implementation.name == "circuitpython":
        sys.modules.pop(module, None)


class PioEdgeCapture:
    """Player presses timestamped by the edge timestamper; the words land in `words` by DMA
    (see the module docstring). The interface refbox.app reads: `pending()`, `words`, `mask`,
    `index`, `taken(n)`, `stalled()`, `ring_words`; `count`/`rearm_below`/`stop`/`restart`
    keep refbox.board's names, with nothing to re-arm (CircuitPython's interrupt does it)."""

    mode = "pio"
    ring_words = RING_WORDS
    count = 1  # (refbox.board's DMA count: never 0 here)
    rearm_below = 0

    def __init__(self, base_gpio, n_pins, clock):
        self.words = array.array("i", [_EMPTY] * RING_WORDS)
        self.mask = RING_WORDS - 1
        self.index = 0
        program = edge_timestamper(n_pins)
        self.sm = rp2pio.StateMachine(
            program.assembled,
            frequency=0,  # the system clock, as refbox.board's freq=machine.freq()
            first_in_pin=pin(base_gpio),
            in_pin_count=n_pins,
            pull_in_pin_up=(1 << n_pins) - 1,
            in_shift_right=False,
            fifo_type="rx",
            **program.pio_kwargs,
        )
        self.mhz = self.sm.frequency // 1000000
        self.sm.stop()  # the constructor started it: start again, stamped, from the top
        self.sm.clear_rxfifo()  # (and RXSTALL)
        self.sm.background_read(loop=self.words)
        before = clock.ticks_us()
        self.sm.restart()
        after = clock.ticks_us()
        # the midpoint, in ns after `before`; TIMERAWL counts whole µs, so each read's true
        # time lies half a µs later on average (refbox.board adds the same half µs)
        mid_ns = ticks_diff(after, before) * 500 + 500
        self.start_tick = ticks_add(before, mid_ns // 1000)
        self.start_ns = mid_ns % 1000
        self.bracket_us = ticks_diff(after, before)  # the anchor's error is half of it

    def pending(self):
        """Words written since the last `taken`: the filled slots from `index` on."""
        words = self.words
        mask = self.mask
        i = self.index
        n = 0
        while n < RING_WORDS and words[(i + n) & mask] != _EMPTY:
            n += 1
        return n

    def taken(self, n):
        words = self.words
        mask = self.mask
        i = self.index
        for k in range(n):
            words[(i + k) & mask] = _EMPTY
        self.index = (i + n) & mask

    def stalled(self):
        """True once after the RX FIFO overflowed (RXSTALL): newer words were lost."""
        if self.sm.rxstall:
            self.sm.clear_rxfifo()
            return True
        return False

    def stop(self):
        return None

    def restart(self):
        return None

    def seq(self):
        return 0

    def arrivals(self, since):
        """No notes (refbox.board's timer): CircuitPython offers no hard timer interrupt, and
        its console writes never wait (write_timeout 0), so the loop's own tick serves."""
        return ()


class KeypadEdges:
    """The control buttons' edges from `keypad.Keys`, as refbox.board.ControlEdges's ring: `head`,
    `tail`, `lost`, `pending()`, `pop()` -> (control index << 1 | level, µs tick). Reading `head`
    or `pending()` first moves the keypad's queued events in (one preallocated Event, no
    allocation while none wait). `levels` mirrors the contacts from the events (bit i high =
    control i released), since keypad owns the pins."""

    def __init__(self, gpios, levels, ticks_us, size=128):
        self.keys = keypad.Keys(
            [pin(g) for g in gpios],
            value_when_pressed=False,
            pull=True,
            interval=_KEY_SCAN_S,
            debounce_threshold=_KEY_DEBOUNCE,
        )
        self._events = self.keys.events
        self._event = keypad.Event()
        self.ring = CaptureRing(size)
        self.levels = levels
        self._ticks_us = ticks_us
        self._lost = 0

    def _drain(self):
        events = self._events
        if not events:
            return
        event = self._event
        now_us = self._ticks_us()
        now_ms = supervisor.ticks_ms()
        while events.get_into(event):
            bit = 1 << event.key_number
            level = 0 if event.pressed else 1
            if (self.levels & bit) == (level << event.key_number):
                continue  # no change (the keypad starts from released)
            self.levels ^= bit
            age_ms = ((now_ms - event.timestamp + _TICKS_MS_HALF) & _TICKS_MS_MAX) - _TICKS_MS_HALF
            self.ring.put(event.key_number << 1 | level, ticks_add(now_us, -age_ms * 1000))
        if events.overflowed:
            events.clear()  # (and the flag) the levels stand for what was lost
            self._lost += 1

    @property
    def head(self):
        self._drain()
        return self.ring.head

    @property
    def tail(self):
        return self.ring.tail

    @property
    def lost(self):
        return self._lost + self.ring.lost

    @lost.setter
    def lost(self, value):
        self._lost = value
        self.ring.lost = value

    def pending(self):
        self._drain()
        return self.ring.pending()

    def pop(self):
        return self.ring.pop()


class NeoPixels:
    """The strip through adafruit_neopixel (auto_write off, brightness 1: the scaling is refbox.
    board's own integer one, so both builds send the same bytes). A frame offered within
    _PIXEL_GAP_US of the last is refused (`show` returns False, the App offers it again) rather
    than left to wait inside neopixel_write."""

    masks_irqs = False

    def __init__(self, gpio, count, ticks_us):
        self.np = neopixel.NeoPixel(
            pin(gpio), count, brightness=1.0, auto_write=False, pixel_order=neopixel.GRB
        )
        self._ticks_us = ticks_us
        self._ready = ticks_us()

    def show(self, frame):
        if ticks_diff(self._ready, self._ticks_us()) > 0:
            return False
        np = self.np
        for i in range(len(frame)):
            r, g, b = frame[i]
            np[i] = (r * _BRIGHTNESS // 255, g * _BRIGHTNESS // 255, b * _BRIGHTNESS // 255)
        np.show()
        self._ready = ticks_add(self._ticks_us(), _PIXEL_GAP_US)
        return True

    def show_stations(self, colours, stations):
        """refbox.board.Board.show_stations's: the first `stations` pixels in `colours` ((r, g,
        b) each; past its end dark); the rest of the strip as it was."""
        if ticks_diff(self._ready, self._ticks_us()) > 0:
            return False
        np = self.np
        for i in range(stations):
            r, g, b = colours[i] if i < len(colours) else (0, 0, 0)
            np[i] = (r * _BRIGHTNESS // 255, g * _BRIGHTNESS // 255, b * _BRIGHTNESS // 255)
        np.show()
        self._ready = ticks_add(self._ticks_us(), _PIXEL_GAP_US)
        return True

    def show_floor(self, station, colour, stations):
        """refbox.board.Board.show_floor's: the first `stations` pixels dark but `station`, lit
        in `colour`; the rest of the strip as it was (the driver's buffer keeps it)."""
        if ticks_diff(self._ready, self._ticks_us()) > 0:
            return False
        np = self.np
        for i in range(stations):
            np[i] = (0, 0, 0)
        r, g, b = colour
        np[station] = (r * _BRIGHTNESS // 255, g * _BRIGHTNESS // 255, b * _BRIGHTNESS // 255)
        np.show()
        self._ready = ticks_add(self._ticks_us(), _PIXEL_GAP_US)
        return True


class UsbDataConsole:  # the protocol's channel (the simulator gives the Board its own console)
    """Protocol lines over `usb_cdc.data`. Reads take what waits (at most 64 bytes a pass);
    writes never wait (write_timeout 0) and are offered only with room for a whole chunk."""

    def __init__(self, serial):
        if serial is None:
            raise RuntimeError("usb_cdc.data is off: boot.py enables it (docs/flashing.md)")
        serial.timeout = 0
        serial.write_timeout = 0
        self._serial = serial

    def read(self):
        n = self._serial.in_waiting
        if not n:
            return b""
        return self._serial.read(n if n < 64 else 64)

    def writable(self):
        return _TX_FIFO - self._serial.out_waiting >= Outbox.chunk

    def write(self, data, start, end):
        """Write data[start:end]; returns the bytes taken (usb_cdc.Serial.write with
        write_timeout 0 takes what fits: refbox.outbox writes the rest later)."""
        return self._serial.write(memoryview(data)[start:end])


def control_held(gpio):
    """True if the control on `gpio` is held down now (the safe-boot gesture), read by digitalio
    before keypad claims the pin."""
    contact = digitalio.DigitalInOut(pin(gpio))
    try:
        contact.switch_to_input(pull=digitalio.Pull.UP)
        return not contact.value
    finally:
        contact.deinit()


def _levels(gpios):
    """Bit i high when the contact on gpios[i] is open (read once, before keypad owns them)."""
    levels = 0
    for i in range(len(gpios)):
        if not control_held(gpios[i]):
            levels |= 1 << i
    return levels


def start_watchdog(timeout_ms):
    """The chip's watchdog through `microcontroller.watchdog` (RESET mode); returns what to
    feed(), or None on a build without one."""
    from watchdog import WatchDogMode

    dog = microcontroller.watchdog
    if dog is None:
        return None
    dog.timeout = timeout_ms / 1000
    dog.mode = WatchDogMode.RESET
    return dog


def stop_watchdog():
    """Stop it whenever the firmware hands the board to the REPL: mode None disables it
    (shared-bindings/watchdog/WatchDogTimer.c, WATCHDOGMODE_NONE)."""
    dog = microcontroller.watchdog
    if dog is not None:
        dog.mode = None


def journal_writable():
    """True when boot.py remounted CIRCUITPY for the code (the host sees it read-only); False
    after the safe-boot escape, when the host keeps the drive (docs/flashing.md)."""
    import storage

    return not storage.getmount("/").readonly


class Platform:
    """refbox.boot's platform on a CircuitPython board: the chip's µs clock, this module's
    Board, and CIRCUITPY for the journal when boot.py gave the drive to the code. After the
    safe-boot escape (UNDO held at power-up: boot.py leaves the drive to the host) there is no
    journal: a fresh start at the menu, the old journal left as it was."""

    def __init__(self):
        from refbox import pinmap
        from refbox.journal import OsFiles

        self.pinmap = pinmap
        self.clock = ChipClock()
        self.fs = OsFiles() if journal_writable() else None
        self.boot_game = None

    def control_held(self, name):
        for control, gpio in self.pinmap.CONTROLS:
            if control == name:
                return control_held(gpio)
        return False

    def make_board(self, clock):
        return Board(self.pinmap, clock)

    def start_watchdog(self):
        from refbox.boot import WATCHDOG_MS

        return start_watchdog(WATCHDOG_MS)

    def stop_watchdog(self):
        stop_watchdog()


class Board:
    """Pins, capture, pixels, piezo and console from the pin map (refbox.pinmap): refbox.board.
    Board's interface on CircuitPython."""

    capture_mode = "pio"
    pixels_mask_irqs = False

    def __init__(
        self, pinmap, clock, console=None, entropy=None, collect=None, font=None, **_ignored
    ):
        self.base = pinmap.PLAYER_BASE_GPIO
        self.level_mask = (1 << pinmap.PLAYER_COUNT) - 1
        gpios = [gpio for _, gpio in pinmap.CONTROLS]
        self.control_edges = KeypadEdges(gpios, _levels(gpios), clock.ticks_us)
        self.capture = PioEdgeCapture(self.base, pinmap.PLAYER_COUNT, clock)
        self.pio_mhz = self.capture.mhz
        # a resumed game's clock runs shifted from the chip's timer (refbox.boot.ShiftedClock):
        # the anchor was read through that clock, so it is on the shifted timeline already
        self.capture_start_tick = self.capture.start_tick
        self.capture_start_ns = self.capture.start_ns
        count = pinmap.STATION_PIXELS + pinmap.MARKER_PIXELS
        self.pixels = NeoPixels(pinmap.NEOPIXEL_GPIO, count, clock.ticks_us)
        self._stations = pinmap.STATION_PIXELS
        self.piezo = pwmio.PWMOut(pin(pinmap.PIEZO_GPIO), duty_cycle=0, variable_frequency=True)
        if console is None:
            import usb_cdc

            console = UsbDataConsole(usb_cdc.data)
        self.console = console
        self.outbox = Outbox()
        self._ticks_us = clock.ticks_us
        self.input_tick = clock.ticks_us()
        self._entropy = entropy
        self._collect = collect
        self.collections = 0
        self.display_note = None  # why a display that answered is not used, for the App to say
        self.display = self._find_display(pinmap, font)
        import memorymap

        self._gpio_in = memorymap.AddressRange(start=_GPIO_IN, length=4)

    def _find_display(self, pinmap, font):
        """The optional SSD1306 128x64 (hardware/wiring.md): a refbox.oled_cp.OledCP if one
        answers at OLED_ADDRESS, else None. busio.I2C itself raises RuntimeError when the lines
        have no pull-ups (nothing wired: a panel module carries them) and the probe is one
        zero-length write to that address only (the port bit-bangs it). `font`: the glyphs'
        bytes (the simulator gives them), else refbox.oled_cp.FONT_FILE is read."""
        import busio

        try:
            i2c = busio.I2C(
                pin(pinmap.I2C_SCL_GPIO), pin(pinmap.I2C_SDA_GPIO), frequency=_I2C_HZ
            )
        except (RuntimeError, ValueError):
            return None  # no pull-ups, or the pins are taken: no display
        while not i2c.try_lock():
            pass
        try:
            there = i2c.probe(OLED_ADDRESS)
        except OSError:
            there = False
        i2c.unlock()
        if not there:
            i2c.deinit()
            return None
        try:
            import adafruit_ssd1306
        except ImportError:
            i2c.deinit()
            self.display_note = (
                "a display answers at 0x3C but its driver adafruit_ssd1306 is not in lib/: "
                "tablebuzz flash --circuitpython installs it; going on without the display"
            )
            return None
        from refbox.oled_cp import FontError, OledCP, read_font

        try:
            glyphs = read_font() if font is None else font
            return OledCP(adafruit_ssd1306.SSD1306_I2C(128, 64, i2c, addr=OLED_ADDRESS), glyphs)
        except FontError as e:
            self.display_note = "%s; going on without the display" % e
        except (OSError, ValueError) as e:
            self.display_note = "the display at 0x3C did not take its set-up (%s)" % e
        i2c.deinit()
        return None

    def collect(self):
        """gc.collect() now (the loop calls it only at a safe moment: App.can_block)."""
        self.collections += 1
        if self._collect is not None:
            self._collect()
            return
        import gc

        gc.collect()

    def gc_threshold(self, nbytes):
        """CircuitPython has no gc.threshold: a no-op there (and on CPython)."""
        import gc

        if hasattr(gc, "threshold"):
            gc.threshold(nbytes)

    def player_levels(self):
        """Player pin levels from one SIO GPIO_IN read (RP2040 datasheet §2.3.1.7; the PIO owns
        the pins, but their input is readable): bit i = station i, 1 = released."""
        return (int.from_bytes(self._gpio_in[0:4], "little") >> self.base) & self.level_mask

    def control_levels(self):
        """Control levels as the keypad's events left them: bit i = control i, 1 = released."""
        edges = self.control_edges
        edges.pending()  # the events queued up to now
        return edges.levels

    def show(self, frame):
        return self.pixels.show(frame)

    def show_floor(self, station, colour):
        """refbox.board.Board.show_floor's."""
        return self.pixels.show_floor(station, colour, self._stations)

    def show_stations(self, colours):
        """refbox.board.Board.show_stations's."""
        return self.pixels.show_stations(colours, self._stations)

    def tone(self, freq):
        if freq:
            self.piezo.frequency = freq
            self.piezo.duty_cycle = 32768
        else:
            self.piezo.duty_cycle = 0

    def read_input(self):
        data = self.console.read()
        if data:
            self.input_tick = self._ticks_us()
        return data

    def write_line(self, line):
        self.outbox.put_line(line)

    def flush(self):
        return self.outbox.flush(self.console, self._ticks_us)

    def send_line(self, line):
        """refbox.board.Board.send_line's: the race line out at once."""
        return self.outbox.send(line, self.console, self._ticks_us)

    def entropy(self):
        """16 random bytes for a game seed (os.urandom: the RP2040's ROSC on CircuitPython)."""
        if self._entropy is not None:
            return self._entropy()
        import os

        return os.urandom(16)
