"""Every view draws what the device says (issue 36): each example game is played on the
simulator (the firmware in this process), and at every `buttons` line (the board's safe moment,
sent after every change) the host's view (tablebuzz.views.table: what the scoreboard, the desk and
the TUI draw) and the OSC messages (tablebuzz.rooms.osc) so far are compared with the device's own
`state` at the moment it sent that line (Referee._state_fields, read as the line is emitted)."""

import json

import pytest
from helpers import example_header
from tablebuzz.link.connection import Item
from tablebuzz.paths import REPO
from tablebuzz.rooms import osc
from tablebuzz.sim import simulate
from tablebuzz.views.table import Table

EXAMPLES = sorted(p.name for p in (REPO / "examples").glob("*.jsonl"))
COLOURS = [(255, 0, 0), (0, 96, 255), (0, 200, 0), (255, 160, 0), (200, 0, 255),
           (0, 220, 200), (255, 255, 255), (128, 128, 128)]


def played_with_states(name):
    """[(line, the device's state fields when it emitted that line, or None)] for example
    `name`: a state is read for every `buttons` event (None in the menu)."""
    simulate._ensure_paths()
    from refbox import referee
    from tablebuzz.sim import runner

    head, records = example_header(REPO / "examples" / name)
    states = []
    emit = referee.Referee.emit

    def reading_emit(self, event, fields=()):
        if event == "buttons":
            fresh = self.game is not None and self.menu is None
            states.append(dict(self._state_fields()) if fresh else None)
        return emit(self, event, fields)

    lines = []
    referee.Referee.emit = reading_emit
    try:
        runner.Simulation(head, lambda ns, line: lines.append(line)).run(records)
    finally:
        referee.Referee.emit = emit
    out = []
    for line in lines:
        state = states.pop(0) if line.startswith('{"ev":"buttons"') else None
        out.append((line, state))
    assert not states, "every buttons event the referee emitted was sent"
    return out


def game_fields(game, state):
    """(what the view shows, what the device says) for the fields a page draws of `game`."""
    v = game["view"]
    shown = {"phase": game["phase"], "scores": game["scores"], "answering": game["answering"],
             "turn": game["turn"]}
    said = {k: state[k] for k in shown}
    name = game["name"]
    if name == "quiz":
        shown["teams"] = [t["score"] for t in v["teams"]] or None
        said["teams"] = state["teams"] if v["teams"] else None
        shown["sudden_death"] = v["sudden_death"]
        said["sudden_death"] = state["sudden_death"]
    elif name == "deglingo":
        shown.update(round=v["round"], active=v["active"], out=sorted(v["out"]))
        said.update(round=state["round"], active=state["active"], out=sorted(state["out"]))
    elif name == "redblack":
        shown.update(given=v["given"], received=v["received"])
        said.update(given=state["given"], received=state["received"])
    elif name == "diddly":
        shown["rounds"] = [[s for s in row if s is not None] for row in v["rounds"]]
        said["rounds"] = state["rounds"]
    elif name == "evidence":
        shown["tally"] = v["tally"]
        said["tally"] = state["tally"]
    return shown, said


class OscFold:
    """What an OSC listener knows from the messages so far (tablebuzz.rooms.osc.messages)."""

    def __init__(self):
        self.last = {}

    def take(self, ev):
        for address, args in osc.messages(ev):
            self.last[address] = args


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_view_shows_the_device_s_state_after_every_line(name):
    table = Table(COLOURS, clock=lambda: 0.0)
    listener = OscFold()
    compared = 0
    for n, (line, state) in enumerate(played_with_states(name)):
        try:
            ev = json.loads(line)
        except ValueError:
            continue  # the console's other output (a banner)
        table.apply(Item("event", line, ev))
        listener.take(ev)
        if state is None or state["phase"] == "over":
            continue
        game = table.view()["game"]
        shown, said = game_fields(game, state)
        where = "%s, line %d: %s" % (name, n, line[:100])
        assert shown == said, where
        assert listener.last.get("score") == state["scores"], where
        assert listener.last.get("phase", [None])[0] == state["phase"], where
        if game["name"] == "quiz" and game["view"]["teams"]:
            assert listener.last.get("teams") == state["teams"], where
        compared += 1
    assert compared >= 3
