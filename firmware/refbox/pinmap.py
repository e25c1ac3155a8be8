"""Pin map of the reference board.

GENERATED from hardware/pinmap.json by `make pinmap`: do not edit here
(tests/test_pinmap.py fails if this file is stale)."""

PLAYER_BASE_GPIO = 2  # player buttons on consecutive GPIOs, active low, pull-ups
PLAYER_COUNT = 8
PLAYER_COLOURS = (
    (255, 0, 0),
    (0, 96, 255),
    (0, 200, 0),
    (255, 160, 0),
    (200, 0, 255),
    (0, 220, 200),
    (255, 255, 255),
    (255, 60, 120),
)
CONTROLS = (  # (name, gpio), active low, pull-ups
    ("arm", 10),
    ("yes", 11),
    ("no", 12),
    ("undo", 13),
)
NEOPIXEL_GPIO = 16
STATION_PIXELS = 8  # a pixel per station first, then the marker bar
MARKER_PIXELS = 10
PIEZO_GPIO = 17
I2C_SDA_GPIO = 20
I2C_SCL_GPIO = 21
