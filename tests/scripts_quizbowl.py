"""Scripted quizbowl matches (test helpers, issue 37): timelines written as a moderator plays
them, each played in the simulator, recorded as `tablebuzz show` records it (with the desk's
word marks where the reader tapped one) and exported as QBJ.

MATCHES names each: its set-up, its timeline, the desk's marks, and what the export must say
(teams' totals, tossups read, overtime tossups read). A "word" in a mark indexes the importer
harness's packet (tests/qbj/importers: 40 words a tossup, the power mark after word 10, the
last word 39), so MODAQ, which scores each buzz again from its word, can check the totals.

- `naqt`: by the book, 2 v 2: a power, a neg then the other team wrong (both teams wrong, one
  neg), a computation tossup, a protest, a dead tossup, a tie after 4: three overtime tossups
  (no bonuses), still tied, sudden death ended by a neg.
- `house`: NAQT's options under `plain` (a house format with bounce-backs): a bounced bonus.
- `acf`: ACF, 2 v 2: a neg, bonuses, no powers, a dead tossup.
- `three`: a 3-team pub quiz: no QBJ Match (left out with a message).
"""

import json

from helpers import timeline
from refbox.games.quiz import FORMATS
from tablebuzz.link.connection import Item
from tablebuzz.records import qbj
from tablebuzz.records import store as records
from tablebuzz.sim import simulate
from tablebuzz.sim.timeline import parse

GAP_US = 200000  # between two inputs
PRESS_US = 50000  # a buzzer is held this long
POWER_WORD, SCORE_WORD, NEG_WORD, END_WORD = 4, 20, 25, 39  # in the harness packet's tossups


class Script:
    """A timeline being written, with the marks the desk would record."""

    def __init__(self):
        self.t = 300000
        self.records = []
        self.marks = []
        self.question = 1

    def add(self, gap=GAP_US, **action):
        self.t += gap
        self.records.append(dict(action, at_us=self.t))

    def buzz(self, player, word=None, runner_up=None):
        """`player` presses (a runner-up 738 µs later when given); the desk marks `word`."""
        self.add(press=player)
        if runner_up is not None:
            self.records.append({"at_us": self.t + 738, "press": runner_up})
            self.records.append({"at_us": self.t + 738 + PRESS_US, "release": runner_up})
        self.records.append({"at_us": self.t + PRESS_US, "release": player})
        if word is not None:
            self.marks.append({"question": self.question, "player": player,
                               "word_index": word})

    def judge(self, correct, points=None):
        if points is None:
            self.add(control="yes" if correct else "no")
        else:
            self.add(send={"cmd": "judge", "correct": correct, "points": points})

    def read(self):
        self.add(send={"cmd": "act", "action": "read"})

    def arm(self, compute=False):
        if compute:
            self.add(send={"cmd": "arm", "compute": True})
        else:
            self.add(control="arm")

    def bonus(self, *parts):
        self.add(send={"cmd": "bonus", "parts": list(parts)})

    def dead(self, seconds):
        """Read to the end, nobody buzzes: the buzz window closes."""
        self.read()
        self.t += seconds * 1000000 + 100000
        self.add(send={"cmd": "state"})  # the timeline runs on to past the window

    def next(self):
        self.question += 1

    def text(self):
        return timeline(*self.records)


def naqt_match():
    s = Script()
    s.arm()  # 1: a power, 20 of the bonus: A 35
    s.buzz(1, POWER_WORD, runner_up=3)
    s.judge(True, 15)
    s.bonus(True, True, False)
    s.next()
    s.arm()  # 2: B negs, then A wrong too (no second neg): dead. B -5
    s.buzz(3, NEG_WORD)
    s.judge(False)
    s.buzz(2, NEG_WORD + 2)
    s.judge(False)
    s.next()
    s.arm(compute=True)  # 3: computation, read, B gets it and 30: B 35; A protests
    s.read()
    s.buzz(4, END_WORD)
    s.judge(True)
    s.bonus(True, True, True)
    s.add(send={"cmd": "act", "action": "protest", "team": 1, "text": "4.5 m/s was right"})
    s.next()
    s.arm()  # 4: dead. 35-35 after 4: overtime
    s.dead(3)
    s.next()
    s.arm()  # 5 (overtime 1): A 45, no bonus
    s.buzz(2, SCORE_WORD)
    s.judge(True)
    s.next()
    s.arm()  # 6 (overtime 2): B 45
    s.buzz(3, SCORE_WORD)
    s.judge(True)
    s.next()
    s.arm()  # 7 (overtime 3): dead: 45-45, sudden death
    s.dead(3)
    s.next()
    s.arm()  # 8 (sudden death): A negs and loses: 40-45
    s.buzz(1, NEG_WORD)
    s.judge(False)
    options = {"format": "naqt", "teams": [[1, 2], [3, 4]], "questions": 4}
    return options, s, {"totals": [40, 45], "read": 8, "overtime": 4}


def house_match():
    s = Script()
    s.arm()  # 1: A 10, 10 of its bonus, part 2 bounced to B: A 20, B 10
    s.read()
    s.buzz(1, END_WORD)
    s.judge(True)
    s.bonus(True, 2, False)
    s.next()
    s.arm()  # 2: B 10 + 10: A 20, B 30
    s.buzz(4, SCORE_WORD)
    s.judge(True)
    s.bonus(False, False, True)
    options = dict(FORMATS["naqt"], format="plain", teams=[[1, 2], [3, 4]], questions=2)
    return options, s, {"totals": [20, 30], "read": 2, "overtime": 0}


def acf_match():
    s = Script()
    s.arm()  # 1: A negs, B gets it after the end: B 10 + 20
    s.buzz(2, NEG_WORD)
    s.judge(False)
    s.read()
    s.buzz(3, END_WORD)
    s.judge(True)
    s.bonus(True, False, True)
    s.next()
    s.arm()  # 2: A 10 + 30: A 35, B 30
    s.buzz(1, SCORE_WORD)
    s.judge(True)
    s.bonus(True, True, True)
    s.next()
    s.arm()  # 3: B 10 + 0 - ... B 40, then 4: dead
    s.buzz(4, SCORE_WORD)
    s.judge(True)
    s.bonus(False, False, False)
    s.next()
    s.arm()  # 4: nobody after the end: 35-40 after 4
    s.dead(5)
    s.next()
    options = {"format": "acf", "teams": [[1, 2], [3, 4]], "questions": 4}
    return options, s, {"totals": [35, 40], "read": 4, "overtime": 0}


def three_teams():
    s = Script()
    s.arm()
    s.buzz(5)
    s.judge(True)
    options = {"teams": [[1, 2], [3, 4], [5, 6]], "points": 10, "questions": 1}
    return options, s, None


MATCHES = {"naqt": naqt_match, "house": house_match, "acf": acf_match, "three": three_teams}


def record(name, folder, marks=True):
    """Play match `name`, record it under `folder` as `tablebuzz show` does (names given on the
    desk, the desk's word marks when `marks`). Returns (record path, protocol events,
    expected)."""
    options, script, expected = MATCHES[name]()
    players = sum(len(t) for t in options["teams"])
    header = {"seed": "37", "game": "quiz", "players": players, "options": options,
              "flash": {}}
    lines = simulate.run(header, parse(script.text(), players, ["arm", "yes", "no", "undo"]))
    rec = records.Recorder(folder, "simulator")
    rec.set_names({1: "Ann", 2: "Bo", 3: "Cy", 4: "Di", 5: "Ed", 6: "Flo"})
    # the hello line the board sends first (the simulator's run begins at the game)
    hello = json.dumps({"ev": "hello", "sample_ns": 56})
    rec.item(Item("event", hello, json.loads(hello)))
    by_question = {}
    for m in script.marks if marks else []:
        by_question.setdefault(m["question"], []).append(m)
    question = None
    evs = []
    for _, line in lines:
        ev = json.loads(line)
        evs.append(ev)
        rec.item(Item("event", line, ev))
        if ev.get("ev") == "question":
            question = ev["question"]
        if ev.get("ev") in ("race", "next_in_line") and question is not None:
            winner = ev.get("winner") or ev.get("player")
            for m in by_question.get(question, []):
                if m["player"] == winner:
                    rec.mark(dict(m, power=m["word_index"] <= 10))
    rec.close()
    return rec.paths[-1], evs, expected


def export(name, folder, marks=True):
    """(the Match of match `name` as exported, protocol events, expected)."""
    path, evs, expected = record(name, folder, marks)
    return qbj.from_record(path), evs, expected
