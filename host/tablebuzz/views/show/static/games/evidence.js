// tablebuzz show: Evidence on the pages (its module on the host: views/games/evidence.py):
// `board(g)`, its part of the scoreboard, and `desk(g)` (where it has any), its inputs on the
// desk: each drawn from the board's view, sending only commands the board checks.
"use strict";

TB.games.evidence = (() => {
  const el = TB.el;

  function board(g) {
    const v = g.view;
    const arrows = { up: "↑", right: "→", down: "↓", left: "←" };
    const words = { up: "top edge away from you", right: "top edge towards marker 10", down: "top edge towards you", left: "top edge towards marker 1" };
    const markers = v.markers.map((p, i) => el("div", {
      class: "marker" + (p ? " taken" : ""), style: p ? "background:" + g.colours[p - 1] : "",
      title: p ? TB.whoText(g, p) : "free"}, String(i + 1)));
    const parts = [el("h2", {}, (v.round ? "round " + v.round : "Evidence") + (v.playoff ? " · play-off" : "")),
      el("div", { class: "markers", id: "ev-markers" }, markers)];
    if (v.orientation) {
      parts.push(el("div", { class: "row" }, el("span", { class: "arrow" }, arrows[v.orientation] || "?"),
        el("span", { style: "margin-left:0.5em" }, "photos: " + (words[v.orientation] || v.orientation))));
    }
    if (v.counting) parts.push(el("div", { style: "font-size:var(--mid)" }, "counting the differences…"));
    const t = v.last_tokens;
    if (t && !v.counting) {
      const tok = (c) => t[c] ? TB.whoText(g, t[c]) : "nobody";
      parts.push(el("div", {}, "round " + t.round + ": " + TB.count(t.differences, "differences") + " · green " + tok("green") +
        " · yellow " + tok("yellow") + " · red " + tok("red")));
    }
    return parts;
  }

  function desk(g) {
    const dial = D.view && D.view.desk_only && D.view.desk_only.dial;
    return [el("h2", {}, "Evidence"),
      dial ? el("div", { id: "ev-dial", style: "font-size:1.4em;font-weight:800" }, "count on the box: " + dial.value +
        " (not shown to the room)") : null,
      g.view.counting ? el("div", { class: "row" }, button("Enter the count: " + D.pad, () => act("count", { value: D.pad }, "count " + D.pad), "go", "ev-count"),
        el("span", { class: "muted" }, "the room sees it only once it is entered")) : null,
      g.phase === "counting" && g.view.counting ? el("div", { class: "muted" }, "claims closed: count the differences") : null,
      g.phase === "claiming" ? el("div", { class: "row" }, playerSelect("ev-player", g), button("sits out", () =>
        act("sit_out", { player: Number(document.getElementById("ev-player").value) }, "sit out"))) : null,
      // a claim for the chosen player, one button a marker still free (the board's markers)
      g.phase === "claiming" ? el("div", { class: "row", id: "ev-claims" }, el("span", {}, "claims marker: "),
        g.view.markers.map((owner, i) => owner ? null : button(String(i + 1), () => act("claim",
          { player: Number(document.getElementById("ev-player").value), value: i + 1 }, "claim " + (i + 1)),
        "", "ev-claim-" + (i + 1)))) : null];
  }

  return { board, desk };
})();
