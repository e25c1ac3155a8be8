"""The simulator: the real firmware on a virtual clock with honest fakes of the board's devices.

Everything in this package except the CPython-side tools (`simulate`, the loader that runs a
simulation in this process or under a unix port; `timeline`, the scripted sessions; `cpunix`;
`pio_check`; `diddly_deck`, a deck for tests) stays inside the MicroPython subset, so the same
simulation runs under CPython and under the MicroPython unix port (`--interpreter micropython`).
"""
