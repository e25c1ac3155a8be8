"""refbox: the tablebuzz firmware package (runs on the Pico, under CPython and the MicroPython unix
port).

Only `refbox.board` touches `machine`, `rp2` and `neopixel`; every other module is pure and takes
its inputs (times in µs ticks, presses, commands) as arguments.
"""

FIRMWARE_VERSION = "0.1.0"
PROTOCOL_VERSION = 1
