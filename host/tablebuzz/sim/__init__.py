"""The simulator: the real firmware on a virtual clock with honest fakes of the board's devices.

Everything in this package except `host.py` and `tui` code stays inside the MicroPython subset, so
the same simulation runs under CPython and under the MicroPython unix port (`--interpreter
micropython`).
"""
