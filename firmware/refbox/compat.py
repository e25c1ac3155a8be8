"""Interpreter differences in one place: `const` for CPython, where `micropython` does not
exist; `TYPE_CHECKING` for the boards, which have no `typing` (imports only the type checker
needs: one failed import at power-up, not one per module); `sha256` for CircuitPython, whose
hashlib has only new()."""

import hashlib

try:
    from micropython import const
except ImportError:  # CPython without the simulator fakes on sys.path

    def const(value):  # type: ignore[misc]
        return value


try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython, CircuitPython: no typing module
    TYPE_CHECKING = False

_sha256 = getattr(hashlib, "sha256", None)


def sha256(data):
    """A SHA-256 hash object (digest() -> 32 bytes) of `data` (bytes): hashlib.sha256 on CPython
    and MicroPython; CircuitPython's hashlib has only new(name, data) (10.2.1
    shared-bindings/hashlib: 'sha1' and 'sha256'), and its rp2040 build no sha256 attribute,
    which the emulated RP2040 showed (AttributeError at the first game's seed commitment)."""
    if _sha256 is not None:
        return _sha256(data)
    return hashlib.new("sha256", data)  # type: ignore[attr-defined]  # CircuitPython's


__all__ = ["TYPE_CHECKING", "const", "sha256"]
