"""The exports through YellowFruit's and MODAQ's own import code (issue 37), when it is set up:
tests/qbj/importers/setup.sh builds it outside the repository (their sources are never
committed) and TABLEBUZZ_QBJ_IMPORTERS names the folder. Without it every test here skips and
says why; tests/test_qbj_import.py checks the same requirements without the importers.

Run: tests/qbj/importers/setup.sh DIR YF_GIT_DIR MODAQ_GIT_DIR, then
TABLEBUZZ_QBJ_IMPORTERS=DIR .venv/bin/pytest tests/test_qbj_importers.py (docs/quizbowl.md).
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from scripts_quizbowl import export
from tablebuzz.records import qbj

HARNESS = Path(os.environ.get("TABLEBUZZ_QBJ_IMPORTERS", "/nonexistent")) / "harness"
pytestmark = pytest.mark.skipif(
    not (HARNESS / "yellowfruit.js").exists() or shutil.which("node") is None,
    reason="YellowFruit's and MODAQ's importers are not set up here (needs node and "
           "tests/qbj/importers/setup.sh; TABLEBUZZ_QBJ_IMPORTERS names its folder)")
# YellowFruit's warnings (it imports the match, the director may override them) that a short
# scripted match earns, and the one it gives any overtime game: its overtime check reads its own
# YfData extension (each team's overtime buzzes), which no other tool writes
SHORT = "Total tossups heard is less than 20, the standard number for a game"
OVERTIME = ("Game went to overtime but the score wasn't tied after regulation, based on each "
            "team's overtime stats")
RULES = {"naqt": ("naqt", "powers"), "house": ("bounce", "powers"), "acf": ("acf", "acf")}


def run(script, path, *args):
    done = subprocess.run(["node", str(HARNESS / script), str(path), *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", ["naqt", "house", "acf"])
@pytest.mark.parametrize("marks", [True, False], ids=["words", "no-words"])
def test_yellowfruit_imports_each_match_with_its_totals(tmp_path, name, marks):
    match, _, expected = export(name, tmp_path / "rec", marks)
    for doc in (qbj.document([match]), match):  # the QBJ file, the Match alone
        path = tmp_path / "m.qbj"
        path.write_text(json.dumps(doc))
        (result,) = run("yellowfruit.js", path, RULES[name][0])["results"]
        assert result["status"] in ("Success", "Warning"), result
        assert set(result["messages"]) <= {SHORT, OVERTIME}, result
        assert result["scores"] == expected["totals"]
        assert (result["tossups_read"], result["overtime_tossups_read"]) == (
            expected["read"], expected["overtime"])


@pytest.mark.parametrize("name", ["naqt", "house", "acf"])
@pytest.mark.parametrize("marks", [True, False], ids=["words", "no-words"])
def test_modaq_imports_each_match(tmp_path, name, marks):
    """MODAQ takes every Match; it scores each buzz again from its word in the packet, so its
    totals are the match's when the reader marked the words (and no part bounced: MODAQ leaves
    bounce-back points out)."""
    match, _, expected = export(name, tmp_path / "rec", marks)
    path = tmp_path / "m.qbj"
    path.write_text(json.dumps(match))
    result = run("modaq.js", path, RULES[name][1])
    assert result["ok"], result
    if marks and name != "house":
        assert result["scores"] == expected["totals"]
