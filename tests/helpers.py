"""Helpers for scripted simulator tests: timelines in, protocol events out."""

import json

from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse

CONTROLS = ["arm", "yes", "no", "undo"]


def timeline(*records):
    """JSON-lines text from dicts, in time order (stable: equal times keep their order), as a
    timeline must be."""
    ordered = sorted(records, key=lambda r: r.get("at_us", 0))
    return "\n".join(json.dumps(r) for r in ordered) + "\n"


def timeline_records(text):
    """The action lines of timeline `text` as dicts (`at_us` as written): comments and the set-up
    line left out, the inverse of `timeline`."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "setup" not in json.loads(line):
            out.append(json.loads(line))
    return out


def run_sim(text, players=6, seed="1", interpreter="cpython", **header):
    """[(ns, event dict)] for a timeline text."""
    head = {"seed": seed, "game": "quiz", "players": players, "options": {}}
    head.update(header)
    records = parse(text, players, CONTROLS)
    return [(ns, json.loads(line)) for ns, line in simulate.run(head, records, interpreter)]


def run_raw(text, players=6, seed="1", interpreter="cpython", **header):
    """[(ns, line)] exactly as the device wrote them."""
    head = {"seed": seed, "game": "quiz", "players": players, "options": {}}
    head.update(header)
    return simulate.run(head, parse(text, players, CONTROLS), interpreter)


def events(result, kind):
    return [ev for _, ev in result if ev["ev"] == kind]


def races(result):
    """Each race's `race` event, its `margin_ns` taken from the `margin` event that follows it
    when the runner-up pressed after the decision (docs/protocol.md: the race line's margin is
    null then)."""
    out = []
    for _, ev in result:
        if ev["ev"] == "race":
            out.append(dict(ev))
        elif ev["ev"] == "margin" and out and out[-1]["margin_ns"] is None:
            if ev["winner"] == out[-1]["winner"]:
                out[-1]["margin_ns"] = ev["margin_ns"]
    return out


class TimedScript:
    """A timeline written as a table plays: wait, then act. `records` are timeline dicts."""

    def __init__(self, start_us=0):
        self.records = []
        self.t = start_us

    def at(self, dt_us, **action):
        """Wait dt_us, then do `action` (a timeline action such as control="yes"), if any."""
        self.t += dt_us
        if action:
            rec = {"at_us": self.t}
            rec.update(action)
            self.records.append(rec)


def run_cli(args, stdin=None):
    """`tablebuzz sim ...` as a subprocess (the user's path): the events it printed, as dicts.
    Fails the test with the CLI's stderr if it exits non-zero."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "tablebuzz.cli", "sim"] + list(args),
        input=stdin,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


class PtyCable:
    """A USB cable made of a pseudo-terminal: the host opens `path` (a symlink to the pty's
    slave side, so that a replug on a new pty keeps the same name, as /dev/ttyACM0 does) and two
    threads relay bytes between the pty's master side and a board process's pipes.

    `unplug(partial=b"")` writes `partial` (half a line, say) to the host, then closes the master:
    the host's next read fails as it does when a USB cable is pulled. `plug()` lays a new pty
    under the same path. What the board writes while unplugged is lost, as on a real cable.
    """

    def __init__(self, proc, path):
        import threading

        self.proc = proc
        self.path = path
        self._lock = threading.Lock()
        self.master = None
        self._slave = None
        threading.Thread(target=self._board_to_host, daemon=True).start()
        self.plug()

    def plug(self):
        import os
        import threading

        master, slave = os.openpty()
        name = os.ttyname(slave)
        tmp = str(self.path) + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(name, tmp)
        os.replace(tmp, str(self.path))
        with self._lock:
            self.master, self._slave = master, slave
        self._relay = threading.Thread(target=self._host_to_board, args=(master,), daemon=True)
        self._relay.start()

    def unplug(self, partial=b""):
        import os

        with self._lock:
            master, slave = self.master, self._slave
            self.master = self._slave = None
        if master is None:
            return
        self._relay.join()  # no read may hold the master open: closing it must hang up
        if partial:
            import time

            os.write(master, partial)
            time.sleep(0.2)  # the half line reaches the host before the cable goes
        os.close(slave)  # the host side is now the only opener: closing master hangs it up
        os.close(master)

    def _board_to_host(self):
        import os

        out = self.proc.stdout.fileno()
        while True:
            try:
                data = os.read(out, 4096)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                master = self.master
                if master is not None:
                    try:
                        os.write(master, data)
                    except OSError:
                        pass  # unplugged meanwhile: lost, as on a cable

    def _host_to_board(self, master):
        import os
        import select

        while True:
            ready, _, _ = select.select([master], [], [], 0.05)
            if self.master != master:
                return  # unplugged
            if not ready:
                continue
            try:
                data = os.read(master, 4096)
            except OSError:
                return  # unplugged
            if not data:
                return
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (OSError, ValueError):
                return

    def close(self):
        self.unplug()
        self.proc.kill()
        self.proc.wait()


def unix_port_board(path, header):
    """A PtyCable to the firmware running in real time under the MicroPython unix port
    (tablebuzz.sim.serve), reachable at `path`. The process is killed after 60 s at most."""
    import json
    import subprocess
    import threading

    code = "from tablebuzz.sim.serve import main; main(%r)" % json.dumps(header)
    proc = subprocess.Popen(
        simulate.micropython_command(code), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env={"MICROPYPATH": ""},
    )
    watchdog = threading.Timer(60, proc.kill)
    watchdog.daemon = True
    watchdog.start()
    return PtyCable(proc, path)


_EXAMPLE_RUNS = {}


def example_header(path, players_default=6):
    """The simulation header and records for an example timeline, as `tablebuzz sim --script`
    builds them (set-up line; a flash when it cuts the power)."""
    from tablebuzz.sim.timeline import read_setup

    text = path.read_text()
    setup = read_setup(text) or {}
    players = setup.get("players", players_default)
    head = {"game": setup.get("game", "quiz"), "players": players}
    head["seed"] = setup.get("seed", "1")
    head["options"] = setup.get("options", {})
    if setup.get("display"):
        head["display"] = True
    records = parse(text, players, CONTROLS)
    if any(rec["k"] == "power" for rec in records):
        head["flash"] = {}
    return head, records


def example_run(path, board="micropython", interpreter="cpython"):
    """[(ns, line)] of an example on `board`'s module under `interpreter`, computed once per test
    session (several files compare the same runs)."""
    key = (str(path), board, interpreter)
    if key not in _EXAMPLE_RUNS:
        head, records = example_header(path)
        _EXAMPLE_RUNS[key] = simulate.run(dict(head, board=board), records, interpreter)
    return _EXAMPLE_RUNS[key]


def _circuitpython_mpy_cross():
    """CircuitPython 10.2.1's mpy-cross (tablebuzz.link.flash_cp.find_mpy_cross), or the
    FlashError saying why there is none here."""
    from tablebuzz.link import flash_cp

    try:
        return flash_cp.find_mpy_cross((10, 2, 1))
    except flash_cp.FlashError as e:
        return e


CP_MPY_CROSS = _circuitpython_mpy_cross()


def bare_referee(stations=6):
    """(a Referee with no board: a fixed entropy, no tones, no clock), [(event name, fields
    dict)] it emitted)."""
    from refbox.protocol import Encoded
    from refbox.referee import Referee

    out = []
    ref = Referee(
        stations,
        lambda name, fields: out.append(
            (name, {k: v.value if v.__class__ is Encoded else v for k, v in fields})
        ),
        lambda f, ms: None,
        lambda: bytes(16),
        lambda: (),
    )
    return ref, out
