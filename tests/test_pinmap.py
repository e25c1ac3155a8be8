"""hardware/pinmap.json is the single source of truth for the wiring: everything else must agree.

Checked against it: the generated firmware/refbox/pinmap.py, the wiring table in
hardware/wiring.md, the Wokwi diagram hardware/diagram.json, the simulator's contacts and the
firmware's Board (built under the simulator fakes). Also: pinmap_gen.validate rejects maps a
Pico cannot wire.
"""

import copy
import json
import re

import pytest
from tablebuzz.hardware import pinmap_gen
from tablebuzz.paths import HARDWARE, PINMAP_PY
from tablebuzz.sim.simulate import _ensure_paths

_ensure_paths()  # firmware/, host/ and the fakes (machine, rp2, neopixel) importable

WIRING_MD = HARDWARE / "wiring.md"
DIAGRAM_JSON = HARDWARE / "diagram.json"

# Physical header pin of every GPIO broken out on the Pico / Pico 2 (GP23-25 and GP29 are not).
PICO_PIN = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
    27: 32, 28: 34,
}  # fmt: skip


@pytest.fixture(scope="module")
def pinmap():
    return pinmap_gen.load()


def roles(data):
    """{role: gpio} as pinmap_gen names the roles ("player 1", "control arm", "neopixel"...)."""
    return {role: gpio for gpio, role in pinmap_gen.used_gpios(data)}


# ---------------------------------------------------------------------- the source itself
def test_every_gpio_is_on_the_header(pinmap):
    for role, gpio in roles(pinmap).items():
        assert gpio in PICO_PIN, f"{role}: GP{gpio} is not broken out on the Pico header"


def test_player_pins_fit_one_pio_word(pinmap):
    base, count = pinmap["player_base_gpio"], pinmap["player_count"]
    assert 2 <= count <= 8
    assert all(base + i in PICO_PIN for i in range(count))


# ---------------------------------------------------------------------- generated firmware module
def test_firmware_pinmap_is_generated_from_json(pinmap):
    assert PINMAP_PY.read_text() == pinmap_gen.render(pinmap), (
        "firmware/refbox/pinmap.py is stale: run `make pinmap`"
    )


def test_firmware_pinmap_values(pinmap):
    from refbox import pinmap as fw

    assert fw.PLAYER_BASE_GPIO == pinmap["player_base_gpio"]
    assert fw.PLAYER_COUNT == pinmap["player_count"]
    assert [list(c) for c in fw.PLAYER_COLOURS] == pinmap["player_colours"]
    assert [list(c) for c in fw.CONTROLS] == [[c["name"], c["gpio"]] for c in pinmap["controls"]]
    assert fw.NEOPIXEL_GPIO == pinmap["neopixel_gpio"]
    assert fw.STATION_PIXELS == pinmap["station_pixels"]
    assert fw.MARKER_PIXELS == pinmap["marker_pixels"]
    assert fw.PIEZO_GPIO == pinmap["piezo_gpio"]
    assert (fw.I2C_SDA_GPIO, fw.I2C_SCL_GPIO) == (pinmap["i2c_sda_gpio"], pinmap["i2c_scl_gpio"])


def test_pinmap_gen_check_passes():
    assert pinmap_gen.main(["--check"]) == 0


# ---------------------------------------------------------------------- hardware/wiring.md
def wiring_rows():
    """[(role, gpio, physical pin)] of the wiring table's GPIO rows.

    The table starts at the row "| Function | GPIO | Pico pin | ..."; the role is the `code` in
    the Function cell. Rows whose GPIO cell is not GPn (power, ground) are skipped.
    """
    lines = WIRING_MD.read_text().splitlines()
    start = next(
        (i for i, line in enumerate(lines) if re.match(r"\|\s*Function\s*\|\s*GPIO\s*\|", line)),
        None,
    )
    assert start is not None, "hardware/wiring.md has no '| Function | GPIO | Pico pin |' table"
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        gpio = re.fullmatch(r"GP(\d+)", cells[1])
        if gpio is None:
            continue
        role = re.search(r"`([^`]+)`", cells[0])
        assert role, f"wiring.md row without a `role`: {line}"
        pin = re.fullmatch(r"(\d+)", cells[2])
        assert pin, f"wiring.md row without a physical pin number: {line}"
        rows.append((role.group(1), int(gpio.group(1)), int(pin.group(1))))
    return rows


def test_wiring_table_matches_pinmap(pinmap):
    rows = wiring_rows()
    listed = [role for role, _, _ in rows]
    assert len(listed) == len(set(listed)), "a role appears twice in the wiring table"
    table = {role: gpio for role, gpio, _ in rows}
    assert table == roles(pinmap)


def test_wiring_table_physical_pins():
    for role, gpio, pin in wiring_rows():
        real = PICO_PIN.get(gpio)
        assert real == pin, f"{role}: GP{gpio} is Pico pin {real}, the table says {pin}"


# ---------------------------------------------------------------------- hardware/diagram.json
@pytest.fixture(scope="module")
def diagram():
    return json.loads(DIAGRAM_JSON.read_text())


def nets(diagram):
    """{endpoint: set of endpoints wired directly to it}, both directions."""
    wired = {}
    for conn in diagram["connections"]:
        a, b = conn[0], conn[1]
        wired.setdefault(a, set()).add(b)
        wired.setdefault(b, set()).add(a)
    return wired


def pico_gpios(wired, endpoint):
    """GPIO numbers of the Pico pins wired directly to `endpoint`."""
    found = set()
    for other in wired.get(endpoint, ()):
        m = re.fullmatch(r"pico:GP(\d+)", other)
        if m:
            found.add(int(m.group(1)))
    return found


def button_gpios(wired, part):
    """(gpios on contact 1, whether contact 2 goes to a Pico GND) of a wokwi-pushbutton."""
    gpios = pico_gpios(wired, part + ":1.l") | pico_gpios(wired, part + ":1.r")
    ground = any(
        other.startswith("pico:GND")
        for pin in (":2.l", ":2.r")
        for other in wired.get(part + pin, ())
    )
    return gpios, ground


def test_diagram_format(diagram):
    assert diagram["version"] == 1 and diagram["editor"] == "wokwi"
    ids = [p["id"] for p in diagram["parts"]]
    assert len(ids) == len(set(ids)), "duplicate part ids"
    types = {p["id"]: p["type"] for p in diagram["parts"]}
    assert types["pico"] == "wokwi-pi-pico"
    for conn in diagram["connections"]:
        assert len(conn) == 4 and isinstance(conn[3], list), conn
        for end in conn[:2]:
            part, _, pin = end.partition(":")
            assert pin and (part in types or part.startswith("$")), f"unknown endpoint {end}"


def test_diagram_player_buttons(pinmap, diagram):
    wired = nets(diagram)
    types = {p["id"]: p["type"] for p in diagram["parts"]}
    for i in range(pinmap["player_count"]):
        part = f"btn_p{i + 1}"
        assert types.get(part) == "wokwi-pushbutton", part
        gpios, ground = button_gpios(wired, part)
        assert gpios == {pinmap["player_base_gpio"] + i}, part
        assert ground, f"{part}: contact 2 is not wired to GND"
    assert f"btn_p{pinmap['player_count'] + 1}" not in types


def test_diagram_control_buttons(pinmap, diagram):
    wired = nets(diagram)
    types = {p["id"]: p["type"] for p in diagram["parts"]}
    for control in pinmap["controls"]:
        part = "btn_" + control["name"]
        assert types.get(part) == "wokwi-pushbutton", part
        gpios, ground = button_gpios(wired, part)
        assert gpios == {control["gpio"]}, part
        assert ground, f"{part}: contact 2 is not wired to GND"


def test_diagram_pixel_chain(pinmap, diagram):
    """GPIO -> px1 DIN, px1 DOUT -> px2 DIN ... -> last station pixel DOUT -> bar DIN."""
    wired = nets(diagram)
    parts = {p["id"]: p for p in diagram["parts"]}
    stations = pinmap["station_pixels"]
    assert pico_gpios(wired, "px1:DIN") == {pinmap["neopixel_gpio"]}
    for k in range(1, stations + 1):
        assert parts[f"px{k}"]["type"] == "wokwi-neopixel"
        following = f"px{k + 1}:DIN" if k < stations else "bar:DIN"
        assert following in wired.get(f"px{k}:DOUT", ()), f"chain broken after px{k}"
    assert f"px{stations + 1}" not in parts
    assert parts["bar"]["type"] == "wokwi-led-strip"
    assert int(parts["bar"]["attrs"]["pixels"]) == pinmap["marker_pixels"]


def test_diagram_buzzer_and_display(pinmap, diagram):
    wired = nets(diagram)
    assert pico_gpios(wired, "bz1:2") == {pinmap["piezo_gpio"]}
    assert any(other.startswith("pico:GND") for other in wired["bz1:1"])
    assert pico_gpios(wired, "oled1:SDA") == {pinmap["i2c_sda_gpio"]}
    assert pico_gpios(wired, "oled1:SCL") == {pinmap["i2c_scl_gpio"]}


def test_diagram_uses_no_other_gpio(pinmap, diagram):
    used = set()
    for conn in diagram["connections"]:
        for end in conn[:2]:
            m = re.fullmatch(r"pico:GP(\d+)", end)
            if m:
                used.add(int(m.group(1)))
    assert used == set(roles(pinmap).values())


# ---------------------------------------------------------------------- simulator and board
def simulation(**header):
    from tablebuzz.sim import runner

    return runner.Simulation(dict({"seed": "1", "bounce": "none"}, **header), lambda t, line: None)


def test_simulator_contacts(pinmap):
    sim = simulation()
    base = pinmap["player_base_gpio"]
    assert [c.gpio for c in sim.players] == [base + i for i in range(pinmap["player_count"])]
    assert {name: c.gpio for name, c in sim.controls.items()} == {
        c["name"]: c["gpio"] for c in pinmap["controls"]
    }


@pytest.mark.parametrize("pixels", ["pio", "cpu"])
def test_board_pins(pinmap, pixels):
    board = simulation(pixels=pixels).board
    base, count = pinmap["player_base_gpio"], pinmap["player_count"]
    assert [p.id for p in board.player_pins] == [base + i for i in range(count)]
    assert [p.id for p in board.control_pins] == [c["gpio"] for c in pinmap["controls"]]
    assert board.piezo.pin.id == pinmap["piezo_gpio"]
    assert board.capture.sm.in_base.id == base
    if pixels == "pio":
        assert board.pixels.sm.sideset_base.id == pinmap["neopixel_gpio"]
        assert len(board.pixels._grb) == pinmap["station_pixels"] + pinmap["marker_pixels"]
    else:
        assert board.pixels.np.pin.id == pinmap["neopixel_gpio"]
        assert board.pixels.np.n == pinmap["station_pixels"] + pinmap["marker_pixels"]


def test_the_board_captures_presses_with_pio_only():
    """The pin-IRQ capture path the board never built is gone (docs/architecture.md "One capture
    path"): the firmware has no such class, and a simulation asking for it is refused."""
    import refbox.board

    assert not hasattr(refbox.board, "PinIrqCapture")
    with pytest.raises(ValueError, match="PIO only"):
        simulation(capture="irq")
    assert simulation(capture="pio").board.capture.mode == "pio"


def test_simulated_press_reaches_the_right_board_bit(pinmap):
    """Closing player i's contact clears bit i of Board.player_levels (and likewise controls)."""
    sim = simulation()
    world, board = sim.world, sim.board
    for i, contact in enumerate(sim.players):
        contact.press()
        world.run_until(world.now + 10_000_000)
        assert board.player_levels() == board.level_mask & ~(1 << i), f"player {i + 1}"
        contact.release()
        world.run_until(world.now + 10_000_000)
        assert board.player_levels() == board.level_mask
    names = [c["name"] for c in pinmap["controls"]]
    for j, name in enumerate(names):
        sim.controls[name].press()
        world.run_until(world.now + 10_000_000)
        assert board.control_levels() == ((1 << len(names)) - 1) & ~(1 << j), name
        sim.controls[name].release()
        world.run_until(world.now + 10_000_000)


# ---------------------------------------------------------------------- validate
def broken(pinmap, **changes):
    data = copy.deepcopy(pinmap)
    data.update(changes)
    return data


def test_validate_accepts_the_reference_map(pinmap):
    pinmap_gen.validate(copy.deepcopy(pinmap))


def test_validate_accepts_eight_players(pinmap):
    pinmap_gen.validate(broken(pinmap, player_count=8, station_pixels=8))


def test_validate_rejects_duplicate_gpio(pinmap):
    controls = copy.deepcopy(pinmap["controls"])
    controls[0]["gpio"] = pinmap["player_base_gpio"]  # a control on player 1's pin
    with pytest.raises(pinmap_gen.PinmapError, match="used twice"):
        pinmap_gen.validate(broken(pinmap, controls=controls))


def test_validate_rejects_piezo_on_neopixel_pin(pinmap):
    with pytest.raises(pinmap_gen.PinmapError, match="used twice"):
        pinmap_gen.validate(broken(pinmap, piezo_gpio=pinmap["neopixel_gpio"]))


@pytest.mark.parametrize("count", [1, 9])
def test_validate_rejects_player_count(pinmap, count):
    data = broken(pinmap, player_count=count, station_pixels=max(count, 6))
    data["player_colours"] = data["player_colours"] * 2  # only the count is wrong
    with pytest.raises(pinmap_gen.PinmapError, match="player_count"):
        pinmap_gen.validate(data)


@pytest.mark.parametrize("gpio", [29, 30, -1])
def test_validate_rejects_gpio_off_the_header(pinmap, gpio):
    with pytest.raises(pinmap_gen.PinmapError, match="not on the Pico header"):
        pinmap_gen.validate(broken(pinmap, piezo_gpio=gpio))


@pytest.mark.parametrize("gpio", [23, 24, 25])
def test_validate_rejects_internal_gpio(pinmap, gpio):
    # GP23-25 are SMPS mode, VBUS sense and the LED: not on the header
    with pytest.raises(pinmap_gen.PinmapError, match="not on the Pico header"):
        pinmap_gen.validate(broken(pinmap, piezo_gpio=gpio))


def test_validate_rejects_players_running_off_the_header(pinmap):
    with pytest.raises(pinmap_gen.PinmapError, match="not on the Pico header"):
        pinmap_gen.validate(broken(pinmap, player_base_gpio=26))


def test_validate_rejects_missing_colours(pinmap):
    short = pinmap["player_colours"][: pinmap["player_count"] - 1]
    with pytest.raises(pinmap_gen.PinmapError, match="colour"):
        pinmap_gen.validate(broken(pinmap, player_colours=short))


def test_validate_rejects_missing_colours_for_eight_players(pinmap):
    data = broken(pinmap, player_count=8, station_pixels=8)
    data["player_colours"] = data["player_colours"][:6]
    with pytest.raises(pinmap_gen.PinmapError, match="colour"):
        pinmap_gen.validate(data)


def test_validate_rejects_too_few_station_pixels(pinmap):
    with pytest.raises(pinmap_gen.PinmapError, match="station pixel"):
        pinmap_gen.validate(broken(pinmap, station_pixels=pinmap["player_count"] - 1))


def test_the_station_count_is_a_build_choice_of_6_or_8(pinmap):
    """hardware/pinmap.json names its builds (6 or 8 stations); a count outside them is refused,
    and both builds validate with the controls where they are."""
    assert pinmap["player_counts"] == [6, 8] and pinmap["player_count"] in (6, 8)
    with pytest.raises(pinmap_gen.PinmapError, match="player_counts"):
        pinmap_gen.validate(broken(pinmap, player_count=7, station_pixels=8))
    for count in (6, 8):
        data = broken(pinmap, player_count=count, station_pixels=count)
        pinmap_gen.validate(data)
        gpios = [gpio for gpio, role in pinmap_gen.used_gpios(data) if role.startswith("player")]
        assert gpios == list(range(2, 2 + count))
        assert [c["gpio"] for c in data["controls"]] == [10, 11, 12, 13]
