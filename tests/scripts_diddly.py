"""Whole games of Diddly as timelines, written like a table would enter them (test helpers).

`diddly_game(players)` returns (timeline records, facts). The scores of every round are chosen
here (with ties on the total that the tie-break must settle, and a shared win for 6 players) and
entered in playing order (the player left of the dealer first, the dealer last; rulebook
shared/rules/003_805fe10dc7c48be8.txt "Let's Get Started!", house reading "diddly"), by the control
buttons (ARM +1 / NO -1 wrapping, YES), by `act` "score" and by `act` "board" with a random legal
board scoring that number (tablebuzz.sim.diddly_deck). It also makes mistakes the table corrects
with UNDO, sends impossible boards, and ends with YES or `act` "finish". `facts` holds what the
test checks against, from this script's own bookkeeping, never from the firmware:
  rounds   [[round scores] per player]
  scored   [(player, round, value)] every round_score the device should announce, in order
           (the ones later taken back by UNDO included)
  boards   [(player, round, cards)] every board sent and accepted
  errors   [code] every error the device should answer, in order
  undos    how many UNDOs
  ways     Counter of how the final scores were entered ("controls", "number", "board")
"""

import random
from collections import Counter

from tablebuzz.sim.diddly_deck import board_with_score

STEP_US = 200000  # between two actions (a control is held 120 ms)

# The chosen scores, [player][round]. 2 players: equal totals (50), P1 wins on the tie-break (its
# lowest round, 3, beats P2's 10).
SCORES_2 = [[12, 3, 20, 7, 8], [10, 10, 10, 10, 10]]


def _scores_6(rng):
    """6 players, 4 columns: P3 and P5 hold the same rounds in another order (lowest total, a
    shared win); P1 and P2 tie on 70, P2 wins on its 0; P4 and P6 random, higher (rng)."""
    rows = [
        [14, 14, 14, 14, 14],
        [0, 40, 10, 10, 10],
        [5, 0, 30, 12, 9],
        None,
        [12, 30, 9, 5, 0],
        None,
    ]
    for p in (3, 5):
        rows[p] = [rng.randint(10, 40) for _ in range(5)]
    return rows


class _Script:
    def __init__(self, players, columns, rng):
        self.rng = rng
        self.players = players
        self.columns = columns
        self.top = 20 * columns
        self.records = []
        self.t = 0
        self.facts = {"scored": [], "boards": [], "errors": [], "undos": 0, "ways": Counter()}

    def at(self, **action):
        self.t += STEP_US
        rec = {"at_us": self.t}
        rec.update(action)
        self.records.append(rec)

    def act(self, **fields):
        cmd = {"cmd": "act"}
        cmd.update(fields)
        self.at(send=cmd)

    def fails(self, code, **fields):
        self.act(**fields)
        self.facts["errors"].append(code)

    def undo(self, by_control):
        if by_control:
            self.at(control="undo")
        else:
            self.at(send={"cmd": "undo"})
        self.facts["undos"] += 1  # the round_score event of the undone score stays in the record

    def controls_to(self, value, pending=0):
        """Presses that take the number on the bar from `pending` to `value` the short way."""
        up = (value - pending) % (self.top + 1)
        down = (pending - value) % (self.top + 1)
        name = "arm" if up <= down else "no"
        for _ in range(min(up, down)):
            self.at(control=name)

    def score(self, player, rnd, value, how, used):
        """Enter `value` for 1-based `player` in round `rnd` by `how`."""
        if how == "controls":
            self.controls_to(value)
            self.at(control="yes")
        elif how == "number":
            self.act(action="score", player=player, value=value)
        else:
            cards = board_with_score(self.rng, self.columns, value, used)
            self.act(action="board", player=player, values=cards)
            self.facts["boards"].append((player, rnd, cards))
        self.facts["scored"].append((player, rnd, value))
        self.facts["ways"][how] += 1


def diddly_game(players):
    rng = random.Random(players)
    columns = 3 if players == 2 else 4
    s = _Script(players, columns, rng)
    rows = SCORES_2 if players == 2 else _scores_6(rng)
    s.facts["rounds"] = rows
    methods = ("controls", "number", "board")
    for rnd in range(1, 6):
        dealer = (rnd - 1) % players + 1  # P1 deals first, then one seat left (the next number)
        order = [(dealer + i) % players + 1 for i in range(players)]  # left of the dealer first
        used = Counter()
        if rnd == 1:
            # the first player's number is confirmed 2 too high, taken back, fixed and confirmed
            p = order.pop(0)
            value = rows[p - 1][0]
            s.controls_to(value + 2)
            s.at(control="yes")
            s.facts["scored"].append((p, 1, value + 2))
            s.undo(by_control=True)
            s.controls_to(value, pending=value + 2)  # the undone number is back on the bar
            s.at(control="yes")
            s.facts["scored"].append((p, 1, value))
            s.facts["ways"]["controls"] += 1
            s.at(press=1)  # a buzzer means nothing in this game
            s.at(release=1)
        if rnd == 2:
            # out of order: the dealer's board first; then the impossible boards
            p = order.pop()
            s.score(p, 2, rows[p - 1][1], "board", used)
            nxt = order[0]
            s.fails("bad_value", action="board", player=nxt, values=["1"] * (2 * columns + 1))
            s.fails("bad_value", action="board", player=nxt, values=["HALF"] * (2 * columns))
            bad = ["JOKER"] + ["2"] * (2 * columns - 1)
            s.fails("bad_value", action="board", player=nxt, values=bad)
            s.fails("bad_value", action="score", player=nxt, value=s.top + 1)
            s.fails("not_now", action="score", player=p, value=0)  # already scored this round
            s.fails("bad_value", action="score", player=players + 1, value=0)
        if rnd == 3:
            # a number sent for the wrong player... taken back over the protocol
            p = order[0]
            s.act(action="score", player=order[1], value=rows[p - 1][2])
            s.facts["scored"].append((order[1], 3, rows[p - 1][2]))
            s.undo(by_control=False)
        if rnd == 4 and players == 6:
            # the first player's board holds the deck's four Peeks (two matched columns): a
            # fifth Peek on this round's boards is refused
            p = order.pop(0)
            value = rows[p - 1][3]
            used.update(["PEEK"] * 4)
            cards = ["PEEK", "PEEK", "PEEK", "PEEK"] + board_with_score(rng, 2, value, used)
            s.act(action="board", player=p, values=cards)
            s.facts["boards"].append((p, 4, cards))
            s.facts["scored"].append((p, 4, value))
            s.fails("bad_value", action="board", values=["PEEK", "1"] + ["2"] * 6)
        for i, p in enumerate(order):
            value = rows[p - 1][rnd - 1]
            how = methods[(rnd * players + i) % 3]
            if how == "controls" and min(value, s.top + 1 - value) > 30:
                how = "number"  # spare the table (and the test) 30 presses
            last = rnd == 5 and i == len(order) - 1
            if last:
                # the very last score: wrong, taken back (the game waits for YES), then right
                s.act(action="score", player=p, value=(value + 1) % (s.top + 1))
                s.facts["scored"].append((p, 5, (value + 1) % (s.top + 1)))
                s.undo(by_control=True)
            s.score(p, rnd, value, how, used)
    s.fails("not_now", action="score", player=1, value=0)  # every score is in
    if players == 2:
        s.at(control="arm")  # nothing more to enter: refused
        s.facts["errors"].append("not_now")
        s.at(control="yes")
    else:
        s.act(action="finish")
    return s.records, s.facts


def example_text(players):
    """The timeline of diddly_game(players) with a header saying how to play it."""
    import json

    records, facts = diddly_game(players)
    columns = 3 if players == 2 else 4
    head = [
        "# Diddly, %d players, %d columns: five rounds entered by the controls (ARM/NO/YES), by"
        % (players, columns),
        '# act "score" and by act "board"; undos, impossible boards, then the final YES.',
        "# Generated by tests/scripts_diddly.py (python tests/scripts_diddly.py). Play it:",
        "#   .venv/bin/tablebuzz sim --script examples/diddly_%dp.jsonl --pretty" % players,
        "# Round scores [player][round]: %s" % json.dumps(facts["rounds"]),
        json.dumps(
            {
                "setup": {
                    "game": "diddly",
                    "players": players,
                    "options": {"columns": columns},
                    "seed": "1",
                }
            }
        ),
    ]
    return "\n".join(head + [json.dumps(r) for r in records]) + "\n"


if __name__ == "__main__":  # regenerate the examples
    from pathlib import Path

    out = Path(__file__).resolve().parent.parent / "examples"
    for n in (2, 6):
        (out / ("diddly_%dp.jsonl" % n)).write_text(example_text(n))
