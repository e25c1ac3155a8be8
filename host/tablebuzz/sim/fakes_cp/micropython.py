"""Fake `micropython` for CPython: CircuitPython has the module with `const` (the unix ports have
the real one, which wins on their sys.path)."""


def const(value):
    return value
