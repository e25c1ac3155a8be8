# The tablebuzz firmware image (`make firmware`): MicroPython v1.28.0 for the Raspberry Pi Pico
# with the refbox package frozen in (micropython-lib manifest style; docs/flashing.md "A firmware
# image of our own"). Frozen bytecode runs from flash: the imports cost no heap and no filesystem
# search at power-up. main.py stays on the board's filesystem (`make flash` puts it there).
include("$(PORT_DIR)/boards/manifest.py")  # the port's own (asyncio, neopixel, onewire...)
package("refbox")  # firmware/refbox, beside this file (the manifest runs in its folder)
