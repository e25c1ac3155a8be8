"""Déglingo through the simulator and against a brute-force reading of the rules.

Rules: shared/rules/001_64e1c7829d61bb46.txt and shared/rules/README.md section "deglingo".
"""

import json
import re

import pytest
from helpers import events, run_cli, run_raw, run_sim, timeline
from hypothesis import given
from hypothesis import strategies as st
from refbox.games.base import GameError, parse_options
from refbox.games.deglingo import Deglingo
from refbox.leds import render
from refbox.referee import Referee
from refbox.ticks import Stamp
from scripts_deglingo import (
    SPACES,
    TIMER_S,
    Table,
    multi_game,
    multi_round,
    ranking,
    stop_or_encore,
    two_player_game,
)


def _cli(records, players, options):
    args = ["--script", "-", "--seed", "d61", "--game", "deglingo", "--players", str(players)]
    return run_cli(args + ["--options", json.dumps(options)], stdin=timeline(*records))


def _rounds(evs, *keys):
    """The round_over events that stood (an undone round is played again with its number)."""
    kept = {}
    for e in evs:
        if e["ev"] == "round_over":
            kept[e["round"]] = tuple(e[k] for k in keys)
    return [kept[r] for r in sorted(kept)]


def _final(evs):
    over = [e for e in evs if e["ev"] == "game_over"]
    assert len(over) == 1 and over[0]["abandoned"] is False
    return [(r["place"], r["player"], r["score"]) for r in over[0]["ranking"]]


# ------------------------------------------------------------------ whole games through the CLI
@pytest.mark.parametrize("players", [3, 6])
def test_full_game_to_a_final_ranking(players):
    records, expected, rounds = multi_game(players)
    evs = _cli(records, players, {"timer": TIMER_S})
    game = [e for e in evs if e["ev"] == "game"][0]
    assert game["options"] == {"false_start": 250, "target": 5, "timer": TIMER_S}
    assert _final(evs) == expected
    assert _rounds(evs, "how", "points") == [(how, pts) for how, pts in rounds]
    assert [e["ev"] for e in evs].count("undo") == 2
    assert any(e["ev"] == "lockout" and e["reason"] == "false_start" for e in evs)
    assert any(e["ev"] == "lockout" and e["reason"] == "wrong" for e in evs)
    assert [e for e in evs if e["ev"] == "error"] == []
    assert {how for how, _ in rounds} == {"found", "all_wrong", "gave_up", "time"}


def test_two_player_stop_or_encore_to_a_final_ranking():
    records, expected, rounds = two_player_game()
    evs = _cli(records, 2, {"timer": TIMER_S})
    assert _final(evs) == expected
    assert max(score for _, _, score in expected) >= 12
    assert _rounds(evs, "how", "points", "replaced") == rounds
    assert {how for how, _, _ in rounds} >= {"stop", "wrong", "all_found", "time"}
    assert [e for e in evs if e["ev"] == "error"] == []
    assert [e["ev"] for e in evs].count("undo") == 2


def test_false_starts_show_only_when_deglingo_is_called():
    table = Table()
    table.buzz(2, 100000)  # eyes closed: a false start, nothing shown
    table.buzz(3, 100000)
    table.buzz(2, 100000)  # again: still one false start
    table.buzz(1, 300000)  # P1 calls Déglingo at 600 ms
    table.buzz(2, 100000)  # locked (until 850 ms): restarts, now until 950 ms
    table.buzz(3, 200000)  # P3 locked until 850 ms: presses at 900 ms and wins
    table.at(300000, control="yes")
    result = run_sim(timeline(*table.records), players=3, game="deglingo")
    names = [ev["ev"] for _, ev in result]
    call = names.index("deglingo")
    assert "lockout" not in names[:call] and "armed" not in names[:call]
    locks = events(result, "lockout")
    assert [(e["player"], e["ms"]) for e in locks] == [(2, 250), (3, 250), (2, 250)]
    assert [e["winner"] for e in events(result, "race")] == [3]
    assert events(result, "round_over")[0]["points"] == [0, 0, 1]


def test_race_long_false_start_and_off():
    table = Table()
    table.buzz(2, 100000)
    table.buzz(1, 200000)
    table.buzz(2, 500000)  # "race": still out
    table.buzz(3, 100000)
    table.at(300000, control="no")  # P3 wrong; P2 is out for the whole round ("race")
    table.buzz(2, 300000)
    table.at(300000, control="yes")
    result = run_sim(
        timeline(*table.records), players=3, game="deglingo", options={"false_start": "race"}
    )
    assert [e["winner"] for e in events(result, "race")] == [3]
    assert events(result, "lockout")[0]["ms"] is None
    over = events(result, "round_over")[0]
    assert over["how"] == "all_locked" and over["points"] == [1, 0, 0]  # nobody could find it
    off = run_sim(
        timeline(*table.records), players=3, game="deglingo", options={"false_start": "off"}
    )
    assert [e["reason"] for e in events(off, "lockout")] == ["wrong"]
    assert [e["winner"] for e in events(off, "race")] == [2]


def test_undo_takes_back_the_call_and_the_count():
    table = Table()
    table.at(100000, control="yes")
    table.buzz(1, 200000)  # called with 1 replaced card: a mistake
    table.at(300000, control="undo")  # back to the eyes-closed phase
    table.at(300000, control="yes")  # 1 -> start again from nothing, then 3
    for _ in range(2):
        table.at(150000, control="yes")
    table.buzz(1, 200000)
    table.buzz(2, 300000)
    table.at(300000, control="yes")
    table.at(300000, control="arm")  # stop: 1 found of 3
    result = run_sim(timeline(*table.records), players=2, game="deglingo")
    assert [e["dropped"] for e in events(result, "undo")] == [1]
    over = events(result, "round_over")
    assert [(o["replaced"], o["found"], o["points"]) for o in over] == [(3, 1, [2, 1])]


def test_wrong_moments_are_clear_errors():
    table = Table()
    table.buzz(1, 100000)  # 2 players: no count entered yet
    table.at(200000, control="arm")
    table.send(100000, cmd="act", action="replaced", value=4)
    table.send(100000, cmd="act", action="deal")
    table.send(100000, cmd="judge", correct=True)
    table.send(100000, cmd="act", action="replaced", value=2)
    table.send(100000, cmd="act", action="deglingo")
    table.send(100000, cmd="act", action="replaced", value=1)
    table.at(100000, control="yes")  # nobody has the floor
    result = run_sim(timeline(*table.records), players=2, game="deglingo")
    codes = [e["code"] for e in events(result, "error")]
    assert codes == ["not_now", "not_now", "bad_value", "unknown_action", "not_now"] + [
        "not_now",
        "not_now",
    ]
    assert events(result, "deglingo") and not events(result, "round_over")


# ------------------------------------------------------------------ the secret count
def _secret_round(count, presses):
    """A 2-player round: the count entered with `presses` YES presses (count, +3, ...), one
    find, a `state` query while racing, then stop."""
    table = Table()
    table.buzz(2, 100000)  # a false start of the observer, to show it changes nothing
    for _ in range(presses):
        table.at(200000, control="yes")
    table.t = 2000000  # the same moment whatever was entered
    table.send(100000, cmd="state")
    table.buzz(1, 200000)
    table.send(100000, cmd="state")
    table.buzz(2, 400000)
    table.at(300000, control="yes")
    table.send(100000, cmd="state")
    table.at(300000, control="arm")
    return timeline(*table.records)


def _until_round_over(lines):
    for i, (_, line) in enumerate(lines):
        if '"round_over"' in line:
            return lines[:i], lines[i]
    raise AssertionError("no round_over")


@pytest.mark.parametrize("options", [{}, {"timer": 30}])
def test_the_secret_count_never_shows_before_the_round_ends(options):
    before = {}
    for count, presses in [(2, 2), (2, 5), (3, 3), (3, 6), (3, 9)]:
        text = _secret_round(count, presses)
        # no contact bounce: the simulated bounce draws depend on how many controls were pressed
        lines = run_raw(text, players=2, game="deglingo", options=options, bounce="none")
        head, over = _until_round_over(lines)
        assert json.loads(over[1])["replaced"] == count
        # an ARM's cue (`armed` t_us) is its edge handler's stamp: the simulator draws each
        # interrupt's 20-25 µs latency from one stream, so earlier presses move the draw
        before[(count, presses)] = [(ns, re.sub(r',"t_us":\d+,"t_ns":\d+}$', "}", line)
                                     if '"ev":"armed"' in line else line) for ns, line in head]
        assert not any('"replaced":' in line for _, line in head)  # (a prompt says "+1 replaced")
    first = before[(2, 2)]
    assert all(head == first for head in before.values())


def _referee(players, options=None):
    out = []
    tones = []
    emit = lambda n, f=(): out.append((n, f))  # noqa: E731
    ref = Referee(6, emit, lambda *a: tones.append(a), lambda: b"\x07" * 16, lambda: ())
    ref.new_game("deglingo", players, options or {})
    return ref, out, tones


@pytest.mark.parametrize("timer", [0, 30])
def test_leds_tones_and_state_do_not_depend_on_the_count(timer):
    from refbox import pinmap

    colours = pinmap.PLAYER_COLOURS
    seen = []
    for count in (1, 2, 3):
        ref, out, tones = _referee(2, {"timer": timer})
        frames = []
        t = 1000
        for _ in range(count):
            ref.control("yes")
        frames += [render(ref, ms, colours, 6, 10) for ms in (0, 125, 250, 600)]
        ref.tick(t, Stamp(t), Stamp(t))
        ref.press(0, Stamp(t))  # Déglingo!
        for dt in (1000, 300000, 2000000):
            ref.tick(t + dt, Stamp(t + dt), Stamp(t + dt))
            frames += [render(ref, ms, colours, 6, 10) for ms in (0, 125, 250, 600)]
        ref.command("state", {})
        seen.append((frames, out, tones, len(ref.game.log)))
        assert ref.game.replaced == count  # it is there, but nowhere to be seen
    assert seen[0] == seen[1] == seen[2]


def test_the_timer_counts_down_on_the_marker_bar_and_pauses_on_the_floor():
    from refbox import pinmap

    colours = pinmap.PLAYER_COLOURS
    ref, out, _ = _referee(3, {"timer": 10})
    ref.tick(1000, Stamp(1000), Stamp(1000))
    ref.press(0, Stamp(1000))

    def lit(t):  # the bar at tick t (µs): the frame's own time, as the loop renders it
        ref.tick(t, Stamp(t), Stamp(t))
        return sum(1 for px in render(ref, t // 1000, colours, 6, 10)[6:] if px != (0, 0, 0))

    assert lit(2000) == 10
    assert lit(3001000) == 7
    ref.press(1, Stamp(3001000))  # P2 has the floor at 3 s: paused
    ref.tick(3004000, Stamp(3003000), Stamp(3003000))
    assert [dict(f)["winner"] for n, f in out if n == "race"] == [2]
    ref.tick(20000000, Stamp(20000000), Stamp(20000000))
    ref.control("no")  # P2 wrong, at 20 s: 7 s left
    assert lit(20001000) == 7
    assert lit(26252000) == 1  # (the last 5 s blink: 26.25 s is an "on" quarter second)
    assert not [n for n, _ in out if n == "round_over"]
    lit(27002000)
    over = [dict(f) for n, f in out if n == "round_over"]
    assert over and over[0]["how"] == "time" and over[0]["points"] == [1, 0, 0]


# ------------------------------------------------------------------ rules against brute force
class Driver:
    """Drives the game's hooks directly (no arbiter): presses, races won, controls, ticks."""

    def __init__(self, players, given=None):
        options = parse_options(Deglingo.OPTIONS, given or {})
        self.game = Deglingo(players, options, b"\x01" * 16)
        self.t = 1000
        self.events = []

    def rec(self, entry):
        self.events += self.game.record(entry)

    def press(self, player):
        self.tick(1000)
        entry = self.game.press_entry(player, Stamp(self.t))
        if entry is not None:
            self.rec(entry)

    def control(self, name):
        self.rec(self.game.control_entry(name))

    def tick(self, dt):
        self.t += dt
        self.game.now = self.t
        entry = self.game.tick_entry(Stamp(self.t))
        if entry is not None:
            self.rec(entry)


multi_rounds = st.lists(
    st.tuples(
        st.integers(0, SPACES - 1),
        st.lists(st.tuples(st.integers(0, 5), st.integers(0, SPACES - 1)), max_size=6),
        st.sampled_from(["gave_up", "time"]),
    ),
    min_size=1,
    max_size=25,
)


@given(st.integers(3, 6), multi_rounds, st.integers(1, 6))
def test_multi_player_scoring_matches_the_rules(players, rounds, target):
    d = Driver(players, {"target": target, "timer": 5})
    scores = [0] * players
    for replaced, claims, ending in rounds:
        if d.game.phase == "over":
            break
        active = d.game.active
        assert active == (d.game.round - 1) % players
        d.press(active)
        claims = [(o, space) for o, space in claims if o < players]
        points, how, judged = multi_round(players, active, replaced, claims, ending)
        for observer, correct in judged:
            d.rec(d.game.win_entry(observer, Stamp(d.t)))
            d.control("yes" if correct else "no")
        if d.game.phase == "racing":
            if ending == "time":
                d.tick(5000000)
            else:
                d.control("arm")
        for p in range(players):
            scores[p] += points[p]
        assert d.game.scores == scores, (how, claims)
    if max(scores) >= target:
        assert d.game.phase == "over" and d.game.ranking() == ranking(scores)


two_rounds = st.lists(
    st.tuples(
        st.sets(st.integers(0, SPACES - 1), min_size=1, max_size=3),
        st.lists(st.integers(0, SPACES - 1), max_size=4),
        st.sampled_from(["stop", "time"]),
        st.integers(0, 2),
    ),
    min_size=1,
    max_size=30,
)


@given(two_rounds)
def test_stop_or_encore_scoring_matches_the_rules(rounds):
    d = Driver(2, {"timer": 30})
    scores = [0, 0]
    for replaced, pointed, ending, extra_cycles in rounds:
        if d.game.phase == "over":
            break
        active = d.game.active
        observer = 1 - active
        for _ in range(len(replaced) + 3 * extra_cycles):  # YES cycles 1, 2, 3, 1...
            d.control("yes")
        d.press(active)
        obs, act, how, judged = stop_or_encore(replaced, pointed, ending)
        for correct in judged:
            d.rec(d.game.win_entry(observer, Stamp(d.t)))
            d.control("yes" if correct else "no")
        if d.game.phase == "racing":
            if ending == "time":
                d.tick(30000000)
            else:
                d.control("arm")
        scores[observer] += obs
        scores[active] += act
        assert d.game.scores == scores, (how, replaced, pointed)
        over = [dict(f) for n, f in d.events if n == "round_over"][-1]
        assert over["replaced"] == len(replaced) and over["how"] == how
    if max(scores) >= 12:
        assert d.game.phase == "over" and d.game.ranking() == ranking(scores)
    else:
        assert d.game.phase == "eyes_closed"


@given(two_rounds, st.integers(1, 5))
def test_refold_and_undo_give_back_the_same_state(rounds, back):
    d = Driver(2)
    snapshots = []  # (scores, phase, round) before each scoring entry
    for replaced, pointed, _, _ in rounds:
        if d.game.phase == "over":
            break
        for _ in range(len(replaced)):
            d.control("yes")
        snapshots.append((list(d.game.scores), d.game.phase, d.game.round))
        d.press(d.game.active)
        _, _, _, judged = stop_or_encore(replaced, pointed)
        for correct in judged:
            d.rec(d.game.win_entry(1 - d.game.active, Stamp(d.t)))
            snapshots.append((list(d.game.scores), d.game.phase, d.game.round))
            d.control("yes" if correct else "no")
        if d.game.phase == "racing":
            snapshots.append((list(d.game.scores), d.game.phase, d.game.round))
            d.control("arm")
    again = Deglingo(2, d.game.options, b"\x01" * 16)
    for entry in d.game.log:
        again.record(entry)
    assert (again.scores, again.phase, again.round) == (d.game.scores, d.game.phase, d.game.round)
    for _ in range(min(back, len(snapshots))):
        d.game.undo()
        assert (d.game.scores, d.game.phase, d.game.round) == tuple(snapshots.pop())


def test_options_are_checked():
    with pytest.raises(GameError) as e:
        parse_options(Deglingo.OPTIONS, {"timer": 301})
    assert e.value.code == "bad_option"
    with pytest.raises(GameError):
        parse_options(Deglingo.OPTIONS, {"target": True})
    assert parse_options(Deglingo.OPTIONS, {}) == {"false_start": 250, "target": 5, "timer": 0}


def test_menu_offers_deglingo_and_its_options():
    script = [{"at_us": 1000, "send": {"cmd": "menu"}}]
    t = 200000
    for name in ["arm", "arm", "yes", "no", "no", "no", "yes", "yes", "yes", "arm", "yes"]:
        script.append({"at_us": t, "control": name})  # deglingo, 3 players, timer 30
        t += 200000
    result = run_sim(timeline(*script))
    game = events(result, "game")[-1]
    assert game["game"] == "deglingo" and game["players"] == 3
    assert game["options"] == {"false_start": 250, "target": 5, "timer": 30}


# ------------------------------------------------------------------ the MicroPython lane
@pytest.mark.micropython
@pytest.mark.parametrize("players", [2, 4])
def test_same_events_under_micropython(players):
    if players == 2:
        records = two_player_game()[0]
    else:
        records = multi_game(players)[0]
    text = timeline(*records)
    header = {"game": "deglingo", "options": {"timer": TIMER_S}}
    cpython = run_raw(text, players=players, seed="d62", **header)
    micropython = run_raw(text, players=players, seed="d62", interpreter="micropython", **header)
    assert micropython == cpython


@pytest.mark.micropython
def test_secret_round_same_under_micropython():
    text = _secret_round(3, 6)
    header = {"game": "deglingo", "options": {"timer": 30}}
    assert run_raw(text, players=2, interpreter="micropython", **header) == run_raw(
        text, players=2, **header
    )


@pytest.mark.parametrize("players", [2, 4])
def test_examples_are_current_and_play_to_the_end(players):
    from pathlib import Path

    from helpers import CONTROLS
    from tablebuzz.sim import simulate
    from tablebuzz.sim.timeline import parse

    path = Path(__file__).resolve().parent.parent / "examples" / ("deglingo_%dp.jsonl" % players)
    text = path.read_text()
    records = two_player_game()[0] if players == 2 else multi_game(players)[0]
    lines = [json.loads(x) for x in text.splitlines() if not x.startswith("#")]
    assert lines[1:] == records and "setup" in lines[0]
    head = {"seed": "1", "game": "deglingo", "players": players, "options": {"timer": TIMER_S}}
    lines = [json.loads(line) for _, line in simulate.run(head, parse(text, players, CONTROLS))]
    assert [e["ev"] for e in lines].count("game_over") == 1
    assert not [e for e in lines if e["ev"] == "error"]


def test_timers_and_lockouts_across_the_tick_wrap():
    text = timeline(*two_player_game()[0])
    header = {"game": "deglingo", "options": {"timer": TIMER_S}}
    plain = run_sim(text, players=2, **header)
    wrapped = run_sim(text, players=2, ticks_origin_us=(1 << 30) - 4000000, **header)
    keep = ("round_over", "lockout", "unlock", "undo", "score")
    assert [e for _, e in wrapped if e["ev"] in keep] == [e for _, e in plain if e["ev"] in keep]
    assert any(e["ev"] == "round_over" and e["how"] == "time" for _, e in wrapped)


def test_every_observer_out_for_the_race_ends_the_round_for_the_active_player():
    # false_start "race": both observers press while eyes are closed, then P1 calls Déglingo
    new = {"cmd": "new_game", "game": "deglingo", "players": 3, "options": {"false_start": "race"}}
    result = run_sim(
        timeline(
            {"at_us": 1000, "send": new},
            {"at_us": 200000, "press": 2},
            {"at_us": 280000, "release": 2},
            {"at_us": 300000, "press": 3},
            {"at_us": 380000, "release": 3},
            {"at_us": 500000, "press": 1},
            {"at_us": 580000, "release": 1},
        )
    )
    over = events(result, "round_over")
    assert over and over[0]["how"] == "all_locked" and over[0]["points"] == [1, 0, 0]
    assert all(ev["players"] for ev in events(result, "armed"))  # never a race with nobody in it


def test_the_frame_moves_only_while_the_observers_race():
    """Déglingo's own painting moves with time only while the observers race (a locked-out
    observer blinks, the timer's bar counts down): while an observer answers its frame is still,
    and the loop renders it after changes only (refbox.leds.moves asks the game then too)."""
    import refbox.app
    from helpers import CONTROLS
    from tablebuzz.sim import simulate
    from tablebuzz.sim.timeline import parse

    answering = []

    def spy(view, now_ms, colours, station_pixels, marker_pixels, frame=None):
        out = render(view, now_ms, colours, station_pixels, marker_pixels, frame)
        if view.game is not None and view.game.phase == "answering":
            answering.append(tuple(out))
        return out

    text = timeline(
        {"at_us": 300_000, "press": 1}, {"at_us": 360_000, "release": 1},  # P1 calls
        {"at_us": 1_000_000, "press": 2}, {"at_us": 1_060_000, "release": 2},  # P2 answers
        {"at_us": 6_000_000, "control": "yes"},
    )
    head = {"seed": "5", "game": "deglingo", "players": 3, "options": {"timer": 30}}
    simulate._ensure_paths()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(refbox.app, "render", spy)
        simulate.run(head, parse(text, 3, CONTROLS), "cpython")
    assert len(set(answering)) == 1 and 0 < len(answering) < 30, len(answering)
