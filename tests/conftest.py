"""Shared test set-up: the firmware and the simulator fakes importable under CPython."""

import os

import pytest
from hypothesis import HealthCheck, settings
from tablebuzz.sim.simulate import _ensure_paths

_ensure_paths()


@pytest.fixture(autouse=True)
def _cpu_model(request, monkeypatch):
    """The simulator charges the chip's CPU time (tablebuzz.sim.cost) by default. The tests
    written before that model expect the firmware's Python to be free (their stamps, deadlines
    and line times were worked out so): they run with the model off unless marked
    `cpu_model`, until each is moved onto the modelled chip (issue 20). A header's own "cpu"
    wins either way."""
    from tablebuzz.sim import cost

    if request.node.get_closest_marker("cpu_model") is None:
        monkeypatch.setattr(cost, "DEFAULT", "off")

settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=60, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
