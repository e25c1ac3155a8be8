// The host's desk: start games (the form is built from the firmware's own option specs, served
// at /api/games), arm, judge, undo, end, enter numbers, and read the board's answers where you
// acted. Every command goes to the device through the host; the device decides.
"use strict";

const D = { specs: [], view: null, pad: 0, lastId: null, simulator: false, game: null };
const el = TB.el;

// ------------------------------------------------------------------------------ messages
function say(text, ok) {
  const node = document.getElementById("message");
  node.textContent = text;
  node.className = ok ? "ok" : "bad";
}

function onReply(msg) {
  if (msg.id !== D.lastId && msg.ok) return;  // an old "sent": a newer action is shown
  say(msg.ok ? "✔ " + msg.text : "✘ " + msg.text, msg.ok);
}

function send(msg, what) {
  D.lastId = link.send(msg);
  say("… " + what, true);
}

function cmd(c, what) { send({ type: "cmd", cmd: c }, what || c.cmd); }
function act(action, fields, what) { cmd(Object.assign({ cmd: "act", action: action }, fields || {}), what || action); }

// ------------------------------------------------------------------------------ the number pad
function setPad(value) {
  D.pad = Math.max(0, Math.min(999, value));
  document.getElementById("padvalue").textContent = String(D.pad);
  rerender();  // the buttons show the value they send
}

// Draw the last view again (the host's input changed what a button sends).
function rerender() {
  if (!D.view) return;
  const sentAt = D.sentAt;
  render({ view: D.view, simulator: D.simulator, pages: D.pages });
  D.sentAt = sentAt;  // the timers still count from the view's arrival
}

function padKey(key) {
  if (key === "clear") setPad(0);
  else if (key === "back") setPad(Math.floor(D.pad / 10));
  else if (key.startsWith("+") || key.startsWith("-")) setPad(D.pad + Number(key));
  else setPad(D.pad >= 100 ? Number(key) : D.pad * 10 + Number(key));
}

document.querySelectorAll("[data-pad]").forEach((b) => b.addEventListener("click", () => padKey(b.dataset.pad)));
document.addEventListener("keydown", (e) => {
  const typing = e.target && ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName);
  if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
  if (/^[0-9]$/.test(e.key)) { padKey(e.key); e.preventDefault(); }
  else if (e.key === "Backspace") { padKey("back"); e.preventDefault(); }
  else if (e.key === "a") clickIfOffered("btn-arm");
  else if (e.key === "y") clickIfOffered("btn-correct");
  else if (e.key === "n") clickIfOffered("btn-wrong");
  else if (e.key === "u") cmd({ cmd: "undo" });
});

// A key does what its button does, and only while the button is offered.
function clickIfOffered(id) {
  const b = document.getElementById(id);
  if (b && !b.classList.contains("hidden") && !b.disabled) b.click();
}

// ------------------------------------------------------------------------------ fixed buttons
document.querySelectorAll("[data-cmd]").forEach((b) => b.addEventListener("click", () => {
  if (b.dataset.cmd === "menu" && D.game && !D.game.over && !confirm("Abandon the game and go back to the menu?")) return;
  if (b.dataset.cmd === "end" && D.game && !D.game.over && !confirm("End the game now?")) return;
  cmd({ cmd: b.dataset.cmd });
}));
// ARM, YES, NO as the board's prompts say they act now ("YES right +10", "NO wrong -5"): the
// button sends that control; YES on a word tapped before the packet's power mark asks the board for
// its power (`judge` with `power`: the board checks its stamps and gives its format's value).
document.querySelectorAll("[data-control-prompt]").forEach((b) => b.addEventListener("click", () => {
  const control = b.dataset.controlPrompt;
  const meaning = b.dataset.meaning || "";
  const power = control === "YES" && D.game && D.game.phase === "answering" ? powerValue() : 0;
  if (power) cmd({ cmd: "judge", correct: true, power: true }, "judge: correct, a power (+" + power + ")");
  else cmd({ cmd: "control", name: control.toLowerCase() }, control + " " + meaning);
}));

function renderPrompts(v, g) {
  const prompts = (v.prompts || []).filter((p) => ["ARM", "YES", "NO"].includes(p[0]));
  const shown = {};
  prompts.forEach(([control, meaning]) => { shown[control] = meaning; });
  const power = g && g.phase === "answering" ? powerValue() : 0;
  const marks = { ARM: "", YES: "✔ ", NO: "✘ " };
  document.querySelectorAll("[data-control-prompt]").forEach((b) => {
    const control = b.dataset.controlPrompt;
    const meaning = shown[control];
    b.classList.toggle("hidden", meaning === undefined || !g || !!g.over);
    if (meaning === undefined) return;
    b.dataset.meaning = meaning;
    b.textContent = control === "YES" && power ? "✔ YES right +" + power + " (power)" :
      marks[control] + control + " " + meaning.replace(/-(\d)/, "−$1");
  });
  const none = document.getElementById("no-controls");
  const racing = g && g.phase === "racing";
  none.classList.toggle("hidden", !g || g.over || prompts.length > 0);
  none.textContent = racing ? "the race is open: the buzzers decide" : "the box's controls do nothing now";
}

// A team's name as the device keeps it (its `name` events), else "team N"; in a quiz without
// teams the board's team number is the player's.
function teamName(g, team) {
  const teams = (g && g.view && g.view.teams) || [];
  if (!teams.length) return TB.whoText(g, team);
  const t = teams.find((x) => x.team === team);
  return t && t.name ? t.name : "team " + team;
}

// ------------------------------------------------------------------------------ the packet
// The reader's tossup (tablebuzz show --packet): tap the word being read when a buzz comes; a
// word at or before the power mark (*) offers the power the board says this tossup has (its
// `question` event's `power`; none once it said the power mark or the reading's end passed).
function powerValue() {
  const p = D.view && D.view.desk_only && D.view.desk_only.packet;
  const g = D.game;
  if (!p || !p.mark || !p.mark.power || !g || !g.view || g.name !== "quiz") return 0;
  return g.view.power;  // the board's (0: no power on offer)
}

function renderPacket(v) {
  const box = document.getElementById("packet");
  const p = v.desk_only && v.desk_only.packet;
  box.classList.toggle("hidden", !p);
  if (!p) return;
  const key = JSON.stringify([p.tossup && p.tossup.number, p.mark, p.bonus && p.bonus.number, D.game && D.game.answering]);
  if (key === D.packetKey) return;
  D.packetKey = key;
  const kids = [];
  const t = p.tossup;
  if (!t) {
    kids.push(el("div", { class: "muted" }, "no tossup in the packet for this question"));
  } else {
    kids.push(el("h2", {}, "tossup " + t.number + (t.category ? " · " + t.category : "")));
    const words = t.words.map((w, i) => {
      const marked = p.mark && p.mark.word_index === i;
      const cls = "word" + (t.power_index !== null && i <= t.power_index ? " power" : "") + (marked ? " marked" : "");
      const node = el("button", { type: "button", class: cls, id: "word-" + i,
        title: "the word being read when the buzz came",
        onclick: () => send({ type: "mark", word_index: i }, "buzz on word " + (i + 1)) }, w);
      return t.power_index === i ? [node, el("span", { class: "powermark" }, "(*)")] : [node];
    }).flat();
    kids.push(el("div", { id: "tossup-text", class: "tossup" }, ...words));
    kids.push(el("div", { id: "tossup-answer", class: "answer" }, "ANSWER: " + t.answer));
    if (p.mark) {
      kids.push(el("div", { id: "mark-note", class: p.mark.power ? "go" : "muted" },
        "buzz on word " + (p.mark.word_index + 1) + (p.mark.power ? ": before the power mark, YES sends +" + powerValue() : "")));
    }
  }
  if (p.bonus) {
    const b = p.bonus;
    kids.push(el("h2", {}, "bonus " + b.number + (b.metadata ? " · " + b.metadata : "")));
    kids.push(el("div", { id: "bonus-leadin" }, b.leadin));
    b.parts.forEach((part, i) => kids.push(el("div", { class: "bonuspart" },
      "[" + b.values[i] + "] " + part, el("div", { class: "answer" }, "ANSWER: " + b.answers[i]))));
  }
  TB.fill("packet", ...kids);
}

document.querySelectorAll("[data-control]").forEach((b) => b.addEventListener("click", () =>
  cmd({ cmd: "control", name: b.dataset.control }, b.dataset.control.toUpperCase())));

// ------------------------------------------------------------------------------ new game form
function spec(name) { return D.specs.find((s) => s.name === name); }

function buildForm() {
  const select = document.getElementById("ng-game");
  select.replaceChildren(...D.specs.map((s) => el("option", { value: s.name }, s.title)));
  select.addEventListener("change", buildOptions);
  document.getElementById("ng-players").addEventListener("input", buildNames);
  buildOptions();
}

// Each option's field shows the value the game will play: its default, or what a preset chosen
// above it sets (the device's `presets`: the quiz's format naqt sets 10 points, powers 15...). Only
// the fields whose value differs from that are sent: the device applies the preset to the rest,
// so a preset plays its values and what the host changed wins over it.
function buildOptions() {
  const s = spec(document.getElementById("ng-game").value);
  if (!s) return;
  const players = document.getElementById("ng-players");
  players.min = s.min; players.max = s.max;
  if (Number(players.value) > s.max) players.value = s.max;
  if (Number(players.value) < s.min) players.value = s.min;
  const rows = s.options.map((o) => {
    const id = "opt-" + o.name;
    if (o.kind === "bool") {
      const box = el("input", { type: "checkbox", id: id, "data-option": o.name, "data-kind": "bool" });
      box.checked = o.default === true;
      box.addEventListener("change", () => showPresets(s));
      return el("div", { class: "row" }, el("label", {}, box, o.label));
    }
    if (o.values) {  // one of a few words: a choice, each in the board's words
      const select = el("select", { id: id, "data-option": o.name, "data-kind": "text" },
        o.choices.map((c) => el("option", { value: c.value }, c.text)));
      select.value = o.default;
      select.addEventListener("change", () => showPresets(s));
      return el("div", { class: "row" }, el("label", {}, o.label, select),
        o.presets.length ? el("span", { class: "muted", id: id + "-sets" }) : null);
    }
    if (o.name === "teams") return teamBuilder(o);
    const shown = (c) => (o.kind === "json" ? JSON.stringify(c) : String(c));
    // each choice with the board's own words for it ("0" reads "no target"): the device's words
    const list = el("datalist", { id: id + "-list" },
      o.choices.concat(o.words || []).map((c) => el("option", { value: shown(c.value), label: c.text })));
    const input = el("input", { id: id, list: id + "-list", value: shown(o.default), "data-option": o.name,
      "data-kind": o.kind, size: o.kind === "json" ? 16 : 8 });
    input.addEventListener("input", () => showPresets(s));
    const range = o.low !== undefined ? o.low + "–" + o.high : "";
    const hint = [range, o.unit, o.zero ? "0 = " + o.zero : "",
      o.kind === "json" ? "as JSON" : ""].filter(Boolean).join(", ");
    return el("div", { class: "row" }, el("label", {}, o.label, input), list, hint ? el("span", { class: "muted" }, hint) : null);
  });
  TB.fill("ng-options", rows);
  D.baseline = {};
  s.options.forEach((o) => { D.baseline[o.name] = o.default; });
  showPresets(s);
  buildNames();
}

// The quiz's teams, picked: how many teams (or everyone alone), then each player's team from a
// list. The option's value (the device's list of teams, [[1, 2], [3, 4]]) is kept in a hidden
// field the form reads; nothing is typed as JSON.
function teamBuilder(o) {
  const count = el("select", { id: "opt-teams-count", title: "how many teams" },
    el("option", { value: "0" }, "everyone alone"),
    [2, 3, 4].map((k) => el("option", { value: String(k) }, k + " teams")));
  const hidden = el("input", { type: "hidden", id: "opt-teams", "data-option": o.name, "data-kind": "json",
    value: JSON.stringify(o.default) });
  count.addEventListener("change", () => { D.teamOf = null; buildTeams(); });
  return el("div", { class: "row", id: "team-builder" }, el("label", {}, o.label, count), hidden,
    el("div", { id: "team-picks", class: "row" }));
}

function buildTeams() {
  const count = document.getElementById("opt-teams-count");
  const hidden = document.getElementById("opt-teams");
  if (!count || !hidden) return;
  const k = Number(count.value);
  const n = Number(document.getElementById("ng-players").value) || 0;
  if (!k) { hidden.value = "[]"; TB.fill("team-picks"); return; }
  if (!D.teamOf || D.teamOf.length !== n) {  // contiguous blocks first: P1 P2 | P3 P4
    D.teamOf = [];
    for (let p = 0; p < n; p++) D.teamOf.push(Math.min(k, Math.floor(p * k / n) + 1));
  }
  const names = readNames();
  TB.fill("team-picks", D.teamOf.map((t, i) => {
    const pick = el("select", { id: "team-of-" + (i + 1), title: "P" + (i + 1) + "'s team" });
    for (let j = 1; j <= k; j++) pick.append(el("option", { value: String(j) }, "team " + j));
    pick.value = String(Math.min(t, k));
    pick.addEventListener("change", () => { D.teamOf[i] = Number(pick.value); buildTeams(); });
    return el("label", {}, "P" + (i + 1) + (names[i + 1] ? " " + names[i + 1] : ""), pick);
  }));
  const teams = [];
  for (let j = 1; j <= k; j++) {
    const members = [];
    D.teamOf.forEach((t, i) => { if (Math.min(t, k) === j) members.push(i + 1); });
    if (members.length) teams.push(members);
  }
  hidden.value = JSON.stringify(teams);
}

// What the game plays for each option unless the host changes it: the defaults, then what each
// chosen preset sets (in the options' order, as the device applies them: refbox.games.base).
function presetBaseline(s, current) {
  const base = {};
  s.options.forEach((o) => { base[o.name] = o.default; });
  s.options.forEach((o) => {
    const chosen = o.presets.find((p) => p.value === current[o.name]);
    if (chosen) chosen.sets.forEach((x) => { base[x.name] = x.value; });
  });
  return base;
}

// A preset was chosen (or a field changed): every field the host left as it was shows the
// preset's value, and the preset says what it sets.
function showPresets(s) {
  const current = readAllOptions();
  const before = D.baseline || {};
  const base = presetBaseline(s, current);
  s.options.forEach((o) => {
    const input = document.getElementById("opt-" + o.name);
    if (!input || same(current[o.name], base[o.name]) || !same(current[o.name], before[o.name])) return;
    if (o.kind === "bool") input.checked = base[o.name] === true;
    else input.value = o.kind === "json" ? JSON.stringify(base[o.name]) : String(base[o.name]);
  });
  D.baseline = base;
  s.options.filter((o) => o.presets.length).forEach((o) => {
    const chosen = o.presets.find((p) => p.value === current[o.name]);
    const note = document.getElementById("opt-" + o.name + "-sets");
    if (note) note.textContent = chosen ? "sets " + chosen.sets.map((x) => spec(s.name).options
      .find((y) => y.name === x.name).label + ": " + x.text).join(", ") : "";
  });
}

function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }

// A station's colour as the box lights it now: the board's palette (`hello`, `palette` events),
// never a colour table of the page's own. The form's labels follow a palette chosen meanwhile.
function stationColour(p) { return ((D.view && D.view.colours) || [])[p - 1] || "inherit"; }
function paintStations() {
  document.querySelectorAll(".station-name[data-station]").forEach((b) => { b.style.color = stationColour(Number(b.dataset.station)); });
}

// A simulated buzzer (show --sim). Held with the pointer (mouse, finger), it stays down until let
// go: the board gets the press and the release at their own instants (a button held at ARM is a
// false start, a held claim in Evidence...). A click without a pointer (the keyboard, a script)
// is a tap: pressed, let go 120 ms later.
function buzzButton(p) {
  const b = el("button", { type: "button", id: "buzz-" + p, class: "buzz",
    title: "press and hold: held until you let go; a click: a tap" }, "P" + p);
  let down = false;
  let byPointer = false;
  const letGo = () => {
    if (!down) return;
    down = false;
    b.classList.remove("held");
    send({ type: "hold", player: p, down: false }, "P" + p + " lets go");
  };
  b.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 || down) return;
    byPointer = true;
    down = true;
    if (b.setPointerCapture) b.setPointerCapture(e.pointerId);
    b.classList.add("held");
    send({ type: "hold", player: p, down: true }, "P" + p + " presses and holds");
  });
  ["pointerup", "pointercancel", "lostpointercapture"].forEach((type) => b.addEventListener(type, letGo));
  b.addEventListener("contextmenu", (e) => e.preventDefault());  // a long touch is a hold
  b.addEventListener("click", () => {
    if (byPointer) { byPointer = false; return; }  // the pointer's press and release went already
    send({ type: "press", player: p }, "P" + p + " buzzes");
  });
  return b;
}

function buildNames() {
  const n = Number(document.getElementById("ng-players").value) || 2;
  const old = {};
  document.querySelectorAll("#ng-names input").forEach((i) => { old[i.dataset.player] = i.value; });
  const inputs = [];
  for (let p = 1; p <= n; p++) {
    inputs.push(el("label", {}, el("b", { class: "station-name", "data-station": p, style: "color:" + stationColour(p) }, "P" + p),
      el("input", { class: "name", "data-player": p, id: "name-" + p, placeholder: "name", maxlength: 24,
        value: old[p] || "" })));
  }
  TB.fill("ng-names", inputs);
  inputs.forEach((label) => label.querySelector("input").addEventListener("change", buildTeams));
  buildTeams();  // one pick a player, under their name
}

function readNames() {
  const names = {};
  document.querySelectorAll("#ng-names input").forEach((i) => { if (i.value.trim()) names[i.dataset.player] = i.value.trim(); });
  return names;
}

// Every field's value, as the device reads it (a number, a word, true / false, a list).
function readAllOptions() {
  const options = {};
  document.querySelectorAll("[data-option]").forEach((i) => {
    if (i.dataset.kind === "bool") options[i.dataset.option] = i.checked;
    else {
      const text = i.value.trim();
      if (i.dataset.kind === "json") {
        try { options[i.dataset.option] = JSON.parse(text || "null"); } catch (e) { options[i.dataset.option] = text; }
      } else {
        options[i.dataset.option] = /^-?[0-9]+$/.test(text) ? Number(text) : text;
      }
    }
  });
  return options;
}

// Only what the host changed: the options whose value is not what the game plays without them.
function readOptions() {
  const s = spec(document.getElementById("ng-game").value);
  const all = readAllOptions();
  const base = presetBaseline(s, all);
  const options = {};
  Object.keys(all).forEach((name) => { if (!same(all[name], base[name])) options[name] = all[name]; });
  return options;
}

document.getElementById("newform").addEventListener("submit", (e) => {
  e.preventDefault();
  const game = document.getElementById("ng-game").value;
  if (D.game && !D.game.over && !confirm("A game is being played: abandon it and start " + game + "?")) return;
  send({ type: "new_game", game: game, players: Number(document.getElementById("ng-players").value),
    options: readOptions(), names: readNames() }, "new game: " + game);
});
document.getElementById("ng-rename").addEventListener("click", () => send({ type: "names", names: readNames() }, "names"));

// ------------------------------------------------------------------------------ each game's inputs
// (drawn by static/games/<game>.js with these helpers)
function playerSelect(id, g, preferred) {
  const s = el("select", { id: id });
  for (let p = 1; p <= g.players; p++) {
    const o = el("option", { value: p }, TB.whoText(g, p));
    if (p === preferred) o.selected = true;
    s.append(o);
  }
  return s;
}

function button(text, onclick, cls, id) {
  return el("button", { class: cls || "", id: id || null, type: "button", onclick: onclick }, text);
}


// ------------------------------------------------------------------------------ drawing
function render(msg) {
  if (msg === null) { setLink(false, "host gone"); say("✘ lost the host (tablebuzz show): retrying…", false); return; }
  D.view = msg.view;
  D.pages = msg.pages;
  D.sentAt = performance.now();
  D.simulator = msg.simulator;
  const v = msg.view;
  const g = v.game;
  D.game = g;
  const src = v.source || {};
  setLink(src.connected, src.connected ? (src.kind === "simulator" ? "simulator" : "board connected") : src.status);
  const warn = [];
  if (msg.paired === false) warn.push("This page is not paired, so it cannot act: open the desk address that tablebuzz show printed (with its key), or scan its QR code.");
  if (msg.pages && msg.pages.desk > 1) warn.push(msg.pages.desk + " desks are open: every one of them can act on the game.");
  if (!src.connected) warn.push("No board yet: " + (src.status || "waiting") + ". Commands cannot be sent until it is connected.");
  (v.notices || []).slice(-1).forEach((n) => warn.push("board said: " + n));
  const w = document.getElementById("warning");
  w.classList.toggle("hidden", !warn.length);
  w.replaceChildren(...warn.map((t) => el("div", {}, t)));
  TB.fill("subtitle", g ? g.title + " · " + g.players + " players" : v.menu ? "box in the set-up menu" : "");
  TB.fill("doing", v.doing || "");  // the board's words (`buttons.doing`, `armed.doing`)
  renderPrompts(v, g);
  paintStations();
  renderDeskRace(g);
  const part = g ? TB.games[g.name] : null;  // static/games/<game>.js
  const gameDesk = part && part.desk && !g.over ? part.desk(g) : [];
  const key = JSON.stringify([g && g.name, g && g.phase, g && g.players, g && g.view && g.view.asking, g && g.view && !!g.view.handing_out,
    g && g.view && g.view.handing_out && g.view.handing_out.left, g && g.view && !!g.view.lines, g && g.view && g.view.round, g && g.view && g.view.turn, g && g.names, !!(g && g.over),
    v.desk_only && v.desk_only.dial && v.desk_only.dial.value, g && g.view && g.view.question,
    g && g.view && g.view.read, D.pad, g && g.answering, g && g.view && g.view.counting,
    g && g.view && g.view.bonus, D.bonusParts, g && g.view && g.view.markers,
    g && g.view && g.view.teams && g.view.teams.map((t) => t.name),
    g && g.view && [g.view.overtime, g.view.sudden_death, g.view.protest]]);  // the moderator's block
  if (key !== D.deskKey) { D.deskKey = key; TB.fill("gamedesk", gameDesk); }
  const sim = document.getElementById("simbuzzers");
  sim.classList.toggle("hidden", !D.simulator || !g);
  if (D.simulator && g && document.querySelectorAll("#buzzers button").length !== g.players) {
    const buttons = [];
    for (let p = 1; p <= g.players; p++) {
      buttons.push(buzzButton(p));
    }
    TB.fill("buzzers", buttons);
  }
  if (g) document.querySelectorAll("#buzzers button").forEach((b, i) => { b.style.borderColor = g.colours[i] || ""; });
  if (g) {
    const teams = (g.view && g.view.teams) || [];  // a team quiz: the board's team totals first
    TB.fill("scores", teams.length ? el("table", { class: "grid", id: "desk-teams" }, teams.map((t) =>
      el("tr", {}, el("td", { style: "text-align:left;font-weight:800" }, teamName(g, t.team)),
        el("td", { style: "text-align:left" }, t.players.map((p) => [TB.who(g, p), " "])),
        el("td", { style: "font-weight:800" }, TB.count(t.score, g.unit))))) : null,
    el("table", { class: "grid", id: "desk-players" }, g.scores.map((s, i) =>
      el("tr", {}, el("td", { style: "text-align:left" }, TB.who(g, i + 1)), el("td", {}, TB.count(s, g.unit))))));
  } else {
    TB.fill("scores", el("div", { class: "muted" }, v.menu ? "the box shows its menu (" + (v.menu.label || v.menu.step) + ": " +
      (v.menu.text || v.menu.value) + "): start a game here or on the box" : "no game"));
  }
  TB.fill("loglist", (v.log || []).map((line) => el("li", {}, line)));
  renderPacket(v);
  if (v.sound) {
    document.getElementById("tv-sounds").checked = v.sound.sounds;
    document.getElementById("tv-speech").checked = v.sound.speech;
  }
  document.getElementById("btn-standings").textContent = v.screen === "standings" ? "The board on the TV" : "Standings on the TV";
  const photo = document.getElementById("btn-photo");
  photo.classList.toggle("hidden", !v.photo);
  if (v.photo) photo.textContent = "Photo finish: P" + v.photo.winner + (v.photo.tie ? " (tie)" : " by " + (v.photo.margin_ns < 1e6 ? Math.round(v.photo.margin_ns / 1000) + " µs" : (v.photo.margin_ns / 1e6).toFixed(2) + " ms"));
}
document.getElementById("btn-photo").addEventListener("click", () => send({ type: "photo" }, "photo finish on the scoreboard"));
document.getElementById("btn-standings").addEventListener("click", () => {
  const on = !(D.view && D.view.screen === "standings");
  send({ type: "screen", screen: on ? "standings" : null }, on ? "standings on the TV" : "the board on the TV");
});
// The TV's sounds and spoken calls, on or off for every scoreboard (the host keeps the choice).
function sendSound() {
  const sounds = document.getElementById("tv-sounds").checked;
  const speech = document.getElementById("tv-speech").checked;
  send({ type: "sound", sounds: sounds, speech: speech },
    "the TV: sounds " + (sounds ? "on" : "off") + ", calls " + (speech ? "on" : "off"));
}
document.getElementById("tv-sounds").addEventListener("change", sendSound);
document.getElementById("tv-speech").addEventListener("change", sendSound);

document.getElementById("btn-power-off").addEventListener("click", () => send({ type: "power", on: false }, "power cut"));
document.getElementById("btn-power-on").addEventListener("click", () => send({ type: "power", on: true }, "power on"));

// ------------------------------------------------------------------------------ the race, for the host
// Who won and by how much, the buzz order, who is next in line, and the time left: the same
// fields the scoreboard shows (tablebuzz.views.table), small.
function renderDeskRace(g) {
  const race = g && g.race;
  const kids = [];
  if (race && race.winner !== null && race.winner !== undefined && !race.open) {
    kids.push(el("div", { class: "row" }, el("span", { class: "deskwinner", id: "desk-winner" }, TB.who(g, race.winner)),
      el("span", { class: "deskmargin", id: "desk-margin" }, race.margin_text),
      race.judged ? el("span", { class: "badge" }, race.judged) : null));
    const order = race.order || [];
    if (order.length) {
      kids.push(el("div", { id: "desk-order", class: "muted" }, "buzz order: ",
        order.map((row, i) => [i ? " · " : "", TB.who(g, row.player), " " + row.behind_text])));
    }
    kids.push(el("div", { id: "desk-next" }, race.next ? ["next in line: ", TB.who(g, race.next.player), " " + race.next.behind_text] :
      "next in line: " + (order.length > 1 ? "none" : "nobody else buzzed")));
  } else if (race && race.open) {
    kids.push(el("div", { class: "deskwinner", id: "desk-winner" }, "race open"));
  }
  TB.fill("deskrace", kids);
  renderDeskTimers();
}

function renderDeskTimers() {
  const g = D.game;
  const timers = g && !g.over ? g.timers : [];
  TB.fill("desktimers", timers.map((t) => el("div", { class: "desktimer" }, t.label + ": ", el("b", {}, TB.timerText(t, D.sentAt)))));
}
setInterval(renderDeskTimers, 200);

function setLink(up, text) {
  const node = document.getElementById("link");
  node.className = up ? "up" : "down";
  node.textContent = text || (up ? "connected" : "not connected");
}

const link = TB.connect("desk", render, onReply);
fetch("/api/games").then((r) => r.json()).then((specs) => { D.specs = specs; buildForm(); })
  .catch(() => say("✘ could not load the games list from the host", false));
