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
import statistics
import sys
import tempfile
import time

from bench_show_flood import start as start_show  # the same server, started the same way

TRIALS = 25
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

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


def main():
    if not os.path.exists(CHROMIUM):
        print("bench_scoreboard: no chromium at %s (make browser installs it)" % CHROMIUM)
        return 1
    from playwright.sync_api import sync_playwright

    server, port, key = start_show("bench_scoreboard")  # key: the desk's, from the banner
    url = "http://127.0.0.1:%d" % port
    try:
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
