"""Red or Black: the device is the dealer of a virtual 52-card deck; penalties given and taken.

Rules: shared/rules/002_3a1c486227a38e1b.txt (red or black, penalties) and shared/rules/README.md
section "redblack" (house reading). Table use: docs/games/redblack.md.
- The deck is shuffled from the game's PRNG when the log is empty (`reset`), so a refold (undo)
  deals the very same cards, except that an answer taken back puts its card aside for good (a
  card once seen is never dealt again: RedBlack.undo); the seed is committed at game start and
  revealed at game end.
- "First part of the game", rounds 1..4: each player in turn (P1 first) answers red/black,
  higher/lower than their round-1 card, between/outside their round-1 and round-2 cards, and the
  suit; then the next card of the deck is turned over and kept by that player. Right: the player
  hands out 1, 2, 3 or 5 penalties (buzzer presses of the receivers, one press one penalty); wrong:
  they take them. House options: `ace` (high), `equal` (equal rank is wrong), `bound` (a card on a
  bound is wrong).
- "Second part of the game": two face-down lines of 8 (`give_line` chooses which one gives, at set
  up); column i turned: per held card of the same rank as the give card the holder gives i
  penalties, per held card of the take card's rank the holder takes i.
- Score = penalties given - penalties received; highest difference wins; the full table is shown.

Cards are ints 0..51 inside (rank index * 4 + suit index) and short strings on the wire: the rank
"A", "2".."10", "J", "Q", "K" followed by the suit "S" (spades), "H" (hearts), "D" (diamonds) or
"C" (clubs), e.g. "QH", "10S".
"""

from refbox.compat import const
from refbox.games.base import ENTRY_KIND, Game, GameError, option, rank_highest_first

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")  # the order ARM cycles through: spades, hearts, diamonds, clubs
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
ROUNDS = 4
PENALTIES = (1, 2, 3, 5)  # per round, rulebook "1st Round" .. "4th Round"
QUESTIONS = ("red_black", "higher_lower", "between_outside", "suit")
ANSWERS = (("red", "black"), ("higher", "lower"), ("between", "outside"), SUITS)
COLUMNS = 8  # rulebook "Second part of the game": two lines of eight cards

GUESS = "guess"  # a player answers the round's question
GIVE = "give"  # a player hands out penalties by pressing the receivers' buzzers
LINES = "lines"  # Part 2: waiting for ARM to turn the next column
OVER = "over"

# Red or Black's log entries, the kind first (ENTRY_KIND), the other slots read by these names
# (const: nothing kept at run time); players 0-based:
#   ("guess", answer)   answer: "red", "higher", "between", "S"...: the round's question's answer
#   ("cursor", suit)    suit: the index (0..3, SUITS) the suit cursor moved to
#   ("pick", receiver, penalties)   ("unpick",)   ("confirm",)   ("column",)   ("end",)
#   ("burn",)           an answer taken back: its card is put aside for good
_GUESS_ANSWER = const(1)
_CURSOR_SUIT = const(1)
_PICK_RECEIVER = const(1)
_PICK_PENALTIES = const(2)

# act action -> (round 1..4, answer)
_ACT_ANSWERS = {
    "red": (1, "red"),
    "black": (1, "black"),
    "higher": (2, "higher"),
    "lower": (2, "lower"),
    "between": (3, "between"),
    "outside": (3, "outside"),
    "spades": (4, "S"),
    "hearts": (4, "H"),
    "diamonds": (4, "D"),
    "clubs": (4, "C"),
}
_ACTIONS = (
    "red, black, higher, lower, between, outside, spades, hearts, diamonds, clubs, "
    "give, take_back, confirm, column"
)

_RED = (255, 0, 0)
_BLACK = (160, 160, 160)  # a black card shows white: an LED cannot show black
_DIM = (24, 24, 24)


def one_of(*values):
    """A check for parse_options: one of the given strings."""

    def check(value):
        if isinstance(value, str) and value in values:
            return value
        raise ValueError("one of " + ", ".join(['"%s"' % v for v in values]))

    return check


# ---------------------------------------------------------------------------- cards and rulings
def card_text(card):
    """The wire form of card int 0..51 (rank index * 4 + suit index): "QH", "10S", "AC"."""
    return RANKS[card // 4] + SUITS[card % 4]


def card_value(card, ace):
    """Rank value of card int 0..51 for comparisons: 2..13 for 2..K, the ace 14 if `ace` is
    "high", 1 if "low" (shared/rules/README.md "redblack": ace ranks high, option)."""
    value = card // 4 + 1
    if value == 1 and ace == "high":
        return 14
    return value


def is_red(card):
    """True for hearts and diamonds (card int 0..51)."""
    return card % 4 == 1 or card % 4 == 2


def is_right(round_no, answer, card, hand, ace="high", equal="wrong", bound="wrong"):
    """Whether `answer` to the question of round `round_no` (1..4) is right for the turned `card`.

    `hand` lists the player's cards from the earlier rounds (ints 0..51, round 1 first). Answers:
    round 1 "red"/"black"; round 2 "higher"/"lower" than hand[0] (equal rank: right for both if
    `equal` is "right", wrong for both if "wrong"); round 3 "between"/"outside" hand[0] and
    hand[1], strictly (a card of a bound's rank: `bound` "wrong" = wrong for both, "right" = right
    for both, "between" = counts as between); round 4 a suit letter "S", "H", "D", "C".
    Source: shared/rules/002_3a1c486227a38e1b.txt "1st Round" .. "4th Round"; shared/rules/
    README.md "redblack" (equal rank wrong, on a bound wrong, ace high: options).
    """
    if round_no == 1:
        return (answer == "red") == is_red(card)
    if round_no == 4:
        return answer == SUITS[card % 4]
    value = card_value(card, ace)
    if round_no == 2:
        first = card_value(hand[0], ace)
        if value == first:
            return equal == "right"
        return (answer == "higher") == (value > first)
    low = card_value(hand[0], ace)
    high = card_value(hand[1], ace)
    if low > high:
        low, high = high, low
    if value == low or value == high:
        if bound == "between":
            return answer == "between"
        return bound == "right"
    return (answer == "between") == (low < value < high)


def _counts(pairs):
    """[{"player", "penalties"}] from [(0-based player, penalties)], for events."""
    return [{"player": p + 1, "penalties": n} for p, n in pairs]


class RedBlack(Game):
    name = "redblack"
    min_players = 2
    max_players = 6
    unit = "points"  # score = penalties given - penalties received
    keeps_secrets = True  # the revealed seed gives away the deck: no undo after game over
    OPTIONS = (
        option("ace", "high", one_of("high", "low"), ("high", "low")),
        option("equal", "wrong", one_of("wrong", "right"), ("wrong", "right")),
        option(
            "bound", "wrong", one_of("wrong", "right", "between"), ("wrong", "right", "between")
        ),
        option("give_line", "top", one_of("top", "bottom"), ("top", "bottom")),
    )

    def reset(self):
        """An empty log. The deck is dealt when a card is first needed (`deck`)."""
        self._deck = None
        n = self.players
        self.hands = [[] for _ in range(n)]  # cards kept by each player, round 1 first
        self.given = [0] * n
        self.received = [0] * n
        self.scores = [0] * n
        self.round = 1
        self.seat = 0  # Part 1: the player asked now (0-based)
        self.phase = GUESS
        self.cursor = 0  # round 4: the suit shown on the marker bar (index into SUITS)
        self.last = None  # (0-based player, card) last turned over in Part 1
        self.giver = -1  # the player handing out penalties, -1 if nobody
        self.to_give = 0  # penalties the giver hands out in this giving
        self.picks = []  # [(receiver, count)] not yet confirmed
        self.pending = []  # Part 2: [(giver, penalties)] still to give for this column
        self.column = 0  # Part 2: columns turned so far
        self.burned = 0  # cards put aside by an undone answer: every later deal skips them
        self.answering = None
        self._show_turn()

    def _show_turn(self):
        """`turn` (the station that pulses): the player answering, or the one giving."""
        turn = None
        if self.phase == GUESS:
            turn = self.seat
        elif self.phase == GIVE:
            turn = self.giver
        self.turn = turn

    def state_fields(self):
        """Red or Black's own `state` fields (docs/protocol.md): the penalty table (`given`,
        `received`), the columns of Part 2 turned so far (`column`), and a giving under way:
        `giver` (or None), `to_give` (the penalties handed out), `picks` ([[receiver, count]] not
        yet confirmed). After an undo they are what the room sees, so a host keeps no model of its
        own; the hands come with the `ask` prompt."""
        return (
            ("given", list(self.given)),
            ("received", list(self.received)),
            ("column", self.column),
            ("giver", None if self.giver < 0 else self.giver + 1),
            ("to_give", self.to_give if self.giver >= 0 else 0),
            ("picks", [[r + 1, c] for r, c in self.picks]),
        )

    def is_scoring(self, entry):
        """UNDO takes back an answer, a pick, a take-back, a confirmation or a turned column (the
        card stays the same: the deck is fixed by the seed). Moving the suit cursor is not a
        decision: UNDO drops it with the decision before it."""
        return entry[ENTRY_KIND] in ("guess", "pick", "unpick", "confirm", "column")

    def undo(self):
        """Game.undo, with one rule for answers (docs/games/redblack.md "Undo"): a card once
        turned over is never dealt again. An answer taken back puts its card aside (a "burn"
        entry), so the player answers again for the next card of the deck, one nobody has seen;
        burns are kept by every later undo (they are re-appended after the cut). Refused when
        no spare card is left for Part 2's lines. Raises GameError("nothing_to_undo" |
        "not_now")."""
        log = self.log
        cut = len(log) - 1
        while cut >= 0 and not self.is_scoring(log[cut]):
            cut -= 1
        burns = len([e for e in log[cut + 1 :] if e[ENTRY_KIND] == "burn"]) if cut >= 0 else 0
        guesses = len([e for e in log[cut:] if e[ENTRY_KIND] == "guess"]) if cut >= 0 else 0
        if guesses and self.burned + guesses > self.spare_cards():
            raise GameError("not_now", "no spare card left to replace it: the answer stands")
        dropped = Game.undo(self)
        for _ in range(burns + guesses):
            Game.record(self, ("burn",))
        return dropped

    def spare_cards(self):
        """Cards of the deck that neither part needs: how many answers can be taken back."""
        return 52 - ROUNDS * self.players - 2 * COLUMNS

    def eligible(self):
        """Stations that take part now (dim on the LEDs): while giving, the possible receivers."""
        if self.phase == GIVE:
            return [p for p in range(self.players) if p != self.giver]
        return list(range(self.players))

    def left(self):
        """Penalties the giver has still to hand out."""
        return self.to_give - sum([c for _, c in self.picks])

    # ---------------------------------------------------------------- hooks (raise GameError)
    def status(self):
        if self.phase == GUESS:
            return "R%d" % self.round
        if self.phase == LINES or self.column:
            return "col %d/%d" % (self.column, COLUMNS)
        return ""

    def screen(self, held):
        """While a player holds their buzzer in a guess: that player's own cards. Otherwise the
        card just turned, large (rank and suit letter), whose it was and what it did; in Part 2
        the column just turned. Only turned cards (the deck stays secret)."""
        phase = self.phase
        if phase == GUESS and held:
            p = held[-1]
            cards = [card_text(c) for c in self.hands[p]]
            shown = " ".join(cards) if cards else "none yet"
            return [(1, "P%d's cards" % (p + 1)), (2, shown)]
        lines = []
        if phase == LINES or (phase == GIVE and self.column):
            if self.column:
                i = self.column - 1
                give_line = self.options["give_line"]
                take_line = "bottom" if give_line == "top" else "top"
                give = card_text(self.line(give_line)[i])
                take = card_text(self.line(take_line)[i])
                lines.append((1, "column %d: %d each" % (self.column, self.column)))
                lines.append((2, "%s %s" % (give, take)))
                lines.append((1, "give    take"))
            else:
                lines.append((1, "two lines of 8"))
        elif self.last is not None:
            player, card = self.last
            lines.append((3, card_text(card)))
            name = "%s of %s" % (RANKS[card // 4], SUIT_NAMES[card % 4])
            lines.append((1, "P%d %s" % (player + 1, name)))
        if phase == GIVE:
            lines.append((1, "P%d gives %d more" % (self.giver + 1, self.left())))
        elif phase == GUESS:
            lines.append((1, "P%d answers" % (self.seat + 1)))
        return lines

    def doing(self):
        """Game.doing: who is asked what (with the cards it is asked against), who hands out
        penalties, the column turned next. Only turned cards."""
        phase = self.phase
        if phase == GUESS:
            hand = self.hands[self.seat]
            ask = ("red or black?", "higher or lower than %s?", "between or outside %s?",
                   "which suit?")[self.round - 1]
            if "%s" in ask:
                ask = ask % " and ".join([card_text(c) for c in hand[: self.round - 1]])
            return "P%d, round %d: %s" % (self.seat + 1, self.round, ask)
        if phase == GIVE:
            return "P%d hands out %d %s: %d left" % (
                self.giver + 1, self.to_give, "penalty" if self.to_give == 1 else "penalties",
                self.left())
        if phase == LINES:
            return "part 2: ARM turns column %d of %d" % (self.column + 1, COLUMNS)
        return ""

    def buttons(self):
        """By phase (docs/games/redblack.md "Controls and buzzers")."""
        phase = self.phase
        if phase == GUESS:
            if self.round == 4:
                suit = SUIT_NAMES[self.cursor]
                return [("ARM", "next suit"), ("NO", "prev suit"), ("YES", suit)]
            answers = ANSWERS[self.round - 1]
            return [("YES", answers[0]), ("NO", answers[1])]
        if phase == GIVE:
            if self.left():
                return [("buzz", "+1 penalty"), ("NO", "take back")]
            return [("YES", "confirm"), ("NO", "take back")]
        if phase == LINES:
            return [("ARM", "column %d" % (self.column + 1))]
        return []

    def repeats(self, name):
        """ARM / NO held step the suit shown in round 4 (the cursor)."""
        return self.phase == GUESS and self.round == 4

    def control_entry(self, name):
        """ARM / YES / NO, by phase (docs/games/redblack.md "Controls"): rounds 1-3 YES = red /
        higher / between, NO = black / lower / outside; round 4 ARM / NO = next / previous suit
        (spades, hearts, diamonds, clubs), YES = the suit shown; giving YES = confirm, NO = take
        back the last pick; Part 2 ARM = turn the next column. Raises GameError("not_now")."""
        phase = self.phase
        if phase == GUESS:
            if self.round == 4:
                if name == "arm" or name == "no":
                    step = 1 if name == "arm" else -1
                    return ("cursor", (self.cursor + step) % 4)
                if name == "yes":
                    return ("guess", SUITS[self.cursor])
            elif name == "yes" or name == "no":
                return ("guess", ANSWERS[self.round - 1][0 if name == "yes" else 1])
            raise GameError("not_now", self._ask_hint())
        if phase == GIVE:
            if name == "yes":
                return self._confirm_entry()
            if name == "no":
                return self._take_back_entry()
            raise GameError("not_now", self._give_hint())
        if phase == LINES:
            if name == "arm":
                return ("column",)
            raise GameError("not_now", "ARM turns column %d of the two lines" % (self.column + 1))
        raise GameError("not_now", "the game is over")

    def arm_entry(self):
        """The `arm` command is the ARM button."""
        return self.control_entry("arm")

    hears_press = True  # (Game.hears_press)

    def press_entry(self, player, stamp):
        """While giving, a buzzer press hands one penalty to that player; otherwise nothing."""
        if self.phase != GIVE:
            return None
        return self._pick_entry(player, 1)

    def act_entry(self, args):
        """Host input (docs/games/redblack.md "act actions"): an answer by name (`player`, if
        given, must be the one whose turn it is), give (`player` receives `value` penalties,
        default 1), take_back, confirm, column."""
        action = args.get("action")
        player = args.get("player")
        if action in _ACT_ANSWERS:
            round_no, answer = _ACT_ANSWERS[action]
            if self.phase != GUESS:
                raise GameError("not_now", "nobody is answering now")
            if round_no != self.round:
                raise GameError("not_now", self._ask_hint())
            if player is not None and player != self.seat + 1:
                raise GameError("bad_value", "it is P%d's turn to answer" % (self.seat + 1))
            return ("guess", answer)
        if action == "give":
            if self.phase != GIVE:
                raise GameError("not_now", "nobody is handing out penalties")
            if player is None or not 1 <= player <= self.players:
                raise GameError("bad_value", "give needs player 1..%d" % self.players)
            count = args.get("value", 1)
            if count < 1:
                raise GameError("bad_value", "give: value is a number of penalties (1 or more)")
            return self._pick_entry(player - 1, count)
        if action == "take_back":
            if self.phase != GIVE:
                raise GameError("not_now", "nobody is handing out penalties")
            return self._take_back_entry()
        if action == "confirm":
            if self.phase != GIVE:
                raise GameError("not_now", "nobody is handing out penalties")
            return self._confirm_entry()
        if action == "column":
            if self.phase != LINES:
                raise GameError("not_now", "no column to turn now")
            return ("column",)
        raise GameError("unknown_action", "redblack actions: " + _ACTIONS)

    def _pick_entry(self, receiver, count):
        if receiver == self.giver:
            raise GameError(
                "bad_value", "P%d cannot give penalties to themselves" % (receiver + 1)
            )
        left = self.left()
        if count > left:
            if left == 0:
                raise GameError(
                    "not_now",
                    "all %d handed out: YES confirms, NO takes back the last" % self.to_give,
                )
            raise GameError("bad_value", "only %d left to hand out" % left)
        return ("pick", receiver, count)

    def _take_back_entry(self):
        if not self.picks:
            raise GameError("not_now", "no penalty handed out yet: " + self._give_hint())
        return ("unpick",)

    def _confirm_entry(self):
        if self.left():
            raise GameError("not_now", self._give_hint())
        return ("confirm",)

    def _ask_hint(self):
        hints = (
            "YES = red, NO = black",
            "YES = higher, NO = lower",
            "YES = between, NO = outside",
            "ARM / NO = next / previous suit, YES = confirm",
        )
        return "P%d answers round %d: %s" % (self.seat + 1, self.round, hints[self.round - 1])

    def _give_hint(self):
        return "P%d hands out %d more: press the receivers' buzzers, then YES" % (
            self.giver + 1,
            self.left(),
        )

    # ---------------------------------------------------------------- fold
    def step(self, entry):
        """Fold one entry: ("guess", answer), ("cursor", suit index 0..3), ("pick", receiver
        0-based, penalties), ("unpick",), ("confirm",), ("column",), ("end",). Returns events."""
        kind = entry[ENTRY_KIND]
        events = []  # type: list
        if kind == "guess":
            self._guess(entry[_GUESS_ANSWER], events)
        elif kind == "cursor":
            self.cursor = entry[_CURSOR_SUIT]
            events.append(("suit", (("player", self.seat + 1), ("suit", SUITS[self.cursor]))))
        elif kind == "pick" or kind == "unpick":
            if kind == "pick":
                receiver, count = entry[_PICK_RECEIVER], entry[_PICK_PENALTIES]
                self.picks.append((receiver, count))
            else:
                receiver, count = self.picks.pop()
            events.append(
                (
                    kind,
                    (
                        ("giver", self.giver + 1),
                        ("player", receiver + 1),
                        ("penalties", count),
                        ("left", self.left()),
                    ),
                )
            )
        elif kind == "confirm":
            self._confirm(events)
        elif kind == "column":
            self._turn_column(events)
        elif kind == "end":
            self._finish(events)
        elif kind == "burn":
            self.burned += 1
        else:
            raise ValueError("unknown redblack entry")
        self._show_turn()
        return events

    @property
    def deck(self):
        """The 52 cards (ints) in deal order, secret until each is turned over: shuffled from
        the game's PRNG when first asked for, the same on every refold (the PRNG draws nothing
        else, so a state taken before the deal, `_deck` None and the PRNG's first words, deals
        the same deck again). Not in `reset`: the shuffle was 2.9 ms of Red or Black's
        `new_game` at 200 MHz on the emulated RP2040."""
        deck = self._deck
        if deck is None:
            deck = list(range(52))
            self.prng.shuffle(deck)
            self._deck = deck
        return deck

    @deck.setter
    def deck(self, cards):
        self._deck = cards  # (a checkpoint of older firmware names it "deck")

    def _guess(self, answer, events):
        """Turn over the next card for the player whose turn it is (rulebook "1st Round" ..
        "4th Round"): right -> they give PENALTIES[round], wrong -> they take them."""
        player = self.seat
        round_no = self.round
        card = self.deck[(round_no - 1) * self.players + player + self.burned]
        hand = self.hands[player]
        opts = self.options
        right = is_right(round_no, answer, card, hand, opts["ace"], opts["equal"], opts["bound"])
        hand.append(card)
        self.last = (player, card)
        count = PENALTIES[round_no - 1]
        events.append(
            (
                "guess",
                (
                    ("player", player + 1),
                    ("round", round_no),
                    ("answer", answer),
                    ("card", card_text(card)),
                    ("right", right),
                    ("penalties", count),
                ),
            )
        )
        if right:
            self._start_giving(player, count, events)
            return
        self.received[player] += count
        events.append(
            ("take", (("player", player + 1), ("penalties", count), ("reason", "wrong")))
        )
        self._rescore(events)
        self._next_turn(events)

    def _start_giving(self, player, count, events):
        self.phase = GIVE
        self.giver = player
        self.to_give = count
        self.picks = []
        events.append(("give", (("player", player + 1), ("penalties", count))))

    def _confirm(self, events):
        """The giver's picks become penalties given and received."""
        giver = self.giver
        per = [0] * self.players
        for receiver, count in self.picks:
            per[receiver] += count
        to = []
        for p in range(self.players):
            if per[p]:
                to.append((p, per[p]))
                self.received[p] += per[p]
                self.given[giver] += per[p]
        events.append(("given", (("player", giver + 1), ("to", _counts(to)))))
        self.picks = []
        self.giver = -1
        self._rescore(events)
        if self.column:
            self._next_giver(events)
        else:
            self._next_turn(events)

    def _next_turn(self, events):
        """Part 1: the next player, the next round, or Part 2."""
        self.phase = GUESS
        self.seat += 1
        if self.seat == self.players:
            self.seat = 0
            self.round += 1
        if self.round > ROUNDS:
            self.phase = LINES
            events.append(
                ("lines", (("columns", COLUMNS), ("give_line", self.options["give_line"])))
            )
            return
        self.cursor = 0
        events += self.prompt_events()

    def prompt_events(self):
        """Part 1: the `ask` event of the question put now (player, round, question, the cards
        they already hold); nothing in the other phases."""
        if self.phase != GUESS:
            return []
        hand = [card_text(c) for c in self.hands[self.seat]]
        fields = (
            ("player", self.seat + 1),
            ("round", self.round),
            ("question", QUESTIONS[self.round - 1]),
            ("hand", hand),
        )
        return [("ask", fields)]

    def line(self, which):
        """The 8 cards of the "top" or "bottom" line (ints), dealt after Part 1: secret until
        turned."""
        start = ROUNDS * self.players + self.burned + (0 if which == "top" else COLUMNS)
        return self.deck[start : start + COLUMNS]

    def _turn_column(self, events):
        """Turn column i of both lines (rulebook "Second part of the game"): per held card of the
        same rank, the holder gives i (give line) or takes i (take line) penalties."""
        i = self.column
        give_line = self.options["give_line"]
        take_line = "bottom" if give_line == "top" else "top"
        give_card = self.line(give_line)[i]
        take_card = self.line(take_line)[i]
        self.column = i + 1
        givers = []
        takers = []
        for p in range(self.players):
            gives = takes = 0
            for card in self.hands[p]:
                if card // 4 == give_card // 4:
                    gives += self.column
                if card // 4 == take_card // 4:
                    takes += self.column
            if gives:
                givers.append((p, gives))
            if takes:
                takers.append((p, takes))
                self.received[p] += takes
        events.append(
            (
                "column",
                (
                    ("column", self.column),
                    ("give", card_text(give_card)),
                    ("take", card_text(take_card)),
                    ("givers", _counts(givers)),
                    ("takers", _counts(takers)),
                ),
            )
        )
        if takers:
            self._rescore(events)
        self.pending = givers  # several givers give in seat order, P1 first
        self._next_giver(events)

    def _next_giver(self, events):
        if self.pending:
            player, count = self.pending.pop(0)
            self._start_giving(player, count, events)
            return
        self.phase = LINES
        if self.column == COLUMNS:
            self._finish(events)

    def score_event(self):
        """`score` (given minus received, P1 first) with the penalty table it comes from
        (`given`, `received`): a host draws the table, never adds penalties up."""
        return ("score", (("scores", list(self.scores)), ("unit", self.unit),
                          ("given", list(self.given)), ("received", list(self.received))))

    def _rescore(self, events):
        self.scores = [self.given[p] - self.received[p] for p in range(self.players)]
        events.append(self.score_event())

    def _finish(self, events):
        """The accounts (rulebook "Second part of the game", last paragraph): the full table."""
        self.phase = OVER
        self.giver = -1
        self.picks = []
        self.scores = [self.given[p] - self.received[p] for p in range(self.players)]
        ranking = [{"place": pl, "player": p, "score": s} for pl, p, s in self.ranking()]
        events.append(
            (
                "table",
                (
                    ("given", list(self.given)),
                    ("received", list(self.received)),
                    ("difference", list(self.scores)),
                    ("ranking", ranking),
                ),
            )
        )

    def ranking(self):
        """[(place, player 1-based, given - received)], highest difference first; equal
        differences share a place (shared/rules/README.md "redblack": highest difference wins)."""
        return rank_highest_first([self.given[p] - self.received[p] for p in range(self.players)])

    # ---------------------------------------------------------------- LEDs
    def decorate(self, frame, now_ms, colours, station_pixels, marker_pixels):
        """Marker bar: Part 1 the round (1..4 pixels in the asked player's colour) and, in round
        4, the suit chosen (pixels 7..10 = spades, hearts, diamonds, clubs; the chosen one bright,
        red or white); while giving, one pixel per penalty still to hand out in the giver's
        colour; Part 2 one dim pixel per column turned. Stations: while giving, receivers already
        picked show full colour; in Part 1 the player who turned the last card shows its colour
        (red, or white for black) while another player answers. Only turned cards are shown."""
        bar = station_pixels
        for i in range(marker_pixels):
            frame[bar + i] = (0, 0, 0)
        phase = self.phase
        if phase == GUESS:
            colour = colours[self.seat]
            for i in range(min(self.round, marker_pixels)):
                frame[bar + i] = colour
            if self.round == 4 and marker_pixels >= 10:
                for s in range(4):
                    red = s == 1 or s == 2
                    if s == self.cursor:
                        frame[bar + 6 + s] = _RED if red else _BLACK
                    else:
                        frame[bar + 6 + s] = _DIM
            if self.last is not None:
                player, card = self.last
                if player != self.seat and player < station_pixels:
                    frame[player] = _RED if is_red(card) else _BLACK
        elif phase == GIVE:
            colour = colours[self.giver]
            for i in range(min(self.left(), marker_pixels)):
                frame[bar + i] = colour
            for receiver, _ in self.picks:
                if receiver < station_pixels:
                    frame[receiver] = colours[receiver]
        elif phase == LINES:
            for i in range(min(self.column, marker_pixels)):
                frame[bar + i] = _DIM
