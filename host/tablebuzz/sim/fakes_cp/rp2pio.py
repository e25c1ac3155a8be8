"""Fake `rp2pio` (CircuitPython 10.2.1 ports/raspberrypi/bindings/rp2pio/StateMachine.c): a
StateMachine with CircuitPython's signature that runs the program it is given on the simulator's
PIO model (tablebuzz.sim.fakes.rp2: the same model, the same timings as the MicroPython fakes).

The program arrives as CircuitPython has it: 16-bit PIO instruction words (adafruit_pioasm's
`Program.assembled`). They are decoded (RP2040 datasheet §3.4, instruction encoding) into the
model's instructions; the model recognises the edge timestamper and refuses anything else.

CircuitPython's lifecycle (common-hal/rp2pio/StateMachine.c): the constructor loads the program
and enables the state machine; `stop()` clears SM_ENABLE; `restart()` jumps to the program's start,
restarts the SM and enables it again as its last step. On the chip `restart()` is a C call of a
few µs between two `ticks_us()` reads; here it takes 2 * World.call_ns of the clock and the enable
falls in its middle, so a caller that brackets it with two clock reads finds the enable at their
midpoint (refbox.board_cp says how large that bracket is on the chip).

`background_read(loop=buf)`: one DMA channel paced by the SM's RX DREQ writes every word into
`buf` in order (`World.dma_latency_cycles` after the push); at the end of the buffer the DMA's
completion interrupt (DMA_IRQ_0, `rp2pio_statemachine_dma_complete_read`) points the channel at
the start of `buf` again. That handler is a hard IRQ with the world's latency: meanwhile words wait
in the RX FIFO (8 joined), and a FIFO that fills drops the newest and sets `rxstall`, as the
nonblocking PUSH does.
"""

from tablebuzz.sim import world as _world
from tablebuzz.sim.fakes import rp2 as _pio

_STATE_MACHINES = 4  # PIO0 only: the model keeps one FDEBUG


# ------------------------------------------------------------------ decoding PIO machine code
def decode(words, wrap_target=0, wrap=-1, sideset_bits=0, options=None):
    """The model's Program for 16-bit PIO instructions `words` (RP2040 datasheet §3.4). Jump
    targets become labels "L<address>". `sideset_bits`: side-set bits in the delay field,
    the enable bit included. Raises ValueError for an encoding that is not an RP2040 PIO
    instruction."""
    program = _pio.Program(dict(options or {}))
    delay_bits = 5 - sideset_bits
    for address in range(len(words)):
        word = words[address]
        op = word >> 13
        field = (word >> 8) & 0x1F
        arg = word & 0xFF
        if op == 0:
            target = arg & 0x1F
            name = "L%d" % target
            program.labels[name] = target
            instr = _pio.Instr("jmp", (arg >> 5, name))
        elif op == 1:
            instr = _pio.Instr("wait", (arg >> 7, (arg >> 5) & 3, arg & 0x1F))
        elif op == 2:
            instr = _pio.Instr("in", (arg >> 5, (arg & 0x1F) or 32))
        elif op == 3:
            instr = _pio.Instr("out", (arg >> 5, (arg & 0x1F) or 32))
        elif op == 4:
            if arg & 0x1F:
                raise ValueError("0x%04x: not a PUSH/PULL encoding" % word)
            flags = (0x21 if arg & 0x20 else 0x01) | (0x40 if arg & 0x40 else 0)
            instr = _pio.Instr("pull" if arg & 0x80 else "push", (flags,))
        elif op == 5:
            dest, mop, src = arg >> 5, (arg >> 3) & 3, arg & 7
            if dest == 2 and src == 2 and mop == 0:
                instr = _pio.Instr("nop", ())
            else:
                source = src
                if mop == 1:
                    source = ("invert", src)
                elif mop == 2:
                    source = ("reverse", src)
                elif mop == 3:
                    raise ValueError("0x%04x: reserved MOV operation" % word)
                instr = _pio.Instr("mov", (dest, source))
        elif op == 6:
            if arg & 0x80:
                raise ValueError("0x%04x: reserved IRQ bit" % word)
            mod = (0x40 if arg & 0x40 else 0) | (0x21 if arg & 0x20 else 0)
            index = arg & 0x1F
            instr = _pio.Instr("irq", (mod, ("rel", index & 7) if index & 0x10 else index))
        else:
            instr = _pio.Instr("set", (arg >> 5, arg & 0x1F))
        instr.delay = field & ((1 << delay_bits) - 1)
        if sideset_bits:
            instr.side_value = field >> delay_bits
        program.instrs.append(instr)
    program.wrap_target = wrap_target
    program.wrap = wrap if wrap >= 0 else len(words) - 1
    return program


def _uses(program, ops):
    for instr in program.instrs:
        if instr.op in ops:
            return True
    return False


class _Base:
    """What the model reads of `in_base`: the GPIO number."""

    def __init__(self, gpio):
        self.id = gpio


class StateMachine:
    def __init__(
        self,
        program,
        frequency,
        *,
        pio_version=0,
        may_exec=None,
        init=None,
        first_out_pin=None,
        out_pin_count=1,
        initial_out_pin_state=0,
        initial_out_pin_direction=0xFFFFFFFF,
        first_in_pin=None,
        in_pin_count=1,
        pull_in_pin_up=0,
        pull_in_pin_down=0,
        first_set_pin=None,
        set_pin_count=1,
        initial_set_pin_state=0,
        initial_set_pin_direction=0x1F,
        first_sideset_pin=None,
        sideset_pin_count=1,
        sideset_pindirs=False,
        initial_sideset_pin_state=0,
        initial_sideset_pin_direction=0x1F,
        sideset_enable=False,
        jmp_pin=None,
        jmp_pin_pull=None,
        exclusive_pin_use=True,
        auto_pull=False,
        pull_threshold=32,
        out_shift_right=True,
        wait_for_txstall=True,
        auto_push=False,
        push_threshold=32,
        in_shift_right=True,
        user_interruptible=True,
        wrap_target=0,
        wrap=-1,
        offset=-1,
        fifo_type="auto",
        mov_status_type="txfifo",
        mov_status_n=0,
    ):
        import microcontroller

        w = _world.current
        if len(program) > 32:
            raise ValueError("Program size invalid")
        if pio_version != 0:
            raise ValueError("pio_version: the RP2040 has PIO version 0")
        if fifo_type not in ("auto", "txrx", "tx", "rx"):
            raise ValueError("fifo_type: the RP2040 supports auto, txrx, tx, rx")
        if init is not None or may_exec is not None or auto_push or auto_pull:
            raise NotImplementedError("the simulator models the edge timestamper's set-up only")
        if first_in_pin is None:
            raise ValueError("Missing first_in_pin. Instruction uses pins")
        sideset = sideset_pin_count + (1 if sideset_enable else 0) if first_sideset_pin else 0
        rx = _uses_in(program)
        tx = _uses_out(program)
        fifo = fifo_type
        if fifo == "auto":
            fifo = "tx" if not rx else ("rx" if not tx else "txrx")
        options = {
            "in_shiftdir": _pio.PIO.SHIFT_RIGHT if in_shift_right else _pio.PIO.SHIFT_LEFT,
            "fifo_join": {"rx": _pio.PIO.JOIN_RX, "tx": _pio.PIO.JOIN_TX}.get(fifo, 0),
        }
        self._program = decode(list(program), wrap_target, wrap, sideset, options)
        if in_shift_right:
            raise NotImplementedError("the edge timestamper shifts left (in_shift_right=False)")
        for sm_id in range(_STATE_MACHINES):
            if sm_id not in w.state_machines:
                break
        else:
            raise RuntimeError("All state machines in use")
        self._id = sm_id
        self._pins = [microcontroller.Pin(first_in_pin.id + i) for i in range(in_pin_count)]
        if exclusive_pin_use:
            for pin in self._pins:
                microcontroller.claim(pin, self)
        self._in_pin_count = in_pin_count
        self._frequency = frequency if frequency > 0 else w.sys_hz
        self._model = self._new_model()
        self._model.active(1)  # pio_sm_set_enabled(..., true) ends the constructor
        self._reader = None
        self._deinited = False

    def _new_model(self):
        model = _pio.StateMachine(
            self._id, self._program, freq=self._frequency, in_base=_Base(self._pins[0].id)
        )
        if model.n_pins != self._in_pin_count:
            raise ValueError("in_pin_count does not match the program's IN PINS bit count")
        return model

    # ------------------------------------------------------------------ CircuitPython's API
    @property
    def frequency(self):
        return self._frequency

    def stop(self):
        self._model.active(0)

    def restart(self):
        """Stop, jump to the program's start, restart, enable (the enable in the call's middle:
        see the module docstring)."""
        w = _world.current
        old = self._model
        old.active(0)
        if old in w.pin_watchers:
            w.pin_watchers.remove(old)
        old.power_off()  # the old run's queued samples and pushes must do nothing
        model = self._new_model()  # registers itself as this SM id
        model._fifo, model._head, model._count = old._fifo, old._head, old._count  # kept
        model.dma = old.dma
        self._model = model
        begin = w.cpu_until if w.cpu_until > w.now else w.now
        w.cpu_until = begin + 2 * w.call_ns
        model.enable_at(begin + w.call_ns)

    def deinit(self):
        import microcontroller

        if self._deinited:
            return
        self.stop_background_read()
        self._model.power_off()
        _world.current.state_machines.pop(self._id, None)
        for pin in self._pins:
            microcontroller.release(pin, self)
        self._deinited = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.deinit()

    @property
    def rxstall(self):
        return bool(_world.current.fdebug & (1 << self._id))

    def clear_rxfifo(self):
        """Read out the RX FIFO and clear FDEBUG.RXSTALL (common_hal_..._clear_rxfifo)."""
        model = self._model
        while model.rx_fifo():
            model.get()
        _world.current.fdebug &= ~(1 << self._id)

    @property
    def in_waiting(self):
        return self._model.rx_fifo()

    def readinto(self, buffer, *, start=0, end=None, swap=False):
        end = len(buffer) if end is None else end
        model = self._model
        if end - start > model.rx_fifo():
            raise RuntimeError("readinto would wait for words that the simulator cannot bring")
        for i in range(start, end):
            buffer[i] = model.get()

    def background_read(self, once=None, *, loop=None, loop2=None, swap=False):
        """Continuous reads into `loop` (the only form the simulator models)."""
        if once is not None or loop2 is not None or loop is None:
            raise NotImplementedError("the simulator models background_read(loop=buffer) only")
        if getattr(loop, "itemsize", 4) != 4:
            raise ValueError("the edge words are 32-bit: give an array of 4-byte items")
        if self._reader is not None:
            raise NotImplementedError("the simulator models one background_read per SM")
        self._reader = _BackgroundRead(self, loop)
        self._model.dma = self._reader
        if self._model.rx_fifo():
            self._reader.dreq(self._model)

    def stop_background_read(self):
        if self._reader is not None:
            self._reader.active = False
            self._model.dma = None
            self._reader = None

    @property
    def reading(self):
        return self._reader is not None

    @property
    def pending_read(self):
        return 0  # one loop buffer, started at once: nothing waits to be started


def _uses_in(program):
    for word in program:
        if word >> 13 in (2, 4) and not (word >> 13 == 4 and word & 0x80):
            return True  # IN or PUSH
    return False


def _uses_out(program):
    for word in program:
        if word >> 13 == 3 or (word >> 13 == 4 and word & 0x80):
            return True  # OUT or PULL
    return False


class _BackgroundRead:
    """The DMA channel of background_read(loop=buf) and its completion interrupt."""

    handler_ns = 3000  # rp2pio_statemachine_dma_complete_read: two register writes in C

    def __init__(self, owner, buf):
        self.owner = owner
        self.buf = buf
        self.index = 0
        self.active = True
        self._reloading = False

    def dreq(self, sm, t=None):
        w = _world.current
        cycle_ns = 1000 // (w.sys_hz // 1000000)
        when = (w.now if t is None else t) + w.dma_latency_cycles * cycle_ns
        w.at(when, self._take, sm)

    def _take(self, sm):
        if not self.active or self._reloading or sm.dma is not self or not sm.rx_fifo():
            return
        self.buf[self.index] = sm.get()
        self.index += 1
        if self.index == len(self.buf):  # TRANS_COUNT reached 0: the completion IRQ reloads
            self._reloading = True
            _world.current.request_irq(("dma", id(self)), -2, self._reload, sm)
            return
        if sm.rx_fifo():  # words waited: one transfer a cycle
            w = _world.current
            w.at(w.now + 1000 // (w.sys_hz // 1000000), self._take, sm)

    def _reload(self, sm):
        self._reloading = False
        self.index = 0
        if sm.rx_fifo():
            self.dreq(sm)
