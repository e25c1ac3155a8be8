"""Protocol lines waiting for the console: a bounded queue the loop drains as the host has room.

USB CDC output blocks the writer while a host is connected but not reading (design notes,
"Timing facts"), so nothing writes to the console directly: `put` queues a whole line or drops it,
and every loop pass `drain`s at most `budget` bytes, `chunk` bytes a write, and only while the
console reports room (MicroPython v1.28.0 `shared/tinyusb/mp_usbd_cdc.c`: POLLOUT is set when the
host is not connected, or connected with `tud_cdc_write_available() > 0`).
Dropped lines are counted; once the queue has room again the count goes out first as
`{"ev":"error","code":"output_overflow",...}` and a host resynchronises with `state`
(docs/protocol.md). Lines are never cut: a line is queued whole or not at all, and a line begun
goes out to its last byte (a write's returned count says what the console took; the rest is
written later).
"""

from refbox.protocol import encode_event
from refbox.ticks import ticks_diff


class Outbox:
    capacity = 4096  # bytes queued at most (8 lines of the protocol's 512-byte maximum)
    # bytes per console write (see docs/architecture.md "Console output"): half the 256-byte
    # TX FIFO, so a `race` line leaves in one write (each write costs ~0.2 ms on the chip)
    chunk = 128
    budget = 512  # bytes written per loop pass at most: a bounded cost
    slow_us = 2000  # a write that took longer found the host not reading: careful from then on
    careful_budget = 16  # bytes per pass, one a write, while careful

    def __init__(self):
        self._lines = []  # bytes of each queued line, "\n" included, oldest first
        self._sent = 0  # bytes of the first line already written
        self.size = 0  # bytes queued (unsent)
        self.dropped = 0  # lines dropped since the last overflow report was queued
        self.careful = False  # the host was slow: one byte per POLLOUT until the queue empties
        self.waits = 0  # writes that had to wait for the host

    def put(self, line):
        """Queue `line` (bytes, "\n" included) whole; False (and counted) if it does not fit."""
        if self.size + len(line) > self.capacity:
            self.dropped += 1
            return False
        self._lines.append(line)
        self.size += len(line)
        return True

    def room_for(self, nbytes):
        return self.size + nbytes <= self.capacity

    def put_line(self, text):
        """Queue protocol line `text` (str, no newline). After a loss the overflow report goes
        first, so no line after a gap arrives before the host is told of it."""
        return self._queue(text.encode() + b"\n")

    def _queue(self, line):
        if self.dropped and not self._report(len(line)):
            self.dropped += 1
            return False
        return self.put(line)

    def flush(self, console, ticks_us):
        """One pass's output: the overflow report if it fits now, then `drain`. Returns the
        bytes written."""
        if self.dropped:
            self._report(0)
        if self.size:
            return self.drain(console, ticks_us)
        return 0

    def _report(self, extra):
        detail = "%d lines lost; send state to resync" % self.dropped
        report = encode_event("error", (("code", "output_overflow"), ("detail", detail)))
        report = report.encode() + b"\n"
        if not self.room_for(len(report) + extra):
            return False
        self.dropped = 0
        self.put(report)
        return True

    def send(self, line, console, ticks_us):
        """`line` (bytes, "\n" included) out at once: written straight to the console when nothing
        is queued before it and the host keeps up, else queued behind the rest and drained as
        `flush` does. The race line's way (refbox.app.App.emit): a queue and a drain of Python
        before the one write cost ~0.5 ms on the emulated chip. A write the console takes only
        in part, or that took over `slow_us`, makes the queue careful and keeps the rest queued,
        as `drain` does. Returns the bytes written now."""
        if self.size or self.dropped or self.careful or len(line) > self.chunk:
            if not self._queue(line) or self.careful:
                return 0  # (careful: the pass's flush sends it, a byte a write)
            return self.drain(console, ticks_us)
        if not console.writable():
            self.put(line)
            return 0
        began = ticks_us()
        took = console.write(line, 0, len(line)) or 0
        if took > len(line):
            took = len(line)
        if took < len(line) or ticks_diff(ticks_us(), began) > self.slow_us:
            self.waits += 1  # (a slow write that took it all leaves the queue empty: not careful)
        if took < len(line):  # the rest goes out as drain sends it, from where the host stopped
            self.careful = True
            self._lines.append(line)
            self._sent = took
            self.size = len(line) - took
        return took

    def pending(self):
        return self.size > 0

    def drain(self, console, ticks_us):
        """Write queued bytes while `console.writable()` (POLLOUT). Returns how many were written.

        `console.write(data, start, end)` writes data[start:end] and returns how many bytes the
        console took: `sys.stdout.buffer.write` returns the count that reached the CDC TX FIFO
        (MicroPython v1.28.0 `py/stream.c` `mp_stream_rw` adds up what
        `shared/runtime/sys_stdio_mphal.c` `stdio_buffer_write` -> `ports/rp2/mphalport.c`
        `mp_hal_stdout_tx_strn` -> `shared/tinyusb/mp_usbd_cdc.c` `mp_usbd_cdc_tx_strn` took,
        and stops at a call that took nothing). The bytes not taken stay queued and go out in a
        later write, so a line is never cut: it leaves whole, in order, or waits.

        POLLOUT only says that one byte fits. A chunk bigger than the room left waits until the
        host takes a packet, or MicroPython's CDC timeout (500 ms without progress, twice: once
        in the call that took part of it, once in the call for the rest) if the host has
        stopped: a write that took over `slow_us` (timed with `ticks_us`) or took less than it
        was given makes the queue careful, one byte a write, which can never wait, until it has
        emptied."""
        written = 0
        lines = self._lines
        chunk = 1 if self.careful else self.chunk
        budget = self.careful_budget if self.careful else self.budget
        while lines and written < budget and console.writable():
            line = lines[0]
            start = self._sent
            end = min(len(line), start + chunk, start + budget - written)
            began = ticks_us()
            took = console.write(line, start, end) or 0  # (None: a non-blocking stream, full)
            if took > end - start:
                took = end - start
            short = took < end - start
            if (short or ticks_diff(ticks_us(), began) > self.slow_us) and not self.careful:
                self.careful = True
                self.waits += 1
                chunk = 1
                budget = 0  # nothing more this pass
            written += took
            if start + took == len(line):
                lines.pop(0)
                self._sent = 0
            else:
                self._sent = start + took
            if short:
                break  # the console is full: the rest waits for the next pass
        self.size -= written
        if not self.size:
            self.careful = False  # the host caught up
        return written
