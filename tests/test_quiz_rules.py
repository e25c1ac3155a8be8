"""Quiz rules on the pure core: the Referee driven directly (no simulator), so hypothesis can try
many games. Teams, point values, negative marking, cancel, hand adjustments, next in line, the
end of the game and sudden death; every game is also refolded from its log (undo, replay and
resume take that path) and must give the same state.
"""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from refbox.games.quiz import Quiz
from refbox.protocol import encode_event
from refbox.referee import Referee
from refbox.ticks import Stamp

SETTLE_US = 4000  # past the decision of a race (confirmation, capture lag, a pass)


class Table:
    """A Referee with a quiz, events collected as dicts; time moves only when told."""

    def __init__(self, players=4, **options):
        self.lines = []
        self.ref = Referee(8, self._emit, lambda hz, ms: None, lambda: b"0123456789abcdef",
                           lambda: ())
        self.t = 1000
        self.ref.now = self.t
        self.ref.new_game("quiz", players, options)

    def _emit(self, name, fields=()):
        line = encode_event(name, fields)
        assert len(line.encode()) <= 512 and line.isascii(), line
        self.lines.append(json.loads(line))

    def events(self, kind):
        return [ev for ev in self.lines if ev["ev"] == kind]

    def advance(self, us):
        self.t += us
        self.ref.tick(self.t, Stamp(self.t), Stamp(self.t))

    def send(self, cmd, **fields):
        fields["cmd"] = cmd
        self.ref.command_line(json.dumps(fields).encode())

    def control(self, name):
        self.ref.control(name)

    def race(self, *presses):
        """Arm, then presses [(player 1-based, µs after the cue, ns)] delivered in the order
        given, then time for the decision."""
        self.control("arm")
        base = self.t
        for player, us, ns in presses:
            self.ref.press(player - 1, Stamp(base + 100 + us, ns))
        self.advance(max([us for _, us, _ in presses] + [0]) + SETTLE_US)

    @property
    def game(self):
        return self.ref.game

    def errors(self):
        return [ev["code"] for ev in self.events("error")]


def refolded(game):
    """A fresh game folded from `game`'s log: what undo, replay and resume compute."""
    copy = Quiz(game.players, game.options, game.seed)
    for entry in game.log:
        copy.record(entry)
    return copy


def same_state(a, b):
    keys = ("scores", "phase", "question", "value", "out", "answering", "sudden", "names",
            "team_names", "opened", "floor_at", "warned", "expired", "read", "buzzed")
    assert [getattr(a, k) for k in keys] == [getattr(b, k) for k in keys]
    assert a.in_line() == b.in_line() or [p for _, p in a.in_line()] == [
        p for _, p in b.in_line()
    ]


# ---------------------------------------------------------------------------------- teams
def test_a_wrong_answer_locks_the_whole_team_out():
    table = Table(4, teams=[[1, 3], [2, 4]])
    table.race((3, 0, 0), (1, 500, 0))
    assert table.game.answering == 2
    table.control("no")
    locked = [ev["player"] for ev in table.events("lockout")]
    assert locked == [1, 3]
    assert table.events("armed")[-1]["players"] == [2, 4]
    table.ref.press(0, Stamp(table.t + 100))  # P1's team is out: the press is not a race entry
    table.ref.press(3, Stamp(table.t + 200))
    table.advance(SETTLE_US)
    assert table.game.answering == 3
    table.control("yes")
    score = table.events("score")[-1]
    assert score["scores"] == [0, 0, 0, 1] and score["teams"] == [0, 1]
    assert [ev["player"] for ev in table.events("unlock")] == [1, 3]


def test_team_ranking_and_per_player_ranking_at_the_end():
    table = Table(4, teams=[[1, 2], [3, 4]], target=3)
    for player in (1, 2, 3, 2):
        table.race((player, 0, 0))
        table.control("yes")
    (team,) = table.events("team_ranking")
    assert team["ranking"] == [
        {"place": 1, "team": 1, "score": 3},
        {"place": 2, "team": 2, "score": 1},
    ]
    over = table.events("game_over")[0]
    assert [(r["player"], r["score"]) for r in over["ranking"]][:2] == [(2, 2), (1, 1)]
    assert table.game.champions() == [0, 1]


def test_team_colours_one_per_team():
    table = Table(4, teams=[[1, 4], [2, 3]])
    colours = [(10 * i, 0, 0) for i in range(8)]
    mapped = table.game.station_colours(colours)
    assert mapped[:4] == [colours[0], colours[1], colours[1], colours[0]]
    assert mapped[4:] == colours[4:]


@pytest.mark.parametrize(
    "teams",
    [[[1, 2], [3]], [[1, 2, 3, 4]], [[1, 2], [2, 3, 4]], [[1, 2], [3, 5]], [[1], [2], [3], []]],
)
def test_teams_must_hold_every_player_once(teams):
    table = Table(4)
    table.send("new_game", game="quiz", players=4, options={"teams": teams})
    assert table.errors() == ["bad_option"]
    assert len(table.events("game")) == 1  # the game in progress goes on
    assert table.game.phase == "ready"


# ---------------------------------------------------------------------------------- names
def test_names_are_events_kept_by_undo_and_sent_after_state():
    table = Table(3, teams=[[1], [2, 3]])
    table.race((1, 0, 0))
    table.control("yes")
    table.send("act", action="name", player=2, text="  Zo\u00eb ")
    table.send("act", action="name", team=2, text="Owls")
    table.send("undo")
    assert table.game.scores == [0, 0, 0]
    assert table.game.names[1] == "Zo\u00eb" and table.game.team_names[1] == "Owls"
    table.lines = []
    table.send("state")
    assert [ev["ev"] for ev in table.lines] == ["state", "name", "name", "buttons"]
    assert table.lines[1] == {"ev": "name", "player": 2, "team": None, "name": "Zo\u00eb"}
    table.send("act", action="name", player=2, text="")
    assert table.lines[-1]["name"] is None and table.game.names[1] is None


@pytest.mark.parametrize(
    "fields, code",
    [
        ({"player": 2, "text": "x" * 17}, "bad_value"),
        ({"player": 2, "text": "a\u0007b"}, "bad_value"),
        ({"player": 2, "text": "a\u0085b"}, "bad_value"),
        ({"player": 9, "text": "Al"}, "bad_value"),
        ({"team": 3, "text": "Al"}, "bad_value"),
        ({"player": 1, "team": 1, "text": "Al"}, "bad_value"),
        ({"player": 1}, "bad_value"),
    ],
)
def test_bad_names_are_refused_and_change_nothing(fields, code):
    table = Table(3, teams=[[1], [2, 3]])
    before = list(table.game.log)
    table.send("act", action="name", **fields)
    assert table.errors() == [code]
    assert table.game.log == before


# ---------------------------------------------------------------------------------- points
def test_points_per_question_and_negative_marking():
    table = Table(3, points=10, wrong_points=-5)
    table.send("arm", points=30)
    table.ref.press(1, Stamp(table.t + 100))
    table.advance(SETTLE_US)
    table.control("no")
    assert table.events("judge")[-1] == {"ev": "judge", "player": 2, "correct": False,
                                         "points": -5, "interrupt": False, "power": False}
    table.ref.press(0, Stamp(table.t + 100))
    table.advance(SETTLE_US)
    table.control("yes")
    assert table.game.scores == [30, -5, 0]
    assert table.events("question")[0] == {"ev": "question", "question": 1, "points": 30,
                                           "sudden_death": False, "power": 0}
    table.race((3, 0, 0))  # ARM from the button: the default value
    table.control("yes")
    assert table.game.scores == [30, -5, 10]
    for bad in (0, 1001, True):
        table.send("arm", points=bad)
    assert table.errors() == ["bad_value", "bad_value", "bad_field"]


def test_hand_adjustment_is_logged_shown_and_undone():
    table = Table(3, target=5)
    table.send("act", action="adjust", player=3, value=4)
    assert table.events("adjust") == [{"ev": "adjust", "player": 3, "points": 4}]
    assert table.events("score")[-1]["scores"] == [0, 0, 4]
    table.send("undo")
    assert table.game.scores == [0, 0, 0]
    table.send("act", action="adjust", player=3, value=5)
    assert table.game.phase == "over"  # the target counts adjusted points too
    table.send("undo")
    for fields in ({"player": 3, "value": 0}, {"player": 4, "value": 1}, {"value": 1}):
        table.send("act", action="adjust", **fields)
    assert table.errors() == ["bad_value"] * 3


def test_other_games_take_no_point_values_at_arm():
    table = Table(3)
    table.send("new_game", game="difference", players=3)
    table.send("arm", points=5)
    assert table.errors() == ["bad_value"]


# ---------------------------------------------------------------------------------- cancel
def test_no_while_armed_cancels_the_question_and_undo_brings_it_back():
    table = Table(3)
    table.ref.press(1, Stamp(table.t + 10))  # a false start before the cue
    table.advance(1000)
    table.control("arm")
    table.control("no")
    assert table.events("dead") == [{"ev": "dead", "question": 1, "reason": "cancel"}]
    assert table.game.phase == "ready" and table.game.question == 1  # not counted
    table.control("undo")
    assert table.game.phase == "racing"
    assert table.events("armed")[-1]["players"] == [1, 2, 3]


def test_host_cancel_while_answering_and_refused_when_nothing_is_open():
    table = Table(3, next_in_line=True)
    table.send("act", action="cancel")
    table.race((2, 0, 0), (3, 900, 0))
    table.send("act", action="cancel")
    assert table.errors() == ["not_now"]
    assert table.events("dead")[-1]["reason"] == "cancel"
    assert table.game.answering is None and table.game.scores == [0, 0, 0]
    table.race((1, 0, 0))
    assert table.game.answering == 0  # the arbiter follows: a new race after a cancel


# ---------------------------------------------------------------------------------- next in line
def test_the_floor_passes_in_stamp_order_with_the_margins():
    table = Table(4, next_in_line=True)
    # delivered out of stamp order: P4's press (earlier stamp) is accepted after P2's
    table.race((1, 0, 0), (2, 2500, 0), (4, 1200, 500))
    table.ref.press(2, Stamp(table.t + 50))  # P3 presses while P1 answers
    table.advance(1000)
    assert table.events("race")[0]["winner"] == 1
    table.control("no")
    table.control("no")
    table.control("no")
    passes = table.events("next_in_line")
    assert [ev["player"] for ev in passes] == [4, 2, 3]
    assert passes[0]["behind_ns"] == 1200500 and passes[0]["waiting"] == 2
    assert passes[1]["behind_ns"] == 2500000
    table.control("no")  # nobody left in line, nobody left at all: the question is dead
    assert table.events("dead") == [{"ev": "dead", "question": 1, "reason": "wrong"}]
    assert table.game.phase == "ready" and table.game.question == 2


def test_when_the_line_is_empty_the_race_reopens():
    table = Table(4, next_in_line=True)
    table.race((2, 0, 0))
    table.control("no")
    assert table.events("next_in_line") == []
    assert table.events("armed")[-1]["players"] == [1, 3, 4]
    assert table.game.phase == "racing"


def test_next_in_line_is_per_team_and_skips_locked_out_players():
    table = Table(4, next_in_line=True, teams=[[1, 2], [3, 4]], false_start=1000)
    table.ref.press(3, Stamp(table.t + 10))  # P4 false-starts: locked for 1 s
    table.advance(2000)
    table.race((1, 0, 0), (2, 100, 0), (4, 150, 0), (3, 3000, 0))
    table.control("no")
    (passed,) = table.events("next_in_line")
    assert passed["player"] == 3 and passed["waiting"] == 0  # P2: same team as P1; P4 locked


def test_an_undo_of_the_pass_gives_the_floor_back():
    table = Table(3, next_in_line=True)
    table.race((1, 0, 0), (3, 700, 0))
    table.control("no")
    assert table.game.answering == 2
    table.control("undo")
    assert table.game.answering == 0 and table.game.in_line()[0][1] == 2
    same_state(table.game, refolded(table.game))


@st.composite
def lines(draw):
    players = draw(st.integers(2, 8))
    teamed = draw(st.booleans())
    order = draw(st.permutations(range(1, players + 1)))
    teams = None
    if teamed and players >= 2:
        cut = draw(st.integers(1, players - 1))
        teams = [sorted(order[:cut]), sorted(order[cut:])]
    pressers = draw(st.lists(st.integers(1, players), min_size=1, max_size=players, unique=True))
    offsets = [draw(st.sampled_from([0, 56, 112, 900, 1800])) for _ in pressers]  # ns
    offsets = [o + draw(st.integers(0, 3)) * 1000000 for o in offsets]
    delivery = draw(st.permutations(range(len(pressers))))
    return players, teams, pressers, offsets, delivery


@given(lines())
def test_next_in_line_always_follows_the_stamps(case):
    players, teams, pressers, offsets, delivery = case
    options = {"next_in_line": True}
    if teams:
        options["teams"] = teams
    table = Table(players, **options)
    table.control("arm")
    base = table.t + 100
    for i in delivery:
        us, ns = divmod(offsets[i], 1000)
        table.ref.press(pressers[i] - 1, Stamp(base + us, ns))
    table.advance(3000 + SETTLE_US)
    game = table.game
    team_of = game.team_of
    holders = [game.answering]
    for _ in range(len(pressers) + 1):
        if game.phase != "answering":
            break
        table.control("no")
        if game.phase == "answering":
            holders.append(game.answering)
    # expected: each team's earliest press, by stamp; equal stamps in any order (drawn)
    best = {}
    for p, off in zip(pressers, offsets, strict=True):
        t = team_of[p - 1]
        if t not in best or off < best[t][0]:
            best[t] = (off, p - 1)
    expected = sorted(best.values())
    got = [offsets[pressers.index(h + 1)] for h in holders]
    assert got == [off for off, _ in expected]
    assert len({team_of[h] for h in holders}) == len(holders)
    for h in holders:
        assert best[team_of[h]][0] == offsets[pressers.index(h + 1)]
    same_state(game, refolded(game))


# ---------------------------------------------------------------------------------- the end
def test_questions_limit_then_sudden_death_among_the_tied():
    table = Table(3, questions=2, sudden_death=True)
    table.race((1, 0, 0))
    table.control("yes")
    table.race((2, 0, 0))
    table.control("yes")
    assert table.events("sudden_death") == [{"ev": "sudden_death", "players": [1, 2]}]
    assert table.game.phase == "ready"
    table.control("arm")
    assert table.events("armed")[-1]["players"] == [1, 2]
    assert table.events("question")[-1]["sudden_death"] is True
    table.ref.press(2, Stamp(table.t + 100))  # P3 is not in the play-off
    table.ref.press(1, Stamp(table.t + 200))
    table.advance(SETTLE_US)
    table.control("no")  # P2 wrong: P1 may still answer
    table.ref.press(0, Stamp(table.t + 100))
    table.advance(SETTLE_US)
    table.control("yes")
    over = table.events("game_over")[0]
    assert over["ranking"][0] == {"place": 1, "player": 1, "score": 2}


def test_questions_limit_without_sudden_death_ends_tied():
    table = Table(2, questions=2)
    table.race((1, 0, 0))
    table.control("yes")
    table.control("arm")
    table.control("no")  # cancelled: does not count
    assert table.game.phase == "ready"
    table.race((2, 0, 0))
    table.control("yes")
    over = table.events("game_over")[0]
    assert [r["place"] for r in over["ranking"]] == [1, 1]


def test_sudden_death_question_that_goes_dead_is_asked_again():
    table = Table(2, questions=1, sudden_death=True, wrong_points=0)
    table.race((1, 0, 0))
    table.control("no")
    table.ref.press(1, Stamp(table.t + 100))
    table.advance(SETTLE_US)
    table.control("no")  # both wrong: dead, still tied at 0
    assert table.events("sudden_death") == [{"ev": "sudden_death", "players": [1, 2]}]
    table.race((2, 0, 0))
    table.control("no")
    table.ref.press(0, Stamp(table.t + 100))
    table.advance(SETTLE_US)
    table.control("no")
    assert table.game.phase == "ready" and len(table.events("sudden_death")) == 1
    table.race((2, 0, 0))
    table.control("yes")
    assert table.events("game_over")[0]["ranking"][0]["player"] == 2


def test_target_is_per_team():
    table = Table(4, teams=[[1, 2], [3, 4]], target=2)
    table.race((1, 0, 0))
    table.control("yes")
    table.race((2, 0, 0))
    table.control("yes")
    assert table.game.phase == "over"


@given(
    st.lists(
        st.tuples(st.sampled_from(["race", "yes", "no", "cancel", "adjust", "undo", "wait"]),
                  st.integers(1, 4), st.integers(-3, 3)),
        max_size=25,
    ),
    st.sampled_from([{}, {"buzz_s": 2, "answer_s": 6}, {"answer_s": 6, "answer_timeout": "wrong"},
                     {"interrupt": -5, "buzz_s": 2}]),
)
def test_any_quiz_game_refolds_to_the_same_state(actions, timers):
    table = Table(4, teams=[[1, 2], [3], [4]], next_in_line=True, wrong_points=-2, points=3,
                  questions=6, sudden_death=True, **timers)
    for action, player, value in actions:
        if table.game.phase == "over":
            break
        if action == "race":
            if table.game.phase == "ready":
                table.race((player, 0, 0), ((player % 4) + 1, 300, 0))
        elif action in ("yes", "no"):
            table.control(action)
        elif action == "cancel":
            table.send("act", action="cancel")
        elif action == "adjust" and value:
            table.send("act", action="adjust", player=player, value=value)
        elif action == "undo":
            table.send("undo")
        elif action == "wait":
            for _ in range(value + 4):  # 0.5 to 3.5 s, a loop pass every 500 ms
                table.advance(500000)
        same_state(table.game, refolded(table.game))
    game = table.game
    assert sum(game.team_scores()) == sum(game.scores)


def test_leds_one_colour_a_team_and_the_winning_team_blinks():
    from refbox.leds import render

    colours = [(200, 0, 0), (0, 200, 0), (0, 0, 200), (200, 200, 0), (0, 200, 200),
               (200, 0, 200), (90, 90, 90), (30, 60, 90)]
    table = Table(4, teams=[[1, 3], [2, 4]], target=1)
    table.control("arm")
    frame = render(table.ref, 0, colours, 8, 10)
    assert frame[0] == frame[2] == colours[0] and frame[1] == frame[3] == colours[1]
    table.ref.press(3, Stamp(table.t + 100))
    table.advance(SETTLE_US)
    table.control("yes")
    assert table.game.phase == "over"
    lit = render(table.ref, 250, colours, 8, 10)  # the blink's on phase
    assert lit[1] == lit[3] == colours[1] and lit[0] == lit[2] != colours[0]
    assert lit[8 + 2] == colours[1]  # the chase in the winning team's colour


def test_the_menu_sets_the_quiz_options_but_not_the_teams():
    table = Table(4)
    table.send("menu")
    steps = []
    table.control("yes")  # game: quiz
    table.control("yes")  # players
    while table.ref.menu is not None:
        step = table.ref.menu.position()[0]
        steps.append(step)
        if step in ("wrong_points", "next_in_line"):
            table.control("arm")  # the next value: -1, on
        table.control("yes")
    assert steps == ["format", "false_start", "target", "questions", "points", "wrong_points",
                     "interrupt", "next_in_line", "sudden_death", "buzz_s", "answer_s",
                     "answer_timeout", "power", "bonus", "parts", "bonus_s", "compute_s",
                     "overtime", "trigger"]
    options = table.events("game")[-1]["options"]
    assert options["wrong_points"] == -1 and options["next_in_line"] is True
    assert options["teams"] == []


def test_the_marker_bar_counts_the_answer_time_down():
    from refbox.leds import render

    colours = [(200, 0, 0), (0, 200, 0), (0, 0, 200), (200, 200, 0), (0, 200, 200),
               (200, 0, 200), (90, 90, 90), (30, 60, 90)]
    table = Table(3, answer_s=10)
    table.race((2, 0, 0))
    start = table.game.floor_at.us
    bars = []
    for seconds in (0, 3, 9, 11):
        now_ms = (start + seconds * 1000000) // 1000
        frame = render(table.ref, now_ms, colours, 8, 10)
        bars.append(len([p for p in frame[8:] if p != (0, 0, 0)]))
    assert bars == [10, 7, 1, 0]
    # ...and the loop renders it again as time passes (the frame moves: refbox.leds.moves),
    # not only at the next event
    from refbox.leds import moves

    assert moves(table.ref)


def test_buttons_and_option_words_for_people():
    table = Table(3, interrupt=-5)
    assert table.game.buttons() == [("ARM", "arm buzzers")]
    table.control("arm")
    assert table.game.buttons() == [("buzz", "answer"), ("ARM", "read to end"), ("NO", "cancel")]
    table.control("arm")  # the question was read to the end
    assert table.game.buttons() == [("buzz", "answer"), ("NO", "cancel")]
    words = [Quiz.option_text(n, v) for n, v in (("buzz_s", 0), ("answer_s", 30),
                                                  ("questions", 0), ("wrong_points", -5))]
    assert words == ["no timer", "30 s", "no limit", "-5 points"]
    assert [Quiz.option_label(n) for n in ("buzz_s", "answer_s", "next_in_line")] == [
        "time to buzz", "time to answer", "next in line"]


def test_the_quiz_longest_lines_stay_inside_512_bytes():
    """8 players in 8 teams of one... every list full, 8-digit negative scores, 16-character
    names of the widest escapes (a non-BMP character is 12 bytes on the wire)."""
    table = Table(8, teams=[[p] for p in range(1, 9)], next_in_line=True, answer_s=300,
                  wrong_points=-1000)
    for p in range(8):
        table.game.scores[p] = -9999999
        table.send("act", action="name", player=p + 1, text="\U0001f600" * 16)
        table.send("act", action="name", team=p + 1, text="\U0001f600" * 16)
    table.race(*[(p, 10 * p, 0) for p in range(1, 9)])
    table.lines = []
    table.send("state")
    table.send("end")
    longest = max(len(json.dumps(ev, separators=(",", ":"))) for ev in table.lines)
    assert table.events("state") and table.events("team_ranking") and longest < 512
    assert table.errors() == []
