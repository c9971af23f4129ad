/* The payout proof of a hand (the engine's Proof as JSON, views.proof_dict), drawn one way
   for every page that shows it: the replayer beside the payments, the recorder when the
   table settles the hand. Score lines with their cards, the Go bonus, and for each loser
   every factor (applied or not, with its setting) and the sum. */
"use strict";
window.GostopProof = (function () {
  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({
      "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
    })[c]);
  }

  /* ``who(seat)``: a seat's name; ``card(code)``: a small drawing of a card. */
  function html(p, who, card) {
    let out = `<table class="score-lines"><caption>${esc(who(p.winner))} scores ${p.score.total} points</caption>`;
    out += p.score.lines
      .map((ln) => `<tr><td>${esc(ln.name)}</td><td class="cards">${ln.cards.map(card).join("")}</td><td class="num">${ln.points}</td></tr>`)
      .join("");
    if (p.score.cup_role) out += `<tr><td colspan="3">September cup as ${esc(p.score.cup_role)}: ${esc(p.score.cup_reason || "")}</td></tr>`;
    out += `<tr class="total"><td>${p.go_count ? `${p.go_count} Go: ${esc(p.go_formula)}` : "no Go"}</td><td></td><td class="num">${p.go_points}</td></tr></table>`;
    for (const lp of p.losers) {
      out += `<div class="loser" data-loser="${lp.loser}"><h3>from ${esc(who(lp.loser))}</h3><ul class="factors">`;
      out += lp.factors
        .map((x) => `<li class="${x.applies ? "applies" : "not"}"><b>${x.applies ? "×" + x.factor : "–"}</b> ${esc(x.name)}: ${esc(x.condition)} <code>${esc(x.setting)}</code></li>`)
        .join("");
      out += `</ul><p class="sum">${p.go_points} points × ${lp.multiplier} = ${lp.points} points × stake ${p.stake} = <b>${lp.chips} chips</b>` +
        `${lp.pays_chips !== lp.chips || lp.note ? ` (pays ${lp.pays_chips}${lp.note ? ": " + esc(lp.note) : ""})` : ""}</p></div>`;
    }
    return out;
  }

  return { html };
})();
