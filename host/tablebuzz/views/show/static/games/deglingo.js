// tablebuzz show: Déglingo on the pages (its module on the host: views/games/deglingo.py):
// `board(g)`, its part of the scoreboard, and `desk(g)` (where it has any), its inputs on the
// desk: each drawn from the board's view, sending only commands the board checks.
"use strict";

TB.games.deglingo = (() => {
  const el = TB.el;

  function board(g) {
    const v = g.view;
    const observers = [];
    for (let p = 1; p <= g.players; p++) if (p !== v.active) observers.push(p);
    const inGame = observers.filter((p) => !v.out.includes(p));
    return [el("h2", {}, "round " + v.round),
      el("div", { style: "font-size:var(--mid)" }, "active: ", TB.who(g, v.active)),
      el("div", {}, "observers: ", inGame.map((p) => [TB.who(g, p), " "]),
        v.out.length ? el("span", { class: "muted" }, " · out: ", v.out.map((p) => [TB.who(g, p), " "])) : ""),
      // the target the board plays (its `game` event: 2 players play to 12, rules fixed there)
      g.options.target !== undefined ? el("div", { class: "muted" }, "first to " + g.options.target + " points") : null,
      v.last_round ? el("div", { class: "muted" }, v.last_round.text) : null];
  }

  function desk(g) {
    const closed = g.phase === "eyes_closed";  // the board's phase: the call, then the race
    const racing = g.phase === "racing" || g.phase === "answering";
    return [el("h2", {}, "Déglingo"),
      g.players === 2 && closed ? el("div", { class: "row" }, button("Cards replaced = " + D.pad + " (1–3)", () => act("replaced", { value: D.pad }, "replaced"), "", "dg-replaced")) : null,
      el("div", { class: "row" }, closed ? button("Déglingo! (the call)", () => act("deglingo"), "go", "dg-call") : null,
        racing ? button(g.players === 2 ? "Stop" : "Give up", () => act(g.players === 2 ? "stop" : "give_up"), "no", "dg-stop") : null)];
  }

  return { board, desk };
})();
