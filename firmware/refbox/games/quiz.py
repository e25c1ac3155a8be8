"""Quiz: a lockout buzzer for quiz night, and the first client of the arbiter.

Someone reads a question, then arms the buzzers (ARM control or `arm`). The first player in wins
the right to answer; the table judges. Correct: +1 point and on to the next question. Wrong: that
player is out until the next question and the race reopens among the others; if nobody is left the
question is dropped. Undo takes back the last judgement. With `target` > 0 the first to reach it
wins; otherwise the game ends with `end`. Source: issue "Foundation", item 6; rules/README.md
"Common".
"""

from refbox.games.base import RaceGame, false_start_option, int_in, option, rank_highest_first

READY = "ready"  # question being read; buzzers not armed
RACING = "racing"  # buzzers armed
ANSWERING = "answering"  # a player answers; the table judges
OVER = "over"


class Quiz(RaceGame):
    name = "quiz"
    OPTIONS = (
        false_start_option(),
        option("target", 0, int_in(0, 999), (0, 3, 5, 10, 15, 20)),
    )

    def reset(self):
        self.scores = [0] * self.players
        self.phase = READY
        self.question = 1
        self.out = []  # players judged wrong on this question
        self.answering = None

    def eligible(self):
        """0-based players who may race now."""
        return [p for p in range(self.players) if p not in self.out]

    def is_scoring(self, entry):
        return entry[0] == "judge"

    # ------------------------------------------------------------------ fold
    def judged(self, player, correct):
        events = []  # type: list
        events.append(("judge", (("player", player + 1), ("correct", correct))))
        if correct:
            self.scores[player] += 1
            events.append(self.score_event())
            self._next_question(events)
            target = self.options["target"]
            if target and self.scores[player] >= target:
                self.phase = OVER
        else:
            self.out.append(player)
            events.append(("lockout", (("player", player + 1), ("reason", "wrong"), ("ms", None))))
            self.answering = None
            if self.eligible():
                self.phase = RACING
            else:
                self._next_question(events)
        return events

    def _next_question(self, events):
        """The next question: everyone judged wrong on this one is back in (an `unlock` each)."""
        for p in self.out:
            events.append(("unlock", (("player", p + 1),)))
        self.question += 1
        self.out = []
        self.answering = None
        self.phase = READY

    def ranking(self):
        """[(place, player, points)], 1-based, most points first; equal points share a place."""
        return rank_highest_first(self.scores)
