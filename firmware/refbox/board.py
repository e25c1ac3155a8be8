"""The board: the only firmware module that imports `machine`, `rp2` and `neopixel`.

Capture (design notes "Interrupts record, the loop decides"):
- PIO edge timestamper (default): PIO0 SM0 samples every player pin together each 7 cycles (56 ns
  at 125 MHz) and pushes `(counter << n_pins) | levels` on any change; its RX FIFO is joined to 8
  words and drained in bulk by a hard IRQ handler into a preallocated ring (no allocation). A full
  FIFO drops the NEWEST word, so first presses survive; the handler sees that in FDEBUG.RXSTALL and
  queues a GPIO_IN snapshot so the loop resynchronises the levels. The 24-bit counter wraps every
  0.94 s: the loop unwraps it from the µs tick stored with each word (refbox.capture).
- Pin-IRQ fallback: a hard handler per player pin stores (ticks_us, one GPIO_IN read). Resolution
  is the handler's (about 45 µs apart, lowest GPIO first when edges are pending together); presses
  in one snapshot are ties.
Pixels are driven by a PIO WS2812 program (PIO0 SM1), so LED writes never mask the capture
interrupt; the built-in `neopixel` (which masks interrupts ~30 µs per pixel) is the fallback.
Registers: RP2040 datasheet §2.3.1.7 (SIO GPIO_IN 0xd0000004), §3.7 (PIO0 FDEBUG 0x50200008).
"""

import array
import sys

import machine
import rp2

from refbox.capture import RECORD_PIO, RECORD_RESYNC, RECORD_SNAPSHOT
from refbox.compat import const
from refbox.ticks import ticks_add, ticks_diff

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython: no typing module
    TYPE_CHECKING = False
if TYPE_CHECKING:  # the PIO assembler's names, for the type checker only (rp2 stubs)
    from rp2.asm_pio import *  # noqa: F403

_GPIO_IN = const(0xD0000004)
_PIO0_FDEBUG = const(0x50200008)
_RING_SIZE = const(256)  # a power of two
_FIFO_DEPTH = const(8)  # RX FIFO joined
_BRIGHTNESS = const(64)  # of 255: 16 pixels at full white would draw ~1 A from USB


class CaptureRing:
    """Capture records (kind, value, µs tick) written by an interrupt handler and read by the loop.

    Preallocated: `put` never allocates, so it is safe in a hard IRQ. When full, new records are
    counted in `lost` and dropped (the loop then re-reads the levels).
    """

    def __init__(self, size=_RING_SIZE):
        self.mask = size - 1
        self.kinds = bytearray(size)
        self.values = array.array("I", [0] * size)
        self.ticks = array.array("I", [0] * size)
        self.head = 0
        self.tail = 0
        self.lost = 0

    def put(self, kind, value, tick):
        head = self.head
        following = (head + 1) & self.mask
        if following == self.tail:
            self.lost += 1
            return
        self.kinds[head] = kind
        self.values[head] = value
        self.ticks[head] = tick
        self.head = following

    def pending(self):
        return self.head != self.tail

    def pop(self):
        tail = self.tail
        record = (self.kinds[tail], self.values[tail], self.ticks[tail])
        self.tail = (tail + 1) & self.mask
        return record


_EDGE_PROGRAMS = {}  # n_pins -> assembled program: one copy in PIO memory however often built


def edge_timestamper(n_pins):
    """The PIO program for `n_pins` player pins (1..8): words of (30 - n_pins)-bit counter +
    levels. Assembled once per pin count: rp2 loads a program object into PIO instruction memory
    once, so a second Board (after Ctrl-C and `import main` without a soft reset) reuses it
    instead of running out of the 32 words."""
    if n_pins in _EDGE_PROGRAMS:
        return _EDGE_PROGRAMS[n_pins]
    counter_bits = 30 - n_pins

    @rp2.asm_pio(in_shiftdir=rp2.PIO.SHIFT_LEFT, fifo_join=rp2.PIO.JOIN_RX)
    def program():
        mov(y, invert(null))  # last levels: impossible, so the first sample is always pushed
        mov(x, invert(null))  # free-running down-counter
        jmp("sample")
        label("changed")  # x holds the new levels, osr the counter
        mov(y, x)
        mov(isr, null)
        in_(osr, counter_bits)
        in_(y, n_pins)
        push(noblock)  # never stall the time base; a full FIFO drops this (newest) word
        irq(rel(0))
        mov(x, osr)
        jmp(x_dec, "pad")  # this path is 14 cycles, two periods: count twice
        label("pad")
        jmp(x_dec, "sample")
        wrap_target()
        label("sample")  # 7 cycles per pass = one count
        mov(osr, x)
        mov(isr, null)
        in_(pins, n_pins)
        mov(x, isr)
        jmp(x_not_y, "changed")
        mov(x, osr)
        jmp(x_dec, "sample")
        wrap()

    _EDGE_PROGRAMS[n_pins] = program
    return program


@rp2.asm_pio(
    sideset_init=rp2.PIO.OUT_LOW,
    out_shiftdir=rp2.PIO.SHIFT_LEFT,
    autopull=True,
    pull_thresh=24,
    fifo_join=rp2.PIO.JOIN_TX,
)
def ws2812():
    # 10 cycles a bit at 8 MHz = 800 kbit/s: high 2 cycles, the data bit for 5, then low for 3.
    wrap_target()
    label("bit")
    out(x, 1).side(0)[2]
    jmp(not_x, "zero").side(1)[1]
    jmp("bit").side(1)[4]
    label("zero")
    nop().side(0)[4]
    wrap()


class PioEdgeCapture:
    """Player presses timestamped by PIO0 SM `sm_id`, drained in bulk by a hard IRQ into `ring`."""

    mode = "pio"

    def __init__(self, sm_id, base_pin, n_pins, ring, ticks_us):
        self.ring = ring
        self._ticks_us = ticks_us
        self._stall_bit = 1 << sm_id  # FDEBUG.RXSTALL bit of this state machine
        self._words = array.array("I", [0] * _FIFO_DEPTH)
        whole = memoryview(self._words)
        self._views = [whole[:n] for n in range(_FIFO_DEPTH + 1)]  # no slicing inside the handler
        self.sm = rp2.StateMachine(
            sm_id, edge_timestamper(n_pins), freq=machine.freq(), in_base=base_pin
        )
        self.sm.irq(self.drain, hard=True)
        machine.mem32[_PIO0_FDEBUG] = self._stall_bit
        before = ticks_us()
        self.sm.active(1)
        self.start_tick = ticks_add(before, ticks_diff(ticks_us(), before) // 2)  # to ~1 µs

    def drain(self, sm):
        """Hard IRQ handler: copy every word in the RX FIFO into the ring. Allocates nothing."""
        ring = self.ring
        words = self._words
        tick = self._ticks_us()
        n = sm.rx_fifo()
        while n:
            sm.get(self._views[n])
            for i in range(n):
                ring.put(RECORD_PIO, words[i], tick)
            n = sm.rx_fifo()
        if machine.mem32[_PIO0_FDEBUG] & self._stall_bit:
            machine.mem32[_PIO0_FDEBUG] = self._stall_bit  # write 1 to clear
            ring.put(RECORD_RESYNC, machine.mem32[_GPIO_IN], tick)


class PinIrqCapture:
    """Fallback: a hard IRQ on both edges of every player pin stores (one GPIO_IN read,
    ticks_us)."""

    mode = "irq"

    def __init__(self, pins, ring, ticks_us):
        self.ring = ring
        self._ticks_us = ticks_us
        self.start_tick = ticks_us()
        for pin in pins:
            pin.irq(self.edge, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=True)

    def edge(self, pin):
        """Hard IRQ handler. Allocates nothing."""
        self.ring.put(RECORD_SNAPSHOT, machine.mem32[_GPIO_IN], self._ticks_us())


class PioPixels:
    """WS2812 chain driven by a PIO state machine: writing a frame leaves interrupts enabled.

    `put` returns while up to 8 words are still going out, and the chain latches a frame only
    after ~280 µs low: a frame offered before the last one is out and latched is refused
    (`show` returns False) and the loop offers it again on its next pass.
    """

    masks_irqs = False

    def __init__(self, sm_id, pin, count, ticks_us):
        self._ticks_us = ticks_us
        self._ready = ticks_us()
        self._grb = array.array("I", [0] * count)
        self.sm = rp2.StateMachine(sm_id, ws2812, freq=8_000_000, sideset_base=pin)
        self.sm.active(1)

    def show(self, frame):
        """Send `frame` ([(r, g, b)] 0..255); False if the previous frame is still going out."""
        if ticks_diff(self._ready, self._ticks_us()) > 0:
            return False
        grb = self._grb
        for i in range(len(grb)):
            r, g, b = frame[i]
            grb[i] = (
                (g * _BRIGHTNESS // 255) << 16
                | (r * _BRIGHTNESS // 255) << 8
                | b * _BRIGHTNESS // 255
            )
        self.sm.put(grb, 8)
        # at most 8 words (30 µs each) are still in the TX FIFO, then 300 µs low to latch
        self._ready = ticks_add(self._ticks_us(), 8 * 30 + 300)
        return True


class CpuPixels:
    """Fallback: the built-in `neopixel` driver, which masks interrupts for ~30 µs a pixel."""

    masks_irqs = True

    def __init__(self, pin, count):
        import neopixel

        self.np = neopixel.NeoPixel(pin, count)

    def show(self, frame):
        np = self.np
        for i in range(len(frame)):
            r, g, b = frame[i]
            np[i] = (r * _BRIGHTNESS // 255, g * _BRIGHTNESS // 255, b * _BRIGHTNESS // 255)
        np.write()
        return True


class UsbConsole:  # pragma: no cover - the board's USB CDC
    """Protocol lines over the USB serial console. Ctrl-C stays enabled so mpremote can take
    over."""

    def __init__(self):
        import select

        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._in = getattr(sys.stdin, "buffer", sys.stdin)

    def read(self):
        """Bytes waiting on stdin (at most 64 a call), read one at a time: a read after a positive
        poll can still block on rp2 if asked for more."""
        data = b""
        while len(data) < 64 and self._poll.poll(0):
            byte = self._in.read(1)
            if not byte:
                break
            data += byte if isinstance(byte, bytes) else byte.encode()
        return data

    def write_line(self, line):
        # one write per line: a host that stops reading makes USB CDC time out, and a line cut
        # between two writes would arrive torn (the console sends "\r\n"; hosts strip "\r")
        sys.stdout.write(line + "\n")


class Board:
    """Pins, capture, pixels, piezo and console built from the pin map (refbox.pinmap)."""

    def __init__(self, pinmap, clock, capture="pio", pixels="pio", console=None, entropy=None):
        pin = machine.Pin
        self.base = pinmap.PLAYER_BASE_GPIO
        self.level_mask = (1 << pinmap.PLAYER_COUNT) - 1
        self.player_pins = [
            pin(self.base + i, pin.IN, pin.PULL_UP) for i in range(pinmap.PLAYER_COUNT)
        ]
        self.control_pins = [pin(gpio, pin.IN, pin.PULL_UP) for _, gpio in pinmap.CONTROLS]
        self.ring = CaptureRing()
        self.pio_mhz = machine.freq() // 1000000
        self.capture = None  # type: PioEdgeCapture | PinIrqCapture | None
        if capture == "pio":
            self.capture = PioEdgeCapture(
                0, self.player_pins[0], pinmap.PLAYER_COUNT, self.ring, clock.ticks_us
            )
        else:
            self.capture = PinIrqCapture(self.player_pins, self.ring, clock.ticks_us)
        self.capture_mode = self.capture.mode  # type: ignore[union-attr]
        self.capture_start_tick = self.capture.start_tick  # type: ignore[union-attr]
        pixel_pin = pin(pinmap.NEOPIXEL_GPIO, pin.OUT)
        count = pinmap.STATION_PIXELS + pinmap.MARKER_PIXELS
        self.pixels = (
            PioPixels(1, pixel_pin, count, clock.ticks_us)
            if pixels == "pio"
            else CpuPixels(pixel_pin, count)
        )
        self.pixels_mask_irqs = self.pixels.masks_irqs
        self.piezo = machine.PWM(pin(pinmap.PIEZO_GPIO))
        self.piezo.duty_u16(0)
        self.console = console if console is not None else UsbConsole()
        self._ticks_us = clock.ticks_us
        self.input_tick = clock.ticks_us()
        self._entropy = entropy

    def player_levels(self):
        """Player pin levels from one GPIO_IN read: bit i = station i, 1 = released."""
        return (machine.mem32[_GPIO_IN] >> self.base) & self.level_mask

    def control_levels(self):
        """Control pin levels: bit i = control i of the pin map, 1 = released."""
        levels = 0
        for i in range(len(self.control_pins)):
            levels |= self.control_pins[i].value() << i
        return levels

    def show(self, frame):
        """Show `frame` on the pixels; False if it must be offered again later."""
        return self.pixels.show(frame)

    def tone(self, freq):
        """Sound the piezo at `freq` Hz, or silence it with 0."""
        if freq:
            self.piezo.freq(freq)
            self.piezo.duty_u16(32768)
        else:
            self.piezo.duty_u16(0)

    def read_input(self):
        """Bytes waiting on the console (b"" if none); `input_tick` is then the µs tick at which
        they were read: the arrival tick of every line they end (a host command runs at it)."""
        data = self.console.read()
        if data:
            self.input_tick = self._ticks_us()
        return data

    def write_line(self, line):
        self.console.write_line(line)

    def entropy(self):
        """16 fresh random bytes for a game seed (the chip's ROSC-based os.urandom on the
        board)."""
        if self._entropy is not None:
            return self._entropy()
        import os

        return os.urandom(16)
