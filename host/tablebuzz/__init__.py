"""tablebuzz host tools, one sub-package a job: `link` (a real board: connection, serial link,
flashing, pulling the journal), `sim` (the simulator), `views` (scoreboard and desk, TUI, monitor,
readable text), `records` (game records, journal replay, QBJ), `rooms` (several boxes on an MQTT
broker), `hardware` (pin map and schematic from hardware/pinmap.json); `cli` is the command line,
`show_command` its show, replay and export verbs.
(Also imported by the MicroPython unix port for the simulator under `tablebuzz.sim`, so this file
stays inside the MicroPython subset.)"""
