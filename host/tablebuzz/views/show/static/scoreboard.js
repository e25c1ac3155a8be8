// The scoreboard: draws the host's view (tablebuzz.views.table) for the room. Nothing is computed
// here that the device did not say, except the seed check, which is done in this page.
"use strict";

const SB = { view: null, sentAt: 0, verified: {} };
const STANDINGS_PAGE = location.pathname.replace(/\/+$/, "") === "/standings";  // a second screen
const el = TB.el;

function render(msg) {
  if (msg === null) {
    showWaiting("Lost the host", "tablebuzz show is not answering: retrying…");
    setLink(false, "host gone");
    return;
  }
  SB.view = msg.view;
  SB.sentAt = performance.now();
  const v = msg.view;
  const src = v.source || {};
  setLink(src.connected, src.connected ? (src.kind === "simulator" ? "simulator" : src.kind === "replay" ? "replay" : "board connected") : src.status);
  const g = v.game;
  if (!src.connected && !g) {
    showWaiting("Waiting for the board…", src.status || "");
  } else if (!g && v.menu) {
    // the box's own words for the step and the value ("station colours: colour-blind safe")
    showWaiting("Set-up menu", "choosing " + (v.menu.label || v.menu.step.replace(/_/g, " ")) + ": " +
      (v.menu.text || v.menu.value) + "  (" + v.menu.index + " of " + v.menu.of + ")");
  } else if (!g) {
    showWaiting("Connected", "waiting for the board to say what it is playing…");
  } else {
    document.getElementById("waiting").classList.add("hidden");
  }
  document.title = g ? "tablebuzz: " + g.title : "tablebuzz scoreboard";
  TB.fill("title", g ? g.title : "tablebuzz");
  TB.fill("subtitle", g ? g.players + " players" + (g.options_text ? " · " + g.options_text : "") +
    (g.joined ? " · joined mid-game" : "") : "");
  // what is happening, in the board's words (`buttons.doing`, an open race's `armed.doing`)
  const doing = document.getElementById("doing");
  doing.classList.toggle("hidden", !g || !!g.over || !v.doing);
  doing.textContent = v.doing || "";
  renderStandings(v);
  renderTimeUp(STANDINGS_PAGE ? null : v.time_up);  // /standings shows the standings only
  renderPhoto(STANDINGS_PAGE ? null : v.photo);
  if (g) {
    renderPlayers(g);
    renderRace(g);
    renderGameView(g);
    renderOver(g);
  } else {
    document.getElementById("over").classList.add("hidden");
  }
  renderTimers();
  TB.fill("loglist", (v.log || []).map((line) => el("li", {}, line)));
  if (!STANDINGS_PAGE) hear(v);
}

// ------------------------------------------------------------------------------ sounds and calls
// The room hears the game: a short sound when the buzzers are armed, at a buzz, at time's up and
// at game over (Web Audio), and the winner called aloud ("Player 3, Chloé": the browser's speech
// synthesis), each from what the view says changed; the desk switches either off (`sound`).
// A browser plays sound only after a tap on the page (or with Chromium's
// --autoplay-policy=no-user-gesture-required on a kiosk TV): the first tap turns it on.
const AUDIO = { ctx: null, last: null };
const SOUNDS = { armed: [[660, 0.12]], buzz: [[880, 0.09], [1320, 0.14]], time_up: [[440, 0.25], [330, 0.35]],
  over: [[523, 0.15], [659, 0.15], [784, 0.3]] };

function sound(name) {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  if (!AUDIO.ctx) AUDIO.ctx = new Ctx();
  const ctx = AUDIO.ctx;
  let at = ctx.currentTime;
  SOUNDS[name].forEach(([freq, length]) => {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.2, at);
    gain.gain.exponentialRampToValueAtTime(0.001, at + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + length);
    at += length;
  });
}
document.addEventListener("click", () => { if (AUDIO.ctx && AUDIO.ctx.state === "suspended") AUDIO.ctx.resume(); });

function say(text) {
  if (!window.speechSynthesis || !text) return;
  window.speechSynthesis.cancel();  // the newest call first: a room wants who buzzed now
  window.speechSynthesis.speak(new SpeechSynthesisUtterance(text));
}

// "Player 3, Chloé" (or "Player 3"), as a host calls it.
function called(g, p) {
  const name = g.names ? g.names[String(p)] : null;
  return "Player " + p + (name ? ", " + name : "");
}

// Who won, for the call: the device's ranking (a team quiz: its team ranking), ties said as such.
function winnerCall(g) {
  const over = g.over;
  if (!over || over.abandoned) return "";
  const teams = over.team_ranking || [];
  const first = (teams.length ? teams : over.ranking).filter((r) => r.place === 1);
  if (!first.length) return "";
  const names = first.map((r) => r.team ? (r.name || "team " + r.team) : called(g, r.player));
  return first.length > 1 ? "A tie: " + names.join(" and ") : "Winner: " + names[0];
}

function hear(v) {
  const g = v.game;
  const race = g && g.race;
  const now = {
    game: g ? g.commit : null,
    armed: !!(g && g.armed),
    race: race && !race.open && race.winner ? JSON.stringify([race.winner, race.stamp]) : null,
    timeUp: v.time_up ? v.time_up.text : null,
    over: g && g.over ? g.over.seed : null,
  };
  const was = AUDIO.last;
  AUDIO.last = now;
  if (!was || was.game !== now.game || !g) return;  // a page just opened, or a new game: no news
  const on = v.sound || {};
  if (now.armed && !was.armed && on.sounds) sound("armed");
  if (now.race && now.race !== was.race) {
    if (on.sounds) sound("buzz");
    if (on.speech) say(called(g, race.winner));
  }
  if (now.timeUp && now.timeUp !== was.timeUp && on.sounds) sound("time_up");
  if (now.over && now.over !== was.over) {
    if (on.sounds) sound("over");
    if (on.speech) say(winnerCall(g));
  }
}

function setLink(up, text) {
  const node = document.getElementById("link");
  node.className = up ? "up" : "down";
  node.textContent = text || (up ? "connected" : "not connected");
}

function showWaiting(title, text) {
  document.getElementById("waiting").classList.remove("hidden");
  TB.fill("waittitle", title);
  TB.fill("waittext", text);
}

// ------------------------------------------------------------------------------ players
function renderPlayers(g) {
  const tiles = [];
  for (let p = 1; p <= g.players; p++) {
    const badges = [];
    let cls = "player";
    if (g.answering === p) { badges.push(el("span", { class: "badge floor" }, "HAS THE FLOOR")); cls += " floor"; }
    const lock = g.locked[String(p)];
    if (lock) {
      badges.push(el("span", { class: "badge " + (lock.reason === "wrong" ? "out" : "locked") },
        lock.reason === "wrong" ? "out" : "locked out"));
      if (lock.reason === "wrong") cls += " out";
    }
    if (g.armed && g.eligible.includes(p) && !lock) cls += " armed";
    if (g.turn === p && g.name !== "deglingo") badges.push(el("span", { class: "badge turn" }, "turn"));
    gameBadges(g, p, badges);
    const name = g.names[String(p)];
    tiles.push(el("div", { class: cls, style: "--pc:" + g.colours[p - 1], "data-player": p },
      el("div", { class: "who" }, el("span", { class: "num" }, "P" + p), name ? " " : "", name ? TB.name(name) : ""),
      el("div", { class: "score" }, String(g.scores[p - 1]), el("span", { class: "unit" }, g.unit)),
      el("div", { class: "badges" }, badges)));
  }
  TB.fill("players", tiles);
}

function gameBadges(g, p, badges) {
  const v = g.view;
  if (g.name === "difference" && v.places[String(p)]) {
    badges.push(el("span", { class: "badge place" }, ordinal(v.places[String(p)]) + " place"));
  }
  if (g.name === "deglingo") {
    if (v.active === p) badges.push(el("span", { class: "badge turn" }, "active"));
    else if (v.out.includes(p)) badges.push(el("span", { class: "badge out" }, "out this round"));
    else badges.push(el("span", { class: "badge" }, "observer"));
  }
  if (g.name === "diddly" && v.dealer === p) badges.push(el("span", { class: "badge" }, "dealer ★"));
  if (g.name === "evidence") {
    const t = v.tally[p - 1] || [0, 0, 0];
    badges.push(el("span", { class: "tokens" }, el("span", { class: "tok-green", title: "green" }, t[0]),
      el("span", { class: "tok-yellow", title: "yellow" }, t[1]), el("span", { class: "tok-red", title: "red" }, t[2])));
    if (v.sit_out.includes(p)) badges.push(el("span", { class: "badge out" }, "sits out"));
  }
}

function ordinal(n) { return n === 1 ? "1st" : n === 2 ? "2nd" : n === 3 ? "3rd" : n + "th"; }

// ------------------------------------------------------------------------------ race
function renderRace(g) {
  const race = g.race;
  const box = document.getElementById("race");
  const racing = ["quiz", "difference", "deglingo"].includes(g.name);
  box.classList.toggle("hidden", !racing);
  if (!racing) return;
  if (!race) {
    TB.fill("racebody", el("div", { class: "muted" }, g.armed ? TB.armedText(g) : "no race yet"));
    return;
  }
  if (race.open || race.winner === null || race.winner === undefined) {
    const prev = race.previous;
    // the cue only while someone may buzz (the board's `armed` players, `unlock`s since)
    const may = (g.eligible || []).length;
    TB.fill("racebody", may ? el("div", { class: "cue" }, "BUZZ!") : null,
      may === g.players ? null : el("div", { class: "muted", id: "race-may" }, TB.armedText(g)),
      prev ? el("div", { class: "muted", id: "race-previous" }, "last race: ", TB.who(g, prev.winner), " " + prev.margin_text +
        (prev.judged ? " · " + prev.judged : "")) : null);
    return;
  }
  const order = (race.order || []).map((row) =>
    el("li", {}, TB.who(g, row.player), "  ", el("span", { class: "muted" }, row.behind_text)));
  TB.fill("racebody",
    el("div", { class: "winner", id: "race-winner" }, TB.who(g, race.winner)),
    el("div", { class: "margin", id: "race-margin" }, race.margin_text +
      (race.tie ? " → " + TB.whoText(g, race.winner) : "")),
    race.judged ? el("div", { class: race.judged === "correct" ? "badge place" : "badge locked" }, race.judged) : null,
    race.next ? el("div", { class: "margin" }, "next in line: ", TB.who(g, race.next.player), " " + race.next.behind_text) : null,
    order.length ? el("ol", { id: "race-order" }, order) : null);
}

// ------------------------------------------------------------------------------ each game's view
function renderGameView(g) {
  const box = document.getElementById("gameview");
  const game = TB.games[g.name];  // static/games/<game>.js
  const parts = game && game.board ? game.board(g) : null;
  box.classList.toggle("hidden", !parts);
  if (parts) TB.fill("gameview", parts);
}


// ------------------------------------------------------------------------------ timers
function renderTimers() {
  const g = SB.view && SB.view.game;
  const timers = g ? g.timers : [];
  document.getElementById("timers").classList.toggle("hidden", !timers.length);
  TB.fill("timerlist", timers.map((t) => el("div", { class: "timer" }, t.label + ": ", el("b", {}, TB.timerText(t, SB.sentAt)))));
}
setInterval(renderTimers, 200);

// ------------------------------------------------------------------------------ game over
function renderOver(g) {
  const box = document.getElementById("over");
  const over = g.over;
  if (!over || g.closed || SB.dismissed === over.seed) { box.classList.add("hidden"); return; }
  box.classList.remove("hidden");
  TB.fill("overtitle", over.abandoned ? g.title + ": game abandoned" : g.title + ": game over");
  const teams = over.team_ranking;
  if (teams && teams.length && !over.abandoned) {
    TB.fill("ranking", teams.map((r) => el("li", { class: r.place === 1 ? "first" : "" },
      ordinal(r.place) + "  ", r.name ? TB.name(r.name) : "team " + r.team, "  " + TB.count(r.score, over.unit))));
  } else TB.fill("ranking", over.ranking.map((r, i) => el("li", { class: !over.abandoned && r.place === 1 ? "first" : "" },
    over.abandoned ? "" : ordinal(r.place) + "  ", TB.who(g, r.player), "  " + TB.count(r.score, over.unit))));
  const teamOver = teams && teams.length && !over.abandoned;  // the teams' ranking says it all
  TB.fill("overnotes", over.abandoned ? "stopped before the end: no winner" : teamOver ? "" : (over.notes || []).join(" · "));
  // the commitment's first 16 hex digits (the whole in its tooltip and the CSV): the check is below
  TB.fill("seedline", "seed " + over.seed + "  ·  commitment " + (over.commit ? over.commit.slice(0, 16) + "…" : "not seen (joined mid-game)"));
  document.getElementById("seedline").title = over.commit || "";
  const key = over.seed + "/" + over.commit;
  const badge = document.getElementById("verified");
  const show = (state) => {
    if (state === true) { badge.className = "ok"; badge.textContent = "✔ verified: the seed matches its commitment"; }
    else if (state === false) { badge.className = "bad"; badge.textContent = "✘ NOT verified: the seed does not match its commitment"; }
    else if (state === null) { badge.className = "wait"; badge.textContent = "this page cannot check the seed (open it on localhost or https)"; }
    else { badge.className = "wait"; badge.textContent = over.commit ? "checking the seed…" : "no commitment seen: cannot check"; }
  };
  if (!over.commit) { show(undefined); return; }
  if (key in SB.verified) { show(SB.verified[key]); return; }
  show(undefined);
  TB.verifySeed(over.seed, over.commit).then((ok) => { SB.verified[key] = ok; show(ok); });
}

// A tap or click on the game-over screen shows the board behind it (the final table, the grid).
document.getElementById("over").addEventListener("click", () => {
  const g = SB.view && SB.view.game;
  if (g && g.over) { SB.dismissed = g.over.seed; document.getElementById("over").classList.add("hidden"); }
});

TB.connect("scoreboard", render, null);

// ------------------------------------------------------------------------------ standings
// Full screen: each team (or player) and its score, in type that reads across a hall. Shown when
// the desk puts it on the TV, and always at /standings (a second screen).
function renderStandings(v) {
  const box = document.getElementById("standings");
  const g = v.game;
  const on = !!g && (STANDINGS_PAGE || v.screen === "standings");
  box.classList.toggle("hidden", !on);
  if (!on) return;
  const teams = (g.view && g.view.teams && g.view.teams.length) > 0;
  TB.fill("standingstitle", g.title + " · standings");
  TB.fill("standingsrows", (v.standings || []).map((r) => el("tr", { class: r.leader ? "leader" : "" },
    el("td", { class: "label", style: "color:" + (g.colours[r.players[0] - 1] || "inherit") },
      r.team ? r.label : TB.who(g, r.players[0])),
    teams ? el("td", { class: "members" }, r.players.map((p) => [TB.who(g, p), " "])) : null,
    el("td", { class: "points" }, String(r.score), el("span", { class: "unit" }, " " + g.unit)))));
  TB.fill("standingsnote", v.doing || "");
}

// ------------------------------------------------------------------------------ time's up
// A timer ran out (the board's `time_up`, or a question nobody buzzed in time): a big screen for
// the few seconds the host gives it (view.time_up.left_ms).
function renderTimeUp(t) {
  const box = document.getElementById("timeup");
  if (!t) { box.classList.add("hidden"); return; }
  TB.fill("timeuptext", t.text);
  box.classList.remove("hidden");
  clearTimeout(SB.timeUpTimer);
  SB.timeUpTimer = setTimeout(() => box.classList.add("hidden"), t.left_ms);
}
document.getElementById("timeup").addEventListener("click", () => document.getElementById("timeup").classList.add("hidden"));

// The photo finish of a race won by < 10 ms (tablebuzz.views.photo draws it from the board's stamps):
// shown while the host says so, hidden when its time is up or on a tap. It opens once per showing
// (`shown` counts them: a new photo, or the desk's "show again"), so a tap closes it for good.
function renderPhoto(photo) {
  const box = document.getElementById("photo");
  if (!photo || !photo.showing) { box.classList.add("hidden"); return; }
  const key = String(photo.shown);
  if (SB.photoKey === key) return;
  SB.photoKey = key;
  document.getElementById("photobody").innerHTML = photo.svg;  // the host's own SVG
  box.classList.remove("hidden");
  clearTimeout(SB.photoTimer);
  SB.photoTimer = setTimeout(() => box.classList.add("hidden"), photo.left_ms);
}
document.getElementById("photo").addEventListener("click", () => {
  document.getElementById("photo").classList.add("hidden");
});
