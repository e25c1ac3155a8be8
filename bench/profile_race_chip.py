"""Where a race's milliseconds go on the emulated RP2040: firmware calls timed by GPIO markers.

The firmware as `make flash` builds it (bench_chip_latency.deployed_run's deploy), with a probe in
front of main.py's `from refbox.boot import main`: each method named in MARKS is wrapped to raise
a spare GPIO while it runs (two register writes, SIO GPIO_OUT_SET / _CLR: RP2040 datasheet
§2.3.1.7), and rp2emu's `board_run.ts --watch-pins` reports the edges with their emulated ns. It
plays bench_chip_latency's timeline for the race kinds given and prints, per race, every span
(start and length, ms after the first press) and the lines around it. A wrapped call costs
~0.05 ms more here, so the absolute figures run late: read the spans, not the totals.

Run: RP2EMU=DIR UF2=FILE .venv/bin/python bench/profile_race_chip.py ["1 press" "8 presses" ...]
  MARKS  Class.method:GPIO,... (default below); a module's function as package/module.name:GPIO
  RACES  races of each kind (1); MIN_US spans shorter than this are left out (30)
  AROUND "press" (default: from each race's first press) or "judge" (from its `judge` command,
         300 ms after its `arm`); WINDOW_MS how long after that to show (12)
Spare GPIOs of the pin map: 14, 15, 18, 19, 22, 26, 27, 28. Never run by `make test`.
"""

import json
import os
import sys

import bench_chip_latency as chip

MARKS = (
    "App.step:14,App._read_capture:15,App._poll:18,App.horizons:19,Referee._deliver:22,"
    "App.announce:26,App._show:27,Referee.tick:28"
)
CLASSES = {
    "App": "refbox.app", "Referee": "refbox.referee", "Debouncer": "refbox.debounce",
    "Arbiter": "refbox.arbiter", "Outbox": "refbox.outbox", "Board": "refbox.board",
    "PioPixels": "refbox.board", "UsbConsole": "refbox.board", "EdgeDecoder": "refbox.capture",
    "PioWords": "refbox.capture",
}
PROBE = """import machine
from machine import mem32
def _wrap(owner, name, gpio):
    f = getattr(owner, name)
    bit = 1 << gpio
    def w(*a):
        mem32[0xd0000014] = bit
        r = f(*a)
        mem32[0xd0000018] = bit
        return r
    setattr(owner, name, w)
"""


def probe_main(marks):
    """(main.py with the probe, {gpio: what it marks})."""
    head, pins = PROBE, {}
    for mark in marks:
        what, gpio = mark.rsplit(":", 1)
        owner, name = what.rsplit(".", 1)
        pins[int(gpio)] = what
        if owner in CLASSES:
            head += "from %s import %s\n" % (CLASSES[owner], owner)
            head += "_wrap(%s, %r, %s)\n" % (owner, name, gpio)
        else:
            module = owner.replace("/", ".")
            head += "import %s\n_wrap(%s, %r, %s)\n" % (module, module, name, gpio)
    head += "for _g in %r: machine.Pin(_g, machine.Pin.OUT, value=0)\n" % sorted(pins)
    # the wrappers' garbage collected before the Board allocates: without it the capture ring's
    # 8 KB found no room (a MemoryError at boot on the emulated chip, main.py's 200 MHz build)
    head += "import gc\ngc.collect()\n"
    src = (chip.REPO / "firmware" / "main.py").read_text()
    return src.replace("from refbox.boot import main", head + "from refbox.boot import main"), pins


def spans(rows, pins, first_ns, min_ns, window_ns=12_000_000):
    """[(start ns, what, length ns or None for a line)] around one race, in time order."""
    out, opened = [], {}
    end = first_ns + window_ns
    for row in rows:
        if row.get("pin") in pins and first_ns - 200_000 <= row["at_ns"] <= end:
            if row["state"] == "high":
                opened[row["pin"]] = row["at_ns"]
            elif row["state"] == "low" and row["pin"] in opened:
                began = opened.pop(row["pin"])
                if row["at_ns"] - began >= min_ns:
                    out.append((began, pins[row["pin"]], row["at_ns"] - began))
        elif "line" in row and first_ns <= row["at_us"] * 1000 <= end:
            out.append((row["at_us"] * 1000, "line " + row["line"][:70], None))
    return sorted(out)


def main():
    env = chip._environment()
    if isinstance(env, str):
        print("profile_race_chip: the emulated RP2040 is not available: %s" % env)
        return 0
    emu, uf2 = env
    kinds = tuple(sys.argv[1:]) or ("1 press", "8 presses")
    unknown = [k for k in kinds if k not in chip.KINDS]
    if unknown:
        print("profile_race_chip: no race kind %s (kinds: %s)" % (unknown, ", ".join(chip.KINDS)))
        return 2
    lines, races = chip.timeline(int(os.environ.get("RACES", "1")), kinds=kinds)
    text = "".join(json.dumps(d, separators=(",", ":")) + "\n" for d in lines)
    main_py, pins = probe_main(os.environ.get("MARKS", MARKS).split(","))
    watch = ",".join(str(g) for g in [chip.PIXEL_GPIO] + sorted(pins))
    play = ["--ms", "300", "--watch-pins", watch, "--quiet", "--pins", chip.PLAYER_GPIOS]
    proc, failed = chip.deployed_run(emu, uf2, text, play, extra={"main.py": main_py.encode()})
    if failed:
        print(failed)
        return 1
    rows = [json.loads(t) for t in proc.stdout.splitlines() if t.strip()]
    min_ns = int(os.environ.get("MIN_US", "30")) * 1000
    for race, (kind, led, line, ok) in zip(races, chip.measure(rows, races), strict=True):
        verdict = "ok" if ok else "WRONG"
        print("%s: LED %s ms, race line %s ms, winner %s" % (kind, led, line, verdict))
        first = race["first"] * 1000
        if os.environ.get("AROUND", "press") == "judge":
            first = (race["arm_at"] + 300_000) * 1000  # (chip.timeline's judge command)
        window = int(float(os.environ.get("WINDOW_MS", "12")) * 1e6)
        for at, what, length in spans(rows, pins, first, min_ns, window):
            if length is None:
                print("  %8.3f  %s" % ((at - first) / 1e6, what))
            else:
                print("  %8.3f  %-26s %6.3f ms" % ((at - first) / 1e6, what, length / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
