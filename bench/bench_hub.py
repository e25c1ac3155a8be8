"""The rooms at scale (issues 23 and 35, docs/rooms.md): real rooms playing the real firmware in
the simulator, publishing to a real Mosquitto; the director's hub (`tablebuzz hub --mqtt`, a
subprocess) folding them; a WebSocket client standing for the director's page.

1. 16 rooms, each a real `tablebuzz show --sim --script examples/quiz_tournament.jsonl --mqtt
   ... --room rNN` process (the simulator's firmware, the scoreboard's loop, the records' Tee,
   the Publisher with its spool and paho link, the web server), at the script's own pace
   (8.2 s of play).
2. 100 rooms across a SIGKILL of the broker and then of the hub (each started again: Mosquitto on
   its persistence, the hub on its store). 100 `show` processes do not fit on the 2-core machine
   beside anything else (each imports the host and the firmware and serves the web), so these
   rooms are lighter: 4 runners (`python bench/bench_hub.py --runner ...`) import once and fork
   25 rooms each; a room is built exactly as `tablebuzz show --sim --mqtt` builds it (the same
   argument parser, tablebuzz.show_command.sim_link with its own firmware in the simulator, the
   rooms' sinks and Tee, and the show's own loop, tablebuzz.views.show.server.Hub), without the
   HTTP server. One firmware a process: the simulated board's modules are the process's own.
   A room costs ~5 % of a core at the script's pace (the simulated firmware, measured with
   `time` on one `show --sim`), so these play at a fifth of it (41 s a game), and their show
   loops and broker links poll every 50 ms instead of 5 and 10 (which adds up to 50 ms to
   their latency): both kills fall in the middle of every game.

Compared by content, not by counters: the simulator's own lines for the script (`tablebuzz sim
--script`, the same firmware, made once here) against each room's record as the hub exports it
(`/export.jsonl`), line for line: a line missing is *lost*, a line there more often than played is
*duplicated*; a room with no record in the export lost its whole game. The hub accepts a record
only when it agrees with the events it received, so this compares the events too.

Latency: for each room's view, from the moment the room made it (the view message's `wall`, the
room's time.time()) to the hub's WebSocket message carrying it reaching the page's socket (the
Publisher, the broker, the hub's checks, fold and store, its 50 ms push coalescing; the page's
redraw is bench_scoreboard's). All processes share one clock (one machine).

Targets: 16 rooms p99 <= 500 ms; both parts 0 lost, 0 duplicated. Needs Debian's mosquitto
(make mosquitto). Prints its figures; about 2 minutes.
"""

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from brokers import TABLEBUZZ, Mosquitto, Tablebuzz, hub, room, wait_for  # noqa: E402

SCRIPT = REPO / "examples" / "quiz_tournament.jsonl"
SPEED_100 = 0.2  # the 100 rooms' pace: a room at full speed costs ~5 % of a core
POLL_S = 0.05  # the 100 rooms' show loop and broker link poll every 50 ms (the show's own:
# 5 ms and 10 ms): 2.3 % of a core a room at 20 ms, measured with ps, is too much for 100


def expected_lines():
    """The simulator's protocol lines for SCRIPT: hello, then the game up to game_over."""
    out = subprocess.run([str(TABLEBUZZ), "sim", "--script", str(SCRIPT)], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    return out


class Director:
    """A page's WebSocket on the hub (reconnecting to `url()` when the hub is away): latencies
    (ms) of every room view it sees for the first time."""

    def __init__(self, url):
        self.url = url
        self.latencies = []
        self.seen = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        from websockets.sync.client import connect

        while not self.stop.is_set():
            try:
                with connect(self.url().replace("http", "ws") + "/ws", max_size=None,
                             open_timeout=2) as ws:
                    while not self.stop.is_set():
                        try:
                            text = ws.recv(timeout=0.2)
                        except TimeoutError:
                            continue
                        now = time.time()
                        for r in json.loads(text).get("rooms", []):
                            wall = r.get("view_wall")
                            if wall and self.seen.get(r["room"]) != wall:
                                self.seen[r["room"]] = wall
                                self.latencies.append((now - wall) * 1000)
            except Exception:  # noqa: BLE001 - the hub is away: try again
                time.sleep(0.2)

    def close(self):
        self.stop.set()
        self.thread.join(3)


def compare(h, names, expected):
    """(lost, duplicated, repeats the hub dropped, rooms without a record): each room's exported
    record against the simulator's lines, line for line."""
    over = next(i for i, line in enumerate(expected) if '"ev":"game_over"' in line)
    game = expected[1:over + 1]
    records = {}
    for text in h.get_text("/export.jsonl").splitlines():
        g = json.loads(text)
        records.setdefault(g["room"], []).append([o["line"] for o in g["lines"] if "line" in o])
    lost = duplicated = 0
    missing_rooms = []
    for name in names:
        got = [line for rec in records.get(name, []) for line in rec]
        if name not in records:
            missing_rooms.append(name)
        elif got != game and not compare.said:
            compare.said = True  # the first room that differs, for the reader
            import difflib

            print("\n".join(list(difflib.unified_diff(game, got, "played", "exported of " + name,
                                                     lineterm=""))[:30]), file=sys.stderr)
        for line in set(game) | set(got):
            diff = got.count(line) - game.count(line)
            lost += max(0, -diff)
            duplicated += max(0, diff)
    repeats = sum(r["duplicates"] for r in h.get_json("/rooms.json")["rooms"])
    return lost, duplicated, repeats, missing_rooms


compare.said = False


def pct(values, q):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def events_over(h, count):
    """True when the hub holds more than `count` events (said on stderr as it goes)."""
    got = sum(r["events"] for r in h.get_json("/rooms.json")["rooms"])
    print("\r  the hub holds %d events" % got, end="", file=sys.stderr)
    return got > count


def all_finished(h, names):
    rooms = {r["room"]: r for r in h.get_json("/rooms.json")["rooms"]}
    return all(rooms.get(n, {}).get("games_finished") == 1 for n in names)


def part_one(folder, expected, n=16):
    broker = Mosquitto(folder / "mosquitto")
    h = hub(broker_port=broker.port, args=["--store", folder / "hub.sqlite3"])
    director = Director(lambda: h.url)
    names = ["r%02d" % i for i in range(n)]
    rooms = []
    try:
        t0 = time.monotonic()
        for name in names:
            rooms.append(room(name, broker.port, folder / (name + ".jsonl"), "--script", SCRIPT))
        wait_for(lambda: all_finished(h, names), timeout=120, step=0.5)
        wall = time.monotonic() - t0
        time.sleep(1.0)
        lost, duplicated, repeats, missing = compare(h, names, expected)
    finally:
        director.close()
        for r in rooms:
            r.stop()
        h.stop()
        broker.stop()
    return {"rooms": n, "wall_s": wall, "views": len(director.latencies),
            "p50": pct(director.latencies, 50), "p99": pct(director.latencies, 99),
            "lost": lost, "duplicated": duplicated, "repeats": repeats, "no_record": missing}


def part_two(folder, expected, n=100, runners=4, speed=SPEED_100):
    broker = Mosquitto(folder / "mosquitto")
    store = folder / "hub.sqlite3"
    hubs = [hub(broker_port=broker.port, args=["--store", store])]
    director = Director(lambda: hubs[-1].url)
    names = ["r%03d" % i for i in range(n)]
    per = n // runners
    procs = []
    try:
        t0 = time.monotonic()
        for k in range(runners):
            procs.append(subprocess.Popen(
                [sys.executable, __file__, "--runner", str(broker.port), str(folder),
                 str(speed)] + names[k * per:(k + 1) * per],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        wait_for(lambda: events_over(hubs[-1], n * 20), timeout=300, step=0.5)
        kills = {"broker_killed_at_s": time.monotonic() - t0}
        broker.proc.kill()  # SIGKILL: no save of its persistence
        broker.proc.wait()
        time.sleep(1.0)
        broker.start()
        wait_for(lambda: events_over(hubs[-1], n * 50), timeout=300, step=0.5)
        kills["hub_killed_at_s"] = time.monotonic() - t0
        hubs[-1].proc.kill()  # SIGKILL
        hubs[-1].proc.wait()
        time.sleep(1.0)
        again = Tablebuzz(["hub", "--mqtt", "127.0.0.1:%d" % broker.port, "--store", store])
        hubs.append(again)
        wait_for(lambda: all_finished(again, names), timeout=600, step=0.5)
        wall = time.monotonic() - t0
        time.sleep(2.0)
        lost, duplicated, repeats, missing = compare(again, names, expected)
    finally:
        director.close()
        for p in procs:
            p.terminate()
        errors = []
        for p in procs:
            try:
                errors.append(p.communicate(timeout=60)[1])
            except subprocess.TimeoutExpired:
                p.kill()
                errors.append(p.communicate()[1])
        for h in hubs:
            if h.proc.poll() is None:
                h.stop()
        broker.stop()
    tracebacks = sum("Traceback" in e for e in errors)
    return {"rooms": n, "wall_s": wall, "views": len(director.latencies),
            "p50": pct(director.latencies, 50), "p99": pct(director.latencies, 99),
            "lost": lost, "duplicated": duplicated, "repeats": repeats, "no_record": missing,
            "runner_tracebacks": tracebacks, **kills}


# ------------------------------------------------------------------------------ the runner
def runner(port, folder, speed, names):
    """Rooms built as `tablebuzz show --sim --mqtt` builds them (see the module doc), one forked
    process each: the firmware's simulated board (its fake `machine`, its clock) is one per
    process, and a fork after the imports starts a room without paying for them again. Each
    plays until its game is over and the hub holds all of it (or 300 s)."""
    import os

    from refbox import pinmap
    from tablebuzz import cli
    from tablebuzz.rooms.command import show_sinks
    from tablebuzz.rooms.publisher import Tee
    from tablebuzz.show_command import sim_link
    from tablebuzz.views.show.server import Hub
    from tablebuzz.views.table import Table

    async def one(name):
        args = cli.build_parser().parse_args([
            "show", "--sim", "--script", str(SCRIPT), "--speed", str(speed), "--no-records",
            "--mqtt", "127.0.0.1:%d" % port, "--room", name,
            "--spool", str(Path(folder) / (name + ".jsonl"))])
        link, _ = sim_link(args)
        table = Table(pinmap.PLAYER_COLOURS, source={
            "kind": "simulator", "label": "simulator", "status": "simulator running"})
        sinks, _ = show_sinks(args, "simulator")
        (publisher,) = sinks
        publisher.say = lambda text: None
        publisher.names({}, table)
        show = Hub(link, table, Tee(None, table, sinks), simulator=True,
                   stations=pinmap.PLAYER_COUNT)
        await show.start()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            if table.game is not None and table.game.get("over") is not None and \
                    publisher.flushed():
                break
        await show.stop()
        publisher.close()

    from tablebuzz.sim import simulate

    simulate._ensure_paths("micropython")  # the simulator's modules, once, before the forks
    import signal

    from tablebuzz.rooms import publisher as publisher_module
    from tablebuzz.sim import runner as _sim_runner  # noqa: F401
    from tablebuzz.views.show import server

    server.POLL_S = POLL_S  # the show's loop and the room's link, polled less often (POLL_S)
    publisher_module.LOOP_S = POLL_S
    children = []

    def stop(signum, frame):
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        os._exit(1)

    signal.signal(signal.SIGTERM, stop)
    for name in names:
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            code = 0
            try:
                asyncio.run(one(name))
            except BaseException:  # noqa: BLE001 - said on stderr, counted by the bench
                import traceback

                traceback.print_exc()
                code = 1
            finally:
                sys.stderr.flush()
                os._exit(code)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runner", nargs="+", metavar="ARG", help=argparse.SUPPRESS)
    parser.add_argument("--part", choices=("1", "2", "both"), default="both")
    parser.add_argument("--rooms", type=int, nargs=2, default=(16, 100), metavar=("N1", "N2"),
                        help="rooms in each part (16 and 100)")
    args = parser.parse_args()
    if args.runner:
        port, folder, speed, *names = args.runner
        runner(int(port), folder, float(speed), names)
        return
    expected = expected_lines()
    print("script: %s, %d protocol lines (hello to game_over)" % (SCRIPT.name, len(expected)))
    with tempfile.TemporaryDirectory(prefix="bench-hub-") as tmp:
        if args.part in ("1", "both"):
            (Path(tmp) / "one").mkdir()
            r = part_one(Path(tmp) / "one", expected, args.rooms[0])
            print("%d rooms (tablebuzz show --sim processes): %.1f s, %d views; director "
                  "latency p50 %.0f ms, p99 %.0f ms (target <= 500); lost %d, duplicated %d "
                  "(targets 0, 0); repeats the hub dropped %d; rooms without a record: %s" % (
                      r["rooms"], r["wall_s"], r["views"], r["p50"], r["p99"], r["lost"],
                      r["duplicated"], r["repeats"], r["no_record"] or "none"))
        if args.part in ("2", "both"):
            (Path(tmp) / "two").mkdir()
            r = part_two(Path(tmp) / "two", expected, args.rooms[1])
            print("%d rooms (4 runners, speed 0.2), broker SIGKILLed at %.1f s, hub "
                  "SIGKILLed at %.1f s: %.1f s, %d views; director latency p50 %.0f ms, p99 "
                  "%.0f ms; lost %d, duplicated %d (targets 0, 0); repeats the hub dropped %d; "
                  "rooms without a record: %s; runner tracebacks %d" % (
                      r["rooms"], r["broker_killed_at_s"], r["hub_killed_at_s"], r["wall_s"],
                      r["views"], r["p50"], r["p99"], r["lost"], r["duplicated"], r["repeats"],
                      r["no_record"] or "none", r["runner_tracebacks"]))


if __name__ == "__main__":
    main()
