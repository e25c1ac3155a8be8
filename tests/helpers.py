"""Helpers for scripted simulator tests: timelines in, protocol events out."""

import json

from tablebuzz import simulate
from tablebuzz.timeline import parse

CONTROLS = ["arm", "yes", "no", "undo"]


def timeline(*records):
    """JSON-lines text from dicts."""
    return "\n".join(json.dumps(r) for r in records) + "\n"


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
