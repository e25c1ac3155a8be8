"""The build docs quote the pin map and the firmware; these tests fail when a quote drifts.

hardware/cabling.md: the chain table (which pixel sits at which station, where the bar starts)
against hardware/pinmap.json, and the noise rule's figures against refbox.debounce.Debouncer.
hardware/bom.md: every priced line is quantity x unit price, the totals add up, the headings'
"about N €" are the totals rounded, and the button counts are the pin map's.
hardware/bring-up.md: the lines a freshly booted board prints are what the firmware prints.
"""

import re
from decimal import Decimal

import pytest
from tablebuzz.hardware import pinmap_gen
from tablebuzz.paths import HARDWARE
from tablebuzz.sim.simulate import _ensure_paths

_ensure_paths()  # firmware/ and the simulator fakes importable

CABLING = HARDWARE / "cabling.md"
BOM = HARDWARE / "bom.md"
BRING_UP = HARDWARE / "bring-up.md"


@pytest.fixture(scope="module")
def pinmap():
    return pinmap_gen.load()


def after_marker(path, marker):
    """The lines of `path` after the line containing `<!-- marker`."""
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("<!-- " + marker):
            return lines[i + 1 :]
    raise AssertionError("%s has no '<!-- %s' marker" % (path.name, marker))


def table_after(path, marker):
    """[[cell, ...]] of the Markdown table right after the marker (header and rule dropped)."""
    lines = after_marker(path, marker)
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    assert rows, "%s: no table after '<!-- %s'" % (path.name, marker)
    return rows


# ------------------------------------------------------------------------- cabling.md
def test_cabling_chain_table_matches_pinmap(pinmap):
    rows = table_after(CABLING, "pixel-table")
    stations, markers = pinmap["station_pixels"], pinmap["marker_pixels"]
    names = pinmap["player_colour_names"]
    assert len(rows) == stations + 1, "one row per station pixel, then the bar"
    for k, row in enumerate(rows[:stations]):
        gpio = pinmap["player_base_gpio"] + k
        assert row[0] == "pixel %d" % k
        assert row[1] == "station %d (P%d, %s button, GP%d)" % (k + 1, k + 1, names[k], gpio), row
    bar = rows[-1]
    assert bar[0] == "pixels %d–%d" % (stations, stations + markers - 1)
    assert bar[1].startswith("the marker bar, pixel %d at its left end" % stations)


def test_cabling_quotes_the_noise_rule_of_the_firmware():
    from refbox.debounce import Debouncer

    block = []
    for line in after_marker(CABLING, "noise-rule"):
        if not line.strip():
            break
        block.append(line)
    quoted = re.findall(r"`(\w+) = (\d+)`", "\n".join(block))
    assert quoted, "cabling.md's noise rule quotes no Debouncer figure"
    for name, value in quoted:
        assert hasattr(Debouncer, name), (
            "hardware/cabling.md quotes Debouncer.%s, which no longer exists: update its "
            "'noise rule' section to the firmware's rule" % name
        )
        assert getattr(Debouncer, name) == int(value), (
            "hardware/cabling.md says %s = %s, the firmware has %s: update its 'noise rule' "
            "section" % (name, value, getattr(Debouncer, name))
        )


# ------------------------------------------------------------------------- bom.md
def euros(cell):
    return Decimal(cell.strip("*").strip())


@pytest.mark.parametrize("build", ["minimal", "comfortable"])
def test_bom_totals_add_up(build, pinmap):
    rows = table_after(BOM, "bom: " + build)
    *parts, total = rows
    assert total[1] == "**Total**", "the last row is the total"
    for qty, part, unit, line in parts:
        assert euros(line) == int(qty) * euros(unit), "%s: %s x %s is not %s" % (
            part, qty, unit, line)  # fmt: skip
    assert sum(euros(row[3]) for row in parts) == euros(total[3])
    heading = [line for line in BOM.read_text().splitlines() if line.startswith("### ")]
    about = "about %d €" % round(euros(total[3]))
    assert any(build.capitalize() in h and about in h for h in heading), (build, about)
    count = {}
    for qty, part, _, _ in parts:
        kind = part.split(":")[0]
        count[kind] = count.get(kind, 0) + int(qty)
    assert count["player button"] == pinmap["player_count"]
    assert count["control button"] == len(pinmap["controls"])


# ------------------------------------------------------------------------- bring-up.md
def boot_lines():
    """The lines a freshly booted simulated board prints before anything is pressed."""
    from tablebuzz.sim import runner

    lines = []
    sim = runner.Simulation({"seed": "1", "bounce": "none"}, lambda t, line: lines.append(line))
    sim.world.run_until(sim.world.now + 500_000_000)  # half a second of nothing
    return lines


def test_bring_up_quotes_the_boot_lines():
    lines = after_marker(BRING_UP, "boot-lines")
    assert lines[0] == "```"
    quoted = lines[1 : lines.index("```", 1)]
    assert quoted == boot_lines(), (
        "hardware/bring-up.md step 4 must quote what a board prints at power-up"
    )
