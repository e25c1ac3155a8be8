"""The watchdog on the emulated RP2040: a pass that never returns is reset, and the game resumes.

Runs the test firmware of bench/watchdog_firmware.py (the real firmware, a main.py that hangs one
loop pass once, HANG_AFTER_MS after it started; a shortened watchdog, WATCHDOG_MS, so the emulator
runs the hung loop for less time: the mechanism is the product's) on MicroPython v1.28.0 on
rp2040js. A quiz is started, a question armed, buzzed and judged, the next question armed, and
`state` asked; then the pass hangs. Prints, in emulated ms since power-on: the hang marker, the
last feed (the last write of the watchdog's LOAD register), the watchdog reset and its time from
the last feed (the WDT timeout, to one 1 µs tick), `machine.reset_cause()` at each boot, the new
boot's `hello` and `resume`, and the `state` before the hang and after the resume (phase, scores,
log, eligible, answering): they must agree (the judgement and the armed question are in the
journal). Then the Ctrl-C half: Ctrl-C (main.py stops the watchdog on its way out, as it does for
mpremote), and past the timeout a line typed at the REPL prints the watchdog's CTRL register
(timeline "keys" entries). Exits 1 if there was no reset, REASON did not read back as
machine.WDT_RESET, no resume came, a state differs, or anything reset after the Ctrl-C.

The harness given by RP2EMU must have the `--watchdog-reset` option of
bench/rp2emu-watchdog-reset.patch: rp2040js's own watchdog (`RPWatchdog`, v1.4.1) cannot reset the
chip, and its count reaching 0 re-arms a 0 ns clock alarm forever, so the emulation itself stops
at that instant (why the hung pass used to run for minutes with no reset). The patch puts in
`watchdog.ts`, the RP2040 datasheet's watchdog (section 4.7: TICK, the counter at 2 per tick,
CTRL.TIME/TRIGGER, REASON, SCRATCH0-7; its header gives the sources), and board_run.ts resets the
board at the counter's 0 as a power cut and an immediate power-on that keep the flash and the
watchdog's own registers. Apply it to a copy of ../shared/rp2emu:

    cp -r ../shared/rp2emu EMU && cd EMU && patch -p1 < REPO/bench/rp2emu-watchdog-reset.patch
    (npm install, bootrom.ts: see that folder's README)
    RP2EMU=EMU UF2=<MicroPython v1.28.0 RPI_PICO uf2> .venv/bin/python bench/watchdog_chip.py
        [--flash-image FILE] [--keep DIR]

Without --flash-image the test firmware is built and deployed first (~1 wall minute) and the
image is kept in the temporary folder (or DIR with --keep); with it, that image is booted
directly. Measured figures: bench/README.md "watchdog_chip.py", docs/flashing.md "The watchdog".
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

HANG_AFTER_MS = 1300  # after main.py started (~30 ms after power-on): past the second arm
WATCHDOG_MS = 300
CTRL_C_US = 3000000
REPL_US = CTRL_C_US + 1000 * WATCHDOG_MS + 150000  # past the timeout after Ctrl-C
CTRL_ENABLE = 1 << 30  # WATCHDOG CTRL.ENABLE (RP2040 datasheet 4.7, register CTRL)
TIMELINE = [
    {"at_us": 600000, "send": {"cmd": "new_game", "game": "quiz", "players": 4}},
    {"at_us": 950000, "send": {"cmd": "arm"}},
    {"at_us": 1050000, "press": 2},
    {"at_us": 1120000, "release": 2},
    {"at_us": 1250000, "send": {"cmd": "judge", "correct": True}},
    {"at_us": 1400000, "send": {"cmd": "arm"}},
    {"at_us": 1550000, "send": {"cmd": "state"}},
    {"at_us": 2900000, "send": {"cmd": "state"}},
    {"at_us": CTRL_C_US, "keys": "\x03"},  # Ctrl-C: main.py stops the watchdog on its way out
    {"at_us": REPL_US, "keys": "import machine; print('{\"test\":\"repl\",\"ctrl\":%d}' % "
     "machine.mem32[0x40058000])\r"},  # the REPL is up past the timeout: WATCHDOG CTRL
]
STATE_KEYS = ("phase", "scores", "log", "eligible", "answering")


def _board_run(emu, uf2, args):
    cmd = ["npx", "tsx", "board_run.ts"] + args
    proc = subprocess.run(cmd, cwd=emu, env=dict(os.environ, UF2=uf2), capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise SystemExit("board_run.ts failed:\n" + proc.stderr[-2000:])
    return proc


def deploy(emu, uf2, folder, hang_after_ms, watchdog_ms):
    """Build and deploy the test firmware; returns the saved flash image's path.

    The image is saved before the deploy's soft reset, so it holds no `hang.done`; the short run
    after it (100 ms, with the watchdog model) ends before main.py could hang."""
    import watchdog_firmware

    fw = watchdog_firmware.build(Path(folder) / "fw", hang_after_ms, watchdog_ms)
    empty = Path(folder) / "empty.jsonl"
    empty.write_text("")
    image = Path(folder) / "flash.img"
    _board_run(emu, uf2, ["--firmware", str(fw), "--timeline", str(empty), "--save-flash",
                          str(image), "--allow-silent", "--quiet", "--ms", "100",
                          "--watchdog-reset"])
    return image


def run(emu, uf2, image, folder):
    """([(ms, kind, record)], board_run's stderr) of the run: kind "line" (a JSON object the
    board printed: its value) or "watchdog" (board_run's reset record: at_ns, reason, fed_at_us,
    load)."""
    path = Path(folder) / "hang.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in TIMELINE))
    proc = _board_run(emu, uf2, ["--load-flash", str(image), "--timeline", str(path),
                                 "--watchdog-reset", "--ms", "300"])
    out = []
    for text in proc.stdout.splitlines():
        rec = json.loads(text)
        if "watchdog" in rec:
            out.append((rec["at_us"] / 1000, "watchdog", rec))
        elif "json" in rec and isinstance(rec["json"], dict):
            out.append((rec["at_us"] / 1000, "line", rec["json"]))
    return out, proc.stderr


def report(events):
    """Prints the figures; returns True when the board was reset by the watchdog (REASON read
    back as machine.WDT_RESET), booted again and resumed the game it had saved."""
    def first(pred, after=-1.0):
        return next(((t, v) for t, k, v in events if t > after and pred(k, v)), (None, None))

    def line(name, value):
        print("%-22s %s" % (name + ":", value))

    boots = [(t, v) for t, k, v in events if k == "line" and v.get("test") == "boot"]
    hang_ms, _ = first(lambda k, v: k == "line" and v.get("test") == "hang")
    reset_ms, reset = first(lambda k, v: k == "watchdog")
    line("hang marker", "%s ms" % hang_ms)
    if hang_ms is None or reset is None:
        line("watchdog reset", "none: the board stayed hung")
        return False
    fed = reset["fed_at_us"]
    line("last feed (LOAD)", "%.3f ms, LOAD = %d (%d ms at 2 per us)" % (
        fed / 1000, reset["load"], reset["load"] // 2000))
    line("watchdog reset", "%.3f ms, reason %s" % (reset["at_ns"] / 1e6, reset["reason"]))
    line("  last feed -> reset", "%.3f ms (WDT timeout %d ms)" % (
        (reset["at_ns"] / 1000 - fed) / 1000, WATCHDOG_MS))
    line("  hang marker -> reset", "%.1f ms" % (reset_ms - hang_ms))
    for t, v in boots:
        cause = "machine.WDT_RESET" if v["reset_cause"] == v["wdt_reset"] else "%d (not %d, " \
            "machine.WDT_RESET)" % (v["reset_cause"], v["wdt_reset"])
        line("boot, reset_cause", "%.1f ms: %s" % (t, cause))
    rebooted = [v for t, v in boots if t > reset_ms]
    by_watchdog = bool(rebooted) and rebooted[0]["reset_cause"] == rebooted[0]["wdt_reset"]
    hello_ms, _ = first(lambda k, v: k == "line" and v.get("ev") == "hello", reset_ms)
    resume_ms, resume = first(lambda k, v: k == "line" and v.get("ev") == "resume", reset_ms)
    line("hello again", "%s ms (%s ms after the reset)" % (
        hello_ms, None if hello_ms is None else round(hello_ms - reset_ms, 1)))
    line("resume", "%s ms %s" % (resume_ms, json.dumps(resume)))
    before_ms, before = None, None
    for t, k, v in events:
        if k == "line" and v.get("ev") == "state" and t < hang_ms:
            before_ms, before = t, v
    afters = [(t, v) for t, k, v in events if k == "line" and v.get("ev") == "state"
              and t > reset_ms]
    shown = [("state before the hang", before_ms, before)]
    shown += [("state after the resume", t, v) for t, v in afters]
    for name, t, st in shown:
        picked = {k: st.get(k) for k in STATE_KEYS} if st else None
        line(name, "%s ms %s" % (t, json.dumps(picked)))
    same = before is not None and bool(afters) and all(
        before.get(k) == v.get(k) for _, v in afters for k in STATE_KEYS
    )
    line("resumed as saved", "%s (%d state line(s) after the resume)" % (same, len(afters)))
    return by_watchdog and resume is not None and same and ctrl_c(events)


def ctrl_c(events):
    """Prints the Ctrl-C check; True when no reset came after the Ctrl-C and the REPL answered
    past the timeout with the watchdog's CTRL.ENABLE clear."""
    ctrl_c_ms = CTRL_C_US / 1000
    late = [t for t, k, v in events if k == "watchdog" and t >= ctrl_c_ms]
    repl = next(((t, v) for t, k, v in events if k == "line" and v.get("test") == "repl"), None)
    print("%-22s %.1f ms; watchdog resets after it: %d" % ("Ctrl-C", ctrl_c_ms, len(late)))
    if repl is None:
        print("%-22s none" % "REPL answer")
        return False
    t, v = repl
    ctrl = v["ctrl"] & 0xFFFFFFFF
    print("%-22s %.1f ms (%.1f ms after Ctrl-C): WATCHDOG CTRL = 0x%08x, ENABLE %d, TIME %d" % (
        "REPL answer", t, t - ctrl_c_ms, ctrl, bool(ctrl & CTRL_ENABLE), ctrl & 0xFFFFFF))
    return not late and not ctrl & CTRL_ENABLE and t - ctrl_c_ms > WATCHDOG_MS


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flash-image", help="a flash image with the test firmware deployed")
    parser.add_argument("--keep", help="a folder to keep the test firmware and its image in")
    args = parser.parse_args(argv)
    emu, uf2 = os.environ.get("RP2EMU"), os.environ.get("UF2")
    if not emu or not uf2:
        print("set RP2EMU and UF2 (see this file's doc)")
        return 2
    if not (Path(emu) / "watchdog.ts").is_file():
        print("RP2EMU=%s has no watchdog.ts: apply bench/rp2emu-watchdog-reset.patch to a copy of "
              "../shared/rp2emu (see this file's doc)" % emu)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or tmp
        Path(folder).mkdir(parents=True, exist_ok=True)
        image = args.flash_image or deploy(emu, uf2, folder, HANG_AFTER_MS, WATCHDOG_MS)
        events, summary = run(emu, uf2, image, folder)
    print("test firmware: hang %d ms after main.py started, watchdog %d ms; emulated ms since "
          "power-on" % (HANG_AFTER_MS, WATCHDOG_MS))
    ok = report(events)
    for text in summary.strip().splitlines():
        if text.startswith("[board_run] t0 =") or "--watchdog-reset:" in text:
            print(text[:600])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
