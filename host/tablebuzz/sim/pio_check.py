"""A cycle-accurate interpreter of one PIO state machine, to check the models in fakes/rp2.py.

It runs the very Program objects the fake `rp2.asm_pio` assembles (Instr: op, args, delay,
side_value; labels; wrap_target/wrap; the asm_pio keyword options), one SM clock cycle a step.
A test tool for CPython: nothing on the board or in the simulator's run path imports it.
Rules, with sections of the RP2040 datasheet (chapter 3, PIO):

- §3.2.4 stalling: a stalled instruction is retried on the next cycle; its delay cycles start
  only once it completes. Side-set (§3.5.1) takes effect on the first cycle of its instruction,
  stalled or not. Delay [n] adds n idle cycles after the instruction (§3.4.1).
- §3.4.2 JMP: !X / !Y zero; X-- / Y-- "non-zero, post-decrement" (the test sees the old value,
  the register is decremented either way); X!=Y; PIN (EXECCTRL_JMP_PIN high); !OSRE (output
  shift count below the pull threshold). A JMP's delay applies whether or not it branches.
- §3.4.3 WAIT on GPIO / PIN (IRQ waits are not modelled).
- §3.4.4 IN: the Bit count LSBs of the source are shifted into the ISR (IN_SHIFTDIR); the input
  shift count saturates at 32; autopush per §3.5.4.1. IN PINS reads IN_BASE upwards, GPIO numbers
  taken modulo 32.
- §3.4.5 OUT: Bit count bits leave the OSR (OUT_SHIFTDIR; shifting left takes the MSBs);
  autopull per §3.5.4.2 (below).
- §3.4.6 PUSH: IfFull waits for the push threshold; a blocking PUSH on a full RX FIFO stalls; a
  nonblocking one goes on, "the FIFO state and contents are unchanged ... the ISR is still
  cleared to all-zeroes, and the FDEBUG_RXSTALL flag is set" (§3.4.6.2; §3.7 FDEBUG.RXSTALL:
  "also set when a nonblocking PUSH to a full FIFO took place").
- §3.4.7 PULL: IfEmpty waits for the pull threshold; a blocking PULL on an empty TX FIFO stalls
  (FDEBUG.TXSTALL); a nonblocking one on an empty FIFO copies X into the OSR.
- §3.4.8 MOV: ops invert (bitwise NOT) and reverse (bit order); MOV to ISR resets the input
  shift count to 0 (empty), MOV to OSR resets the output shift count to 0 (full). NOP is
  MOV Y, Y.
- §3.4.9 IRQ: sets or clears flag Index; with `rel` the SM number is added modulo 4 to the two
  LSBs. IRQ WAIT is not modelled.
- §3.4.10 SET to pins / x / y / pindirs (directions are not modelled).
- §3.5.4.2 autopull: on an OUT cycle with the output shift count at or past the threshold the
  SM pulls if it can and stalls either way (it cannot fill an empty OSR and shift it on one
  cycle); an OUT that reaches the threshold refills at once if the TX FIFO has data; every other
  cycle (delays and stalls too) refills whenever the count is at the threshold and data waits.
- §3.5.3 FIFO joining: 4 words each way, or one 8-word FIFO (the other direction has none).
- §3.5.2 wrapping: after the instruction at `wrap` (unless it jumped) the PC goes to
  `wrap_target`.

Left out (constant offsets both models omit, or features these programs do not use): the
2-flip-flop input synchronisers (§3.5.6: inputs reach the SM 2 cycles late unless bypassed by
INPUT_SYNC_BYPASS), clock dividers (one step is one SM clock), EXEC/PC/STATUS operands, IRQ
WAIT, side-set to pindirs. Assumption: at start the OSR is empty (output shift count 32), so an
autopulling program pulls before its first OUT, and the ISR is empty (count 0).
"""

M32 = 0xFFFFFFFF

# operand codes as the fake assembler (and MicroPython's rp2.asm_pio) encode them
_PINS, _X, _Y, _NULL, _PINDIRS, _PC, _ISR, _OSR = 0, 1, 2, 3, 4, 5, 6, 7
_JMP_ALWAYS, _JMP_NOT_X, _JMP_X_DEC, _JMP_NOT_Y = 0, 1, 2, 3
_JMP_Y_DEC, _JMP_X_NE_Y, _JMP_PIN, _JMP_NOT_OSRE = 4, 5, 6, 7
_NOBLOCK = 0x01
_BLOCK = 0x20
_IF = 0x40  # iffull / ifempty / irq clear


class PioError(Exception):
    pass


def _reverse32(v):
    r = 0
    for _ in range(32):
        r = (r << 1) | (v & 1)
        v >>= 1
    return r


def _mask(n):
    return M32 if n >= 32 else (1 << n) - 1


class StateMachine:
    """One PIO state machine executing `program` cycle by cycle.

    pins(cycle) -> the 32 GPIO input levels the SM sees on that cycle. Outputs (side-set,
    OUT/SET/MOV PINS) go to `out_levels`; each change is appended to `out_trace` as (cycle,
    levels).
    `pc`, `x`, `y` let a test start the program elsewhere with preset scratch registers.
    Every push attempt is logged in `push_log` as (cycle, word, stored).
    """

    def __init__(
        self,
        program,
        sm_id=0,
        pins=None,
        in_base=0,
        out_base=0,
        out_count=0,
        set_base=0,
        set_count=0,
        sideset_base=0,
        jmp_pin=0,
        pc=0,
        x=0,
        y=0,
    ):
        opts = program.options
        self.program = program
        self.instrs = program.instrs
        self.labels = program.labels
        self.wrap_target = program.wrap_target
        self.wrap = program.wrap if program.wrap is not None else len(program.instrs) - 1
        self.sm_id = sm_id
        self.pins = pins if pins is not None else (lambda cycle: 0)
        self.in_base = in_base
        self.out_base = out_base
        self.out_count = out_count
        self.set_base = set_base
        self.set_count = set_count
        self.sideset_base = sideset_base
        self.jmp_pin = jmp_pin
        init = opts.get("sideset_init")
        self.sideset_count = 0 if init is None else (len(init) if isinstance(init, tuple) else 1)
        self.sideset_opt = bool(opts.get("sideset_opt", False))
        delay_bits = 5 - self.sideset_count - (1 if self.sideset_opt and self.sideset_count else 0)
        for ins in self.instrs:
            if ins.delay > (1 << delay_bits) - 1:
                raise PioError("delay %d too long for %d bits: %r" % (ins.delay, delay_bits, ins))
        self.in_right = opts.get("in_shiftdir", 0) == 1
        self.out_right = opts.get("out_shiftdir", 0) == 1
        self.autopush = bool(opts.get("autopush", False))
        self.autopull = bool(opts.get("autopull", False))
        self.push_thresh = opts.get("push_thresh", 32) or 32
        self.pull_thresh = opts.get("pull_thresh", 32) or 32
        join = opts.get("fifo_join", 0)
        self.rx_depth = 8 if join == 2 else (0 if join == 1 else 4)
        self.tx_depth = 8 if join == 1 else (0 if join == 2 else 4)
        self.rx = []
        self.tx = []
        self.tx_backlog = []  # words a blocking sm.put() is still waiting to write
        self.cycle = 0
        self.pc = pc
        self.x = x & M32
        self.y = y & M32
        self.isr = 0
        self.isr_count = 0
        self.autopush_pending = False
        self.osr = 0
        self.osr_count = 32  # empty (see the module docstring)
        self.delay = 0
        self.stalled = False
        self.irq_flags = 0
        self.irq_log = []  # (cycle, flag index) for every IRQ set
        self.fdebug = 0  # bit sm_id: RXSTALL, 24 + sm_id: TXSTALL (§3.7 FDEBUG)
        self.out_levels = 0
        self.out_trace = []
        self.push_log = []
        self.executed = 0

    # ------------------------------------------------------------------ the CPU side
    def put(self, words, shift=0):
        """sm.put(value or array, shift): each word << shift, written as the TX FIFO has room."""
        if isinstance(words, int):
            words = [words]
        for w in words:
            self.tx_backlog.append((w << shift) & M32)

    def get(self):
        """Pop one RX word (None when empty)."""
        return self.rx.pop(0) if self.rx else None

    def drain(self):
        """Every RX word, oldest first."""
        words = self.rx
        self.rx = []
        return words

    # ------------------------------------------------------------------ running
    def run_until(self, cycle):
        """Execute every cycle before `cycle`."""
        while self.cycle < cycle:
            self.step()

    def step(self):
        backlog = self.tx_backlog
        while backlog and len(self.tx) < self.tx_depth:
            self.tx.append(backlog.pop(0))
        if self.delay:
            self.delay -= 1
            self._background_pull()
            self.cycle += 1
            return
        ins = self.instrs[self.pc]
        if self.sideset_count and (ins.side_value is not None or not self.sideset_opt):
            self._write_pins(self.sideset_base, self.sideset_count, ins.side_value or 0)
        op = ins.op
        jumped = False
        is_out = op == "out"
        if op == "jmp":
            jumped = self._jmp(ins.args)
            done = True
        elif op == "mov":
            done = self._mov(ins.args)
        elif op == "in":
            done = self._in(ins.args)
        elif op == "out":
            done, jumped = self._out(ins.args)
        elif op == "push":
            done = self._push(ins.args[0])
        elif op == "pull":
            done = self._pull(ins.args[0])
        elif op == "irq":
            done = self._irq(ins.args)
        elif op == "set":
            done = self._set(ins.args)
        elif op == "nop":
            done = True
        elif op == "wait":
            done = self._wait(ins.args)
        else:
            raise PioError("instruction not modelled: %r" % (ins,))
        if not is_out:
            self._background_pull()
        self.cycle += 1
        self.stalled = not done
        if not done:
            return
        self.executed += 1
        if not jumped:
            self.pc = self.wrap_target if self.pc == self.wrap else self.pc + 1
        self.delay = ins.delay

    # ------------------------------------------------------------------ pins
    def _write_pins(self, base, count, value):
        old = self.out_levels
        new = old
        for i in range(count):
            g = (base + i) & 31
            new = (new & ~(1 << g)) | (((value >> i) & 1) << g)
        new &= M32
        if new != old:
            self.out_levels = new
            self.out_trace.append((self.cycle, new))

    def _in_pins(self):
        levels = self.pins(self.cycle) & M32
        b = self.in_base & 31
        return ((levels >> b) | (levels << (32 - b))) & M32 if b else levels

    # ------------------------------------------------------------------ operands
    def _source(self, src):
        if src == _PINS:
            return self._in_pins()
        if src == _X:
            return self.x
        if src == _Y:
            return self.y
        if src == _NULL:
            return 0
        if src == _ISR:
            return self.isr
        if src == _OSR:
            return self.osr
        raise PioError("source %r not modelled" % (src,))

    def _target(self, label):
        return self.labels[label] if isinstance(label, str) else label

    # ------------------------------------------------------------------ instructions
    def _jmp(self, args):
        cond, label = args
        if cond == _JMP_ALWAYS:
            take = True
        elif cond == _JMP_NOT_X:
            take = self.x == 0
        elif cond == _JMP_X_DEC:
            take = self.x != 0
            self.x = (self.x - 1) & M32
        elif cond == _JMP_NOT_Y:
            take = self.y == 0
        elif cond == _JMP_Y_DEC:
            take = self.y != 0
            self.y = (self.y - 1) & M32
        elif cond == _JMP_X_NE_Y:
            take = self.x != self.y
        elif cond == _JMP_PIN:
            take = bool((self.pins(self.cycle) >> (self.jmp_pin & 31)) & 1)
        elif cond == _JMP_NOT_OSRE:
            take = self.osr_count < self.pull_thresh
        else:
            raise PioError("jmp condition %r" % (cond,))
        if take:
            self.pc = self._target(label)
        return take

    def _mov(self, args):
        dest, src = args
        op = None
        if isinstance(src, tuple):
            op, src = src
        v = self._source(src)
        if op == "invert":
            v = ~v & M32
        elif op == "reverse":
            v = _reverse32(v)
        elif op is not None:
            raise PioError("mov op %r" % (op,))
        if dest == _X:
            self.x = v
        elif dest == _Y:
            self.y = v
        elif dest == _ISR:
            self.isr = v
            self.isr_count = 0
        elif dest == _OSR:
            self.osr = v
            self.osr_count = 0
        elif dest == _PINS:
            self._write_pins(self.out_base, self.out_count, v)
        else:
            raise PioError("mov destination %r not modelled" % (dest,))
        return True

    def _in(self, args):
        src, n = args
        if not self.autopush_pending:
            data = self._source(src) & _mask(n)
            if n >= 32:
                self.isr = data
            elif self.in_right:
                self.isr = (self.isr >> n) | (data << (32 - n))
            else:
                self.isr = ((self.isr << n) | data) & M32
            self.isr_count = min(32, self.isr_count + n)
            if not (self.autopush and self.isr_count >= self.push_thresh):
                return True
        if len(self.rx) >= self.rx_depth:
            # §3.5.4.1: the IN stalls until the push fits (shifted once, pushed once)
            self.autopush_pending = True
            self.fdebug |= 1 << self.sm_id
            return False
        self.autopush_pending = False
        self._store(self.isr)
        self.isr = 0
        self.isr_count = 0
        return True

    def _out(self, args):
        dest, n = args
        if self.autopull and self.osr_count >= self.pull_thresh:
            if self.tx:
                self.osr = self.tx.pop(0)
                self.osr_count = 0
            else:
                self.fdebug |= 1 << (24 + self.sm_id)
            return False, False  # §3.5.4.2: cannot fill and shift on one cycle
        if n >= 32:
            v = self.osr
            self.osr = 0
        elif self.out_right:
            v = self.osr & _mask(n)
            self.osr >>= n
        else:
            v = self.osr >> (32 - n)
            self.osr = (self.osr << n) & M32
        self.osr_count = min(32, self.osr_count + n)
        jumped = False
        if dest == _X:
            self.x = v
        elif dest == _Y:
            self.y = v
        elif dest == _NULL:
            pass
        elif dest == _PINS:
            self._write_pins(self.out_base, self.out_count, v)
        elif dest == _ISR:
            self.isr = v
            self.isr_count = n
        elif dest == _PC:
            self.pc = v & 31
            jumped = True
        else:
            raise PioError("out destination %r not modelled" % (dest,))
        if self.autopull and self.osr_count >= self.pull_thresh and self.tx:
            self.osr = self.tx.pop(0)
            self.osr_count = 0
        return True, jumped

    def _background_pull(self):
        if self.autopull and self.osr_count >= self.pull_thresh and self.tx:
            self.osr = self.tx.pop(0)
            self.osr_count = 0

    def _store(self, word):
        stored = len(self.rx) < self.rx_depth
        if stored:
            self.rx.append(word)
        self.push_log.append((self.cycle, word, stored))
        return stored

    def _push(self, flags):
        block = not (flags & _NOBLOCK) or bool(flags & _BLOCK)
        if flags & _IF and self.isr_count < self.push_thresh:
            return True
        if len(self.rx) >= self.rx_depth:
            self.fdebug |= 1 << self.sm_id  # FDEBUG.RXSTALL
            if block:
                return False
            self.push_log.append((self.cycle, self.isr, False))
        else:
            self._store(self.isr)
        self.isr = 0
        self.isr_count = 0
        return True

    def _pull(self, flags):
        block = not (flags & _NOBLOCK) or bool(flags & _BLOCK)
        if flags & _IF and self.osr_count < self.pull_thresh:
            return True
        if self.tx:
            self.osr = self.tx.pop(0)
        elif block:
            self.fdebug |= 1 << (24 + self.sm_id)  # FDEBUG.TXSTALL
            return False
        else:
            self.osr = self.x
        self.osr_count = 0
        return True

    def _irq(self, args):
        mod, idx = args
        if isinstance(idx, tuple) and idx[0] == "rel":
            idx = idx[1] | 0x10
        if mod & _BLOCK:
            raise PioError("irq wait not modelled")
        flag = idx & 7
        if idx & 0x10:
            flag = (flag & 4) | ((flag + self.sm_id) & 3)
        if mod & _IF:
            self.irq_flags &= ~(1 << flag)
        else:
            self.irq_flags |= 1 << flag
            self.irq_log.append((self.cycle, flag))
        return True

    def _set(self, args):
        dest, data = args
        data &= 31
        if dest == _X:
            self.x = data
        elif dest == _Y:
            self.y = data
        elif dest == _PINS:
            self._write_pins(self.set_base, self.set_count, data)
        elif dest == _PINDIRS:
            pass  # directions are not modelled
        else:
            raise PioError("set destination %r not modelled" % (dest,))
        return True

    def _wait(self, args):
        pol, src, idx = args
        if src == 0:  # GPIO: absolute
            level = (self.pins(self.cycle) >> (idx & 31)) & 1
        elif src == 1:  # PIN: through the IN mapping
            level = (self._in_pins() >> (idx & 31)) & 1
        else:
            raise PioError("wait on IRQ not modelled")
        return level == (1 if pol else 0)


class RxDma:
    """A DMA channel paced by `sm`'s RX DREQ, cycle by cycle, writing a ring of `ring_words`.

    RP2040 datasheet §2.5.3 (DREQ pacing) and §2.5.1 (ring: the low address bits wrap): a word
    that entered the RX FIFO on cycle c is read out of it and written at the ring's write index
    on cycle c + `latency` (the fake rp2.DMA uses the same latency: this checks its bookkeeping,
    not the figure); at most one transfer a cycle; TRANS_COUNT counts down and the channel stops
    at 0, after which words stay in the FIFO until it is full (then FDEBUG.RXSTALL).
    """

    def __init__(self, sm, ring_words, count, latency):
        self.sm = sm
        self.ring = [0] * ring_words
        self.index = 0
        self.count = count
        self.latency = latency
        self._logged = 0
        self._ready = []  # for each word in sm.rx: the cycle from which the DMA may take it

    @property
    def busy(self):
        return self.count > 0

    def run_until(self, cycle):
        """Execute every cycle before `cycle`: the SM's step, then the DMA's."""
        sm = self.sm
        while sm.cycle < cycle:
            c = sm.cycle
            sm.step()
            log = sm.push_log
            while self._logged < len(log):
                _, _, stored = log[self._logged]
                self._logged += 1
                if stored:
                    self._ready.append(c + self.latency)
            if self.busy and self._ready and self._ready[0] <= c:
                self._ready.pop(0)
                self.ring[self.index] = sm.rx.pop(0)
                self.index = (self.index + 1) % len(self.ring)
                self.count -= 1
