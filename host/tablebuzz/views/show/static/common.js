// tablebuzz show: what both pages share: the live link to the host (one WebSocket, reconnected
// when it drops), small DOM helpers, and the seed check (SubtleCrypto SHA-256).
"use strict";

const TB = {};
TB.games = {};  // each game's part of the pages: static/games/<game>.js

TB.el = function (tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "style") node.style.cssText = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
};

TB.fill = function (id, ...children) {
  const node = document.getElementById(id);
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined));
  return node;
};

// "P3 Ann" (or "P3"), in the player's colour.
TB.who = function (game, p) {
  const name = game && game.names ? game.names[String(p)] : null;
  const colour = game && game.colours ? game.colours[p - 1] : "#fff";
  return TB.el("span", { class: "who-inline" },
    TB.el("b", { style: "color:" + colour }, "P" + p), name ? " " : "", name ? TB.name(name) : "");
};

// A name, isolated from the text around it (<bdi>): a right-to-left name never reorders the
// line it stands in.
TB.name = function (text) {
  return TB.el("bdi", {}, String(text));
};

// "P3 Ann" as text (a title, an option): the name between FSI and PDI, the plain-text <bdi>.
TB.whoText = function (game, p) {
  const name = game && game.names ? game.names[String(p)] : null;
  return "P" + p + (name ? " \u2068" + name + "\u2069" : "");
};

// A card from the wire ("10S") as a card face; null = face down.
TB.card = function (text) {
  if (!text) return TB.el("span", { class: "card down", title: "face down" }, "?");
  const suit = text.slice(-1);
  const signs = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const red = suit === "H" || suit === "D";
  return TB.el("span", { class: "card" + (red ? " red" : "") }, text.slice(0, -1) + (signs[suit] || suit));
};

// "1 point", "3 points", "1 card", "1 difference": a number with its unit, as people say it.
TB.count = function (n, unit) {
  const one = unit.endsWith("ies") ? unit.slice(0, -3) + "y" : unit.endsWith("s") ? unit.slice(0, -1) : unit;
  return n + " " + (Math.abs(n) === 1 ? one : unit);
};

TB.seconds = function (ms) {
  return (ms / 1000).toFixed(ms < 10000 ? 1 : 0) + " s";
};

// sha256("tablebuzz-seed-v1:" + seed) === commit, checked here in the page (docs/protocol.md).
// Resolves to true/false, or null where the browser has no SubtleCrypto (a page that is not a
// secure context, e.g. a phone on http://192.168...).
TB.verifySeed = async function (seed, commit) {
  if (!window.crypto || !window.crypto.subtle) return null;
  const data = new TextEncoder().encode("tablebuzz-seed-v1:" + seed);
  const digest = await window.crypto.subtle.digest("SHA-256", data);
  const hex = Array.from(new Uint8Array(digest)).map((b) => b.toString(16).padStart(2, "0")).join("");
  return hex === commit;
};

// Pairing (docs/security.md): the desk's address carries the key `tablebuzz show` printed
// (/desk#key=...; a fragment never reaches a server or a log). The page keeps it for this tab
// and takes it out of the address bar, which a mirrored laptop screen would show the room.
TB.deskKey = function () {
  const given = new URLSearchParams(location.hash.slice(1)).get("key");
  if (given) {
    try { sessionStorage.setItem("tablebuzz-desk-key", given); } catch (e) { /* private mode */ }
    history.replaceState(null, "", location.pathname + location.search);
    return given;
  }
  try { return sessionStorage.getItem("tablebuzz-desk-key"); } catch (e) { return null; }
};

// This page's name across reconnections: the host answers a message sent again with the same
// id once, and never applies it twice.
TB.clientId = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");

// The live link: onView(message) for every view; onReply(message) for answers to this page.
TB.connect = function (role, onView, onReply) {
  const link = { ws: null, nextId: 1, onReply: onReply, up: false };
  const key = role === "desk" ? TB.deskKey() : null;
  function open() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    link.ws = ws;
    ws.onopen = () => { link.up = true; ws.send(JSON.stringify({ type: "hello", role: role, key: key, client: TB.clientId })); };
    ws.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch (err) { return; }
      window.__tbLastMessageAt = performance.now();
      if (msg.type === "view") onView(msg);
      else if (msg.type === "reply" && link.onReply) link.onReply(msg);
    };
    ws.onclose = () => {
      link.up = false;
      onView(null);  // the host went away: say so, and try again
      setTimeout(open, 1000);
    };
  }
  link.send = function (msg) {
    msg.id = link.nextId++;
    if (!link.ws || link.ws.readyState !== WebSocket.OPEN) {
      if (link.onReply) link.onReply({ id: msg.id, ok: false, text: "not connected to the host (tablebuzz show): retrying" });
      return msg.id;
    }
    link.ws.send(JSON.stringify(msg));
    return msg.id;
  };
  open();
  return link;
};

// Timers count down in the page from the ms left when the view was sent.
TB.timerText = function (t, sentAt) {
  const left = t.running ? Math.max(0, t.remaining_ms - (performance.now() - sentAt)) : t.remaining_ms;
  return TB.seconds(left) + (t.running ? "" : " (paused)");
};

// An open race in the board's facts: who may buzz (the `armed` event's players, and any whose
// lockout ended since), never "buzz!" while nobody may.
TB.armedText = function (game) {
  const may = game.eligible || [];
  if (!may.length) {
    const locked = Object.keys(game.locked || {}).map(Number).sort((a, b) => a - b);
    return "armed: nobody may buzz yet" + (locked.length ? " (" + locked.map((n) => TB.whoText(game, n)).join(", ") + " locked out)" : "");
  }
  return may.length === game.players ? "armed: buzz!" : "armed: " + may.map((n) => TB.whoText(game, n)).join(", ") + " may buzz";
};

