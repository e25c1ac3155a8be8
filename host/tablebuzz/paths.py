"""Where the repository's parts are, for tools run from an editable install or a checkout."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIRMWARE = REPO / "firmware"
HOST = REPO / "host"
HARDWARE = REPO / "hardware"
PINMAP_JSON = HARDWARE / "pinmap.json"
PINMAP_PY = FIRMWARE / "refbox" / "pinmap.py"
SIM = HOST / "tablebuzz" / "sim"
FAKES = SIM / "fakes"
FAKES_CP = SIM / "fakes_cp"  # the CircuitPython modules' fakes (refbox.board_cp)
