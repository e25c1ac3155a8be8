"""tablebuzz host tools: CLI, simulator, flasher, serial link. (Also imported by the MicroPython
unix port for the simulator under `tablebuzz.sim`, so this file stays inside the MicroPython
subset.)"""
