"""The board: the only firmware module that imports `machine`, `rp2` and `neopixel`. It owns the
I2C bus and finds the optional display on it (refbox.oled draws through the driver found here).

Capture (design notes "Interrupts record, the loop decides"):
- PIO edge timestamper (default): PIO0 SM0 samples every player pin together each 7 cycles (56 ns
  at 125 MHz) and pushes `(counter << n_pins) | levels` on any change; a DMA channel paced by the
  SM's RX DREQ moves each word into a 4 KB RAM ring as it comes (no interrupt handler), and the
  loop reads the channel's live transfer count. The SM is started and stamped by a DMA chain, so
  PIO stamps share the µs tick clock to ±0.5 µs. The 24-bit counter wraps every 0.94 s (0.23 s
  with 8 pins): the loop unwraps it from a µs tick by which each word was in the ring (its own
  read, or after a long wait the note a 50 ms hard timer took of the DMA's progress:
  refbox.capture, PioEdgeCapture.arrivals).
Pixels are driven by a PIO WS2812 program (PIO0 SM1), so LED writes never mask the capture
interrupt; the built-in `neopixel` (which masks interrupts ~30 µs per pixel) is the fallback.
Registers: RP2040 datasheet §2.3.1.7 (SIO GPIO_IN 0xd0000004), §3.7 (PIO0 CTRL 0x50200000, its
SET alias +0x2000, FDEBUG 0x50200008), §2.5 (DMA), §4.6 (TIMER TIMERAWL 0x40054028). The API:
MicroPython v1.28.0 docs/library/rp2.DMA.rst and ports/rp2/rp2_dma.c.
"""

import array
import sys

import machine
import rp2
import uctypes

from refbox.compat import TYPE_CHECKING, const
from refbox.outbox import Outbox
from refbox.ring import CaptureRing
from refbox.ticks import ticks_add, ticks_diff

if TYPE_CHECKING:  # the PIO assembler's names, for the type checker only (rp2 stubs)
    from rp2.asm_pio import *  # noqa: F403

_GPIO_IN = const(0xD0000004)
_PIO0_FDEBUG = const(0x50200008)
_PIO0_CTRL_SET = const(0x50202000)  # PIO0 CTRL through the atomic SET alias (+0x2000)
_DREQ_PIO0_RX0 = const(4)  # RP2040 and RP2350 (pico-sdk hardware/regs/dreq.h)
_CHAIN_CYCLES = const(4)  # A's write to B's TIMERAWL read: a chained channel starts at once
_TICKS_MAX = const((1 << 30) - 1)
# TIMER TIMERAWL (RP2040 datasheet §4.6.5) or TIMER0's (RP2350 datasheet §12.8)
_TIMERAWL = 0x400B0028 if "RP2350" in getattr(sys.implementation, "_machine", "") else 0x40054028
_RING_SIZE = const(256)  # a power of two
_FIFO_DEPTH = const(8)  # RX FIFO joined
_BRIGHTNESS = const(64)  # of 255: 16 pixels at full white would draw ~1 A from USB
_WORDS_KEPT = const(64)  # colours whose GRB word PioPixels keeps (a game uses a few dozen)
OLED_ADDRESS = const(0x3C)  # the SSD1306 module's 7-bit I2C address (hardware/bom.md)
_I2C_HZ = const(400000)  # I2C fast mode, the SSD1306's most (datasheet 13, tcycle 2.5 µs)
_I2C_PROBE_US = const(5000)  # the boot probe's timeout: a stuck bus must not hold the boot


_EDGE_PROGRAMS = {}  # n_pins -> assembled program: one copy in PIO memory however often built
_MARK_TIMER = None  # the machine.Timer noting the capture's progress (PioEdgeCapture._mark)


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


# The capture ring's 8 KB, allocated when this module is imported: at power-up that comes before
# the journal is read, whose records a resumed game keeps all over the heap (a 50-question quiz
# left no 8 KB in one piece for the Board: MemoryError at every power-up, emulated RP2040).
_RING_STORE = [array.array("I", bytes(2 * _RING_SIZE * 16))]  # twice the 4 KB ring


def _ring_store(nbytes):
    """An array of `nbytes` zero bytes for a capture ring: the one made at import the first
    time (the board has one capture), a new one after that (a simulation of several boards)."""
    if _RING_STORE and len(_RING_STORE[0]) * 4 == nbytes:
        return _RING_STORE.pop()
    return array.array("I", bytes(nbytes))


class PioEdgeCapture:
    """Player presses timestamped by PIO0 SM `sm_id`; a DMA channel paced by the SM's RX DREQ
    moves every word from the RX FIFO into a RAM ring as it is pushed. No interrupt handler:
    masked interrupts, flash writes, gc and a blocked loop cannot lose a word.

    (The published rp2 stubs omit DMA's documented attributes `count`, `write`, `channel`: hence
    the type-checker ignores below.)
    The loop asks `pending()` (from the channel's live TRANS_COUNT: counting from a 2**28 - 1
    load, the number stays a small int and says how many words came, laps of the ring included),
    reads them from `words` at `index`, and hands them back with `taken(n)`.
    Started by a DMA chain (`_start_anchored`), so the first sample's µs tick is exact.
    """

    mode = "pio"
    ring_words = _RING_SIZE * 4  # 1024 words = 4 KB, aligned to 4 KB: the DMA's write ring
    load = (1 << 28) - 1  # TRANS_COUNT per arming (RP2350 keeps 28 count bits)
    rearm_below = 1 << 20  # re-armed at a safe moment when fewer transfers remain

    mark_ms = 50  # how often the timer notes how far the DMA has come (see `_mark`)
    marks = 32  # notes kept (a power of two): 1.6 s, more than the loop's longest wait

    def __init__(self, sm_id, base_pin, n_pins, mhz, ticks_us=None):
        self._stall_bit = 1 << sm_id  # FDEBUG.RXSTALL of this state machine
        ring_bytes = self.ring_words * 4
        # the write ring wraps at a 4 KB boundary: take the aligned 4 KB inside 8 KB
        self._store = _ring_store(2 * ring_bytes)
        offset = (-uctypes.addressof(self._store) & (ring_bytes - 1)) // 4
        self.words = memoryview(self._store)[offset : offset + self.ring_words]
        self.mask = self.ring_words - 1
        self.index = 0  # ring index of the next word to read
        self._taken = 0  # words read since the channel was armed
        self.sm = rp2.StateMachine(
            sm_id, edge_timestamper(n_pins), freq=machine.freq(), in_base=base_pin
        )
        self.dma = rp2.DMA()
        self._ctrl = self.dma.pack_ctrl(
            size=2,  # 32-bit words
            inc_read=False,  # always the RX FIFO
            inc_write=True,
            ring_size=_log2(ring_bytes),
            ring_sel=True,  # the ring is on the write side
            treq_sel=_DREQ_PIO0_RX0 + sm_id,
            irq_quiet=True,
            bswap=False,
        )
        self.dma.config(read=self.sm, write=self.words, count=self.load, ctrl=self._ctrl)
        self._armed = self.load
        self.count = self.load
        self.restarts = 0
        self.dma.active(1)
        machine.mem32[_PIO0_FDEBUG] = self._stall_bit
        self.start_tick, self.start_ns = _start_anchored(sm_id, mhz)
        self._notes = array.array("i", [-1] * (2 * self.marks))  # (words, tick) pairs
        self._note_at = 0  # the pair the timer writes next (the oldest)
        if ticks_us is not None:
            self._start_marks(ticks_us)

    def _start_marks(self, ticks_us):
        """Note the DMA's progress every `mark_ms` from a hard timer interrupt, so that a word
        read late is still placed in the right counter wrap.

        A word's counter says its time modulo one wrap (0.23 s with 8 stations); which wrap
        comes from a tick by which the word was in the ring. The loop's own tick serves while it
        reads often, but a blocking call can hold it longer than a wrap: a console write that
        finds a host just stopped waits up to 1 s (docs/architecture.md "Console output"). The
        timer's interrupt still runs then (pico-sdk alarm pool: the TIMER's IRQ), and its note,
        taken at most `mark_ms` (plus any masked spell) after the word, is the tick the decoder
        uses instead (`arrivals`)."""
        global _MARK_TIMER
        if _MARK_TIMER is not None:
            _MARK_TIMER.deinit()  # a Board built again (Ctrl-C, `import main`): one timer
        self._ticks_us = ticks_us
        _MARK_TIMER = machine.Timer(  # -1: the rp2 port's only (soft, alarm pool) timer
            -1, mode=machine.Timer.PERIODIC, period=self.mark_ms, callback=self._mark, hard=True
        )

    def _mark(self, _timer):
        """The timer's hard interrupt: note the words written since arming and the tick.
        Allocates nothing (small ints into an array). The words slot is cleared first, so a
        pair read while it is rewritten is never taken for a whole one (`arrivals`)."""
        notes = self._notes
        i = self._note_at
        notes[i] = -1
        notes[i + 1] = self._ticks_us()
        notes[i] = self._armed - self.dma.count  # type: ignore[attr-defined]
        self._note_at = (i + 2) & (2 * self.marks - 1)

    def seq(self):
        """How many words the loop has taken since the channel was armed: the next word's
        number, as `arrivals` counts them."""
        return self._taken

    def arrivals(self, since):
        """[(words, tick)] oldest first: the notes taken after µs tick `since`, each saying
        that by `tick` the DMA had written `words` words since it was armed (a word numbered
        k, `seq` counting, was in the ring by the first note with words > k). Allocates: the
        loop asks only after a pass that came late."""
        notes = self._notes
        size = 2 * self.marks
        j = self._note_at
        out = []
        for _ in range(self.marks):
            words = notes[j]
            tick = notes[j + 1]
            if words >= 0 and notes[j] == words and ticks_diff(tick, since) > 0:
                out.append((words, tick))  # (torn by the interrupt: words read -1 or changed)
            j = (j + 2) & (size - 1)
        return out

    def pending(self):
        """Words written since the last `taken` (more than `ring_words`: the oldest are gone).
        Leaves the channel's live count in `count` (0: the channel has stopped)."""
        self.count = count = self.dma.count  # type: ignore[attr-defined]
        return self._armed - count - self._taken

    def taken(self, n):
        self.index = (self.index + n) & self.mask
        self._taken += n

    def stalled(self):
        """True once after the RX FIFO overflowed (FDEBUG.RXSTALL): newer words were lost."""
        if machine.mem32[_PIO0_FDEBUG] & self._stall_bit:
            machine.mem32[_PIO0_FDEBUG] = self._stall_bit  # write 1 to clear
            return True
        return False

    def stop(self):
        """Abort the channel (datasheet §2.5.5: CHAN_ABORT); words wait in the RX FIFO."""
        self.dma.active(0)

    def restart(self):
        """Load the channel afresh where it stopped (after the loop took every word)."""
        where = self.dma.write  # type: ignore[attr-defined]
        self.dma.config(write=where, count=self.load, ctrl=self._ctrl, trigger=True)
        self._armed = self.load
        self._taken = 0
        self.restarts += 1
        notes = self._notes
        for i in range(0, len(notes), 2):
            notes[i] = -1  # they counted the words of the last arming


def _log2(n):
    bits = 0
    while (1 << bits) < n:
        bits += 1
    return bits


def _start_anchored(sm_id, mhz):
    """Start PIO0 SM `sm_id` and stamp the start by DMA: channel A writes the SM's enable bit to
    PIO0 CTRL (SET alias), then chains to channel B, which copies TIMER TIMERAWL into RAM. No
    interrupt or interpreter time lies between the two: B's read comes a few cycles after A's
    write (`_CHAIN_CYCLES`). Returns (µs tick, ns) of the enable: the µs TIMERAWL read, less the
    chain, plus half a µs (TIMERAWL counts whole µs), so the error is within ±0.5 µs.
    Source: RP2040 datasheet §2.5.2 (chaining), §3.7 (CTRL), §4.6 (TIMERAWL); issue 16."""
    enable = array.array("I", [1 << sm_id])
    stamp = array.array("I", [0])
    clock = rp2.DMA()
    starter = rp2.DMA()
    unpaced = {"inc_read": False, "inc_write": False, "irq_quiet": True}
    clock.config(read=_TIMERAWL, write=stamp, count=1, ctrl=clock.pack_ctrl(**unpaced))
    starter.config(
        read=enable,
        write=_PIO0_CTRL_SET,
        count=1,
        ctrl=starter.pack_ctrl(chain_to=clock.channel, **unpaced),  # type: ignore[attr-defined]
    )
    starter.active(1)
    while starter.active():
        pass
    while clock.active():
        pass
    starter.close()
    clock.close()
    ns = 500 - _CHAIN_CYCLES * 1000 // mhz
    return stamp[0] & _TICKS_MAX, ns


class ControlEdges:
    """The control buttons by their edges: a hard IRQ on both edges of each control pin stores
    (control index << 1 | level read in the handler, ticks_us) in a CaptureRing. Hard IRQs run
    while the loop is stalled (gc, a slow pass), so those edges keep their ticks (128 records: a
    bouncing press and release give about 10-30, so a few presses fit in any stall); during a flash
    write every interrupt is masked, the edges stay latched in the pin's interrupt status and the
    handler runs once when the write ends (refbox.controls says what that record means)."""

    def __init__(self, pins, ticks_us, size=128):
        self.ring = CaptureRing(size)
        self._handlers = []  # kept referenced: the IRQ holds only the bound method
        for i in range(len(pins)):
            handler = _ControlPin(i, self.ring, ticks_us)
            pins[i].irq(handler.edge, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=True)
            self._handlers.append(handler)


class _ControlPin:
    """One control pin's hard IRQ handler. Allocates nothing (small ints, a preallocated ring)."""

    def __init__(self, index, ring, ticks_us):
        self._code = index << 1
        self._ring = ring
        self._ticks_us = ticks_us

    def edge(self, pin):
        self._ring.put(self._code | pin.value(), self._ticks_us())


class PioPixels:
    """WS2812 chain driven by a PIO state machine: writing a frame leaves interrupts enabled.

    `put` returns while up to 8 words are still going out, and the chain latches a frame only
    after ~280 µs low: a frame offered before the last one is out and latched is refused
    (`show` returns False) and the loop offers it again on its next pass.
    """

    masks_irqs = False

    def __init__(self, sm_id, pin, count, ticks_us, stations=None):
        self._ticks_us = ticks_us
        self._ready = ticks_us()
        self._grb = array.array("I", [0] * count)
        # show_floor's words: the stations' pixels (the first `stations` of the chain; all of it
        # when not given)
        self._floor = array.array("I", [0] * (count if stations is None else stations))
        self._words = {}  # (r, g, b) -> its GRB word at _BRIGHTNESS: worked out once a colour
        self.sm = rp2.StateMachine(sm_id, ws2812, freq=8_000_000, sideset_base=pin)
        self.sm.active(1)

    def show(self, frame):
        """Send `frame` ([(r, g, b)] 0..255); False if the previous frame is still going out."""
        if ticks_diff(self._ready, self._ticks_us()) > 0:
            return False
        grb = self._grb
        words = self._words
        for i in range(len(grb)):
            # a frame has a few colours (refbox.leds keeps them as constants): each pixel's word
            # is one lookup, not six multiplications (the winner's LED waits for this: ~0.9 ms
            # a frame on the chip before)
            colour = frame[i]
            word = words.get(colour)
            if word is None:
                word = self._word(colour)
            grb[i] = word
        self._put(grb)
        return True

    def show_floor(self, station, colour):
        """Light the station pixels as the floor shows them: `station` in `colour` ((r, g, b)),
        every other station dark; False if the previous frame is still going out. Only those
        pixels are sent: a WS2812 chain takes a shorter frame into its first pixels and the
        marker bar keeps what it shows (WS2812B datasheet: each pixel passes on what follows its
        24 bits), so the light is out in a third of a full frame's time."""
        if ticks_diff(self._ready, self._ticks_us()) > 0:
            return False
        floor = self._floor
        for i in range(len(floor)):
            floor[i] = 0
        word = self._words.get(colour)
        floor[station] = self._word(colour) if word is None else word
        self._put(floor)
        return True

    def show_stations(self, colours):
        """Light the station pixels in `colours` ((r, g, b) each, in station order, (0, 0, 0)
        dark; stations past its end dark), the marker bar as it was: show_floor's shorter frame,
        for the cue (refbox.app.App.show_cue); False if the previous frame is still going out."""
        if ticks_diff(self._ready, self._ticks_us()) > 0:
            return False
        floor = self._floor
        for i in range(len(floor)):
            colour = colours[i] if i < len(colours) else (0, 0, 0)
            word = self._words.get(colour)
            floor[i] = self._word(colour) if word is None else word
        self._put(floor)
        return True

    def _word(self, colour):
        """The GRB word of `colour` at _BRIGHTNESS, kept for the next frames."""
        r, g, b = colour
        word = (g * _BRIGHTNESS // 255) << 16 | (r * _BRIGHTNESS // 255) << 8
        word |= b * _BRIGHTNESS // 255
        if len(self._words) < _WORDS_KEPT:
            self._words[colour] = word
        return word

    def _put(self, words):
        self.sm.put(words, 8)
        # at most 8 words (30 µs each) are still in the TX FIFO, then 300 µs low to latch
        self._ready = ticks_add(self._ticks_us(), 8 * 30 + 300)


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

    def show_floor(self, station, colour):
        """Not here (Board.show_floor): this write masks the capture's interrupts, and the
        race's other presses may be coming; the pass's own frame shows the floor."""
        return False

    def show_stations(self, colours):
        """Not here (Board.show_stations): the pass's own frame shows the cue."""
        return False


class UsbConsole:  # pragma: no cover - the board's USB CDC
    """Protocol lines over the USB serial console. Ctrl-C stays enabled so mpremote can take
    over. Output goes through refbox.outbox.Outbox: `write` is called only after `writable`."""

    def __init__(self):
        import select

        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._out_poll = select.poll()
        self._out_poll.register(sys.stdout, select.POLLOUT)
        self._in = getattr(sys.stdin, "buffer", sys.stdin)
        self._out = sys.stdout.buffer
        self._byte = bytearray(1)  # one byte read in place (readinto: nothing allocated)
        self._got = bytearray(64)  # the bytes of one read

    def read(self):
        """Bytes waiting on stdin (at most 64 a call), read one at a time: a read after a positive
        poll can still block on rp2 if asked for more. b"" (no allocation) when none wait. Each
        byte is read into a buffer kept for it (~30 µs a byte less on the emulated chip than a
        bytes object made and joined per byte)."""
        poll = self._poll
        for _ in poll.ipoll(0):  # ipoll: no list allocated, unlike poll()
            break
        else:
            return b""  # the idle pass: one poll
        readinto = getattr(self._in, "readinto", None)
        if readinto is not None:
            one = self._byte
            got = self._got
            n = 0
            while n < 64 and readinto(one):
                got[n] = one[0]
                n += 1
                for _ in poll.ipoll(0):
                    break
                else:
                    break  # nothing more waits: a read now would block
            return bytes(got[:n])
        data = b""
        while len(data) < 64 and self._ready(self._poll):
            byte = self._in.read(1)
            if not byte:
                break
            data += byte if isinstance(byte, bytes) else byte.encode()
        return data

    @staticmethod
    def _ready(poll):
        for _ in poll.ipoll(0):  # ipoll: no list allocated, unlike poll()
            return True
        return False

    def writable(self):
        """POLLOUT: the host is not connected, or the CDC TX FIFO has room (at least a byte)."""
        return self._ready(self._out_poll)

    def write(self, data, start, end):
        """Write data[start:end] raw (no "\n" -> "\r\n": hosts take LF lines). Returns the bytes
        the CDC TX FIFO took: fewer than asked when the host stopped reading and
        MICROPY_HW_USB_CDC_TX_TIMEOUT (500 ms without progress) ran out (MicroPython v1.28.0
        `shared/tinyusb/mp_usbd_cdc.c` `mp_usbd_cdc_tx_strn` returns what it wrote, and
        `py/stream.c` `mp_stream_rw` stops at a call that wrote nothing)."""
        return self._out.write(memoryview(data)[start:end])


_WATCHDOG_CTRL = {"RP2040": const(0x40058000), "RP2350": const(0x400D8000)}
_ATOMIC_CLEAR = const(0x3000)  # RP2040 datasheet §2.1.2: write 1s here to clear those bits
_WATCHDOG_ENABLE = 1 << 30  # WATCHDOG CTRL.ENABLE (RP2040 datasheet §4.7.6)


def control_held(gpio):
    """True if the control button on `gpio` is held down now (read before the Board is built: the
    safe-boot gesture at power-up)."""
    return machine.Pin(gpio, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0


def start_watchdog(timeout_ms):
    """Start the chip's watchdog (at most 8388 ms on rp2); returns the object to feed()."""
    return machine.WDT(timeout=timeout_ms)


def stop_watchdog():
    """Stop the watchdog again, as the pico-sdk's watchdog_disable() does (clear CTRL.ENABLE):
    MicroPython's WDT has no stop, but the firmware must leave it off whenever it hands the board
    to the REPL (Ctrl-C, mpremote), or the board would reset under mpremote 8 s later."""
    chip = "RP2350" if "RP2350" in getattr(sys.implementation, "_machine", "") else "RP2040"
    machine.mem32[_WATCHDOG_CTRL[chip] + _ATOMIC_CLEAR] = _WATCHDOG_ENABLE


KEYBOARD_FILE = "usb_keyboard.json"  # on the board's flash: the USB keyboard mode is on
_keyboard = None  # (Typist or None, note or None) once start_usb_keyboard ran


def start_usb_keyboard(stations, path=KEYBOARD_FILE, config=None):
    """USB keyboard mode (docs/usb-keyboard.md), from boot.py: before the USB subsystem starts,
    so the box enumerates once with the console (the built-in CDC, kept by builtin_driver=True)
    and a HID boot keyboard (micropython-lib's usb-device-keyboard) side by side. Off (None)
    when `path` is absent. `config`: the file's object, instead of reading `path`. Returns
    (refbox.keys.Typist or None, note or None); the note (why the mode is off although asked
    for) is said by the App at boot as an `error` line. Never raises."""
    global _keyboard
    _keyboard = _keyboard_from(stations, path, config)
    return _keyboard


def _keyboard_from(stations, path, config):
    """start_usb_keyboard's (Typist or None, note or None), each step's failure its own words."""
    from refbox.keys import KeyConfigError, Typist, parse_keys

    if config is None:
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            return None, None  # no file: the mode is off, nothing to say
        import json

        try:
            config = json.loads(text)
        except ValueError as e:
            return None, "USB keyboard mode is off: %s is not JSON (%s)" % (path, e)
    try:
        keys = parse_keys(config, stations)
    except KeyConfigError as e:
        return None, "USB keyboard mode is off: %s" % e
    try:
        # micropython-lib's (tablebuzz flash --usb-keyboard installs them), not in the stubs
        import usb.device  # type: ignore[import-untyped]
        from usb.device.keyboard import KeyboardInterface  # type: ignore[import-untyped]
    except ImportError:
        return None, ("USB keyboard mode is off: micropython-lib's usb-device-keyboard is not on "
                      "the board (tablebuzz flash --usb-keyboard installs it)")
    try:
        keyboard = KeyboardInterface()
        usb.device.get().init(keyboard, builtin_driver=True)
    except Exception as e:  # the USB stack refused: the box must boot regardless
        return None, "USB keyboard mode is off: the USB device refused it (%s: %s)" % (
            type(e).__name__, e)
    return Typist(keys, keyboard), None


class Board:
    """Pins, capture, pixels, piezo and console built from the pin map (refbox.pinmap)."""

    def __init__(
        self, pinmap, clock, capture="pio", pixels="pio", console=None, entropy=None, collect=None
    ):
        pin = machine.Pin
        self.base = pinmap.PLAYER_BASE_GPIO
        self.level_mask = (1 << pinmap.PLAYER_COUNT) - 1
        self.player_pins = [
            pin(self.base + i, pin.IN, pin.PULL_UP) for i in range(pinmap.PLAYER_COUNT)
        ]
        self.control_pins = [pin(gpio, pin.IN, pin.PULL_UP) for _, gpio in pinmap.CONTROLS]
        self.control_edges = ControlEdges(self.control_pins, clock.ticks_us).ring
        self.pio_mhz = machine.freq() // 1000000
        # the one capture path: the PIO edge timestamper (a pin-IRQ path was removed: it could not
        # be as fair under masked interrupts, docs/architecture.md "One capture path")
        self.capture = PioEdgeCapture(
            0, self.player_pins[0], pinmap.PLAYER_COUNT, self.pio_mhz, clock.ticks_us
        )
        self.capture_mode = self.capture.mode
        # the DMA anchor is the chip's own timer (TIMERAWL); a resumed game's clock runs shifted
        # from it (refbox.boot.ShiftedClock), and so must the stamps
        shift = getattr(clock, "offset", 0)
        self.capture_start_tick = ticks_add(self.capture.start_tick, shift)
        self.capture_start_ns = self.capture.start_ns
        pixel_pin = pin(pinmap.NEOPIXEL_GPIO, pin.OUT)
        count = pinmap.STATION_PIXELS + pinmap.MARKER_PIXELS
        self.pixels = (
            PioPixels(1, pixel_pin, count, clock.ticks_us, pinmap.STATION_PIXELS)
            if pixels == "pio"
            else CpuPixels(pixel_pin, count)
        )
        self.pixels_mask_irqs = self.pixels.masks_irqs
        self.piezo = machine.PWM(pin(pinmap.PIEZO_GPIO))
        self.piezo.duty_u16(0)
        self.console = console if console is not None else UsbConsole()
        self.outbox = Outbox()
        self._ticks_us = clock.ticks_us
        self.input_tick = clock.ticks_us()
        self._entropy = entropy
        self._collect = collect
        self.collections = 0
        self.display_note = None  # why a display that answered is not used, for the App to say
        # USB keyboard mode: the Typist boot.py started (start_usb_keyboard), or None
        self.keyboard, self.keyboard_note = _keyboard or (None, None)
        self.display = self._find_display(pinmap)

    def _find_display(self, pinmap):
        """The optional SSD1306 128x64 on I2C0 (hardware/wiring.md): a refbox.oled.Oled if one
        answers at OLED_ADDRESS, else None. The probe is one write of the SSD1306's NOP command
        (datasheet, command table: 0xE3) to that address only, with a 5 ms timeout, instead of a
        scan of every address (whose zero-length writes the rp2 port bit-bangs, 50 ms each on a
        stuck line): an absent panel costs one unanswered address byte at boot, a stuck bus 5
        ms. The driver is micropython-lib's `ssd1306` (make flash installs it on the board); a
        panel that answers without it is noted in `display_note`."""
        try:
            i2c = machine.I2C(
                0,
                sda=machine.Pin(pinmap.I2C_SDA_GPIO),
                scl=machine.Pin(pinmap.I2C_SCL_GPIO),
                freq=_I2C_HZ,
                timeout=_I2C_PROBE_US,
            )
            i2c.writeto(OLED_ADDRESS, b"\x80\xe3")  # Co=1 D/C#=0, one command: NOP
        except (OSError, ValueError):
            return None  # nothing answers (or no bus on these pins): no display
        try:
            import ssd1306  # type: ignore[import-not-found]  # micropython-lib's, not in the stubs
        except ImportError:
            self.display_note = (
                "a display answers at 0x3C but its driver ssd1306 is not on the board: make "
                "flash installs it; going on without the display"
            )
            return None
        from refbox.oled import Oled

        try:
            return Oled(ssd1306.SSD1306_I2C(128, 64, i2c, OLED_ADDRESS))
        except OSError as e:
            self.display_note = "the display at 0x3C did not take its set-up (%s)" % e
            return None

    def collect(self):
        """gc.collect() now (the loop calls it only at a safe moment: App.can_block)."""
        self.collections += 1
        if self._collect is not None:
            self._collect()  # the simulator: a pause of the loop, as long as on the chip
            return
        import gc

        gc.collect()

    def gc_threshold(self, nbytes):  # pragma: no cover - the board's MicroPython gc
        """No automatic collection before `nbytes` more are allocated (MicroPython
        `gc.threshold`); CPython has no such knob."""
        import gc

        if hasattr(gc, "threshold"):
            gc.threshold(nbytes)

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

    def show_floor(self, station, colour):
        """The race's winner lit at once (refbox.app.App.emit): the station pixels dark but
        0-based `station`, in `colour`; the marker bar as it was. False when it cannot be done
        now (the previous frame is going out) or here at all: a CPU write masks the capture
        interrupts while the race's other presses may come; the pass's own frame follows."""
        return self.pixels.show_floor(station, colour)

    def show_stations(self, colours):
        """The station pixels in `colours` ((r, g, b) each, station order), the marker bar as
        it was: the race's cue at once (refbox.app.App.show_cue). False when it cannot be done
        now (the previous frame is going out) or here at all (the CPU driver)."""
        return self.pixels.show_stations(colours)

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
        """Queue one protocol line (str, no newline) for the console; never blocks."""
        self.outbox.put_line(line)

    def flush(self):
        """Write what the console has room for (at most Outbox.budget bytes); bytes written."""
        return self.outbox.flush(self.console, self._ticks_us)

    def send_line(self, line):
        """One protocol line (bytes, "\n" included) out at once when nothing waits before it
        (refbox.outbox.Outbox.send: the race line); bytes written now."""
        return self.outbox.send(line, self.console, self._ticks_us)

    def entropy(self):
        """16 fresh random bytes for a game seed (the chip's ROSC-based os.urandom on the
        board)."""
        if self._entropy is not None:
            return self._entropy()
        import os

        return os.urandom(16)
