"""Timed press scripts for whole games, written like a table would play them (test helpers).

`difference_game(players)` returns (timeline records, expected ranking) for a full game of
Difference with a false start, wrong answers, a tie, an undo and, for 2 players, the "everyone
locked out" rule. The expected ranking comes from the script's own bookkeeping of the house rules
(shared/rules/README.md "difference"), independent of the firmware.
"""

from helpers import TimedScript

CARDS = {2: 12, 3: 8, 4: 6, 5: 4, 6: 4}
ROUND_US = 600000


class _Table(TimedScript):
    def buzz(self, *players, gap_us=0):
        """Players press (gap_us apart, 0 = same instant) and let go 100 ms later."""
        start = self.t
        for i, p in enumerate(players):
            self.records.append({"at_us": start + i * gap_us, "press": p})
        for p in players:
            self.records.append({"at_us": start + 100000, "release": p})


def difference_game(players):
    table = _Table()
    cards = {p: CARDS[players] for p in range(1, players + 1)}
    finished = []
    locked = set()
    # a false start before the first reference card is turned
    table.at(50000)
    table.buzz(2)
    table.at(400000, control="arm")
    round_no = 0
    tie_done = undo_done = False

    def racing():
        return [p for p in cards if cards[p] and p not in locked and p not in finished]

    while len([p for p in cards if p not in finished]) > 1:
        round_no += 1
        table.at(ROUND_US)
        if not tie_done and round_no == 2:
            a, b = racing()[:2]
            table.buzz(a, b)  # the same instant: a tie, drawn by the firmware
            table.at(300000, control="no")  # the drawn player is locked out (unknown to us)
            tie_done = True
            if players == 2:
                # both press; whoever is not locked wins, is judged wrong: everyone locked -> clear
                table.at(ROUND_US)
                table.buzz(a, b, gap_us=1000)
                table.at(300000, control="no")
            else:
                c = [p for p in racing() if p not in (a, b)][0]
                table.at(ROUND_US)
                table.buzz(c, a, gap_us=2500)  # c first by 2.5 ms
                table.at(300000, control="yes")
                cards[c] -= 1
                if not cards[c]:
                    finished.append(c)
            locked.clear()
            continue
        presser = racing()[round_no % len(racing())]
        others = [p for p in racing() if p != presser]
        table.buzz(presser, *others[:1], gap_us=840)
        if round_no % 5 == 3:  # a wrong answer: locked until the reference changes
            table.at(300000, control="no")
            locked.add(presser)
            if not racing():
                locked.clear()
            continue
        if not undo_done and round_no >= 4:
            table.at(300000, control="yes")
            table.at(200000, control="undo")  # the table misjudged: take it back...
            table.at(200000, control="yes")  # ...and judge again
            undo_done = True
        else:
            table.at(300000, control="yes")
        cards[presser] -= 1
        locked.clear()
        if not cards[presser]:
            finished.append(presser)
    last = [p for p in cards if p not in finished]
    ranking = [(i + 1, p, 0) for i, p in enumerate(finished)] + [
        (players, last[0], cards[last[0]])
    ]
    return table.records, ranking
