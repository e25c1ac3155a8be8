"""The chip's budget (issue 38) on the emulated RP2040, for both builds: stock MicroPython
v1.28.0 with the firmware deployed as `make flash` does (mpremote's copy of refbox/*.mpy), and
the tablebuzz image (`make firmware`: refbox frozen in, main.py alone on the filesystem).

Per build: one deploy (`--save-flash`), then one run from that image (t0 = power-on) that starts
every game for 6 players RUNS times (`new_game` -> `game`, the quiz last), plays RUNS questions
(`arm` -> the cue, `arm` -> `armed`, `judge` -> `score`, the save included), then cuts the power
and restores it
RUNS times (power-on -> `hello`, -> `resume`), and at the end reads the heap free with the quiz
resumed (`--heap`: a collection at the REPL after Ctrl-C, the App kept there by
refbox.boot.running), and with PATHS heap each game's. A long game's resume:
bench_long_journal_chip.py. Prints min / median / max (ms) per path and build, beside
the issue's targets. Times are from a command's arrival on the wire (or the power-on) to the line
reaching the host: they include the loop's reading of the command and the journal's save. The
cue is the stations lit for the race: the first edge on the NeoPixel pin (refbox.pinmap
NEOPIXEL_GPIO, `--watch-pins`) after the `arm` line, which comes before the race's save and
collection (refbox.app show_cue); the 200 ms before each `arm` must show no edge on that pin, or
the row says so (a frame written for another reason would be taken for the cue).

  RP2EMU=DIR  rp2emu with `npm install` done (default: ../shared/rp2emu)
  UF2=FILE    stock MicroPython v1.28.0 for RPI_PICO (default: $RP2EMU/RPI_PICO.uf2)
  FROZEN_UF2=FILE  the tablebuzz image (make firmware); without it, the stock build only
  RUNS=N      runs of each path (default 5)
  BUILDS=LIST stock,frozen (default both)
  CLOCKS=LIST the system clocks to run at, MHz: 200,125 (default both; main.py's
              `set_up(machine, time)` is given the clock: refbox.sysclock)
  PATHS=LIST  new_game,judge,arm,power,heap (default all): the parts of the timeline to play;
              heap: one more short run per game from the same image (power-on, `new_game` for
              6 players, then the heap read as below), for the heap free in every game
  EACH=1      also print every run's figure, in the order played (where a maximum fell)

The harness must follow the firmware's clock (bench/rp2emu-clock.patch applied to RP2EMU's
copy): without it every instruction lasts 8 ns whatever the PLL says, and a 200 MHz row is not
measured (it says so).

Without the emulator it says so and exits 0. rp2040js makes flash calls instant and its timing
is a model (bench/README.md): compare like with like.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "host"))
sys.path.insert(0, str(REPO / "bench"))

from bench_chip_latency import DEPLOY_EXT, _environment  # noqa: E402

sys.path.insert(0, str(REPO / "firmware"))
from refbox.pinmap import NEOPIXEL_GPIO  # noqa: E402

TARGETS = {"hello": 250, "resume": 400, "game": 50, "score": 20, "armed": 20, "cue": 20}
RUNS = int(os.environ.get("RUNS") or 5)


# new_game -> game for every game, the quiz last (the questions after are a quiz's)
GAMES = ("difference", "deglingo", "redblack", "diddly", "evidence", "quiz")


CLOCKS = [int(c) for c in (os.environ.get("CLOCKS") or "200,125").split(",")]
PARTS = (os.environ.get("PATHS") or "new_game,judge,arm,power,heap").split(",")
EACH = os.environ.get("EACH") == "1"  # also every run's figure, in the order played
_SET_UP = "set_up(machine, time)"  # main.py's call (refbox.sysclock)


def follows_clock(emu):
    """True when the harness in `emu` times instructions by the firmware's clk_sys."""
    return "nsPerCycle" in (Path(emu) / "pico.ts").read_text()


def at_clock(build, mhz):
    """Make the deployed main.py in `build` set the clock to `mhz` MHz."""
    main = build / "main.py"
    text = main.read_text()
    if _SET_UP not in text:
        raise SystemExit("main.py has no %r to give the clock to" % _SET_UP)
    main.write_text(text.replace(_SET_UP, "set_up(machine, time, %d)" % mhz, 1))


def timeline(runs, parts=PARTS):
    """(lines, marks): the timeline and [(path, at_us of its cause)] to measure; a path is
    "game:NAME" for a new_game of game NAME. `parts`: the new_games (a quiz is started anyway
    for the questions), the questions (judge, arm), the power cuts."""
    lines, marks = [], []
    t = 2_500_000
    if "new_game" not in parts:
        lines.append({"at_us": t, "send": {"cmd": "new_game", "game": "quiz", "players": 6}})
        t += 500_000
    for _ in range(runs if "new_game" in parts else 0):
        for game in GAMES:
            lines.append({"at_us": t, "send": {"cmd": "new_game", "game": game, "players": 6}})
            marks.append(("game:" + game, t))
            t += 500_000
    for i in range(runs if "judge" in parts or "arm" in parts else 0):
        lines.append({"at_us": t, "send": {"cmd": "arm"}})
        marks.append(("cue", t))
        marks.append(("armed", t))
        lines.append({"at_us": t + 200_000, "press": 1 + i % 6})
        lines.append({"at_us": t + 260_000, "release": 1 + i % 6})
        lines.append({"at_us": t + 400_000, "send": {"cmd": "judge", "correct": True}})
        marks.append(("score", t + 400_000))
        t += 700_000
    for _ in range(runs if "power" in parts else 0):
        lines.append({"at_us": t, "power": "off"})
        lines.append({"at_us": t + 100_000, "power": "on"})
        marks.append(("hello", t + 100_000))
        marks.append(("resume", t + 100_000))
        t += 2_500_000
    return lines, marks


def game_heaps(npx, image, emu, env, tmp):
    """{game: heap free (bytes)} with each game set up for 6 players on the image `image` (a
    fresh power-on, no journal), read at the REPL after Ctrl-C with the App kept
    (refbox.boot.running); a game whose run failed is left out."""
    heaps = {}
    for game in GAMES:
        tl = Path(tmp) / ("heap-%s.jsonl" % game)
        tl.write_text(json.dumps({"at_us": 2_500_000, "send": {"cmd": "new_game", "game": game,
                                                               "players": 6}}) + "\n")
        proc = subprocess.run(npx + ["--load-flash", str(image), "--timeline", str(tl), "--ms",
                                     "1000", "--heap", "--quiet"],
                              cwd=emu, env=env, capture_output=True, text=True)
        out = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        free = [o["heap"]["free"] for o in out if "heap" in o]
        if free:
            heaps[game] = free[-1]
    return heaps


def measure(emu, uf2, frozen, runs, mhz):
    """({path: [ms...]}, the heap free (bytes) at the end, the error events, {game: heap free
    with it set up} (PATHS heap)), or a reason it failed (str)."""
    from tablebuzz.link import flash

    lines, marks = timeline(runs)
    env = dict(os.environ, UF2=str(uf2))
    with tempfile.TemporaryDirectory() as tmp:
        build = Path(tmp) / "fw"
        flash.build(out=build, arch=flash.PICO_ARCH, frozen=frozen)
        at_clock(build, mhz)
        image, empty, tl = Path(tmp) / "flash.img", Path(tmp) / "e.jsonl", Path(tmp) / "t.jsonl"
        empty.write_text("")
        tl.write_text("".join(json.dumps(r) + "\n" for r in lines))
        npx = ["nice", "npx", "tsx", "board_run.ts"]
        proc = subprocess.run(npx + ["--firmware", str(build), "--timeline", str(empty),
                                     *DEPLOY_EXT, "--save-flash", str(image), "--allow-silent",
                                     "--quiet"], cwd=emu, env=env, capture_output=True, text=True)
        if proc.returncode:
            return "deploy failed: " + proc.stderr[-1500:]
        proc = subprocess.run(npx + ["--load-flash", str(image), "--timeline", str(tl), "--ms",
                                     "1500", "--heap", "--quiet", "--pins", "2,3,4,5,6,7,8,9",
                                     "--watch-pins", str(NEOPIXEL_GPIO)],
                              cwd=emu, env=env, capture_output=True, text=True)
        if proc.returncode:
            return "run failed: " + proc.stderr[-1500:]
        heaps = game_heaps(npx, image, emu, env, tmp) if "heap" in PARTS else {}
    out = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    found = {path: [] for path, _ in marks}
    errors = []
    edges = [o["at_us"] for o in out if o.get("pin") == NEOPIXEL_GPIO]
    for path, at in marks:
        kind, _, game = path.partition(":")
        if kind == "cue":
            after = [e for e in edges if e >= at]
            if any(at - 200_000 <= e < at for e in edges):
                errors.append({"ev": "bench", "detail": "a NeoPixel frame before the arm at %d us:"
                               " its cue is not measured" % at})
            elif after:
                found[path].append((after[0] - at) / 1000)
            continue
        for o in out:
            ev = o.get("json")
            if o["at_us"] < at or not isinstance(ev, dict) or ev.get("ev") != kind:
                continue
            if game and ev.get("game") != game:
                break  # (another game's line: this new_game was refused, not measured)
            found[path].append((o["at_us"] - at) / 1000)
            break
    heap = [o["heap"]["free"] for o in out if "heap" in o]
    errors += [o["json"] for o in out if isinstance(o.get("json"), dict)
               and o["json"].get("ev") == "error"]
    return found, (heap[-1] if heap else None), errors, heaps


def main():
    env = _environment()
    if isinstance(env, str):
        print("bench_budget_chip: the emulated RP2040 is not available: %s; nothing measured"
              % env)
        return 0
    emu, uf2 = env
    wanted = (os.environ.get("BUILDS") or "stock,frozen").split(",")
    builds = [("stock (make flash)", uf2, False)] if "stock" in wanted else []
    frozen = os.environ.get("FROZEN_UF2")
    if frozen and Path(frozen).is_file():
        if "frozen" in wanted:
            builds.append(("frozen (make firmware)", Path(frozen), True))
    else:
        print("(no FROZEN_UF2: the stock build only)")
    if not follows_clock(emu):
        print("(%s times every instruction at 125 MHz: bench/rp2emu-clock.patch is not applied;"
              " the 200 MHz rows are not measured)" % emu)
    clocks = [c for c in CLOCKS if c == 125 or follows_clock(emu)]
    print("%-30s %-16s %24s %8s" % ("build", "path", "ms min / median / max", "target"))
    for (build_name, image, is_frozen), mhz in [(b, c) for b in builds for c in clocks]:
        name = "%s %d MHz" % (build_name, mhz)
        result = measure(emu, image, is_frozen, RUNS, mhz)
        if isinstance(result, str):
            print("%-30s %s" % (name, result))
            continue
        found, heap, errors, heaps = result
        paths = ["hello", "resume"] + ["game:" + g for g in GAMES] + ["cue", "armed", "score"]
        for path in [p for p in paths if p in found]:
            ms = found[path]
            spread = ("%7.1f %7.1f %7.1f" % (min(ms), statistics.median(ms), max(ms))
                      if ms else "-")
            kind = path.split(":")[0]
            label = {"game": "new_game", "armed": "arm", "cue": "arm", "score": "judge"}.get(
                kind, "power")
            print("%-30s %-16s %24s %8s  (%d runs; %s -> %s)" % (
                name, path, spread, "<= %d" % TARGETS[kind], len(ms), label, kind))
            if EACH:
                print("%-30s %-16s %s" % ("", "  each run", " ".join("%.1f" % x for x in ms)))
        print("%-30s %-16s %24s %8s" % (name, "heap free", "%.1f KB" % (heap / 1024) if heap
                                       else "-", ">= 100 KB  (the quiz resumed)"))
        for game, free in heaps.items():
            print("%-30s %-16s %24s %8s" % (name, "heap:" + game, "%.1f KB" % (free / 1024),
                                           ">= 100 KB  (set up for 6 players)"))
        for e in errors:
            print("%-30s error: %s" % (name, json.dumps(e)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
