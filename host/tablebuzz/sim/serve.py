"""A simulated board on stdin/stdout, in real time: the firmware and the simulated world, talking
the protocol over this process's standard streams as a board talks over USB. MicroPython subset.

Put it behind a pseudo-terminal and the host tools cannot tell it from a board on a serial port:
the tests run it under the MicroPython unix port that way (tests/test_connection.py), and a
developer can too (see docs/host.md "A simulated board on a pty"). Like a board's console it
writes "\\r\\n" line ends and starts with MicroPython's soft-reboot line, which is not protocol and
must be shown as a notice by the host.

`main(header_json)`: the simulation header (tablebuzz.sim.runner) as JSON text. Runs until stdin
closes (the pty's other side went away: the board was "unplugged").
"""

import json
import sys
import time

try:
    import select
except ImportError:  # pragma: no cover - every interpreter we run has it
    import uselect as select  # type: ignore

from tablebuzz.sim.runner import Simulation


def _clock_us():
    """A µs counter that does not wrap within a run (ticks_diff against the start)."""
    if hasattr(time, "ticks_us"):
        start = time.ticks_us()
        return lambda: time.ticks_diff(time.ticks_us(), start)
    start = time.monotonic_ns()
    return lambda: (time.monotonic_ns() - start) // 1000


def _reader():
    """read() -> bytes available on stdin now (b"" at end of file)."""
    try:
        import os

        if hasattr(os, "read"):
            return lambda: os.read(0, 64)
    except ImportError:
        pass
    stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    return lambda: stream.read(1)


def main(header_json):
    header = json.loads(header_json)
    out = sys.stdout

    def sink(t, line):
        out.write(line + "\r\n")
        if hasattr(out, "flush"):
            out.flush()

    out.write("MPY: soft reboot\r\n")
    sim = Simulation(header, sink)
    sim.step_every_loop()
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    read = _reader()
    now_us = _clock_us()
    while True:
        for _, flags in poller.poll(1):
            if flags & select.POLLIN:
                data = read()
                if not data:
                    return
                sim.console.feed(data)
                sim._request_step()
            elif flags & (select.POLLHUP | select.POLLERR):
                return
        sim.world.run_until(now_us() * 1000)
