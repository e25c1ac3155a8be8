"""The RP2040's system clock: 200 MHz, its rated maximum, with the core regulator at 1.15 V.

Sources: RP2040 datasheet 2.15.3 (clk_sys is rated to 133 MHz at the default 1.10 V and to
200 MHz with the core regulator's VSEL at 1.15 V), 2.10.6 (the VREG register at 0x40064000: EN
bit 0, HIZ bit 1, VSEL bits 7:4, 0b1011 = 1.10 V at reset, 0b1100 = 1.15 V); the pico-sdk 2.1.1
release notes ("RP2040 has now been certified to run at a system clock of 200 MHz when using a
regulator voltage of at least 1.15 volts").

MicroPython v1.28.0's `machine.freq(hz)` (ports/rp2/modmachine.c) sets the PLL
(`set_sys_clock_khz`) and the flash's SSI divisor (`rp2_flash_set_timing_for_freq`: flash SCK at
most 133 MHz, so a divisor of 2 at both 125 and 200 MHz), but never the regulator: the pico-sdk
raises it only in its own clock set-up of a build made for 200 MHz (SYS_CLK_VREG_VOLTAGE_MIN), and
both our builds (stock, and `make firmware`'s) start at 125 MHz. So `set_up` raises the regulator
first, waits the 1 ms the pico-sdk waits for it to settle, then sets the clock. It runs first thing
in main.py: every clock derived later (a PWM's dividers, the I2C baud rate, the PIO dividers of
the edge timestamper and the NeoPixels) is computed from the clock already set. ticks_us, the
watchdog and USB do not depend on clk_sys (clk_ref, the 48 MHz USB PLL).
"""

# The system clock main.py sets, MHz: 200 (the RP2040's rated maximum at 1.15 V), or 125
# (MicroPython's own, the regulator left at 1.10 V). docs/architecture.md "The clock".
SYS_MHZ = 200
MAX_AT_1_10_V_MHZ = 133  # datasheet 2.15.3: above this the core needs VSEL >= 1.15 V
VREG = 0x40064000  # VREG_AND_CHIP_RESET.VREG
VREG_1_15_V = 0xC1  # EN, not HIZ, VSEL 0b1100: 1.15 V (the reset value is 0xB1, 1.10 V)
SETTLE_MS = 1  # the pico-sdk's SYS_CLK_VREG_VOLTAGE_AUTO_ADJUST_DELAY_US (1000 µs)


def set_up(machine, time, mhz=None):
    """Run the system clock at `mhz` MHz (default SYS_MHZ; the regulator first when above
    133 MHz); returns the clock in Hz. Does nothing when it already runs at that clock (a soft
    reset keeps the clock and the regulator). Raises ValueError when MicroPython cannot make
    that clock (its PLL has no setting for it) or `mhz` is past the rated 200."""
    if mhz is None:
        mhz = SYS_MHZ
    hz = mhz * 1000000
    if machine.freq() == hz:
        return hz
    if mhz > 200:
        raise ValueError("the RP2040 is rated to 200 MHz")
    if mhz > MAX_AT_1_10_V_MHZ:
        # written whole, not read-modify-write: HIZ set would cut the core's supply
        machine.mem32[VREG] = VREG_1_15_V
        if hasattr(time, "sleep_ms"):
            time.sleep_ms(SETTLE_MS)
        else:  # CPython's time (the simulator, whose fake chip needs no settling)
            time.sleep(SETTLE_MS / 1000)
    machine.freq(hz)
    return hz
