/* The panels around a hand: its end (the proof, the seal), the payments, the night's
   settlement, and the table around the hand (chips, the draw for the first dealer, who
   sits out, a sale of brights). (Loaded after recorder_taps.js; see recorder_state.js.) */
"use strict";
// --- the end of a hand: its proof, then the confirmation with the seal -------------------

/* How the hand just ended, the narrator's sentence without its "hand over:" label. */
function ended() {
  const t = (now.result_words || "").replace(/^hand over:\s*/, "");
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/* The payout proof of the hand just ended (the table's ``proof``), drawn as the replayer
   draws it (proof.js). */
function proofBox(open) {
  const p = now.table.proof;
  if (!p) return "";
  return `<details class="proof"${open ? " open" : ""}><summary>The proof</summary>` +
    GostopProof.html(p, (c) => T.face(c, "card mini")) + `</details>`;
}

/* Between hands: the hand just recorded, paid or tallied, with the seal to write on the
   score sheet, a link to its audit and its proof; the night's totals follow. */
function handEndPanel() {
  const e = now.hand_end;
  if (!e || queue.length) return "";
  const how = e.due ? "Tallied: its payments are owed at the end of the night." : "Its payments are recorded.";
  const audit = `/games/${encodeURIComponent(gid)}/audit#hand-${e.hand}`;
  return `<div class="panel done" id="hand-end"><p><b>Hand ${e.hand} is recorded.</b> ` +
    (now.result_words ? `${T.esc(ended())}. ` : "") + `${how}</p>` +
    sealLine(e) + `<p><a id="hand-audit" href="${audit}">The audit of hand ${e.hand}</a></p>` +
    (tallied() ? `<button type="button" class="plain" id="untally">Pay it now instead</button>` : "") + proofBox(false) + `</div>`;
}

/* The seal to write on the score sheet, with the game, hand and seq it is of. */
function sealLine(e) {
  return `<p class="seal">Seal for the score sheet: <code id="seal">${T.esc(e.seal)}</code> ` +
    `<span class="muted">${T.esc(gid)} · hand ${e.hand} · seq ${e.seq}</span></p>`;
}

// --- the night's settlement (정산) ---------------------------------------------------------

/* Between hands: each seat's total so far and what closing the night would propose, with
   the button that closes it; once closed: each open transfer with its amount (a different
   one needs a reason, recorded with it, as a hand's payment does). */
function settlePanel(kind) {
  const st = now.settlement;
  if (!st || queue.length) return "";
  const name = (x) => T.esc(T.nameOf(now, x));
  const signed = (n) => (n > 0 ? `+${n}` : String(n));
  const totals = `<ul class="totals">` + st.totals.map((t, i) => `<li>${name(i)} <b>${signed(t)}</b>` +
    (st.paid_during[i] ? ` <span class="muted">(${signed(st.paid_during[i])} paid during the night)</span>` : "") +
    `</li>`).join("") + `</ul>`;
  const list = (ts) => ts.length ? ts.map((t) => `${name(t.payer)} pays ${name(t.payee)} ${t.chips}`).join(", ") : "nobody pays anybody";
  if (!st.closed) {
    return `<div class="panel" id="settle"><p>The night so far:</p>${totals}` +
      `<p class="muted">Closing it now proposes: ${list(st.transfers)}</p>` +
      `<button type="button" id="settle-close">Close the night (settle)</button></div>`;
  }
  if (kind === "closed" || !st.open.length) {
    const paid = st.paid.length
      ? `<p>Paid:</p><ul class="paid">` + st.paid.map((p) => `<li>${name(p.payer)} paid ${name(p.payee)} <b>${p.chips}</b>` +
        (p.note ? ` <span class="muted">(${T.esc(p.note)})</span>` : "") + `</li>`).join("") + `</ul>`
      : "<p>Nobody owed anybody.</p>";
    const audit = `/games/${encodeURIComponent(gid)}/audit#settlement`;
    return `<div class="panel done" id="settle"><p><b>The night is closed and settled.</b></p>${totals}${paid}` +
      (now.hand_end ? sealLine(now.hand_end) : "") + `<p><a id="settle-audit" href="${audit}">The audit of the settlement</a></p></div>`;
  }
  return `<div class="panel ask" id="settle"><p>The night is closed. The settlement:</p>${totals}` +
    st.open.map((t, i) => {
      const draft = settleDraft[i] || { amount: String(t.chips), why: "" };
      return `<div class="due"><label for="settle-${i}">${name(t.payer)} pays ${name(t.payee)}</label> ` +
        `<input id="settle-${i}" type="number" min="0" inputmode="numeric" value="${T.esc(draft.amount)}" data-proposed="${t.chips}" data-i="${i}">` +
        ` chips <span class="muted">proposed: ${t.chips}</span>` +
        `<div class="why"${draft.amount === String(t.chips) ? " hidden" : ""}><label for="settle-why-${i}">Why a different amount?</label>` +
        `<input id="settle-why-${i}" type="text" maxlength="200" data-i="${i}" value="${T.esc(draft.why)}" placeholder="the reason, recorded with it"></div></div>`;
    }).join("") +
    `<button type="button" class="big" id="settle-record">Record the settlement</button></div>`;
}

function wireSettle(c) {
  const close = $("settle-close");
  if (close) {
    close.addEventListener("click", () => ask(
      "Close the night? No hand follows; the settlement is proposed and then paid.", "Close it",
      () => enqueue(["settle"])));
  }
  const rec = $("settle-record");
  if (!rec) return;
  const keep = (i) => {
    settleDraft[i] = { amount: $(`settle-${i}`).value.trim(), why: $(`settle-why-${i}`).value };
  };
  c.querySelectorAll("input[data-proposed]").forEach((inp) => inp.addEventListener("input", () => {
    inp.parentElement.querySelector(".why").hidden = inp.value.trim() === inp.dataset.proposed;
    keep(inp.dataset.i);
  }));
  c.querySelectorAll("#settle .why input").forEach((inp) => inp.addEventListener("input", () => keep(inp.dataset.i)));
  rec.addEventListener("click", settlement);
}

function settlement() {
  const open = now.settlement.open;
  const lines = [];
  let differs = false;
  for (let i = 0; i < open.length; i++) {
    const t = open[i];
    const amount = $(`settle-${i}`).value.trim();
    const why = $(`settle-why-${i}`).value.trim();
    if (amount === String(t.chips)) {
      lines.push(`settle pay ${t.payer}->${t.payee} ${t.chips}`);
      continue;
    }
    differs = true;
    if (!/^\d+$/.test(amount)) {
      show("refusal", `<p>${T.esc(amount)} is not a number of chips</p>`);
      return draw();
    }
    if (!why) {
      show("refusal", "<p>A transfer different from the one proposed needs a reason: it is recorded with it.</p>");
      setTimeout(() => { const f = $(`settle-why-${i}`); if (f) f.focus(); });
      return draw();
    }
    lines.push(`settle pay ${t.payer}->${t.payee} ${amount} ${why}`);
  }
  enqueue(differs ? lines : ["settle pay"]);
}

// --- the table around the hand: chips, the draw, who sits out, a sale of brights -------

function seatsOf() {
  return now.table.players.map((p) => p.seat);
}

/* Chips at the start of the sitting: one number a seat, sent as `chips N N N`. */
function chipsPanel() {
  if (!around("chips")) return "";
  return `<div class="panel ask" id="chips"><p>The chips each player brings to the sitting</p>` +
    seatsOf().map((s) => `<div class="chip-row"><label for="chips-${s}">${T.esc(T.nameOf(now, s))}</label> ` +
      `<input id="chips-${s}" type="number" min="0" inputmode="numeric" data-seat="${s}" value="${T.esc(chipsDraft[s] || "")}"> chips</div>`).join("") +
    `<button type="button" class="big" id="chips-record">Count the chips</button></div>`;
}

/* The draw for the first dealer: the cards tapped in the picker, then night or day. */
function drawPanel() {
  if (!around("draw")) return "";
  const seats = now.around.draw_seats;
  const rows = seats.map((s, k) => `<li>${T.esc(T.nameOf(now, s))}: ${drawn[k] ? `<b>${T.esc(drawn[k])}</b>` : '<span class="muted">…</span>'}</li>`).join("");
  const done = drawn.length === seats.length;
  return `<div class="panel ask" id="draw"><p>Who deals first: each player draws a card ` +
    `(by night the lowest month deals, by day the highest)</p><ol class="drawn">${rows}</ol>` +
    `<button type="button" class="big" data-draw-when="night"${done ? "" : " disabled"}>Night</button>` +
    `<button type="button" class="big" data-draw-when="day"${done ? "" : " disabled"}>Day</button>` +
    `<button type="button" class="plain" id="draw-clear">Clear</button></div>`;
}

/* At 4 or 5 seats, who sits the hand out: tapped when the rules leave it to the table
   (sit_out = choice), else said (the dealer and the next two play). */
function sitOutPanel() {
  const k = now.deal.sit_out;
  if (!k) return { html: "", ready: true };
  const dealer = dealerOfDeal() === null ? 0 : dealerOfDeal();
  const n = seatsOf().length;
  if (now.rules.sit_out !== "choice") {
    const out = [];
    for (let j = 3; j < n; j++) out.push((dealer + j) % n);
    return {
      html: `<div class="panel" id="sit-out"><p>${out.map((s) => T.esc(T.nameOf(now, s))).join(" and ")} sit${out.length > 1 ? "" : "s"} out this hand (the dealer and the next two play)</p></div>`,
      ready: true,
    };
  }
  const btns = seatsOf().map((s) => {
    const on = outPicked.includes(s);
    const dealerSeat = s === dealer;
    return `<button type="button" class="seat-toggle${on ? " on" : ""}" data-out-seat="${s}" aria-pressed="${on}"` +
      `${dealerSeat ? ' disabled title="the dealer plays"' : ""}>${T.esc(T.nameOf(now, s))}${dealerSeat ? " (deals)" : ""}</button>`;
  }).join("");
  return {
    html: `<div class="panel ask" id="sit-out"><p>Who sits out this hand? Tap ${k} (${outPicked.length} of ${k})</p>${btns}</div>`,
    ready: outPicked.length === k,
  };
}

/* Who deals the deal waited for: the rules' dealer, or the first dealer tapped. */
function dealerOfDeal() {
  if (now.deal.choose_dealer) return firstDealer !== null && firstDealer < seatsOf().length ? firstDealer : null;
  return now.deal.dealer === null || now.deal.dealer === undefined ? null : now.deal.dealer;
}

/* The first deal, when the rules leave the first dealer to the table: tap who deals. */
function firstDealerPanel() {
  if (!now.deal.choose_dealer) return "";
  const d = dealerOfDeal();
  const btns = seatsOf().map((s) => `<button type="button" class="seat-toggle${d === s ? " on" : ""}" data-first-dealer="${s}" aria-pressed="${d === s}">${T.esc(T.nameOf(now, s))}</button>`).join("");
  return `<div class="panel ask" id="first-dealer"><p><b>Who deals first?</b> ` +
    `<span class="muted">Tap the player the table chose; the deal records it, and play starts with them.</span></p>${btns}</div>`;
}

/* Gwang-pali: a seat sitting out may sell the brights in its hand, before the first play. */
function salePanel() {
  return now.around.sellers.map(({ seat, brights }) => {
    const picked = salePicked[seat] || [];
    const price = now.rules.gwang_price * picked.length;
    return `<div class="panel ask sale" data-seller="${seat}"><p>${T.esc(T.nameOf(now, seat))} sits out: ` +
      `sell brights (${now.rules.gwang_price} pt a bright from each player)?</p>` +
      (brights.length
        ? brights.map((c) => cardButton(c, `data-sell="${seat}" aria-pressed="${picked.includes(c)}"`, picked.includes(c) ? "on" : "")).join("")
        : '<p class="muted">no bright left to sell</p>') +
      `<button type="button" class="big" data-sell-record="${seat}"${picked.length ? "" : " disabled"}>` +
      `Sell${picked.length ? ` ${picked.length} (${price} pt each)` : ""}</button></div>`;
  }).join("");
}

function wireAround(c) {
  c.querySelectorAll("#chips input").forEach((inp) =>
    inp.addEventListener("input", () => { chipsDraft[inp.dataset.seat] = inp.value.trim(); }));
  const chips = $("chips-record");
  if (chips) {
    chips.addEventListener("click", () => {
      // the service checks the counts: its refusal is shown as any other
      const counts = seatsOf().map((s) => $(`chips-${s}`).value.trim() || "?");
      enqueue([`chips ${counts.join(" ")}`]);
    });
  }
  c.querySelectorAll("button[data-draw-when]").forEach((b) => b.addEventListener("click", () => {
    const seats = now.around.draw_seats;
    const pairs = seats.map((s, k) => `${s} ${drawn[k]}`).join(" ");
    enqueue([`draw ${b.dataset.drawWhen} ${pairs}`]);
  }));
  const clear = $("draw-clear");
  if (clear) clear.addEventListener("click", () => { drawn = []; draw(); });
  c.querySelectorAll("button[data-first-dealer]").forEach((b) => b.addEventListener("click", () => {
    firstDealer = +b.dataset.firstDealer;
    localStorage.setItem(DKEY, String(firstDealer));
    outPicked = outPicked.filter((s) => s !== firstDealer);
    draw();
  }));
  c.querySelectorAll("button[data-out-seat]").forEach((b) => b.addEventListener("click", () => {
    const s = +b.dataset.outSeat;
    outPicked = outPicked.includes(s) ? outPicked.filter((x) => x !== s) : [...outPicked, s].sort((a, b2) => a - b2);
    draw();
  }));
  c.querySelectorAll("button[data-sell]").forEach((b) => b.addEventListener("click", () => {
    const seat = b.dataset.sell;
    const cur = salePicked[seat] || [];
    const code = b.dataset.code;
    salePicked[seat] = cur.includes(code) ? cur.filter((x) => x !== code) : [...cur, code];
    draw();
  }));
  c.querySelectorAll("button[data-sell-record]").forEach((b) => b.addEventListener("click", () => {
    const seat = b.dataset.sellRecord;
    enqueue([`sell ${seat} ${(salePicked[seat] || []).join(" ")}`]);
  }));
}

function payment() {
  const lines = [];
  let differs = false;
  now.dues.forEach((d, i) => {
    const amount = $(`pay-${i}`).value.trim();
    const why = $(`why-${i}`).value.trim();
    if (amount !== String(d.chips)) {
      differs = true;
      if (!/^\d+$/.test(amount)) {
        show("refusal", `<p>${T.esc(amount)} is not a number of chips</p>`);
        return;
      }
      if (!why) {
        show("refusal", "<p>A payment different from the one due needs a reason: it is recorded with it.</p>");
        setTimeout(() => { const f = $(`why-${i}`); if (f) f.focus(); });
        return;
      }
      lines.push(`pay ${d.payer}->${d.payee} ${amount} ${why}`);
    } else {
      lines.push(`pay ${d.payer}->${d.payee} ${d.chips}`);
    }
  });
  if (lines.length !== now.dues.length) return draw();
  enqueue(differs ? lines : ["pay"]);
}
