"""Command ids (docs/protocol.md "Command ids", issue 21): a command may carry an `id`; it ends
with exactly one line naming it, `done` once it has run or the `error` that refused it."""

import json

import pytest
from helpers import run_raw, timeline

SENT = [
    {"cmd": "state", "id": 1},
    {"cmd": "arm", "id": "desk-a:2"},
    {"cmd": "arm", "id": 3},  # refused: already armed
    {"cmd": "judge", "correct": True, "id": 4},  # refused: nobody is answering
    {"cmd": "control", "name": "bogus", "id": 5},  # refused: no such control
    {"cmd": "nope", "id": 6},  # refused: unknown command, the id still echoed
    {"cmd": "state", "id": -1},  # a bad id: refused without one
    {"cmd": "state", "id": "x" * 17},
    {"cmd": "control", "name": "no", "id": 7},  # cancels the armed question
]


@pytest.mark.parametrize(
    "interpreter", ["cpython", pytest.param("micropython", marks=pytest.mark.micropython)]
)
def test_every_command_with_an_id_gets_one_line_naming_it(interpreter):
    recs = [{"at_us": 100000 + 50000 * i, "send": cmd} for i, cmd in enumerate(SENT)]
    lines = [json.loads(line) for _, line in run_raw(timeline(*recs), interpreter=interpreter)]
    named = [(ev["ev"], ev.get("id"), ev.get("code")) for ev in lines if "id" in ev]
    assert named == [
        ("done", 1, None),
        ("done", "desk-a:2", None),
        ("error", 3, "not_now"),
        ("error", 4, "not_now"),
        ("error", 5, "bad_value"),
        ("error", 6, "unknown_command"),
        ("done", 7, None),
    ]
    bad_ids = [ev for ev in lines if ev["ev"] == "error" and ev["code"] == "bad_field"]
    assert len(bad_ids) == 2 and all("id" not in ev for ev in bad_ids)
    assert [ev["reason"] for ev in lines if ev["ev"] == "dead"] == ["cancel"]
    done = [ev for ev in lines if ev["ev"] == "done"]
    assert done[0]["cmd"] == "state" and done[-1]["cmd"] == "control"
