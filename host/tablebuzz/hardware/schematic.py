"""Draw the reference board's schematic from hardware/pinmap.json into hardware/schematic.svg.

`python -m tablebuzz.hardware.schematic` (or `make schematic`) rewrites the SVG; `--check` exits 1
if the committed drawing is stale. Drawn with schemdraw (its own SVG backend, text as SVG <text>,
so the file is the same bytes on every machine). Raises pinmap_gen.PinmapError for a map a Pico
cannot wire.

What it shows (the values come from hardware/wiring.md and hardware/bom.md): the Pico with every
used pin (GPIO name inside the box, the physical header pin outside), each player and control
button between its GPIO and the ground bus, the pixel chain (74AHCT125 level shifter, 330 ohm data
resistor, 1000 uF across the strip's supply, one pixel per station, then the marker bar), the
passive piezo with its 100 ohm resistor and the optional SSD1306 display.
Every part's label names its GPIO ("P1 red - GP2"), drawn on the row of that Pico pin:
tests/test_schematic.py reads the SVG back and checks both against the pin map.
"""

import sys

import schemdraw
import schemdraw.elements as elm

from tablebuzz.hardware import pinmap_gen
from tablebuzz.hardware.pinmap_gen import PICO_PIN
from tablebuzz.paths import HARDWARE

SCHEMATIC_SVG = HARDWARE / "schematic.svg"

VBUS_PIN, GND_STRIP_PIN, GND_BUTTONS_PIN, V3V3_PIN = 40, 38, 3, 36

PITCH = 1.2  # drawing units between two Pico pins on one side
SEP = " \u2013 "  # between a part's name and its GPIO in a label ("P1 red – GP2")


def part_label(name, gpio):
    """The label drawn beside a part wired to `gpio`: "<name> – GP<gpio>"."""
    return "%s%sGP%d" % (name, SEP, gpio)


def left_rows(data):
    """[(gpio, label)] of the buttons, top to bottom: the players, then the controls."""
    names = data.get("player_colour_names", [])
    rows = []
    for i in range(data["player_count"]):
        colour = " " + names[i] if i < len(names) else ""
        rows.append((data["player_base_gpio"] + i, "P%d%s" % (i + 1, colour)))
    for control in data["controls"]:
        rows.append((control["gpio"], control.get("label", control["name"]).upper()))
    return rows


SLOTS = 12  # pin positions per side of the drawn Pico (more if the left side needs them)


def slots(data):
    """Pin positions on each side of the drawn Pico: every button and GND on the left."""
    return max(SLOTS, len(left_rows(data)) + 1)


def right_rows(data):
    """[(slot from the top, pin name, header pin)] of the Pico's right side. Gaps leave room
    for the level shifter's and the piezo's ground symbols."""
    return [
        (1, "GP%d" % data["neopixel_gpio"], PICO_PIN[data["neopixel_gpio"]]),
        (4, "VBUS", VBUS_PIN),
        (5, "GND", GND_STRIP_PIN),
        (7, "GP%d" % data["piezo_gpio"], PICO_PIN[data["piezo_gpio"]]),
        (9, "3V3_OUT", V3V3_PIN),
        (10, "GP%d" % data["i2c_sda_gpio"], PICO_PIN[data["i2c_sda_gpio"]]),
        (11, "GP%d" % data["i2c_scl_gpio"], PICO_PIN[data["i2c_scl_gpio"]]),
    ]


def _slot(from_top, count):
    return "%d/%d" % (count + 1 - from_top, count)


def _pico(data, left):
    count = slots(data)
    pins = [
        elm.IcPin(
            name="GP%d" % gpio, pin=str(PICO_PIN[gpio]), side="left", slot=_slot(k + 1, count)
        )
        for k, (gpio, _) in enumerate(left)
    ]
    pins.append(
        elm.IcPin(
            name="GND",
            pin=str(GND_BUTTONS_PIN),
            side="left",
            slot=_slot(count, count),
            anchorname="GND_L",
        )
    )
    for k, name, pin in right_rows(data):
        anchor = "GND_R" if name == "GND" else name
        pins.append(
            elm.IcPin(
                name=name, pin=str(pin), side="right", slot=_slot(k, count), anchorname=anchor
            )
        )
    return elm.Ic(pins=pins, pinspacing=PITCH, edgepadH=PITCH, size=(4, PITCH * (count + 1)))


def _top(ic):
    """y of the top edge of a placed Ic's box."""
    return ic.center[1] + ic.size[1] / 2


def _pixel(index, name, last=False):
    """One WS2812B (or the marker bar) as a box: DIN on top, DOUT below (not on the chain's
    `last` box: nothing follows it), 5 V left, GND right."""
    pins = [
        elm.IcPin(name="DIN", side="top", anchorname="DIN"),
        elm.IcPin(pin="5V", side="left", anchorname="VDD"),
        elm.IcPin(pin="GND", side="right", anchorname="GND"),
    ]
    if not last:
        pins.append(elm.IcPin(name="DOUT", side="bottom", anchorname="DOUT"))
    box = elm.Ic(pins=pins, size=(PIXEL_W, 1.3), plblsize=9, lsize=9, leadlen=PIXEL_LEAD)
    return box.right().label("%s\n%s" % (index, name), fontsize=10, ofst=(0, -0.05))


PIXEL_W, PIXEL_LEAD = 3.0, 0.4


def draw(data):
    """The schematic of pin map `data` (validated) as SVG bytes."""
    schemdraw.svgconfig.text = "text"
    rows = left_rows(data)
    with schemdraw.Drawing(show=False) as d:
        d.config(fontsize=11, unit=2)
        pico = _pico(data, rows)
        d += pico.right()
        d += (
            elm.Label()
            .at((pico.center[0], _top(pico) + 0.6))
            .label("Raspberry Pi Pico / Pico 2", fontsize=14)
        )
        d += (
            elm.Label()
            .at((pico.center[0], _top(pico) + 0.2))
            .label("GPIO inside the box, header pin outside", fontsize=9)
        )
        _buttons(d, pico, rows)
        _pixels(d, pico, data)
        _piezo(d, pico, data)
        _display(d, pico, data)
        _notes(d, pico, data)
    return d.get_imagedata("svg")


def _buttons(d, pico, rows):
    bus_x = pico.GND_L[0] - 10
    for gpio, name in rows:
        start = pico.absanchors["GP%d" % gpio]
        d += elm.Line().at(start).left().length(1.0).label("NO", loc="end", fontsize=8)
        d += elm.Button().left().length(1.6).flip()
        d += (
            elm.Line()
            .left()
            .tox(bus_x)
            .dot()
            .label(part_label(name, gpio), loc="top", fontsize=10, ofst=0.05)
        )
    for gpio, _ in rows[:1]:
        d += (
            elm.Label()
            .at(
                (
                    pico.absanchors["GP%d" % gpio][0] - 2.6 - 0.2,
                    pico.absanchors["GP%d" % gpio][1] + 0.22,
                )
            )
            .label("COM", fontsize=8, halign="right")
        )
    first = pico.absanchors["GP%d" % rows[0][0]]
    d += elm.Line().at((bus_x, first[1])).down().toy(pico.GND_L[1]).dot()
    d += elm.Line().right().tox(pico.GND_L[0])
    d += elm.Line().at((bus_x, pico.GND_L[1])).down().length(0.5)
    d += elm.Ground()
    d += (
        elm.Label()
        .at((bus_x - 0.4, (first[1] + pico.GND_L[1]) / 2))
        .label("ground bus: every button's COM tab", rotate=90, fontsize=10)
    )


def _pixels(d, pico, data):
    gp16 = pico.absanchors["GP%d" % data["neopixel_gpio"]]
    d += (
        elm.Line()
        .at(gp16)
        .right()
        .length(3.2)
        .label(part_label("pixel data", data["neopixel_gpio"]), loc="top", fontsize=9, ofst=0.05)
    )
    shifter = elm.Ic(
        pins=[
            elm.IcPin(name="1A", pin="2", side="left", anchorname="A"),
            elm.IcPin(name="1Y", pin="3", side="right", anchorname="Y"),
            elm.IcPin(name="VCC", pin="14", side="top", anchorname="VCC"),
            elm.IcPin(name="1OE", pin="1", side="bottom", slot="1/2", anchorname="OE"),
            elm.IcPin(name="GND", pin="7", side="bottom", slot="2/2", anchorname="GND"),
        ],
        size=(2.2, 1.6),
        plblsize=9,
        lsize=10,
        leadlen=0.4,
    )
    d += shifter.right().anchor("A")
    d += elm.Vdd().at(shifter.VCC).label("+5 V", fontsize=9)
    d += elm.Line().at(shifter.OE).down().length(0.3)
    d += elm.Line().right().tox(shifter.GND[0]).dot()
    d += elm.Line().at(shifter.GND).down().length(0.3)
    d += elm.Ground()
    d += (
        elm.Label()
        .at((shifter.center[0] + 1.4, shifter.GND[1] - 0.55))
        .label(
            "74AHCT125 level shifter (or the diode\nat pixel 0: wiring.md); 100 nF across\n"
            "VCC-GND; unused 2A-4A, 2OE-4OE to GND",
            fontsize=8,
            halign="left",
        )
    )
    d += elm.Line().at(shifter.Y).right().length(0.6)
    d += elm.Resistor().right().length(2).label("330 \u03a9", fontsize=10)
    rail_x = d.here[0] + 2.0  # the pixels' 5 V rail
    px_x = rail_x + PIXEL_LEAD + PIXEL_W / 2
    gnd_x = rail_x + 2 * PIXEL_LEAD + PIXEL_W
    d += elm.Line().right().tox(px_x)
    d += elm.Line().down().length(0.3)
    here = d.here
    # the chain: one pixel per station, then the marker bar
    stations, markers = data["station_pixels"], data["marker_pixels"]
    names = data.get("player_colour_names", [])
    first = None
    for k in range(stations):
        who = "P%d %s" % (k + 1, names[k]) if k < len(names) else "P%d" % (k + 1)
        if k >= data["player_count"]:
            who = "(unused station)"
        px = _pixel("pixel %d" % k, who)
        d += px.at(here).anchor("DIN")
        d += elm.Line().at(px.DOUT).down().length(0.2)
        here = d.here
        _to_rails(d, px, rail_x, gnd_x)
        first = first or px
    bar = _pixel(
        "pixels %d-%d" % (stations, stations + markers - 1), "marker bar (%d)" % markers, last=True
    )
    d += bar.at(here).anchor("DIN")
    _to_rails(d, bar, rail_x, gnd_x)
    # rails: 5 V from VBUS on the left, ground on the right; 1000 uF across them at the input
    vbus = pico.absanchors["VBUS"]
    d += (
        elm.Line()
        .at(vbus)
        .right()
        .tox(rail_x)
        .dot()
        .label("VBUS 5 V", loc="top", fontsize=9, ofst=0.05)
    )
    top_y, bottom_y = first.VDD[1], bar.VDD[1] - 1.6
    d += elm.Line().at((rail_x, top_y)).down().toy(bottom_y)
    d += elm.Line().at((gnd_x, top_y)).down().toy(bottom_y)
    d += (
        elm.Capacitor(polar=True)
        .at((rail_x, bottom_y))
        .right()
        .tox(gnd_x)
        .label("1000 \u00b5F 10 V", loc="bottom", fontsize=9, ofst=0.1)
    )
    d += elm.Line().at((gnd_x, bottom_y)).down().length(0.3)
    d += elm.Ground()
    d += (
        elm.Label()
        .at((gnd_x + 0.45, (top_y + bottom_y) / 2))
        .label(
            "one WS2812B chain: a pixel per station, then the marker bar;"
            " 1000 \u00b5F at its supply input",
            rotate=90,
            fontsize=9,
        )
    )
    gnd = pico.GND_R
    d += elm.Line().at(gnd).right().length(0.8)
    d += elm.Ground()


def _to_rails(d, px, rail_x, gnd_x):
    d += elm.Dot().at((rail_x, px.VDD[1]))
    d += elm.Dot().at((gnd_x, px.GND[1]))


def _piezo(d, pico, data):
    start = pico.absanchors["GP%d" % data["piezo_gpio"]]
    d += (
        elm.Line()
        .at(start)
        .right()
        .length(2.6)
        .label(part_label("piezo", data["piezo_gpio"]), loc="top", fontsize=9, ofst=0.05)
    )
    d += elm.Resistor().right().length(2).label("100 \u03a9", fontsize=10)
    d += elm.Crystal().right().length(1.6).label("passive piezo", loc="top", fontsize=9)
    d += elm.Line().right().length(0.3)
    d += elm.Ground()


def _display(d, pico, data):
    sda = pico.absanchors["GP%d" % data["i2c_sda_gpio"]]
    oled = elm.Ic(
        pins=[
            elm.IcPin(name="VCC", side="left", slot="3/3", anchorname="VCC"),
            elm.IcPin(name="SDA", side="left", slot="2/3", anchorname="SDA"),
            elm.IcPin(name="SCL", side="left", slot="1/3", anchorname="SCL"),
            elm.IcPin(name="GND", side="right", slot="1/3", anchorname="GND"),
        ],
        pinspacing=PITCH,
        size=(2.6, 3 * PITCH),
        lsize=10,
        leadlen=0.4,
    )
    d += oled.right().at((sda[0] + 4.6, sda[1])).anchor("SDA")
    d += (
        elm.Label()
        .at((oled.center[0], _top(oled) - oled.size[1] - 0.55))
        .label("SSD1306 128\u00d764 OLED\nI2C 0x3C (optional)", fontsize=9)
    )
    for name, gpio in (
        ("VCC", None),
        ("SDA", data["i2c_sda_gpio"]),
        ("SCL", data["i2c_scl_gpio"]),
    ):
        pin = pico.absanchors["3V3_OUT" if gpio is None else "GP%d" % gpio]
        line = elm.Line().at(pin).right().tox(oled.absanchors[name][0])
        if gpio is not None:
            line.label(part_label(name, gpio), loc="top", fontsize=9, ofst=0.05)
        d += line
    d += elm.Line().at(oled.GND).right().length(0.4)
    d += elm.Ground()


def _notes(d, pico, data):
    d += (
        elm.Label()
        .at((pico.center[0] - 14, _top(pico) - PITCH * (slots(data) + 1) - 1.4))
        .label(
            "Buttons close to GND; the firmware enables the internal pull-ups (no resistors).\n"
            "Arcade micro-switch: COM tab to the ground bus, NO tab to the GPIO, NC free.\n"
            "Station cables (lengths, connectors, optional pull-ups): hardware/cabling.md.\n"
            "Generated from hardware/pinmap.json by `make schematic`; see hardware/wiring.md.",
            fontsize=9,
            halign="left",
        )
    )


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        svg = draw(pinmap_gen.load())
    except pinmap_gen.PinmapError as e:
        print("schematic: %s" % e, file=sys.stderr)
        return 2
    if "--check" in argv:
        if not SCHEMATIC_SVG.exists() or SCHEMATIC_SVG.read_bytes() != svg:
            print(
                "schematic: hardware/schematic.svg is stale; run `make schematic`", file=sys.stderr
            )
            return 1
        return 0
    SCHEMATIC_SVG.write_bytes(svg)
    print("wrote %s" % SCHEMATIC_SVG)
    return 0


if __name__ == "__main__":
    sys.exit(main())
