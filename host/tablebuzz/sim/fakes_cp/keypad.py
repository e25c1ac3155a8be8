"""Fake `keypad` (CircuitPython 10.2.1 shared-module/keypad): Keys, Event, EventQueue.

The scanner's model, from the C source: a scan at construction, then one every `interval`
rounded down to the supervisor's 1/1024 s ticks (`interval_ticks = interval * 1024`), each
reading every pin and passing it through `keypad_debounce` (a counter per key running from
-threshold, released, to +threshold, pressed; an event when it crosses 0; it starts at 0, so a key
held at construction gives no press event, and its release gives one). An event carries the
`supervisor.ticks_ms()` of its scan. The queue holds `max_events`; one more sets `overflowed` and
is dropped. Scans are run only while some key's counter can still move (after a pin change, until
every counter rests at +-threshold matching its pin): a scan of settled keys records nothing, so
skipping it changes nothing.
"""

import microcontroller
from tablebuzz.sim import world as _world

_TICK_NS = 1000000000 // 1024  # one supervisor tick: 976562.5 ns, kept in 1/1024 s arithmetic


class Event:
    def __init__(self, key_number=0, pressed=True, timestamp=None):
        self.key_number = key_number
        self.pressed = pressed
        self.timestamp = timestamp

    @property
    def released(self):
        return not self.pressed

    def __eq__(self, other):
        return (
            isinstance(other, Event)
            and other.key_number == self.key_number
            and other.pressed == self.pressed
        )

    def __hash__(self):
        return self.key_number << 1 | (1 if self.pressed else 0)

    def __repr__(self):
        kind = "pressed" if self.pressed else "released"
        return "<Event: key_number %d %s>" % (self.key_number, kind)


class EventQueue:
    def __init__(self, max_events):
        self._max = max_events
        self._events = []
        self.overflowed = False

    def get(self):
        if not self._events:
            return None
        key, pressed, ms = self._events.pop(0)
        return Event(key, pressed, ms)

    def get_into(self, event):
        """Fill `event` with the oldest event and return True, or False if there is none (the
        allocation-free way)."""
        if not self._events:
            return False
        key, pressed, ms = self._events.pop(0)
        event.key_number = key
        event.pressed = pressed
        event.timestamp = ms
        return True

    def clear(self):
        self._events = []
        self.overflowed = False

    def __bool__(self):
        return bool(self._events)

    def __len__(self):
        return len(self._events)

    def _record(self, key, pressed, ms):
        if len(self._events) >= self._max:
            self.overflowed = True
            return False
        self._events.append((key, pressed, ms))
        return True


class Keys:
    def __init__(
        self,
        pins,
        *,
        value_when_pressed,
        pull=True,
        interval=0.02,
        max_events=64,
        debounce_threshold=1,
    ):
        if not 1 <= debounce_threshold <= 127:
            raise ValueError("debounce_threshold must be 1-127")
        if not 0.001 <= interval <= 100.0:  # shared-bindings/keypad/Keys.c validates the range
            raise ValueError("interval must be 0.001-100")
        w = _world.current
        self._pins = tuple(pins)
        for pin in self._pins:
            microcontroller.claim(pin, self)
        self._pressed_level = 1 if value_when_pressed else 0
        self._threshold = debounce_threshold
        self._interval_ticks = int(interval * 1024)
        self._counters = [0] * len(self._pins)
        self.events = EventQueue(max_events)
        self._t0 = w.now  # the construction's scan
        self._next_k = 1
        self._planned = None
        self._dead = False
        self._epoch = w.origin_ns
        self._scan(0)
        w.pin_watchers.append(self)

    @property
    def key_count(self):
        return len(self._pins)

    def reset(self):
        """Every key taken as released: one held now gives a press event at the next scans."""
        self._counters = [-self._threshold] * len(self._pins)
        self._schedule()

    def deinit(self):
        self._dead = True
        for pin in self._pins:
            microcontroller.release(pin, self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.deinit()

    # ------------------------------------------------------------------ the scanner model
    def _time_of(self, k):
        return self._t0 + k * self._interval_ticks * 1000000000 // 1024

    def pins_changed(self, changed):
        for pin in self._pins:
            if (changed >> pin.id) & 1:
                self._schedule()
                return

    def power_off(self):
        self._dead = True

    def _schedule(self):
        w = _world.current
        if self._dead or self._planned is not None:
            return
        k = max(self._next_k, -(-(w.now - self._t0) * 1024 // (self._interval_ticks * 1000000000)))
        self._planned = k
        w.at(self._time_of(k), self._scan_event, k)

    def _scan_event(self, k):
        if self._planned != k or self._dead:
            return
        self._planned = None
        self._next_k = k + 1
        if self._scan(k):
            self._schedule()  # a counter is still between its rests: keep scanning

    def _scan(self, k):
        """One scan (keypad_keys_scan_now + keypad_debounce). True while a counter can move."""
        w = _world.current
        ms = w.ticks_ms() & ((1 << 29) - 1)  # supervisor.ticks_ms() wraps at 2**29
        threshold = self._threshold
        moving = False
        recorded = False
        for i in range(len(self._pins)):
            current = w.level(self._pins[i].id) == self._pressed_level
            c = self._counters[i]
            if current:
                if c < threshold:
                    c += 1
                    if c == 0:
                        c = threshold
                        recorded = self.events._record(i, True, ms) or recorded
            elif c > -threshold:
                c -= 1
                if c == 0:
                    c = -threshold
                    recorded = self.events._record(i, False, ms) or recorded
            self._counters[i] = c
            if c != (threshold if current else -threshold):
                moving = True
        if recorded:
            w.wake_loop()
        return moving
