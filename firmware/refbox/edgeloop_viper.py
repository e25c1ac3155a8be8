"""refbox.edgeloop's `run` as `@micropython.viper` machine code: the same statements on 32-bit
machine words, for a MicroPython board (refbox.capture imports it when it can: CPython and
CircuitPython, which has no native emitter, raise ImportError here or SyntaxError compiling it).

Arguments, return and guarantees: refbox.edgeloop. Its closure statements are refbox.debounce's
rule (`verdict`, `wait_ns`) written out on machine words, as refbox.edgeloop's Python form calls
it: that module is the source; this form is checked against it. On the chip a word with one
edge costs a few µs here instead of ~0.17 ms as Python (bench/README.md).
tests/test_edgeloop.py runs both forms on the MicroPython unix port (a 64-bit viper: every figure
is masked or range-checked as on the 32-bit board) and checks they leave the same state, calls
and reports.
"""

import sys

if sys.implementation.name != "micropython":
    raise ImportError("viper machine code needs MicroPython")

import micropython  # noqa: E402
from micropython import const  # noqa: E402

# refbox.debounce's (tests/test_edgeloop.py checks them)
_UP = const(0)
_CANDIDATE = const(1)
_DOWN = const(2)
_V_STATE = const(0)
_V_CLOSED = const(1)
_V_SINCE_US = const(2)
_V_SINCE_NS = const(3)
_V_CLOSED_NS = const(4)
_V_OPEN_NS = const(5)
_V_FIRST_US = const(6)
_V_FIRST_NS = const(7)
_V_DUE_US = const(8)
_V_QUIET = const(9)
_V_FIELDS = const(10)
_V_BYTES = const(40)  # a station's fields in the bank: _V_FIELDS 32-bit words
_HALF = const(1 << 29)
_MAX = const((1 << 30) - 1)
_FAR_US = const(1000000)


@micropython.viper
def run(words, index: int, mask: int, n: int, chain, limits, lowest, bank, debouncers, out):
    w = ptr32(words)  # noqa: F821 (viper built-ins)
    base = uint(ptr32(bank))  # noqa: F821 (the address of station 0's fields)
    c = ptr32(chain)  # noqa: F821
    lim = ptr32(limits)  # noqa: F821
    low = ptr8(lowest)  # noqa: F821
    shift = lim[0]
    counter_mask = lim[1]
    level_mask = lim[2]
    ns_num = lim[3]
    ns_den = lim[4]
    press_ns = lim[5]
    gap_ns = lim[6]
    ratio = lim[7]
    judge_ns = lim[8]
    press_us = lim[9]
    per_count = lim[10]
    last = c[0]
    frac = c[1]
    us = c[2]
    ns = c[3]
    levels = c[4]
    calls = c[5]
    i = 0
    while i < n:
        word = w[(index + i) & mask]
        i += 1
        count = word >> shift
        counts = (last - count) & counter_mask
        last = count
        if per_count:  # a count is a whole number of ns (56 at 125 MHz): no division
            ns += counts * per_count
        else:
            x = (counts >> 12) * ns_num
            q = x // ns_den
            x = (x - q * ns_den) * 4096 + (counts & 4095) * ns_num + frac
            y = x // ns_den
            frac = x - y * ns_den
            ns += q * 4096 + y
        if ns >= 1000:  # (a division only for a long gap: ~0.6 µs each on the chip)
            if ns < 16000:
                while ns >= 1000:
                    ns -= 1000
                    us += 1
                us = us & _MAX
            else:
                y = ns // 1000
                us = (us + y) & _MAX
                ns = ns - y * 1000
        now = word & level_mask
        changed = now ^ levels
        levels = now
        while changed:
            station = low[changed]
            changed &= changed - 1
            closed = 1 - ((levels >> station) & 1)
            v = ptr32(base + station * _V_BYTES)  # noqa: F821 (its fields: ~2 µs less an edge)
            if v[_V_QUIET]:
                calls += 1
                debouncers[station].edge_at(closed, us, ns, out)
                continue
            if closed == v[_V_CLOSED]:
                continue
            state = v[_V_STATE]
            if state == _UP:
                # released and settled: a closure begins (a candidate, judged from this edge on:
                # a press exactly press_us on if nothing opens it, so nothing is due before),
                # or a contact left closed after a drop opens
                v[_V_DUE_US] = -1
                if closed:
                    v[_V_STATE] = _CANDIDATE
                    v[_V_FIRST_US] = us
                    v[_V_FIRST_NS] = ns
                    v[_V_CLOSED_NS] = 0
                    v[_V_OPEN_NS] = 0
                    v[_V_DUE_US] = (us + press_us) & _MAX
                v[_V_CLOSED] = closed
                v[_V_SINCE_US] = us
                v[_V_SINCE_NS] = ns
                continue
            slow = 1
            if state == _CANDIDATE:
                since_us = v[_V_SINCE_US]
                since_ns = v[_V_SINCE_NS]
                open_ns = v[_V_OPEN_NS]
                closed_ns = v[_V_CLOSED_NS]
                d = ((us - since_us + _HALF) & _MAX) - _HALF
                df = ((since_us - v[_V_FIRST_US] + _HALF) & _MAX) - _HALF
                if (d >= 0 and d < _FAR_US and df >= 0 and df < _FAR_US and open_ns >= 0
                        and open_ns <= _MAX and closed_ns >= 0 and closed_ns <= _MAX):
                    held = d * 1000 + ns - since_ns
                    to_cap = judge_ns - df * 1000 - (since_ns - v[_V_FIRST_NS])
                    slow = 0
                    if held < 0 or held >= to_cap:
                        slow = 1
                    elif closed == 0:
                        need = press_ns
                        if need < open_ns:
                            need = open_ns
                        need -= closed_ns
                        if need <= held and need <= to_cap:
                            slow = 1
                    else:
                        allowed = ratio * closed_ns
                        if allowed < gap_ns:
                            allowed = gap_ns
                        if held > allowed:
                            slow = 1
                    if slow == 0:
                        if closed:
                            open_ns += held
                            v[_V_OPEN_NS] = open_ns
                            wait = press_ns
                            if wait < open_ns:
                                wait = open_ns
                            wait -= closed_ns
                        else:
                            closed_ns += held
                            v[_V_CLOSED_NS] = closed_ns
                            wait = ratio * closed_ns
                            if wait < gap_ns:
                                wait = gap_ns
                            wait += 1
                        to_cap -= held
                        if wait > to_cap:
                            wait = to_cap
                        if wait < 0:
                            wait = 0
                        v[_V_DUE_US] = (us + (ns + wait) // 1000) & _MAX
                        v[_V_CLOSED] = closed
                        v[_V_SINCE_US] = us
                        v[_V_SINCE_NS] = ns
            if slow:
                calls += 1
                debouncers[station].edge_at(closed, us, ns, out)
    c[0] = last
    c[1] = frac
    c[2] = us
    c[3] = ns
    c[4] = levels
    c[5] = calls


@micropython.viper
def judge(bank, station: int, t_us: int, t_ns: int, rules) -> int:
    # refbox.debounce.judge (its docstring), on machine words
    v = ptr32(uint(ptr32(bank)) + station * _V_BYTES)  # noqa: F821
    r = ptr32(rules)  # noqa: F821
    if v[_V_QUIET] != 0 or v[_V_STATE] != _CANDIDATE:
        return 3
    since_us = v[_V_SINCE_US]
    since_ns = v[_V_SINCE_NS]
    open_ns = v[_V_OPEN_NS]
    closed_ns = v[_V_CLOSED_NS]
    d = ((t_us - since_us + _HALF) & _MAX) - _HALF
    df = ((since_us - v[_V_FIRST_US] + _HALF) & _MAX) - _HALF
    if (d < 0 or d >= _FAR_US or df < 0 or df >= _FAR_US or open_ns < 0 or open_ns > _MAX
            or closed_ns < 0 or closed_ns > _MAX):
        return 3
    held = d * 1000 + t_ns - since_ns
    if held < 0:
        return 3
    to_cap = r[3] - df * 1000 - (since_ns - v[_V_FIRST_NS])
    if v[_V_CLOSED]:
        need = r[0]
        if need < open_ns:
            need = open_ns
        need -= closed_ns
        if need <= held and need <= to_cap:
            v[_V_STATE] = _DOWN
            v[_V_DUE_US] = -1
            return 1
    else:
        allowed = r[2] * closed_ns
        if allowed < r[1]:
            allowed = r[1]
        if held > allowed:
            v[_V_STATE] = _UP
            v[_V_DUE_US] = -1
            return 2
    if held >= to_cap:
        v[_V_STATE] = _UP
        v[_V_DUE_US] = -1
        return 2
    return 0
