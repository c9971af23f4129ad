/* /play: a hand against the computer. The server holds the hand and decides every rule; this
   page shows the human seat's view, sends taps and keys as answers to POST /api/play/{id},
   and plays back the frames of each answer (your flip, the computer's play, flip, captures
   and steals) one at a time. At the end it recomputes the deal's commitment with SHA-256.

   The page is five scripts loaded in order, sharing the page's global scope (no build step,
   no modules): play_state.js (this one: the page's state and the display settings),
   play_server.js (talking to the server, the hint), play_draw.js (playing back and drawing
   the table), play_end.js (the end of a hand: the result, the proof, the deal checked) and
   play.js (taps, keys and the start). */
"use strict";
const T = window.GostopTable;
const D = T.data;
const esc = T.esc;
const $ = (id) => document.getElementById(id);
const KINDS = [["brights", "Brights"], ["animals", "Animals"], ["ribbons", "Ribbons"], ["junk", "Junk"]];
const params = new URLSearchParams(location.search);
const DKEY = "gostop.play.display";

let handId = null;
let view = null; // the last view the server sent
let shown = 0; // frames already played back
let busy = false; // an answer is on its way or frames are playing
let pick = null; // a card that takes one of two layout cards: {card, takes}
let seen = {}; // commitments shown before the first play, by hand
let skipWait = null;
let skipping = false;

// --- the display: contrast, grain, colour temperature, pace (kept per browser) -----------

function pace() {
  const forced = params.get("pace");
  return forced !== null && forced !== "" ? Math.max(0, +forced || 0) : +$("pace").value;
}

function applyDisplay(save) {
  const c = +$("contrast").value;
  const g = +$("grain").value;
  const w = +$("warmth").value;
  const s = document.documentElement.style;
  s.setProperty("--contrast", (0.6 + (c / 100) * 0.8).toFixed(3));
  s.setProperty("--grain", ((g / 100) * 0.6).toFixed(3));
  const t = (w - 50) / 50; // -1 cool ... +1 warm
  s.setProperty("--tint", t >= 0 ? `rgba(255, 160, 60, ${(t * 0.35).toFixed(3)})` : `rgba(90, 150, 255, ${(-t * 0.35).toFixed(3)})`);
  $("contrast-out").textContent = `${c}%`;
  $("grain-out").textContent = `${g}%`;
  $("warmth-out").textContent = `${w}%`;
  if (save) {
    localStorage.setItem(DKEY, JSON.stringify({ contrast: c, grain: g, warmth: w, pace: $("pace").value }));
  }
}

function loadDisplay() {
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem(DKEY) || "{}") || {};
  } catch (e) {
    saved = {};
  }
  for (const k of ["contrast", "grain", "warmth"]) {
    if (Number.isFinite(saved[k])) $(k).value = saved[k];
  }
  if (saved.pace && [...$("pace").options].some((o) => o.value === saved.pace)) $("pace").value = saved.pace;
  applyDisplay(false);
  for (const k of ["contrast", "grain", "warmth", "pace"]) $(k).addEventListener("input", () => applyDisplay(true));
  $("display-reset").addEventListener("click", () => {
    for (const k of ["contrast", "grain", "warmth"]) $(k).value = 50;
    applyDisplay(true);
  });
}
