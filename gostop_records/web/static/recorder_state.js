/* The recorder: taps become lines of the recorder's grammar, sent one at a time to
   POST /api/games/{id}/entries with the version they expect and an idempotency key.
   What may be tapped comes from GET /api/games/{id}/now (the engine's legal entries); the
   page decides no rule. Entries wait in localStorage until the server confirms them, so a
   lost network or a reload loses nothing and a retry is never recorded twice.

   The recorder is five scripts loaded in order, sharing the page's global scope (no build
   step, no modules): recorder_state.js (this one: the token, what is stored, the answer of
   /now), recorder_queue.js (entries sent one at a time, the toast with Undo),
   recorder_taps.js (what may be tapped now), recorder_panels.js (the panels around a hand:
   its end, payments, the settlement, chips, the draw, sitting out) and recorder.js (the
   drawing of the page and its start). */
"use strict";
const T = window.GostopTable;
const gid = T.data.game_id;
const api = `/api/games/${encodeURIComponent(gid)}`;
const QKEY = `gostop.queue.${gid}`;
const TKEY = `gostop.token.${gid}`;
const NKEY = `gostop.now.${gid}`;
const VKEY = `gostop.version.${gid}`;
const DKEY = `gostop.dealer.${gid}`;
const TALLY = `gostop.tally.${gid}`; // the hand whose payments the table left to the settlement
const $ = (id) => document.getElementById(id);
const TOAST_MS = 6000;
const DOUBLE_TAP_MS = 400;
const DOUBLE_TAP_PX = 30;

// the token arrives in the fragment (never sent to a server log), then lives in storage
const frag = new URLSearchParams(location.hash.slice(1));
// the first dealer, when the person who started the game named one, comes with it
if (/^\d$/.test(frag.get("dealer") || "")) localStorage.setItem(DKEY, frag.get("dealer"));
if (frag.get("token")) {
  localStorage.setItem(TKEY, frag.get("token"));
  history.replaceState(null, "", location.pathname);
}
const token = localStorage.getItem(TKEY);

let now = JSON.parse(localStorage.getItem(NKEY) || "null");
let queue = JSON.parse(localStorage.getItem(QKEY) || "[]");
let inFlight = false;
let online = true;
let choice = null; // {verb, card, options: [codes]}
let showing = null; // "shake" | "bomb" | null
let dealPicked = [];
let payDraft = {}; // amounts and reasons typed, kept across redraws
let settleDraft = {}; // the same for the transfers of the night's settlement
let message = null; // {kind: "refusal" | "conflict" | "info", html}
// the table around the hand: chips typed, cards drawn for the first dealer (in the order
// of the seats that draw), seats tapped to sit out, brights tapped for a sale (by seat)
let chipsDraft = {};
let drawn = [];
let outPicked = [];
let salePicked = {};
// the first dealer tapped (first_dealer = lot: the table names them, the deal says so)
let firstDealer = localStorage.getItem(DKEY) === null ? null : +localStorage.getItem(DKEY);
// the entry just made, shown a few seconds with an Undo: {key, text, version, timer}
let toast = null;
let undoWhenSent = null; // the key of an entry whose toast Undo came while it was sent
let asking = null; // a tap the step does not expect, waiting for yes or no: {html, yes, go}
let lastTap = null; // {t, x, y, kind}: the previous card tap, to tell a double tap
/* The step the table is in, as the sticky bar names it (its colour follows the kind). */
const STEPS = {
  deal: "Deal", play: "1 · Card played", flip: "2 · Card flipped", decide: "Go or Stop?",
  cup: "September cup", pay: "Payment", over: "Game over", wait: "Sending",
  settle: "Settlement", closed: "Night closed",
};

function save() {
  localStorage.setItem(QKEY, JSON.stringify(queue));
}

function headers(extra) {
  const h = Object.assign({ Accept: "application/json" }, extra || {});
  if (token) h.Authorization = `Bearer ${token}`;
  return h;
}

function newKey() {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  return "web-" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function setOnline(value) {
  online = value;
  const net = $("net");
  net.textContent = value ? (queue.length ? `sending ${queue.length}` : "online") : `offline · ${queue.length} waiting`;
  net.className = "net " + (value ? (queue.length ? "busy" : "ok") : "down");
}

async function refresh() {
  try {
    const r = await fetch(`${api}/now`, { headers: headers(), cache: "no-store" });
    if (!r.ok) {
      const body = await r.json().catch(() => ({}));
      show("refusal", `<b>${T.esc(body.error || r.status)}</b> ${T.esc(body.reason || "")}`);
      return;
    }
    now = await r.json();
    localStorage.setItem(NKEY, JSON.stringify(now));
    setOnline(true);
  } catch (e) {
    setOnline(false);
  }
  draw();
}

function show(kind, html) {
  message = { kind, html };
}

/* The seq of the last input an answer recorded (what an undo right after it retracts). */
function lastInput(body) {
  const inputs = (body.events || []).filter((e) => e.event && T.data.inputs.includes(e.event.type));
  return inputs.length ? inputs[inputs.length - 1].seq : body.version;
}
