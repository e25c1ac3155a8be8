"""`tablebuzz show --sim` gets a flash as `tablebuzz sim` does (issue 19.6): a scripted power cut
resumes the game instead of booting into the menu with the game gone."""

import json

from helpers import timeline
from tablebuzz import cli
from tablebuzz.show_command import sim_link

SCRIPT = timeline(
    {"at_us": 100000, "control": "arm"},
    {"at_us": 300000, "press": 2},
    {"at_us": 400000, "release": 2},
    {"at_us": 600000, "control": "yes"},
    {"at_us": 900000, "power": "off"},
    {"at_us": 1500000, "power": "on"},
    {"at_us": 1800000, "send": {"cmd": "state"}},
)


def _play(tmp_path, *flags):
    path = tmp_path / "cut.jsonl"
    path.write_text(SCRIPT)
    args = cli.build_parser().parse_args(
        ["show", "--sim", "--script", str(path), "--seed", "1", "--game", "quiz"] + list(flags)
    )
    wall = [0.0]
    link, _ = sim_link(args, clock=lambda: wall[0])
    link.start()
    events = []
    for _ in range(25):  # 2.5 simulated s, a tenth at a time
        wall[0] += 0.1
        events += [json.loads(item.text) for item in link.poll() if item.kind == "event"]
    return events, link


def test_a_power_line_under_show_sim_resumes_the_game(tmp_path):
    events, link = _play(tmp_path)
    assert "flash" in link.header
    names = [e["ev"] for e in events]
    assert names.count("hello") == 2  # booted twice: at the start and after the cut
    after = names[names.index("hello", 1) :]
    assert after[1] == "resume" and "menu" not in after
    state = [e for e in events if e["ev"] == "state"][-1]
    assert state["game"] == "quiz" and state["scores"][1] == 1  # P2's point survived the cut


def test_without_power_lines_show_sim_needs_no_flash_unless_asked(tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_text(timeline({"at_us": 100000, "control": "arm"}))
    parse = cli.build_parser().parse_args
    args = parse(["show", "--sim", "--script", str(path), "--seed", "1"])
    assert "flash" not in sim_link(args)[0].header
    args = parse(["show", "--sim", "--script", str(path), "--seed", "1", "--flash"])
    assert "flash" in sim_link(args)[0].header
