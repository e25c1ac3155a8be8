"""`tablebuzz pull` (mpremote, the unix port as the board) and a journal replayed as the game's
events; the watchdog left off whenever the firmware hands the board to the REPL."""

import subprocess
import sys

import pytest
from journal_games import GAMES, Played
from tablebuzz.link import pull as pull_module
from tablebuzz.records.journal_replay import JournalError, journal_events

_PLAYED = {}


def played(name):
    if name not in _PLAYED:
        _PLAYED[name] = Played(name)
    return _PLAYED[name]


def _of(lines, kind):
    return [line for line in lines if line.startswith('{"ev":"%s"' % kind)]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_journal_replays_as_the_same_game(name):
    game = played(name)
    device = [line for _, line in game.lines]
    replay = journal_events(game.fs.files["journal.tbj"])
    for kind in ("game", "game_over"):  # the commitment, the final ranking and the seed
        assert _of(replay, kind) == _of(device, kind)
    assert _of(replay, "score")[-1] == _of(device, "score")[-1]
    # every judgement that stood is there, in order (the device also shows undone ones)
    judged = _of(replay, "judge")
    it = iter(_of(device, "judge"))
    assert all(any(j == d for d in it) for j in judged)


def test_a_file_that_is_no_journal_is_one_clear_error():
    with pytest.raises(JournalError, match="format version"):
        journal_events(b"hello\n")
    with pytest.raises(JournalError, match="no game"):
        journal_events(b"")


@pytest.mark.micropython
def test_pull_copies_the_journal_files_off_the_board(tmp_path):
    from test_flash import MICROPYTHON, unix_port_board

    if not MICROPYTHON.exists():
        pytest.skip("no MicroPython unix port in this environment")
    data = played("quiz").fs.files["journal.tbj"]
    with unix_port_board(tmp_path / "b") as (board, folder):
        (folder / "journal.tbj").write_bytes(data)
        (folder / "journal.tbj.old").write_bytes(b"tablebuzz-journal 1\n")
        lines = []
        copied = pull_module.pull(board, tmp_path / "out", log=lines.append)
    assert copied == ["journal.tbj", "journal.tbj.old"]
    assert (tmp_path / "out" / "journal.tbj").read_bytes() == data
    assert len(lines) == 2 and "journal.tbj" in lines[0]


def test_pull_without_a_board_is_one_line(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "tablebuzz.cli", "pull", "--port", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


# ------------------------------------------------------------------ the watchdog
def test_the_loop_feeds_the_watchdog_and_ctrl_c_stops_it():
    """refbox.boot.main on a board-like platform (no simulator hand-over): the watchdog starts
    at 8 s, each pass feeds it, and Ctrl-C ends main() with the watchdog off (so mpremote and
    `make flash` are never reset by it)."""
    from refbox import boot
    from refbox.board import start_watchdog, stop_watchdog
    from tablebuzz.sim import runner

    sim = runner.Simulation({"seed": "1"}, lambda t, line: None)
    sim.power_off()  # the simulator's own boot is set aside: this one runs as main.py on a board
    world = sim.world
    seen = []

    class BoardLike:  # refbox.boot.BoardPlatform's interface, on the simulated chip
        clock = world
        pinmap = sim.pinmap
        fs = None
        boot_game = None
        control_held = sim.control_held
        make_board = sim.make_board

        def start_watchdog(self):
            return start_watchdog(boot.WATCHDOG_MS)

        def stop_watchdog(self):
            stop_watchdog()

    def sleep_ms(ms):  # the loop's pause: a few passes later, Ctrl-C arrives on the console
        seen.append((world.watchdog_ms, world.watchdog_fed))
        world.run_until(world.now + ms * 1000000)
        if len(seen) == 3:
            sim.console.feed(b"\x03")

    world.sleep_ms = sleep_ms
    with pytest.raises(KeyboardInterrupt):
        boot.main(BoardLike())
    assert [ms for ms, _ in seen] == [8000, 8000, 8000]
    fed = [t for _, t in seen]
    assert fed == sorted(set(fed))  # fed on every pass
    assert world.watchdog_ms is None  # stopped on the way out to the REPL


def test_the_watchdog_timeout_is_within_the_rp2_limit():
    from refbox import boot
    from tablebuzz.sim.fakes import machine

    assert boot.WATCHDOG_MS <= 8388
    with pytest.raises(ValueError):
        machine.WDT(timeout=8389)


def test_tablebuzz_replay_takes_a_journal_too(tmp_path):
    game = played("difference")
    data = game.fs.files["journal.tbj"]
    (tmp_path / "journal.tbj").write_bytes(data)
    (tmp_path / "torn.tbj").write_bytes(data[:1500])

    def replay(name, *more):
        cmd = [sys.executable, "-m", "tablebuzz.cli", "replay", str(tmp_path / name)]
        return subprocess.run(cmd + list(more), capture_output=True, text=True)

    whole = replay("journal.tbj", "--json")
    assert whole.returncode == 0, whole.stderr
    assert whole.stdout.splitlines() == journal_events(data)  # --json: the lines, nothing else
    said = replay("journal.tbj")
    assert "from the journal" in said.stdout.splitlines()[0]
    torn = replay("torn.tbj")
    assert torn.returncode == 0 and "cut short" in torn.stderr
    (tmp_path / "v9.tbj").write_bytes(b"tablebuzz-journal 9\n")
    other = replay("v9.tbj")
    assert other.returncode != 0 and other.stderr.count("\n") == 1 and "version" in other.stderr
