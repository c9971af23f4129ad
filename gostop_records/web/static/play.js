/* /play's taps and keys, and its start: the last of the page's scripts (see play_state.js). */
"use strict";
// --- taps and keys -------------------------------------------------------------------------

function playCard(code) {
  if (!view || busy) return;
  const o = optionFor(view, code);
  if (o && o.choose) {
    pick = { card: code, takes: o.takes };
    render(view);
    return;
  }
  act({ kind: "play", card: code });
}

document.addEventListener("click", (e) => {
  const el = e.target.closest("button, #layout [data-code], #opponents [data-code], .felt-box");
  if (!el) return;
  if (busy) {
    if (el.closest(".felt-box, #caption")) skip();
    return;
  }
  if (el.id === "again") return void newHand();
  if (el.id === "hint-button") return void askHint();
  if (el.id === "next-hand") return void nextHand();
  if (el.matches("#hand .hand-card")) return void playCard(el.dataset.code);
  if (el.dataset.choose && pick) return void act({ kind: "play", card: pick.card, chosen: el.dataset.choose });
  if (el.dataset.cancel) {
    pick = null;
    return void render(view);
  }
  if (el.dataset.flip) return void act({ kind: "flip", chosen: el.dataset.flip });
  if (el.dataset.answer) return void act({ kind: el.dataset.answer });
  if (el.dataset.cup) return void act({ kind: "cup", chosen: el.dataset.cup });
  if (el.dataset.kind) {
    const body = { kind: el.dataset.kind };
    if (el.dataset.month) body.month = +el.dataset.month;
    return void act(body);
  }
  // a card on the table: in a choice it is one of the two; otherwise the server says why
  // it cannot be played (the page decides no rule)
  const code = el.dataset && el.dataset.code;
  if (code && view && view.step.human) {
    if (pick && pick.takes.includes(code)) return void act({ kind: "play", card: pick.card, chosen: code });
    if (view.step.kind === "flip" && view.flip.choices.includes(code)) return void act({ kind: "flip", chosen: code });
    if (view.step.kind === "play") act({ kind: "play", card: code });
  }
});

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.target.closest && e.target.closest("input, select, textarea, summary")) return;
  const k = e.key.toLowerCase();
  if (busy) {
    if (k === " " || k === "enter" || k === "escape") {
      skip();
      e.preventDefault();
    }
    return;
  }
  if (!view) return;
  const step = view.step.human ? view.step.kind : null;
  const digit = /^[0-9]$/.test(k) ? (k === "0" ? 10 : +k) : 0;
  if (k === "n") return void newHand();
  if (e.key === "?" && !$("hint-button").hidden) return void askHint();
  if (k === "h" && view.next_hand) return void nextHand();
  if (k === "arrowleft" || k === "arrowright") {
    const cards = [...document.querySelectorAll("#hand button:not([disabled]), #choices button")];
    if (!cards.length) return;
    const at = cards.indexOf(document.activeElement);
    const next = at < 0 ? 0 : (at + (k === "arrowright" ? 1 : cards.length - 1)) % cards.length;
    cards[next].focus();
    e.preventDefault();
    return;
  }
  if (pick) {
    if (k === "escape") {
      pick = null;
      render(view);
    } else if (digit && pick.takes[digit - 1]) {
      act({ kind: "play", card: pick.card, chosen: pick.takes[digit - 1] });
    }
    return;
  }
  if (step === "play" && digit) {
    const btn = document.querySelector(`#hand .hand-card[data-key="${k}"]`);
    if (btn) playCard(btn.dataset.code);
  } else if (step === "flip" && digit && view.flip.choices[digit - 1]) {
    act({ kind: "flip", chosen: view.flip.choices[digit - 1] });
  } else if (step === "decide" && (k === "g" || k === "s")) {
    act({ kind: k === "g" ? "go" : "stop" });
  } else if (step === "cup" && (k === "a" || k === "j")) {
    act({ kind: "cup", chosen: k === "a" ? "animal" : "junk" });
  }
});

$("new-hand").addEventListener("submit", (e) => {
  e.preventDefault();
  newHand();
});
$("ruleset").addEventListener("change", () => fillPlayers(+$("players").value));

// --- start ---------------------------------------------------------------------------------

loadDisplay();
fillPlayers(+params.get("players") || 2);
const frag = new URLSearchParams(location.hash.slice(1));
if (frag.get("hand")) resume(frag.get("hand"));
else newHand();
