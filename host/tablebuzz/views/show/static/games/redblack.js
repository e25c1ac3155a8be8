// tablebuzz show: Red or Black on the pages (its module on the host: views/games/redblack.py):
// `board(g)`, its part of the scoreboard, and `desk(g)` (where it has any), its inputs on the
// desk: each drawn from the board's view, sending only commands the board checks.
"use strict";

TB.games.redblack = (() => {
  const el = TB.el;

  function board(g) {
    const v = g.view;
    const rows = [];
    for (let p = 1; p <= g.players; p++) {
      rows.push(el("tr", {}, el("td", { style: "text-align:left" }, TB.who(g, p)),
        el("td", {}, el("span", { class: "cards" }, v.hands[p - 1].map((c) => TB.card(c)))),
        el("td", {}, String(v.given[p - 1])), el("td", {}, String(v.received[p - 1])),
        el("td", {}, el("b", {}, String(g.scores[p - 1])))));  // the board's score: given − taken
    }
    const parts = [el("h2", {}, "Red or Black")];
    const ask = v.asking;
    if (v.handing_out) {
      const h = v.handing_out;
      parts.push(el("div", { style: "font-size:var(--mid)" }, TB.who(g, h.player), " hands out " + h.penalties +
        " (" + h.left + " left)"));
    } else if (ask && !v.lines) {
      const q = { red_black: "red or black?", higher_lower: "higher or lower?", between_outside: "between or outside?", suit: "which suit?" }[ask.question] || ask.question;
      parts.push(el("div", { style: "font-size:var(--mid)" }, TB.who(g, ask.player), " · round " + ask.round + ": " + q +
        (v.suit ? "  [" + { S: "♠", H: "♥", D: "♦", C: "♣" }[v.suit] + "]" : "")));
    }
    parts.push(el("table", { class: "grid", id: "rb-table" },
      el("tr", {}, el("th", {}, "player"), el("th", {}, "cards"), el("th", {}, "given"), el("th", {}, "taken"), el("th", {}, "±")),
      rows));
    if (v.lines) {
      const give = v.give_line;  // the board's (its `lines` event)
      for (const which of ["top", "bottom"]) {
        parts.push(el("div", { class: "row", style: "margin-top:0.3em" },
          el("span", { class: "line-label" }, which === give ? "give" : "take"),
          el("span", { class: "cards" }, v.lines[which].map((c) => TB.card(c)))));
      }
    }
    return parts;
  }

  function desk(g) {
    const v = g.view;
    const q = v.asking ? v.asking.question : null;
    const answers = {
      red_black: [["red", "Red"], ["black", "Black"]],
      higher_lower: [["higher", "Higher"], ["lower", "Lower"]],
      between_outside: [["between", "Between"], ["outside", "Outside"]],
      suit: [["spades", "♠ Spades"], ["hearts", "♥ Hearts"], ["diamonds", "♦ Diamonds"], ["clubs", "♣ Clubs"]],
    };
    const parts = [el("h2", {}, "Red or Black")];
    if (q && !v.handing_out && !v.lines) {
      parts.push(el("div", { class: "row" }, el("span", {}, TB.whoText(g, v.asking.player) + " answers: "),
        (answers[q] || []).map(([a, label]) => button(label, () => act(a, { player: v.asking.player }, a), "big", "rb-" + a))));
    }
    if (v.handing_out) {
      parts.push(el("div", { class: "row" }, el("span", {}, TB.whoText(g, v.handing_out.player) + " gives (" + v.handing_out.left + " left) to "),
        playerSelect("rb-to", g, v.handing_out.player === 1 ? 2 : 1), button("Give number", () => act("give", { player: Number(document.getElementById("rb-to").value), value: Math.max(1, D.pad) }, "give"), "go", "rb-give"),
        button("Take back", () => act("take_back")), button("Confirm", () => act("confirm"), "go", "rb-confirm")));
    }
    // only where the board takes it (its phase `lines`), never while a giver hands out
    if (v.lines && g.phase === "lines") parts.push(el("div", { class: "row" }, button("Turn the next column", () => act("column"), "big go", "rb-column")));
    return parts;
  }

  return { board, desk };
})();
