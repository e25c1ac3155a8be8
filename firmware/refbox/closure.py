"""The debounce and noise rule for one closure of a contact, written once, as readable Python.

A closing edge starts a *candidate*, stamped at that edge (refbox.debounce.Debouncer keeps its
state). The candidate is a **press** once the contact has been closed for `press_ns` in all since
that edge, and for at least as long as it was open since then (bounce openings do not count, nor
do they reset it). It is **noise** (dropped, never reported) when, before that:
- one opening lasts longer than `bounce_gap_ns` and longer than `noise_ratio` times the closure
  accumulated so far (a 50 µs spike is noise once open 250 µs; a 0.9 ms closure once open 4.5 ms),
- or it is still not a press `judge_ns` after its first edge (the cap: a storm of spikes).

`verdict` says what a candidate is after its contact held one level since its last edge;
`wait_ns` says how long after an edge nothing can be decided. Everything else in the firmware that
judges a closure is this rule: refbox.debounce calls it; refbox.edgeloop's Python loop calls it to
tell the edges that only add to a closure's times from those that decide; the machine-code forms
(refbox.edgeloop_viper, viper; refbox.edgeloop_thumb, asm_thumb for the RP2040) are the same
statements on 32-bit words and are checked against this module in CI: tests/test_edgeloop.py
(viper, on the MicroPython unix port) and tests/test_thumb_kernel.py (the armv6m machine code
mpy-cross emits, run under the unicorn CPU emulator).

Units: every figure is ns (a 32-bit machine word on the board: the callers range-check them).
`rules`: (press_ns, bounce_gap_ns, noise_ratio, judge_ns), refbox.edgeloop.thresholds of a
Debouncer (1 ms, 200 µs, 5, 20 ms). Thresholds and why: docs/architecture.md "Debounce and noise";
figures: design notes "Timing facts" (micro-switch bounce 0.5-6 ms; no finger presses for 50 µs).
"""

from refbox.compat import const

UNDECIDED = const(0)
PRESS = const(1)
NOISE = const(2)

_PRESS_NS = const(0)
_BOUNCE_GAP_NS = const(1)
_NOISE_RATIO = const(2)
_JUDGE_NS = const(3)


def closed_needed(closed_ns, open_ns, rules):
    """ns the contact must still stay closed, from its last closing edge, to make the candidate a
    press: `press_ns` in all, and no less than it was open (`closed_ns`, `open_ns`: its closed
    and open time before that edge)."""
    return max(rules[_PRESS_NS], open_ns) - closed_ns


def opening_allowed(closed_ns, rules):
    """The longest opening that is still bounce after `closed_ns` of closure: `bounce_gap_ns`,
    or `noise_ratio` times the closure so far if longer."""
    return max(rules[_BOUNCE_GAP_NS], rules[_NOISE_RATIO] * closed_ns)


def verdict(closed, held, closed_ns, open_ns, to_cap, rules):
    """What a candidate is once its contact has held one level since its last edge: PRESS, NOISE
    or UNDECIDED.

    `closed`: that level (1 closed, 0 open); `held`: ns it has held it (>= 0); `closed_ns`,
    `open_ns`: the candidate's closed and open time before that edge; `to_cap`: ns from that edge
    to the cap (`judge_ns` after the candidate's first edge)."""
    if closed:
        need = closed_needed(closed_ns, open_ns, rules)
        if need <= held and need <= to_cap:
            return PRESS
    elif held > opening_allowed(closed_ns, rules):
        return NOISE  # open too long for bounce: what closed before was noise
    if held >= to_cap:
        return NOISE  # still not a press: a storm
    return UNDECIDED


def wait_ns(closed, closed_ns, open_ns, rules):
    """ns after an edge to level `closed` before which `verdict` can only say UNDECIDED (the cap
    aside): the closed time a press still needs, or the longest bounce opening and 1 ns.
    `closed_ns`, `open_ns`: the candidate's times up to that edge."""
    if closed:
        return closed_needed(closed_ns, open_ns, rules)
    return opening_allowed(closed_ns, rules) + 1
