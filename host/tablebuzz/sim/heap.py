"""The simulator's memory model: the MicroPython unix port run with a heap fitted to the RP2040's.

The simulator has no heap of its own under CPython; the MicroPython lane runs the very firmware
under the unix port, whose `-X heapsize=` caps the heap. A header with `"heap": "chip"` runs the
lane with `CHIP_HEAPSIZE`, which is fitted so that what the firmware has left with a quiz
resumed is what the chip has left (docs/architecture.md "The memory model"):

    CHIP_HEAPSIZE = LANE_RESUMED_LIVE_KB + POINTER_SCALE * CHIP_RESUMED_FREE_KB

- `CHIP_RESUMED_FREE_KB`: heap free on the emulated RP2040 (the real MicroPython v1.28.0 rp2
  firmware, stock, the `make flash` deploy: refbox/*.mpy, flash.NATIVE as armv6m code) with a
  6-player quiz resumed after its first question, read at the REPL after Ctrl-C with a
  collection, the App kept (refbox.boot.running): bench/bench_budget_chip.py's heap row, KB.
- `POINTER_SCALE`: the unix port is 64-bit. A MicroPython object is words (a tuple's header and
  items, a list's items, a dict's slots) and its GC block is 4 words: 16 B on the RP2040, 32 B
  here, so the same objects take twice the bytes and the same count of blocks (a log entry,
  a 3-tuple, is 2 blocks on both). The chip's headroom is then twice as many bytes here.
- `LANE_RESUMED_LIVE_KB`: the live heap (after gc.collect()) of the lane with the same quiz
  resumed, the simulator's world, fakes and the firmware's bytecode modules in it, its own
  records kept small (`lean`): bench/bench_chip_heap_model.py's first line.
Both figures come from the same firmware (FITTED_ON); a firmware that grows leaves less free in
the model, as on the chip, and a change of what the chip alone holds (flash.NATIVE) needs a new
fit. bench_chip_heap_model.py prints the lane's figure now beside the fit's.

What the model leaves out: a power cut within one run keeps the unix port's heap as the last run
left it (its pieces in use), where the chip starts empty; a board powered up on a journal is a
new process (tests/test_chip_heap.py). The simulator's own objects share the heap and fragment
it a little more than the chip's would be: a failure there is an upper bound of the chip's. Not
so for a night of changes of game: on the emulated stock chip, after two games, the next game's
import found no 1,280 bytes in one piece for its names (a qstr pool) where the model had room;
the firmware now interns every game's names after power-up (refbox.games.warm), and
tests/test_micropython_lane.py checks that mechanism rather than the model.
Files are real files ("flash": {"dir": ...}): littlefs keeps its data out of the heap.

A run that needs more than the chip has then fails in the lane as on the chip (MemoryError,
`not_saved`, `journal_bad`); under CPython nothing changes.
"""

CHIP_RESUMED_FREE_KB = 59.2  # bench_budget_chip.py BUILDS=stock PATHS=power RUNS=1
LANE_RESUMED_LIVE_KB = 304.8  # bench_chip_heap_model.py
FITTED_ON = "15f7898"  # the firmware both were measured on (bench/README.md)
POINTER_SCALE = 2  # 64-bit unix port / 32-bit RP2040: bytes per GC block (32 / 16)
CHIP_HEAPSIZE = "%dK" % round(LANE_RESUMED_LIVE_KB + POINTER_SCALE * CHIP_RESUMED_FREE_KB)
RECORD_LIMIT = 2  # the simulator's records of LED frames and tones kept in the lean lane


def heapsize(header, default):
    """The `-X heapsize` for a lane run of `header`: CHIP_HEAPSIZE when it asks for the chip's
    heap (`"heap": "chip"`), else `default`."""
    return CHIP_HEAPSIZE if header.get("heap") == "chip" else default


def lean(world, header):
    """Keep the simulator's own records small in a run of `header` with the chip's heap, so that
    the heap's headroom is the firmware's: the world's LED frames and tones (RECORD_LIMIT)."""
    if header.get("heap") == "chip":
        world.RECORD_LIMIT = RECORD_LIMIT


def collect(header):
    """The firmware's gc.collect() at a safe moment, made for real in a run of `header` with the
    chip's heap (elsewhere the simulator only charges its time: tablebuzz.sim.runner)."""
    if header.get("heap") == "chip":
        import gc

        gc.collect()
