"""Timed scripts for whole games of Evidence, played the way a table would (test helpers).

`evidence_game(players)` returns (timeline records, expected) for a full game: ten rounds in five
mirrored pairs (what P1 gets in one round P2 gets in the next), so P1 and P2 end round 10 tied on
points and green tokens and only they play round 11 (and, for 2 players, round 12). The rounds
cover a contested claim decided by a few µs (the earlier press bounces, so it is accepted after
the later one), the last player's countdown running out, no exact marker, a count above 10, a
count of 0, the fall-backs to the green winner, an undo of a count, and claims by a player who is
not in the play-off (ignored).

`expected` is computed here from the house reading (shared/rules/README.md "evidence") by
`tokens_by_reading`, written independently of the firmware: per round (green, yellow, red) as
1-based players or None, the final points, and the final ranking [(place, player, points)].
"""

TAP_MS = 150  # a press every 150 ms while counting a marker
TAP_DOWN_MS = 60  # each tap is held 60 ms
HOLD_MS = 1200  # the last press is held 1.2 s (the device needs 1 s)
COUNTDOWN_MS = 3000  # the default option


def tokens_by_reading(claims, count):
    """(green, yellow, red) for `claims` {player: marker} and the true `count`, read off the house
    reading: green to the exact marker; red to the nearest marker above, yellow to the nearest
    below; without one above/below that token goes to the green winner; without an exact marker
    there is no green winner, so such a fall-back gives nothing."""
    by_marker = {m: p for p, m in claims.items()}
    green = by_marker.get(count)
    above = sorted(m for m in by_marker if m > count)
    below = sorted(m for m in by_marker if m < count)
    red = by_marker[above[0]] if above else green
    yellow = by_marker[below[-1]] if below else green
    return green, yellow, red


def ranking_by_reading(points, greens, winner):
    """[(place, player, points)]: the play-off `winner` first, then most points, then most green
    tokens; equal players share a place."""
    others = sorted((p for p in points if p != winner), key=lambda p: (-points[p], -greens[p], p))
    result = [(1, winner, points[winner])]
    for i, p in enumerate(others):
        if i and (points[p], greens[p]) == (points[others[i - 1]], greens[others[i - 1]]):
            place = result[-1][0]
        else:
            place = i + 2
        result.append((place, p, points[p]))
    return result


class EvidenceTable:
    """Writes a timeline (µs) and keeps the table's own score sheet."""

    def __init__(self, players):
        self.players = players
        self.records = []
        self.t = 0  # µs
        self.points = {p: 0 for p in range(1, players + 1)}
        self.greens = {p: 0 for p in range(1, players + 1)}
        self.rounds = []  # per round: (green, yellow, red)
        self.contest_press = None  # (P1's stamp, P2's stamp) of the contested claim, µs

    def add(self, at_us, **action):
        rec = {"at_us": at_us}
        rec.update(action)
        self.records.append(rec)

    def claim(self, player, marker, start_us, offset_us=0, bounce=None):
        """`marker` presses from `start_us`, the last held HOLD_MS. Returns the commit time (the
        last press, where its contact first closed). `bounce` shapes that last press's edges:
        "slow" (eight 10 µs touches with 150 µs openings, then closed for good at 1280 µs: the
        debouncer accepts it once closed 1 ms in all, 2.2 ms after its first edge) or "fast"
        (closed 150 µs, then a 20 µs bounce: accepted 1.02 ms after its first edge); the
        debouncer stamps both at their first edge."""
        for i in range(marker - 1):
            at = start_us + i * TAP_MS * 1000 + offset_us
            self.add(at, press=player)
            self.add(at + TAP_DOWN_MS * 1000, release=player)
        commit = start_us + (marker - 1) * TAP_MS * 1000 + offset_us
        if bounce == "slow":  # chatters: eight 10 µs touches 160 µs apart, closes at 1280 µs
            for k in range(8):
                self.add(commit + k * 160, glitch=player, width_ns=10000)
            self.add(commit + 1280, press=player)
        elif bounce == "fast":  # closed 150 µs (accepted at once), bounces open 20 µs
            self.add(commit, glitch=player, width_ns=150000)
            self.add(commit + 170, press=player)
        else:
            self.add(commit, press=player)
        self.add(commit + HOLD_MS * 1000, release=player)
        return commit

    def count(self, value, by):
        """The table enters the true number: with the controls (ARM +1 ..., NO -1, YES) or
        `act`."""
        t = self.t + 300000
        if by == "act":
            self.add(t, send={"cmd": "act", "action": "count", "value": value})
            self.t = t + 200000
            return
        presses = ["arm"] * (value + 1) + ["no"] if by == "controls_fix" else ["arm"] * value
        for name in presses:
            self.add(t, control=name)
            t += 250000
        self.add(t, control="yes")
        self.t = t + 300000

    def score(self, claims, count):
        green, yellow, red = tokens_by_reading(claims, count)
        for who, points in ((green, 3), (yellow, 2), (red, 1)):
            if who is not None:
                self.points[who] += points
        if green is not None:
            self.greens[green] += 1
        self.rounds.append((green, yellow, red))

    def play_round(self, claims, count, by="act", late=None, contest=False, ignored=()):
        """ARM, everyone in `claims` ({player: marker}) claims; `late` (a player) never claims and
        sits out when the countdown runs out; `contest`: P1 and P2 both claim claims[1], P2 3 µs
        later, and P2 then claims claims[2] instead. `ignored`: players not in this round who try
        to claim marker 10 anyway."""
        t0 = self.t
        self.add(t0, control="arm")
        start = t0 + 300000
        last_commit = 0
        decisions = []
        order = sorted(claims)
        for i, p in enumerate(order):
            if contest and p == 2:
                continue
            s = start + i * 250000
            bounce = "slow" if contest and p == 1 else None
            if bounce:
                s += 500  # mid-way between two loop passes (1 ms grid)
            commit = self.claim(p, claims[p], s, bounce=bounce)
            decisions.append(commit + 1011000)
            last_commit = max(last_commit, commit)
        if contest:
            # P2 taps the same count as P1, 3 µs behind on every press; P2's last press is
            # accepted first, P1's (bouncing) about 1 ms later, in a later loop pass
            p1_start = start + order.index(1) * 250000 + 500
            commit2 = self.claim(2, claims[1], p1_start, offset_us=3, bounce="fast")
            p1_commit = p1_start + (claims[1] - 1) * TAP_MS * 1000
            self.contest_press = (p1_commit, commit2)
            # P2 hears at once (about 1 s after the hold began) and claims another marker
            again = commit2 + HOLD_MS * 1000 + 100000
            last_commit = max(last_commit, self.claim(2, claims[2], again))
        for q in ignored:
            self.claim(q, 10, start)
        end = last_commit + HOLD_MS * 1000
        if late is not None:
            decisions.sort()
            end = max(end, decisions[-1] + COUNTDOWN_MS * 1000)
        self.t = end + 100000
        self.count(count, by)
        self.score(claims, count)

    def sit_out_round(self, out_by_act, late):
        """A play-off round nobody claims: the table sits `out_by_act` out (`act`), then `late`
        is the last without a marker and their countdown runs out. No tokens."""
        t0 = self.t
        self.add(t0, control="arm")
        self.add(t0 + 500000, send={"cmd": "act", "action": "sit_out", "player": out_by_act})
        self.t = t0 + 500000 + COUNTDOWN_MS * 1000 + 200000
        self.count(0, "act")
        self.rounds.append((None, None, None))


def _mirror(claims):
    """P1 and P2 swap markers."""
    out = dict(claims)
    if 1 in claims and 2 in claims:
        out[1], out[2] = claims[2], claims[1]
    return out


def evidence_game(players):
    table = EvidenceTable(players)
    table.t = 100000
    cast = range(1, players + 1)

    def among(markers):
        return {p: m for p, m in markers.items() if p in cast}

    # pair A: a contest on marker 5 (P1 earlier by 3 µs); 7 differences, nobody took 7
    first = among({1: 5, 2: 6, 3: 8, 4: 9, 5: 10, 6: 1})
    table.play_round(first, 7, by="controls", contest=True)
    table.play_round(_mirror(first), 7, by="act")
    # pair B: P2, then P1, never claims: the countdown runs out; 4 differences
    b = among({1: 4, 3: 2, 4: 3, 5: 9, 6: 10})
    table.play_round(b, 4, by="act", late=2)
    b2 = dict(b)
    b2[2] = b2.pop(1)
    table.play_round(b2, 4, by="controls_fix", late=1)
    # pair C: the rulebook's example shape, 7 differences (with an undo of a wrong count)
    c = among({1: 7, 2: 8, 3: 4, 4: 5, 5: 1, 6: 2})
    undo_at = len(table.records)
    table.play_round(c, 7, by="act")
    _undo_and_recount(table, undo_at, 6, 7)
    table.play_round(_mirror(c), 7, by="controls")
    # pair D: 13 differences, more than the markers
    d = among({1: 10, 2: 9, 3: 1, 4: 2, 5: 3, 6: 4})
    table.play_round(d, 13, by="act")
    table.play_round(_mirror(d), 13, by="act")
    # pair E: no difference at all
    e = among({1: 1, 2: 2, 3: 6, 4: 7, 5: 8, 6: 9})
    table.play_round(e, 0, by="controls")
    table.play_round(_mirror(e), 0, by="act")
    assert table.points[1] == table.points[2] and table.greens[1] == table.greens[2]
    leaders = [
        p for p in cast if (table.points[p], table.greens[p]) == (table.points[1], table.greens[1])
    ]
    assert leaders == [1, 2], "the script must leave exactly P1 and P2 tied at the top"
    playoff_rounds = [11]
    if players == 2:
        table.sit_out_round(out_by_act=1, late=2)  # round 11: still tied
        playoff_rounds.append(12)
    # the deciding play-off round: P1 takes 3 (green + yellow), P2 5 (red)
    ignored = [3] if players >= 3 else []
    table.play_round({1: 3, 2: 5}, 3, by="act", ignored=ignored)
    expected = {
        "rounds": table.rounds,
        "points": [table.points[p] for p in cast],
        "greens": [table.greens[p] for p in cast],
        "ranking": ranking_by_reading(table.points, table.greens, 1),
        "playoff_rounds": playoff_rounds,
        "contest_press": table.contest_press,
    }
    # a hold's release is written with its press: put the lines in time order (stable)
    return sorted(table.records, key=lambda r: r["at_us"]), expected


def _undo_and_recount(table, at, wrong, right):
    """Replace the `act` count of the round just played (records from index `at`) by a wrong
    count, UNDO, and the right one."""
    for i in range(len(table.records) - 1, at - 1, -1):
        send = table.records[i].get("send")
        if send and send.get("action") == "count":
            send["value"] = wrong
            t = table.records[i]["at_us"]
            table.add(t + 300000, control="undo")
            table.add(t + 600000, send={"cmd": "act", "action": "count", "value": right})
            table.t = t + 900000
            return
    raise AssertionError("no act count to undo")


def example_text(players):
    """The text of examples/evidence_<players>p.jsonl: this game's timeline with a header."""
    import json

    records, expected = evidence_game(players)
    head = [
        "# Evidence, %d players: ten rounds and the play-off, with a claim contested by 3 us"
        % players,
        "# (the earlier press bounces and is accepted later, yet wins), countdowns running out,",
        "# no exact marker, counts of 13 and 0, an undone count. Generated by",
        "# tests/scripts_evidence.py (example_text). Play it:",
        "#   .venv/bin/tablebuzz sim --script examples/evidence_%dp.jsonl --pretty" % players,
        "# Final ranking (place, player, points): %s" % (expected["ranking"],),
        json.dumps({"setup": {"game": "evidence", "players": players, "seed": "2"}}),
    ]
    return "\n".join(head + [json.dumps(r) for r in records]) + "\n"
