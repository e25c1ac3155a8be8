"""Diddly: the board scoring engine against a brute-force reading of the house rules, the
tie-break, the round manager, whole games through `tablebuzz sim --script` and the MicroPython
lane.

Rules: shared/rules/003_805fe10dc7c48be8.txt and shared/rules/README.md section "diddly".
"""

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from helpers import events, run_raw, run_sim, timeline
from hypothesis import given
from hypothesis import strategies as st
from refbox.games import game_class
from refbox.games.base import GameError, parse_options
from refbox.games.diddly import Diddly
from refbox.games.diddly_scoring import card_name, compare, rank, score_board
from refbox.leds import render
from refbox.menu import Menu
from refbox.referee import Referee
from scripts_diddly import diddly_game, example_text
from tablebuzz.sim.diddly_deck import (
    CARD_NAMES,
    DECK_COPIES,
    board_with_score,
    deal_round,
    new_deck,
    random_legal_board,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# ------------------------------------------------------------------ a brute-force reading
# The house reading, written out as tables: face values, and the rulebook's Diddly Half list
# ("10 and 9 -> 5, 8 and 7 -> 4, 6 and 5 -> 3, 4 and 3 -> 2, 2 and 1 -> 1"; Peek/Recycle -> 5).
FACE = {str(n): n for n in range(1, 11)}
FACE.update({"PEEK": 10, "RECYCLE": 10, "DIDDLY": 0, "SWAP": 0, "HALF": 0})
HALVED = {10: 5, 9: 5, 8: 4, 7: 4, 6: 3, 5: 3, 4: 2, 3: 2, 2: 1, 1: 1, 0: 0}
MATCHABLE = {str(n) for n in range(1, 11)} | {"PEEK", "RECYCLE"}


def brute_column(a, b):
    if a == b and a in MATCHABLE:
        return 0
    if "HALF" in (a, b):
        return HALVED[FACE[b if a == "HALF" else a]]
    return FACE[a] + FACE[b]


def brute_board(cards):
    """(columns' points, legal) of a board read as consecutive pairs."""
    legal = all(n <= DECK_COPIES[c] for c, n in Counter(cards).items())
    cols = [brute_column(cards[i], cards[i + 1]) for i in range(0, len(cards), 2)]
    return cols, legal


def brute_ranking(rounds):
    """Place = 1 + players with a strictly better (total, rounds sorted from lowest)."""
    keys = [(sum(r), sorted(r)) for r in rounds]
    out = []
    for p, key in enumerate(keys):
        out.append((1 + sum(1 for other in keys if other < key), p + 1, key[0]))
    return sorted(out)


def rulebook_winners(rounds):
    """The rulebook's "End of the Game", step by step: the lowest totals; among them, the lowest
    lowest round, then the lowest second-lowest round, and so on; whoever is left shares."""
    best = min(sum(r) for r in rounds)
    tied = [p for p, r in enumerate(rounds) if sum(r) == best]
    for k in range(len(rounds[0])):
        low = min(sorted(rounds[p])[k] for p in tied)
        tied = [p for p in tied if sorted(rounds[p])[k] == low]
    return [p + 1 for p in tied]


# ------------------------------------------------------------------ the scoring engine
@pytest.mark.parametrize(
    "pair, points",
    [
        (("HALF", "10"), 5),
        (("9", "HALF"), 5),
        (("HALF", "8"), 4),
        (("HALF", "7"), 4),
        (("HALF", "6"), 3),
        (("HALF", "5"), 3),
        (("HALF", "4"), 2),
        (("HALF", "3"), 2),
        (("HALF", "2"), 1),
        (("HALF", "1"), 1),
        (("PEEK", "HALF"), 5),
        (("HALF", "RECYCLE"), 5),
        (("HALF", "HALF"), 0),
        (("HALF", "DIDDLY"), 0),
        (("7", "7"), 0),
        (("PEEK", "PEEK"), 0),
        (("RECYCLE", "RECYCLE"), 0),
        (("PEEK", "RECYCLE"), 20),
        (("10", "PEEK"), 20),
        (("DIDDLY", "SWAP"), 0),
        (("9", "10"), 19),
        (("3", "SWAP"), 3),
    ],
)
def test_column_points_from_the_rulebook(pair, points):
    board = list(pair) + ["DIDDLY", "DIDDLY", "SWAP", "SWAP"]
    assert score_board(board, 3) == (points, [points, 0, 0])


@given(st.randoms(use_true_random=False), st.sampled_from([3, 4]))
def test_legal_boards_score_as_the_brute_force_reading(rng, columns):
    board = random_legal_board(rng, columns)
    cols, legal = brute_board(board)
    assert legal
    assert score_board(board, columns) == (sum(cols), cols)


@given(st.sampled_from([3, 4]), st.data())
def test_any_board_scores_or_is_refused_as_impossible(columns, data):
    alphabet = st.sampled_from(CARD_NAMES[:3] + ["PEEK", "RECYCLE", "HALF", "SWAP"])
    board = data.draw(st.lists(alphabet, min_size=2 * columns, max_size=2 * columns))
    cols, legal = brute_board(board)
    if legal:
        assert score_board(board, columns) == (sum(cols), cols)
    else:
        with pytest.raises(GameError) as err:
            score_board(board, columns)
        assert err.value.code == "bad_value" and "impossible board" in err.value.detail


@given(st.randoms(use_true_random=False), st.sampled_from([3, 4]))
def test_order_within_and_of_columns_does_not_matter(rng, columns):
    board = random_legal_board(rng, columns)
    pairs = [board[i : i + 2] for i in range(0, len(board), 2)]
    rng.shuffle(pairs)
    shuffled = []
    for top, bottom in pairs:
        shuffled += [bottom, top]
    total, cols = score_board(board, columns)
    assert score_board(shuffled, columns)[0] == total
    assert 0 <= total <= 20 * columns and all(0 <= c <= 20 for c in cols)


@given(st.randoms(use_true_random=False), st.sampled_from([3, 4]), st.data())
def test_the_board_generator_hits_every_score_legally(rng, columns, data):
    top = data.draw(st.integers(0, 20 * columns))  # any score, alone
    rest = data.draw(st.lists(st.integers(0, 10 * columns), max_size=4))  # more boards, same round
    used = Counter()
    boards = [board_with_score(rng, columns, target, used) for target in [top] + rest]
    assert sum(used.values()) == len(boards) * 2 * columns
    assert all(used[c] <= DECK_COPIES[c] for c in used)  # one round's boards, together
    for board, target in zip(boards, [top] + rest, strict=True):
        cols, legal = brute_board(board)
        assert legal and sum(cols) == target
        assert score_board(board, columns)[0] == target


def test_a_dealt_round_never_exceeds_the_deck():
    assert len(new_deck()) == 104
    rng = random.Random(5)
    for _ in range(50):
        boards = deal_round(rng, 6, 4)
        counts = Counter(c for b in boards for c in b)
        assert all(counts[c] <= DECK_COPIES[c] for c in counts)


def test_card_names_case_aliases_and_numbers():
    assert [card_name(v) for v in ["dh", "DS", "Diddly Half", " peek ", 7, "10"]] == [
        "HALF",
        "SWAP",
        "HALF",
        "PEEK",
        "7",
        "10",
    ]


@pytest.mark.parametrize(
    "board, columns, words",
    [
        (["1", "2", "3", "4", "5"], 3, "a 3-column board has 6 cards (2 per column"),
        (["1", "2", "3", "4", "5", "6"], 4, "a 4-column board has 8 cards (2 per column"),
        (["1"] * 9, 4, "a 4-column board has 8 cards (2 per column, top then bottom); got 9"),
        (["1", "2", "3", "4", "5", "JOKER"], 3, "unknown card 'JOKER' (card 6)"),
        (["", "2", "3", "4", "5", "6"], 3, "unknown card '' (card 1)"),
        (["1", "2", "3", "4", "5", 11], 3, "no number card 11 (card 6)"),
        (["1", "2", "3", "4", "5", 0], 3, "no number card 0 (card 6)"),
        (["1", "2", "3", "4", "5", True], 3, "a card is a name or a number (card 6)"),
        (["1", "2", "3", "4", "5", 7.0], 3, "a card is a name or a number (card 6)"),
        (["1", "2", "3", "4", "5", None], 3, "a card is a name or a number (card 6)"),
        (["HALF"] * 5 + ["1"], 3, "impossible board: the deck has 4 HALF, this board would"),
        (["RECYCLE"] * 5 + ["1"], 3, "the deck has 4 RECYCLE, this board would hold 5"),
        (["PEEK"] * 6, 3, "the deck has 4 PEEK, this board would hold 6"),
        (["SWAP", "DS", "swap", "Diddly Swap", "dh", "SWAP"], 3, "the deck has 4 SWAP"),
    ],
)
def test_impossible_boards_are_refused_precisely(board, columns, words):
    with pytest.raises(GameError) as err:
        score_board(board, columns)
    assert err.value.code == "bad_value"
    assert words in err.value.detail


def test_as_many_copies_as_the_deck_holds_is_legal():
    assert score_board(["7"] * 8, 4) == (0, [0, 0, 0, 0])
    assert score_board(["PEEK"] * 3 + ["RECYCLE"] * 3, 3) == (20, [0, 20, 0])
    assert score_board(["HALF", "DH", "dh", "Diddly Half", "DIDDLY", "DIDDLY"], 3)[0] == 0


# ------------------------------------------------------------------ the tie-break
round_lists = st.lists(st.integers(0, 4), min_size=5, max_size=5)


@given(st.lists(round_lists, min_size=2, max_size=6))
def test_ranking_is_lowest_total_then_sorted_rounds(rounds):
    assert rank(rounds) == brute_ranking(rounds)
    winners = [p for place, p, _ in rank(rounds) if place == 1]
    assert winners == rulebook_winners(rounds)


@given(round_lists, st.randoms(use_true_random=False))
def test_the_order_of_the_rounds_never_matters(rounds, rng):
    shuffled = list(rounds)
    rng.shuffle(shuffled)
    assert compare(rounds, shuffled) == 0
    assert rank([rounds, shuffled]) == [(1, 1, sum(rounds)), (1, 2, sum(rounds))]


def test_tie_break_examples():
    # equal totals: the lowest single round wins; then the next lowest
    assert compare([12, 3, 20, 7, 8], [10, 10, 10, 10, 10]) == -1
    assert compare([0, 40, 10, 10, 10], [14, 14, 14, 14, 14]) == -1
    assert compare([1, 5, 5, 9, 10], [1, 4, 6, 9, 10]) == 1
    assert rank([[5, 5], [4, 6], [5, 5], [9, 9]]) == [
        (1, 2, 10),
        (2, 1, 10),
        (2, 3, 10),
        (4, 4, 18),
    ]


# ------------------------------------------------------------------ the round manager (fold)
def _play(players, columns=3):
    game = Diddly(players, parse_options(Diddly.OPTIONS, {"columns": columns}))
    evs = []
    turns = []
    for _ in range(5 * players):
        turns.append((game.round, game.turn + 1, game.dealer + 1))
        entry = game.act_entry({"action": "score", "value": game.turn})
        evs += game.record(entry)
    return game, evs, turns


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_dealer_moves_left_and_the_player_left_of_the_dealer_starts(players):
    game, evs, turns = _play(players)
    rounds = [dict(fields) for name, fields in evs if name == "round"]
    assert [(r["round"], r["dealer"], r["first"]) for r in rounds] == [
        (r, (r - 1) % players + 1, r % players + 1) for r in range(2, 6)
    ]
    for r in range(1, 6):
        dealer = (r - 1) % players + 1
        asked = [t for rr, t, d in turns if rr == r]
        assert asked == [(dealer + i) % players + 1 for i in range(players)]  # dealer last
        assert {d for rr, _, d in turns if rr == r} == {dealer}
    assert game.phase == "final" and game.turn is None
    assert game.rounds() == [[p] * 5 for p in range(players)]


def test_menu_offers_the_columns_option_and_the_player_range():
    assert game_class("diddly") is Diddly and (Diddly.min_players, Diddly.max_players) == (2, 6)
    menu = Menu(6, "diddly")
    assert menu.steps() == ["game", "players"]  # its options appear once the game is chosen
    menu.control("yes")
    assert menu.steps() == ["game", "players", "columns"]
    assert menu._values("columns") == [3, 4] and menu._values("players") == [2, 3, 4, 5, 6]
    for bad in (5, 2, True, "4", 3.0):
        with pytest.raises(GameError) as err:
            parse_options(Diddly.OPTIONS, {"columns": bad})
        assert err.value.code == "bad_option"


def _new_game(players, **options):
    return {
        "at_us": 1000,
        "send": {"cmd": "new_game", "game": "diddly", "players": players, "options": options},
    }


def test_errors_change_nothing_and_end_ranks_what_was_entered():
    result = run_sim(
        timeline(
            _new_game(3, columns=4),
            {"at_us": 10000, "send": {"cmd": "act", "action": "board", "values": ["1"] * 6}},
            {"at_us": 20000, "send": {"cmd": "act", "action": "score"}},
            {"at_us": 30000, "send": {"cmd": "act", "action": "guess", "value": 3}},
            {"at_us": 40000, "send": {"cmd": "act", "action": "finish"}},
            {"at_us": 50000, "send": {"cmd": "judge", "correct": True}},
            {"at_us": 60000, "send": {"cmd": "arm"}},
            {"at_us": 70000, "send": {"cmd": "undo"}},
            {"at_us": 80000, "send": {"cmd": "state"}},
            {"at_us": 90000, "send": {"cmd": "act", "action": "score", "player": 3, "value": 7}},
            {"at_us": 99000, "send": {"cmd": "act", "action": "score", "value": 4}},
            {"at_us": 120000, "send": {"cmd": "end"}},
        ),
        players=3,
    )
    codes = [e["code"] for e in events(result, "error")]
    assert codes == [
        "bad_value",
        "missing_field",
        "unknown_action",
        "not_now",
        "not_now",
        "not_now",
        "nothing_to_undo",
    ]
    assert events(result, "state")[0]["log"] == 0  # no error recorded anything
    assert [(e["player"], e["value"]) for e in events(result, "round_score")] == [(3, 7), (2, 4)]
    assert events(result, "table")[-1]["rounds"] == [[], [4], [7]]
    over = events(result, "game_over")[-1]
    assert [(r["place"], r["player"], r["score"]) for r in over["ranking"]] == [
        (1, 1, 0),
        (2, 2, 4),
        (3, 3, 7),
    ]


# ------------------------------------------------------------------ LEDs
def test_leds_show_the_dealer_the_turn_and_the_number_being_entered():
    from refbox import pinmap

    colours = pinmap.PLAYER_COLOURS
    out = []
    ref = Referee(6, lambda n, f=(): out.append((n, f)), lambda *a: None, lambda: b"\x01" * 16, ())
    ref.new_game("diddly", 4, {})

    def frame(ms):
        return render(ref, ms, colours, 6, 10)

    def white(px):
        return px[0] == px[1] == px[2] > 0

    f0, f1 = frame(0), frame(250)
    assert white(f0[0]) and white(f1[0])  # P1 deals round 1
    assert f0[1] != f1[1] and colours[1] in (f0[1], f1[1])  # P2 (left of the dealer) pulses
    assert [f0[2], f0[3]] == [tuple(c // 10 for c in colours[p]) for p in (2, 3)]  # dim
    assert f0[4] == f0[5] == (0, 0, 0)  # not in this 4-player game
    assert f0[6:] == [(0, 0, 0)] * 10  # nothing entered yet: 0
    for _ in range(23):
        ref.control("arm")
    tens, units = frame(0)[6:], frame(1000)[6:]
    assert [white(px) for px in tens] == [True] * 2 + [False] * 8
    assert units == [colours[1]] * 3 + [(0, 0, 0)] * 7
    ref.control("no")
    assert frame(1000)[6:8] == [colours[1]] * 2
    ref.control("yes")
    for _ in range(3):
        ref.command("act", {"action": "score", "value": 1})
    # round 2: P2 deals, P3 starts
    f0 = frame(0)
    assert white(f0[1]) and not white(f0[0])
    for _ in range(3):
        ref.command("act", {"action": "score", "value": 1})
    # P2's own turn: the dealer's station alternates white and colour
    assert {frame(0)[1], frame(250)[1]} == {frame(0)[1], colours[1]} and white(frame(0)[1])
    scores = [dict(f) for n, f in out if n == "score"]
    assert scores[-1]["round"] == 2 and scores[-1]["dealer"] == 2 and scores[-1]["turn"] == 2


# ------------------------------------------------------------------ whole games
def _cli(players, script, interpreter="cpython"):
    columns = 3 if players == 2 else 4
    argv = [sys.executable, "-m", "tablebuzz.cli", "sim", "--script", str(script)]
    argv += ["--seed", "d1dd", "--game", "diddly", "--players", str(players)]
    argv += ["--options", json.dumps({"columns": columns}), "--interpreter", interpreter]
    proc = subprocess.run(argv, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


@pytest.mark.parametrize("players", [2, 6])
def test_full_game_to_a_final_ranking(players, tmp_path):
    records, facts = diddly_game(players)
    script = tmp_path / "diddly.jsonl"
    script.write_text(timeline(*records))
    evs = [json.loads(line) for line in _cli(players, script)]

    def of(kind):
        return [e for e in evs if e["ev"] == kind]

    columns = 3 if players == 2 else 4
    assert of("game")[0]["options"] == {"columns": columns}
    assert of("score")[0] == {
        "ev": "score",
        "scores": [0] * players,
        "unit": "points",
        "round": 1,
        "dealer": 1,
        "turn": 2,
    }
    assert [e["code"] for e in of("error")] == facts["errors"]
    assert len(of("undo")) == facts["undos"] >= 3
    assert [(e["player"], e["round"], e["value"]) for e in of("round_score")] == facts["scored"]
    assert [(e["round"], e["dealer"], e["first"]) for e in of("round")] == [
        (r, (r - 1) % players + 1, r % players + 1) for r in range(2, 6)
    ]
    boards = of("board")
    assert [(b["player"], b["round"], b["cards"]) for b in boards] == facts["boards"]
    for b in boards:
        cols, legal = brute_board(b["cards"])
        assert legal and b["columns"] == cols and b["value"] == sum(cols)
    assert all(0 <= e["value"] <= 20 * columns for e in of("enter"))
    assert min(facts["ways"][how] for how in ("controls", "number", "board")) >= 2
    assert len(of("enter")) >= 10
    assert of("table")[-1]["rounds"] == facts["rounds"]
    over = of("game_over")
    assert len(over) == 1 and not over[0]["abandoned"]
    expected = brute_ranking(facts["rounds"])
    assert [(r["place"], r["player"], r["score"]) for r in over[0]["ranking"]] == expected
    firsts = [r["player"] for r in over[0]["ranking"] if r["place"] == 1]
    assert firsts == rulebook_winners(facts["rounds"])
    totals = [sum(r) for r in facts["rounds"]]
    assert len(firsts) == (2 if players == 6 else 1)  # 6 players: P3 and P5 share the win
    assert totals.count(min(totals)) == 2  # ... and in both games the tie-break had work


@pytest.mark.micropython
@pytest.mark.parametrize("players", [2, 6])
def test_same_events_under_micropython(players):
    records, _ = diddly_game(players)
    text = timeline(*records)
    header = {"game": "diddly", "options": {"columns": 3 if players == 2 else 4}}
    cpython = run_raw(text, players=players, seed="d1dd", **header)
    micropython = run_raw(text, players=players, seed="d1dd", interpreter="micropython", **header)
    assert micropython == cpython


@pytest.mark.parametrize("players", [2, 6])
def test_the_examples_are_the_scripted_games(players):
    """examples/diddly_{2,6}p.jsonl are these scripts (python tests/scripts_diddly.py writes
    them)."""
    text = (EXAMPLES / ("diddly_%dp.jsonl" % players)).read_text()
    assert text == example_text(players)
    evs = [json.loads(line) for line in _cli(players, EXAMPLES / ("diddly_%dp.jsonl" % players))]
    evs = [ev for ev in evs if ev["ev"] != "buttons"]  # (the prompts that follow game over)
    assert evs[-1]["ev"] == "game_over" and not evs[-1]["abandoned"]


def test_playable_in_the_interactive_simulator():
    """`make sim ARGS="--game diddly --players 3"`: the keys a / n / y enter a number."""
    import asyncio

    from tablebuzz.views.tui.simulator import SimulatorApp

    class Clock:
        t = 1000.0

        def __call__(self):
            return self.t

    header = {"seed": "1", "game": "diddly", "players": 3, "options": {"columns": 4}}
    header.update(capture="pio", pixels="pio", bounce="typical", ticks_origin_us=0)
    clock = Clock()
    app = SimulatorApp(header, clock=clock)

    async def scenario():
        async with app.run_test(size=(80, 24)) as pilot:
            for key in "aaanyu" + "ay":
                await pilot.press(key)
                clock.t += 0.3
                app.pump()
                await pilot.pause()

    asyncio.run(scenario())
    log = "\n".join(app.log_lines)
    assert "entering P2's round 1 score: 3" in log and "entering P2's round 1 score: 2" in log
    assert "round 1: P2 scores 2 points" in log and "undo" in log
    assert "round 1: P2 scores 3 points" in log
    assert "refused" not in log and app.scores == [0, 3, 0]
