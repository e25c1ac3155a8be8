"""Generate firmware/refbox/pinmap.py from hardware/pinmap.json (the single source of truth).

`python -m tablebuzz.hardware.pinmap_gen` (or `make pinmap`) rewrites the module; `--check` exits 1
if the committed module is stale. Raises PinmapError for a map a Pico cannot wire.
"""

import json
import sys

from tablebuzz.paths import PINMAP_JSON, PINMAP_PY

# Physical header pin of every GPIO on the Pico / Pico 2 header (GP23-25: internal, GP29: ADC3/VSYS
# sense). Pin 1 = GP0 next to the USB socket, down the left side to 20, then 21 = GP16 back up.
PICO_PIN = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
    27: 32, 28: 34,
}  # fmt: skip
PICO_GPIOS = tuple(sorted(PICO_PIN))


class PinmapError(ValueError):
    """The pin map is inconsistent (overlapping or missing pins, too many players...)."""


REQUIRED = (
    "player_base_gpio", "player_count", "player_colours", "controls", "neopixel_gpio",
    "station_pixels", "marker_pixels", "piezo_gpio", "i2c_sda_gpio", "i2c_scl_gpio",
)  # fmt: skip


def load(path=PINMAP_JSON):
    """The pin map as a dict, validated. Raises PinmapError (also for unreadable JSON)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise PinmapError("cannot read %s: %s" % (path, e)) from None
    validate(data)
    return data


def used_gpios(data):
    """[(gpio, role)] of every pin the map uses."""
    pins = [
        (data["player_base_gpio"] + i, "player %d" % (i + 1)) for i in range(data["player_count"])
    ]
    pins += [(c["gpio"], "control " + c["name"]) for c in data["controls"]]
    pins += [(data["neopixel_gpio"], "neopixel"), (data["piezo_gpio"], "piezo")]
    pins += [(data["i2c_sda_gpio"], "i2c sda"), (data["i2c_scl_gpio"], "i2c scl")]
    return pins


def validate(data):
    """Raise PinmapError unless `data` is a pin map a Pico can wire."""
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        raise PinmapError("pinmap.json lacks: " + ", ".join(missing))
    names = [c.get("name") for c in data["controls"]]
    if len(set(names)) != len(names) or not all(isinstance(n, str) and n for n in names):
        raise PinmapError("controls need distinct names")
    if not 2 <= data["player_count"] <= 8:
        raise PinmapError("player_count must be 2..8 (one PIO word holds 8 levels)")
    builds = data.get("player_counts", [data["player_count"]])
    if data["player_count"] not in builds:
        raise PinmapError(
            "player_count must be one of the builds in player_counts: %s"
            % ", ".join(str(n) for n in builds)
        )
    if len(data["player_colours"]) < data["player_count"]:
        raise PinmapError("a colour is needed for every player")
    if data["station_pixels"] < data["player_count"]:
        raise PinmapError("one station pixel per player is needed")
    seen = {}
    for gpio, role in used_gpios(data):
        if gpio not in PICO_GPIOS:
            raise PinmapError("%s: GP%d is not on the Pico header" % (role, gpio))
        if gpio in seen:
            raise PinmapError("GP%d is used twice: %s and %s" % (gpio, seen[gpio], role))
        seen[gpio] = role


def render(data):
    """The text of firmware/refbox/pinmap.py."""
    colours = "".join("    (%d, %d, %d),\n" % tuple(c) for c in data["player_colours"])
    controls = "".join('    ("%s", %d),\n' % (c["name"], c["gpio"]) for c in data["controls"])
    return (
        '"""Pin map of the reference board.\n'
        "\n"
        "GENERATED from hardware/pinmap.json by `make pinmap`: do not edit here\n"
        '(tests/test_pinmap.py fails if this file is stale)."""\n'
        "\n"
        "PLAYER_BASE_GPIO = %d  # player buttons on consecutive GPIOs, active low, pull-ups\n"
        "PLAYER_COUNT = %d\n"
        "PLAYER_COLOURS = (\n%s)\n"
        "CONTROLS = (  # (name, gpio), active low, pull-ups\n%s)\n"
        "NEOPIXEL_GPIO = %d\n"
        "STATION_PIXELS = %d  # a pixel per station first, then the marker bar\n"
        "MARKER_PIXELS = %d\n"
        "PIEZO_GPIO = %d\n"
        "I2C_SDA_GPIO = %d\n"
        "I2C_SCL_GPIO = %d\n"
    ) % (
        data["player_base_gpio"],
        data["player_count"],
        colours,
        controls,
        data["neopixel_gpio"],
        data["station_pixels"],
        data["marker_pixels"],
        data["piezo_gpio"],
        data["i2c_sda_gpio"],
        data["i2c_scl_gpio"],
    )


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        text = render(load())
    except (PinmapError, KeyError, ValueError) as e:
        print("pinmap: %s" % e, file=sys.stderr)
        return 2
    if "--check" in argv:
        if not PINMAP_PY.exists() or PINMAP_PY.read_text() != text:
            print("pinmap: firmware/refbox/pinmap.py is stale; run `make pinmap`", file=sys.stderr)
            return 1
        return 0
    PINMAP_PY.write_text(text)
    print("wrote %s" % PINMAP_PY)
    return 0


if __name__ == "__main__":
    sys.exit(main())
