"""bench_boot_chip.py's main.py (not the product's): times the firmware's imports, the App's
construction and each game's new_game and save on the board, printing `probe NAME µs bytes`."""

import gc
import time

T = time.ticks_us
D = time.ticks_diff
# leaves first, so each module's time is its own (its imports are in already); refbox and
# refbox.packfs come from the files themselves, as main.py imports them before it mounts the pack
MODULES = (
    "refbox.compat", "refbox.ticks", "refbox.pinmap", "refbox.ring", "refbox.capture",
    "refbox.protocol", "refbox.board", "refbox.debounce", "refbox.prng", "refbox.arbiter",
    "refbox.games.base", "refbox.games", "refbox.menu", "refbox.leds", "refbox.controls",
    "refbox.outbox", "refbox.journal", "refbox.referee", "refbox.app", "refbox.boot",
)
GAMES = (("quiz", 8), ("difference", 4), ("deglingo", 4), ("redblack", 4), ("diddly", 2),
         ("evidence", 4))


def probe(name, us, heap):
    print("probe %s %d %d" % (name, us, heap))


def main():
    gc.collect()
    start_free = gc.mem_free()
    t = T()
    from refbox.packfs import import_builtins, mount

    d = D(T(), t)
    probe("import:refbox+refbox.packfs", d, start_free - gc.mem_free())
    free = gc.mem_free()
    t = T()
    why = mount()  # as main.py does: the modules from refbox.pack when it is there
    m = D(T(), t)
    total = d + m
    probe("mount:" + ("pack" if why is None else "none"), m, free - gc.mem_free())
    if why is None:  # as main.py does
        free = gc.mem_free()
        t = T()
        import_builtins()
        m = D(T(), t)
        total += m
        probe("import_builtins", m, free - gc.mem_free())
    for name in MODULES:
        free = gc.mem_free()
        t = T()
        __import__(name)
        d = D(T(), t)
        total += d
        probe("import:" + name, d, free - gc.mem_free())
    probe("imports_at_boot", total, start_free - gc.mem_free())
    from refbox import board, pinmap
    from refbox.app import App
    from refbox.journal import Journal, OsFiles

    gc.collect()
    free = gc.mem_free()
    t = T()
    journal = Journal(OsFiles())
    journal.load()
    board_ = board.Board(pinmap, time)
    app = App(board_, time, pinmap, journal=journal)
    probe("journal+Board+App", D(T(), t), free - gc.mem_free())
    for game, players in GAMES:
        gc.collect()
        free = gc.mem_free()
        t = T()
        app.referee.new_game(game, players, {})
        t1 = T()
        app._sync_journal(T())
        t2 = T()
        probe("new_game:" + game, D(t1, t), free - gc.mem_free())
        probe("save:" + game, D(t2, t1), 0)
    gc.collect()
    t = T()
    gc.collect()
    probe("gc.collect", D(T(), t), 0)


try:  # once only: the soft reboot after sys.exit runs main.py again, on a fuller flash
    open("probe.done").close()
except OSError:
    open("probe.done", "w").close()
    main()
import sys  # noqa: E402

sys.exit()
