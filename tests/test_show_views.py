"""A room that reads at a glance (issue 22, "Deliver" 5 and "Done when"): an 8-player NAQT match
(4 v 4, 20 tossups with powers, negs and bonuses, one power cut) played from the desk in Chromium
against `tablebuzz show --sim --packet` on a fast simulated clock (--speed 10: the board's own
3 s, 2 s and 5 s timers run ten times faster, every rule unchanged), then exported as QBJ that
validates and as CSV with the teams. On the way each view is checked and photographed at
1920x1080 and 390x844: the scoreboard, the standings, time's up, the desk with its race panel and
the values its buttons send, and every card game's phases in the board's words.

The screenshots go to $TABLEBUZZ_SHOTS (default: tablebuzz-shots in the system's temp folder).
"""

import csv
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema
from tablebuzz import packet as packet_module
from tablebuzz import records
from tablebuzz.paths import REPO
from test_show import ARTIFACTS, browser, open_page, show, wait_text  # noqa: F401 - fixtures

SHOTS = Path(os.environ.get("TABLEBUZZ_SHOTS") or Path(tempfile.gettempdir()) / "tablebuzz-shots")
PACKET = REPO / "examples" / "packet_sample.json"
SCHEMA = json.loads((REPO / "tests" / "qbj" / "qbj.schema.json").read_text())
TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}

# The desk's driver, run in the desk page: each step clicks what a host clicks (the buttons the
# board's prompts put there, the simulator's buzzers, a word of the tossup) and waits until the
# board's answer is on the desk, so the match goes as fast as the board answers.
DRIVER = """
window.tbPlay = async function (plan, first) {
  const seen = [];
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (what, f, ms) => {
    const t0 = performance.now();
    for (;;) {
      let ok = false;
      try { ok = f(); } catch (e) { ok = false; }
      if (ok) return;
      if (performance.now() - t0 > (ms || 8000)) {
        throw new Error("waited for " + what + "; phase " + (D.game && D.game.phase) + ", prompts " +
          JSON.stringify(D.view && D.view.prompts) + ", log " + JSON.stringify(D.view && D.view.log.slice(-3)));
      }
      await sleep(2);
    }
  };
  const offered = (id) => { const b = document.getElementById(id); return b && !b.classList.contains("hidden") && !b.disabled; };
  const click = async (id) => { await until("#" + id, () => offered(id)); document.getElementById(id).click(); };
  const prompt = (c) => (D.view.prompts || []).find((p) => p[0] === c);
  const tossup = () => D.view.desk_only.packet.tossup;
  const buzz = async (p, word, rival) => {
    await click("buzz-" + p);
    if (rival) document.getElementById("buzz-" + rival).click();  // a race: a margin to show
    await until("P" + p + " on the floor", () => D.game.phase === "answering" && D.game.answering === p && prompt("YES"));
    seen.push("timer: " + document.getElementById("desktimers").textContent);
    await click("word-" + word);
    await until("the mark", () => D.view.desk_only.packet.mark && D.view.desk_only.packet.mark.word_index === word &&
      D.view.desk_only.packet.mark.player === p);
  };
  for (let i = 0; i < plan.length; i++) {
    const step = plan[i];
    const n = first + i;
    await until("tossup " + n + " ready", () => D.game.phase === "ready" && prompt("ARM") && tossup().number === n);
    await click("btn-arm");
    await until("the race of " + n, () => D.game.phase === "racing");
    if (step.kind === "dead") {
      await click("qz-read");  // read to the end: the 3 s to buzz run, nobody buzzes
      await until("dead " + n, () => D.game.phase === "ready" && tossup().number === n + 1, 15000);
      continue;
    }
    if (step.neg) {
      await buzz(step.neg, step.negWord);
      seen.push(document.getElementById("btn-wrong").textContent);
      await click("btn-wrong");
      await until("the race reopens", () => D.game.phase === "racing");
    }
    await buzz(step.player, step.word, step.rival);
    seen.push(document.getElementById("btn-correct").textContent);
    seen.push(document.getElementById("desk-margin").textContent);
    await click("btn-correct");
    await until("the bonus of " + n, () => D.game.phase === "bonus" && prompt("YES") && D.view.desk_only.packet.bonus);
    for (let k = 0; k < step.parts.length; k++) {
      if (step.cut === k) {  // the power goes off in the bonus, and comes back
        await click("btn-power-off");
        await sleep(30);
        await click("btn-power-on");
        await until("the board back", () => D.game.resumed && D.game.phase === "bonus" && prompt("YES"), 10000);
      }
      const before = D.view.doing;
      await click(step.parts[k] ? "btn-correct" : "btn-wrong");
      await until("part " + (k + 1), () => D.view.doing !== before || D.game.phase !== "bonus");
    }
  }
  return seen;
};
"""


def naqt_plan(pkt):
    """20 tossups: who buzzes, on which word (before the power mark: a power), the negs, the
    bonus parts, the dead tossup and the tossup whose bonus the power cut hits; and the team
    scores they make under NAQT (power 15, tossup 10, interrupt -5, bonus parts 10)."""
    plan = []
    score = {1: 0, 2: 0}
    team = {p: 1 if p <= 4 else 2 for p in range(1, 9)}
    kinds = ["power", "ten", "neg", "power", "dead", "ten", "power", "neg", "ten", "ten",
             "power", "ten", "neg", "ten", "power", "ten", "ten", "neg", "ten", "power"]
    players = [1, 5, 6, 2, 0, 7, 3, 1, 8, 4, 2, 6, 5, 3, 4, 5, 1, 7, 2, 3]
    for i, (kind, p) in enumerate(zip(kinds, players, strict=True)):
        n = i + 1
        if kind == "dead":
            plan.append({"kind": "dead"})
            continue
        mark = packet_module.tossup_view(pkt, n)["power_index"]
        step = {"kind": kind, "player": p, "word": mark - 2 if kind == "power" else mark + 2,
                "parts": [(i + k) % 3 != 2 for k in range(3)]}
        if kind == "neg":  # the other team's player buzzes first, early, and is wrong
            step["neg"] = p + 4 if p <= 4 else p - 4
            step["negWord"] = 3
            score[team[step["neg"]]] -= 5
        else:  # a player of the other team buzzes just after: a race, with its margin
            step["rival"] = p + 4 if p <= 4 else p - 4
        if n == 6:
            step["cut"] = 1  # the power goes off before the bonus's second part
        score[team[p]] += (15 if kind == "power" else 10) + 10 * sum(step["parts"])
        plan.append(step)
    return plan, score


def shoot(page, name, size):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size(size)
    path = SHOTS / ("%s-%dx%d.png" % (name, size["width"], size["height"]))
    page.screenshot(path=str(path))
    return path


def fits(page, selector):
    """True if `selector` is within the page's width, nothing of it cut off or scrolled."""
    return page.evaluate(
        "(sel) => { const n = document.querySelector(sel); const r = n.getBoundingClientRect();"
        " return r.left >= 0 && r.right <= document.documentElement.clientWidth + 0.5 &&"
        " n.scrollWidth <= n.clientWidth + 1 &&"
        " document.documentElement.scrollWidth <= document.documentElement.clientWidth; }",
        selector)


def above_the_fold(page, selector):
    return page.evaluate("(sel) => { const r = document.querySelector(sel).getBoundingClientRect();"
                         " return r.height > 0 && r.bottom <= window.innerHeight; }", selector)


def test_an_naqt_match_plays_from_the_desk_with_a_packet_and_exports(browser, show, tmp_path):  # noqa: F811
    pkt = packet_module.load(PACKET)
    plan, score = naqt_plan(pkt)
    options = json.dumps({"format": "naqt", "teams": [[1, 2, 3, 4], [5, 6, 7, 8]]})
    folder = tmp_path / "records"
    server = show("--sim", "--game", "quiz", "--players", "8", "--options", options, "--seed",
                  "22", "--flash", "--speed", "10", "--packet", str(PACKET), records=folder)
    desk = browser.new_page()
    board = browser.new_page()
    phone = browser.new_page()
    phone.set_viewport_size(PHONE)
    try:
        open_page(desk, server.url + "/desk")
        open_page(board, server.url + "/")
        open_page(phone, server.url + "/")
        desk.add_script_tag(content=DRIVER)
        wait_text(desk, "#btn-arm", ["ARM arm buzzers"])  # the board's own prompt
        wait_text(board, "#doing", ["question 1 next: ARM opens the buzzers"])
        shoot(board, "scoreboard-naqt-ready", TV)
        # tossup 1 by hand, to look at each view on the way
        desk.click("#btn-arm")
        desk.click("#buzz-1")
        wait_text(desk, "#btn-correct", ["YES right +10"])
        wait_text(desk, "#btn-wrong", ["NO wrong −5"])  # an early buzz: the interrupt's -5
        desk.click("#word-%d" % plan[0]["word"])
        wait_text(desk, "#btn-correct", ["+15 (power)"])  # the value it sends
        wait_text(desk, "#desk-winner", ["P1"])
        wait_text(desk, "#desk-next", ["next in line"])
        wait_text(board, "#doing", ["question 1: P1 answers"])
        # NAQT's 2 s to answer run out (0.2 s here): time's up, and the table still judges
        wait_text(board, "#timeup", ["P1 ran out of time to answer"])
        board.locator("#timeup").dispatch_event("click")  # a tap closes it
        phone.locator("#timeup").dispatch_event("click")
        for size in (TV, PHONE):
            shoot(desk, "desk-naqt-answering", size)
        assert above_the_fold(phone, "#race-winner") and above_the_fold(phone, "#doing")
        shoot(phone, "scoreboard-naqt-answering", PHONE)
        shoot(board, "scoreboard-naqt-answering", TV)
        desk.click("#btn-correct")
        wait_text(desk, "#btn-correct", ["YES part right"])
        wait_text(board, "#doing", ["bonus of question 1: team 1, part 1 of 3"])
        for part in plan[0]["parts"]:
            before = desk.evaluate("() => D.view.doing")
            desk.click("#btn-correct" if part else "#btn-wrong")
            desk.wait_for_function("(b) => D.view.doing !== b || D.game.phase !== 'bonus'",
                                   arg=before)
        # the standings on the TV, from the desk
        desk.click("#btn-standings")
        wait_text(board, "#standings", ["team 1", "35"])
        for page, size in ((board, TV), (phone, PHONE)):
            assert page.locator("#standings").is_visible()
            shoot(page, "standings", size)
        assert fits(phone, "#standingsrows")
        desk.click("#btn-standings")
        board.wait_for_function("() => document.getElementById('standings').classList"
                                ".contains('hidden')")
        seen = desk.evaluate("([plan, first]) => tbPlay(plan, first)", [plan[1:4], 2])
        assert "✔ YES right +15 (power)" in seen and "✘ NO wrong −5" in seen
        assert any(s.startswith("by ") for s in seen)  # the margin on the desk
        assert any(s.startswith("timer: P") and "to answer: " in s for s in seen)  # time left
        # tossup 5 is dead: time's up on the scoreboard
        desk.evaluate("([plan, first]) => { window.tbDead = tbPlay(plan, first); }", [plan[4:5], 5])
        wait_text(board, "#timeup", ["TIME", "question 5: nobody buzzed in time"], timeout=15000)
        for page, size in ((board, TV), (phone, PHONE)):
            assert page.locator("#timeup").is_visible()
            shoot(page, "time-up", size)
        desk.evaluate("() => window.tbDead")
        desk.evaluate("([plan, first]) => tbPlay(plan, first)", [plan[5:], 6])
        wait_text(board, "#over", ["quiz: game over"], timeout=20000)
        for page, size in ((board, TV), (phone, PHONE)):
            shoot(page, "scoreboard-naqt-over", size)
        for size in (TV, PHONE):
            shoot(desk, "desk-naqt-over", size)
        room = board.locator("body").inner_text()
        assert "µs at" not in room and "t_us" not in room  # the room's log: no raw stamps
        for word in ("None", "undefined", "NaN"):
            assert word not in room
    finally:
        for page in (desk, board, phone):
            page.close()
    server.stop()  # the records are closed
    (record,) = sorted(folder.rglob("*.jsonl"))
    events = [json.loads(json.loads(line)["line"]) for line in record.read_text().splitlines()
              if '"line"' in line]
    assert [e["ev"] for e in events].count("resume") == 1  # the power cut, resumed in the bonus
    (ranking,) = [e for e in events if e["ev"] == "team_ranking"]
    assert {r["team"]: r["score"] for r in ranking["ranking"]} == score
    judged = [e for e in events if e["ev"] == "judge"]
    assert len([j for j in judged if j["power"]]) == 6
    assert len([j for j in judged if j["interrupt"]]) == 4
    out = tmp_path / "night.qbj"
    done = subprocess.run([sys.executable, "-m", "tablebuzz.cli", "export", "--format", "qbj",
                           "--records", str(folder), "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    (match,) = doc["objects"][0]["phases"][0]["rounds"][0]["matches"]
    assert match["tossups_read"] == 20
    positions = [b["buzz_position"]["word_index"] for q in match["match_questions"]
                 for b in q["buzzes"] if b["result"]["value"] > 0]
    assert positions == [s["word"] for s in plan if s["kind"] != "dead"]
    table = io.StringIO()
    records.night_csv(folder, table)
    (row,) = list(csv.DictReader(io.StringIO(table.getvalue())))
    assert row["teams"] == "team 1: P1, P2, P3, P4; team 2: P5, P6, P7, P8"
    assert row["team_scores"] == "%d %d" % (score[1], score[2])
