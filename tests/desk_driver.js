// The desk's driver for tests/test_show_views.py, run in the desk page: each step clicks what a
// host clicks (the buttons the board's prompts put there, the simulator's buzzers, a word of
// the tossup) and waits until the board's answer is on the desk, so a match goes as fast as
// the board answers. tbPlay(plan, first) plays naqt_plan's steps from tossup `first`; it
// resolves to what the desk's buttons and race panel said on the way.
"use strict";

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
          JSON.stringify(D.view && D.view.prompts) + ", log " + JSON.stringify(D.view && D.view.log.slice(-3)) +
          ", message " + JSON.stringify((document.getElementById("message") || {}).textContent));
      }
      await sleep(2);
    }
  };
  const offered = (id) => { const b = document.getElementById(id); return b && !b.classList.contains("hidden") && !b.disabled; };
  // a host's pace: at most 18 clicks a second, under the show's 20 messages a second a page
  // (a faster robot is told "busy: try again", docs/security.md)
  let last = 0;
  const paced = async () => { const wait = last + 55 - performance.now(); if (wait > 0) await sleep(wait); last = performance.now(); };
  const click = async (id) => { await until("#" + id, () => offered(id)); await paced(); document.getElementById(id).click(); };
  const prompt = (c) => (D.view.prompts || []).find((p) => p[0] === c);
  const tossup = () => D.view.desk_only.packet.tossup;
  const buzz = async (p, word, rival) => {
    await click("buzz-" + p);
    if (rival) {  // a race with a margin to show: the rival buzzes once the first buzzer has the
      // floor (two clicks in a row can reach the simulator in one step of its clock: one
      // stamp, a tie the draw may give the rival); a press after the decision gives the margin
      await until("P" + p + " first", () => D.game.answering === p);
      await paced();
      document.getElementById("buzz-" + rival).click();
    }
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
    if (step.cut === undefined && !step.byParts) {  // the whole bonus in one command
      for (let k = 0; k < step.parts.length; k++) if (step.parts[k]) await click("bonus-part-" + (k + 1));
      seen.push(document.getElementById("bonus-score").textContent);
      await click("bonus-score");
      await until("the bonus of " + n + " scored", () => D.game.phase !== "bonus");
      continue;
    }
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
