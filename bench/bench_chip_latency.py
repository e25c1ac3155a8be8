"""First press -> the winner's LED and -> the `race` line, on the emulated RP2040.

The firmware as `make flash` deploys it to an RP2040 (`tablebuzz.link.flash.build` for armv6m: .mpy
files, the modules of `flash.NATIVE` as Thumb machine code, and main.py) runs on the real
MicroPython v1.28.0 RPI_PICO firmware inside rp2emu (rp2040js; see its README): it is
deployed once (`board_run.ts --save-flash`), then booted from that image (`--load-flash`, t0 =
power-on, so the board's ticks_us is the emulated µs) to play one timeline: an 8-player quiz,
races of 1, 2, 4, 6 and 8 presses (each presser 1-30 µs after the one before) and lone presses
inside noise bursts (64-edge bursts, 2 µs closures every 5 µs, on two other stations, or on
four: "noise bursts x4", around the press), and a press that bounces (64 edges, 32 closures of
2 µs every 5 µs from its first edge, then held: "bounce"), each race armed, pressed, released
and judged right.
Per race it reads, from the board's USB lines and the NeoPixel pin's edges (GPIO 16, decoded as
WS2812 frames):
- first press -> `race` line: when its "\\n" reached the host;
- first press -> LED: the end of the first frame with the winner's station lit and every other
  station dark;
and checks the winner against the first driven press. It prints min / median / max per kind.
Per `arm` it reads the cue (the `armed` line's t_us: the tick the board read the line) and:
- cue -> LEDs: the end of the first frame with every station in full colour (the race's cue);
- cue -> `armed` line: when its "\n" reached the host.

Environment:
  RP2EMU=DIR   rp2emu with `npm install` done (default: ../shared/rp2emu next to the repository)
  UF2=FILE     MicroPython v1.28.0 for RPI_PICO (default: $RP2EMU/RPI_PICO.uf2)
  RACES=N      races of each kind (default 3); VERBOSE=1 also prints each race and arm
  KINDS=LIST   only these race kinds, comma-separated (default: all)
  NATIVE=LIST  compile these modules native instead of flash.NATIVE, comma-separated board
               paths ("refbox/referee.py,refbox/arbiter.py"), "none" for bytecode only: what each
               module's native code gains (bench/README.md "Native modules")
  PACK=1       deploy with refbox.pack, as `tablebuzz flash --pack` (default: as `make flash`)
  MHZ=N        the system clock main.py sets, MHz (default refbox.sysclock.SYS_MHZ, 200; 125:
               MicroPython's own). The harness times the clock only with bench/rp2emu-clock.patch
               (else every clock runs at 125 MHz): the header says the clock `hello` reports
  SAVE=DIR     also keep the run for the simulator's CPU model (bench/bench_cpu_model.py):
               DIR/NAME.sim.jsonl (the timeline with its set-up line), NAME.meta.json (each
               race: kind, presses [station, µs]), NAME.chip.jsonl (each line the chip wrote, with
               its emulated µs); NAME is SAVE_NAME (default "latency_a")
Without them it says what is missing and exits 0 (so `make bench` still runs). Emulation costs
5-10 wall seconds per emulated second: the default timeline is ~9 emulated s (1.5 wall minutes).
It is a benchmark, never run by `make test`. Exit 1 when the emulated run failed, 2 for a NATIVE
naming no firmware module.
Run: UF2=/path/RPI_PICO.uf2 RP2EMU=/path/rp2emu .venv/bin/python bench/bench_chip_latency.py
"""

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "host"))

START_US = 1_000_000  # the firmware's menu is up ~0.5 s after power-on (.mpy deploy)
# one race: arm, presses 150 ms later (`armed` comes 50-90 ms after `arm` on the chip, its save
# and collection first: a press before it is a false start), releases, judge
PERIOD_US = 420_000
PIXEL_GPIO = 16  # refbox.pinmap.NEOPIXEL_GPIO
STATIONS = 8  # refbox.pinmap.PLAYER_COUNT
PLAYER_GPIOS = "2,3,4,5,6,7,8,9"  # refbox.pinmap.PLAYER_BASE_GPIO on: player 1 first
# what board_run.ts copies of a build: its .py/.mpy/.json default and the modules' pack
# (tablebuzz.link.flash.PACK, mounted by main.py: refbox.packfs)
DEPLOY_EXT = ("--ext", ".py,.mpy,.json,.pack,.tbj")
# PACK=1: deploy as `tablebuzz flash --pack` does (refbox.pack beside the tree: docs/flashing.md)
PACK = os.environ.get("PACK") == "1"
# FROZEN=1: UF2 is the tablebuzz image (make firmware, refbox frozen in): main.py alone is deployed
FROZEN = bool(os.environ.get("FROZEN"))
# MHZ=N: main.py's `set_up(machine, time)` given that clock (refbox.sysclock)
MHZ = int(os.environ["MHZ"]) if os.environ.get("MHZ") else None
_SET_UP = "set_up(machine, time)"
KINDS = ("1 press", "2 presses", "4 presses", "6 presses", "8 presses", "noise bursts",
         "noise bursts x4", "bounce")


def _environment():
    """(rp2emu dir, UF2 path) or a reason (str) why the emulator cannot run here."""
    emu = Path(os.environ.get("RP2EMU") or REPO.parent / "shared" / "rp2emu")
    uf2 = Path(os.environ.get("UF2") or emu / "RPI_PICO.uf2")
    if not (emu / "board_run.ts").is_file():
        return "no rp2emu at %s (set RP2EMU=DIR)" % emu
    if not (emu / "node_modules").is_dir():
        return "rp2emu at %s has no node_modules (npm install there)" % emu
    if not uf2.is_file():
        return "no MicroPython firmware at %s (set UF2=FILE)" % uf2
    return emu, uf2


def at_clock(build, mhz):
    """Make the deployed main.py in `build` set the system clock to `mhz` MHz (refbox.sysclock's
    `set_up`). Raises SystemExit when main.py has no such call."""
    main = build / "main.py"
    text = main.read_text()
    if _SET_UP not in text:
        raise SystemExit("main.py has no %r to give the clock to" % _SET_UP)
    main.write_text(text.replace(_SET_UP, "set_up(machine, time, %d)" % mhz, 1))


def timeline(races_per_kind, seed=20, kinds=KINDS):
    """(timeline lines for board_run.ts, races): each race {kind, first, presses: [(station,
    at_us)], arm_at}. Winners rotate so the first presser differs race to race."""
    rng = random.Random(seed)
    lines = [{"at_us": START_US, "send": {"cmd": "new_game", "game": "quiz", "players": STATIONS}}]
    kinds = [kind for kind in kinds for _ in range(races_per_kind)]
    rng.shuffle(kinds)
    races = []
    t = START_US + 300_000
    for k, kind in enumerate(kinds):
        lines.append({"at_us": t, "send": {"cmd": "arm"}})
        p0 = t + 150_000 + rng.randint(0, 999)
        stations = rng.sample(range(1, STATIONS + 1), STATIONS)
        stations.remove(1 + k % STATIONS)
        stations.insert(0, 1 + k % STATIONS)  # this race's first presser
        count = {"1 press": 1, "2 presses": 2, "4 presses": 4, "6 presses": 6, "8 presses": 8}
        count = count.get(kind, 1)
        presses, at = [], p0
        for i in range(count):
            if i:
                at += rng.randint(1, 30)
            presses.append((stations[i], at))
        if kind.startswith("noise bursts"):
            others = stations[1:5] if kind.endswith("x4") else stations[1:3]
            for s in others:  # 32 closures of 2 µs every 5 µs, around the real press
                a = p0 - rng.randint(0, 100)
                for i in range(32):
                    lines.append({"at_us": a + 5 * i, "press": s})
                    lines.append({"at_us": a + 5 * i + 2, "release": s})
        for s, a in presses:
            if kind == "bounce":  # 64 edges on the press itself: 32 closures of 2 µs every
                for i in range(32):  # 5 µs from its first edge, then held
                    lines.append({"at_us": a + 5 * i, "press": s})
                    lines.append({"at_us": a + 5 * i + 2, "release": s})
                a += 160
            lines.append({"at_us": a, "press": s})
            lines.append({"at_us": t + 240_000 + s, "release": s})
        lines.append({"at_us": t + 300_000, "send": {"cmd": "judge", "correct": True}})
        races.append({"kind": kind, "first": p0, "presses": presses, "arm_at": t})
        t += PERIOD_US
    lines.sort(key=lambda d: d["at_us"])  # stable: equal times keep their order
    return lines, races


def frames(pin_edges):
    """WS2812 frames from the pin's edges: [(end ns, [(r, g, b), ...])]. A bit is the high
    time: ~0.4 µs a 0, ~0.8 µs a 1 (WS2812B datasheet); a gap over 50 µs ends a frame."""
    out, bits, high_at, last = [], [], None, None

    def close(end):
        if bits:
            pixels = []
            for i in range(0, len(bits) - 23, 24):
                v = int("".join(map(str, bits[i : i + 24])), 2)
                pixels.append(((v >> 8) & 255, (v >> 16) & 255, v & 255))  # G R B on the wire
            out.append((end, pixels))

    for ns, state in pin_edges:
        if last is not None and ns - last > 50_000:
            close(last)
            bits = []
        if state == "high":
            high_at = ns
        elif state == "low" and high_at is not None:
            bits.append(1 if ns - high_at > 560 else 0)
            high_at = None
        last = ns
    close(last)
    return out


def measure(rows, races):
    """Per race: (kind, ms to LED or None, ms to race line or None, winner ok)."""
    events = [(r["at_us"], r["json"]) for r in rows if isinstance(r.get("json"), dict)]
    lines = [(at, e) for at, e in events if e.get("ev") == "race"]
    edges = [(r["at_ns"], r["state"]) for r in rows if r.get("pin") == PIXEL_GPIO]
    shown = frames(edges)
    out = []
    for race in races:
        first = race["first"]
        line = None
        for at, e in lines:  # the race whose stamp is this race's first press (ticks = µs)
            if abs(e["t_us"] - first) <= 2:
                line = (at, e)
                break
        if line is None:
            out.append((race["kind"], None, None, False))
            continue
        at, e = line
        winner = e["winner"] - 1
        led = None
        for end, pixels in shown:
            if end / 1000 < first or len(pixels) < STATIONS:
                continue
            lit = [i for i in range(STATIONS) if pixels[i] != (0, 0, 0)]
            if lit == [winner]:
                led = (end / 1000 - first) / 1000
                break
        ok = e["winner"] == race["presses"][0][0]
        out.append((race["kind"], led, (at - first) / 1000, ok))
    return out


def cue_figures(rows):
    """Per `armed` line: (ms from its cue to the end of the first frame that shows the cue, every
    station lit in full colour, or None; ms from its cue to the line)."""
    events = [(r["at_us"], r["json"]) for r in rows if isinstance(r.get("json"), dict)]
    edges = [(r["at_ns"], r["state"]) for r in rows if r.get("pin") == PIXEL_GPIO]
    shown = frames(edges)
    out = []
    for at, e in events:
        if e.get("ev") != "armed":
            continue
        cue_us = e["t_us"] + e.get("t_ns", 0) / 1000
        led = None
        for end, pixels in shown:
            if end / 1000 < cue_us or len(pixels) < STATIONS:
                continue
            if all(max(pixels[i]) >= 20 for i in range(STATIONS)):  # full colour, not a tenth
                led = (end / 1000 - cue_us) / 1000
                break
        out.append((led, (at - cue_us) / 1000))
    return out


def save(folder, name, lines, races, rows):
    """Keep a run as bench/bench_cpu_model.py reads it (see SAVE in the module docstring)."""
    folder.mkdir(parents=True, exist_ok=True)
    setup = {"setup": {"game": "menu", "seed": "1", "players": STATIONS}}
    with open(folder / (name + ".sim.jsonl"), "w") as f:
        for d in [setup] + lines:
            f.write(json.dumps(d, separators=(",", ":")) + "\n")
    meta = {"races": [{"kind": r["kind"], "presses": [list(p) for p in r["presses"]]}
                      for r in races]}
    (folder / (name + ".meta.json")).write_text(json.dumps(meta, indent=1) + "\n")
    with open(folder / (name + ".chip.jsonl"), "w") as f:
        for r in rows:
            if "line" in r:
                rec = {"at_us": r["at_us"], "line": r["line"]}
                f.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")


def deployed_run(emu, uf2, timeline_text, play_args, extra=None):
    """The firmware as `make flash` builds it for an RP2040 (PACK=1: with refbox.pack), deployed
    once to rp2emu (`board_run.ts --save-flash`), then booted from that image (`--load-flash`)
    to play `timeline_text` (JSON lines) with `play_args` (more board_run.ts options). `extra`:
    {name: bytes} of more files to put on the board's root with it (a journal). Returns
    (the finished play's CompletedProcess, None), or (None, what failed, with its stderr)."""
    from tablebuzz.link import flash

    run_env = dict(os.environ, UF2=str(uf2))
    with tempfile.TemporaryDirectory() as tmp:
        build = Path(tmp) / "mpy"
        flash.build(out=build, arch=flash.PICO_ARCH, pack=PACK, frozen=FROZEN)
        if MHZ is not None:
            at_clock(build, MHZ)
        for name, data in (extra or {}).items():
            (build / name).write_bytes(data)
        image = Path(tmp) / "flash.img"
        empty = Path(tmp) / "empty.jsonl"
        empty.write_text("")
        tl = Path(tmp) / "timeline.jsonl"
        tl.write_text(timeline_text)
        npx = ["npx", "tsx", "board_run.ts"]
        deploy = npx + ["--firmware", str(build), "--timeline", str(empty), *DEPLOY_EXT]
        deploy += ["--save-flash", str(image), "--allow-silent", "--quiet"]
        proc = subprocess.run(deploy, cwd=emu, env=run_env, capture_output=True, text=True)
        if proc.returncode != 0:
            return None, "deploy failed:\n" + proc.stderr[-3000:]
        play = npx + ["--load-flash", str(image), "--timeline", str(tl), *play_args]
        proc = subprocess.run(play, cwd=emu, env=run_env, capture_output=True, text=True)
        if proc.returncode != 0:
            return None, "emulated run failed:\n" + proc.stderr[-3000:]
    return proc, None


def _spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    return "%6.2f %6.2f %6.2f" % (min(values), statistics.median(values), max(values))


def main():
    env = _environment()
    if isinstance(env, str):
        print(
            "bench_chip_latency: the emulated RP2040 is not available: %s; nothing measured" % env
        )
        return 0
    emu, uf2 = env
    from tablebuzz.link import flash

    native = os.environ.get("NATIVE")
    if native is not None:
        names = tuple(n for n in native.split(",") if n and n != "none")
        unknown = [n for n in names if not (REPO / "firmware" / n).is_file()]
        if unknown:
            print("bench_chip_latency: NATIVE names no firmware module: %s" % ", ".join(unknown))
            return 2
        flash.NATIVE = names

    races_per_kind = int(os.environ.get("RACES", "3"))
    chosen = os.environ.get("KINDS")
    kinds = tuple(k.strip() for k in chosen.split(",")) if chosen else KINDS
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        print("bench_chip_latency: no race kind %s (kinds: %s)" % (unknown, ", ".join(KINDS)))
        return 2
    lines, races = timeline(races_per_kind, kinds=kinds)
    text = "".join(json.dumps(d, separators=(",", ":")) + "\n" for d in lines)
    play = ["--ms", "300", "--watch-pins", str(PIXEL_GPIO), "--quiet", "--pins", PLAYER_GPIOS]
    proc, failed = deployed_run(emu, uf2, text, play)
    if failed:
        print(failed)
        return 1
    rows = [json.loads(text) for text in proc.stdout.splitlines() if text.strip()]
    if os.environ.get("SAVE"):
        name = os.environ.get("SAVE_NAME", "latency_a")
        save(Path(os.environ["SAVE"]), name, lines, races, rows)
    results = measure(rows, races)
    summary = proc.stderr.strip().splitlines()[-1:] or [""]
    # the board's clock from its `hello`: the capture samples every 7 cycles (56 ns at 125 MHz,
    # 35 ns at 200 MHz); the harness times it right only with bench/rp2emu-clock.patch
    hello = [r["json"] for r in rows
             if isinstance(r.get("json"), dict) and r["json"].get("ev") == "hello"]
    sample = hello[0].get("sample_ns") if hello else None
    clock = "%d MHz" % (7000 // sample) if sample else "clock unknown"
    print("First press -> winner's LED / -> race line on the emulated RP2040 (rp2emu, MicroPython")
    print("v1.28.0 RPI_PICO, .mpy deploy, %s), ms: min median max" % clock)
    print("  native modules: %s" % (", ".join(flash.NATIVE) or "none (bytecode only)"))
    print("  %-14s %5s  %-22s %-22s %s" % ("race", "races", "-> LED", "-> race line", "winner"))
    for kind in kinds + ("all",):
        sub = [r for r in results if kind == "all" or r[0] == kind]
        wrong = sum(1 for r in sub if not r[3])
        print(
            "  %-14s %5d  %-22s %-22s %s"
            % (
                kind,
                len(sub),
                _spread([r[1] for r in sub]),
                _spread([r[2] for r in sub]),
                "ok" if not wrong else "%d wrong or missing" % wrong,
            )
        )
    cues = cue_figures(rows)
    print("  %-14s %5d  %-22s %-22s" % ("arm: cue ->", len(cues), _spread([c[0] for c in cues]),
                                         _spread([c[1] for c in cues])))
    print("  (arm: from the cue, the `armed` line's t_us, to the LEDs in full colour / to the"
          " `armed` line)")
    if os.environ.get("VERBOSE"):
        for i, (kind, led, line, ok) in enumerate(results):
            print("  race %2d  %-14s LED %s  race line %s  %s" % (i, kind, led, line, ok))
        for i, (led, line) in enumerate(cues):
            print("  arm  %2d  cue -> LEDs %s  -> armed line %.2f" % (i, led, line))
    print("  " + summary[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
