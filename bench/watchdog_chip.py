"""The watchdog on the emulated RP2040: a pass that never returns is reset, and the game resumes.

Runs the test firmware of bench/watchdog_firmware.py (the real firmware, a main.py that hangs one
loop pass once, `--hang-after-ms` after it started; a shortened watchdog, `--watchdog-ms`, so the
emulator runs the hung loop for less time: the mechanism is the product's) on MicroPython v1.28.0
on rp2040js. A quiz is started, a question armed, buzzed and judged, the next question armed, and
`state` asked; then the pass hangs. Prints, in emulated ms: the hang marker, the watchdog reset,
the new boot's `hello` and `resume`, and the `state` before the hang and after the resume (scores,
log entries, phase): they must agree (the judgement and the armed question are in the journal).
Exits 1 if no reset or no resume came.

rp2040js's watchdog (`RPWatchdog`, node_modules/rp2040js/dist/esm/peripherals/watchdog.js) counts
down and calls its `onWatchdogTrigger` hook, which by default only logs a warning (silent at the
harness's LogLevel.Error): the stock harness never resets. The harness given by RP2EMU must have
the `--watchdog-reset` option of bench/rp2emu-watchdog-reset.patch (the hook notes the instant,
the run stops there, and board_run.ts resets the board as a power cut and an immediate power-on:
a fresh RP2040, the same UF2, the flash as it was):

    RP2EMU=<a copy of ../shared/rp2emu, npm install done, the patch applied> UF2=<MicroPython
    v1.28.0 RPI_PICO uf2> .venv/bin/python bench/watchdog_chip.py [--flash-image FILE]

Without --flash-image the test firmware is built and deployed first (minutes: raw REPL) and the
image is kept in the temporary folder; with it, that image (saved by an earlier run, `--keep DIR`)
is booted directly. Measured figures: docs/flashing.md "The watchdog".
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

HANG_AFTER_MS = 2500  # after main.py started (~0.4 s after power-on): past the second arm
WATCHDOG_MS = 300
TIMELINE = [
    {"at_us": 700000, "send": {"cmd": "new_game", "game": "quiz", "players": 4}},
    {"at_us": 1000000, "send": {"cmd": "arm"}},
    {"at_us": 1200000, "press": 2},
    {"at_us": 1280000, "release": 2},
    {"at_us": 1500000, "send": {"cmd": "judge", "correct": True}},
    {"at_us": 1800000, "send": {"cmd": "arm"}},
    {"at_us": 2200000, "send": {"cmd": "state"}},
    {"at_us": 4300000, "send": {"cmd": "state"}},
]


def _board_run(emu, uf2, args):
    cmd = ["npx", "tsx", "board_run.ts"] + args
    proc = subprocess.run(cmd, cwd=emu, env=dict(os.environ, UF2=uf2), capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise SystemExit("board_run.ts failed:\n" + proc.stderr[-2000:])
    return proc


def deploy(emu, uf2, folder, hang_after_ms, watchdog_ms):
    """Build and deploy the test firmware; returns the saved flash image's path."""
    import watchdog_firmware

    fw = watchdog_firmware.build(Path(folder) / "fw", hang_after_ms, watchdog_ms)
    empty = Path(folder) / "empty.jsonl"
    empty.write_text("")
    image = Path(folder) / "flash.img"
    _board_run(emu, uf2, ["--firmware", str(fw), "--timeline", str(empty), "--save-flash",
                          str(image), "--allow-silent", "--quiet"])
    return image


def run(emu, uf2, image, folder):
    """[(ms, kind, value)] of what the run showed: "line" (the board's JSON lines), "watchdog"."""
    path = Path(folder) / "hang.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in TIMELINE))
    proc = _board_run(emu, uf2, ["--load-flash", str(image), "--timeline", str(path),
                                 "--watchdog-reset", "--ms", "300"])
    out = []
    for text in proc.stdout.splitlines():
        rec = json.loads(text)
        if "watchdog" in rec:
            out.append((rec["at_us"] / 1000, "watchdog", rec["watchdog"]))
        elif "json" in rec and isinstance(rec["json"], dict):
            out.append((rec["at_us"] / 1000, "line", rec["json"]))
    return out, proc.stderr


def report(events):
    """Prints the figures; returns True when the board was reset and resumed the game it had."""
    def first(pred, after=-1.0):
        return next(((t, v) for t, k, v in events if t > after and pred(k, v)), (None, None))

    hang_ms, _ = first(lambda k, v: k == "line" and v.get("test") == "hang")
    reset_ms, _ = first(lambda k, v: k == "watchdog")
    print("hang marker:     %s ms" % hang_ms)
    print("watchdog reset:  %s ms" % reset_ms)
    if hang_ms is None or reset_ms is None:
        print("no reset: the board stayed hung")
        return False
    print("  hang -> reset: %.1f ms (watchdog %d ms from the last feed)" % (
        reset_ms - hang_ms, WATCHDOG_MS))
    before_ms, before = None, None
    for t, k, v in events:
        if k == "line" and v.get("ev") == "state" and t < hang_ms:
            before_ms, before = t, v
    hello_ms, _ = first(lambda k, v: k == "line" and v.get("ev") == "hello", reset_ms)
    resume_ms, resume = first(lambda k, v: k == "line" and v.get("ev") == "resume", reset_ms)
    after_ms, after = first(lambda k, v: k == "line" and v.get("ev") == "state", reset_ms)
    print("hello again:     %s ms (%s ms after the reset)" % (
        hello_ms, None if hello_ms is None else round(hello_ms - reset_ms, 1)))
    print("resume:          %s ms %s" % (resume_ms, json.dumps(resume)))
    keys = ("phase", "scores", "log", "eligible", "answering")
    for name, t, st in (("before the hang", before_ms, before), ("after the resume", after_ms,
                                                                  after)):
        shown = {k: st.get(k) for k in keys} if st else None
        print("state %-16s %s ms %s" % (name + ":", t, json.dumps(shown)))
    same = before is not None and after is not None and all(
        before.get(k) == after.get(k) for k in keys
    )
    print("resumed as saved: %s" % same)
    return resume is not None and same


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flash-image", help="a flash image with the test firmware deployed")
    parser.add_argument("--keep", help="a folder to keep the test firmware and its image in")
    args = parser.parse_args(argv)
    emu, uf2 = os.environ.get("RP2EMU"), os.environ.get("UF2")
    if not emu or not uf2:
        print("set RP2EMU and UF2 (see this file's doc)")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or tmp
        Path(folder).mkdir(parents=True, exist_ok=True)
        image = args.flash_image or deploy(emu, uf2, folder, HANG_AFTER_MS, WATCHDOG_MS)
        events, summary = run(emu, uf2, image, folder)
    print("test firmware: hang %d ms after main.py started, watchdog %d ms" % (
        HANG_AFTER_MS, WATCHDOG_MS))
    ok = report(events)
    print(summary.strip().splitlines()[-1][:400] if summary.strip() else "")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
