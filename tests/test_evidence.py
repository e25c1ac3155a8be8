"""Evidence: whole games through the CLI simulator, the token rules, the claim gesture, the LEDs.

Rules: shared/rules/004_27c25bf53213cc59.txt and shared/rules/README.md section "evidence".
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import events, run_raw, run_sim, timeline
from hypothesis import given
from hypothesis import strategies as st
from refbox.games.base import GameError, parse_options
from refbox.games.evidence import MARKERS, ORIENTATIONS, Evidence, award
from refbox.ticks import Stamp
from scripts_evidence import evidence_game, example_text

# Any seed plays the same game (no draw decides a token). This one also avoided the old
# simulator crash on a 0 µs release bounce span (docs/games/evidence.md "Known issues").
SEED = "2"


def _cli(records, players, *extra):
    proc = subprocess.run(
        [sys.executable, "-m", "tablebuzz.cli", "sim", "--script", "-", "--seed", SEED]
        + ["--game", "evidence", "--players", str(players)]
        + list(extra),
        input=timeline(*records),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def _tokens_kept(evs):
    """The `tokens` events still standing after the undos."""
    kept = []
    for e in evs:
        if e["ev"] == "tokens":
            kept.append(e)
        elif e["ev"] == "undo":
            kept.pop()
    return kept


# ------------------------------------------------------------------ whole games through the CLI
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_full_game_to_a_final_ranking(players):
    records, expected = evidence_game(players)
    evs = _cli(records, players)
    assert [e for e in evs if e["ev"] == "error"] == []
    game = [e for e in evs if e["ev"] == "game"][0]
    assert game["options"] == {"commit": "hold", "countdown": 3000}

    rounds = [e for e in evs if e["ev"] == "round"]
    assert [r["round"] for r in rounds] == list(range(1, 11)) + expected["playoff_rounds"]
    assert all(r["orientation"] in ORIENTATIONS for r in rounds)
    assert all(r["players"] == list(range(1, players + 1)) for r in rounds[:10])
    assert all(r["players"] == [1, 2] and r["playoff"] for r in rounds[10:])
    playoffs = [e for e in evs if e["ev"] == "playoff"]
    assert [p["round"] for p in playoffs] == expected["playoff_rounds"]
    assert all(p["players"] == [1, 2] for p in playoffs)

    # tokens round by round (after the undo of a wrong count), from the script's own reading
    kept = _tokens_kept(evs)
    got = [(t["green"], t["yellow"], t["red"]) for t in kept]
    assert got == expected["rounds"]
    assert kept[-1]["tally"][0][0] == expected["greens"][0]
    assert events_of(evs, "score")[-1]["scores"] == expected["points"]

    over = events_of(evs, "game_over")
    assert len(over) == 1 and not over[0]["abandoned"]
    ranking = [(r["place"], r["player"], r["score"]) for r in over[0]["ranking"]]
    assert ranking == expected["ranking"]

    # the contested claim: P1 pressed 3 µs before P2; P2's press was accepted first, yet the
    # presses are delivered (and reported) in stamp order
    p1_us, p2_us = expected["contest_press"]
    presses = [e for e in evs if e["ev"] == "press" and e["t_us"] in (p1_us, p2_us)]
    assert [e["player"] for e in presses] == [1, 2]
    assert presses[0]["t_us"] < presses[1]["t_us"]
    claim5 = [e for e in evs if e["ev"] == "claim" and e["marker"] == 5][0]
    assert (claim5["player"], claim5["t_us"]) == (1, p1_us)
    lost = events_of(evs, "lost")
    assert len(lost) == 1
    assert (lost[0]["player"], lost[0]["marker"], lost[0]["winner"]) == (2, 5, 1)
    assert 2000 <= lost[0]["margin_ns"] <= 4000 and lost[0]["tie"] is False
    # ...P2 heard it at once (the next loop pass) and claimed 6 instead
    between = evs[evs.index(claim5) + 1 : evs.index(lost[0])]
    assert all(e["ev"] == "countdown" for e in between)

    # the countdown ran out for P2 (round 3) and P1 (round 4): they sat out
    sat = [(e["player"], e["round"]) for e in events_of(evs, "sit_out")]
    assert (2, 3) in sat and (1, 4) in sat
    # players outside the play-off claimed nothing in it
    r11 = evs.index(rounds[10])
    assert all(e["player"] in (1, 2) for e in evs[r11:] if e["ev"] == "claim")


def events_of(evs, kind):
    return [e for e in evs if e["ev"] == kind]


@pytest.mark.parametrize("players", [2, 4])
def test_examples_are_the_scripted_games(players):
    path = Path(__file__).parent.parent / "examples" / ("evidence_%dp.jsonl" % players)
    assert path.read_text() == example_text(players)


@pytest.mark.micropython
@pytest.mark.parametrize("players", [2, 6])
def test_same_events_under_micropython(players):
    records, _ = evidence_game(players)
    text = timeline(*records)
    cpython = run_raw(text, players=players, seed=SEED, game="evidence")
    micropython = run_raw(
        text, players=players, seed=SEED, game="evidence", interpreter="micropython"
    )
    assert micropython == cpython


# ------------------------------------------------------------------ the token rules
def _owners(claims):
    owners = [None] * (MARKERS + 1)
    for player, marker in claims.items():
        owners[marker] = player
    return owners


def test_rulebook_worked_example():
    """Rulebook "Decompte de fin de tour": 7 differences; Adrianne 4, Barbara 5, Stéphanie 7,
    Jack 8 -> green Stéphanie, red Jack, yellow Barbara. Jack on 6 instead: yellow Jack, red to
    Stéphanie (the green winner)."""
    adrianne, barbara, stephanie, jack = 0, 1, 2, 3
    claims = {adrianne: 4, barbara: 5, stephanie: 7, jack: 8}
    assert award(_owners(claims), 7) == (stephanie, barbara, jack)  # (green, yellow, red)
    claims[jack] = 6
    assert award(_owners(claims), 7) == (stephanie, jack, stephanie)


def test_no_exact_marker_and_counts_beyond_the_markers():
    claims = {0: 3, 1: 9}
    assert award(_owners(claims), 5) == (None, 0, 1)  # no green; yellow 3, red 9
    assert award(_owners(claims), 10) == (None, 1, None)  # nothing above, no green to fall to
    assert award(_owners(claims), 14) == (None, 1, None)
    assert award(_owners(claims), 0) == (None, None, 0)
    assert award(_owners({0: 10}), 10) == (0, 0, 0)  # alone and exact: all three tokens
    assert award(_owners({}), 4) == (None, None, None)


def _brute_force(claims, count):
    """The house reading, marker by marker: the exact one; for red, the claimed marker above the
    count with no claimed marker between them; likewise below for yellow; a missing one falls to
    the green winner (nobody if there is none)."""
    taken = list(claims.values())
    who = {m: p for p, m in claims.items()}
    green = who[count] if count in taken else None
    red = yellow = green
    for m in taken:
        between = [x for x in taken if min(m, count) < x < max(m, count)]
        if m > count and not between:
            red = who[m]
        if m < count and not between:
            yellow = who[m]
    return green, yellow, red


@given(
    markers=st.lists(st.integers(1, MARKERS), unique=True, max_size=6),
    count=st.integers(0, 30),
)
def test_tokens_match_a_brute_force_reading(markers, count):
    claims = dict(enumerate(markers))
    assert award(_owners(claims), count) == _brute_force(claims, count)


# ------------------------------------------------------------------ the game, hook by hook
def _game(players=3, **options):
    return Evidence(players, parse_options(Evidence.OPTIONS, options), b"evidence-test-00")


def _record(game, entry):
    assert entry is not None
    return game.record(entry)


def _claim_by_gesture(game, player, marker, start_us, ns=0):
    """`marker` presses 150 ms apart, the last held: returns its Stamp (no tick in between)."""
    for i in range(marker - 1):
        t = start_us + i * 150000
        assert game.press_entry(player, Stamp(t, ns)) is None
        assert game.release_entry(player, Stamp(t + 60000, ns)) is None
    stamp = Stamp(start_us + (marker - 1) * 150000, ns)
    assert game.press_entry(player, stamp) is None
    return stamp


def _names(evs):
    return [name for name, _ in evs]


def _field(ev, key):
    return dict(ev[1])[key]


def test_gesture_claims_after_a_1_s_hold_in_stamp_order():
    game = _game(3)
    _record(game, game.control_entry("arm"))
    assert game.phase == "claiming" and game.eligible() == [0, 1, 2]
    a = _claim_by_gesture(game, 0, 4, 100000, ns=700)
    b = _claim_by_gesture(game, 1, 4, 100000, ns=100)  # same µs, 600 ns earlier
    assert game.is_busy()
    assert game.tick_entry(Stamp(a.us + 999999)) is None  # not 1 s yet
    entry = game.tick_entry(Stamp(a.us + 1000000, 100))
    assert entry[:3] == ("claim", 1, 4)  # the earlier stamp is decided first
    evs = game.record(entry)
    assert _names(evs) == ["claim"]
    evs = game.record(game.tick_entry(Stamp(a.us + 1000000, 700)))
    assert _names(evs) == ["lost"]  # P1 and P3 still have no marker: no countdown yet
    lost = dict(evs[0][1])
    assert lost == {"player": 1, "marker": 4, "winner": 2, "margin_ns": 600, "tie": False}
    assert b.us == a.us and game.eligible() == [0, 2] and not game.is_busy()
    stamp = _claim_by_gesture(game, 0, 5, 2000000)  # P1 claims another marker
    evs = game.record(game.tick_entry(Stamp(stamp.us + 1000000)))
    assert _names(evs) == ["claim", "countdown"] and _field(evs[1], "player") == 3


def test_released_before_a_second_is_a_tap_and_a_pause_restarts_the_count():
    game = _game(2)
    _record(game, game.control_entry("arm"))
    game.press_entry(0, Stamp(100000))
    game.release_entry(0, Stamp(1099000))  # 999 ms: a tap
    game.press_entry(0, Stamp(1200000))
    assert game.tick_entry(Stamp(2200000))[:3] == ("claim", 0, 2)
    game = _game(2)
    _record(game, game.control_entry("arm"))
    _claim_by_gesture(game, 0, 3, 100000)
    game.release_entry(0, Stamp(500000))  # the third press was a tap too
    stamp = Stamp(2600000)  # more than 2 s after the last release: counting restarts
    game.press_entry(0, stamp)
    assert game.tick_entry(Stamp(stamp.us + 1000000))[:3] == ("claim", 0, 1)


def test_a_hold_released_after_a_second_still_commits_in_order():
    game = _game(2)
    _record(game, game.control_entry("arm"))
    game.press_entry(0, Stamp(100000))
    game.release_entry(0, Stamp(1105000))  # let go 5 ms after the hold time
    assert game.tick_entry(Stamp(1099999, 999)) is None
    assert game.tick_entry(Stamp(1100000))[:3] == ("claim", 0, 1)


def test_mistakes_are_errors_and_the_player_may_claim_again():
    game = _game(3)
    _record(game, game.control_entry("arm"))
    stamp = _claim_by_gesture(game, 0, 11, 0)
    with pytest.raises(GameError) as e:
        game.tick_entry(Stamp(stamp.us + 1000000))
    assert e.value.code == "bad_value" and "11 presses" in e.value.detail
    assert not game.is_busy()
    stamp = _claim_by_gesture(game, 0, 2, 3000000)
    _record(game, game.tick_entry(Stamp(stamp.us + 1000000)))  # P1 takes 2
    late = _claim_by_gesture(game, 1, 2, 5000000)  # P2 starts after that was decided
    with pytest.raises(GameError) as e:
        game.tick_entry(Stamp(late.us + 1000000))
    assert "already P1's" in e.value.detail
    assert game.press_entry(0, Stamp(7000000)) is None  # P1 holds a marker: presses do nothing
    with pytest.raises(GameError) as e:
        game.act_entry({"action": "claim", "player": 1, "value": 3})
    assert "claims are final" in e.value.detail
    with pytest.raises(GameError) as e:
        game.control_entry("yes")
    assert e.value.code == "not_now" and "P2 P3" in e.value.detail


def test_the_earlier_stamp_takes_the_marker_back_when_recorded_later():
    game = _game(3)
    _record(game, ("round",))
    evs = game.record(("claim", 1, 6, 5000, 500, 1000000))
    assert _names(evs) == ["claim"]
    evs = game.record(("claim", 0, 6, 5000, 499, 1000100))  # 1 ns earlier, seen later
    assert _names(evs) == ["lost", "claim"]
    assert dict(evs[0][1]) == {"player": 2, "marker": 6, "winner": 1, "margin_ns": 1, "tie": False}
    assert game.owners[6] == 0 and game.marker_of[1] is None
    assert game.eligible() == [1, 2]
    assert game.countdown is None  # two players without a marker: no countdown


def test_equal_stamps_are_a_tie_drawn_by_the_prng():
    winners = set()
    for i in range(12):
        game = Evidence(2, parse_options(Evidence.OPTIONS, {}), bytes([i]) * 16)
        _record(game, ("round",))
        game.record(("claim", 0, 3, 7000, 0, 1000000))
        evs = game.record(("claim", 1, 3, 7000, 0, 1000000))
        lost = [dict(f) for name, f in evs if name == "lost"][0]
        assert lost["tie"] is True and lost["margin_ns"] == 0
        assert game.owners[3] == lost["winner"] - 1
        winners.add(game.owners[3])
    assert winners == {0, 1}


def test_countdown_waits_for_a_hold_begun_in_time_else_the_player_sits_out():
    for start_ms, expect in ((2900, "claim"), (3100, "sit_out")):
        game = _game(2)
        _record(game, game.control_entry("arm"))
        evs = game.record(("claim", 0, 5, 0, 0, 1000000))
        assert _names(evs) == ["claim", "countdown"] and dict(evs[1][1])["ms"] == 3000
        if start_ms < 3000:
            game.press_entry(1, Stamp(1000000 + start_ms * 1000))
        assert game.tick_entry(Stamp(1000000 + 2999000)) is None
        entry = None
        for t in range(3000, 4200, 1):
            entry = game.tick_entry(Stamp(1000000 + t * 1000))
            if entry is not None:
                break
        assert entry[0] == expect
        evs = game.record(entry)
        assert _names(evs)[-1] == "claims" and game.phase == "counting"


def test_countdown_option():
    game = _game(2, countdown=5000)
    _record(game, game.control_entry("arm"))
    game.record(("claim", 0, 5, 0, 0, 0))
    assert game.tick_entry(Stamp(4999999, 999)) is None
    assert game.tick_entry(Stamp(5000000)) == ("sit_out", 1, 5000000)
    for bad in ({"countdown": "long"}, {"countdown": 100}, {"commit": "release"}):
        with pytest.raises(GameError):
            parse_options(Evidence.OPTIONS, bad)


def test_entering_the_count_with_the_controls_and_act():
    game = _game(2)
    with pytest.raises(GameError):
        game.control_entry("yes")  # no round yet
    _record(game, game.control_entry("arm"))
    game.record(("claim", 0, 5, 0, 0, 0))
    game.record(("claim", 1, 6, 10, 0, 10))
    assert game.phase == "counting"
    with pytest.raises(GameError) as e:
        game.control_entry("no")
    assert e.value.code == "bad_value"  # below 0
    for _ in range(5):
        _record(game, game.control_entry("arm"))
    _record(game, game.control_entry("no"))
    assert game.dial == 4
    for bad in (
        {"action": "count"},
        {"action": "count", "value": 31},
        {"action": "count", "value": True},
    ):
        with pytest.raises(GameError):
            game.act_entry(bad)
    with pytest.raises(GameError) as e:
        game.act_entry({"action": "shuffle"})
    assert e.value.code == "unknown_action"
    evs = game.record(game.control_entry("yes"))
    tokens = dict(evs[0][1])
    assert (tokens["differences"], tokens["green"], tokens["yellow"], tokens["red"]) == (
        4,
        None,
        None,
        1,
    )
    assert game.scores == [1, 0] and game.phase == "next"
    game.undo()
    assert game.phase == "counting" and game.dial == 4 and game.scores == [0, 0]
    game.record(game.act_entry({"action": "count", "value": 6}))
    assert game.scores == [2, 4]  # yellow to P1's 5; green and red (fall-back) to P2's 6


def test_undo_after_game_over_and_the_prompt_after_undo():
    game = _game(2)
    for r in range(10):
        _record(game, ("round",))
        game.record(("claim", 0, 2, 0, 0, 0))
        game.record(("claim", 1, 3 + r % 2, 0, 0, 0))
        game.record(("count", 3))  # P2's 3 is exact in even rounds; P1's 2 always yellow
    assert game.phase == "over" and game.winner == 1
    assert game.scores == [20, 5 * 4 + 5 * 1]
    game.undo()
    assert game.phase == "counting" and game.winner is None and game.round == 10
    prompt = game.prompt_events()
    assert [name for name, _ in prompt] == ["claims", "dial"]
    assert dict(prompt[0][1])["markers"][:4] == [None, 1, None, 2]
    assert dict(prompt[1][1]) == {"value": 0}


def test_orientations_replay_after_undo_and_ranking_after_end():
    game = _game(3)
    for r in range(3):
        _record(game, ("round",))
        game.record(("claim", 0, 1 + r, 0, 0, 0))
        game.record(("claim", 1, 5, 0, 0, 0))
        game.record(("sit_out", 2, 0))
        game.record(("count", 5))  # P2: green and red (fall-back), P1: yellow
    _record(game, ("round",))
    drawn = game.orientation
    assert drawn in ORIENTATIONS
    game.undo()  # back to round 3's count: the draw of round 4 is dropped...
    assert game.round == 3 and game.phase == "counting" and game.orientation is not None
    game.record(("count", 5))
    game.record(("round",))
    assert game.orientation == drawn  # ...and made again, the same
    game.record(("end",))
    assert game.phase == "over"
    assert game.ranking() == [(1, 2, 12), (2, 1, 6), (3, 3, 0)]


def test_ranking_shares_places_and_the_playoff_winner_comes_first():
    game = _game(4)
    game.scores = [5, 9, 5, 9]
    game.tally = [[1, 0, 0], [2, 0, 0], [1, 0, 0], [2, 0, 0]]
    assert game.ranking() == [(1, 2, 9), (1, 4, 9), (3, 1, 5), (3, 3, 5)]
    game.winner = 3
    assert game.ranking() == [(1, 4, 9), (2, 2, 9), (3, 1, 5), (3, 3, 5)]


def test_most_greens_break_a_points_tie_without_a_playoff():
    game = _game(2)
    for r in range(10):
        _record(game, ("round",))
        if r == 0:  # P1 alone on 4 and exact: green, yellow and red (6 points)
            game.record(("claim", 0, 4, 0, 0, 0))
            game.record(("sit_out", 1, 0))
            game.record(("count", 4))
        elif r in (1, 2, 3):  # 12 differences: yellow to P2's 9 (2 points), P1's 3 nothing
            game.record(("claim", 0, 3, 0, 0, 0))
            game.record(("claim", 1, 9, 0, 0, 0))
            game.record(("count", 12))
        else:  # nobody claims, nobody scores
            game.record(("sit_out", 0, 0))
            game.record(("sit_out", 1, 0))
            game.record(("count", 5))
    assert game.scores == [6, 6]
    assert game.phase == "over" and game.winner == 0
    assert game.ranking() == [(1, 1, 6), (2, 2, 6)]


# ------------------------------------------------------------------ through the simulator
def test_presses_in_one_pio_sample_are_a_tie_drawn_and_announced():
    script = [{"at_us": 100000, "control": "arm"}]
    for t in (400000, 550000):
        script += [{"at_us": t, "press": 1}, {"at_us": t, "press": 2}]
        script += [{"at_us": t + 60000, "release": 1}, {"at_us": t + 60000, "release": 2}]
    script += [{"at_us": 700000, "press": 1}, {"at_us": 700000, "press": 2}]
    script += [{"at_us": 1900000, "release": 1}, {"at_us": 1900000, "release": 2}]
    result = run_sim(timeline(*script), players=2, seed=SEED, game="evidence", bounce="none")
    claims = events(result, "claim")
    lost = events(result, "lost")
    assert {c["marker"] for c in claims} == {3}
    assert len(lost) == 1 and lost[0]["tie"] is True and lost[0]["margin_ns"] == 0
    assert {lost[0]["winner"], lost[0]["player"]} == {1, 2}
    assert claims[-1]["player"] == lost[0]["winner"]  # the drawn player holds marker 3
    assert events(result, "countdown")[-1]["player"] == lost[0]["player"]


def test_commit_by_pause_needs_no_hold_as_in_the_interactive_simulator():
    """Option commit "pause": taps of 120 ms (a key in `make sim`), then 1.5 s without a press.
    P1 taps 3, P2 taps 5 interleaved, P2 pauses 1.2 s after two taps (not long enough)."""
    script = [{"at_us": 100000, "control": "arm"}]

    def tap(player, t):
        script.extend([{"at_us": t, "press": player}, {"at_us": t + 120000, "release": player}])

    for i in range(3):
        tap(1, 300000 + i * 250000)
    for t in (310000, 560000, 1760000, 2010000, 2260000):
        tap(2, t)
    result = run_sim(
        timeline(*script), players=2, seed=SEED, game="evidence", options={"commit": "pause"}
    )
    claims = [(c["player"], c["marker"], c["t_us"]) for c in events(result, "claim")]
    assert [c[:2] for c in claims] == [(1, 3), (2, 5)]
    assert claims[0][2] == 800000 and claims[1][2] == 2260000  # stamped at the last press
    assert events(result, "error") == []


def test_act_claims_and_sit_out_from_the_host():
    send = [
        {"at_us": 100000, "control": "arm"},
        {"at_us": 300000, "send": {"cmd": "act", "action": "claim", "player": 2, "value": 7}},
        {"at_us": 400000, "send": {"cmd": "act", "action": "claim", "player": 3, "value": 7}},
        {"at_us": 500000, "send": {"cmd": "act", "action": "sit_out", "player": 3}},
        {"at_us": 600000, "send": {"cmd": "act", "action": "claim", "player": 1, "value": 11}},
        {"at_us": 700000, "send": {"cmd": "act", "action": "claim", "player": 1, "value": 2}},
        {"at_us": 800000, "send": {"cmd": "act", "action": "count", "value": 2}},
        {"at_us": 900000, "send": {"cmd": "judge", "correct": True}},
    ]
    result = run_sim(timeline(*send), players=3, seed=SEED, game="evidence")
    errors = [e["detail"] for e in events(result, "error")]
    assert len(errors) == 3
    assert "already P2's" in errors[0] and "11 claim value" in errors[1]
    assert "no judgement" in errors[2]
    assert [e["player"] for e in events(result, "claim")] == [2, 1]
    assert (
        events(result, "claims")[0]["markers"] == [None, 1, None, None, None, None, 2] + [None] * 3
    )
    assert events(result, "score")[-1]["scores"] == [5, 1, 0]  # green+yellow to P1, red to P2


# ------------------------------------------------------------------ LEDs
def _frame(game, now_ms, stations=6, markers=10):
    from refbox.pinmap import PLAYER_COLOURS

    frame = [(0, 0, 0)] * (stations + markers)
    game.decorate(frame, now_ms, PLAYER_COLOURS, stations, markers)
    return frame[:stations], frame[stations:], PLAYER_COLOURS


def test_leds_show_claims_orientation_countdown_and_the_count():
    game = _game(3)
    stations, bar, colours = _frame(game, 0)
    assert stations[:3] == [tuple(c // 10 for c in colours[p]) for p in range(3)]
    _record(game, ("round",))
    game.orientation = "right"
    game.record(("claim", 1, 4, 0, 0, 0))
    stations, bar, colours = _frame(game, 200)
    assert bar[3] == colours[1]  # marker 4 in P2's colour
    assert stations[1] == tuple(c // 10 for c in colours[1]) and stations[0] == colours[0]
    lit = [i for i in range(10) if bar[i] == (60, 60, 60)]
    assert lit == [2]  # the chase at 200 ms: pixel 3, moving towards marker 10
    assert [i for i in range(10) if _frame(game, 500)[1][i] == (60, 60, 60)] == [5]
    game.orientation = "up"
    assert [i for i in range(10) if _frame(game, 200)[1][i] == (60, 60, 60)] == [1, 8]
    game.press_entry(0, Stamp(1000000))
    assert _frame(game, 1020)[0][0] == (255, 255, 255)  # a counted press flashes white
    game.record(("claim", 0, 6, 0, 0, 0))
    assert game.countdown is not None
    blink = {_frame(game, t)[0][2] for t in (0, 125)}
    assert blink == {colours[2], (0, 0, 0)}
    game.record(("sit_out", 2, 0))
    assert _frame(game, 0)[0][2] == (0, 0, 0)
    for _ in range(7):
        game.record(("dial", game.dial + 1))
    _, bar, _ = _frame(game, 0)
    assert bar[3] == colours[1] and bar[5] == colours[0]  # claims inside the gauge: full colour
    assert bar[6] == (40, 40, 40) and bar[7] == (0, 0, 0)  # 7: pixels 1-7 lit
    game.record(("dial", 12))
    _, bar, _ = _frame(game, 0)
    assert bar[0] == (60, 36, 0) and bar[2] == (40, 40, 40)  # 12: amber 1-2 over a full bar
    game.record(("count", 6))
    _, bar, _ = _frame(game, 0)
    assert bar[5] == (0, 255, 0) and bar[3] == (255, 200, 0)  # green on 6, yellow on 4
