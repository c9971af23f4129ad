/* The end of a hand on /play: the result, the payout proof, the deals revealed and their
   commitment checked with SHA-256. (Loaded after play_draw.js; see play_state.js.) */
"use strict";
// --- the end: the result, the proof, the replay, the deal checked ------------------------

// the payout proof, drawn by the shared proof.js from the lines the server words
function proofHtml(v, p) {
  return GostopProof.html(p, (c) => face(c, "card mini"));
}

function drawEnd(v) {
  const box = $("end");
  if (!v.deals) {
    box.hidden = true;
    box.innerHTML = "";
    return;
  }
  if (box.dataset.game === v.game_id && box.dataset.version === String(v.version) && !box.hidden) return;
  box.dataset.game = v.game_id;
  box.dataset.version = String(v.version);
  const r = v.result || {};
  let head;
  if (r.outcome === "stop") head = r.winner === 0 ? "You win" : `${seatName(v, r.winner)} wins`;
  else if (r.outcome === "instant") head = `${r.winner === 0 ? "You win" : seatName(v, r.winner) + " wins"} at once (${r.reason || "instant"})`;
  else head = "No winner: nagari (a draw)";
  const paid = v.log.slice(v.log_from).filter((l) => l.startsWith("paid:"));
  let html = `<h2 id="result" data-outcome="${esc(r.outcome || "")}">${esc(head)}</h2>`;
  if (paid.length) html += `<ul class="paid">${paid.map((l) => `<li>${esc(l)}</li>`).join("")}</ul>`;
  if (v.proof) html += proofHtml(v, v.proof);
  if (v.multi_hand) {
    // the game goes on: the net chips of every hand so far, one line per seat
    const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");
    html +=
      `<table class="ledger" id="ledger"><caption>After ${v.hands_played} hand${v.hands_played === 1 ? "" : "s"} of this game</caption>` +
      v.ledger.map((n, seat) => `<tr data-seat="${seat}"><td>${esc(seatName(v, seat))}</td><td class="num">${signed(n)} chip${Math.abs(n) === 1 ? "" : "s"}</td></tr>`).join("") +
      `</table>`;
  }
  const what = v.multi_hand ? "game" : "hand";
  if (v.practice) {
    html += `<p class="practice" id="practice-end">Practice from seq ${v.practice.seq} of hand ${v.practice.hand} of game <code>${esc(v.practice.game_id)}</code>: not kept in the store.</p>`;
  } else if (v.stored) {
    html += `<p class="stored">Kept in the store as game <code>${esc(v.game_id)}</code>, a normal log. <a id="replay-link" href="${esc(v.replay)}">Replay this ${what}</a></p>`;
  } else {
    html += `<p class="refusal">The hand could not be stored: ${esc(v.store_error || "unknown reason")}</p>`;
  }
  if (v.review) html += `<p class="review-link"><a id="review-link" href="${esc(v.review)}" target="_blank" rel="noopener">Review this hand: was each decision a good one? (and play one again)</a></p>`;
  html += "<p>";
  if (v.next_hand) html += button('class="big" id="next-hand"', "Next hand <kbd>H</kbd>") + " ";
  html += button(`class="${v.next_hand ? "plain" : "big"}" id="again"`, v.multi_hand ? "New game <kbd>N</kbd>" : "Play another hand <kbd>N</kbd>");
  html += "</p>";
  box.innerHTML = html;
  box.hidden = false;
  // a phone shows the result as the hand ends (below the fold otherwise)
  if (box.getBoundingClientRect().top > window.innerHeight * 0.6) {
    box.scrollIntoView({ block: "start", behavior: "smooth" });
  }
  revealDeals(v);
}

async function revealDeals(v) {
  const box = $("commit");
  const deals = v.deals.filter((d) => d.hand >= v.deals_from);
  box.innerHTML = deals
    .map(
      (d) =>
        `<div class="reveal" data-hand="${d.hand}" data-verified="pending">` +
        `<p>Hand ${d.hand}: committed <code class="hash">${esc(seen[d.hand] || d.commitment)}</code></p>` +
        `<p class="verdict">checking…</p>` +
        `<p>Salt <code>${esc(d.salt)}</code>, the deck in order:</p>` +
        `<div class="deck">${d.deck.map((c) => face(c, "card mini")).join("")}</div>` +
        `<details><summary>Check it yourself</summary><pre>printf '%s' '${esc(d.salt)} ${esc(d.deck.join(" "))}' | sha256sum</pre></details></div>`,
    )
    .join("");
  for (const d of deals) {
    const el = box.querySelector(`.reveal[data-hand="${d.hand}"]`);
    const hex = await sha256hex(`${d.salt} ${d.deck.join(" ")}`);
    const promised = seen[d.hand] || d.commitment;
    const ok = hex === promised && hex === d.commitment;
    el.dataset.verified = ok ? "yes" : "no";
    el.querySelector(".verdict").innerHTML = ok
      ? `<b class="ok">✓ verified</b>: sha256 of the salt and the deck is the commitment shown before the first play, so the cards were fixed before anyone played.`
      : `<b class="refusal">✗ does not match</b>: sha256 gives <code>${esc(hex)}</code>.`;
  }
}

// SHA-256 of a text as hex: the browser's own where it offers it (secure contexts), else
// this small implementation (a phone on the local network reaches the server over http).
async function sha256hex(text) {
  const bytes = new TextEncoder().encode(text);
  if (window.crypto && crypto.subtle && window.isSecureContext) {
    const digest = await crypto.subtle.digest("SHA-256", bytes);
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  }
  return sha256js(bytes);
}

function sha256js(bytes) {
  const K = [];
  const H = [];
  let n = 2;
  for (let found = 0; found < 64; n++) {
    let prime = true;
    for (let d = 2; d * d <= n; d++) if (n % d === 0) prime = false;
    if (!prime) continue;
    if (found < 8) H[found] = (Math.pow(n, 1 / 2) * 4294967296) | 0;
    K[found++] = (Math.pow(n, 1 / 3) * 4294967296) | 0;
  }
  const len = bytes.length;
  const words = new Uint32Array((((len + 9 + 63) >> 6) << 4));
  for (let i = 0; i < len; i++) words[i >> 2] |= bytes[i] << (24 - (i % 4) * 8);
  words[len >> 2] |= 0x80 << (24 - (len % 4) * 8);
  words[words.length - 1] = len * 8;
  words[words.length - 2] = Math.floor((len * 8) / 4294967296);
  const w = new Uint32Array(64);
  const rot = (x, r) => (x >>> r) | (x << (32 - r));
  for (let i = 0; i < words.length; i += 16) {
    let [a, b, c, d, e, f, g, h] = H;
    for (let j = 0; j < 64; j++) {
      if (j < 16) w[j] = words[i + j];
      else {
        const s0 = rot(w[j - 15], 7) ^ rot(w[j - 15], 18) ^ (w[j - 15] >>> 3);
        const s1 = rot(w[j - 2], 17) ^ rot(w[j - 2], 19) ^ (w[j - 2] >>> 10);
        w[j] = (w[j - 16] + s0 + w[j - 7] + s1) | 0;
      }
      const t1 = (h + (rot(e, 6) ^ rot(e, 11) ^ rot(e, 25)) + ((e & f) ^ (~e & g)) + K[j] + w[j]) | 0;
      const t2 = ((rot(a, 2) ^ rot(a, 13) ^ rot(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    H[0] = (H[0] + a) | 0;
    H[1] = (H[1] + b) | 0;
    H[2] = (H[2] + c) | 0;
    H[3] = (H[3] + d) | 0;
    H[4] = (H[4] + e) | 0;
    H[5] = (H[5] + f) | 0;
    H[6] = (H[6] + g) | 0;
    H[7] = (H[7] + h) | 0;
  }
  return H.map((x) => (x >>> 0).toString(16).padStart(8, "0")).join("");
}
window.GostopPlay = { sha256js: (text) => sha256js(new TextEncoder().encode(text)) };
