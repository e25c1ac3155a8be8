"""Diddly: the scorekeeper. Five rounds, the dealer and first player on the LEDs, round scores
entered on the controls or from the host (as a number or as the board's cards), lowest total wins.

Rules: shared/rules/003_805fe10dc7c48be8.txt (Diddly rulebook) and shared/rules/README.md section
"diddly" (house reading; it decides where the rulebook is garbled). Documented in
docs/games/diddly.md.
- Board (rulebook "Let's Get Started!", "Scoring"): columns of two cards, 3 columns (option
  `columns`: 3 or 4). Scoring: refbox.games.diddly_scoring.
- Rounds (rulebook "How to Win", "Let's Start a New Round"): five. P1 deals round 1 (the owner of
  the game sits at station 1); the dealer moves one seat left each round and the player left of the
  dealer starts. "Left" is the next station number, wrapping (P1 -> P2 -> ... -> Pn -> P1): the
  stations are numbered clockwise round the table.
- Score entry: every player's round score, once per round. The device asks for the players in
  playing order (the first player, then to the left, the dealer last): `turn` is the player whose
  score is awaited. Controls: ARM +1, NO -1 (both wrap between 0 and the most a board can score),
  YES confirms the number for the player whose turn it is. Host: `act` "score" (a number) or
  "board" (the cards, scored by the engine; the per-column points are echoed in a `board` event),
  for any player not yet scored this round. UNDO takes back the last confirmed score.
- End (rulebook "End of the Game"): after five rounds the lowest total wins; equal totals are
  broken by the rounds sorted from lowest (diddly_scoring.compare); identical lists share. Once the
  last score is in the device shows the table and waits for YES (or act "finish"), so that score
  can still be corrected with UNDO before the ranking is final and the seed revealed (house).
"""

from refbox.compat import const
from refbox.games.base import ENTRY_KIND, Game, GameError, option
from refbox.games.diddly_scoring import COLUMN_MAX, check_copies, rank, read_board, score_board
from refbox.leds import dimmed

ROUNDS = 5
SCORING = "scoring"  # round scores are being entered
FINAL = "final"  # every score is in: YES (or act "finish") ends the game, UNDO corrects
OVER = "over"

# Diddly's log entries, the kind first (ENTRY_KIND), the other slots read by these names
# (const: nothing kept at run time); players 0-based:
#   ("enter", player, number)   the number on the bar for the player whose turn it is
#   ("score", player, points)   a round score
#   ("board", player, card, card, ...)   a board's canonical cards, scored in the fold
#   ("finish",)  ("end",)
_PLAYER = const(1)  # enter, score, board
_ENTER_NUMBER = const(2)
_SCORE_POINTS = const(2)
_BOARD_CARDS = const(2)  # where the cards start

_DEALER = (96, 96, 96)  # the dealer's station: steady white
_TENS = (64, 64, 64)  # the marker bar's tens: white pixels


def columns_rule(value):
    """A check for the `columns` option: 3 or 4 columns of two cards (house reading "diddly")."""
    if isinstance(value, int) and value is not True and value is not False:
        if value == 3 or value == 4:
            return value
    raise ValueError("3 or 4")


class Diddly(Game):
    name = "diddly"
    min_players = 2
    max_players = 6
    OPTIONS = (option("columns", 3, columns_rule, (3, 4)),)
    UNITS = {"columns": "columns"}
    WINS = "lowest total wins"  # rulebook "End of the Game"
    unit = "points"

    def reset(self):
        self.columns = self.options["columns"]
        self.top = COLUMN_MAX * self.columns  # the most a round can score
        # table[p][r]: player p's score in round r + 1 (0-based), None until entered
        self.table = [[None] * ROUNDS for _ in range(self.players)]
        self.scores = [0] * self.players  # totals so far
        self.phase = SCORING
        self.answering = None
        self._start_round(1)

    def _start_round(self, number):
        """Round `number` (1..5): P1 deals round 1, then one seat left each round (rulebook "Let's
        Start a New Round"); the player left of the dealer starts (rulebook "Let's Get
        Started!")."""
        self.round = number
        self.dealer = (number - 1) % self.players
        self.first = (self.dealer + 1) % self.players
        self.cards_out = {}  # card name -> copies on the boards entered this round
        self.pending = 0  # the number being entered on the controls for `turn`
        self.turn = self.first

    def order(self):
        """0-based players in playing order this round: the first player, then to the left, the
        dealer last."""
        return [(self.first + i) % self.players for i in range(self.players)]

    def _next_turn(self):
        for p in self.order():
            if self.table[p][self.round - 1] is None:
                return p
        return None

    def state_fields(self):
        """Diddly's own `state` field (docs/protocol.md): `rounds`, every player's round scores
        entered so far (P1 first, rounds in order). After an undo it is the score sheet the room
        sees, so a host keeps no model of its own."""
        return (("rounds", self.rounds()),)

    def is_scoring(self, entry):
        return entry[ENTRY_KIND] == "score" or entry[ENTRY_KIND] == "board"

    def score_event(self):
        """`score`: the totals (P1 first, points) plus this game's `round`, `dealer` and `turn`
        (1-based; `turn` null once every score is in), so a host knows where the game stands at the
        start and after an undo."""
        turn = None if self.turn is None else self.turn + 1
        return (
            "score",
            (
                ("scores", list(self.scores)),
                ("unit", self.unit),
                ("round", self.round),
                ("dealer", self.dealer + 1),
                ("turn", turn),
            ),
        )

    # ------------------------------------------------------------------ inputs (raise GameError)
    def _awaiting(self):
        if self.phase == FINAL:
            raise GameError(
                "not_now", "every score is in: YES ends the game, UNDO takes back the last score"
            )
        if self.phase != SCORING or self.turn is None:
            raise GameError("not_now", "the game is over")
        return self.turn

    def judge_entry(self, correct):
        raise GameError("not_now", "diddly has nothing to judge: enter scores with ARM/NO/YES")

    def status(self):
        return "R%d" % self.round

    def screen(self, held):
        """While scores are entered: the number being entered, large, with whose it is, the
        dealer and that player's total so far."""
        if self.phase != SCORING or self.turn is None:
            return []
        p = self.turn
        return [
            (2, "P%d = %d" % (p + 1, self.pending)),
            (1, "dealer P%d" % (self.dealer + 1)),
            (1, "P%d total %d" % (p + 1, self.scores[p])),
        ]

    def doing(self):
        """Game.doing: whose round score is entered (not the number being stepped), or that
        every score is in."""
        if self.phase == SCORING and self.turn is not None:
            return "round %d: P%d's score is entered" % (self.round, self.turn + 1)
        if self.phase == FINAL:
            return "every score is in: YES ends the game"
        return ""

    def buttons(self):
        """Scoring: ARM / NO step the number (held: fast), YES confirms; final: YES ends."""
        if self.phase == SCORING and self.turn is not None:
            confirm = "P%d = %d" % (self.turn + 1, self.pending)
            return [("ARM", "+1"), ("NO", "-1"), ("YES", confirm)]
        if self.phase == FINAL:
            return [("YES", "end game")]
        return []

    def repeats(self, name):
        """ARM / NO held step the number being entered (fast entry)."""
        return self.phase == SCORING and self.turn is not None

    def control_entry(self, name):
        """ARM: the number being entered +1; NO: -1 (both wrap between 0 and the most a board can
        score: 20 a column); YES: that number is the round score of the player whose turn it is.
        Once every score is in, YES ends the game."""
        if self.phase == FINAL and name == "yes":
            return ("finish",)
        player = self._awaiting()
        if name == "arm":
            return ("enter", player, (self.pending + 1) % (self.top + 1))
        if name == "no":
            return ("enter", player, (self.pending + self.top) % (self.top + 1))
        if name == "yes":
            return ("score", player, self.pending)
        raise GameError("bad_value", "unknown control %s" % name)

    def act_entry(self, args):
        """`act` actions: "score" (`value`: the round score, 0..20 a column) and "board" (`values`:
        the 2 * columns cards, columns as consecutive pairs), for `player` (1-based; default: the
        player whose turn it is) not yet scored this round; "finish" once every score is in."""
        action = args.get("action")
        if action == "finish":
            if self.phase != FINAL:
                raise GameError("not_now", "scores are still missing: round %d" % self.round)
            return ("finish",)
        if action != "score" and action != "board":
            raise GameError("unknown_action", 'diddly takes act "score", "board" or "finish"')
        self._awaiting()
        player = self._player(args)
        if action == "score":
            if "value" not in args:
                raise GameError("missing_field", 'act "score" needs "value" (the round score)')
            value = args["value"]
            if not 0 <= value <= self.top:
                raise GameError(
                    "bad_value",
                    "a round score on a %d-column board is 0 to %d; got %d"
                    % (self.columns, self.top, value),
                )
            return ("score", player, value)
        if "values" not in args:
            raise GameError("missing_field", 'act "board" needs "values" (the cards)')
        cards = read_board(args["values"], self.columns)
        check_copies(cards, self.cards_out, "this round's boards")
        return tuple(["board", player] + cards)

    def _player(self, args):
        if "player" not in args:
            return self.turn
        p = args["player"]
        if not 1 <= p <= self.players:
            raise GameError(
                "bad_value", "player %d is not in this %d-player game" % (p, self.players)
            )
        if self.table[p - 1][self.round - 1] is not None:
            raise GameError(
                "not_now",
                "P%d already has a score for round %d (UNDO takes it back)" % (p, self.round),
            )
        return p - 1

    # ------------------------------------------------------------------ fold
    def step(self, entry):
        """Fold one entry: ("enter", player, number) the number on the bar; ("score", player,
        points) a round score; ("board", player, card, card, ...) a board's canonical cards,
        scored here; ("finish",) / ("end",) the end. Players 0-based; returns the events."""
        kind = entry[ENTRY_KIND]
        if kind == "enter":
            player, value = entry[_PLAYER], entry[_ENTER_NUMBER]
            if player != self.turn:
                raise ValueError("a number entered for a player whose turn it is not")
            self.pending = value
            return [("enter", (("player", player + 1), ("round", self.round), ("value", value)))]
        if kind == "finish" or kind == "end":
            was = self.phase
            self.phase = OVER
            self.turn = None
            if was == FINAL:
                return []  # the table went out when the last score came in
            return [self._table_event()]
        if kind != "score" and kind != "board":
            raise ValueError("unknown diddly entry")
        player = entry[_PLAYER]
        if self.table[player][self.round - 1] is not None:
            raise ValueError("a second score for one player in one round")
        events = []  # type: list
        if kind == "board":
            cards = list(entry[_BOARD_CARDS:])
            value, points = score_board(cards, self.columns)
            self.cards_out = check_copies(cards, self.cards_out, "this round's boards")
            events.append(
                (
                    "board",
                    (
                        ("player", player + 1),
                        ("round", self.round),
                        ("cards", cards),
                        ("columns", points),
                        ("value", value),
                    ),
                )
            )
        else:
            value = entry[_SCORE_POINTS]
        self.table[player][self.round - 1] = value
        self.scores[player] += value
        events.append(
            ("round_score", (("player", player + 1), ("round", self.round), ("value", value)))
        )
        turn = self._next_turn()
        if turn is None and self.round < ROUNDS:
            self._start_round(self.round + 1)
            events.append(
                (
                    "round",
                    (
                        ("round", self.round),
                        ("dealer", self.dealer + 1),
                        ("first", self.first + 1),
                    ),
                )
            )
        elif turn is None:
            self.turn = None
            self.phase = FINAL
        elif turn != self.turn:
            self.turn = turn
            self.pending = 0
        events.append(self.score_event())
        if self.phase == FINAL:
            events.append(self._table_event())
        return events

    def _table_event(self):
        """`table`: every player's round scores (P1 first, rounds in order) and totals."""
        return ("table", (("rounds", self.rounds()), ("scores", list(self.scores))))

    def rounds(self):
        """[[round scores entered] per player, P1 first], in round order."""
        return [[v for v in row if v is not None] for row in self.table]

    def ranking(self):
        """[(place, player, total points)], 1-based: lowest total first, ties broken by the rounds
        sorted from lowest, identical lists sharing a place (diddly_scoring.rank)."""
        return rank(self.rounds())

    def tie_break(self):
        """The first split tie of the ranking: "P3 has the lowest round score, 2 vs 4" (the
        rounds compared lowest first: docs/games/diddly.md "Ranking and tie-break")."""
        ranking = self.ranking()
        rounds = self.rounds()
        for i in range(1, len(ranking)):
            (pa, a, ta), (pb, b, tb) = ranking[i - 1], ranking[i]
            if ta != tb or pa == pb:
                continue
            ra, rb = sorted(rounds[a - 1]), sorted(rounds[b - 1])
            for k in range(min(len(ra), len(rb))):  # (MicroPython's zip has no strict=)
                if ra[k] != rb[k]:
                    return "P%d has the lowest round score, %d vs %d" % (a, ra[k], rb[k])
        return None

    # ------------------------------------------------------------------ LEDs
    def decorate(self, frame, now_ms, colours, station_pixels, marker_pixels):
        """Stations: every player dim; the player whose score is awaited pulses (the default
        frame's `turn`); the dealer steady white, alternating white / colour (2 Hz) when it is
        the dealer's own turn. Marker bar: the number being entered, tens then units, one second
        each: tens as white pixels, units as pixels in the colour of the player entered; once every
        score is in, the whole bar dim white (YES ends the game)."""
        if self.phase == OVER:
            return None
        slow = (now_ms // 250) & 1
        for p in range(min(self.players, station_pixels)):
            colour = colours[p]
            if p == self.dealer:
                frame[p] = colour if (p == self.turn and slow) else _DEALER
            elif p != self.turn:
                frame[p] = dimmed(colour, 10)
        bar = station_pixels
        for i in range(marker_pixels):
            frame[bar + i] = (0, 0, 0)
        if self.turn is None:
            for i in range(marker_pixels):
                frame[bar + i] = (24, 24, 24)
            return None
        if (now_ms // 1000) & 1:
            count, colour = self.pending % 10, colours[self.turn]
        else:
            count, colour = self.pending // 10, _TENS
        for i in range(min(count, marker_pixels)):
            frame[bar + i] = colour
        return None
