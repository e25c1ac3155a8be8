"""What a newcomer meets first: the CLI's flags, timelines that play as they are, clean pipes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tablebuzz import cli
from tablebuzz.sim import set_up
from tablebuzz.sim.timeline import TimelineError, parse, read_setup

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((REPO / "examples").glob("*.jsonl"))
CONTROLS = ["arm", "yes", "no", "undo"]


def _sim(capsys, *args):
    """`tablebuzz sim ...` in this process: (exit status, stdout lines, stderr)."""
    status = cli.main(["sim"] + list(args))
    out = capsys.readouterr()
    return status, out.out.splitlines(), out.err


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_plays_as_is_with_its_own_set_up(path, capsys):
    setup = read_setup(path.read_text())
    assert set(setup) == {"game", "players", "options", "seed"} - (
        set() if "options" in setup else {"options"}
    )
    status, bare, err = _sim(capsys, "--script", str(path))
    assert status == 0 and err == ""  # the seed comes from the file: nothing to tell
    flags = ["--game", setup["game"], "--players", str(setup["players"]), "--seed", setup["seed"]]
    flags += ["--options", json.dumps(setup.get("options", {}))]
    status, flagged, _ = _sim(capsys, "--script", str(path), *flags)
    assert status == 0 and bare == flagged
    evs = [json.loads(line) for line in bare]
    game = [e for e in evs if e["ev"] == "game"][0]
    assert (game["game"], game["players"]) == (setup["game"], setup["players"])
    assert not [line for line in bare if not line.startswith("{")]  # protocol lines only


def test_flags_win_over_the_set_up_line(capsys, tmp_path):
    script = tmp_path / "t.jsonl"
    script.write_text(
        '{"setup": {"game": "diddly", "players": 3, "seed": "5"}}\n{"at_us": 1000, "send": '
        '{"cmd": "state"}}\n'
    )
    status, lines, _ = _sim(capsys, "--script", str(script), "--players", "2")
    game = [json.loads(x) for x in lines if '"ev":"game"' in x][0]
    assert status == 0 and (game["game"], game["players"]) == ("diddly", 2)


@pytest.mark.parametrize(
    "text, reason",
    [
        ('{"at_us": 1, "press": 1}\n{"setup": {"game": "quiz"}}\n', "line 2: the set-up line"),
        ('{"setup": {"game": "quiz", "colour": 1}}\n', "line 1: unknown set-up key(s): colour"),
        ('{"setup": {"players": "two"}}\n', 'line 1: set-up "players" takes a number'),
        ('{"setup": {"game": "quiz"}, "at_us": 1}\n', "line 1: the set-up line is"),
    ],
)
def test_a_bad_set_up_line_is_an_error_naming_it(text, reason):
    with pytest.raises(TimelineError) as e:
        read_setup(text)
        parse(text, 6, CONTROLS)
    assert str(e.value).startswith(reason)


def test_an_out_of_order_line_is_an_error_naming_it(capsys, tmp_path):
    text = (
        "# comment\n"
        '{"at_us": 500000, "control": "arm"}\n'
        '{"at_us": 690000.840, "press": 3}\n'
        '{"at_us": 690000.840, "press": 1}\n'
        '{"at_us": 600000, "release": 3}\n'
    )
    with pytest.raises(TimelineError) as e:
        parse(text, 6, CONTROLS)
    assert e.value.line_no == 5
    assert "600000 comes before line 4's 690000.840" in str(e.value)
    script = tmp_path / "late.jsonl"
    script.write_text(text)
    status, _, err = _sim(capsys, "--script", str(script))
    assert status == 2 and "late.jsonl: line 5: at_us 600000 comes before" in err


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["--version"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("tablebuzz 0.1.0 (firmware ") and "protocol 1" in out


@pytest.mark.parametrize(
    "spelling, name",
    [
        ("Red or Black", "redblack"),
        ("red-black", "redblack"),
        ("REDBLACK", "redblack"),
        ("Déglingo", "deglingo"),
        ("DEGLINGO", "deglingo"),
        ("déglingo", "deglingo"),
        ("Difference", "difference"),
        ("Quiz", "quiz"),
        ("Evidence", "evidence"),
        ("diddly", "diddly"),
        ("poker", None),
    ],
)
def test_game_names_as_the_readme_spells_them(spelling, name):
    assert set_up.game_name(spelling) == name


def test_game_flag_takes_the_readme_spelling(capsys):
    status, lines, _ = _sim(
        capsys, "--script", str(REPO / "examples/redblack_2p.jsonl"), "--game", "Red or Black"
    )
    assert status == 0 and json.loads(lines[1])["game"] == "redblack"
    status, _, err = _sim(
        capsys, "--script", str(REPO / "examples/quiz_demo.jsonl"), "--game", "Poker"
    )
    assert status == 2 and "unknown game 'Poker'" in err


def test_a_closed_pipe_ends_quietly():
    """`tablebuzz sim ... | head -1`: no BrokenPipe traceback, a clean exit."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablebuzz.cli", "sim", "--script", "examples/evidence_4p.jsonl"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first = proc.stdout.readline()
    proc.stdout.close()  # as head does after its line
    err = proc.stderr.read().decode()
    assert proc.wait() == 0, err
    assert first.startswith(b'{"ev":"hello"') and "Traceback" not in err and err == ""
