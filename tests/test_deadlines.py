"""Deadlines are decided from stamps (docs/architecture.md "Deadlines"), through the whole
simulated capture path: a press stamped before a deadline beats it, whenever the loop sees it; a
host command counts from the tick its line arrived."""

import pytest
from helpers import events, run_sim, timeline

MS = 1000  # µs


def _names(result, keep):
    return [ev["ev"] for _, ev in result if ev["ev"] in keep]


# ------------------------------------------------------------------ Evidence: the countdown
# P1 claims marker 2: a tap at 100 ms, then a press at 250 ms held: committed at 1.25 s, which
# starts P2's 3 s countdown. P2 claims marker 1 (one press, held 1.2 s) around its end, 4.25 s.
EVIDENCE_DEADLINE_US = 250 * MS + 1000 * MS + 3000 * MS


def _evidence_last_press(offset_us, bounce="typical", interpreter="cpython"):
    press = EVIDENCE_DEADLINE_US + offset_us
    text = timeline(
        {"at_us": 10 * MS, "control": "arm"},
        {"at_us": 100 * MS, "press": 1},
        {"at_us": 160 * MS, "release": 1},
        {"at_us": 250 * MS, "press": 1},
        {"at_us": 1450 * MS, "release": 1},
        {"at_us": press, "press": 2},
        {"at_us": press + 1200 * MS, "release": 2},
    )
    return run_sim(
        text,
        players=2,
        game="evidence",
        bounce=bounce,
        interpreter=interpreter,
    )


@pytest.mark.parametrize("offset_us", [-200, -5000, 200, 5000])
def test_evidence_press_just_before_the_countdown_ends_counts(offset_us):
    result = _evidence_last_press(offset_us)
    (countdown,) = events(result, "countdown")
    assert countdown["player"] == 2
    claims = [(c["player"], c["marker"]) for c in events(result, "claim")]
    order = _names(result, ("press", "claim", "sit_out"))
    if offset_us < 0:
        assert claims == [(1, 2), (2, 1)]
        assert order == ["press", "press", "claim", "press", "claim"]  # never a sit_out
    else:
        assert claims == [(1, 2)]
        assert [ev["player"] for ev in events(result, "sit_out")] == [2]


def test_evidence_act_claims_count_from_their_arrival():
    """The countdown started by a host claim lasts its 3 s from that claim's line, however long
    the loop slept before it (the simulator skips idle time)."""
    act = {"cmd": "act", "action": "claim"}
    text = timeline(
        {"at_us": 10 * MS, "control": "arm"},
        {"at_us": 500 * MS, "send": dict(act, player=1, value=4)},
        {"at_us": 2000 * MS, "send": dict(act, player=2, value=6)},
        {"at_us": 6000 * MS, "send": {"cmd": "state"}},
    )
    result = run_sim(text, players=3, game="evidence")
    (countdown_ns,) = [ns for ns, ev in result if ev["ev"] == "countdown"]
    (sit_ns,) = [ns for ns, ev in result if ev["ev"] == "sit_out"]
    assert 2000 * MS * 1000 <= countdown_ns < 2003 * MS * 1000  # (the pass after its arrival)
    assert 2999 * MS * 1000 <= sit_ns - countdown_ns <= 3005 * MS * 1000


def test_evidence_act_claim_after_the_countdown_ran_out_is_refused():
    act = {"cmd": "act", "action": "claim"}
    text = timeline(
        {"at_us": 10 * MS, "control": "arm"},
        {"at_us": 500 * MS, "send": dict(act, player=1, value=4)},
        {"at_us": 3500 * MS + 100, "send": dict(act, player=2, value=6)},
    )
    result = run_sim(text, players=2, game="evidence")
    (error,) = events(result, "error")
    assert error["code"] == "not_now"  # the countdown ran out at its deadline, before the line
    assert [ev["player"] for ev in events(result, "sit_out")] == [2]


# ------------------------------------------------------------------ Déglingo: the timer
# 3 players, `timer` 10 s: P1 calls at 100 ms, the observers' timer runs out at 10.1 s.
DEGLINGO_DEADLINE_US = 100 * MS + 10000 * MS


def _deglingo_buzz(offset_us, who=2, then=None):
    buzz = DEGLINGO_DEADLINE_US + offset_us
    recs = [
        {"at_us": 100 * MS, "press": 1},
        {"at_us": 200 * MS, "release": 1},
        {"at_us": buzz, "press": who},
        {"at_us": buzz + 150 * MS, "release": who},
    ]
    recs += then or []
    return run_sim(
        timeline(*recs), players=3, game="deglingo", options={"timer": 10}, bounce="typical"
    )


@pytest.mark.parametrize("offset_us", [-500, -4000, 500, 4000])
def test_deglingo_buzz_just_before_the_timer_is_judged(offset_us):
    result = _deglingo_buzz(offset_us)
    over = events(result, "round_over")
    if offset_us < 0:
        assert [r["winner"] for r in events(result, "race")] == [2]
        assert over == []  # P2 has the floor: the table judges
    else:
        assert events(result, "race") == []
        assert [r["how"] for r in over] == ["time"]


@pytest.mark.parametrize("offset_us", [-500, 30])
def test_the_next_active_players_buzz_at_the_deadline_is_decided_by_its_stamp(offset_us):
    """P2 is the next active player. Their buzz stamped before the end of P1's round is judged
    in that round (a race P2 wins), never the Déglingo call of P2's own round; one stamped
    after it is in P2's round, which began at the round's deadline (Deglingo.opened), however
    late the loop ran the timer: P2's call (issue 39 case 4)."""
    yes = [{"at_us": DEGLINGO_DEADLINE_US + 400 * MS, "control": "yes"}]
    result = _deglingo_buzz(offset_us, who=2, then=yes if offset_us < 0 else [])
    over = events(result, "round_over")
    assert [r["how"] for r in over] == (["found"] if offset_us < 0 else ["time"])
    assert over[0]["next"] == 2
    calls = [d["active"] for d in events(result, "deglingo")]
    assert calls == ([1] if offset_us < 0 else [1, 2])


# ------------------------------------------------------------------ idle skipping
def _mixed_evidence():
    act = {"cmd": "act", "action": "claim"}
    return timeline(
        {"at_us": 10 * MS, "control": "arm"},
        {"at_us": 100 * MS, "press": 1},
        {"at_us": 160 * MS, "release": 1},
        {"at_us": 250 * MS, "press": 1},
        {"at_us": 1450 * MS, "release": 1},
        {"at_us": 1700 * MS, "send": dict(act, player=2, value=7)},
        {"at_us": 4699 * MS + 700, "press": 3},
        {"at_us": 5900 * MS, "release": 3},
        {"at_us": 7000 * MS, "control": "arm"},
    )


def _mixed_deglingo():
    return timeline(
        {"at_us": 50 * MS, "press": 3},  # a false start
        {"at_us": 90 * MS, "release": 3},
        {"at_us": 100 * MS, "press": 1},
        {"at_us": 200 * MS, "release": 1},
        {"at_us": 280 * MS, "press": 3},  # relocks
        {"at_us": 330 * MS, "release": 3},
        {"at_us": 3000 * MS, "press": 2},
        {"at_us": 3000 * MS + 400, "press": 3},
        {"at_us": 3100 * MS, "release": 2},
        {"at_us": 3100 * MS, "release": 3},
        {"at_us": 4000 * MS, "control": "no"},
        {"at_us": 11099 * MS, "send": {"cmd": "state"}},
    )


@pytest.mark.parametrize(
    "game,players,options,text",
    [
        ("evidence", 3, {}, _mixed_evidence()),
        ("deglingo", 3, {"timer": 10, "false_start": 250}, _mixed_deglingo()),
    ],
)
def test_idle_skipping_changes_no_decision(game, players, options, text):
    head = {"players": players, "game": game, "options": options}
    skipping = run_sim(text, **head)
    stepping = run_sim(text, every_ms=True, **head)
    assert stepping == skipping
    assert len(skipping) > 8


@pytest.mark.micropython
def test_deadline_decisions_are_the_same_bytes_on_micropython():
    from helpers import run_raw

    text = _mixed_deglingo()
    head = {"players": 3, "game": "deglingo", "options": {"timer": 10}}
    cpython = run_raw(text, **head)
    assert run_raw(text, interpreter="micropython", **head) == cpython
    text = _mixed_evidence()
    head = {"players": 3, "game": "evidence"}
    cpython = run_raw(text, **head)
    assert run_raw(text, interpreter="micropython", **head) == cpython


# ------------------------------------------------------------------ a release being judged
@pytest.mark.parametrize("release_us", [1302000, 1308000, 1310000])
@pytest.mark.parametrize("offset_us", [20, -20])
def test_a_release_being_judged_never_lets_a_late_press_beat_the_buzz_window(release_us,
                                                                             offset_us):
    """Armed by the ARM button at 300 ms with buzz_s 1: its press counts 10 ms after its edge
    handler's stamp (20-25 µs after the edge, tablebuzz.sim.world), so the window closes at
    1310.020-1310.025 ms. Another player's release
    just before it holds the timers' horizon (a press that may be ending); a press after the
    deadline waits for that release to be known and the timer to run, and never wins (it won
    when the release came 3 ms or less before the deadline: found by a differential fuzz); one
    before it wins."""
    press = 1310022 + offset_us
    text = timeline(
        {"at_us": 100 * MS, "press": 1},
        {"at_us": 300 * MS, "control": "arm"},
        {"at_us": release_us, "release": 1},
        {"at_us": press, "press": 2},
        {"at_us": press + 100 * MS, "release": 2},
    )
    result = run_sim(text, players=4, bounce="none", options={"buzz_s": 1, "false_start": "off"})
    races = events(result, "race")
    if offset_us > 0:
        assert races == [] and _names(result, ("dead", "press"))[-2:] == ["dead", "press"]
    else:
        assert [ev["winner"] for ev in races] == [2]
