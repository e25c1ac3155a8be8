"""bench_boot_chip.py's main.py (not the product's): times the firmware's imports, the App's
construction, each game's new_game and save, and the journal's load for a few lengths on the board,
printing `probe NAME µs bytes`."""

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
    journal_lengths()  # the heap as at power-up: the boot's modules and the App, no game yet
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


def journal_lengths():
    """Journal.load of a quiz snapshot and N deltas (a race and a judgement each), as power-up
    reads it before `resume`: `probe journal_load:N µs bytes-of-file`."""
    import os

    from refbox.games import game_class
    from refbox.games.base import parse_options
    from refbox.journal import Journal, OsFiles, encode_record, header

    cls = game_class("quiz")  # (its module, as a resumed quiz's power-up has it)
    options = parse_options(cls.OPTIONS, {}, cls.presets)
    snapshot = {"t": 1, "game": "quiz", "players": 6, "options": options, "seed": "ab" * 16,
                "log": [], "ties": [1, 2, 3, 4], "locked": [], "over": False,
                "setup": ("quiz", 6, dict(options))}
    for n in (0, 20, 100, 200):
        f = open("probe.tbj", "wb")
        f.write(header() + encode_record(snapshot))
        for i in range(n):
            add = [("race", 2, 1380000 + i, 284, None), ("judge", True)]
            f.write(encode_record({"t": 1000 + i, "keep": 2 * i, "add": add}))
        f.close()
        size = os.stat("probe.tbj")[6]
        gc.collect()
        t = T()
        journal = Journal(OsFiles(), "probe.tbj")
        journal.load()
        d = D(T(), t)
        # a journal that could not be read (a MemoryError reading it whole) is set aside
        notes = journal.notes[0][0] if journal.notes else "?"
        lost = "" if len(journal.saved.log) == 2 * n else ":set-aside(%s)" % notes
        probe("journal_load:%d%s" % (n, lost), d, size)
        for name in ("probe.tbj", "probe.tbj.bad"):
            try:
                os.remove(name)
            except OSError:
                pass


try:  # once only: the soft reboot after sys.exit runs main.py again, on a fuller flash
    open("probe.done").close()
except OSError:
    open("probe.done", "w").close()
    main()
import sys  # noqa: E402

sys.exit()
