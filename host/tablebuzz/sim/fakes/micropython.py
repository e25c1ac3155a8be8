"""Fake `micropython` for CPython (the unix port has the real one, which wins on its sys.path).

heap_lock() cannot be enforced on CPython; the allocation-free proof runs on the unix port
(tests/test_micropython_lane.py). schedule() is the world's bounded soft-IRQ queue.
"""

from tablebuzz.sim import world as _world


def const(value):
    return value


def alloc_emergency_exception_buf(size):
    return None


def heap_lock():
    return 0


def heap_unlock():
    return 0


def kbd_intr(char):
    return None


def schedule(fn, arg):
    _world.current.schedule(fn, arg)


def mem_info(verbose=False):
    return None
