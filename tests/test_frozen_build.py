"""The tablebuzz image (`make firmware`: MicroPython v1.28.0 with refbox frozen in) behaves as
the stock MicroPython deploy (`make flash`): the same event lines on the same timeline, on the
emulated RP2040 (../shared/rp2emu, docs/flashing.md).

CI cannot fetch MicroPython's sources nor run the emulator, so this lane skips there and says
why. Where both are at hand: FROZEN_UF2=the image (/work/chip/frozen/firmware.uf2 on the
team's machine), RP2EMU=the harness folder with `npm install` done and UF2=the stock image."""

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TIMELINE = [
    {"at_us": 2_500_000, "send": {"cmd": "new_game", "game": "quiz", "players": 4}},
    {"at_us": 3_000_000, "send": {"cmd": "arm"}},
    {"at_us": 3_200_000, "press": 3},
    {"at_us": 3_300_000, "release": 3},
    {"at_us": 3_400_000, "send": {"cmd": "judge", "correct": True}},
    {"at_us": 3_700_000, "send": {"cmd": "state"}},
]


def _images():
    emu = Path(os.environ.get("RP2EMU") or REPO.parent / "shared" / "rp2emu")
    stock = Path(os.environ.get("UF2") or emu / "RPI_PICO.uf2")
    frozen = os.environ.get("FROZEN_UF2")
    if not frozen or not Path(frozen).is_file():
        pytest.skip("no frozen image (FROZEN_UF2): `make firmware` fetches MicroPython's sources "
                    "with git, which CI cannot; the image is checked on the emulated RP2040")
    if not (emu / "node_modules").is_dir() or not stock.is_file():
        pytest.skip("no emulated RP2040 (RP2EMU with npm install, UF2 the stock image)")
    return emu, stock, Path(frozen)


def _lines(emu, uf2, frozen):
    from tablebuzz.link import flash

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "fw"
        flash.build(out=out, arch=flash.PICO_ARCH, frozen=frozen)
        tl = Path(tmp) / "t.jsonl"
        tl.write_text("".join(json.dumps(r) + "\n" for r in TIMELINE))
        proc = subprocess.run(
            ["npx", "tsx", "board_run.ts", "--firmware", str(out), "--timeline", str(tl),
             "--ms", "600", "--quiet"],
            cwd=emu, env=dict(os.environ, UF2=str(uf2)), capture_output=True, text=True,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    events = []
    for line in proc.stdout.splitlines():
        value = json.loads(line).get("json")
        if isinstance(value, dict) and "ev" in value:
            value.pop("t_us", None)  # (the stamps of a press differ with the boot's length)
            value.pop("t_ns", None)
            value.pop("commit", None)  # (a game's seed is the ROSC's: new at every game)
            events.append(value)
    return events


def test_the_frozen_image_sends_what_the_stock_deploy_sends():
    emu, stock, frozen = _images()
    assert _lines(emu, frozen, True) == _lines(emu, stock, False)
