"""Fake `neopixel_write` (CircuitPython 10.2.1 ports/raspberrypi/common-hal/neopixel_write): the
bytes go out by a temporary PIO state machine at 800 kbit/s while the CPU waits (interrupts stay
enabled: the capture's DMA and handlers run on); before it starts, a write waits until two
supervisor ticks (1/1024 s) have begun since the previous write ended, the WS2812 latch time. A
write with every state machine taken does nothing, as on the chip ("Maybe bitbang?").

The frame is recorded (World.record_frame, source "cp") as the WS2812 chain reads it: 3 bytes a
pixel, green, red, blue.
"""

from tablebuzz.sim import world as _world

_BIT_NS = 1250  # 800 kHz


def _raw_tick(w, t):
    return (w.origin_ns + t) * 1024 // 1000000000


def neopixel_write(digitalinout, buf):
    w = _world.current
    if len(w.state_machines) >= 4:
        return
    start = w.loop_free_at() if w.loop_free_at() > w.now else w.now
    # next_start_raw_ticks, a static in the C file: it lives as long as the chip's power
    if getattr(w, "cp_neopixel_epoch", None) != w.origin_ns:
        w.cp_neopixel_epoch = w.origin_ns
        w.cp_neopixel_next = 0
    next_tick = w.cp_neopixel_next
    if _raw_tick(w, start) < next_tick:  # wait for the latch gap
        start = -(-(next_tick * 1000000000) // 1024) - w.origin_ns
    data = bytes(buf)
    frame = []
    for i in range(0, len(data) - 2, 3):
        frame.append((data[i + 1], data[i], data[i + 2]))
    w.record_frame("cp", frame)
    end = start + len(data) * 8 * _BIT_NS
    w.block_loop(end - w.now if end > w.now else 0)
    w.cp_neopixel_next = _raw_tick(w, end) + 2
