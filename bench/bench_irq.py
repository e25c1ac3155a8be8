"""Cost of the capture's per-pass work on the MicroPython unix port, vs an empty function.

Builds the capture path through the simulator (tablebuzz.sim.runner.Simulation), then calls
directly in a loop under .venv/bin/micropython:
- the PIO capture's idle check, what every loop pass does: PioEdgeCapture.pending() (the DMA
  channel's live count) and stalled() (FDEBUG.RXSTALL); the PIO capture has no interrupt handler;
- `def handler(sm): pass` (and an empty bound method) for reference.
Each figure is the best of REPEATS batches of CALLS calls timed with time.ticks_us, minus the cost
of the loop itself (emptying the ring with ring.tail = ring.head so it never fills).
"through the fakes" is the code as the simulator runs it: the fake rp2.DMA.count, machine.mem32
and World.ticks_us are Python there but C on the board. "native stand-ins" swaps them for
time.ticks_us, a dict as mem32 and a one-attribute DMA, leaving the firmware's own code.
Then every handler runs once under micropython.heap_lock(): "allocation-free: yes" means it did not
touch the heap (on the unix port a small int is 62 bits; on the board 31, see bench/README.md).
Run: .venv/bin/python bench/bench_irq.py   (figures: bench/README.md)
"""

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from tablebuzz.sim import simulate  # noqa: E402

CALLS = 20000
REPEATS = 5
HEAP = "2M"

# Runs under the unix port. Prints "#bench <name> <values...>".
CODE = """pass
import gc, micropython, time
from tablebuzz.sim import runner
from tablebuzz.sim import world as world_module
import refbox.board
import refbox.ring

CALLS = @CALLS@
REPEATS = @REPEATS@
ticks_us = time.ticks_us
ticks_diff = time.ticks_diff

def sink(t, line):
    pass

def build():
    header = {"seed": "1", "game": "quiz", "players": 6}
    sim = runner.Simulation(header, sink)
    sim.world.run_until(sim.world.now + 5000000)  # boot: first loop passes, PIO start sample
    return sim

def handler(sm):
    pass

class Empty:
    def handler(self, sm):
        pass

def batch(fn, arg, sm, ring, words):
    # one timed batch; fn None = the loop alone
    t0 = ticks_us()
    if fn is None:
        for _ in range(CALLS):
            sm._count = words
            sm._head = 0
            ring.tail = ring.head
    else:
        for _ in range(CALLS):
            sm._count = words
            sm._head = 0
            ring.tail = ring.head
            fn(arg)
    return ticks_diff(ticks_us(), t0)

def best(fn, arg, sm, ring, words):
    gc.collect()
    result = None
    for _ in range(REPEATS):
        t = batch(fn, arg, sm, ring, words)
        if result is None or t < result:
            result = t
    return result

def report(name, fn, arg, sm, ring, words):
    print("#bench", name, best(fn, arg, sm, ring, words))

def allocation_free(name, fn, arg, sm, ring, words):
    sm._count = words
    sm._head = 0
    ring.tail = ring.head
    before = ring.head
    gc.collect()
    micropython.heap_lock()
    try:
        fn(arg)
        ok = 1
    except MemoryError:
        ok = 0
    micropython.heap_unlock()
    stored = (ring.head - before) & ring.mask
    print("#bench lock_" + name, ok, stored, ring.lost)

class Fifo:
    # stands in for the fake StateMachine in the loop: the same two attributes
    _count = 0
    _head = 0

class StubSM:
    # the least a state machine can be in Python: rx_fifo() and get(buf)
    _count = 0
    _head = 0
    def rx_fifo(self):
        return self._count
    def get(self, buf):
        self._count = 0

class StubMachine:
    mem32 = {0x50200008: 0, 0xD0000004: 0x3FFFFFFF}

# ---------------------------------------------------------------- PIO capture: the idle check
class StubDma:
    count = 0

def idle_check(cap):
    if cap.pending() or cap.stalled():
        raise RuntimeError("the bench expects no new capture word")

sim = build()
cap = sim.board.capture
cap.taken(cap.pending())
fifo = Fifo()
ring = refbox.ring.CaptureRing()  # (the loop's own cost: a ring to empty)
pin = sim.board.player_pins[0]
report("loop", None, cap, fifo, ring, 0)
report("empty_function", handler, cap, fifo, ring, 0)
report("empty_method", Empty().handler, cap, fifo, ring, 0)
report("idle_check", idle_check, cap, fifo, ring, 0)
allocation_free("idle_check", idle_check, cap, fifo, ring, 0)
fake_machine = refbox.board.machine
refbox.board.machine = StubMachine
dma = cap.dma
stub = StubDma()
stub.count = dma.count
cap.dma = stub
report("native_idle_check", idle_check, cap, fifo, ring, 0)
allocation_free("native_idle_check", idle_check, cap, fifo, ring, 0)
cap.dma = dma
refbox.board.machine = fake_machine

# ---------------------------------------------------------------- the check can fail
def allocates(sm):
    ring.values[0] = len([sm])  # a new list: must be caught under heap_lock
allocation_free("control_allocates", allocates, pin, fifo, ring, 0)
""".replace("@CALLS@", str(CALLS)).replace("@REPEATS@", str(REPEATS))


def run():
    cmd = simulate.micropython_command(CODE, HEAP)
    env = dict(os.environ, MICROPYPATH="")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    if proc.returncode != 0:
        raise SystemExit("MicroPython run failed:\n" + (proc.stderr or proc.stdout)[-3000:])
    figures = {}
    for line in proc.stdout.splitlines():
        if line.startswith("#bench "):
            name, *values = line.split()[1:]
            figures[name] = [int(v) for v in values]
    return figures


def main():
    f = run()

    def per_call(name, loop):
        return (f[name][0] - f[loop][0]) / CALLS

    empty = per_call("empty_function", "loop")
    print(f"capture work on the MicroPython unix port: best of {REPEATS} x {CALLS} calls, "
          "loop cost subtracted")
    print(f"  {'handler':<44} {'µs/call':>8} {'x empty':>8}")

    def row(label, us):
        print(f"  {label:<44} {us:8.3f} {us / empty:8.1f}")

    row("empty function  def handler(sm): pass", empty)
    row("empty bound method", per_call("empty_method", "loop"))
    print("  through the fakes (as the simulator runs it):")
    row("  PIO capture idle check (pending, stalled)", per_call("idle_check", "loop"))
    print("  native stand-ins (firmware code only):")
    row("  PIO capture idle check (pending, stalled)", per_call("native_idle_check", "loop"))

    print("\nunder micropython.heap_lock() (one call each):")
    ok = True
    checks = [("PIO idle check", "lock_idle_check", 0)]
    checks += [("PIO idle check, native stand-ins", "lock_native_idle_check", 0)]
    for label, key, expected in checks:
        free, stored, lost = f[key]
        right = stored == expected and lost == 0
        ok = ok and free == 1 and right
        print(f"  {label:<44} allocation-free: {'yes' if free else 'NO'}"
              f"   records stored: {stored}{'' if right else f' (expected {expected})'}")
    caught = f["lock_control_allocates"][0] == 0
    ok = ok and caught
    print(f"  control, a handler that builds a list: {'caught' if caught else 'NOT CAUGHT'}"
          " (heap_lock is the real one)")
    print(f"allocation-free: {'yes' if ok else 'no'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
