"""The simulator's memory model: the MicroPython unix port run with a heap fitted to the RP2040's.

The simulator has no heap of its own under CPython; the MicroPython lane runs the very firmware
under the unix port, whose `-X heapsize=` caps the heap. A header with `"heap": "chip"` runs the
lane with `CHIP_HEAPSIZE`, which is fitted so that what the firmware has left once a game is set
up is what the chip has left (docs/architecture.md "The memory model"):

    CHIP_HEAPSIZE = LANE_LIVE_KB + POINTER_SCALE * CHIP_FREE_KB["quiz"]

- `CHIP_FREE_KB`: heap free with each game set up on the emulated RP2040 (the real MicroPython
  v1.28.0 rp2 firmware, `make flash`: bench/README.md, issue 38), KB.
- `POINTER_SCALE`: the unix port is 64-bit. A MicroPython object is words (a tuple's header and
  items, a list's items, a dict's slots) and its GC block is 4 words: 16 B on the RP2040, 32 B
  here, so the same objects take twice the bytes and the same count of blocks (a log entry,
  a 3-tuple, is 2 blocks on both). The chip's headroom is then twice as many bytes here.
- `LANE_LIVE_KB`: the live heap (after gc.collect()) of the lane once a quiz is set up, with the
  simulator's world, fakes and the firmware's .mpy modules in it, the simulator's own records
  kept small (`lean`); measured by bench/bench_chip_heap_model.py on the firmware the chip's
  figures were measured on (commit 6b4f703), and fixed since: a firmware that grows leaves less
  free in the model, as on the chip. The model then leaves 3.9-10.7 KB less free than twice the
  chip's figure across the six games (2-5 KB of the chip's; bench/README.md): a little tighter.

What the model leaves out: a power cut within one run keeps the unix port's heap as the last run
left it (its pieces in use), where the chip starts empty; a board powered up on a journal is a
new process (tests/test_chip_heap.py). The simulator's own objects share the heap and fragment
it a little more than the chip's would be: a failure there is an upper bound of the chip's.
Files are real files ("flash": {"dir": ...}): littlefs keeps its data out of the heap.

A run that needs more than the chip has then fails in the lane as on the chip (MemoryError,
`not_saved`, `journal_bad`); under CPython nothing changes.
"""

# heap free with the game set up on the emulated RP2040 (stock MicroPython v1.28.0, make flash)
CHIP_FREE_KB = {
    "menu": 59.7,
    "difference": 54.9,
    "deglingo": 49.7,
    "diddly": 49.0,
    "evidence": 46.5,
    "redblack": 44.8,
    "quiz": 38.8,
}
POINTER_SCALE = 2  # 64-bit unix port / 32-bit RP2040: bytes per GC block (32 / 16)
LANE_LIVE_KB = 287  # the lean lane's live heap with a quiz set up (bench_chip_heap_model.py)
CHIP_HEAPSIZE = "%dK" % round(LANE_LIVE_KB + POINTER_SCALE * CHIP_FREE_KB["quiz"])
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
