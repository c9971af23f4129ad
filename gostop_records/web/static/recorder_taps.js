/* What may be tapped now: the cards and buttons of the step the rules wait for, a tap the
   step does not expect asked before it is recorded, a double tap told from a single one.
   (Loaded after recorder_queue.js; see recorder_state.js.) */
"use strict";
// --- a tap the step does not expect: asked before it is recorded ---------------------

function ask(html, yesLabel, go) {
  asking = { html, yesLabel, go };
  drawAsk();
}

function drawAsk() {
  const el = $("confirm");
  el.hidden = !asking;
  if (!asking) return (el.innerHTML = "");
  el.innerHTML = `<div class="sheet-body"><p>${asking.html}</p>` +
    `<button type="button" class="big" id="confirm-yes">${T.esc(asking.yesLabel)}</button>` +
    `<button type="button" class="big secondary" id="confirm-no">Cancel</button></div>`;
  $("confirm-yes").addEventListener("click", () => { const go = asking.go; asking = null; drawAsk(); go(); });
  $("confirm-no").addEventListener("click", () => { asking = null; drawAsk(); });
  $("confirm-no").focus();
}

/* A card tap: a double tap (a second touch on the same spot right after the first, or
   the second click of a double click) that lands on a picker drawn for the next step
   under the finger is asked about, not recorded. */
function cardTap(ev, kind, line, go) {
  const t = performance.now();
  const prev = lastTap;
  const touch = ev.pointerType === "touch";
  lastTap = { t, x: ev.clientX, y: ev.clientY, kind, touch };
  const moved = prev && prev.kind !== kind;
  const bounce = moved && (ev.detail >= 2 || (touch && prev.touch && t - prev.t < DOUBLE_TAP_MS &&
    Math.hypot(ev.clientX - prev.x, ev.clientY - prev.y) < DOUBLE_TAP_PX));
  if (!bounce) return go();
  const step = kind === "flip" ? "the card <b>flipped</b> from the stock" : "the card <b>played</b> from the hand";
  ask(`This tap came right after the last one, on the same spot: the table now waits for ${step}. ` +
    `Record <code>${T.esc(line)}</code>?`, "Record it", go);
}

// --- what may be tapped now -----------------------------------------------------------

/* The kind of entry expected next: the server's word when nothing waits, else a guess
   from the last waiting line (the server still checks each one). */
function expecting() {
  if (!queue.length) return tallied() ? "deal" : now.waiting.kind;
  const last = queue[queue.length - 1].line.split(/\s+/)[0];
  if (last === "play" || last === "bomb") return "flip";
  if (last === "flip" || last === "go") return "play";
  return "wait";
}

/* Whether the table left the payments of the hand just ended to the night's settlement
   (it tallies): the recorder goes on to the next deal, the payments stay owed. */
function tallied() {
  return now.waiting.kind === "pay" && localStorage.getItem(TALLY) === String(now.waiting.hand);
}

function cardActions(verb) {
  const by = new Map();
  for (const a of now.actions) {
    const v = a.verb === "card_played" ? "play" : a.verb === "card_flipped" ? "flip" : null;
    if (v !== verb) continue;
    if (!by.has(a.card)) by.set(a.card, []);
    by.get(a.card).push(a);
  }
  return by;
}

function tapCard(verb, code, acts) {
  if (acts && acts.length > 1) {
    choice = { verb, card: code, options: acts.map((a) => a.chosen) };
    message = null;
    draw();
    const first = document.querySelector("#choice button");
    if (first) first.focus();
    return;
  }
  enqueue([acts && acts.length ? acts[0].line : `${verb} ${code}`]);
}

function cardButton(code, attrs, cls) {
  return (
    `<button type="button" class="pick ${cls || ""}" data-code="${T.esc(code)}" ${attrs || ""}` +
    ` aria-label="${T.esc(T.label(code))}" title="${T.esc(T.label(code))}">` +
    `<svg viewBox="0 0 50 80" aria-hidden="true"><use href="#card-${T.esc(code)}"></use></svg>` +
    `<span class="code">${T.esc(code)}</span></button>`
  );
}

/* The cards to pick from as a compact grid that fits a phone: two months a row, each
   month in four fixed slots (a card seen leaves its slot empty, so a card never moves
   under the finger as the hand goes on), the bonus cards in a row of their own. */
function byMonth(codes, render) {
  const have = new Set(codes);
  const rows = [];
  for (let m = 1; m <= 12; m++) {
    const cards = T.data.deck.filter((c) => T.monthOf(c) === m);
    const any = cards.some((c) => have.has(c));
    rows.push(`<div class="pick-month${any ? "" : " none"}" data-month="${m}"><span class="m">${m}</span>` +
      cards.map((c) => (have.has(c) ? render(c) : `<span class="slot" aria-hidden="true"></span>`)).join("") + `</div>`);
  }
  const bonus = codes.filter((c) => !T.monthOf(c));
  if (bonus.length) rows.push(`<div class="pick-month bonus" data-month="0"><span class="m">bonus</span>${bonus.map(render).join("")}</div>`);
  return `<div class="pick-grid">${rows.join("")}</div>`;
}

/* The entries of the table around the hand the rules wait for or allow now. */
function around(entry) {
  return !queue.length && now.around && now.around.entries.includes(entry);
}

function drawPicker(kind) {
  const pick = $("picker");
  const title = $("picker-title");
  if (kind === "deal" && around("draw")) {
    // 밤일낮장: each seat draws a card; tap them in the order of the seats
    $("picker-box").hidden = false;
    const seats = now.around.draw_seats;
    const next = drawn.length < seats.length ? T.nameOf(now, seats[drawn.length]) : null;
    title.textContent = next ? `The draw for the first dealer: tap the card ${next} drew` : "The draw: night or day?";
    const all = T.data.deck.filter((c) => /^\d/.test(c));
    pick.innerHTML = byMonth(all, (c) =>
      cardButton(c, `data-draw aria-pressed="${drawn.includes(c)}"`, drawn.includes(c) ? "on" : ""));
    return;
  }
  if (kind === "deal") {
    $("picker-box").hidden = false;
    const all = T.data.deck.filter((c) => /^\d/.test(c) || now.deal.bonus.includes(c));
    const n = dealPicked.filter((c) => /^\d/.test(c)).length;
    title.textContent = `Tap the ${now.deal.layout} cards laid out (${n} of ${now.deal.layout})`;
    pick.innerHTML = byMonth(all, (c) =>
      cardButton(c, `data-deal aria-pressed="${dealPicked.includes(c)}"`, dealPicked.includes(c) ? "on" : ""));
    return;
  }
  $("picker-box").hidden = kind !== "play" && kind !== "flip" && kind !== "deal";
  delete $("picker-box").dataset.verb;
  if (kind !== "play" && kind !== "flip") {
    title.textContent = "";
    pick.innerHTML = "";
    return;
  }
  const seat = now.waiting.seat;
  const waitingCards = new Set(queue.flatMap((e) => e.line.split(/\s+/).slice(1)));
  let codes;
  let acts = new Map();
  if (!queue.length) {
    acts = cardActions(kind);
    codes = [...acts.keys()];
  } else {
    codes = now.unseen.filter((c) => !waitingCards.has(c));
  }
  const h = now.table.hand;
  const known = h && seat !== null && !queue.length ? h.seats[seat].hand_known : [];
  const inHand = codes.filter((c) => known.includes(c));
  const rest = codes.filter((c) => !known.includes(c));
  const who = seat !== null && !queue.length ? T.nameOf(now, seat) : "Next player";
  $("picker-box").dataset.verb = kind;
  title.innerHTML = kind === "play"
    ? `<span class="verb-word">Played</span> ${T.esc(who)}: tap the card played <b>from the hand</b>`
    : `<span class="verb-word">Flipped</span> ${T.esc(who)}: tap the card turned up <b>from the stock</b>`;
  const btn = (c) => cardButton(c, `data-verb="${kind}"`);
  pick.innerHTML =
    (inHand.length ? `<div class="pick-hand"><span class="m">hand</span>${inHand.map(btn).join("")}</div>` : "") +
    byMonth(rest, btn);
  pick.querySelectorAll("button[data-verb]").forEach((b) => {
    b.addEventListener("click", (ev) => {
      const a = acts.get(b.dataset.code);
      const line = a && a.length === 1 ? a[0].line : `${kind} ${b.dataset.code}`;
      cardTap(ev, kind, line, () => tapCard(kind, b.dataset.code, a));
    });
  });
}

function drawControls(kind) {
  const c = $("controls");
  let html = "";
  const lineOf = (verb) => now.actions.filter((a) => a.verb === verb);
  if (choice) {
    html += `<div id="choice" class="panel ask sheet" role="dialog" aria-label="which card it takes"><p><b>${T.esc(choice.card)}</b> ${choice.verb === "flip" ? "flipped" : "played"} matches two layout cards: which does it take?</p>` +
      choice.options.map((o) => cardButton(o, `data-choose="${T.esc(o)}"`)).join("") +
      `<button type="button" class="plain" data-cancel>Cancel</button></div>`;
  } else if (!queue.length && kind === "decide") {
    const pays = now.stop_pays ? GostopProof.summary(now.stop_pays) : [];
    html += `<div class="panel ask sheet" id="decide" role="dialog" aria-label="Go or Stop">` +
      (pays.length ? `<p>A Stop pays now:</p><ul class="pays">${pays.map((t) => `<li>${T.esc(t)}</li>`).join("")}</ul>` : "") +
      lineOf("go_called").map((a) => `<button type="button" class="big go" data-line="${T.esc(a.line)}">Go</button>`).join("") +
      lineOf("stop_called").map((a) => `<button type="button" class="big stop" data-line="${T.esc(a.line)}">Stop</button>`).join("") +
      `</div>`;
  } else if (!queue.length && kind === "cup") {
    html += `<div class="panel ask sheet" id="cup" role="dialog" aria-label="the September cup">` +
      lineOf("cup_assigned").map((a) => `<button type="button" class="big" data-line="${T.esc(a.line)}">Cup as ${T.esc(a.role)}</button>`).join("") + `</div>`;
  } else if (!queue.length && kind === "pay") {
    html += `<div class="panel ask" id="pay">` +
      (now.result_words ? `<p class="hand-result"><b>Hand ${now.waiting.hand}:</b> ${T.esc(ended())}.</p>` : "") +
      now.dues.map((d, i) => {
        const draft = payDraft[i] || { amount: String(d.chips), why: "" };
        return `<div class="due"><label for="pay-${i}">${T.esc(T.nameOf(now, d.payer))} pays ${T.esc(T.nameOf(now, d.payee))}</label> ` +
        `<input id="pay-${i}" type="number" min="0" inputmode="numeric" value="${T.esc(draft.amount)}" data-due="${d.chips}" data-i="${i}">` +
        ` chips <span class="muted">due: ${d.chips} (${T.esc(d.reason)}, ${d.points} pt)</span>` +
        `<div class="why"${draft.amount === String(d.chips) ? " hidden" : ""}><label for="why-${i}">Why a different amount?</label>` +
        `<input id="why-${i}" type="text" maxlength="200" data-i="${i}" value="${T.esc(draft.why)}" placeholder="the reason, recorded with it"></div></div>`;
      }).join("") +
      `<button type="button" class="big" id="pay-record">Record the payment</button>` +
      (now.settlement ? `<button type="button" class="plain" id="pay-tally">Tally: pay at the end of the night</button>` : "") +
      proofBox(true) + `</div>`;
  } else if (kind === "deal" && (around("chips") || around("draw"))) {
    html += chipsPanel() + drawPanel();
  } else if (kind === "deal") {
    html += handEndPanel() + settlePanel(kind);
    const out = sitOutPanel();
    const named = !now.deal.choose_dealer || dealerOfDeal() !== null;
    const ready = dealPicked.filter((x) => /^\d/.test(x)).length === now.deal.layout && out.ready && named;
    html += firstDealerPanel() + out.html + `<div class="panel"><button type="button" class="big" id="deal-record"` +
      `${ready ? "" : " disabled"}>Deal</button>` +
      `<button type="button" class="plain" id="deal-clear">Clear</button></div>`;
  } else if (kind === "over") {
    html += handEndPanel() + `<div class="panel"><p>The game is over. <a href="/games/${encodeURIComponent(gid)}/replay">Replay it</a></p></div>`;
  }
  if (["pay", "over", "settle", "closed"].includes(kind)) html += settlePanel(kind);
  if (around("sell")) html += salePanel();
  if (showing) {
    const verb = showing === "shake" ? "shaken" : "bomb_played";
    html += `<div class="panel ask sheet" id="shows" role="dialog" aria-label="which month"><p>${showing === "shake" ? "Shake" : "Bomb"}: which month?</p>` +
      lineOf(verb).map((a) => `<button type="button" data-line="${T.esc(a.line)}">${T.esc(a.line)}</button>`).join("") +
      `<button type="button" class="plain" data-cancel>Cancel</button></div>`;
  }
  c.innerHTML = html;
  // a question opens as a sheet at the bottom, where the thumb is; the toast stays above it
  const sheet = c.querySelector(".sheet");
  document.body.classList.toggle("has-sheet", !!sheet);
  $("toast").style.bottom = sheet ? `${sheet.offsetHeight}px` : "";
  c.querySelectorAll("button[data-line]").forEach((b) => b.addEventListener("click", () => enqueue([b.dataset.line])));
  c.querySelectorAll("button[data-choose]").forEach((b) =>
    b.addEventListener("click", () => enqueue([`${choice.verb} ${choice.card} ${b.dataset.choose}`])));
  c.querySelectorAll("button[data-cancel]").forEach((b) =>
    b.addEventListener("click", () => { choice = null; showing = null; draw(); }));
  const pay = $("pay-record");
  if (pay) {
    const keep = (i) => {
      payDraft[i] = { amount: $(`pay-${i}`).value.trim(), why: $(`why-${i}`).value };
    };
    c.querySelectorAll("input[data-due]").forEach((inp) => inp.addEventListener("input", () => {
      inp.parentElement.querySelector(".why").hidden = inp.value.trim() === inp.dataset.due;
      keep(inp.dataset.i);
    }));
    c.querySelectorAll(".why input").forEach((inp) => inp.addEventListener("input", () => keep(inp.dataset.i)));
    pay.addEventListener("click", payment);
  }
  const tally = $("pay-tally");
  if (tally) {
    tally.addEventListener("click", () => ask(
      "Leave this hand's payments to the end of the night? They stay owed, and the settlement squares them.",
      "Tally it", () => { localStorage.setItem(TALLY, String(now.waiting.hand)); payDraft = {}; draw(); }));
  }
  const untally = $("untally");
  if (untally) untally.addEventListener("click", () => { localStorage.removeItem(TALLY); draw(); });
  wireAround(c);
  wireSettle(c);
  const deal = $("deal-record");
  if (deal) {
    deal.addEventListener("click", () => {
      const layout = dealPicked.filter((x) => /^\d/.test(x));
      const bonus = dealPicked.filter((x) => !/^\d/.test(x));
      const out = outPicked.length ? ` out ${outPicked.join(" ")}` : "";
      const first = now.deal.choose_dealer ? ` dealer ${dealerOfDeal()}` : "";
      dealPicked = [];
      enqueue([`deal layout ${layout.join(" ")}` + (bonus.length ? ` bonus ${bonus.join(" ")}` : "") + first + out]);
    });
    $("deal-clear").addEventListener("click", () => { dealPicked = []; draw(); });
  }
}
