"""Fast entry: ARM / NO held repeat and accelerate, so any Diddly round score or Evidence count
goes in within 5 s (README.md "Fast entry")."""

import pytest
from helpers import events, run_sim, timeline
from refbox.controls import REPEAT, ControlButtons, repeat_steps
from refbox.games.diddly_scoring import COLUMN_MAX

DEBOUNCE_US = ControlButtons.debounce_us
LIMIT_US = 5000000
START_US = 100000


def _action_times():
    """µs after the debounced press at which a held control acts: 0, then each repeat."""
    times, t, i = [0], 0, 0
    while t < 10 * LIMIT_US:
        t += REPEAT[i]
        times.append(t)
        i = min(i + 1, len(REPEAT) - 1)
    return times


def _entry(control, steps, at_us):
    """Records that step `control` `steps` times from `at_us` (one held press, released between
    two repeats), then YES; and the µs from the first press to YES."""
    if steps == 0:
        return [{"at_us": at_us, "control": "yes"}], 0
    times = _action_times()
    last, following = times[steps - 1], times[steps]
    # the contact opens midway between the last wanted action and the next; the release is
    # debounced too, so the control still counts as down for DEBOUNCE_US after it opens
    hold_us = DEBOUNCE_US + last + (following - last) // 2 - DEBOUNCE_US // 2
    yes_at = at_us + hold_us + 50000
    records = [
        {"at_us": at_us, "control": control, "hold_ms": hold_us // 1000},
        {"at_us": yes_at, "control": "yes"},
    ]
    return records, yes_at - at_us


def _plan(value, top):
    """The fastest way to `value` from 0 on a dial wrapping 0..top: ARM up or NO down."""
    down = (top + 1 - value) % (top + 1)
    return ("arm", value) if value <= down else ("no", down)


def test_the_schedule_reaches_every_score_within_five_seconds():
    for top in (3 * COLUMN_MAX, 4 * COLUMN_MAX):
        for value in range(top + 1):
            control, steps = _plan(value, top)
            _, took = _entry(control, steps, 0)
            assert took <= LIMIT_US, (top, value, took)
    for count in range(31):  # Evidence: 0..30, no wrap
        _, took = _entry("arm", count, 0)
        assert took <= LIMIT_US, (count, took)
    assert repeat_steps(REPEAT[0] - 1) == 1 and repeat_steps(REPEAT[0]) == 2


@pytest.mark.parametrize("value", [0, 1, 7, 12, 23, 40, 41, 57, 79, 80])
def test_any_diddly_score_by_holding_arm_or_no(value):
    control, steps = _plan(value, 4 * COLUMN_MAX)
    new = {"cmd": "new_game", "game": "diddly", "players": 2, "options": {"columns": 4}}
    records, took = _entry(control, steps, START_US)
    result = run_sim(timeline({"at_us": 1000, "send": new}, *records), players=2)
    (score,) = events(result, "round_score")
    assert score["value"] == value and score["player"] == 2  # P2 plays first in round 1
    assert took <= LIMIT_US
    assert not events(result, "error")


# a 2-player Evidence round up to its counting phase: both markers claimed by the host
EVIDENCE_COUNTING = [
    {"at_us": 1000, "send": {"cmd": "new_game", "game": "evidence", "players": 2}},
    {"at_us": 20000, "control": "arm"},
    {"at_us": 300000, "send": {"cmd": "act", "action": "claim", "player": 1, "value": 4}},
    {"at_us": 310000, "send": {"cmd": "act", "action": "claim", "player": 2, "value": 9}},
]


@pytest.mark.parametrize("count", [0, 1, 13, 29, 30])
def test_any_evidence_count_by_holding_arm(count):
    records, took = _entry("arm", count, 500000)
    result = run_sim(timeline(*EVIDENCE_COUNTING, *records), players=2, game="evidence")
    (tokens,) = events(result, "tokens")
    assert tokens["differences"] == count and took <= LIMIT_US
    assert not events(result, "error")


def test_holding_no_at_zero_does_not_flood_errors():
    """Evidence's count stops at 0 and 30: a held NO at 0 is one refusal, not 25 a second."""
    records = EVIDENCE_COUNTING + [{"at_us": 500000, "control": "no", "hold_ms": 3000}]
    result = run_sim(timeline(*records), players=2, game="evidence")
    assert len(events(result, "error")) == 1


def test_a_held_arm_does_not_repeat_where_nothing_is_entered():
    """In a quiz, holding ARM arms once: repeats mean something only for a value being stepped."""
    records = [
        {"at_us": 100000, "control": "arm", "hold_ms": 3000},
    ]
    result = run_sim(timeline(*records))
    assert len(events(result, "armed")) == 1 and not events(result, "error")


def test_a_held_arm_scrolls_the_menu():
    records = [
        {"at_us": 1000, "send": {"cmd": "menu"}},
        {"at_us": 100000, "control": "arm", "hold_ms": 1100},
    ]
    result = run_sim(timeline(*records))
    menus = events(result, "menu")
    # the menu's first event, then one per step: the press and the repeats within the hold
    assert len(menus) == 1 + repeat_steps(1100000) == 7
