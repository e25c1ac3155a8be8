"""The hardware documents, generated from hardware/pinmap.json: the firmware's pin map
(`pinmap_gen`) and the reference board's schematic (`schematic`)."""
