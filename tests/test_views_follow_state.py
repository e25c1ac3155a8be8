"""Every view draws what the device says (issue 36): each example game is played on the
simulator (the firmware in this process), and at every `buttons` line (the board's safe moment,
sent after every change) and every `armed` line the host's view (tablebuzz.views.table: what the
scoreboard, the desk and the TUI draw), the OSC messages (tablebuzz.rooms.osc) so far, the
director's room (the hub's summary of the room's published view: /rooms.json, the director's
page), the overlay's data (overlay.html's own code in Chromium, from a show's view and from the
hub's summary) and the CSV row of the record written so far (`tablebuzz export`) are compared with
the device's own `state` and `doing` at the moment it sent that line (Referee._state_fields and
Referee.doing, read as the line is emitted)."""

import json
import re

import pytest
from helpers import example_header
from tablebuzz.link.connection import Item
from tablebuzz.paths import REPO
from tablebuzz.rooms import osc
from tablebuzz.sim import simulate
from tablebuzz.views.table import Table
from test_show import browser  # noqa: F401 - the module's Chromium

EXAMPLES = sorted(p.name for p in (REPO / "examples").glob("*.jsonl"))
COLOURS = [(255, 0, 0), (0, 96, 255), (0, 200, 0), (255, 160, 0), (200, 0, 255),
           (0, 220, 200), (255, 255, 255), (128, 128, 128)]


def played_with_states(name):
    """[(line, the device's state fields when it emitted that line, or None)] for example
    `name`: a state is read for every `buttons` event (None in the menu); an `armed` line's
    state is {"doing": what the device said was happening as it opened the race}."""
    simulate._ensure_paths()
    from refbox import referee
    from tablebuzz.sim import runner

    head, records = example_header(REPO / "examples" / name)
    states = []
    emit = referee.Referee.emit

    def reading_emit(self, event, fields=()):
        if event == "buttons":
            fresh = self.game is not None and self.menu is None
            states.append(dict(self._state_fields(), doing=self.doing()) if fresh else None)
        elif event == "armed":
            states.append({"doing": self.doing()})
        return emit(self, event, fields)

    lines = []
    referee.Referee.emit = reading_emit
    try:
        runner.Simulation(head, lambda ns, line: lines.append(line)).run(records)
    finally:
        referee.Referee.emit = emit
    out = []
    for line in lines:
        said = line.startswith(('{"ev":"buttons"', '{"ev":"armed"'))
        state = states.pop(0) if said else None
        out.append((line, state))
    assert not states, "every buttons event the referee emitted was sent"
    return out


def board_words(text, game):
    """The view's `doing` as the board wrote it: without the names the view adds after player and
    team numbers and with cards as the wire writes them ("6♠" -> "6S")."""
    if text is None or game is None:
        return text
    for number, name in (game.get("names") or {}).items():
        text = text.replace("P%s %s" % (number, name), "P" + number)
    for team in (game["view"] or {}).get("teams") or []:
        if team.get("name"):
            text = text.replace(team["name"], "team %d" % team["team"])
    suits = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
    return re.sub("([♠♥♦♣])", lambda m: suits[m.group(1)], text)


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
        if state is None:
            continue
        where = "%s, line %d: %s" % (name, n, line[:100])
        view = table.view()  # the room's "what is happening", during a race too
        doing = board_words(view["doing"], view["game"])
        assert doing == (state["doing"] or None), where
        if "phase" not in state or state["phase"] == "over":
            continue
        game = table.view()["game"]
        shown, said = game_fields(game, state)
        assert shown == said, where
        assert listener.last.get("score") == state["scores"], where
        assert listener.last.get("phase", [None])[0] == state["phase"], where
        if game["name"] == "quiz" and game["view"]["teams"]:
            assert listener.last.get("teams") == state["teams"], where
        compared += 1
    assert compared >= 3


# ------------------------------------------------------------- the director, the overlay, the CSV
ROOM = "hall"


def room_views(name, folder):
    """Example `name` played into a show's own pieces, a view published to a hub after every
    line: [(line, state, the director's room (tablebuzz.rooms.state.summary, what /rooms.json and
    the director's page carry), the room's view (what /overlay draws), the CSV row of the record
    written so far (tablebuzz.records.store.summary, what `tablebuzz export` writes))] at every
    line the device's state was read for (its `buttons` and `armed` lines)."""
    from tablebuzz.records.store import Recorder
    from tablebuzz.records.store import summary as csv_row
    from tablebuzz.rooms import topics
    from tablebuzz.rooms.state import HubState

    table = Table(COLOURS, clock=lambda: 0.0)
    recorder = Recorder(folder, "sim")
    hub = HubState(COLOURS)
    out = []
    for seq, (line, state) in enumerate(played_with_states(name), 1):
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        item = Item("event", line, ev, wall=1.0e9)
        table.apply(item)
        recorder.item(item)
        view = table.view()
        payload = topics.dumps({"room": ROOM, "run": "r1", "at": "2026-12-05T21:00:00",
                                "wall": 1.0e9, "seq": seq, "view": view})
        assert hub.apply(topics.topic(ROOM, "view"), payload.encode(), 1.0e9) is not None
        if state is None or "phase" not in state:
            continue
        (room,) = hub.rooms()
        row = csv_row(recorder.path) if recorder.path is not None else None
        out.append((line, state, room, view, row))
    recorder.close()
    return out


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_director_and_the_csv_show_the_device_s_state_after_every_line(name, tmp_path):
    compared = 0
    for line, state, room, view, row in room_views(name, tmp_path):
        where = "%s: %s" % (name, line[:100])
        if state["phase"] == "over":
            continue
        assert room["phase"] == state["phase"], where
        assert [p["score"] for p in room["players"]] == state["scores"], where
        assert (room["floor"] or {}).get("player") == state["answering"], where
        assert board_words(room.get("doing"), view["game"]) == (state["doing"] or None), where
        assert room["armed"] == (state["phase"] == "racing"), where
        if state.get("teams") is not None:
            assert [t["score"] for t in room["teams"]] == state["teams"], where
        assert row is not None and row["abandoned"] == "unfinished", where
        assert row["scores"] == " ".join(str(s) for s in state["scores"]), where
        if state.get("teams") is not None:
            assert row["team_scores"] == " ".join(str(s) for s in state["teams"]), where
        compared += 1
    assert compared >= 3


# the overlay's own code (overlay.html's fromView and fromSummary) on every view, in Chromium
OVERLAY_DATA = """([views, rooms]) => [views.map(fromView), rooms.map(fromSummary)].map(
  (all) => all.map((s) => s && { armed: s.armed, status: s.status, alarm: s.alarm,
    teams: s.teams.map((t) => t.score), locked: s.locked,
    winner: s.race ? s.race.winner : null }))"""


def test_the_overlay_shows_the_device_s_state_after_every_line(browser, tmp_path):  # noqa: F811
    page = browser.new_page()
    try:
        # the page's own script, its link to a server left out (no server here)
        page.goto((REPO / "host" / "tablebuzz" / "views" / "show" / "static" /
                   "overlay.html").as_uri())
        compared = 0
        for name in EXAMPLES:
            played = [x for x in room_views(name, tmp_path / name) if x[1]["phase"] != "over"]
            views = [view for _, _, _, view, _ in played]
            rooms = [room for _, _, room, _, _ in played]
            shown, summed = page.evaluate(OVERLAY_DATA, [views, rooms])
            for (line, state, _, view, _), data, hubbed in zip(played, shown, summed,
                                                               strict=True):
                where = "%s: %s" % (name, line[:100])
                for d in (data, hubbed):
                    assert d["armed"] == (state["phase"] == "racing"), where
                    if state.get("teams") is not None:
                        assert d["teams"] == state["teams"], where
                    if not d["alarm"]:  # else time's up, a dead question: the board's words
                        words = board_words(d["status"] or None, view["game"])
                        assert words == (state["doing"] or None), where
                locked = [(int(text.split()[0][1:]), text.rsplit("(", 1)[1].rstrip(")"))
                          for text in data["locked"]]  # "P3 Ann (false start)"
                early = sorted(p for p, why in locked if why != "wrong")
                assert early == state["locked"], where  # the device's false-start lockouts
                wrong = {p for p, why in locked if why == "wrong"}  # judged wrong: out of
                assert not wrong & set(state["eligible"]), where  # this race (not eligible)
                if state["game"] == "deglingo":
                    assert wrong == set(state["out"]), where  # out of the round
                compared += 1
        assert compared >= 100
    finally:
        page.close()
