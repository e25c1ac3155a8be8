"""Red or Black through the simulator: whole games for 2 and 6 players, the deal, the rulings.

Rules: shared/rules/002_3a1c486227a38e1b.txt and shared/rules/README.md section "redblack".
The expected results here come from a reading of the rules written for the tests (cards as the
strings the device shows, ranks looked up in a written-out order), not from the firmware.
"""

import hashlib
import json
import re
import subprocess
import sys
from binascii import unhexlify

import pytest
from helpers import events, run_raw, run_sim, timeline
from hypothesis import given
from hypothesis import strategies as st
from refbox.arbiter import Arbiter
from refbox.games.base import GameError, parse_options
from refbox.games.redblack import RedBlack, card_text, is_right
from refbox.leds import NOTHING_SHOWN, render
from scripts_redblack import SEEDS, example_path, game_seed, plan_game

RANK_NAMES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
ALL_CARDS = [r + s for r in RANK_NAMES for s in "SHDC"]
DEFAULTS = {"ace": "high", "bound": "wrong", "equal": "wrong", "give_line": "top"}
ROUND_PENALTIES = {1: 1, 2: 2, 3: 3, 4: 5}


# ------------------------------------------------------------------ the rules, read for the tests
def rank(card):
    return card[:-1]


def order(ace):
    """Ranks from lowest to highest."""
    if ace == "high":
        return RANK_NAMES[1:] + ["A"]
    return list(RANK_NAMES)


def reference_right(round_no, answer, card, hand, ace="high", equal="wrong", bound="wrong"):
    """Brute force: the ranks above / strictly between are listed out of the rank order."""
    if round_no == 1:
        return answer == ("red" if card[-1] in "HD" else "black")
    if round_no == 4:
        return answer == card[-1]
    ranks = order(ace)
    if round_no == 2:
        if rank(card) == rank(hand[0]):
            return equal == "right"
        above = ranks[ranks.index(rank(hand[0])) + 1 :]
        return answer == ("higher" if rank(card) in above else "lower")
    bounds = [rank(hand[0]), rank(hand[1])]
    if rank(card) in bounds:
        return {"wrong": False, "right": True, "between": answer == "between"}[bound]
    positions = [ranks.index(b) for b in bounds]
    inside = [r for i, r in enumerate(ranks) if min(positions) < i < max(positions)]
    return answer == ("between" if rank(card) in inside else "outside")


def expected_table(evs, players, givings, options):
    """given, received, difference and ranking from the cards the events turned over and the
    receivers the script chose: every verdict and penalty recomputed here."""
    opts = dict(DEFAULTS, **options)
    guesses = []
    for ev in evs:
        if ev["ev"] == "guess":
            guesses.append(ev)
        elif ev["ev"] == "undo":
            guesses.pop()  # the scripts undo a guess right after it
    hands = {p: [] for p in range(1, players + 1)}
    duties = []  # ("give" | "take", player, penalties) in the order they happen
    for ev in guesses:
        p, round_no = ev["player"], ev["round"]
        right = reference_right(round_no, ev["answer"], ev["card"], hands[p], **_rulings(opts))
        assert ev["right"] == right, ev
        hands[p].append(ev["card"])
        duties.append(("give" if right else "take", p, ROUND_PENALTIES[round_no]))
    assert [len(h) for h in hands.values()] == [4] * players
    columns = [ev for ev in evs if ev["ev"] == "column"]
    assert [c["column"] for c in columns] == list(range(1, 9))
    for c in columns:
        i = c["column"]
        for p in range(1, players + 1):
            take = i * sum(rank(h) == rank(c["take"]) for h in hands[p])
            if take:
                duties.append(("take", p, take))
        for p in range(1, players + 1):  # givers give in seat order
            give = i * sum(rank(h) == rank(c["give"]) for h in hands[p])
            if give:
                duties.append(("give", p, give))
    given_ = {p: 0 for p in hands}
    received = {p: 0 for p in hands}
    choices = list(givings)
    for kind, p, n in duties:
        if kind == "take":
            received[p] += n
            continue
        giver, receivers = choices.pop(0)
        assert (giver, len(receivers)) == (p, n)
        given_[p] += n
        for r in receivers:
            received[r] += 1
    assert choices == []
    diff = {p: given_[p] - received[p] for p in hands}
    ranked = sorted(hands, key=lambda p: -diff[p])
    ranking = []
    for i, p in enumerate(ranked):
        same = i and diff[p] == diff[ranked[i - 1]]
        ranking.append(
            {"place": ranking[-1]["place"] if same else i + 1, "player": p, "score": diff[p]}
        )
    return (
        [given_[p] for p in hands],
        [received[p] for p in hands],
        [diff[p] for p in hands],
        ranking,
    )


def _rulings(opts):
    return {"ace": opts["ace"], "equal": opts["equal"], "bound": opts["bound"]}


# ------------------------------------------------------------------ running games
def _of(evs, kind):
    return [e for e in evs if e["ev"] == kind]


def _cli(script_path, players, seed, options=None):
    cmd = [sys.executable, "-m", "tablebuzz.cli", "sim", "--script", str(script_path)]
    cmd += ["--seed", seed, "--game", "redblack", "--players", str(players)]
    if options:
        cmd += ["--options", json.dumps(options)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


_PLANS = {}


def _plan(players):
    if players not in _PLANS:
        seed = SEEDS[players]
        _PLANS[players] = plan_game(players, game_seed(players, seed))
    return _PLANS[players]


@pytest.mark.parametrize("players", [2, 6])
def test_full_game_to_the_final_table(players):
    """examples/redblack_{2,6}p.jsonl through the CLI; the file is the planned game (if it is
    stale: scripts_redblack.write_examples())."""
    plan = _plan(players)
    script = example_path(players)
    text = script.read_text()
    lines = [json.loads(x) for x in text.splitlines() if x.strip() and not x.startswith("#")]
    assert lines[0] == {"setup": {"game": "redblack", "players": players, "seed": SEEDS[players]}}
    assert lines[1:] == plan.records, "stale example: see scripts_redblack.write_examples"
    lines = _cli(script, players, SEEDS[players])
    evs = [json.loads(line) for line in lines]
    game = _of(evs, "game")[0]
    assert game["options"] == DEFAULTS
    assert [e["code"] for e in evs if e["ev"] == "error"] == plan.errors
    assert sorted(set(plan.errors)) == ["bad_value", "not_now"]
    assert [e["dropped"] for e in evs if e["ev"] == "undo"] == [1]
    given_, received, diff, ranking = expected_table(evs, players, plan.givings, {})
    table = [e for e in evs if e["ev"] == "table"]
    assert len(table) == 1
    assert table[0]["given"] == given_
    assert table[0]["received"] == received
    assert table[0]["difference"] == diff
    assert table[0]["ranking"] == ranking
    over = [e for e in evs if e["ev"] == "game_over"]
    assert len(over) == 1 and over[0]["abandoned"] is False
    assert over[0]["ranking"] == ranking and over[0]["unit"] == "points"
    assert [e for e in evs if e["ev"] == "score"][-1]["scores"] == diff
    # the published commitment is honoured by the revealed seed
    digest = hashlib.sha256(("tablebuzz-seed-v1:" + over[0]["seed"]).encode()).hexdigest()
    assert digest == game["commit"]
    assert all(len(line) <= 512 for line in lines)


@pytest.mark.parametrize("players", [2, 6])
def test_no_card_is_shown_before_it_is_turned_over(players):
    plan = _plan(players)
    lines = [
        line
        for _, line in run_raw(
            timeline(*plan.records), players=players, seed=SEEDS[players], game="redblack"
        )
    ]
    turned = {}  # card -> index of the line that turns it over
    for i, line in enumerate(lines):
        ev = json.loads(line)
        if ev["ev"] == "guess":
            turned.setdefault(ev["card"], i)
        elif ev["ev"] == "column":
            turned.setdefault(ev["give"], i)
            turned.setdefault(ev["take"], i)
    burned = len([line for line in lines if '"ev":"undo"' in line])  # each puts a card aside
    assert len(turned) == 4 * players + 16 + burned
    for card in ALL_CARDS:
        quoted = re.compile(r'"%s"' % card)
        shown = [i for i, line in enumerate(lines) if quoted.search(line)]
        if card in turned:
            assert shown[0] == turned[card], (card, lines[shown[0]])
        else:
            assert shown == [], card  # never turned: never shown
    over = [i for i, line in enumerate(lines) if '"game_over"' in line][0]
    seed = json.loads(lines[over])["seed"]
    assert all(seed not in line for line in lines[:over])


def test_a_game_replays_from_its_seed():
    """The seed revealed at the end deals the same cards, in the documented order: round r of
    player p is the deck's card (r-1)*players + p-1, then the top line, then the bottom line."""
    players = 6
    plan = _plan(players)
    evs = [
        e
        for _, e in run_sim(
            timeline(*plan.records), players=players, seed=SEEDS[players], game="redblack"
        )
    ]
    seed = _of(evs, "game_over")[0]["seed"]
    replay = RedBlack(players, parse_options(RedBlack.OPTIONS, {}), unhexlify(seed))
    deck = [card_text(c) for c in replay.deck]
    assert sorted(deck) == sorted(ALL_CARDS)
    burned = 0  # every answer taken back puts its card aside: later deals skip it
    for ev in evs:
        if ev["ev"] == "undo":
            burned += 1
        elif ev["ev"] == "guess":
            assert ev["card"] == deck[(ev["round"] - 1) * players + ev["player"] - 1 + burned]
    base = 4 * players + burned
    columns = [e for e in evs if e["ev"] == "column"]
    assert [c["give"] for c in columns] == deck[base : base + 8]
    assert [c["take"] for c in columns] == deck[base + 8 : base + 16]
    # the same seed again: the same lines; another seed: another deal
    again = run_raw(timeline(*plan.records), players=players, seed=SEEDS[players], game="redblack")
    assert [json.loads(line) for _, line in again] == evs
    other_seed = "77"
    other = plan_game(players, game_seed(players, other_seed), twists=False)
    evs2 = [
        e
        for _, e in run_sim(
            timeline(*other.records), players=players, seed=other_seed, game="redblack"
        )
    ]
    cards = [e["card"] for e in evs if e["ev"] == "guess"]
    cards2 = [e["card"] for e in evs2 if e["ev"] == "guess"]
    assert len(cards2) == 4 * players and cards2 != cards


def test_undo_of_an_answer_puts_its_card_aside():
    """Red or Black's undo policy (docs/games/redblack.md "Undo"): an answer taken back never
    gets the card it turned over again, so seeing it cannot help; nobody has seen the next."""
    game = RedBlack(3, parse_options(RedBlack.OPTIONS, {}), b"\x01" * 16)
    deck = list(game.deck)
    first = dict(game.record(game.control_entry("yes"))[0][1])  # P1 answers red
    assert first["card"] == card_text(deck[0])
    game.undo()
    assert game.deck == deck and game.log == [("burn",)] and (game.round, game.seat) == (1, 0)
    again = dict(game.record(game.control_entry("no"))[0][1])  # "black" now
    assert again["card"] == card_text(deck[1])  # not the card already seen
    for _ in range(3):  # undo and answer again and again: always a fresh card
        game.undo()
        game.record(game.control_entry("yes"))
    assert game.burned == 4 and game.line("top")[0] == deck[4 * 3 + 4]


def test_a_second_undo_keeps_the_cards_put_aside():
    game = RedBlack(2, parse_options(RedBlack.OPTIONS, {}), b"\x02" * 16)
    deck = list(game.deck)
    game.record(game.control_entry("yes"))  # P1: deck[0]
    while game.phase == "give":
        game.record(game.press_entry(1, None))
        if not game.left():
            game.record(game.control_entry("yes"))
    game.record(game.control_entry("yes"))  # P2 (or the giver): deck[1]
    game.undo()  # P2's answer: deck[1] aside
    while [e for e in game.log if e[0] == "guess"]:
        game.undo()  # further back, to before P1's answer: deck[0] aside too
    assert game.log == [("burn",), ("burn",)]
    turned = dict(game.record(game.control_entry("yes"))[0][1])
    assert turned["card"] == card_text(deck[2])


def test_no_spare_card_left_the_answer_stands():
    game = RedBlack(6, parse_options(RedBlack.OPTIONS, {}), b"\x03" * 16)
    assert game.spare_cards() == 52 - 24 - 16
    for _ in range(game.spare_cards()):
        game.record(game.control_entry("yes"))
        game.undo()
    game.record(game.control_entry("yes"))
    with pytest.raises(GameError) as e:
        game.undo()
    assert e.value.code == "not_now" and "answer stands" in e.value.detail


def test_give_line_bottom_swaps_the_lines():
    players = 2
    opts = {"give_line": "bottom", "ace": "low"}
    plan = plan_game(players, game_seed(players, "5", opts), opts, twists=False)
    evs = [
        e
        for _, e in run_sim(
            timeline(*plan.records), players=players, seed="5", game="redblack", options=opts
        )
    ]
    over = _of(evs, "game_over")[0]
    replay = RedBlack(players, parse_options(RedBlack.OPTIONS, opts), unhexlify(over["seed"]))
    deck = [card_text(c) for c in replay.deck]
    columns = [e for e in evs if e["ev"] == "column"]
    assert [c["give"] for c in columns] == deck[16:24]
    assert [c["take"] for c in columns] == deck[8:16]
    assert _of(evs, "lines")[0]["give_line"] == "bottom"
    given_, received, diff, ranking = expected_table(evs, players, plan.givings, opts)
    assert _of(evs, "table")[0]["difference"] == diff
    assert over["ranking"] == ranking


# ------------------------------------------------------------------ controls and refusals
def _new_game(players, **options):
    return {
        "at_us": 1000,
        "send": {"cmd": "new_game", "game": "redblack", "players": players, "options": options},
    }


def _act(t, action, **fields):
    cmd = {"cmd": "act", "action": action}
    cmd.update(fields)
    return {"at_us": t, "send": cmd}


def test_refusals_are_errors_that_change_nothing():
    result = run_sim(
        timeline(
            _new_game(3),
            {"at_us": 100000, "control": "arm"},  # round 1 is answered with YES / NO
            _act(300000, "higher"),  # not round 2
            _act(400000, "red", player=2),  # P1's turn
            _act(500000, "column"),  # not Part 2
            _act(600000, "give", player=2),  # nobody gives
            _act(700000, "shuffle"),
            {"at_us": 800000, "send": {"cmd": "judge", "correct": True}},
            {"at_us": 900000, "send": {"cmd": "undo"}},
            {"at_us": 1000000, "send": {"cmd": "state"}},
        ),
        players=3,
    )
    codes = [e["code"] for e in events(result, "error")]
    assert codes == [
        "not_now",
        "not_now",
        "bad_value",
        "not_now",
        "not_now",
        "unknown_action",
        "not_now",
        "nothing_to_undo",
    ]
    assert "YES = red" in events(result, "error")[0]["detail"]
    state = events(result, "state")[0]
    assert state["phase"] == "guess" and state["log"] == 0


def test_bad_options_are_refused():
    result = run_sim(timeline(_new_game(2, ace="middle"), _new_game(2, tens=True)), players=2)
    errors = events(result, "error")
    assert [e["code"] for e in errors] == ["bad_option", "unknown_option"]
    assert 'ace: one of "high", "low"' == errors[0]["detail"]


def test_end_during_a_giving_drops_the_unconfirmed_picks():
    game = _giving_game()
    other = (game.giver + 1) % 3
    game.record(game.press_entry(other, None))
    before = list(game.received)
    evs = game.record(("end",))
    assert game.phase == "over" and game.received == before
    table = dict(evs[-1][1])
    assert table["received"] == before and table["difference"] == game.scores


def test_menu_offers_the_options_with_their_defaults_first():
    result = run_sim(
        timeline(
            {"at_us": 1000, "send": {"cmd": "menu"}},
            *[{"at_us": 200000 * (i + 1), "control": "arm"} for i in range(3)],  # -> redblack
            {"at_us": 1000000, "control": "yes"},  # players
            {"at_us": 1200000, "control": "no"},  # 6 -> 5
            {"at_us": 1400000, "control": "yes"},  # ace
            {"at_us": 1600000, "control": "arm"},  # -> low
            {"at_us": 1800000, "control": "yes"},  # equal
            {"at_us": 2000000, "control": "yes"},  # bound
            {"at_us": 2200000, "control": "yes"},  # give_line
            {"at_us": 2400000, "control": "yes"},  # start
        )
    )
    steps = [(m["step"], m["value"]) for m in events(result, "menu")]
    assert ("ace", "high") in steps and ("ace", "low") in steps
    assert ("equal", "wrong") in steps and ("bound", "wrong") in steps
    assert ("give_line", "top") in steps
    game = events(result, "game")[-1]
    assert game["game"] == "redblack" and game["players"] == 5
    assert game["options"] == dict(DEFAULTS, ace="low")


def _giving_game(players=3):
    """A game folded until someone gives: returns it (hooks driven directly)."""
    game = RedBlack(players, parse_options(RedBlack.OPTIONS, {}), b"\x02" * 16)
    while game.phase != "give":
        game.record(game.control_entry("yes"))
    return game


def test_giving_picks_take_back_undo_and_confirm():
    game = _giving_game()
    giver = game.giver
    other = (giver + 1) % 3
    with pytest.raises(GameError) as e:
        game.press_entry(giver, None)
    assert e.value.code == "bad_value" and "themselves" in e.value.detail
    with pytest.raises(GameError):
        game.control_entry("no")  # nothing to take back
    count = game.left()
    for _ in range(count):
        game.record(game.press_entry(other, None))
    assert game.left() == 0 and game.given == [0, 0, 0]  # counted when confirmed
    with pytest.raises(GameError) as e:
        game.press_entry(other, None)
    assert e.value.code == "not_now"
    game.record(game.control_entry("no"))
    assert game.left() == 1
    game.undo()  # UNDO takes back the take-back
    assert game.left() == 0
    game.undo()  # ... then the last pick
    assert game.left() == 1
    game.record(game.press_entry(other, None))
    before = list(game.received)
    evs = game.record(game.control_entry("yes"))
    assert game.received[other] == before[other] + count
    assert game.given[giver] == count
    assert (
        "given",
        (("player", giver + 1), ("to", [{"player": other + 1, "penalties": count}])),
    ) in evs


def test_suit_round_cycles_with_arm_and_no():
    game = RedBlack(2, parse_options(RedBlack.OPTIONS, {}), b"\x03" * 16)
    while game.round < 4:
        if game.phase == "give":
            game.record(("pick", 1 - game.giver, game.left()))
            game.record(("confirm",))
        else:
            game.record(game.control_entry("no"))
    suits = []
    for name in ["arm", "arm", "no", "no", "no"]:
        evs = game.record(game.control_entry(name))
        suits.append(dict(evs[0][1])["suit"])
    assert suits == ["H", "D", "H", "S", "C"]
    evs = game.record(game.control_entry("yes"))
    assert dict(evs[0][1])["answer"] == "C"


# ------------------------------------------------------------------ the rulings
CARD = {card_text(c): c for c in range(52)}


def test_card_strings():
    assert sorted(CARD) == sorted(ALL_CARDS)
    assert card_text(CARD["10S"]) == "10S" and card_text(CARD["QH"]) == "QH"


rulings = st.fixed_dictionaries(
    {
        "ace": st.sampled_from(["high", "low"]),
        "equal": st.sampled_from(["wrong", "right"]),
        "bound": st.sampled_from(["wrong", "right", "between"]),
    }
)
ANSWERS = {
    1: ["red", "black"],
    2: ["higher", "lower"],
    3: ["between", "outside"],
    4: ["S", "H", "D", "C"],
}


@given(
    cards=st.lists(st.sampled_from(ALL_CARDS), min_size=3, max_size=3, unique=True),
    round_no=st.integers(1, 4),
    opts=rulings,
)
def test_rulings_match_a_brute_force_reading(cards, round_no, opts):
    card, hand = cards[0], cards[1:]
    verdicts = []
    for answer in ANSWERS[round_no]:
        got = is_right(round_no, answer, CARD[card], [CARD[c] for c in hand], **opts)
        assert got == reference_right(round_no, answer, card, hand, **opts)
        verdicts.append(got)
    tie = (round_no == 2 and rank(card) == rank(hand[0])) or (
        round_no == 3 and rank(card) in (rank(hand[0]), rank(hand[1]))
    )
    if not tie or (round_no == 3 and opts["bound"] == "between"):
        assert verdicts.count(True) == 1  # exactly one answer is right
    else:
        assert verdicts.count(True) in (0, len(verdicts))


@given(
    other=st.sampled_from([c for c in ALL_CARDS if rank(c) != "A"]), suit=st.sampled_from("SHDC")
)
def test_an_ace_is_above_the_king_when_high_and_below_the_two_when_low(other, suit):
    ace = CARD["A" + suit]
    assert is_right(2, "higher", ace, [CARD[other]], ace="high")
    assert is_right(2, "lower", ace, [CARD[other]], ace="low")
    two, king = CARD["2" + suit], CARD["K" + suit]
    if rank(other) not in ("2", "K"):
        assert is_right(3, "outside", CARD[other], [two, king]) is False
        assert is_right(3, "between", CARD[other], [two, king])
    assert is_right(3, "outside", CARD["AD" if suit != "D" else "AS"], [CARD["3C"], king])


# ------------------------------------------------------------------ LEDs keep the secrets
class _View:
    def __init__(self, game):
        self.menu = None
        self.game = game
        self.arbiter = Arbiter(None)
        self.players = game.players
        self.tie_shown = False
        self.shown = NOTHING_SHOWN


COLOURS = ((255, 0, 0), (0, 96, 255), (0, 200, 0), (255, 160, 0), (200, 0, 255), (0, 220, 200))


def test_leds_and_state_do_not_depend_on_unturned_cards():
    """Before every step of a whole game, a copy whose unturned cards are in another order shows
    the same LED frames and the same state."""
    options = parse_options(RedBlack.OPTIONS, {})
    a = RedBlack(4, options, b"\x04" * 16)
    step = 0
    while a.phase != "over":
        hidden = [c for i, c in enumerate(a.deck) if not _is_turned(a, i)]
        b = RedBlack(4, options, b"\x04" * 16)
        b.deck = [
            c if _is_turned(a, i) else hidden[-1 - hidden.index(c)] for i, c in enumerate(a.deck)
        ]
        assert b.deck != a.deck
        for entry in a.log:
            b.record(entry)
        for now_ms in (0, 130, 260, 390):
            assert render(_View(a), now_ms, COLOURS, 6, 10) == render(
                _View(b), now_ms, COLOURS, 6, 10
            )
        assert (a.phase, a.scores, a.eligible(), a.turn, a.round, a.column) == (
            b.phase,
            b.scores,
            b.eligible(),
            b.turn,
            b.round,
            b.column,
        )
        step += 1
        if a.phase == "give":
            a.record(("pick", (a.giver + 1) % 4, a.left()))
            entry = ("confirm",)
        elif a.phase == "lines":
            entry = ("column",)
        elif a.round == 4 and step % 2:
            entry = ("cursor", (a.cursor + 1) % 4)
        else:
            entry = a.control_entry("yes")
        a.record(entry)


def _is_turned(game, i):
    n = game.players
    if i < 4 * n:
        return len(game.hands[i % n]) > i // n
    return i < 4 * n + 16 and (i - 4 * n) % 8 < game.column


# ------------------------------------------------------------------ the MicroPython lane
@pytest.mark.micropython
@pytest.mark.parametrize("players", [2, 6])
def test_same_events_under_micropython(players):
    text = timeline(*_plan(players).records)
    header = {"game": "redblack"}
    cpython = run_raw(text, players=players, seed=SEEDS[players], **header)
    micropython = run_raw(
        text, players=players, seed=SEEDS[players], interpreter="micropython", **header
    )
    assert micropython == cpython
    last = [line for _, line in cpython if not line.startswith('{"ev":"buttons"')][-1]
    assert len(cpython) > 100 and '"ev":"game_over"' in last


def test_the_deck_dealt_when_first_needed_is_the_deck_shuffled_at_the_start():
    """The deck is shuffled at the first card needed, not in new_game (RedBlack.deck): the same
    deck as the game's PRNG shuffled at once, also from a state taken before the deal, and from
    a checkpoint of older firmware that names it "deck"."""
    from refbox.prng import Prng

    seed = b"\x05" * 16
    eager = list(range(52))
    Prng(seed + b"/game").shuffle(eager)
    game = RedBlack(4, parse_options(RedBlack.OPTIONS, {}), seed)
    assert game._deck is None  # nothing drawn yet: new_game's work is the game's set-up only
    early = game.state()
    assert game.deck == eager
    again = RedBlack(4, parse_options(RedBlack.OPTIONS, {}), seed)
    again.prng = Prng(b"elsewhere")
    again.restore(early)
    assert again.deck == eager
    older = [["deck", eager] if name == "_deck" else [name, value] for name, value in game.state()]
    third = RedBlack(4, parse_options(RedBlack.OPTIONS, {}), seed)
    third.restore(older)
    assert third.deck == eager
