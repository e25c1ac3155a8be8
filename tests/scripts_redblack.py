"""Timelines for whole games of Red or Black, written the way a table plays them (test helpers).

A timeline cannot branch, but who gives depends on the cards. So the script is planned the way
the people at the table would play: a copy of the game (the firmware's RedBlack, built from the
seed the simulated device will draw) turns the cards over as the device will, and the planner
reacts only to what those turns reveal (the `guess` events and the phase: who gives, how many),
never to the deck. Every input it makes is written to the timeline at the same time.

`plan_game(players, seed_hex)` returns a Plan: the timeline records, the receivers each giver chose
(in order), and the error codes the device must answer with (the script makes deliberate
mistakes: ARM during a red/black question, YES before all penalties are handed out, a giver
pressing their own buzzer, a wrong pick taken back with NO, an UNDO of a guess).
"""

import json
from binascii import unhexlify
from pathlib import Path

from helpers import events, run_sim, timeline
from refbox.games.base import GameError, parse_options
from refbox.games.redblack import RedBlack

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SEEDS = {2: "2b", 6: "6e"}  # the --seed of examples/redblack_2p.jsonl and redblack_6p.jsonl

GAP_US = 250000  # between two inputs
PRESS_US = 60000  # a buzzer is held this long


class Plan:
    def __init__(self):
        self.records = []
        self.givings = []  # [(giver 1-based, [receivers 1-based])] in the order they gave
        self.errors = []  # error codes expected from the device, in order
        self.t = 500000

    def add(self, **action):
        rec = {"at_us": self.t}
        rec.update(action)
        self.records.append(rec)
        self.t += GAP_US


class _Table:
    """The local copy of the game and the inputs made to it and to the timeline."""

    def __init__(self, players, seed_hex, options):
        self.game = RedBlack(
            players, parse_options(RedBlack.OPTIONS, options), unhexlify(seed_hex)
        )
        self.plan = Plan()
        self.seen = []  # events the table saw

    def _apply(self, hook, *args):
        try:
            entry = hook(*args)
        except GameError as e:
            self.plan.errors.append(e.code)
            return
        if entry is not None:
            self.seen += self.game.record(entry)

    def control(self, name):
        self.plan.add(control=name)
        if name == "undo":
            self.game.undo()
        else:
            self._apply(self.game.control_entry, name)

    def press(self, player):
        self.plan.records.append({"at_us": self.plan.t, "press": player})
        self.plan.records.append({"at_us": self.plan.t + PRESS_US, "release": player})
        self.plan.t += GAP_US
        self._apply(self.game.press_entry, player - 1, None)

    def act(self, action, **fields):
        cmd = {"cmd": "act", "action": action}
        cmd.update(fields)
        self.plan.add(send=cmd)
        args = {"action": action}
        args.update(fields)
        self._apply(self.game.act_entry, args)

    def state(self):
        self.plan.add(send={"cmd": "state"})


def game_seed(players, seed, options=None):
    """The seed the simulated device draws for its first game (revealed by ending it at once)."""
    result = run_sim(
        timeline({"at_us": 1000, "send": {"cmd": "end"}}),
        players=players,
        seed=seed,
        game="redblack",
        options=options or {},
    )
    return events(result, "game_over")[0]["seed"]


def example_path(players):
    return EXAMPLES / ("redblack_%dp.jsonl" % players)


def write_examples():
    """Regenerate examples/redblack_2p.jsonl and redblack_6p.jsonl, from tests/:
    ../.venv/bin/python -c "import conftest, scripts_redblack as s; s.write_examples()"
    """
    for players, seed in sorted(SEEDS.items()):
        plan = plan_game(players, game_seed(players, seed))
        head = [
            "# Red or Black, %d players: a whole game, a few mistakes (docs/games/redblack.md)."
            % players,
            "# The cards depend on the seed (set-up line). Play it:",
            "#   .venv/bin/tablebuzz sim --script examples/%s --pretty"
            % example_path(players).name,
            json.dumps({"setup": {"game": "redblack", "players": players, "seed": seed}}),
        ]
        lines = head + [json.dumps(r) for r in plan.records]
        example_path(players).write_text("\n".join(lines) + "\n")


def _rank_value(text):
    rank = text[:-1]
    return {"A": 14, "J": 11, "Q": 12, "K": 13}.get(rank) or int(rank)


def plan_game(players, seed_hex, options=None, twists=True):
    """A full game for `players` on the device whose game seed is `seed_hex` (32 hex digits)."""
    table = _Table(players, seed_hex, options or {})
    game = table.game
    hands = {p: [] for p in range(1, players + 1)}  # what the table saw turned over
    by_act = players  # this player answers and gives through the host (`act`)
    twist = {"arm": twists, "undo": twists, "self": twists, "early_yes": twists, "no": twists}
    n_guess = 0
    while game.phase != "over":
        if game.phase == "guess":
            player, round_no = game.seat + 1, game.round
            if round_no == 2 and twist["arm"]:
                table.control("arm")  # ARM means nothing in round 2: an error
                twist["arm"] = False
            n_guess += 1
            if round_no == 1:
                answer = "red" if n_guess % 3 else "black"
            elif round_no == 2:
                answer = "higher" if _rank_value(hands[player][0]) <= 8 else "lower"
            elif round_no == 3:
                a, b = sorted(_rank_value(c) for c in hands[player])
                answer = "between" if b - a >= 6 else "outside"
            else:
                answer = "SHDC"[(player * 3 + 1) % 4]
            for attempt in range(2 if round_no == 3 and player == 2 and twist["undo"] else 1):
                if attempt:
                    table.control("undo")  # the table takes the answer back: that card is put
                    twist["undo"] = False  # aside, the same answer goes to the next card
                _answer(table, player, round_no, answer, player == by_act)
            turned = dict([e for e in table.seen if e[0] == "guess"][-1][1])
            hands[player].append(turned["card"])
            if round_no == 2 and player == 1:
                table.state()  # a host asks for the state mid-game: nothing hidden in it
        elif game.phase == "give":
            giver, count = game.giver + 1, game.left()
            others = [p for p in range(1, players + 1) if p != giver]
            receivers = [others[(len(table.plan.givings) + i) % len(others)] for i in range(count)]
            if twist["self"]:
                table.press(giver)  # a giver cannot pick themselves
                twist["self"] = False
            if giver == by_act and count >= 2:
                receivers = [receivers[0]] * (count - 1) + [receivers[-1]]
                table.act("give", player=receivers[0], value=count - 1)  # several at once
                table.act("give", player=receivers[-1])
            else:
                for i, r in enumerate(receivers):
                    if i == len(receivers) - 1 and twist["early_yes"]:
                        table.control("yes")  # one still to hand out: refused
                        twist["early_yes"] = False
                    table.press(r)
            if twist["no"]:
                table.press(others[-1])  # one too many: refused
                table.control("no")  # take back the last pick...
                table.press(receivers[-1])  # ...and hand it out again
                twist["no"] = False
            table.plan.givings.append((giver, receivers))
            if giver == by_act:
                table.act("confirm")
            else:
                table.control("yes")
        elif game.phase == "lines":
            if game.column % 3 == 2:
                table.act("column")
            else:
                table.control("arm")
        else:  # pragma: no cover - a bug in the game
            raise AssertionError("unexpected phase %s" % game.phase)
    return table.plan


def _answer(table, player, round_no, answer, by_act):
    if by_act:
        names = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
        table.act(names.get(answer, answer), player=player)
        return
    if round_no < 4:
        table.control("yes" if answer in ("red", "higher", "between") else "no")
        return
    target = "SHDC".index(answer)
    if target == 3:
        table.control("no")  # backwards from spades to clubs
    else:
        for _ in range(target):
            table.control("arm")
    table.control("yes")
