"""The emulated RP2040's clock, checked from MicroPython (run it through the raw REPL):

    cd $RP2EMU && UF2=RPI_PICO.uf2 npx tsx run_py.ts /path/to/bench/clock_probe.py --ms 500

At 125 MHz, at 200 MHz (the regulator at 1.15 V first, as refbox.sysclock does) and back at
125 MHz it prints: machine.freq(), the µs a 2,000-pass empty loop takes (CPU time: scales as
1/clk_sys when the harness follows the clock), the µs a 20 ms sleep_ms takes (the timer:
the same at every clock), and the PIO cycles counted in a 2 ms sleep (a state machine at
machine.freq() decrementing X each cycle: clk_sys x 2 ms), with the VREG register.
bench/README.md "rp2emu-clock.patch" has the figures with and without the patch.
"""

import time

import machine
import rp2


def loop_us(n):
    t = time.ticks_us()
    for _ in range(n):
        pass
    return time.ticks_diff(time.ticks_us(), t)


@rp2.asm_pio()
def spin():
    wrap_target()
    label("top")
    jmp(x_dec, "top")
    wrap()


def pio_cycles(ms):
    sm = rp2.StateMachine(0, spin, freq=machine.freq())
    sm.exec("set(x, 0)")
    sm.active(1)
    time.sleep_ms(ms)
    sm.active(0)
    sm.exec("in_(x, 32)")
    sm.exec("push()")
    return (-sm.get()) & 0xFFFFFFFF


def report():
    t = time.ticks_us()
    time.sleep_ms(20)
    slept = time.ticks_diff(time.ticks_us(), t)
    print("freq %d vreg 0x%x loop2000 %d us sleep20 %d us pio_cycles_2ms %d" % (
        machine.freq(), machine.mem32[0x40064000] & 0xFFFF, loop_us(2000), slept, pio_cycles(2)))


report()
machine.mem32[0x40064000] = 0xC1  # EN, VSEL 1.15 V (refbox.sysclock.VREG_1_15_V)
time.sleep_ms(1)
machine.freq(200_000_000)
report()
machine.freq(125_000_000)
report()
