// tablebuzz show: Difference on the pages (its module on the host: views/games/difference.py):
// `board(g)`, its part of the scoreboard, and `desk(g)` (where it has any), its inputs on the
// desk: each drawn from the board's view, sending only commands the board checks.
"use strict";

TB.games.difference = (() => {
  const el = TB.el;

  function board(g) {
    const places = Object.entries(g.view.places).sort((a, b) => a[1] - b[1]);
    return [el("h2", {}, "cards left"),
      el("div", { style: "font-size:var(--mid)" }, g.scores.map((n, i) =>
        el("span", { style: "margin-right:1em" }, TB.who(g, i + 1), " " + n))),
      places.length ? el("div", {}, "places: ", places.map(([p, n]) =>
        el("span", { style: "margin-right:1em" }, ordinal(n) + " ", TB.who(g, Number(p))))) : null];
  }

  return { board };
})();
