"""hardware/schematic.svg must agree with hardware/pinmap.json and be the drawing of the map now.

The SVG is read back independently of the generator: every Pico pin drawn (GPIO name inside the
box, header pin number outside) must be a pin the map uses, on its real header pin; every part's
label ("P1 red – GP2", "piezo – GP17"...) must name the GPIO the map gives that part and sit on the
row of that Pico pin; the pixel chain must have the map's station pixels and marker bar. Then the
committed file must be byte-for-byte what `make schematic` draws now.
"""

import copy
import re
import xml.etree.ElementTree as ET

import pytest
from tablebuzz.hardware import pinmap_gen, schematic
from test_pinmap import PICO_PIN, roles

ROW_PT = schematic.PITCH * 36 / 2  # half a pin pitch, in SVG points (schemdraw: 1 unit = 36 pt)
PICO_LABEL_SIZE = "14"  # schemdraw's Ic pin-name font size, used only by the Pico's box


@pytest.fixture(scope="module")
def pinmap():
    return pinmap_gen.load()


def texts(svg):
    """[(text, x, y, font size, anchor)] of every <text> in the SVG (tspans joined by newlines)."""
    root = ET.fromstring(svg)
    found = []
    for node in root.iter("{http://www.w3.org/2000/svg}text"):
        parts = [t.text or "" for t in node] or [node.text or ""]
        found.append(
            (
                "\n".join(parts).strip(),
                float(node.get("x")),
                float(node.get("y")),
                node.get("font-size"),
                node.get("text-anchor"),
            )
        )
    return found


def expected_labels(data):
    """{role: label} as the drawing must name each part wired to a GPIO."""
    names = data["player_colour_names"]
    labels = {}
    for i in range(data["player_count"]):
        labels["player %d" % (i + 1)] = "P%d %s" % (i + 1, names[i])
    for control in data["controls"]:
        labels["control " + control["name"]] = control["label"].upper()
    labels.update({"neopixel": "pixel data", "piezo": "piezo", "i2c sda": "SDA", "i2c scl": "SCL"})
    return labels


def disagreements(svg, data):
    """Every way the drawing `svg` contradicts pin map `data`, as sentences ([] = it agrees)."""
    found = texts(svg)
    problems = []
    pico = {}
    for text, x, y, size, anchor in found:
        m = re.fullmatch(r"GP(\d+)", text)
        if m and size == PICO_LABEL_SIZE:
            gpio = int(m.group(1))
            if gpio in pico:
                problems.append("GP%d is drawn twice on the Pico" % gpio)
            pico[gpio] = (x, y, anchor)
    wanted = roles(data)
    if set(pico) != set(wanted.values()):
        problems.append(
            "the Pico shows GP%s, the map uses GP%s" % (sorted(pico), sorted(wanted.values()))
        )
    for gpio, (x, y, _) in pico.items():
        numbers = [
            t for t, tx, ty, _, _ in found
            if t.isdigit() and abs(ty - y) < 3 and abs(tx - x) < 20
        ]  # fmt: skip
        if numbers != [str(PICO_PIN.get(gpio))]:
            problems.append(
                "GP%d is labelled header pin %s, it is %s" % (gpio, numbers, PICO_PIN.get(gpio))
            )
    for role, name in expected_labels(data).items():
        gpio = wanted[role]
        prefix = name + schematic.SEP + "GP"
        hits = [(t, x, y) for t, x, y, _, _ in found if t.startswith(prefix)]
        if len(hits) != 1:
            problems.append("%s: %d labels start with %r" % (role, len(hits), prefix))
            continue
        text, x, y = hits[0]
        if text != prefix + str(gpio):
            problems.append("%s: drawn as %r, the map says GP%d" % (role, text, gpio))
        if gpio not in pico:
            continue
        px, py, anchor = pico[gpio]
        if abs(y - py) > ROW_PT:
            problems.append("%s: its label is not on the row of the Pico's GP%d" % (role, gpio))
        left_side = anchor == "start"  # pin names inside the box's left edge start there
        if (x < px) != left_side:
            problems.append("%s: its label is on the wrong side of the Pico" % role)
    stations, markers = data["station_pixels"], data["marker_pixels"]
    pixels = sorted(int(m.group(1)) for t, *_ in found if (m := re.match(r"pixel (\d+)\n", t)))
    if pixels != list(range(stations)):
        problems.append("station pixels drawn: %s, the map has %d" % (pixels, stations))
    bar = "pixels %d-%d\nmarker bar (%d)" % (stations, stations + markers - 1, markers)
    if not any(t == bar for t, *_ in found):
        problems.append("no marker bar of %d pixels after pixel %d" % (markers, stations - 1))
    return problems


def test_schematic_agrees_with_pinmap(pinmap):
    assert disagreements(schematic.SCHEMATIC_SVG.read_bytes(), pinmap) == []


def test_schematic_is_current(pinmap):
    assert schematic.SCHEMATIC_SVG.read_bytes() == schematic.draw(pinmap), (
        "hardware/schematic.svg is stale: run `make schematic`"
    )
    assert schematic.main(["--check"]) == 0


def changed(pinmap, **changes):
    data = copy.deepcopy(pinmap)
    data.update(changes)
    pinmap_gen.validate(data)
    return data


@pytest.mark.parametrize(
    "changes, complaint",
    [
        ({"piezo_gpio": 18}, "piezo: drawn as 'piezo – GP18', the map says GP17"),
        ({"marker_pixels": 8}, "no marker bar of 10 pixels"),
        ({"player_count": 6, "station_pixels": 6}, "player 7: 0 labels"),  # the 6-station build
    ],
)
def test_a_drawing_of_another_map_is_caught(pinmap, changes, complaint):
    """The check can fail: the drawing of a different map disagrees with the real one."""
    other = schematic.draw(changed(pinmap, **changes))
    assert any(p.startswith(complaint) for p in disagreements(other, pinmap))
    assert disagreements(other, changed(pinmap, **changes)) == []


def test_swapped_controls_are_caught(pinmap):
    controls = copy.deepcopy(pinmap["controls"])
    controls[0]["gpio"], controls[1]["gpio"] = controls[1]["gpio"], controls[0]["gpio"]
    other = schematic.draw(changed(pinmap, controls=controls))
    assert "control arm: drawn as 'ARM / NEXT – GP11', the map says GP10" in disagreements(
        other, pinmap
    )


def test_check_reports_a_stale_drawing(pinmap, tmp_path, monkeypatch, capsys):
    stale = tmp_path / "schematic.svg"
    stale.write_bytes(schematic.draw(changed(pinmap, piezo_gpio=18)))
    monkeypatch.setattr(schematic, "SCHEMATIC_SVG", stale)
    assert schematic.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().err
