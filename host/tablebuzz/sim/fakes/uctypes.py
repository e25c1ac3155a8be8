"""Fake `uctypes` for CPython (the unix port has the real one): `addressof` only.

The firmware aligns its DMA ring by the buffer's real address, so this returns the real address of
the buffer's first byte (through ctypes), as MicroPython's `uctypes.addressof` does.
"""

import ctypes


def addressof(obj):
    """Address of the first byte of a writable buffer object (bytearray, array, memoryview)."""
    return ctypes.addressof(ctypes.c_char.from_buffer(obj))
