"""The simulated world: virtual clock (ns), event queue, GPIO levels, the CPU's interrupts.

The fakes in `fakes/` (machine, rp2, neopixel, micropython) talk to `world.current`. Figures are
the measurements in shared/design.md (emulated RP2040, MicroPython v1.28.0), each a class
attribute so a test can change it:
- hard IRQ latency 20-25 µs after the request; one pin handler every ~45 µs; pins pending together
  are served lowest GPIO first; a pin whose IRQ is already pending merges further edges into that
  call;
- CPU NeoPixel writes mask every interrupt ~30 µs a pixel; gc pauses delay soft IRQs and the loop,
  never hard IRQs; the soft-IRQ queue holds 8 callbacks ("schedule queue full" beyond).
"""

import heapq

from refbox.prng import Prng
from refbox.ticks import ticks_add, ticks_diff

TICKS_MASK = (1 << 30) - 1
VREG_RESET = 0xB1  # VREG_AND_CHIP_RESET.VREG at power-on: EN, 1.10 V (RP2040 datasheet 2.10.6)

current = None  # the World the fakes use


class World:
    irq_latency_ns = (20000, 25000)  # min, max; drawn uniformly per dispatch
    pin_handler_ns = 45000  # from one pin handler's start to the next's
    pio_handler_ns = 15000  # one bulk drain (design notes: ~10 µs a word if drained one at a time)
    timer_handler_ns = 15000  # a hard machine.Timer callback of a few statements (its dispatch)
    neopixel_ns_per_pixel = 30000
    schedule_depth = 8
    # a MicroPython C-method call on the chip, from the call to its register write (a simple loop
    # turn costs ~7.4 µs there: design notes, "148 ms for 20,000 turns"); a figure to model that
    # the CPU cannot say when inside a call a register changed, not a measurement of one call
    call_ns = 10000
    dma_latency_cycles = 4  # DREQ to the word written in RAM (RP2040 datasheet §2.5.3: a few)

    RECORD_LIMIT = 256

    def record_frame(self, source, frame):
        """Note a LED frame written now (what the pixels show from now on)."""
        self.pixel_frames.append((self.now, source, frame))
        if len(self.pixel_frames) > self.RECORD_LIMIT:
            del self.pixel_frames[0]

    def record_tone(self, freq):
        self.tones.append((self.now, freq))
        if len(self.tones) > self.RECORD_LIMIT:
            del self.tones[0]

    def __init__(self, seed, ticks_origin_us=0, sys_hz=125000000):
        self.now = 0  # ns since the start of the run
        self.origin_ns = ticks_origin_us * 1000
        self.sys_hz = sys_hz  # clk_sys: the reset clock until the firmware's machine.freq()
        self.reset_hz = sys_hz  # (MicroPython's 125 MHz at every power-on)
        self.vreg = VREG_RESET  # the core regulator's VREG register (fakes/machine.py mem32)
        self.rng = Prng(seed)
        self.levels = TICKS_MASK  # GPIO levels, bit n = GPn; pull-ups hold every input high
        self.fdebug = 0  # PIO0 FDEBUG
        self.pin_watchers = []  # objects with pins_changed(changed_mask)
        self.state_machines = {}  # PIO0 state machine id -> fake rp2.StateMachine
        self.dma_channels = {}  # claimed DMA channel number -> fake rp2.DMA
        self.loop_wakers = []  # called when the capture has something new for the loop
        self.pin_irqs = {}  # gpio -> (handler, trigger, hard, pin)
        self.pin_intr = {}  # gpio -> edge bits latched in IO_BANK0 INTR, not yet served
        self.pixel_frames = []  # (ns, source, [(r, g, b)...]), the newest RECORD_LIMIT kept
        self.tones = []  # (ns, freq), likewise
        self.log = []  # notes for people: (ns, text)
        self._queue = []
        self._background = 0  # events of at_background in the queue
        self._seq = 0
        self._first_seq = 0
        self._busy_until = 0  # CPU inside a handler or with interrupts masked
        self._pending = {}  # irq source key -> (priority, handler, arg)
        self._dispatch_at = None
        self._gc_until = 0
        self._masked_until = 0
        self._soft = []  # scheduled (soft) callbacks
        self.cpu_until = 0  # the loop's CPU is busy until then (its Python, charged by
        # tablebuzz.sim.cost, or a flash write: tablebuzz.sim.flashfs): the clock the loop reads
        # shows the time its work took
        self.cpu = None  # the CpuModel charging the firmware's work (tablebuzz.sim.cost), or None
        self.halted = False  # the power went off while the loop was inside a pass (the runner)
        self._in_handler = 0  # an interrupt handler runs: it reads the true time
        self.watchdog_ms = None  # machine.WDT's timeout while it runs (fakes/machine.py)
        self.watchdog_fed = 0
        self.power_epoch = 0  # counts power cuts: a machine.Timer started before one is gone
        self.stats = {"pin_handlers": 0, "pio_handlers": 0, "merged_edges": 0, "masked_ns": 0}
        self.stats["i2c_ns"] = 0  # time the loop spent in I2C transfers
        self.stats["i2c_transfers"] = 0
        self.i2c_devices = {}  # 7-bit address -> device with write(bytes) (tablebuzz.sim.oled)
        self.i2c_log = []  # (ns, duration ns, bytes) of the newest RECORD_LIMIT transfers

    # ------------------------------------------------------------ clock (what time.ticks_* give)
    def ticks_us(self):
        now = self.now
        if now < self.cpu_until and not self._in_handler:
            now = self.cpu_until  # the loop reads the clock at the end of the work it did
        return ((self.origin_ns + now) // 1000) & TICKS_MASK

    # ------------------------------------------------------------ the loop's CPU time
    def spend(self, ns):
        """The loop's Python takes `ns` more of CPU time (tablebuzz.sim.cost)."""
        start = self.cpu_until if self.cpu_until > self.now else self.now
        self.cpu_until = start + ns

    def catch_up(self):
        """The loop does something the world sees (a console write, an LED frame, a flash
        operation): the clock first runs on to the CPU time its work has reached, the PIO, DMA
        and interrupts going on meanwhile. Raises PowerCutError if the power went off in that
        time (the runner sets `halted`)."""
        if self.cpu is not None and self.cpu_until > self.now:
            self.run_until(self.cpu_until)
        if self.halted:
            from tablebuzz.sim.flashfs import PowerCutError

            raise PowerCutError("power")

    def ticks_ms(self):
        return ((self.origin_ns + self.now) // 1000000) & TICKS_MASK

    def ticks_diff(self, end, start):
        return ticks_diff(end, start)

    def ticks_add(self, ticks, delta):
        return ticks_add(ticks, delta)

    def sleep_ms(self, ms):
        raise RuntimeError(
            "the firmware loop does not sleep in the simulator; the runner steps it"
        )

    # ------------------------------------------------------------------ events
    def at(self, t, fn, arg=None):
        """Run fn(arg) at ns `t` (not before now)."""
        if t < self.now:
            t = self.now
        self._seq += 1
        heapq.heappush(self._queue, (t, self._seq, fn, arg))

    def at_first(self, t, fn, arg=None):
        """Like at(), but ahead of everything at() queues for the same ns (in call order)."""
        self._first_seq += 1
        heapq.heappush(self._queue, (max(t, self.now), self._first_seq - (1 << 60), fn, arg))

    def at_background(self, t, fn, arg=None):
        """Like at(), for what goes on by itself for ever (a periodic machine.Timer): it keeps no
        run going (`foreground_pending`: the runner ends a run when only these are queued, as it
        did when nothing was)."""
        self._background += 1
        self.at(t, self._run_background, (fn, arg))

    def _run_background(self, pair):
        self._background -= 1
        pair[0](pair[1])

    def foreground_pending(self):
        """True while something other than `at_background` events is queued."""
        return len(self._queue) > self._background

    def next_time(self):
        return self._queue[0][0] if self._queue else None

    def run_until(self, t):
        """Process every event up to and including ns `t`, then set the clock to `t`."""
        queue = self._queue
        while queue and queue[0][0] <= t:
            when, _, fn, arg = heapq.heappop(queue)
            self.now = when
            fn(arg)
            if self.halted:
                return  # the power went off inside a loop pass: the clock stops there
        if t > self.now:
            self.now = t

    def wake_loop(self):
        """Something the loop polls for changed (a PIO word was pushed): the board's loop would
        see it on its next pass, so the simulator's idle skipping must step it."""
        for wake in self.loop_wakers:
            wake()

    # ------------------------------------------------------------------ pins
    def level(self, gpio):
        return (self.levels >> gpio) & 1

    def set_level(self, gpio, high):
        bit = 1 << gpio
        old = self.levels
        self.levels = (old | bit) if high else (old & ~bit)
        if self.levels == old:
            return
        for watcher in self.pin_watchers:
            watcher.pins_changed(bit)
        irq = self.pin_irqs.get(gpio)
        if irq is not None:
            handler, trigger, hard, pin = irq
            edge = 8 if high else 4  # IRQ_RISING / IRQ_FALLING: the pin's INTR edge bits
            if trigger & edge:
                self.pin_intr[gpio] = self.pin_intr.get(gpio, 0) | edge  # latched until served
                if hard:
                    self.request_irq(("pin", gpio), gpio, handler, pin)
                else:
                    self._serve_pin(gpio, pin)
                    try:
                        self.schedule(handler, pin)
                    except RuntimeError:
                        self.stats["soft_dropped"] = self.stats.get("soft_dropped", 0) + 1

    def _serve_pin(self, gpio, pin):
        """ports/rp2/machine_pin.c `gpio_irq`: acknowledge the pin's latched edges and store them,
        masked by the trigger, as the irq object's flags for the handler."""
        latched = self.pin_intr.pop(gpio, 0)
        irq = pin._irq_obj
        if irq is not None:
            irq.flags_value = latched & irq.trigger_value

    # ------------------------------------------------------------------ CPU and interrupts
    def request_irq(self, key, priority, handler, arg, latency_ns=None):
        """Raise a hard interrupt; merged with one of the same key that is still pending.
        `latency_ns`: a fixed latency (a timer's), else one drawn from `irq_latency_ns`."""
        if key in self._pending:
            self.stats["merged_edges"] += 1
            return
        low, high = self.irq_latency_ns
        if latency_ns is None:
            ready = self.now + low + self.rng.below(high - low + 1)
        else:
            ready = self.now + latency_ns
        self._pending[key] = (priority, handler, arg, ready)
        self._plan_dispatch(ready)

    def _plan_dispatch(self, t):
        t = max(t, self._busy_until)
        if self._dispatch_at is None or t < self._dispatch_at:
            self._dispatch_at = t
            self.at(t, self._dispatch)

    def _dispatch(self, _):
        if self._dispatch_at != self.now:
            return  # superseded by an earlier plan
        self._dispatch_at = None
        if self.now < self._busy_until:
            self._plan_dispatch(self._busy_until)
            return
        best = None
        for key in self._pending:
            priority, handler, arg, ready = self._pending[key]
            if ready <= self.now and (best is None or priority < self._pending[best][0]):
                best = key
        if best is not None:
            priority, handler, arg, ready = self._pending.pop(best)
            kind = best[0]
            if kind == "timer":
                cost = self.timer_handler_ns
                self.stats["timer_handlers"] = self.stats.get("timer_handlers", 0) + 1
            else:
                cost = self.pio_handler_ns if kind == "pio" else self.pin_handler_ns
                self.stats["pio_handlers" if kind == "pio" else "pin_handlers"] += 1
            self._busy_until = self.now + cost
            if best[0] == "pin":
                self._serve_pin(best[1], arg)
            self._in_handler += 1
            try:
                handler(arg)
            finally:
                self._in_handler -= 1
        if self._pending:
            soonest = None
            for key in self._pending:
                ready = self._pending[key][3]
                if soonest is None or ready < soonest:
                    soonest = ready
            self._plan_dispatch(soonest)
        self._run_soft()

    def mask_interrupts(self, ns):
        """Interrupts masked from now for `ns` (a CPU NeoPixel write, a flash write)."""
        self._busy_until = max(self._busy_until, self.now + ns)
        self._masked_until = max(self._masked_until, self.now + ns)
        self.stats["masked_ns"] += ns
        if self._pending:
            self._plan_dispatch(self._busy_until)

    def power_off(self):
        """The chip loses power: pending interrupts, handlers and PIO programs are gone (what
        watches the pins on the chip's behalf has power_off() called and is dropped). The
        contacts, the clock and what is queued for them go on: the table does not stop."""
        self.pin_irqs = {}
        self.pin_intr = {}
        self.power_epoch += 1  # the timers stop (fakes/machine.py Timer)
        self._pending = {}
        self._dispatch_at = None
        self._soft = []
        self._busy_until = self.now
        self._gc_until = self.now
        self.fdebug = 0
        self.watchdog_ms = None
        self.sys_hz = self.reset_hz  # the next power-on starts at the reset clock and voltage
        self.vreg = VREG_RESET
        self.cpu_until = self.now
        self.halted = False
        keep = []
        for watcher in self.pin_watchers:
            stop = getattr(watcher, "power_off", None)
            if stop is None:
                keep.append(watcher)
            else:
                stop()
        self.pin_watchers = keep
        for sm in self.state_machines.values():
            sm.power_off()
        self.state_machines = {}
        for channel in list(self.dma_channels.values()):
            channel.close()  # a DMA channel still queued in the world transfers nothing more
        self.dma_channels = {}

    def power_on(self):
        """Power returns: the new chip's ticks_us() counts from 0 again, as after a reset."""
        self.origin_ns = -self.now

    def gc_pause(self, ns):
        """A gc.collect() of `ns`: soft IRQs and the loop wait; hard IRQs do not."""
        self._gc_until = max(self._gc_until, self.now + ns)
        self.at(self._gc_until, self._run_soft_event)

    @staticmethod
    def i2c_ns(transfers, data_bytes, freq):
        """Bus time of `transfers` I2C writes carrying `data_bytes` in all at `freq` Hz: 9 clocks
        a byte (8 bits and the ACK), and per transfer the address byte and start / stop (11
        clocks). I2C-bus specification UM10204, section 3.1."""
        return (transfers * 11 + data_bytes * 9) * 1000000000 // freq

    def i2c_transfer(self, transfers, data_bytes, freq):
        """I2C traffic the loop waits for (the rp2 port's machine.I2C blocks until the last
        byte): the loop and soft IRQs are held, hard IRQs are not (as in a gc pause)."""
        ns = self.i2c_ns(transfers, data_bytes, freq)
        self.stats["i2c_ns"] += ns
        self.stats["i2c_transfers"] += transfers
        self.i2c_log.append((self.now, ns, data_bytes))
        if len(self.i2c_log) > self.RECORD_LIMIT:
            del self.i2c_log[0]
        self.block_loop(ns)

    def block_loop(self, ns):
        """The loop is busy in a blocking call for `ns` more (after whatever already holds it:
        with the CPU model, the loop's work so far too, and its clock then shows the call)."""
        start = max(self._gc_until, self.now)
        if self.cpu is not None:
            start = max(start, self.cpu_until)
            self.cpu_until = start + ns
        self._gc_until = start + ns
        self.at(self._gc_until, self._run_soft_event)

    def gc_until(self):
        return self._gc_until

    def loop_free_at(self):
        """ns from which the loop may run again: a gc pause, an interrupt mask or the CPU time
        charged to a pass is the loop's own work (gc.collect, a CPU NeoPixel or flash write, its
        Python), so no pass runs inside one."""
        return max(self._gc_until, self._masked_until, self.cpu_until)

    def collect(self, ns):
        """The firmware's gc.collect() of `ns`, after the work the loop has done so far: soft IRQs
        and the loop wait, hard IRQs do not; the loop's clock shows the time it took."""
        start = self.cpu_until if self.cpu_until > self.now else self.now
        self.cpu_until = start + ns
        self._gc_until = max(self._gc_until, self.cpu_until)
        self.at(self._gc_until, self._run_soft_event)

    def schedule(self, fn, arg):
        """micropython.schedule: a soft IRQ. Raises RuntimeError when the queue is full."""
        if len(self._soft) >= self.schedule_depth:
            raise RuntimeError("schedule queue full")
        self._soft.append((fn, arg))
        self.at(self.now, self._run_soft_event)

    def _run_soft_event(self, _):
        self._run_soft()

    def _run_soft(self):
        if self.now < self._gc_until or self.now < self._busy_until:
            if self._soft:
                self.at(max(self._gc_until, self._busy_until), self._run_soft_event)
            return
        while self._soft:
            fn, arg = self._soft.pop(0)
            self._in_handler += 1
            try:
                fn(arg)
            finally:
                self._in_handler -= 1
