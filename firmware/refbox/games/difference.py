"""Difference: race to spot the two differences with the reference card; first to empty their pile.

Rules: shared/rules/000_a67c491cd46e781e.txt (Difference rulebook) and shared/rules/README.md
section "difference" (house reading).
- Setup: cards per player by player count, 2->12, 3->8, 4->6, 5->4 (4 set aside), 6->4 (rulebook
  "Setup"). The device tracks each player's pile.
- Every player still holding cards races (rulebook "Gameplay": everyone looks at once). The first
  press has the floor and shows the two differences; the table judges with YES / NO (or `judge`).
  Correct: that player's card becomes the reference, their pile -1. Wrong: pile unchanged, and that
  player is locked out until the reference changes (option `retry_after_wrong`, default off). If
  every player still racing is locked out, all those lockouts clear, so the game never stalls
  (house).
- Beginner variant (option `beginner`): the player with the floor may put their top card under
  their pile instead of answering, once per card. Gesture: press your buzzer again while you have
  the floor.
- Advanced variant (option `advanced`): several reference cards; the table judges all adjacent
  pairs at once. Counting is identical, so the device only records the choice.
- First player at 0 wins; with `play_on` (default on) the others play on for 2nd, 3rd... until one
  player is left (rulebook "End of the Game").
"""

from refbox.games.base import ENTRY_KIND, RaceGame, false_start_option, flag, option

# Difference's log entries, the kind first (ENTRY_KIND): RaceGame's ("arm",), ("win", player),
# ("judge", correct) and ("end",) (read by RaceGame.step), and its own ("skip",): the beginner
# variant's card put under by the player with the floor. Players 0-based.

CARDS_PER_PLAYER = {2: 12, 3: 8, 4: 6, 5: 4, 6: 4}

READY = "ready"
RACING = "racing"
ANSWERING = "answering"
OVER = "over"


class Difference(RaceGame):
    name = "difference"
    min_players = 2
    max_players = 6
    OPTIONS = (
        false_start_option(),
        option("retry_after_wrong", False, flag, (False, True)),
        option("beginner", False, flag, (False, True)),
        option("advanced", False, flag, (False, True)),
        option("play_on", True, flag, (True, False)),
    )

    def reset(self):
        n = CARDS_PER_PLAYER[self.players]
        # a pile per player, top card first; True marks a card already put under once (beginner)
        self.piles = [[False] * n for _ in range(self.players)]
        self.locked = []  # judged wrong on the current reference card
        self.finished = []  # players in the order they emptied their piles
        self.answering = None
        self.phase = READY
        self.reference = 1  # reference cards laid so far (the first is dealt at setup)
        self.scores = [n] * self.players  # cards left, kept in step with the piles

    unit = "cards"

    def eligible(self):
        return [
            p
            for p in range(self.players)
            if self.piles[p] and p not in self.locked and p not in self.finished
        ]

    def question_id(self):
        """A new reference card is a new question (the race reopens without a ready phase)."""
        return self.reference

    def is_scoring(self, entry):
        return entry[ENTRY_KIND] in ("judge", "skip")

    def doing(self):
        """Game.doing: the first card, the race for the symbol, who names it."""
        if self.phase == READY:
            return "ARM turns the first reference card"
        if self.phase == RACING:
            return "card %d: find the symbol in common" % self.reference
        if self.phase == ANSWERING and self.answering is not None:
            return "P%d names the symbol in common" % (self.answering + 1)
        return ""

    def buttons(self):
        """ARM turns the first reference card; then race and judge (RaceGame); beginner: the
        player with the floor presses again to put their card under."""
        if self.phase == READY:
            return [("ARM", "first card")]
        shown = RaceGame.buttons(self)
        if self.phase == ANSWERING and self.options["beginner"] and self.answering is not None:
            shown.append(("P%d" % (self.answering + 1), "card under"))
        return shown

    hears_press = True  # (Game.hears_press)

    def press_entry(self, player, stamp):
        """Beginner variant: the player with the floor presses again to put their card under."""
        if not self.options["beginner"] or self.phase != ANSWERING or player != self.answering:
            return None
        if self.piles[player][0]:
            return None  # that card was already put under once
        return ("skip",)

    # ------------------------------------------------------------------ fold
    def decide(self, player, entry):
        if entry[ENTRY_KIND] != "skip":
            raise ValueError("unknown difference entry")
        pile = self.piles[player]
        pile.pop(0)
        pile.append(True)
        return self._next([("skip", (("player", player + 1), ("cards", len(pile))))])

    def judged(self, player, correct):
        events = [("judge", (("player", player + 1), ("correct", correct)))]  # type: list
        if correct:
            self.piles[player].pop(0)
            self.reference += 1
            for p in self.locked:
                events.append(("unlock", (("player", p + 1),)))
            self.locked = []  # a new reference card: everyone may try again
            self.scores = [len(pile) for pile in self.piles]
            events.append(self.score_event())
            if not self.piles[player]:
                self.finished.append(player)
                place = len(self.finished)
                events.append(("finished", (("player", player + 1), ("place", place))))
                left = [p for p in range(self.players) if p not in self.finished]
                if len(left) == 1:
                    self.finished += left  # the last one holding cards takes the last place
                if not self.options["play_on"] or len(left) <= 1:
                    self.phase = OVER
        elif not self.options["retry_after_wrong"]:
            self.locked.append(player)
            events.append(("lockout", (("player", player + 1), ("reason", "wrong"), ("ms", None))))
            if not self.eligible():  # nobody left to race: no dead end
                for p in self.locked:
                    events.append(("unlock", (("player", p + 1),)))
                self.locked = []
        return self._next(events)

    def _next(self, events):
        """After a decision: the floor is free, the race goes on (unless the game is over)."""
        self.answering = None
        self.scores = [len(pile) for pile in self.piles]
        if self.phase != OVER:
            self.phase = RACING
        return events

    def score_event(self):
        """`score` (cards left, P1 first) with `places`: each player's finishing place, 0 while
        they still hold cards (an undo that gives cards back takes the place back too)."""
        places = [0] * self.players
        for i in range(len(self.finished)):
            places[self.finished[i]] = i + 1
        return ("score", (("scores", list(self.scores)), ("unit", self.unit),
                          ("places", places)))

    def ranking(self):
        """[(place, player, cards left)], 1-based: finishers in finishing order, then the others by
        cards left (equal counts share a place)."""
        rest = [p for p in range(self.players) if p not in self.finished]
        rest.sort(key=lambda p: (len(self.piles[p]), p))
        result = []  # type: list
        for p in self.finished:  # the last player left may still hold cards
            result.append((len(result) + 1, p + 1, len(self.piles[p])))
        for i, p in enumerate(rest):
            left = len(self.piles[p])
            if i and left == len(self.piles[rest[i - 1]]):
                place = result[-1][0]
            else:
                place = len(result) + 1
            result.append((place, p + 1, left))
        return result
