"""`tablebuzz show --osc HOST:PORT`: the show's own OSC messages (docs/rooms.md "OSC").

Open Sound Control 1.0 over UDP (python-osc's `SimpleUDPClient`): QLab listens on 53000, as do
TouchOSC and many lighting desks. A sink of the scoreboard's Tee (tablebuzz.rooms.publisher):
each protocol event the device sent becomes at most one message under `/tablebuzz/<room>/`;
UDP never blocks the room (a listener that is not there loses the message, as OSC does).

| address | arguments |
|---|---|
| `armed` | the players who may race (int...) |
| `race` | winner (int), margin in ms (float; -1.0: nobody else pressed yet), tie (0/1) |
| `margin` | winner (int), margin in ms (float): the runner-up pressed after the decision |
| `judge` | player (int), correct (0/1) |
| `score` | the scores, P1 first (int...) |
| `timer` | the timer's name (str: `buzz`, `answer`), its length in ms (int) |
| `game_over` | the winner (int; 0 for an abandoned game), the scores in player order (int...) |
| `phase` | the board's phase (str: `ready`, `racing`, ...), what is happening (str) |
| `teams` | the team totals, team 1 first (int...) |
| `team_over` | the winning team (int), the team totals in team order (int...) |
| `lockout` | player (int), reason (str: `false_start`, `wrong`), ms (int; -1: no end) |
| `unlock` | player (int) |
| `dead` | question (int), reason (str: `cancel`, `wrong`, `time`) |
| `bonus` | controlling team (int), parts (int), a part's points (int) |
| `part` | part (int), team credited (int; 0: missed), points (int) |
| `bonus_scored` | controlling team (int), each part's points (int...) |
| `time_up` | timer (str: `answer`, `bonus`, `buzz`), player (int; 0: none) |
| `overtime` | extra tossups (int), the tied players (int...) |
| `sudden_death` | the players in it (int...) |
Margins come from the device's `margin_ns` (docs/protocol.md `race`, `margin`); every other
argument is a field of the device's event of the same name (`phase`: its `buttons` event, whose
prompts stay off OSC: they may hold a number entered in secret), never worked out here.
"""

from tablebuzz.address import parse_http

PREFIX = "/tablebuzz"


def parse_osc(text):
    """(host, port) from `--osc HOST:PORT`. Raises ValueError."""
    try:
        return parse_http(text)
    except ValueError:
        raise ValueError("--osc wants HOST:PORT, e.g. 127.0.0.1:53000 (got %r)" % text) from None


def _ms(ns):
    return -1.0 if ns is None else ns / 1e6


def messages(ev):
    """[(address tail, [arguments])] for one protocol event (see the module doc)."""
    kind = ev.get("ev")
    if kind == "armed":
        return [("armed", [int(p) for p in ev.get("players") or []])]
    if kind == "race":
        return [("race", [int(ev["winner"]), _ms(ev.get("margin_ns")),
                          1 if ev.get("tie") else 0])]
    if kind == "margin":
        return [("margin", [int(ev["winner"]), _ms(ev.get("margin_ns"))])]
    if kind == "judge":
        return [("judge", [int(ev["player"]), 1 if ev.get("correct") else 0])]
    if kind == "score":
        out = [("score", [int(s) for s in ev.get("scores") or []])]
        if ev.get("teams"):  # the quiz's team totals, as the device adds them up
            out.append(("teams", [int(t) for t in ev["teams"]]))
        return out
    if kind == "timer":
        return [("timer", [str(ev.get("timer")), int(ev.get("ms") or 0)])]
    if kind == "buttons" and isinstance(ev.get("phase"), str):
        return [("phase", [ev["phase"], str(ev.get("doing") or "")])]
    if kind == "team_ranking":
        ranking = ev.get("ranking") or []
        totals = [int(r["score"]) for r in sorted(ranking, key=lambda r: r["team"])]
        return [("team_over", [int(ranking[0]["team"]) if ranking else 0] + totals)]
    if kind in ("lockout", "unlock", "dead", "bonus", "part", "bonus_scored", "time_up",
                "overtime", "sudden_death"):
        return [(kind, _quiz_args(kind, ev))]
    if kind == "game_over":
        ranking = ev.get("ranking") or []
        winner = 0 if ev.get("abandoned") or not ranking else int(ranking[0]["player"])
        scores = [int(r["score"]) for r in sorted(ranking, key=lambda r: r["player"])]
        return [("game_over", [winner] + scores)]
    return []


class OscSender:
    """A Tee sink sending `messages(event)` to host:port for room `room`."""

    def __init__(self, host, port, room="room"):
        from pythonosc.udp_client import SimpleUDPClient

        self.client = SimpleUDPClient(host, port)
        self.base = "%s/%s/" % (PREFIX, room)
        self.sent = 0

    def item(self, item, table):
        if item.kind != "event":
            return
        for tail, args in messages(item.event):
            try:
                self.client.send_message(self.base + tail, args)
                self.sent += 1
            except OSError:
                pass  # UDP: a listener that is not there (ICMP refused) loses it, as OSC does

    def names(self, names, table):
        pass

    def close(self):
        self.client._sock.close()


def _quiz_args(kind, ev):
    """The arguments of a lockout, a dead question, a bonus, a time's up... (the module doc)."""
    if kind == "lockout":
        ms = ev.get("ms")
        return [int(ev["player"]), str(ev.get("reason")), -1 if ms is None else int(ms)]
    if kind == "unlock":
        return [int(ev["player"])]
    if kind == "dead":
        return [int(ev.get("question") or 0), str(ev.get("reason"))]
    if kind == "bonus":
        return [int(ev["team"]), int(ev["parts"]), int(ev["points"])]
    if kind == "part":
        return [int(ev["part"]), int(ev.get("team") or 0), int(ev.get("points") or 0)]
    if kind == "bonus_scored":
        return [int(ev["team"])] + [int(p) for p in ev.get("points") or []]
    if kind == "time_up":
        return [str(ev.get("timer")), int(ev.get("player") or 0)]
    if kind == "overtime":
        return [int(ev["questions"])] + [int(p) for p in ev.get("players") or []]
    return [int(p) for p in ev.get("players") or []]  # sudden_death
