"""The rooms at scale (issue 23, docs/rooms.md): N rooms publishing to a real Mosquitto, the
director's hub (`tablebuzz hub --mqtt`, a subprocess) folding them, a page's WebSocket reading it.

Each room is the host's real pipeline: the scoreboard's Table, the rooms' Publisher with its disk
spool and its own paho link, playing the events of `examples/quiz_tournament.jsonl` (118 lines,
8.2 s of play) as the simulator made them (the firmware in the simulator is run once, here, and
its lines are replayed by every room at `SPEED` times their pace: N live simulators would measure
the simulator, not the rooms).

Prints:
1. with 16 rooms: events/s and messages/s through the broker; the director's update latency,
   p50/p99: from the moment a room made a view (after folding an event) to the hub's WebSocket
   message carrying it reaching a page's socket (the broker, the hub's fold, its 50 ms push
   coalescing; the page's redraw is bench_scoreboard's); memory per room, in the rooms' process
   and in the hub (RSS growth / rooms);
2. with 100 rooms and the broker restarted in the middle (SIGTERM, away 2 s, started again with
   its persistence): events lost and events counted twice at the hub (targets 0 and 0), and the
   messages the broker delivered twice that the hub recognised and dropped.
Targets: 16 rooms ≤ 500 ms p99; 100 rooms 0 loss 0 duplicates. Needs Debian's mosquitto
(make mosquitto). About 60 s on the machine in bench/README.md.
"""

import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from brokers import Mosquitto, hub  # noqa: E402
from tablebuzz import cli  # noqa: E402
from tablebuzz.link.connection import RecordConnection, SimConnection  # noqa: E402
from tablebuzz.rooms.broker import BrokerConfig  # noqa: E402
from tablebuzz.rooms.publisher import Publisher, Tee  # noqa: E402
from tablebuzz.rooms.spool import Spool  # noqa: E402
from tablebuzz.sim import simulate  # noqa: E402
from tablebuzz.views.table import Table  # noqa: E402

SCRIPT = REPO / "examples" / "quiz_tournament.jsonl"
SPEED = 2.0


def game_lines():
    """[(s, line)]: the simulator's events for SCRIPT, on its simulated clock."""
    args = cli.build_parser().parse_args(["show", "--sim", "--script", str(SCRIPT)])
    header, text, _ = cli.simulation_setup(args, False)
    records = cli.timeline_records(args, text, header["players"])
    clock = [0.0]
    conn = SimConnection(header, records, clock=lambda: clock[0])
    conn.start()
    out = []
    while clock[0] < 30:
        clock[0] += 0.1
        out += [(i.ns / 1e9, i.text) for i in conn.poll() if i.kind == "event"]
    return out


def rss_kb(pid="self"):
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Room:
    def __init__(self, name, lines, config, folder, colours):
        self.conn = RecordConnection(lines, speed=SPEED)
        self.table = Table(colours, source={"kind": "replay", "label": name,
                                            "status": "simulator running", "connected": True})
        self.publisher = Publisher(config, name, Spool(folder / ("%s.jsonl" % name)),
                                   say=lambda text: None)
        self.tee = Tee(None, self.table, [self.publisher])
        self.events = 0

    def start(self):
        self.publisher.start()
        self.conn.start()

    def poll(self):
        for item in self.conn.poll():
            self.table.apply(item)
            self.tee.item(item)
            self.events += item.kind == "event"


def run_rooms(n, lines, broker, h, folder, colours, restart_at=None):
    """Play n rooms to the end; returns (wall s, rooms, latencies ms, hub RSS growth kB, our
    RSS growth kB)."""
    from websockets.sync.client import connect

    config = BrokerConfig("127.0.0.1", broker.port)
    latencies = []
    seen_wall = {}
    stop = threading.Event()
    ws = connect("ws://127.0.0.1:%d/ws" % h.port, max_size=None)

    def read():
        while not stop.is_set():
            try:
                text = ws.recv(timeout=0.2)
            except TimeoutError:
                continue
            except Exception:  # noqa: BLE001 - closed at the end
                return
            now = time.time()
            for r in json.loads(text).get("rooms", []):
                wall = r.get("view_wall")
                if wall and seen_wall.get(r["room"]) != wall:
                    seen_wall[r["room"]] = wall
                    latencies.append((now - wall) * 1000)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    hub_before = rss_kb(h.proc.pid)
    our_before = rss_kb()
    rooms = [Room("r%03d" % i, lines, config, folder, colours) for i in range(n)]
    for r in rooms:
        r.start()
    t0 = time.monotonic()
    restarted = False
    while not all(r.conn.done for r in rooms):
        for r in rooms:
            r.poll()
        if restart_at is not None and not restarted and time.monotonic() - t0 > restart_at:
            restarted = True
            threading.Thread(target=broker.restart, kwargs={"away_s": 2.0}).start()
        time.sleep(0.005)
    for r in rooms:
        r.poll()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(r.publisher.flushed() for r in rooms):
        time.sleep(0.05)
    wall = time.monotonic() - t0
    time.sleep(0.5)  # the hub's last pushes
    grown_hub = rss_kb(h.proc.pid) - hub_before
    grown_ours = rss_kb() - our_before
    stop.set()
    ws.close()
    reader.join(2)
    for r in rooms:
        r.publisher.close()
    return wall, rooms, latencies, grown_hub, grown_ours


def settled(h, expected, quiet_s=5.0):
    """The hub's rooms once it has `expected` events or has not moved for `quiet_s`; and the
    seconds that took."""
    t0 = time.monotonic()
    last, moved = None, time.monotonic()
    while True:
        got = {r["room"]: r for r in h.get_json("/rooms.json")["rooms"]}
        total = sum(r["events"] for r in got.values())
        if total >= expected or time.monotonic() - moved > quiet_s:
            return got, time.monotonic() - t0
        if total != last:
            last, moved = total, time.monotonic()
        time.sleep(0.2)


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    simulate._ensure_paths()
    from refbox import pinmap

    lines = game_lines()
    print("rooms bench: each room plays %s (%d events, %.1f s of play) at %gx"
          % (SCRIPT.name, len(lines), lines[-1][0], SPEED))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for n, restart_at in ((16, None), (100, 2.0)):
            broker = Mosquitto(tmp / ("mosquitto-%d" % n))
            h = hub(broker_port=broker.port)
            try:
                time.sleep(0.5)
                wall, rooms, lat, grown_hub, grown_ours = run_rooms(
                    n, lines, broker, h, tmp / ("spool-%d" % n), pinmap.PLAYER_COLOURS,
                    restart_at)
                expected = sum(r.events for r in rooms)
                got, settle = settled(h, expected)
            finally:
                err = h.stop()
                broker.stop()
            if "Traceback" in err:
                print(err)
                return 1
            events = sum(r.events for r in rooms)
            published = sum(r.publisher.stats["published"] for r in rooms)
            lost = sum(max(0, r.events - got.get(r.publisher.room, {}).get("events", 0))
                       for r in rooms)
            twice = sum(max(0, got.get(r.publisher.room, {}).get("events", 0) - r.events)
                        for r in rooms)
            finished = sum(got.get(r.publisher.room, {}).get("games_finished", 0) for r in rooms)
            redelivered = sum(g.get("duplicates", 0) for g in got.values())
            missing = sum(g.get("missing", 0) for g in got.values())
            print("== %d rooms%s" % (n, ", broker restarted at %g s (away 2 s)" % restart_at
                                     if restart_at is not None else ""))
            print("  events/s through the broker: %.0f (%d events in %.1f s; %.0f spooled "
                  "messages/s incl. records; views on top)" % (events / wall, events, wall,
                                                                published / wall))
            if lat:
                print("  director update latency: p50 %.0f ms, p99 %.0f ms, max %.0f ms "
                      "(%d updates)" % (statistics.median(lat), pct(lat, 99), max(lat),
                                        len(lat)))
            print("  the hub had everything %.1f s after the last room's last PUBACK" % settle)
            print("  memory per room: %.0f kB in the rooms' process, %.0f kB in the hub"
                  % (grown_ours / n, grown_hub / n))
            print("  at the hub: %d of %d events lost, %d counted twice, %d missing seqs, "
                  "%d/%d games' records; %d messages delivered twice by the broker and "
                  "dropped by the hub" % (lost, events, twice, missing, finished, n,
                                          redelivered))
    return 0


if __name__ == "__main__":
    sys.exit(main())
