"""Déglingo: whole games written like a table plays them, and a brute-force reading of the rules.

The scoring here is an independent reading of shared/rules/README.md section "deglingo" and the
rulebook shared/rules/001_64e1c7829d61bb46.txt ("Game Turn", "End of Game", "2-Player Variant"),
played on a model of the board (9 spaces, the replaced ones known to the model only): the firmware
is never consulted.

`multi_game(players)` and `two_player_game()` return (timeline records, expected ranking,
expected per-round points). Run `python tests/scripts_deglingo.py` to rewrite the examples.
"""

import json
from pathlib import Path

from helpers import TimedScript

SPACES = 9  # rulebook "Components": the illustration is divided into 9 parts
TIMER_S = 3  # the scripted games play with the `timer` option at 3 s
TWO_PLAYER_TARGET = 12


# ------------------------------------------------------------------ brute-force rule reading
def multi_round(players, active, replaced_space, claims, ending="gave_up"):
    """Points of one round with 3+ players: `claims` [(observer, space pointed at)] in buzzer
    order (claims of an observer already out are not possible at the table and are skipped).
    Returns (points list, how, judgements [(observer, correct)])."""
    points = [0] * players
    out = set()
    observers = {p for p in range(players) if p != active}
    judged = []
    for observer, space in claims:
        if observer == active or observer in out:
            continue
        correct = space == replaced_space
        judged.append((observer, correct))
        if correct:
            points[observer] = 1
            return points, "found", judged
        out.add(observer)
        if out == observers:
            points[active] = 1
            return points, "all_wrong", judged
    points[active] = 1
    return points, ending, judged


def stop_or_encore(replaced_spaces, pointed, ending="stop"):
    """(observer points, active points, how, judgements [correct]) of one Stop-or-Encore round:
    the observer points at `pointed` spaces in turn until wrong or all found; otherwise the round
    ends by `ending` ("stop" or "time", both a stop)."""
    replaced = set(replaced_spaces)
    found = set()
    judged = []
    for space in pointed:
        if space in replaced and space not in found:
            found.add(space)
            judged.append(True)
            if found == replaced:
                return len(found), 0, "all_found", judged
        else:
            judged.append(False)
            return 0, len(replaced), "wrong", judged
    return len(found), len(replaced) - len(found), ending, judged


def ranking(scores):
    """[(place, player 1-based, points)]: most points first, equal points share a place."""
    order = sorted(range(len(scores)), key=lambda p: (-scores[p], p))
    result = []
    for i, p in enumerate(order):
        place = result[-1][0] if i and scores[p] == scores[order[i - 1]] else i + 1
        result.append((place, p + 1, scores[p]))
    return result


# ------------------------------------------------------------------ timelines
class Table(TimedScript):
    def buzz(self, player, dt_us=0, hold_us=80000):
        """Wait dt_us; `player` (1-based) presses and lets go hold_us later."""
        self.t += dt_us
        self.records.append({"at_us": self.t, "press": player})
        self.records.append({"at_us": self.t + hold_us, "release": player})

    def send(self, dt_us, **cmd):
        self.at(dt_us, send=cmd)


def multi_game(players, target=5):
    """A whole game for 3..6 players with the timer at TIMER_S: false starts in the eyes-closed
    phase, a lockout mashed through, wrong finds, all observers wrong, the table giving up, a
    time-out, undos (of a judgement and of a time-out)."""
    table = Table()
    scores = [0] * players
    rounds = []
    r = 0
    undo_judge = undo_timeout = False
    while max(scores) < target:
        active = r % players
        observers = [p for p in range(players) if p != active]
        a, b = observers[r % len(observers)], observers[(r + 1) % len(observers)]
        replaced = (r * 4) % SPACES
        wrong = (replaced + 1) % SPACES
        kind = r % 5
        table.at(300000)
        if kind == 0:
            table.buzz(a + 1)  # a false start: shown only when Déglingo is called
            table.at(200000)
        table.buzz(active + 1, 200000)  # "Déglingo!"
        ending = "gave_up"
        if kind == 0:
            table.buzz(a + 1, 100000)  # still locked out: the lockout restarts
            claims = [(b, replaced)]
            table.buzz(b + 1, 200000)
            table.at(300000, control="yes")
        elif kind == 1:
            claims = [(a, wrong), (b, replaced)]
            table.buzz(a + 1, 400000)
            table.at(300000, control="no")
            table.buzz(b + 1, 300000)
            if not undo_judge:  # the table misjudges, takes it back, judges again
                table.at(300000, control="no")
                table.at(300000, control="undo")
                undo_judge = True
            table.at(300000, control="yes")
        elif kind == 2:
            claims = [(p, wrong) for p in observers]
            for p in observers:
                table.buzz(p + 1, 150000)
                table.at(150000, control="no")
        elif kind == 3:
            claims = [(a, wrong)]
            table.buzz(a + 1, 300000)
            table.at(300000, control="no")
            table.at(300000, control="arm")  # the table gives up
        else:
            claims = []
            ending = "time"
            table.at(TIMER_S * 1000000 + 200000)
            if not undo_timeout:  # take the time-out back: the round goes on untimed
                table.at(0, control="undo")
                table.buzz(a + 1, 400000)
                table.at(300000, control="yes")
                claims = [(a, replaced)]
                undo_timeout = True
        points, how, _ = multi_round(players, active, replaced, claims, ending)
        for p in range(players):
            scores[p] += points[p]
        rounds.append((how, points))
        r += 1
    table.send(500000, cmd="state")  # the last round may end on the timer: run until then
    return table.records, ranking(scores), rounds


def enter_count(table, count, style):
    """The active player's secret count: YES once per card (several styles that all mean
    `count`), or act "replaced"."""
    if style == "act":
        table.send(100000, cmd="act", action="replaced", value=count)
        return
    presses = {"plain": count, "wrap": count + 3, "clear": 2}[style]
    for _ in range(presses):
        table.at(150000, control="yes")
    if style == "clear":
        table.at(150000, control="no")
        for _ in range(count):
            table.at(150000, control="yes")


def two_player_game():
    """A whole Stop-or-Encore game (timer TIMER_S): counts entered in every style, finds, a
    wrong find, stops, finding them all, time-outs, a false start, undos."""
    table = Table()
    scores = [0, 0]
    rounds = []
    r = 0
    undo_judge = undo_timeout = False
    styles = ("plain", "wrap", "act", "clear")
    while max(scores) < TWO_PLAYER_TARGET:
        active = r % 2
        observer = 1 - active
        count = (1, 2, 3, 2, 3)[r % 5]
        replaced = [(r + 3 * i) % SPACES for i in range(count)]
        other = [s for s in range(SPACES) if s not in replaced][r % (SPACES - count)]
        kind = r % 4
        table.at(300000)
        if kind == 0:
            table.buzz(observer + 1)  # a false start of the observer
        enter_count(table, count, styles[(r + r // 4) % len(styles)])
        if styles[(r + r // 4) % len(styles)] == "act":
            table.send(200000, cmd="act", action="deglingo")
        else:
            table.buzz(active + 1, 200000)
        ending = "stop"
        if kind == 0:  # one find, then stop (or all found when only one was replaced)
            pointed = replaced[:1]
        elif kind == 1:  # one find, then a wrong one
            pointed = replaced[:1] + [other] if count > 1 else [other]
        elif kind == 2:  # the observer finds them all
            pointed = list(replaced)
        else:  # one find, then the time runs out
            pointed = replaced[:1] if count > 1 else []
            ending = "time"
        _, _, how, judged = stop_or_encore(replaced, pointed, ending)
        for i, correct in enumerate(judged):
            table.buzz(observer + 1, 400000)
            if correct and not undo_judge and i == 0:
                table.at(300000, control="no")
                table.at(300000, control="undo")
                undo_judge = True
            table.at(300000, control="yes" if correct else "no")
        if how == "stop":
            table.at(300000, control="arm")
        elif how == "time":
            table.at(TIMER_S * 1000000 + 200000)
            if not undo_timeout:  # taken back: untimed, so the observer stops with ARM
                table.at(0, control="undo")
                table.at(300000, control="arm")
                undo_timeout = True
                how = "stop"
        obs_pts, act_pts, _, _ = stop_or_encore(replaced, pointed, ending)
        scores[observer] += obs_pts
        scores[active] += act_pts
        points = [0, 0]
        points[observer], points[active] = obs_pts, act_pts
        rounds.append((how, points, count))
        r += 1
    table.send(500000, cmd="state")  # the last round may end on the timer: run until then
    return table.records, ranking(scores), rounds


def write_examples():
    root = Path(__file__).resolve().parent.parent / "examples"
    games = [
        ("deglingo_4p.jsonl", multi_game(4)[0], 4, "4 players, first to 5, 3 s round timer"),
        ("deglingo_2p.jsonl", two_player_game()[0], 2, "2 players, Stop or Encore, 3 s timer"),
    ]
    for name, records, players, what in games:
        setup = {"game": "deglingo", "players": players, "options": {"timer": TIMER_S}}
        setup["seed"] = "1"
        head = [
            "# Deglingo, %s: false starts while eyes are closed, finds, wrong finds," % what,
            "# gave-up / stop, time-outs, undos. Generated by tests/scripts_deglingo.py. Play it:",
            "#   .venv/bin/tablebuzz sim --script examples/%s --pretty" % name,
            json.dumps({"setup": setup}),
        ]
        lines = head + [json.dumps(rec) for rec in records]
        (root / name).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write_examples()
