"""Interpreter differences in one place: `const` for CPython, where `micropython` does not
exist."""

try:
    from micropython import const
except ImportError:  # CPython without the simulator fakes on sys.path

    def const(value):  # type: ignore[misc]
        return value


__all__ = ["const"]
