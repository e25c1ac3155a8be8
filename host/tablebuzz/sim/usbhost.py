"""The simulated USB host on the other end of the fake `machine.USBDevice` (sim/fakes/machine.py).

What a PC's host controller and OS do with the box, as far as a runtime interface sees it:
- the TinyUSB task (scheduled, as MicroPython's mp_usbd_schedule_task does) connects the
  device once `active(True)` is processed; the host enumerates it `ENUMERATE_MS` later: a bus
  reset (`reset_cb`), the device and configuration descriptors read and checked (wTotalLength,
  bNumInterfaces), Set Configuration: each interface past the built-in driver's (`itf_max`)
  is opened through `open_itf_cb` with its descriptors (those of an IAD's interfaces together,
  as mp_usbd_runtime.c's runtime_dev_open claims them), its endpoints opened; a HID interface
  is then asked for its report descriptor (GET_DESCRIPTOR 0x22) and sent SET_IDLE, through
  `control_xfer_cb` in its SETUP, DATA and ACK stages;
- an IN transfer submitted on an interrupt endpoint is taken at the host's next poll of it
  (every bInterval ms, on the 1 ms frame grid), recorded in `reports`, and completed through
  `xfer_cb(ep, 0, n)` from the TinyUSB task.

Sources: MicroPython v1.28.0 shared/tinyusb/mp_usbd_runtime.c; USB 2.0 §9.4 (requests), §9.6
(descriptors); HID 1.11 §7.1-7.2. Runs under CPython and the MicroPython unix port.
"""

from tablebuzz.sim import world as _world

ENUMERATE_MS = 120  # connect to configured: a PC takes ~100-200 ms (a model, not measured)
XFER_SUCCESS = 0  # TinyUSB's XFER_RESULT_SUCCESS, what xfer_cb receives as `result`


class UsbHost:
    """One world's host (`host(world)`). `reports`: [(ns, ep, bytes)] of every IN transfer
    taken; `hid`: {interface: report descriptor}; `interfaces`: [(number, class)] configured;
    `configured`: the host set the configuration; `problems`: what a real host would refuse;
    `submits`: [(ns, ep, bytes)] of every transfer queued."""

    def __init__(self, world):
        self.world = world
        self.reports = []
        self.submits = []  # (ns, ep, bytes) of every transfer the device queued
        self.hid = {}
        self.interfaces = []
        self.configured = False
        self.problems = []
        self.intervals = {}  # IN endpoint -> bInterval (ms)

    # ------------------------------------------------------------------ enumeration
    def power_up(self):
        """The device was off (a power cut) and starts again: nothing is configured any more;
        what the host received stays in `reports`."""
        self.configured = False
        self.intervals = {}
        self.hid = {}

    def task(self, usbd):
        """The TinyUSB task after an active() change."""
        if not usbd._trigger:
            return
        usbd._trigger = False
        if usbd._active:
            self.world.at(self.world.now + ENUMERATE_MS * 1000000, self._enumerate, usbd)
        else:
            self.configured = False
            usbd.xfers.clear()
            usbd.opened.clear()

    def _enumerate(self, usbd):
        if not usbd._active:
            return
        usbd.xfers.clear()
        usbd.opened.clear()
        if usbd.reset_cb is not None:
            usbd.reset_cb()
        cfg = usbd.desc_cfg if usbd.desc_cfg is not None else usbd._builtin.desc_cfg
        cfg = bytes(cfg)
        if len(cfg) < 9 or cfg[2] | cfg[3] << 8 != len(cfg):
            self.problems.append("configuration descriptor: wTotalLength is not its length")
            return
        descs = []  # (offset, type, bytes)
        offset = 0
        while offset < len(cfg):
            length = cfg[offset]
            if length < 2 or offset + length > len(cfg):
                self.problems.append("configuration descriptor: a bad length at %d" % offset)
                return
            descs.append((offset, cfg[offset + 1], cfg[offset:offset + length]))
            offset += length
        numbers = [d[2] for _, t, d in descs if t == 4 and d[3] == 0]
        if len(numbers) != cfg[4]:
            self.problems.append("bNumInterfaces %d, but %d interfaces" % (cfg[4], len(numbers)))
        self.interfaces = [(d[2], d[5]) for _, t, d in descs if t == 4]
        builtin_max = usbd._builtin.itf_max
        i = 0
        while i < len(descs):
            offset, kind, d = descs[i]
            if kind != 4:
                i += 1
                continue
            count = 1
            if i > 0 and descs[i - 1][1] == 11:  # an IAD just before: claim its interfaces
                count = descs[i - 1][2][3]
            j = i
            seen = 0
            while j < len(descs):
                if descs[j][1] == 4:
                    if seen == count:
                        break
                    seen += 1
                elif descs[j][1] == 5:
                    ep = descs[j][2][2]
                    usbd.opened.add(ep)
                    if ep & 0x80:
                        self.intervals[ep] = descs[j][2][6] or 1
                j += 1
            end = descs[j][0] if j < len(descs) else len(cfg)
            runtime = not (usbd._builtin is not usbd.BUILTIN_NONE and d[2] < builtin_max)
            if runtime and usbd.open_itf_cb is not None:
                usbd.open_itf_cb(memoryview(usbd.desc_cfg)[offset:end])
            i = j
        self.configured = True
        for number, cls in self.interfaces:
            if cls == 3 and number >= builtin_max:
                self._hid_setup(usbd, number, cfg)

    def _control(self, usbd, request, data_len=0):
        """One control transfer through control_xfer_cb's stages; its IN data or None."""
        cb = usbd.control_xfer_cb
        if cb is None:
            return None
        req = bytearray(request)
        got = cb(1, memoryview(req))
        if got is False or got is None:
            self.problems.append("control request %r stalled" % bytes(request))
            return None
        data = None
        if got is not True:
            data = bytes(memoryview(got)[:data_len] if data_len else got)
            cb(2, memoryview(req))
        cb(3, memoryview(req))
        return data

    def _hid_setup(self, usbd, number, cfg):
        length = 0
        for i in range(len(cfg) - 8):
            if cfg[i] == 9 and cfg[i + 1] == 4 and cfg[i + 2] == number:
                hid = cfg[i + 9:i + 18]  # the HID descriptor follows its interface's
                if hid[1] == 0x21:
                    length = hid[7] | hid[8] << 8
                break
        request = bytes((0x81, 6, 0, 0x22, number, 0, length & 0xFF, length >> 8))
        report = self._control(usbd, request, length)
        if report is None or len(report) != length:
            self.problems.append("interface %d: no report descriptor" % number)
            return
        self.hid[number] = report
        self._control(usbd, bytes((0x21, 0x0A, 0, 0, number, 0, 0, 0)))  # SET_IDLE 0

    # ------------------------------------------------------------------ transfers
    def submitted(self, usbd, ep):
        """A transfer was queued on `ep`: an IN one is taken at the endpoint's next poll."""
        self.submits.append((self.world.now, ep, bytes(usbd.xfers[ep])))
        if not ep & 0x80 or not self.configured:
            return
        world = self.world
        period = self.intervals.get(ep, 1) * 1000000
        due = (world.now // period + 1) * period
        world.at(due, self._poll, (usbd, ep))

    def _poll(self, arg):
        usbd, ep = arg
        buffer = usbd.xfers.pop(ep, None)
        if buffer is None:
            return
        data = bytes(buffer)
        self.reports.append((self.world.now, ep, data))
        if usbd.xfer_cb is not None:
            self.world.schedule(self._complete, (usbd, ep, len(data)))

    @staticmethod
    def _complete(arg):
        usbd, ep, n = arg
        usbd.xfer_cb(ep, XFER_SUCCESS, n)


def host(world=None):
    """The UsbHost of `world` (the current one by default), made on first use."""
    world = world or _world.current
    found = getattr(world, "usb_host", None)
    if found is None:
        found = world.usb_host = UsbHost(world)
    return found


def schedule_task(usbd):
    """mp_usbd_schedule_task: the TinyUSB task runs as a scheduled callback."""
    world = _world.current
    world.schedule(lambda u: host(world).task(u), usbd)
