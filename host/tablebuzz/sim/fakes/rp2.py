"""Fake `rp2`: a PIO assembler with MicroPython's calling rules, and state machines that model the
two programs the firmware loads.

`asm_pio` assembles like the real one: it swaps the program function's globals for the PIO names
while it runs it twice (labels, then code), so a program that leans on module globals fails here as
on the board. A StateMachine recognises the edge timestamper and the WS2812 driver by their
instructions and models them analytically (a cycle-by-cycle run is in tablebuzz.sim.pio_check); any
other program raises NotImplementedError rather than pretending.

Edge timestamper model (shared/reference/pio_edge_timestamper.py, RP2040 datasheet §3.4): pins
sampled every 7 cycles; after a push the change path takes 14 cycles, so the next sample comes one
period later; the counter decrements once per period either way; the RX FIFO (8 words when joined)
drops the newest word when full and sets FDEBUG.RXSTALL; each push raises the SM's IRQ flag.

`StateMachine.active(1)` starts the state machine `World.call_ns` after the call began: on the
chip the C method parses its arguments before it writes CTRL.SM_ENABLE, so a `ticks_us()` read
around the call does not say when the first sample came (issue 16). A write of the SM's bit to
PIO0 CTRL's atomic SET alias (by DMA) starts it at the very ns of the write.

DMA model (class DMA; RP2040 datasheet §2.5; MicroPython v1.28.0 ports/rp2/rp2_dma.c for the API):
the channel registers READ_ADDR, WRITE_ADDR, TRANS_COUNT (writing sets the reload value, a trigger
copies it into the live counter, reading gives the live count) and CTRL (RP2040 bit layout, the
same fields and defaults as `pack_ctrl`). A channel paced by DREQ_PIO0_RX0..3 (treq_sel 4..7)
takes each word `World.dma_latency_cycles` system cycles after the PIO pushed it, writes it at
WRITE_ADDR and steps the address with the write ring (ring_sel=True: the low ring_size bits wrap);
at count 0 the channel stops and words stay in the RX FIFO. An unpaced (treq_sel 0x3f) channel runs
`World.call_ns` after the triggering call, one transfer a cycle, and triggers its chain_to channel
when done. Addresses: a buffer object given to config(); SIO GPIO_IN and TIMER TIMERAWL to read;
PIO0 CTRL's SET alias to write. Anything else raises rather than pretending.
"""

from tablebuzz.sim import world as _world


class PIOASMError(Exception):
    pass


class PIO:
    IN_LOW = 0
    IN_HIGH = 1
    OUT_LOW = 2
    OUT_HIGH = 3
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1
    JOIN_RX = 2
    IRQ_SM0 = 0x100
    IRQ_SM1 = 0x200
    IRQ_SM2 = 0x400
    IRQ_SM3 = 0x800

    def __init__(self, id):
        self.id = id


_NAMES = {
    "gpio": 0, "pins": 0, "x": 1, "y": 2, "null": 3, "pindirs": 4, "pc": 5, "status": 5,
    "isr": 6, "osr": 7, "exec": 8, "not_x": 1, "x_dec": 2, "not_y": 3, "y_dec": 4, "x_not_y": 5,
    "pin": 6, "not_osre": 7, "noblock": 0x01, "block": 0x21, "iffull": 0x40, "ifempty": 0x40,
    "clear": 0x40,
}  # fmt: skip


class Instr:
    """One assembled instruction: op name, operands, delay cycles, side-set value."""

    def __init__(self, op, args):
        self.op = op
        self.args = args
        self.delay = 0
        self.side_value = None

    def side(self, value):
        self.side_value = value
        return self

    def __getitem__(self, delay):
        if not 0 <= delay <= 31:
            raise PIOASMError("delay too large")
        self.delay = delay
        return self

    def __repr__(self):
        return "%s%r" % (self.op, self.args)


class Program:
    """What asm_pio returns: instructions, labels, wrap points and the asm_pio keyword options."""

    def __init__(self, options):
        self.options = options
        self.instrs = []
        self.labels = {}
        self.wrap_target = 0
        self.wrap = None


class _Emitter:
    def __init__(self, program):
        self.p = program
        self.pass_no = 0
        self.count = 0

    def _add(self, op, *args):
        ins = Instr(op, args)
        if self.pass_no == 1:
            for a in args:
                if isinstance(a, str) and op == "jmp" and a not in self.p.labels:
                    raise PIOASMError("unknown label %s" % a)
            self.p.instrs.append(ins)
        self.count += 1
        return ins

    def label(self, name):
        if self.pass_no == 0:
            if name in self.p.labels:
                raise PIOASMError("duplicate label %s" % name)
            self.p.labels[name] = self.count

    def wrap_target(self):
        self.p.wrap_target = self.count

    def wrap(self):
        self.p.wrap = self.count - 1

    def names(self):
        e = self
        d = dict(_NAMES)
        d["invert"] = lambda v: ("invert", v)
        d["reverse"] = lambda v: ("reverse", v)
        d["rel"] = lambda v: ("rel", v)
        d["label"] = e.label
        d["wrap_target"] = e.wrap_target
        d["wrap"] = e.wrap
        d["nop"] = lambda: e._add("nop")
        d["jmp"] = lambda cond, label=None: (
            e._add("jmp", cond, label) if label is not None else e._add("jmp", 0, cond)
        )
        d["wait"] = lambda pol, src, idx: e._add("wait", pol, src, idx)
        d["in_"] = lambda src, bits: e._add("in", src, _bits(bits))
        d["out"] = lambda dest, bits: e._add("out", dest, _bits(bits))
        d["push"] = lambda a=0, b=0: e._add("push", a | b)
        d["pull"] = lambda a=0, b=0: e._add("pull", a | b)
        d["mov"] = lambda dest, src: e._add("mov", dest, src)
        d["irq"] = lambda mod, idx=None: (
            e._add("irq", mod, idx) if idx is not None else e._add("irq", 0, mod)
        )
        d["set"] = lambda dest, data: e._add("set", dest, data)
        d["word"] = lambda instr, label=None: e._add("word", instr, label)
        return d


def _bits(n):
    if not 0 < n <= 32:
        raise PIOASMError("invalid bit count %s" % n)
    return n


def asm_pio(**options):
    def decorate(f):
        program = Program(options)
        emitter = _Emitter(program)
        gl = f.__globals__
        saved = dict(gl)
        gl.clear()
        try:
            gl.update(emitter.names())
            f()
            emitter.pass_no = 1
            emitter.count = 0
            f()
        finally:
            gl.clear()
            gl.update(saved)
        if program.wrap is None:
            program.wrap = len(program.instrs) - 1
        return program

    return decorate


def _kind(program):
    ops = [(i.op, i.args) for i in program.instrs]
    has_in_pins = [a for op, a in ops if op == "in" and a[0] == 0]
    has_push = [a for op, a in ops if op == "push" and a[0] & 0x21 == 0x01]
    has_irq = [a for op, a in ops if op == "irq"]
    if has_in_pins and has_push and has_irq:
        return "edges", has_in_pins[0][1]
    if "sideset_init" in program.options and ("out", (1, 1)) in ops:
        return "ws2812", 0
    raise NotImplementedError("the simulator models only the edge timestamper and WS2812 programs")


class StateMachine:
    """A PIO state machine running one of the modelled programs (see the module docstring)."""

    def __init__(self, id, program=None, freq=-1, in_base=None, sideset_base=None, **kw):
        self.id = id
        self.program = program
        self.freq = freq if freq > 0 else _world.current.sys_hz
        self.in_base = in_base
        self.sideset_base = sideset_base
        self.kind, self.n_pins = _kind(program)
        depth = 8 if program.options.get("fifo_join") == PIO.JOIN_RX else 4
        self._fifo = [0] * depth
        self._head = 0
        self._count = 0
        self._handler = None
        self._hard = False
        self._running = False
        self._dead = False
        self.pushes = 0
        self.dropped = 0
        self._shown = []  # ws2812: the colours the chain shows, as the last frames left them
        self.dma = None  # a DMA channel paced by this SM's RX DREQ
        _world.current.state_machines[id] = self

    # --------------------------------------------------------------- MicroPython API
    def active(self, value=None):
        if value is None:
            return 1 if self._running else 0
        if value and not self._running:
            self._running = True
            self._start(_world.current.now + _world.current.call_ns)
        self._running = bool(value)
        return None

    def enable_at(self, t):
        """CTRL.SM_ENABLE set at world ns `t` (a register write, by DMA or by `active`)."""
        if not self._running:
            self._running = True
            self._start(t)

    def irq(self, handler=None, trigger=0, hard=False):
        self._handler = handler
        self._hard = hard

    def rx_fifo(self):
        return self._count

    def get(self, buf=None, shift=0):
        if buf is None:
            if not self._count:
                raise RuntimeError("StateMachine.get() would block forever on an empty FIFO")
            return self._pop() >> shift
        n = len(buf)
        if n > self._count:
            raise RuntimeError(
                "StateMachine.get(buf) would block: FIFO holds fewer words than buf"
            )
        for i in range(n):
            buf[i] = self._pop() >> shift
        return None

    def put(self, value, shift=0):
        w = _world.current
        if self.kind != "ws2812":
            raise NotImplementedError("only the WS2812 program takes words in the simulator")
        words = [value] if isinstance(value, int) else list(value)
        frame = []
        for word in words:
            grb = (word << shift) >> 8
            frame.append(((grb >> 8) & 0xFF, (grb >> 16) & 0xFF, grb & 0xFF))
        # a shorter frame sets the chain's first pixels; the others keep what they show
        # (WS2812B: each pixel takes the first 24 bits it sees and passes the rest on)
        shown = self._shown
        if len(frame) < len(shown):
            frame = frame + shown[len(frame):]
        self._shown = frame
        w.record_frame("pio", frame)

    # --------------------------------------------------------------- the edge timestamper model
    def _pop(self):
        depth = len(self._fifo)
        word = self._fifo[self._head]
        self._head = (self._head + 1) % depth
        self._count -= 1
        return word

    def _start(self, t_enable):
        if self.kind != "edges":
            return
        w = _world.current
        mhz = self.freq // 1000000
        self._mhz = mhz
        self._t0 = t_enable + 5 * 1000 // mhz  # first sample: 6th instruction after start
        self._base = self.in_base.id
        self._mask = (1 << self.n_pins) - 1
        self._counter_mask = (1 << (30 - self.n_pins)) - 1
        self._last_levels = -1  # y starts as ~0: the first sample always differs
        self._next_k = 0  # the earliest sample index still to come
        self._planned = None
        w.pin_watchers.append(self)
        self._plan(0)

    def _time_of(self, k):
        return self._t0 + k * 7 * 1000 // self._mhz

    def pins_changed(self, changed):
        if not self._running or not (changed >> self._base) & self._mask:
            return
        w = _world.current
        # the first sample at or after now
        elapsed = w.now - self._t0
        period_num = 7 * 1000  # ns * mhz per period
        k = -((-elapsed * self._mhz) // period_num)
        self._plan(max(k, self._next_k))

    def _plan(self, k):
        if self._planned is not None and self._planned <= k:
            return
        self._planned = k
        _world.current.at(self._time_of(k), self._sample, k)

    def _sample(self, k):
        if self._planned != k or not self._running:
            return  # superseded, or the state machine was stopped
        self._planned = None
        w = _world.current
        levels = (w.levels >> self._base) & self._mask
        self._next_k = k + 1
        if levels == self._last_levels:
            return
        self._last_levels = levels
        counter = (self._counter_mask - k) & self._counter_mask
        # the program's PUSH runs 7 cycles after the sample, where sample k+1 would have been
        _world.current.at(self._time_of(k + 1), self._push, (counter << self.n_pins) | levels)
        self._next_k = k + 2  # the change path costs one more period

    def power_off(self):
        """The chip lost power (tablebuzz.sim.world.World.power_off): this program is gone."""
        self._running = False
        self._handler = None
        self._dead = True

    def _push(self, word):
        if self._dead:
            return
        w = _world.current
        depth = len(self._fifo)
        self.pushes += 1
        w.wake_loop()
        if self._count == depth:
            self.dropped += 1
            w.fdebug |= 1 << (self.id & 3)  # FDEBUG.RXSTALL: a nonblocking push to a full FIFO
        else:
            self._fifo[(self._head + self._count) % depth] = word
            self._count += 1
            if self.dma is not None:
                self.dma.dreq(self)
        if self._handler is not None:
            if self._hard:
                w.request_irq(("pio", self.id), -1, self._handler, self)
            else:
                w.schedule(self._handler, self)


# ------------------------------------------------------------------------------------------ DMA
# CTRL fields as rp2_dma.c names them, RP2040 layout (pico-sdk hardware/regs/dma.h): (shift, bits)
_CTRL_FIELDS = (
    ("enable", 0, 1), ("high_pri", 1, 1), ("size", 2, 2), ("inc_read", 4, 1),
    ("inc_write", 5, 1), ("ring_size", 6, 4), ("ring_sel", 10, 1), ("chain_to", 11, 4),
    ("treq_sel", 15, 6), ("irq_quiet", 21, 1), ("bswap", 22, 1), ("sniff_en", 23, 1),
    ("busy", 24, 1), ("write_err", 29, 1), ("read_err", 30, 1), ("ahb_err", 31, 1),
)  # fmt: skip
_READ_ONLY = ("busy", "ahb_err")
_TREQ_PERMANENT = 0x3F
_DREQ_PIO0_RX0 = 4
_CHANNELS = 12
_GPIO_IN = 0xD0000004
_TIMERAWL = 0x40054028
_PIO0_CTRL_SET = 0x50202000  # PIO0 CTRL (offset 0) + the atomic SET alias (+0x2000)


class DMA:
    """One claimed DMA channel with rp2.DMA's signatures (see the module docstring)."""

    def __init__(self):
        w = _world.current
        for ch in range(_CHANNELS):
            if ch not in w.dma_channels:
                break
        else:
            raise OSError(16)  # EBUSY, as dma_claim_unused_channel failing
        w.dma_channels[ch] = self
        self.channel = ch
        self._ctrl = 0
        self._read = 0  # an int address or the object given
        self._write = 0
        self._write_index = 0  # words from the start of the write buffer
        self._reload = 0
        self._count = 0
        self._busy = False
        self._due = None  # world ns of an unpaced channel's run
        self._closed = False

    # ------------------------------------------------------------ the MicroPython API
    def pack_ctrl(self, default=None, **kw):
        # DEFAULT_DMA_CONFIG of rp2_dma.c: quiet, unpaced, both increments, words, enabled
        value = (
            default
            if default is not None
            else (
                1 << 21 | _TREQ_PERMANENT << 15 | 1 << 5 | 1 << 4 | 2 << 2 | 1 | self.channel << 11
            )
        )
        for name, shift, bits in _CTRL_FIELDS:
            if name in kw:
                field = kw.pop(name)
                if name in _READ_ONLY:
                    continue
                mask = (1 << bits) - 1
                if int(field) & mask != int(field):
                    raise ValueError("bad field value")
                value = (value & ~(mask << shift)) | (int(field) << shift)
        if kw:
            raise TypeError("unexpected keyword argument")
        return value

    @staticmethod
    def unpack_ctrl(value):
        fields = {}
        for name, shift, bits in _CTRL_FIELDS:
            fields[name] = (value >> shift) & ((1 << bits) - 1)
        return fields

    def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
        self._check_open()
        if read is not None:
            self.read = read
        if write is not None:
            self.write = write
        if count is not None:
            self.count = count
        if ctrl is not None:
            self.ctrl = ctrl
        if trigger:
            self._trigger(_world.current.now + _world.current.call_ns)

    def active(self, value=None):
        self._check_open()
        w = _world.current
        if value is not None:
            if value:
                self._trigger(w.now + w.call_ns)
            else:
                self._busy = False  # CHAN_ABORT: nothing more is transferred
                self._due = None
        if self._busy and self._due is not None:
            # the caller spins on a channel that runs by itself within ns: the clock moves on
            w.run_until(self._due)
        return self._busy

    def close(self):
        if not self._closed:
            self._busy = False
            self._closed = True
            _world.current.dma_channels.pop(self.channel, None)

    def irq(self, handler=None, hard=False):
        raise NotImplementedError("the simulator models DMA without interrupts")

    @property
    def read(self):
        return self._address(self._read, 0)

    @read.setter
    def read(self, value):
        self._read = value

    @property
    def write(self):
        return self._address(self._write, self._write_index)

    @write.setter
    def write(self, value):
        if isinstance(value, int) and not isinstance(self._write, int):
            base = self._address(self._write, 0)
            if base <= value < base + 4 * len(self._write) and not (value - base) % 4:
                self._write_index = (value - base) // 4  # an address inside the buffer given
                return
        self._write = value
        self._write_index = 0

    @property
    def count(self):
        return self._count

    @count.setter
    def count(self, value):
        self._reload = value  # TRANS_COUNT: the reload value; a trigger copies it in

    @property
    def ctrl(self):
        return self._ctrl | (1 << 24 if self._busy else 0)

    @ctrl.setter
    def ctrl(self, value):
        self._ctrl = value & ~(1 << 24)

    # ------------------------------------------------------------ the model
    def _check_open(self):
        if self._closed:
            raise ValueError("channel closed")

    def _field(self, name):
        for field, shift, bits in _CTRL_FIELDS:
            if field == name:
                return (self._ctrl >> shift) & ((1 << bits) - 1)
        raise KeyError(name)

    @staticmethod
    def _address(target, index):
        if isinstance(target, int):
            return target + 4 * index
        import uctypes  # (here, not at the top: the CircuitPython fakes reuse the PIO model)

        return uctypes.addressof(target) + 4 * index

    def _trigger(self, t):
        if not self._field("enable"):
            return
        if self._field("size") != 2:
            raise NotImplementedError("the simulator's DMA moves 32-bit words only")
        self._count = self._reload
        self._busy = self._count > 0
        if not self._busy:
            return
        treq = self._field("treq_sel")
        if treq == _TREQ_PERMANENT:
            self._due = t
            _world.current.at(t, self._run_unpaced, t)
            return
        sm = self._read
        if not isinstance(sm, StateMachine) or treq != _DREQ_PIO0_RX0 + sm.id:
            raise NotImplementedError("the simulator paces DMA only by its PIO0 RX source's DREQ")
        if self._field("inc_read") or not self._field("inc_write"):
            raise NotImplementedError("a PIO RX channel reads a FIFO into an incrementing buffer")
        sm.dma = self
        self._check_ring()
        if sm.rx_fifo():
            self.dreq(sm, t)

    def _check_ring(self):
        size = self._field("ring_size")
        if not self._field("ring_sel") or not size:
            raise NotImplementedError("the simulator's PIO channel writes into a ring")
        ring_bytes = 1 << size
        base = self._address(self._write, 0)
        if isinstance(self._write, int) or base % ring_bytes or len(self._write) * 4 < ring_bytes:
            # on the chip the address would wrap at the aligned boundary: outside this buffer
            raise ValueError("DMA write ring not aligned to its size inside the buffer given")
        self._ring_words = ring_bytes // 4

    def dreq(self, sm, t=None):
        """The PIO signals a word in its RX FIFO: taken `dma_latency_cycles` later."""
        w = _world.current
        cycle_ns = 1000 // (w.sys_hz // 1000000)
        when = (w.now if t is None else t) + w.dma_latency_cycles * cycle_ns
        w.at(when, self._take, sm)

    def _take(self, sm):
        if not self._busy or sm.dma is not self or not sm.rx_fifo():
            return
        word = sm.get()
        self._write[self._write_index] = word
        self._write_index = (self._write_index + 1) % self._ring_words
        self._count -= 1
        if not self._count:
            self._busy = False
            return
        if sm.rx_fifo():  # words waited (the channel was stopped): one transfer a cycle
            w = _world.current
            w.at(w.now + 1000 // (w.sys_hz // 1000000), self._take, sm)

    def _run_unpaced(self, t):
        if self._due != t or not self._busy:
            return
        self._due = None
        w = _world.current
        inc_read = self._field("inc_read")
        inc_write = self._field("inc_write")
        cycle_ns = 1000 // (w.sys_hz // 1000000)
        for i in range(self._count):
            value = self._load(self._read, i if inc_read else 0)
            self._store(self._write, i if inc_write else 0, value)
            if i + 1 < self._count:
                w.run_until(w.now + cycle_ns)  # one transfer a cycle
        self._count = 0
        self._busy = False
        chain = self._field("chain_to")
        if chain != self.channel and chain in w.dma_channels:
            w.dma_channels[chain]._trigger(w.now + 4 * cycle_ns)  # the chain trigger: a few cycles

    @staticmethod
    def _load(source, index):
        w = _world.current
        if isinstance(source, int):
            if source == _TIMERAWL:
                return ((w.origin_ns + w.now) // 1000) & 0xFFFFFFFF
            if source == _GPIO_IN:
                return w.levels
            raise NotImplementedError("the simulator's DMA reads no register at 0x%08x" % source)
        return source[index]

    @staticmethod
    def _store(target, index, value):
        w = _world.current
        if isinstance(target, int):
            if target == _PIO0_CTRL_SET:
                for sm_id in range(4):
                    if value >> sm_id & 1 and sm_id in w.state_machines:
                        w.state_machines[sm_id].enable_at(w.now)
                return
            raise NotImplementedError("the simulator's DMA writes no register at 0x%08x" % target)
        target[index] = value
