"""`tablebuzz pull`: copy the board's journal files off it with mpremote (as `tablebuzz flash`
connects: refbox's own Board over mpremote's SerialTransport).

Connecting stops the firmware (Ctrl-C, which also stops its watchdog, docs/flashing.md); when the
files are copied the board is soft-reset, so main.py starts again and resumes the game from the
very journal just copied. The files: journal.tbj (the game), and journal.tbj.old / .bad when a
safe boot or a bad journal set one aside (docs/architecture.md "The journal").
"""

import sys
from pathlib import Path

from tablebuzz.link.flash import Board, FlashError

JOURNAL_FILES = ("journal.tbj", "journal.tbj.old", "journal.tbj.bad")


def pull(board, dest, log=print):
    """Copy every journal file `board` (a tablebuzz.link.flash.Board) holds into folder `dest`; the
    list of names copied. Raises FlashError (the board) or OSError (the folder)."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    copied = []
    for name in JOURNAL_FILES:
        data = board.read(name)
        if data is None:
            continue
        (dest / name).write_bytes(data)
        copied.append(name)
        log("tablebuzz: %s -> %s (%d bytes)" % (name, dest / name, len(data)))
    return copied


def cmd_pull(args):
    """`tablebuzz pull [--port P] [--to DIR]`: 0 when a journal was copied, 1 when the board has
    none, 2 on failure (one line on stderr), 130 on Ctrl-C."""
    board = None
    try:
        board = Board.connect(args.port)
        copied = pull(board, args.to)
        board.start_main()
    except FlashError as e:
        print("tablebuzz: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("tablebuzz: cannot write into %s: %s" % (args.to, e.strerror), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tablebuzz: interrupted", file=sys.stderr)
        return 130
    finally:
        if board is not None:
            board.close()
    if not copied:
        print(
            "tablebuzz: the board holds no journal (no game was played since the last flash "
            "of a blank board)",
            file=sys.stderr,
        )
        return 1
    return 0
