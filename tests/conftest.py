"""Shared test set-up: the firmware and the simulator fakes importable under CPython; the
MicroPython lane's firmware compiled once a session."""

import os

import pytest
from hypothesis import HealthCheck, settings
from tablebuzz.paths import REPO
from tablebuzz.sim import simulate
from tablebuzz.sim.simulate import _ensure_paths

_ensure_paths()


def pytest_configure(config):
    """The MicroPython unix port runs the firmware from a bytecode build of firmware/ (refbox/
    as .mpy files, as a board holds them: tablebuzz.link.flash.cached_build, in
    build/lane-mpy/, remade when a source changes) instead of compiling the source on each of
    its ~160 runs. Built by the first process (xdist's workers inherit the variable). A
    $TABLEBUZZ_MPY_FIRMWARE set beforehand is kept (the path of firmware/ runs the source)."""
    if hasattr(config, "workerinput") or os.environ.get(simulate.FIRMWARE_BUILD_ENV):
        return
    from tablebuzz.link import flash

    build = flash.cached_build(REPO / "build" / "lane-mpy")
    os.environ[simulate.FIRMWARE_BUILD_ENV] = str(build)


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
