"""Helpers for scripted simulator tests: timelines in, protocol events out."""

import json

from tablebuzz import simulate
from tablebuzz.timeline import parse

CONTROLS = ["arm", "yes", "no", "undo"]


def timeline(*records):
    """JSON-lines text from dicts, in time order (stable: equal times keep their order), as a
    timeline must be."""
    ordered = sorted(records, key=lambda r: r.get("at_us", 0))
    return "\n".join(json.dumps(r) for r in ordered) + "\n"


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
