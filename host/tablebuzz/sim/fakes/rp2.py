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
        self.pushes = 0
        self.dropped = 0

    # --------------------------------------------------------------- MicroPython API
    def active(self, value=None):
        if value is None:
            return 1 if self._running else 0
        if value and not self._running:
            self._start()
        self._running = bool(value)
        return None

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
        w.record_frame("pio", frame)

    # --------------------------------------------------------------- the edge timestamper model
    def _pop(self):
        depth = len(self._fifo)
        word = self._fifo[self._head]
        self._head = (self._head + 1) % depth
        self._count -= 1
        return word

    def _start(self):
        if self.kind != "edges":
            return
        w = _world.current
        mhz = self.freq // 1000000
        self._mhz = mhz
        self._t0 = w.now + 5 * 1000 // mhz  # first sample: 6th instruction after start
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

    def _push(self, word):
        w = _world.current
        depth = len(self._fifo)
        self.pushes += 1
        if self._count == depth:
            self.dropped += 1
            w.fdebug |= 1 << (self.id & 3)  # FDEBUG.RXSTALL: a nonblocking push to a full FIFO
        else:
            self._fifo[(self._head + self._count) % depth] = word
            self._count += 1
        if self._handler is not None:
            if self._hard:
                w.request_irq(("pio", self.id), -1, self._handler, self)
            else:
                w.schedule(self._handler, self)
