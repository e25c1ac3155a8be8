"""Evidence: claim the evidence marker for the number of differences between two crime photos.

Rules: shared/rules/004_27c25bf53213cc59.txt (the French rulebook: "Déroulement de la partie",
"Decompte de fin de tour et comptage", "Fin de partie") and shared/rules/README.md section
"evidence" (house reading). Table use: docs/games/evidence.md.
- Each round (ARM) the device turns the green token: it draws the orientation of the two photos
  from ORIENTATIONS and shows it on the marker bar and in the `round` event
  ("Déroulement de la partie": "le sens dans lequel les deux images devront être disposées").
- Every player claims one of the virtual evidence markers 1..10 with their own buzzer: N presses in
  a row, the last one held HOLD_MS (option `commit` "pause": N presses, then none for PAUSE_MS;
  gesture decoded here from press/release stamps). Claims are
  final and distinct; two claims of one marker go to the earlier commit stamp (the press that
  started the hold), equal stamps to a draw; the loser is told at once (`lost`) and claims again
  (house reading "evidence").
- When exactly one player has no marker, they have `countdown` ms (option, default 3000) to start
  their claim; otherwise they sit out this round's scoring ("Le tour prend fin quand il reste un
  seul joueur sans marqueurs de preuve. Il reste à ce joueur 3 secondes").
- The table enters the true number of differences (ARM +1, NO -1, YES confirms; or `act` count).
  Tokens: see award() ("Decompte de fin de tour").
- Ten rounds; green 3, yellow 2, red 1; most points wins, then most green tokens, then only the
  still-tied players play round 11, 12... until one wins ("Fin de partie").
"""

from refbox.compat import const
from refbox.games.base import ENTRY_KIND, Game, GameError, int_in, option
from refbox.leds import dimmed
from refbox.ticks import Stamp, ticks_add, ticks_diff

MARKERS = 10  # evidence markers 1..10 (rulebook "CONTENU")
ROUNDS = 10  # rulebook "Fin de partie": the game ends after 10 rounds
GREEN_POINTS = 3  # rulebook "Fin de partie": green 3, yellow 2, red 1
YELLOW_POINTS = 2
RED_POINTS = 1
MAX_COUNT = 30  # the true number of differences the table may enter: 0..30

# The green token's arrow: where the top edge of both photos points, seen from the front of the
# marker bar (marker 1 on the left). Drawn uniformly each round.
ORIENTATIONS = ("up", "right", "down", "left")

HOLD_MS = 1000  # commit "hold": the last press of a claim is held this long
TAP_GAP_MS = 2000  # commit "hold": a pause longer than this between presses restarts the count
PAUSE_MS = 1500  # commit "pause": no press for this long after the last one commits
FLASH_MS = 80  # a counted press flashes the station white this long

# Evidence's log entries, the kind first (ENTRY_KIND), the other slots read by these names
# (const: nothing kept at run time); players 0-based, µs/ns a Stamp's two halves, `at` a tick (µs):
#   ("round",)                               ARM: the next round starts
#   ("claim", player, marker, µs, ns, at)    µs/ns: the commit stamp (the press that started the
#                                            gesture); at: the claim's commit moment
#   ("sit_out", player, at)                  at: the countdown's deadline (or the command's tick)
#   ("dial", number)   ("count", number)     the number entered so far; the true number
#   ("end",)
_PLAYER = const(1)  # claim, sit_out
_CLAIM_MARKER = const(2)
_CLAIM_US = const(3)
_CLAIM_NS = const(4)
_CLAIM_AT = const(5)
_SIT_OUT_AT = const(2)
_NUMBER = const(1)  # dial, count

NEXT = "next"  # between rounds: ARM starts the next one
CLAIMING = "claiming"
COUNTING = "counting"
OVER = "over"

_OFF = (0, 0, 0)
_WHITE = (255, 255, 255)
_FREE = (6, 6, 6)
_CHASE = (60, 60, 60)
_TOKEN_COLOURS = ((0, 255, 0), (255, 200, 0), (255, 0, 0))  # green, yellow, red
_GAUGE = ((40, 40, 40), (60, 36, 0), (50, 0, 50))  # 1..10, 11..20, 21..30


def award(owners, count):
    """The round's tokens: (green, yellow, red), each a player or None.

    `owners[m]` is the player holding marker m (m = 1..MARKERS; index 0 unused; None = nobody),
    `count` the true number of differences (int >= 0, may exceed MARKERS).
    Rulebook 004_27c25bf53213cc59.txt "Decompte de fin de tour et comptage" with the house
    reading (shared/rules/README.md "evidence"): green to the exact marker; red to the nearest
    marker above, yellow to the nearest below; no marker above -> red to the green winner, none
    below -> yellow to the green winner; no exact marker -> no green, and a fall-back to the green
    winner then gives nothing (rulebook: "les jetons non attribués sont remis dans la boite").
    """
    green = owners[count] if 1 <= count <= MARKERS else None
    red = green
    for m in range(count + 1, MARKERS + 1):
        if owners[m] is not None:
            red = owners[m]
            break
    yellow = green
    for m in range(min(count - 1, MARKERS), 0, -1):
        if owners[m] is not None:
            yellow = owners[m]
            break
    return green, yellow, red


def leaders(points, greens, among):
    """The players of `among` (sorted list) with the most points, then the most green tokens
    (rulebook "Fin de partie": "le joueur disposant du plus grand nombre de jeton vert")."""
    best = None
    for p in among:
        key = (points[p], greens[p])
        if best is None or key > best:
            best = key
    return [p for p in among if (points[p], greens[p]) == best]


def _paint_token(frame, bar, shown, owners, who, colour):
    """Light the marker `who` holds (the token's owner, or None: nothing) in the token's
    `colour` on the bar, if it is one of the `shown` first markers (`owners`: marker -> owner)."""
    if who is not None:
        m = owners.index(who)
        if 1 <= m <= shown:
            frame[bar + m - 1] = colour


def _commit_rule(value):
    if value == "hold" or value == "pause":
        return value
    raise ValueError('"hold" or "pause"')


class Evidence(Game):
    name = "evidence"
    min_players = 2
    max_players = 6
    keeps_secrets = True  # the revealed seed would give away the next orientations and draws
    UNITS = {"countdown": "ms"}
    OPTIONS = (
        option("countdown", 3000, int_in(500, 60000), (3000, 5000, 10000, 2000)),
        option("commit", "hold", _commit_rule, ("hold", "pause")),
    )

    def reset(self):
        n = self.players
        self.phase = NEXT
        self.round = 0
        self.orientation = None  # str from ORIENTATIONS while a round runs
        self.contenders = list(range(n))  # who plays the next round (all, or the play-off)
        self.claimants = []  # who claims in this round
        # per marker (index 1..MARKERS): the player holding it, the Stamp of their commit press,
        # the tick (µs) when their claim was decided
        self.owners = [None] * (MARKERS + 1)  # type: list
        self.owner_stamp = [None] * (MARKERS + 1)  # type: list
        self.owner_at = [0] * (MARKERS + 1)
        self.marker_of = [None] * n  # type: list  # per player: their marker
        self.sat_out = []  # players out of this round's scoring
        self.countdown = None  # (player, start tick µs) while the last player's countdown runs
        self.dial = 0  # the true number being entered
        self.tally = [[0, 0, 0] for _ in range(n)]  # per player: green, yellow, red tokens
        self.scores = [0] * n
        self.last_tokens = None  # (count, green, yellow, red, owners) of the last round scored
        self.winner = None
        self.answering = None
        self.turn = None
        self._clear_gestures()

    def _clear_gestures(self):
        # Gesture decoding: input buffering like the debouncer, not game state (UNDO clears it).
        n = self.players
        # per player: presses in the gesture so far; the Stamp of the press being held (kept
        # after a release past HOLD_MS until decided); the Stamp of the last tap's release; the
        # tick (µs) of the last counted press (the white flash)
        self.g_count = [0] * n
        self.g_down = [None] * n  # type: list
        self.g_last = [None] * n  # type: list
        self.g_flash = [None] * n  # type: list

    unit = "points"

    def eligible(self):
        """0-based players who may claim now (no marker, not sitting out)."""
        if self.phase != CLAIMING:
            return []
        return self._free()

    def _free(self):
        return [p for p in self.claimants if self.marker_of[p] is None and p not in self.sat_out]

    def state_fields(self):
        """Evidence's own `state` field (docs/protocol.md): `tally`, every player's tokens
        [green, yellow, red], P1 first. After an undo it is what the room sees, so a host keeps
        no model of its own."""
        return (("tally", [list(t) for t in self.tally]),)

    def is_scoring(self, entry):
        return entry[ENTRY_KIND] == "count"

    def prompt_events(self):
        """What the table is asked now (after the start and after an undo): while counting, the
        claims and the number entered so far; while claiming, the round and who must claim."""
        if self.phase == COUNTING:
            return [self._claims_event(), ("dial", (("value", self.dial),))]
        if self.phase == CLAIMING:
            events = [self._round_event()]
            if self.countdown is not None:
                ms = self.options["countdown"]
                events.append(("countdown", (("player", self.countdown[0] + 1), ("ms", ms))))
            return events
        return []

    # ------------------------------------------------------------------ controls and host input
    def arm_entry(self):
        """ARM between rounds: turn the green token (orientation draw) and open the claims."""
        if self.phase == NEXT:
            return ("round",)
        if self.phase == COUNTING:
            return self._dial_entry(1)
        raise GameError("not_now", "round %d: claims are open" % self.round)

    def status(self):
        return "R%d" % self.round if self.round else ""

    def screen(self, held):
        """Claiming: the orientation and who still claims; counting: the number being entered,
        large, and the markers claimed."""
        if self.phase == CLAIMING:
            free = " ".join(["P%d" % (p + 1) for p in self._free()])
            return [(1, "photos: %s" % self.orientation), (1, "claiming:"), (1, free)]
        if self.phase == COUNTING:
            taken = ["%d" % m for m in range(1, MARKERS + 1) if self.owners[m] is not None]
            return [(2, "%d diffs" % self.dial), (1, "markers " + " ".join(taken))]
        return []

    def doing(self):
        """Game.doing: the round to start, the claims, the count (never the number entered)."""
        if self.phase == NEXT:
            return "ARM starts round %d" % (self.round + 1)
        if self.phase == CLAIMING:
            return "round %d: count the differences, claim a marker" % self.round
        if self.phase == COUNTING:
            return "round %d: the table counts the differences" % self.round
        return ""

    def buttons(self):
        """Between rounds ARM; claiming: the buzzers (N presses, the last held); counting:
        ARM / NO step the count (held: fast), YES confirms."""
        if self.phase == NEXT:
            return [("ARM", "round %d" % (self.round + 1))]
        if self.phase == CLAIMING:
            if self.options["commit"] == "hold":
                return [("buzz", "N x, hold")]
            return [("buzz", "N x, wait")]
        if self.phase == COUNTING:
            return [("ARM", "+1"), ("NO", "-1"), ("YES", "count %d" % self.dial)]
        return []

    def repeats(self, name):
        """ARM / NO held step the count being entered (fast entry), up to its bounds 0..30."""
        if self.phase != COUNTING:
            return False
        return self.dial < MAX_COUNT if name == "arm" else self.dial > 0

    def control_entry(self, name):
        """ARM: next round / count +1; NO: count -1; YES: confirm the count (docs/games/evidence.md
        "Controls")."""
        if name == "arm":
            return self.arm_entry()
        if name == "no":
            if self.phase != COUNTING:
                raise GameError("not_now", self._phase_hint())
            return self._dial_entry(-1)
        if name == "yes":
            if self.phase != COUNTING:
                raise GameError("not_now", self._phase_hint())
            return ("count", self.dial)
        raise GameError("bad_value", "unknown control %s" % name)

    def _phase_hint(self):
        if self.phase == NEXT:
            return "ARM starts round %d" % (self.round + 1)
        if self.phase == CLAIMING:
            free = " ".join(["P%d" % (p + 1) for p in self._free()])
            return "round %d: still claiming: %s" % (self.round, free)
        if self.phase == COUNTING:
            return "round %d: counting: enter the number of differences (ARM +1, NO -1, YES)" % (
                self.round
            )
        return "the game is over"

    def _dial_entry(self, delta):
        value = self.dial + delta
        if not 0 <= value <= MAX_COUNT:
            raise GameError(
                "bad_value",
                "the number of differences is 0 to %d (now %d)" % (MAX_COUNT, self.dial),
            )
        return ("dial", value)

    def judge_entry(self, correct):
        raise GameError("not_now", "Evidence has no judgement: YES confirms the count")

    def act_entry(self, args):
        """`act` actions: count (value: the true number), claim (player, value: marker) and
        sit_out (player). See docs/games/evidence.md."""
        action = args.get("action")
        if action == "count":
            value = args.get("value")
            if self.phase != COUNTING:
                raise GameError("not_now", self._phase_hint())
            if not isinstance(value, int) or value is True or value is False:
                raise GameError("bad_value", "count takes value: the number of differences")
            if not 0 <= value <= MAX_COUNT:
                raise GameError("bad_value", "the number of differences is 0 to %d" % MAX_COUNT)
            return ("count", value)
        if action == "claim" or action == "sit_out":
            # stamped with the tick at which the command's line arrived (self.now); every check
            # comes before the gesture in progress is forgotten: a refused act changes nothing
            p = self._act_player(args)
            if self.phase != CLAIMING:
                raise GameError("not_now", self._phase_hint())
            if p not in self._free():
                raise GameError("not_now", self._why_not_free(p))
            if action == "sit_out":
                self._forget(p)
                return ("sit_out", p, self.now)
            marker = args.get("value")
            if not isinstance(marker, int) or marker is True or marker is False:
                raise GameError("bad_value", "claim takes value: a marker 1 to %d" % MARKERS)
            stamp = Stamp(self.now, 0)
            deadline = self._deadline(p)
            if deadline is not None and stamp.diff_ns(deadline) >= 0:
                raise GameError("not_now", "P%d: the countdown ran out" % (p + 1))
            self._check_marker(p, marker, stamp, "claim value")
            self._forget(p)
            return ("claim", p, marker, stamp.us, stamp.ns, self.now)
        raise GameError("unknown_action", "evidence actions: count, claim, sit_out")

    def _act_player(self, args):
        p = args.get("player")
        if not isinstance(p, int) or p is True or p is False or not 1 <= p <= self.players:
            raise GameError("bad_value", "player: 1 to %d" % self.players)
        return p - 1

    def _why_not_free(self, p):
        if p not in self.claimants:
            return "P%d does not play this round" % (p + 1)
        if p in self.sat_out:
            return "P%d sits out this round" % (p + 1)
        return "P%d already holds marker %d: claims are final" % (p + 1, self.marker_of[p])

    def _check_marker(self, p, marker, stamp, how):
        """Refuse a claim the table could see was impossible when its hold began: no such
        marker, or a marker already taken before (owner_at) the claim's commit press."""
        if not 1 <= marker <= MARKERS:
            raise GameError(
                "bad_value",
                "P%d: %d %s, but the markers are 1 to %d; claim again (N presses, the last "
                "held 1 s)" % (p + 1, marker, how, MARKERS),
            )
        owner = self.owners[marker]
        if owner is not None and ticks_diff(stamp.us, self.owner_at[marker]) > 0:
            raise GameError(
                "bad_value",
                "marker %d is already P%d's: P%d, claim a free marker"
                % (marker, owner + 1, p + 1),
            )

    # ------------------------------------------------------------------ the claim gesture
    def _forget(self, p):
        self.g_count[p] = 0
        self.g_down[p] = None
        self.g_last[p] = None

    hears_press = True  # (Game.hears_press)

    def press_entry(self, player, stamp):
        """A press of a claimant with no marker counts one (docs/games/evidence.md "Claiming");
        commit "hold": a press after a pause of more than TAP_GAP_MS starts the count again."""
        if self.phase != CLAIMING or player not in self._free():
            return None
        if self.options["commit"] == "hold":
            if self.g_down[player] is not None:
                return None  # a hold waiting to be decided: nothing to count
            last = self.g_last[player]
            if last is None or ticks_diff(stamp.us, last.us) > TAP_GAP_MS * 1000:
                self.g_count[player] = 0
        self.g_count[player] += 1
        self.g_down[player] = stamp
        self.g_flash[player] = stamp.us
        return None

    def release_entry(self, player, stamp):
        """commit "hold": a release before HOLD_MS was a tap; after it, the hold commits (decided
        in tick_entry, in the order of the commit stamps). commit "pause": releases do not
        matter."""
        down = self.g_down[player]
        if down is None or self.options["commit"] != "hold":
            return None
        if ticks_diff(stamp.us, down.us) < HOLD_MS * 1000:
            self.g_down[player] = None
            self.g_last[player] = stamp
        return None

    def _deadline(self, p):
        """Stamp at which `p`'s countdown runs out, if `p` is the last player's countdown."""
        if self.countdown is None or self.countdown[0] != p:
            return None
        return Stamp(ticks_add(self.countdown[1], self.options["countdown"] * 1000))

    def tick_entry(self, horizon):
        """Decide the earliest claim whose time is up against the decision horizon (Stamp; see
        Game.tick_entry): a hold that has lasted HOLD_MS, or (commit "pause") a last press
        PAUSE_MS old. At the horizon every release and press up to it is known, so a tap is
        never taken for a hold. The claim records its commit moment (press + HOLD_MS or
        PAUSE_MS), which starts the last player's countdown. Otherwise end that countdown: a
        press stamped before its deadline is waited for; the sit_out records the deadline."""
        if self.phase != CLAIMING:
            return None
        wait_ns = (HOLD_MS if self.options["commit"] == "hold" else PAUSE_MS) * 1000000
        due = None
        for p in self._free():
            down = self.g_down[p]
            if down is not None and horizon.diff_ns(down) >= wait_ns:
                if due is None or down.diff_ns(self.g_down[due]) < 0:
                    due = p
        if due is not None:
            stamp = self.g_down[due]
            marker = self.g_count[due]
            self._forget(due)
            self._check_marker(due, marker, stamp, "presses")
            return ("claim", due, marker, stamp.us, stamp.ns, stamp.after_ns(wait_ns).us)
        if self.countdown is not None:
            p = self.countdown[0]
            deadline = self._deadline(p)
            if horizon.diff_ns(deadline) >= 0:
                down = self.g_down[p]
                if down is not None and down.diff_ns(deadline) < 0:
                    return None  # their claim's press came in time: wait for it
                self._forget(p)
                return ("sit_out", p, deadline.us)
        return None

    def is_busy(self):
        if self.phase != CLAIMING:
            return False
        if self.countdown is not None:
            return True
        for p in range(self.players):
            if self.g_down[p] is not None:
                return True
            flash = self.g_flash[p]
            if flash is not None and 0 <= ticks_diff(self.now, flash) < FLASH_MS * 1000:
                return True
        return False

    # ------------------------------------------------------------------ fold
    def step(self, entry):
        kind = entry[ENTRY_KIND]
        if kind == "round":
            return self._start_round()
        if kind == "claim":
            stamp = Stamp(entry[_CLAIM_US], entry[_CLAIM_NS])
            return self._claim(entry[_PLAYER], entry[_CLAIM_MARKER], stamp, entry[_CLAIM_AT])
        if kind == "sit_out":
            p = entry[_PLAYER]
            self.sat_out.append(p)
            events = [("sit_out", (("player", p + 1), ("round", self.round)))]
            return events + self._after_claims(entry[_SIT_OUT_AT])
        if kind == "dial":
            self.dial = entry[_NUMBER]
            return [("dial", (("value", self.dial),))]
        if kind == "count":
            return self._score(entry[_NUMBER])
        if kind == "end":
            self.phase = OVER
            return []
        raise ValueError("unknown evidence entry")

    def _start_round(self):
        """Rulebook "Déroulement de la partie": turn the green token (the orientation), lay the
        photos, everyone looks and claims."""
        self.round += 1
        self.orientation = ORIENTATIONS[self.prng.below(len(ORIENTATIONS))]
        self.claimants = list(self.contenders)
        self.owners = [None] * (MARKERS + 1)
        self.owner_stamp = [None] * (MARKERS + 1)
        self.owner_at = [0] * (MARKERS + 1)
        self.marker_of = [None] * self.players
        self.sat_out = []
        self.countdown = None
        self.dial = 0
        self.phase = CLAIMING
        self._clear_gestures()
        return [self._round_event()]

    def _round_event(self):
        fields = (
            ("round", self.round),
            ("orientation", self.orientation),
            ("players", [p + 1 for p in self.claimants]),
            ("playoff", self.round > ROUNDS),
        )
        return ("round", fields)

    def _claims_event(self):
        markers = []
        for m in range(1, MARKERS + 1):
            owner = self.owners[m]
            markers.append(None if owner is None else owner + 1)
        return ("claims", (("round", self.round), ("markers", markers)))

    def _take(self, p, marker, stamp, now):
        self.owners[marker] = p
        self.owner_stamp[marker] = stamp
        self.owner_at[marker] = now
        self.marker_of[p] = marker
        return (
            "claim",
            (("player", p + 1), ("marker", marker), ("t_us", stamp.us), ("t_ns", stamp.ns)),
        )

    def _claim(self, p, marker, stamp, now):
        """Claims are final and distinct; the earlier commit stamp gets a marker claimed twice,
        equal stamps are a tie drawn by the PRNG (house reading "evidence"; rules/README.md
        "Ties"). The loser gets a `lost` event and may claim another marker."""
        owner = self.owners[marker]
        events = []  # type: list
        if owner is None:
            events.append(self._take(p, marker, stamp, now))
            return events + self._after_claims(now)
        held = self.owner_stamp[marker]
        margin = stamp.diff_ns(held)  # > 0: the newcomer pressed later
        tie = margin == 0
        if tie:
            pair = [owner, p] if owner < p else [p, owner]
            newcomer_wins = pair[self.prng.below(2)] == p
        else:
            newcomer_wins = margin < 0
        if newcomer_wins:  # the earlier stamp takes the marker back from the later claimer
            self.marker_of[owner] = None
            events.append(self._lost(owner, marker, p, -margin, tie))
            events.append(self._take(p, marker, stamp, now))
        else:
            events.append(self._lost(p, marker, owner, margin, tie))
        return events + self._after_claims(now)

    def _lost(self, loser, marker, winner, margin, tie):
        fields = (
            ("player", loser + 1),
            ("marker", marker),
            ("winner", winner + 1),
            ("margin_ns", margin),
            ("tie", tie),
        )
        return ("lost", fields)

    def _after_claims(self, now):
        """Start or stop the last player's countdown; close the claims when nobody is left."""
        free = self._free()
        if not free:
            self.countdown = None
            self.phase = COUNTING
            self.dial = 0
            return [self._claims_event()]
        if len(free) == 1:
            if self.countdown is None or self.countdown[0] != free[0]:
                self.countdown = (free[0], now)
                ms = self.options["countdown"]
                return [("countdown", (("player", free[0] + 1), ("ms", ms)))]
            return []
        self.countdown = None
        return []

    def _score(self, count):
        """Award the round's tokens (award()), then end the game or call a play-off (rulebook
        "Fin de partie")."""
        green, yellow, red = award(self.owners, count)
        for who, kind, points in (
            (green, 0, GREEN_POINTS),
            (yellow, 1, YELLOW_POINTS),
            (red, 2, RED_POINTS),
        ):
            if who is not None:
                self.tally[who][kind] += 1
                self.scores[who] += points
        self.last_tokens = (count, green, yellow, red, list(self.owners))
        events = [
            (
                "tokens",
                (
                    ("round", self.round),
                    ("differences", count),
                    ("green", None if green is None else green + 1),
                    ("yellow", None if yellow is None else yellow + 1),
                    ("red", None if red is None else red + 1),
                    ("tally", [list(t) for t in self.tally]),
                ),
            ),
            self.score_event(),
        ]
        self.phase = NEXT
        self.orientation = None
        if self.round >= ROUNDS:
            greens = [t[0] for t in self.tally]
            tied = leaders(self.scores, greens, self.contenders)
            if len(tied) == 1:
                self.winner = tied[0]
                self.phase = OVER
            else:
                self.contenders = tied
                fields = (("round", self.round + 1), ("players", [p + 1 for p in tied]))
                events.append(("playoff", fields))
        return events

    def ranking(self):
        """[(place, player, points)], 1-based: the winner first (decided by points, green tokens
        and play-off rounds), then by points and green tokens; equal players share a place."""
        greens = [t[0] for t in self.tally]
        order = list(range(self.players))
        order.sort(key=lambda p: (-self.scores[p], -greens[p], p))
        if self.winner is not None:
            order.remove(self.winner)
            order.insert(0, self.winner)
        result = []  # type: list
        for i, p in enumerate(order):
            q = order[i - 1] if i else None
            same = (
                q is not None
                and q != self.winner
                and (self.scores[p], greens[p]) == (self.scores[q], greens[q])
            )
            place = result[-1][0] if same else i + 1
            result.append((place, p + 1, self.scores[p]))
        return result

    def tie_break(self):
        """Why the winner is first on equal points: "P2 has more green tokens, 4 vs 3", or "P2
        won the play-off" (rulebook "Fin de partie")."""
        if self.winner is None:
            return None
        greens = [t[0] for t in self.tally]
        w = self.winner
        for p in range(self.players):
            if p != w and self.scores[p] == self.scores[w]:
                if greens[w] != greens[p]:
                    return "P%d has more green tokens, %d vs %d" % (w + 1, greens[w], greens[p])
                return "P%d won the play-off" % (w + 1)
        return None

    # ------------------------------------------------------------------ LEDs
    def decorate(self, frame, now_ms, colours, station_pixels, marker_pixels):
        """Stations: full colour = claim now (white flash: a press counted; blinking: the last
        player's countdown), dim = holds a marker or waits for the next round, off = sits out or
        not in this round. Bar (marker m = pixel m): see docs/games/evidence.md "LEDs"."""
        bar = station_pixels
        shown = min(marker_pixels, MARKERS)
        stations = min(self.players, station_pixels)
        for p in range(stations):
            colour = colours[p]
            dim = dimmed(colour, 10)
            if self.phase == NEXT:
                frame[p] = dim if p in self.contenders else _OFF
            elif p not in self.claimants or p in self.sat_out:
                frame[p] = _OFF
            elif self.marker_of[p] is not None:
                frame[p] = dim
            else:
                flash = self.g_flash[p]
                if flash is not None and 0 <= ticks_diff(now_ms * 1000, flash) < FLASH_MS * 1000:
                    frame[p] = _WHITE
                elif self.countdown is not None and self.countdown[0] == p:
                    frame[p] = colour if (now_ms // 125) & 1 else _OFF
                else:
                    frame[p] = colour
        for i in range(marker_pixels):
            frame[bar + i] = _OFF
        if self.phase == CLAIMING:
            self._paint_claiming(frame, now_ms, colours, bar, shown)
        elif self.phase == COUNTING:
            self._paint_gauge(frame, colours, bar, shown)
        elif self.phase == NEXT and self.last_tokens is not None:
            _, green, yellow, red, owners = self.last_tokens
            for i in range(shown):
                owner = owners[i + 1]
                if owner is not None:
                    frame[bar + i] = dimmed(colours[owner], 4)
            # green shows over a fall-back (no tuple of them made: this frame moves)
            _paint_token(frame, bar, shown, owners, red, _TOKEN_COLOURS[2])
            _paint_token(frame, bar, shown, owners, yellow, _TOKEN_COLOURS[1])
            _paint_token(frame, bar, shown, owners, green, _TOKEN_COLOURS[0])
        return None

    def _paint_gauge(self, frame, colours, bar, shown):
        """The number being entered as a gauge: markers 1..v lit (white for 1-10, amber for
        11-20, violet for 21-30, over a full bar of the band below); claimed markers in their
        claimer's colour, full inside the gauge and dim beyond it."""
        value = self.dial
        band = (value - 1) // MARKERS if value > 0 else 0
        fill = value - band * MARKERS
        for i in range(shown):
            m = i + 1
            owner = self.owners[m]
            if owner is not None:
                frame[bar + i] = colours[owner] if m <= fill else dimmed(colours[owner], 8)
            elif m <= fill:
                frame[bar + i] = _GAUGE[band]
            elif band:
                frame[bar + i] = _GAUGE[band - 1]

    def _paint_claiming(self, frame, now_ms, colours, bar, shown):
        """Taken markers in the claimer's colour; the free ones dim white with a brighter chase
        that shows the orientation: right = towards marker 10, left = towards marker 1, up =
        from both ends to the middle (away from you), down = from the middle to both ends."""
        if self.orientation == "right":  # the chase's pixels: one or two (no list: it moves)
            first = second = (now_ms // 100) % shown
        elif self.orientation == "left":
            first = second = shown - 1 - (now_ms // 100) % shown
        else:
            half = shown // 2
            first = (now_ms // 200) % half
            if self.orientation == "down":
                first = half - 1 - first
            second = shown - 1 - first
        for i in range(shown):
            owner = self.owners[i + 1]
            if owner is not None:
                frame[bar + i] = colours[owner]
            elif i == first or i == second:
                frame[bar + i] = _CHASE
            else:
                frame[bar + i] = _FREE
