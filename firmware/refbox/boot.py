"""Power-up: read the journal, honour the safe-boot gesture, build the board and the App, resume.

`main()` is what main.py runs on the board: the real `time`, the Board from the pin map, littlefs
through refbox.journal.OsFiles, the watchdog fed by the loop. The simulator boots the very same
path: it sets PLATFORM to its own (virtual clock, fake chip, simulated flash) and runs main.py.

Safe boot (README "Power cuts and safe boot"): UNDO held while the board powers up starts fresh
at the menu; the old journal is kept as journal.tbj.old. Ctrl-C leaves for the REPL as always,
and the watchdog is stopped whenever the firmware hands the board to the REPL.
"""

from refbox.ticks import TICKS_MAX, ticks_diff

SAFE_BOOT_CONTROL = "undo"
WATCHDOG_MS = 8000  # rp2 allows at most 8388 ms; the loop feeds it every pass (~2 ms)
# bytes of heap kept in one piece while the journal is read at power-up (refbox.journal
# Journal.load): what the Board and the App allocate after it (the capture ring alone is 8 KB)
BOOT_HEAP = 20000
PLATFORM = None  # the simulator's stand-in for the board (tablebuzz.sim.runner); None on a board
# the App the board's loop runs (`main`), kept here so that after Ctrl-C it stays at the REPL,
# game and journal included: `from refbox.boot import running` to look at it, and a heap read
# there (bench/bench_budget_chip.py's) counts what the loop held
running = None


class ShiftedClock:
    """`clock` with every µs tick moved by `offset`: a resumed game's clock continues from the
    tick of its last save, so the ticks stored in its log (timers, stamps) keep their meaning
    after the chip's own ticks restarted at 0. The time the power was off does not count.
    Allocation-free (small ints only): the capture interrupt handlers read it."""

    def __init__(self, clock, offset):
        self._ticks_us = clock.ticks_us
        self.offset = offset
        self.sleep_ms = clock.sleep_ms
        if hasattr(clock, "sleep_us"):
            self.sleep_us = clock.sleep_us

    def ticks_us(self):
        return (self._ticks_us() + self.offset) & TICKS_MAX


class BoardPlatform:
    """The real board: time, machine, littlefs."""

    def __init__(self):
        import time

        from refbox import board, pinmap
        from refbox.journal import OsFiles

        self.clock = time
        self.pinmap = pinmap
        self.fs = OsFiles()
        self.boot_game = None
        self._board = board

    def control_held(self, name):
        for control, gpio in self.pinmap.CONTROLS:
            if control == name:
                return self._board.control_held(gpio)
        return False

    def make_board(self, clock):
        return self._board.Board(self.pinmap, clock)

    def start_watchdog(self):
        return self._board.start_watchdog(WATCHDOG_MS)

    def stop_watchdog(self):
        self._board.stop_watchdog()


def start(platform):
    """The App as at power-up on `platform` (BoardPlatform, or the simulator's): journal read or
    set aside, the game resumed or the menu open. Never raises for a bad journal."""
    from refbox.app import App
    from refbox.journal import Journal

    clock = platform.clock
    journal = None
    if platform.fs is not None:
        journal = Journal(platform.fs)
        if platform.control_held(SAFE_BOOT_CONTROL):
            aside = journal.set_aside()
            kept = "the old journal kept as %s" % aside if aside else "there was no journal"
            journal.notes.append(("safe_boot", "UNDO held at power-up: fresh start, " + kept))
        else:
            from refbox.games.base import reserve_log

            reserve_log()  # (the resumed game's log list, before the journal's copy of it)
            journal.load(BOOT_HEAP)
        if journal.saved.resumable():
            clock = ShiftedClock(clock, ticks_diff(journal.saved.t, clock.ticks_us()))
    board = platform.make_board(clock)
    return App(board, clock, platform.pinmap, boot_game=platform.boot_game, journal=journal)


def main(platform=None):
    """main.py's whole job. On the board: run the loop until Ctrl-C, the watchdog on."""
    if platform is None:
        platform = PLATFORM
    if platform is None:
        import sys

        if sys.implementation.name == "circuitpython":
            from refbox.board_cp import Platform  # the same referee on CircuitPython's modules

            platform = Platform()
        else:
            platform = BoardPlatform()
    global running
    app = running = start(platform)
    if isinstance(platform, BoardPlatform):
        from refbox.games import GAME_ORDER, needs_warming

        if needs_warming():  # every game's module and options' shape, while nothing waits
            app.warm = list(GAME_ORDER)
    app.watchdog = platform.start_watchdog()
    if hasattr(platform, "adopt"):
        platform.adopt(app)  # the simulator steps the loop on its virtual clock (and feeds it)
        return app
    try:
        app.run()
    finally:
        platform.stop_watchdog()  # whatever ends the loop (Ctrl-C, mpremote), the REPL stays up
    return app
