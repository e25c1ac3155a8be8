"""Press-to-screen latency of the scoreboard: from a simulated buzzer press to the scoreboard
showing the winner in a real browser.

Runs `tablebuzz show --sim` (the real server on 127.0.0.1), opens the scoreboard and the desk in
headless Chromium, and for each trial: arms (desk), presses P2 from the desk page, and measures
in the page, on the browser's own clock, the time from the press message leaving the desk to the
winner appearing in the scoreboard's DOM (a MutationObserver). Both pages are in one browser, so
one clock measures both ends.

What the figure holds: the WebSocket to the host, the simulator's 20 ms input lag (the world runs
behind the wall clock so a press keeps its exact stamp, see tablebuzz.link.connection), the
firmware's debounce and 2 ms settle window, the host's fold and broadcast, and the page's redraw.
With a real board the 20 ms lag is replaced by USB and the board's loop.

Prints the figures; the target is <= 100 ms on this machine. Needs Debian's chromium
(make browser).
"""

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRIALS = 25
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TABLEBUZZ = Path(sys.executable).parent / "tablebuzz"

MEASURE = """async ([boardUrl]) => {
  const board = window.__board;
  const doc = board.document;
  const t0 = performance.now();
  const seen = new Promise((resolve) => {
    const check = () => {
      const w = doc.getElementById("race-winner");
      if (w && w.textContent.includes("P2")) { obs.disconnect(); resolve(performance.now()); }
    };
    const obs = new board.MutationObserver(check);
    obs.observe(doc.body, { childList: true, subtree: true, characterData: true });
  });
  link.send({ type: "press", player: 2 });
  const t1 = await seen;
  return t1 - t0;
}"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    if not os.path.exists(CHROMIUM):
        print("bench_scoreboard: no chromium at %s (make browser installs it)" % CHROMIUM)
        return 1
    from playwright.sync_api import sync_playwright

    port = free_port()
    url = "http://127.0.0.1:%d" % port
    server = subprocess.Popen(
        [str(TABLEBUZZ), "show", "--sim", "--game", "quiz", "--players", "2", "--seed", "1",
         "--http", "127.0.0.1:%d" % port, "--no-records"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        key = ""  # the desk's key, from the address the banner prints for the host
        for line in server.stderr:
            if line.startswith("tablebuzz: desk "):
                key = line.split()[2].partition("#key=")[2]
                break
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    print("bench_scoreboard: the server did not start")
                    return 1
                time.sleep(0.1)
        with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
            context = p.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=FLAGS, headless=True,
                viewport={"width": 1920, "height": 1080})
            desk = context.new_page()
            desk.goto(url + "/desk#key=" + key)
            desk.wait_for_function("() => window.__tbLastMessageAt")
            # the scoreboard in a window the desk opened: same browser, same clock
            desk.evaluate("(u) => { window.__board = window.open(u, 'board'); }", url + "/")
            desk.wait_for_function("() => window.__board && window.__board.__tbLastMessageAt")
            samples = []
            for _ in range(TRIALS):
                desk.evaluate("() => link.send({type: 'cmd', cmd: {cmd: 'arm'}})")
                desk.wait_for_function(
                    "() => { const n = window.__board.document.getElementById('racebody');"
                    " return n && n.textContent.includes('BUZZ'); }")
                samples.append(desk.evaluate(MEASURE, [url]))
                desk.evaluate("() => link.send({type: 'cmd', cmd: {cmd: 'judge', correct: true}})")
                time.sleep(0.3)  # the press is released (120 ms) before the next race
            context.close()
    finally:
        server.terminate()
        server.wait(timeout=15)
    samples.sort()
    p95 = samples[int(round(0.95 * (len(samples) - 1)))]
    print("scoreboard press-to-screen latency (simulated press -> winner in the browser's DOM),"
          " %d trials:" % len(samples))
    print("  median %.1f ms   p95 %.1f ms   min %.1f ms   max %.1f ms   (target <= 100 ms)" % (
        statistics.median(samples), p95, samples[0], samples[-1]))
    print("  of which the simulator's input lag: 20.0 ms (tablebuzz.link.connection.LAG_S)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
