// tablebuzz show: Diddly on the pages (its module on the host: views/games/diddly.py):
// `board(g)`, its part of the scoreboard, and `desk(g)` (where it has any), its inputs on the
// desk: each drawn from the board's view, sending only commands the board checks.
"use strict";

TB.games.diddly = (() => {
  const el = TB.el;

  function board(g) {
    const v = g.view;
    const head = [el("th", {}, "round")];
    for (let p = 1; p <= g.players; p++) {
      head.push(el("th", {}, TB.who(g, p), v.dealer === p ? " ★" : ""));
    }
    const rows = [el("tr", {}, head)];
    const rounds = v.rounds.length ? v.rounds[0].length : 0;  // the firmware's (describe.layout)
    for (let r = 1; r <= rounds; r++) {
      const cells = [el("td", {}, String(r))];
      for (let p = 1; p <= g.players; p++) {
        const value = v.rounds[p - 1][r - 1];
        const now = v.turn === p && v.round === r;
        cells.push(el("td", { class: now ? "now" : "" }, value === null ? (now ? "…" : "") : String(value)));
      }
      rows.push(el("tr", {}, cells));
    }
    rows.push(el("tr", { class: "total" }, el("td", {}, "total"), g.scores.map((s) => el("td", {}, String(s)))));
    return [el("h2", {}, "Diddly · round " + v.round + (g.wins ? " · " + g.wins : "") + " · ★ dealer"),
      el("table", { class: "grid", id: "diddly-grid" }, rows)];
  }

  function desk(g) {
    const v = g.view;
    return [el("h2", {}, "Diddly · round " + v.round),
      v.turn ? el("div", { class: "row" }, playerSelect("dd-player", g, v.turn),
        button("Score = " + D.pad, () => act("score", { player: Number(document.getElementById("dd-player").value), value: D.pad },
          "score " + D.pad), "go", "dd-score")) : null,
      v.turn ? el("div", { class: "row" }, el("input", { id: "dd-board", placeholder: "board: 7 7 DH 9 PEEK RECYCLE", size: 30 }),
        button("Score the board", () => act("board", { player: Number(document.getElementById("dd-player").value),
          values: document.getElementById("dd-board").value.split(/[\s,]+/).filter(Boolean) }, "board"))) : null,
      // every score is in (the board's `score` says nobody is to enter): YES ends the game
      !v.turn ? el("div", { class: "row" }, button("Finish (every score is in)", () => act("finish"), "", "dd-finish")) : null];
  }

  return { board, desk };
})();
