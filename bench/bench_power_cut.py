"""Power cuts right after a judgement: is every decision the host saw still there after the resume?

A 6-player quiz; each cycle arms a question, one player buzzes and lets go, the desk sends
`judge` (correct), and the power is cut `d` ms after that command, for every d in 0..60 (the
window in which the chip writes the `judge` and `score` lines and saves the journal), then comes
back 40 ms later. After the `resume`, a `judge` repairs a judgement the journal did not hold (it is
refused when it did) and the next cycle starts. A decision is *lost* when the host saw a line of
it before the cut (the new `score`) and the resumed `score` is not that one
(docs/architecture.md "The journal": persist before emit).

Prints, per cut delay: whether the `judge` line had reached the host, whether the resumed game
holds the judgement, and a lost flag; then the counts. It runs the simulator (the firmware with
tablebuzz.sim.cost's CPU model; the flash's write times as on silicon, or with --no-stall none, as
the emulator has) and, with --chip, the emulated RP2040 too:

    RP2EMU=<a copy of ../shared/rp2emu with npm install done> UF2=<MicroPython v1.28.0 RPI_PICO
    uf2> FLASH_IMG=<a flash image saved by board_run.ts --save-flash after deploying the
    firmware's .mpy build> .venv/bin/python bench/bench_power_cut.py --chip

The emulator runs each timeline of CUTS_PER_RUN cuts (~3 emulated s, 20-40 s wall) one after the
other. Without RP2EMU / UF2 / FLASH_IMG it says so and runs the simulator only.
Options: --delays 0,5,10 (ms; default 0..60), --no-stall, --interpreter micropython.
tests/test_power_cut_window.py runs the simulator part on both interpreters.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "host"))

from tablebuzz.sim import simulate  # noqa: E402
from tablebuzz.sim.timeline import parse  # noqa: E402

CONTROLS = ["arm", "yes", "no", "undo"]
DELAYS_MS = list(range(61))  # 0..45 ms (issue 19) and on, past the `judge` line on the chip
CUTS_PER_RUN = 2
START_US = 1000000  # the firmware is up ~0.41 s after power-on, on the chip and in the simulator
OFF_US = 40000
RESUME_US = 1100000  # power back -> the next cycle (the chip resumes ~0.65 s after power-on)


def timeline(delays_ms, start_us=START_US):
    """(records, cuts) for one run: timeline dicts (at_us, as board_run.ts and the simulator take
    them) and per cut {"d", "judge_at", "cut_at", "on_at"} in µs."""
    recs = [{"at_us": start_us, "send": {"cmd": "new_game", "game": "quiz", "players": 6}}]
    cuts = []
    t = start_us + 300000
    for k, d in enumerate(delays_ms):
        if k:
            recs.append({"at_us": t - 150000, "send": {"cmd": "judge", "correct": True}})
        station = 1 + k % 6
        recs.append({"at_us": t, "send": {"cmd": "arm"}})
        recs.append({"at_us": t + 80000, "press": station})
        recs.append({"at_us": t + 170000, "release": station})
        judge = t + 230000
        recs.append({"at_us": judge, "send": {"cmd": "judge", "correct": True}})
        cut = judge + d * 1000
        recs.append({"at_us": cut, "power": "off"})
        recs.append({"at_us": cut + OFF_US, "power": "on"})
        cuts.append({"d": d, "judge_at": judge, "cut_at": cut, "on_at": cut + OFF_US})
        t = cut + OFF_US + RESUME_US
    return recs, cuts


def check(lines, cuts):
    """Per cut {"d", "seen" (the judge line reached the host before the cut), "kept" (the resumed
    score holds the judgement), "lost"} from [(µs, line)] the host received."""
    out = []
    for cut in cuts:
        before = [json.loads(x) for t, x in lines if t < cut["cut_at"] and x.startswith("{")]
        seen_scores = [e["scores"] for e in before if e["ev"] == "score"]
        earlier = [
            json.loads(x)["scores"] for t, x in lines
            if t < cut["judge_at"] and x.startswith('{"ev":"score"')
        ]
        base = sum(earlier[-1]) if earlier else 0  # the total before this cycle's judgement
        judged = [
            e for t, x in lines if cut["judge_at"] <= t < cut["cut_at"] and x.startswith("{")
            for e in [json.loads(x)] if e["ev"] == "judge"
        ]
        # the first resume after this cut, even past the next cut: a board that had not booted
        # again by then (a cut inside a long save makes the next boot slower) ran nothing in
        # between, so its first resume is this cut's
        later = [json.loads(x) for t, x in lines if t >= cut["on_at"] and x.startswith("{")]
        resumed = None
        for i, e in enumerate(later):
            if e["ev"] == "resume":
                resumed = next((f["scores"] for f in later[i:] if f["ev"] == "score"), None)
                break
        total_seen = sum(seen_scores[-1]) if seen_scores else 0
        kept = resumed is not None and sum(resumed) == base + 1
        lost = resumed is None or sum(resumed) < total_seen
        out.append({"d": cut["d"], "seen": bool(judged), "kept": kept, "lost": lost})
    return out


def sim_run(delays_ms, stall=True, interpreter="cpython"):
    recs, cuts = timeline(delays_ms)
    text = "\n".join(json.dumps(r) for r in recs) + "\n"
    header = {"seed": "1", "bounce": "none", "flash": {} if stall else {"stall": False},
              "clock_mhz": 125}  # the clock of the chip's figures (tests/test_power_cut_window)
    lines = simulate.run(header, parse(text, 6, CONTROLS), interpreter)
    return check([(ns / 1000.0, line) for ns, line in lines], cuts)


def chip_run(delays_ms, emu, uf2, image):
    recs, cuts = timeline(delays_ms)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cut.jsonl")
        with open(path, "w") as f:
            for r in recs:
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
        cmd = ["npx", "tsx", "board_run.ts", "--load-flash", image, "--timeline", path,
               "--controls", "arm=10,yes=11,no=12,undo=13", "--ms", "800"]
        proc = subprocess.run(cmd, cwd=emu, env=dict(os.environ, UF2=uf2), capture_output=True,
                              text=True)
    if proc.returncode != 0:
        raise RuntimeError("board_run.ts failed: " + proc.stderr[-2000:])
    lines = []
    for text in proc.stdout.splitlines():
        rec = json.loads(text)
        if "line" in rec and not rec.get("partial"):
            lines.append((rec["at_us"], rec["line"]))
    return check(lines, cuts)


def report(title, results):
    print(title)
    print("  d ms: " + " ".join("%2d" % r["d"] for r in results))
    print("  seen: " + " ".join(" S" if r["seen"] else " ." for r in results))
    print("  kept: " + " ".join(" K" if r["kept"] else " ." for r in results))
    print("  lost: " + " ".join(" X" if r["lost"] else " ." for r in results))
    seen = sum(r["seen"] for r in results)
    lost = sum(r["lost"] for r in results)
    window = [r["d"] for r in results if r["kept"] and not r["seen"]]
    print("  cuts %d, judge line seen before the cut %d, decisions lost %d; kept but not yet seen "
          "(saved, then sent) at d = %s" % (len(results), seen, lost, window))
    return lost


def main():
    args = sys.argv[1:]
    delays = DELAYS_MS
    if "--delays" in args:
        delays = [int(x) for x in args[args.index("--delays") + 1].split(",")]
    interpreter = "micropython" if "micropython" in args else "cpython"
    stall = "--no-stall" not in args
    lost = report(
        "simulator (%s, CPU model, flash write times %s)"
        % (interpreter, "as on silicon" if stall else "none, as the emulator"),
        sim_run(delays, stall, interpreter),
    )
    if "--chip" in args:
        emu, uf2, image = (os.environ.get(k) for k in ("RP2EMU", "UF2", "FLASH_IMG"))
        if not (emu and uf2 and image):
            print("emulated chip: skipped (set RP2EMU, UF2 and FLASH_IMG; see this file's doc)")
        else:
            results = []
            for i in range(0, len(delays), CUTS_PER_RUN):
                results += chip_run(delays[i : i + CUTS_PER_RUN], emu, uf2, image)
            lost += report("emulated RP2040 (rp2emu, MicroPython v1.28.0, .mpy)", results)
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
