"""Fake `machine` for the simulator: Pin, PWM, I2C, mem32 and freq() backed by the simulated world.

Same signatures as MicroPython's rp2 port; reads and writes go to `tablebuzz.sim.world.current`.
Pin.value() returns the wire's real level (pull-ups: 1 until a contact closes), never a constant.
"""

from tablebuzz.sim import world as _world

_GPIO_IN = 0xD0000004
_PIO0_FDEBUG = 0x50200008
_VREG = 0x40064000  # VREG_AND_CHIP_RESET.VREG (RP2040 datasheet 2.10.6)
_WATCHDOG_CTRL_CLEAR = (0x40058000 + 0x3000, 0x400D8000 + 0x3000)  # RP2040, RP2350
_WATCHDOG_ENABLE = 1 << 30
_WDT_MAX_MS = 8388  # ports/rp2/machine_wdt.c: 0xffffff / 2 / 1000


_UNSET = object()


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    # the rp2 port's values: pico-sdk GPIO_IRQ_EDGE_FALL / GPIO_IRQ_EDGE_RISE, the bits of the
    # pin's 4-bit field in IO_BANK0 INTR (ports/rp2/machine_pin.c, RP2040 datasheet §2.19.6.2)
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.mode = mode
        self.pull = pull
        if value is not None:
            self.value(value)

    def value(self, v=None):
        w = _world.current
        if v is None:
            return w.level(self.id)
        w.set_level(self.id, 1 if v else 0)
        return None

    def __call__(self, v=None):
        return self.value(v)

    _irq_obj = None

    def irq(self, handler=_UNSET, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        """Set the pin's IRQ (handler None: off) and return its irq object; `pin.irq()` with no
        argument returns it unchanged, as the rp2 port does (ports/rp2/machine_pin.c
        `machine_pin_irq`): `pin.irq().flags()` in a handler gives the edges that call serves."""
        w = _world.current
        if self._irq_obj is None:
            self._irq_obj = _PinIrq()
        if handler is _UNSET:
            return self._irq_obj
        if handler is None:
            w.pin_irqs.pop(self.id, None)
        else:
            w.pin_irqs[self.id] = (handler, trigger, hard, self)
        self._irq_obj.trigger_value = trigger if handler is not None else 0
        self._irq_obj.flags_value = 0
        return self._irq_obj

    def __repr__(self):
        return "Pin(GPIO%d)" % self.id


class _PinIrq:
    """The pin's irq object (shared/runtime/mpirq.c). `flags()` is what ports/rp2/machine_pin.c
    `gpio_irq` stored before calling the handler: the pin's latched INTR edge bits it just
    acknowledged, masked by the trigger. Both bits at once: the pin went both ways since the last
    call (the edges came closer together than the handler could run, or while interrupts were
    masked)."""

    def __init__(self):
        self.flags_value = 0
        self.trigger_value = 0

    def flags(self):
        return self.flags_value

    def trigger(self):
        return self.trigger_value


class PWM:
    def __init__(self, pin, freq=0, duty_u16=0):
        self.pin = pin
        self._freq = freq
        self._duty = duty_u16

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = f
        self._note()

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        self._duty = d
        self._note()

    def deinit(self):
        self._duty = 0
        self._note()

    def _note(self):
        _world.current.record_tone(self._freq if self._duty else 0)


class I2C:
    """Hardware I2C as on the rp2 port: writes reach the simulated devices on the world's bus
    (`world.i2c_devices`: address -> object with write(bytes)), and each transfer holds the loop
    for the time the bus takes (world.i2c_transfer): 9 clocks a byte (8 bits + ACK), the address
    byte included, plus start and stop, at `freq`. A device that is not there gives OSError(5),
    EIO, as the rp2 port does on a missing ACK."""

    def __init__(self, id=0, *, scl=None, sda=None, freq=400000, timeout=50000):
        self.id = id
        self.scl = scl
        self.sda = sda
        self.freq = freq

    def scan(self):
        w = _world.current
        w.i2c_transfer(0x78 - 0x08, 0, self.freq)  # every 7-bit address, 0x08..0x77, probed
        return sorted(w.i2c_devices)

    def writeto(self, addr, buf, stop=True):
        return self._write(addr, (buf,))

    def writevto(self, addr, vector, stop=True):
        return self._write(addr, vector)

    def _write(self, addr, parts):
        w = _world.current
        data = bytearray()
        for part in parts:
            data += bytes(part)
        device = w.i2c_devices.get(addr)
        w.i2c_transfer(1, len(data) if device is not None else 0, self.freq)
        if device is None:
            raise OSError(5)
        device.write(data)
        return len(data)


class _Mem32:
    """Only the registers the firmware uses: SIO GPIO_IN, PIO0 FDEBUG (write 1 to clear), the
    core regulator's VREG (EN bit 0, HIZ bit 1, VSEL bits 7:4, ROK bit 12 read-only) and the
    watchdog's CTRL clear alias."""

    def __getitem__(self, addr):
        w = _world.current
        if addr == _GPIO_IN:
            return w.levels
        if addr == _PIO0_FDEBUG:
            return w.fdebug
        if addr == _VREG:
            return w.vreg | (0x1000 if w.vreg & 1 else 0)
        raise ValueError("the simulator models no register at 0x%08x" % addr)

    def __setitem__(self, addr, value):
        w = _world.current
        if addr == _PIO0_FDEBUG:
            w.fdebug &= ~value
            return
        if addr == _VREG:
            if value & 2 or not value & 1:
                raise ValueError("the simulator refuses to cut the core's supply (VREG HIZ or EN)")
            w.vreg = value & 0xF3
            return
        if addr in _WATCHDOG_CTRL_CLEAR:
            if value & _WATCHDOG_ENABLE:
                w.watchdog_ms = None  # the pico-sdk's watchdog_disable()
            return
        raise ValueError("the simulator models no register at 0x%08x" % addr)


mem32 = _Mem32()


class WDT:
    """The rp2 watchdog as MicroPython offers it (ports/rp2/machine_wdt.c, v1.28.0): started by
    the constructor, `feed()` reloads it, no stop (the firmware clears CTRL.ENABLE through
    mem32, as the pico-sdk's watchdog_disable() does: see _Mem32). The world records its timeout
    (None when off) and the last feed; the simulator (tablebuzz.sim.runner) resets the board when
    a hung loop pass lets it run out (timeline {"hang": true})."""

    def __init__(self, id=0, timeout=5000):
        if id != 0:
            raise ValueError("WDT(%d) doesn't exist" % id)
        if timeout > _WDT_MAX_MS:
            raise ValueError("timeout exceeds %d" % _WDT_MAX_MS)
        w = _world.current
        w.watchdog_ms = timeout
        w.watchdog_fed = w.now

    def feed(self):
        w = _world.current
        w.watchdog_fed = w.now


class Timer:
    """The rp2 port's soft timer (ports/rp2/machine_timer.c, v1.28.0): id -1 only, keyword
    arguments `mode`, `period` (ms), `callback`, `hard` (default False). Its callback runs from
    the pico-sdk alarm pool's TIMER interrupt: here a hard interrupt the world dispatches as it
    does a pin's (latency, masks, one handler at a time), every `period` ms from the call. Its
    handler gives the loop nothing to read, so it does not wake the loop. Stopped by `deinit()`
    and by a power cut."""

    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, mode=PERIODIC, period=-1, callback=None, hard=False):
        if id != -1:
            raise ValueError("Timer doesn't exist")
        self._armed = None
        if callback is not None:
            self.init(mode=mode, period=period, callback=callback, hard=hard)

    def init(self, mode=PERIODIC, period=-1, callback=None, hard=False):
        if not hard:
            raise NotImplementedError("the simulator models hard timer callbacks only")
        w = _world.current
        self.deinit()
        self._mode = mode
        self._period_ns = max(1, period) * 1000000
        self._callback = callback
        self._armed = w.power_epoch  # a power cut stops it (World.power_off)
        w.at_background(w.now + self._period_ns, self._due)

    def deinit(self):
        self._armed = None

    def _due(self, _):
        w = _world.current
        if self._armed != w.power_epoch:
            return
        from tablebuzz.sim.world import World

        # straight to the world's dispatch: the runner's wrapper would step the loop after it;
        # a fixed latency, so the timer draws nothing from the world's random numbers (the
        # contacts' bounce and the pin interrupts' latencies come out as without it)
        World.request_irq(w, ("timer", id(self)), -3, self._callback, self, w.irq_latency_ns[0])
        if self._mode == self.PERIODIC:
            w.at_background(w.now + self._period_ns, self._due)
        else:
            self._armed = None


def _pll_makes(mhz):
    """True when the pico-sdk's `check_sys_clock_khz` finds PLL_SYS settings for `mhz` from the
    12 MHz crystal: VCO 750-1600 MHz (PICO_PLL_VCO_MIN_FREQ_HZ, pico-sdk 2.2.0), feedback
    divider 16-320, post dividers 1-7."""
    for fbdiv in range(16, 321):
        vco = 12 * fbdiv
        if 750 <= vco <= 1600:
            for pd1 in range(1, 8):
                for pd2 in range(1, pd1 + 1):
                    if vco == mhz * pd1 * pd2:
                        return True
    return False


def freq(hz=None):
    """clk_sys in Hz, or set it as MicroPython v1.28.0's rp2 `machine.freq(hz)` does
    (ports/rp2/modmachine.c: `set_sys_clock_khz`, ValueError "cannot change frequency" when the
    PLL cannot make it). Above 133 MHz the regulator must already be at >= 1.15 V (RP2040
    datasheet 2.15.3): the chip would not raise, it could fail; the simulator refuses, so that
    a firmware that overclocks fails its tests. The world's PIO, PWM and CPU model follow it."""
    w = _world.current
    if hz is None:
        return w.sys_hz
    mhz, rest = divmod(hz, 1000000)
    if rest or mhz > 200 or not _pll_makes(mhz):
        raise ValueError("cannot change frequency")
    if mhz > 133 and (w.vreg >> 4) & 0xF < 0xC:
        raise ValueError("%d MHz needs the core regulator at >= 1.15 V first (VREG VSEL)" % mhz)
    w.sys_hz = hz


def unique_id():
    return b"\xe6\x60\x38\x36\x5f\x43\x12\x34"


# ---------------------------------------------------------------------------- USBDevice
# machine.USBDevice as MicroPython v1.28.0's rp2 port has it (extmod/machine_usb_device.c,
# shared/tinyusb/mp_usbd_runtime.c, mp_usbd_descriptor.c, tusb_config.h): a singleton; the
# built-in driver's descriptors (the CDC console: interfaces 0-1, endpoints 0x81, 0x02, 0x82,
# strings 1-4); config() keeps descriptors and callbacks; active(True) is processed by the
# TinyUSB task (a scheduled callback), after which the simulated host (tablebuzz.sim.usbhost)
# enumerates the device; submit_xfer() queues one transfer an endpoint, completed by the host's
# poll through xfer_cb(ep, result, xferred_bytes) with result 0 (TinyUSB's XFER_RESULT_SUCCESS).
_MP_EINVAL = 22
_MP_EBUSY = 16
_CFG_TUD_ENDPPOINT_MAX = 16  # rp2's USB controller: 16 endpoint numbers


class _Builtin:
    def __init__(self, itf_max, ep_max, str_max, desc_dev, desc_cfg):
        self.itf_max = itf_max
        self.ep_max = ep_max
        self.str_max = str_max
        self.desc_dev = desc_dev
        self.desc_cfg = desc_cfg


# mp_usbd_builtin_desc_dev: USB 2.0, class MISC/common/IAD, EP0 64 bytes, Raspberry Pi's VID
# 0x2E8A and MicroPython's rp2 PID 0x0005, bcdDevice 0x0100, strings 1 2 3, one configuration
_DESC_DEV = bytes((18, 1, 0x00, 0x02, 0xEF, 0x02, 0x01, 64, 0x8A, 0x2E, 0x05, 0x00, 0x00, 0x01,
                   1, 2, 3, 1))
# mp_usbd_builtin_desc_cfg with CDC only: the configuration (2 interfaces, 250 mA) and
# TUD_CDC_DESCRIPTOR(0, string 4, 0x81 notify 8 bytes, 0x02 out, 0x82 in, 64 bytes)
_DESC_CFG_CDC = bytes((
    9, 2, 75, 0, 2, 1, 0, 0x80, 125,
    8, 11, 0, 2, 2, 2, 0, 0,  # IAD: interfaces 0-1, CDC
    9, 4, 0, 0, 1, 2, 2, 0, 4,  # interface 0: CDC control, string 4
    5, 0x24, 0, 0x20, 0x01,  # CDC header
    5, 0x24, 1, 0, 1,  # call management
    4, 0x24, 2, 2,  # ACM
    5, 0x24, 6, 0, 1,  # union
    7, 5, 0x81, 3, 8, 0, 16,  # notification endpoint
    9, 4, 1, 0, 2, 10, 0, 0, 0,  # interface 1: CDC data
    7, 5, 0x02, 2, 64, 0, 0,
    7, 5, 0x82, 2, 64, 0, 0,
))


class USBDevice:
    """See the comment above. The simulated host's side is tablebuzz.sim.usbhost."""

    BUILTIN_NONE = _Builtin(0, 0, 1, _DESC_DEV, b"")
    BUILTIN_DEFAULT = BUILTIN_CDC = _Builtin(2, 3, 5, _DESC_DEV, _DESC_CFG_CDC)
    _instance = None

    def __new__(cls):
        if USBDevice._instance is None:
            self = object.__new__(cls)
            self._builtin = USBDevice.BUILTIN_NONE
            self._active = False
            self._trigger = False
            self.desc_dev = None
            self.desc_cfg = None
            self.desc_strs = None
            self.open_itf_cb = self.reset_cb = self.control_xfer_cb = self.xfer_cb = None
            self.xfers = {}  # endpoint address -> the buffer of its transfer in flight
            self.opened = set()  # endpoint addresses the host's Set Configuration opened
            USBDevice._instance = self
        return USBDevice._instance

    def __init__(self):
        pass

    @property
    def builtin_driver(self):
        return self._builtin

    @builtin_driver.setter
    def builtin_driver(self, value):
        if self._active:
            raise OSError(_MP_EINVAL)  # deactivate first
        self._builtin = value

    def config(self, desc_dev, desc_cfg, desc_strs, open_itf_cb=None, reset_cb=None,
               control_xfer_cb=None, xfer_cb=None):
        # desc_strs is required in v1.28.0's C (MP_ARG_REQUIRED), though the docs show a default
        for name, value in (("desc_dev", desc_dev), ("desc_cfg", desc_cfg)):
            try:
                memoryview(value)
            except TypeError:
                raise ValueError(name) from None
        if desc_strs is not None:
            try:
                desc_strs[0]  # the C code needs a subscript slot
            except (IndexError, KeyError):
                pass
            except TypeError:
                raise ValueError("desc_strs") from None
        self.desc_dev = desc_dev
        self.desc_cfg = desc_cfg
        self.desc_strs = desc_strs
        self.open_itf_cb = open_itf_cb
        self.reset_cb = reset_cb
        self.control_xfer_cb = control_xfer_cb
        self.xfer_cb = xfer_cb

    def active(self, *value):
        result = self._active
        if value:
            on = bool(value[0])
            if on != result:
                if on and self._builtin is USBDevice.BUILTIN_NONE and self.desc_dev is None:
                    raise OSError(_MP_EINVAL)  # nothing configured to activate
                self._active = on
                self._trigger = True
                _usb_task(self)
        return result

    def submit_xfer(self, ep, buffer):
        if not self._active or self._trigger:
            raise OSError(_MP_EINVAL)
        memoryview(buffer)  # TypeError if not a buffer
        num = ep & 0x7F
        if num == 0 or num >= _CFG_TUD_ENDPPOINT_MAX:
            raise ValueError("ep")
        if ep in self.xfers:
            raise OSError(_MP_EBUSY)  # usbd_edpt_claim: one transfer an endpoint
        if ep not in self.opened:
            return False  # usbd_edpt_xfer on an endpoint the host has not configured
        self.xfers[ep] = buffer
        from tablebuzz.sim import usbhost

        usbhost.host().submitted(self, ep)
        return True

    def stall(self, ep, *stall):
        if not self._active or self._trigger:
            raise OSError(_MP_EINVAL)
        return False

    def remote_wakeup(self):
        return False


def _usb_task(usbd):
    """A change of active state is processed by the TinyUSB task, which MicroPython schedules
    (mp_usbd_schedule_task): the host side connects or disconnects then."""
    from tablebuzz.sim import usbhost

    usbhost.schedule_task(usbd)
