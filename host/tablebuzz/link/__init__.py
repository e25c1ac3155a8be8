"""The link to a real board: the connection layer every tool talks through (`connection`), the USB
serial framing under it (`serial_link`), and putting firmware on the board or files off it
(`flash` for MicroPython, `flash_cp` for CircuitPython, `pull` for the journal)."""
