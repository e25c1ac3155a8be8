// tablebuzz show: The quiz on the pages (its module on the host: views/games/quiz.py):
// `board(g)`, its part of the scoreboard, and `desk(g)` (where it has any), its inputs on the
// desk: each drawn from the board's view, sending only commands the board checks.
"use strict";

TB.games.quiz = (() => {
  const el = TB.el;

  // The whole bonus in one command ({"cmd":"bonus","parts":[...]}): a toggle per part, and a
  // button that says what it credits (the board's value per part, from its `bonus` event). Offered
  // only before a part is judged with YES / NO (the board takes one way or the other).
  function bonusPanel(board, teams) {
    if (!D.bonusParts || D.bonusParts.length !== board.parts) D.bonusParts = new Array(board.parts).fill(false);
    const parts = D.bonusParts;
    if (teams && teams.length > 1) return bouncePanel(board, teams, parts);
    const right = parts.filter(Boolean).length;
    const toggles = parts.map((ok, i) => el("button", { type: "button", class: ok ? "go" : "no", id: "bonus-part-" + (i + 1),
      onclick: () => { parts[i] = !parts[i]; rerender(); } },
      "part " + (i + 1) + (ok ? " ✔" : " ✘")));
    return el("div", { class: "row", id: "bonus-panel" }, toggles,
      el("button", { type: "button", class: "go", id: "bonus-score",
        onclick: () => { cmd({ cmd: "bonus", parts: parts.slice() }, "bonus: " + right + " of " + parts.length);
          D.bonusParts = null; } },
      "Score the bonus: " + teamName(D.game, board.team) + ", " + right + " of " + parts.length + " parts right (the board's " + board.points + " a part)"));
  }

  // the moderator's block (issue 37)
  // Quizbowl by the book from the desk: overtime shown as overtime, a computation tossup, the power
  // mark, a protest with a note, bounce-back parts. Each is a command the board checks (it refuses
  // what its format does not allow, e.g. a bounce-back under naqt, and says why); the desk decides
  // nothing itself.
  function moderatorBlock(g, points) {
    const v = g.view;
    const phase = g.phase;
    const teams = v.teams || [];
    const banner = v.sudden_death ? "SUDDEN DEATH" : v.overtime ? "OVERTIME" : null;
    const note = () => document.getElementById("qz-protest-note").value;
    const team = () => Number(document.getElementById("qz-protest-team").value) || undefined;
    return el("div", { id: "qz-moderator" },
      banner ? el("div", { id: "qz-overtime", class: "banner", style: "font-size:1.6em;font-weight:800" },
        banner + (v.overtime && !v.sudden_death ? " · tossups without bonuses" : "")) : null,
      el("div", { class: "row" },
        phase === "ready" ? button("Arm computation +" + points(), () => cmd({ cmd: "arm", points: points(), compute: true },
          "computation tossup"), "", "qz-compute") : null,
        phase === "racing" && v.power ? button("Power mark passed", () => act("power_mark"), "", "qz-power-mark") : null),
      el("div", { class: "row" },
        el("input", { id: "qz-protest-note", placeholder: "protest: the note (100)", maxlength: 100, size: 30 }),
        teams.length ? el("select", { id: "qz-protest-team" }, el("option", { value: "" }, "team?"),
          teams.map((t) => el("option", { value: t.team }, t.name || "team " + t.team))) : null,
        button("Protest on question " + v.question, () => act("protest", teams.length && team() ? { text: note(), team: team() } : { text: note() },
          "protest"), "", "qz-protest")),
      v.protest ? el("div", { id: "qz-protest-last", class: "muted" }, "protest on question " + v.protest.question +
        (v.protest.team ? " by team " + v.protest.team : "") + ": " + v.protest.note) : null);
  }

  // The bonus with bounce-backs: each part cycles missed → got → taken by another team (a
  // bounce-back; the board refuses it under formats that read none).
  function bouncePanel(board, teams, parts) {
    const others = teams.map((t) => t.team).filter((t) => t !== board.team);
    const cycle = [false, true].concat(others);
    const label = (p) => p === true ? "✔ team " + board.team : p === false ? "✘ missed" : "↪ team " + p + " (bounce-back)";
    const toggles = parts.map((p, i) => el("button", { type: "button", class: p === false ? "no" : "go", id: "bonus-part-" + (i + 1),
      onclick: () => { parts[i] = cycle[(cycle.indexOf(p) + 1) % cycle.length]; rerender(); } },
    "part " + (i + 1) + ": " + label(p)));
    const got = parts.filter((p) => p === true).length;
    return el("div", { class: "row", id: "bonus-panel" }, toggles,
      el("button", { type: "button", class: "go", id: "bonus-score",
        onclick: () => { cmd({ cmd: "bonus", parts: parts.slice() }, "bonus: " + got + " of " + parts.length);
          D.bonusParts = null; } },
      "Score the bonus: " + teamName(D.game, board.team) + ", " + got + " of " + parts.length + " parts right (the board's " + board.points + " a part)"));
  }

  function board(g) {
    const v = g.view;
    const o = g.options;
    const rules = [];
    if (o.target) rules.push("first team to " + o.target + " points");
    if (o.questions) rules.push(o.questions + " questions");
    const pk = SB.view && SB.view.packet;  // the packet's number and category, never its answer
    const category = pk && pk.question === v.question && pk.category ? " · " + pk.category : "";
    const parts = [el("h2", { id: "quiz-question" }, v.question && !g.over ? "question " + v.question + category + (v.points ? " · worth " + v.points : "") : "quiz"),
      rules.length ? el("div", {}, rules.join(" · ")) : null];
    if (v.dead) parts.push(el("div", { class: "notice", style: "font-size:var(--mid)", id: "quiz-dead" }, v.dead));
    if (v.sudden_death) parts.push(el("div", { style: "font-size:var(--mid)", id: "quiz-sudden" }, "sudden death: ",
      v.sudden_death.map((p) => [TB.who(g, p), " "])));
    if (v.teams && v.teams.length) {
      parts.push(el("table", { class: "grid", id: "quiz-teams" }, v.teams.map((t) =>
        el("tr", {}, el("td", { style: "text-align:left;font-weight:800;color:" + (g.colours[t.players[0] - 1] || "inherit") }, t.name ? TB.name(t.name) : "team " + t.team),
          el("td", { style: "text-align:left" }, t.players.map((p) => [TB.who(g, p), " "])),
          el("td", { style: "font-size:var(--mid);font-weight:900" }, String(t.score))))));
    }
    return parts.length > 1 || v.question ? parts : null;
  }

  function desk(g) {
    const v = g.view;
    const teams = v.teams || [];
    const teamSelect = el("select", { id: "qz-team" }, teams.map((t) =>
      el("option", { value: t.team }, t.name ? "\u2068" + t.name + "\u2069" : "team " + t.team)));
    const player = () => Number(document.getElementById("qz-player").value);
    // the number pad's value, else the question's value as the board says it (its `points`
    // option in the `game` event; a page that joined mid-game: the `state`'s `points`)
    const points = () => D.pad > 0 ? D.pad : (g.options.points !== undefined ? g.options.points : v.points);
    const phase = g.phase;  // the board's: each button only where the board takes it
    const asking = ["racing", "answering", "bonus"].includes(phase);  // else the next is read
    return [el("h2", {}, asking ? "quiz · question " + v.question : "quiz"),
      el("div", { class: "row" },
        phase === "ready" ? button("Arm +" + points(), () => cmd({ cmd: "arm", points: points() }, "arm for " + points()), "go", "qz-arm") : null,
        g.options.interrupt && phase === "racing" && !v.read ? button("Question read", () => act("read"), "", "qz-read") : null,
        phase === "racing" || phase === "answering" ? button("Cancel the question", () => act("cancel"), "no", "qz-cancel") : null),
      el("div", { class: "row" }, playerSelect("qz-player", g, g.answering),
        button("+" + points() + " by hand", () => act("adjust", { player: player(), value: points() }, "+" + points()), "", "qz-plus"),
        button("−" + points() + " by hand", () => act("adjust", { player: player(), value: -points() }, "−" + points()), "", "qz-minus")),
      el("div", { class: "row" }, el("input", { id: "qz-name", placeholder: "name on the box (16)", maxlength: 16, size: 18 }),
        button("Name the player", () => act("name", { player: player(), text: document.getElementById("qz-name").value }, "name"), "", "qz-name-player"),
        teams.length ? teamSelect : null,
        teams.length ? button("Name the team", () => act("name", { team: Number(document.getElementById("qz-team").value),
          text: document.getElementById("qz-name").value }, "team name"), "", "qz-name-team") : null),
      phase === "bonus" && v.bonus && !v.bonus.judged ? bonusPanel(v.bonus, teams) : null,
      moderatorBlock(g, points)];
  }

  return { board, desk };
})();
