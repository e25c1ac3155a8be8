"""A console line hands over no press too early (issue 19, "Deliver" 1): presses queued beyond the
press horizon stay queued while a line, valid or refused, is answered, so the presses, their
order, the races and the lockout ends come out as in the stream without it."""

import pytest
from helpers import run_raw, timeline

SLIPPED = ({"cmd": "state"}, {"cmd": "control", "name": "bogus"}, {"cmd": "nope"})


def _without_answers(lines):
    """The stream less what a slipped line itself answers: a state (its names, then the prompts
    it always repeats) or the error refusing it."""
    out = []
    answering = False
    for _, line in lines:
        if line.startswith(('{"ev":"state"', '{"ev":"name"', '{"ev":"error"')):
            answering = not line.startswith('{"ev":"error"')
            continue
        if answering and line.startswith('{"ev":"buttons"'):
            answering = False
            continue
        answering = False
        out.append(line)
    return out


def _slip(base, times, **header):
    ref = _without_answers(run_raw(timeline(*base), **header))
    for t in times:
        for send in SLIPPED:
            got = _without_answers(
                run_raw(timeline(*(base + [{"at_us": t, "send": send}])), **header)
            )
            assert got == ref, (t, send)


def test_a_line_between_two_acceptances_keeps_the_press_order():
    """P1 at 200 000 µs and P2 3 µs later on worn contacts: P2's closure is accepted first, and a
    line arriving then used to flush it out ahead of P1's press line."""
    base = [
        {"at_us": 100000, "control": "arm"},
        {"at_us": 200000, "press": 1},
        {"at_us": 200003, "press": 2},
        {"at_us": 300000, "release": 1},
        {"at_us": 300000, "release": 2},
    ]
    _slip(base, range(200500, 203500, 250), seed="2", bounce="worn")


@pytest.mark.parametrize("at_us", [300500.0, 301000.0, 301500.0, 302500.0])
def test_a_line_while_noise_is_judged_keeps_a_lockout_end(at_us):
    """P2's false-start lockout ends at 300 000.5 µs; it presses at 300 100 µs while a 400 µs
    noise spike on P1 (from 299 900 µs) is still being judged. A `state` line then used to hand
    P2's press over before the lockout end ran: locked out again, no race."""
    base = [
        {"at_us": 50000.5, "press": 2},
        {"at_us": 60000, "release": 2},
        {"at_us": 100000, "control": "arm"},
        {"at_us": 299900, "glitch": 1, "width_ns": 400000},
        {"at_us": 300100, "press": 2},
        {"at_us": 400000, "release": 2},
    ]
    _slip(base, [at_us], bounce="none")
    races = [line for _, line in run_raw(timeline(*base), bounce="none") if '"race"' in line]
    assert races and '"winner":2' in races[0]
