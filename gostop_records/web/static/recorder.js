/* The recorder: taps become lines of the recorder's grammar, sent one at a time to
   POST /api/games/{id}/entries with the version they expect and an idempotency key.
   What may be tapped comes from GET /api/games/{id}/now (the engine's legal entries); the
   page decides no rule. Entries wait in localStorage until the server confirms them, so a
   lost network or a reload loses nothing and a retry is never recorded twice. */
"use strict";
(function () {
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

  // --- the entry just made: a toast with Undo ----------------------------------------

  /* The entry in a few words, naming the player it was made for. */
  function entryWords(lines, seat) {
    const who = seat === null || seat === undefined ? "" : T.nameOf(now, seat);
    const [verb, card, chosen] = lines[0].split(/\s+/);
    const takes = chosen && /^\d/.test(chosen) ? `, takes ${chosen}` : "";
    if (verb === "play") return `${who} played ${card}${takes}`;
    if (verb === "flip") return `${who} flipped ${card}${takes}`;
    if (verb === "go") return `${who}: Go`;
    if (verb === "stop") return `${who}: Stop`;
    if (verb === "deal") return "The deal";
    if (verb === "pay") return lines.length > 1 || lines[0] !== "pay" ? "The payments as typed" : "The payments due";
    if (verb === "settle") return lines[0] === "settle" ? "The night closed" : lines[0] === "settle pay" ? "The settlement as proposed" : "The settlement as typed";
    return lines.join("; ");
  }

  function showToast(key, line, text) {
    if (toast) clearTimeout(toast.timer);
    toast = { key, line, text, version: null, timer: setTimeout(hideToast, TOAST_MS) };
    drawToast();
  }

  function hideToast() {
    if (toast) clearTimeout(toast.timer);
    toast = null;
    drawToast();
  }

  function drawToast() {
    const el = $("toast");
    el.hidden = !toast;
    if (!toast) return (el.innerHTML = "");
    const card = /^(?:play|flip) (\S+)/.exec(toast.line);
    el.innerHTML = (card ? T.face(card[1], "card mini") : "") +
      `<span class="toast-text">Recorded: <b>${T.esc(toast.text)}</b></span>` +
      `<button type="button" id="toast-undo">Undo</button>`;
    $("toast-undo").addEventListener("click", undoToast);
  }

  /* Undo the entry of the toast: not sent yet, it is dropped with what followed it; being
     sent, it is retracted once recorded; recorded, retracted if nothing came after it. */
  function undoToast() {
    const t = toast;
    hideToast();
    if (!t) return;
    const i = queue.findIndex((e) => e.key === t.key);
    if (i > 0 || (i === 0 && !inFlight)) {
      show("info", `<p>Not sent, undone: <code>${T.esc(queue[i].line)}</code></p>` + dropRest(i + 1, "Also not sent, as they followed it"));
      queue.splice(i, 1);
      save();
      return draw();
    }
    if (i === 0) {
      undoWhenSent = t.key;
      return;
    }
    if (t.version !== null && now && now.version === t.version && now.undo) {
      enqueue([`undo @${now.undo.seq}`]);
      return;
    }
    show("info", "<p>Entries were recorded after it: undo them with the Undo button below, newest first.</p>");
    draw();
  }

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

  // --- the queue ------------------------------------------------------------------------

  function enqueue(lines) {
    const seat = now && !queue.length ? now.waiting.seat : null;
    for (const line of lines) queue.push({ key: newKey(), line, expected: null });
    const verb = lines.length === 1 ? lines[0].split(/\s+/)[0] : "";
    if (verb !== "undo" && verb !== "note") showToast(queue[queue.length - 1].key, lines[0], entryWords(lines, seat));
    choice = null;
    showing = null;
    message = null;
    payDraft = {};
    settleDraft = {};
    drawn = [];
    outPicked = [];
    salePicked = {};
    save();
    draw();
    pump();
  }

  function dropRest(from, why) {
    const lost = queue.splice(from);
    save();
    return lost.length
      ? `<p>${T.esc(why)}: ${lost.map((e) => `<code>${T.esc(e.line)}</code>`).join(", ")}</p>`
      : "";
  }

  async function pump() {
    if (inFlight || !queue.length || !now) return;
    inFlight = true;
    const entry = queue[0];
    if (entry.expected === null) {
      entry.expected = Math.max(now.version, +(localStorage.getItem(VKEY) || 0));
      save();
    }
    let r;
    try {
      r = await fetch(`${api}/entries`, {
        method: "POST",
        headers: headers({ "Content-Type": "application/json", "Idempotency-Key": entry.key }),
        body: JSON.stringify({ entry: entry.line, expected_version: entry.expected }),
      });
    } catch (e) {
      inFlight = false;
      setOnline(false);
      draw();
      return; // sent again when the network is back (same key, same version)
    }
    const body = await r.json().catch(() => ({}));
    inFlight = false;
    if (r.status === 201) {
      queue.shift();
      localStorage.setItem(VKEY, String(body.version));
      if (toast && toast.key === entry.key) toast.version = body.version;
      if (undoWhenSent === entry.key) {
        undoWhenSent = null;
        const dropped = dropRest(0, "Not sent, as they followed the entry undone");
        queue.push({ key: newKey(), line: `undo @${lastInput(body)}`, expected: body.version });
        if (dropped) show("info", dropped);
      }
      if (queue.length && queue[0].expected === null) {
        queue[0].expected = body.version;
      }
      save();
      setOnline(true);
      if (queue.length) {
        draw();
        pump();
      } else {
        await refresh();
      }
      return;
    }
    if (r.status >= 500 || r.status === 503) {
      setOnline(false);
      setTimeout(pump, 2000);
      return;
    }
    queue.shift();
    save();
    const old = now ? now.version : 0;
    if (r.status === 409) {
      await refresh();
      const changed = now.recent.filter((x) => x.seq > entry.expected);
      show(
        "conflict",
        `<p><b>Another device recorded first.</b> Since version ${entry.expected}:</p>` +
          `<ul>${changed.map((x) => `<li><span class="seq">${x.seq}</span> ${T.esc(x.line)}</li>`).join("")}</ul>` +
          `<p>Not recorded: <code>${T.esc(entry.line)}</code>. Look at the table and enter it again if it still holds.</p>` +
          dropRest(0, "Also not sent"),
      );
    } else {
      const rule = body.rule ? `<span class="rule">${T.esc(body.rule)}</span> ` : "";
      let html = `<p><b>Refused:</b> <code>${T.esc(entry.line)}</code></p><p>${rule}${T.esc(body.reason || body.error || r.status)}</p>`;
      html += dropRest(0, "Not sent, as they followed it");
      await refresh();
      if (body.rule === "choice_required" && body.candidates && body.candidates.length) {
        const [verb, card] = entry.line.split(/\s+/);
        choice = { verb, card, options: body.candidates };
      }
      show("refusal", html);
      if (old !== now.version) return draw();
    }
    draw();
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

  function drawTools(kind) {
    const has = (verb) => !queue.length && now.actions.some((a) => a.verb === verb);
    const t = $("tools");
    const parts = [];
    const undo = now.undo && !queue.length;
    parts.push(`<button type="button" id="undo"${undo ? "" : " disabled"} title="${undo ? T.esc("retract: " + now.undo.line) : "nothing to undo"}">Undo${undo ? ": " + T.esc(now.undo.line) : ""}</button>`);
    const playing = kind === "play";
    if (now.rules.shaking && playing) parts.push(`<button type="button" id="shake"${has("shaken") ? "" : " disabled"}>Shake</button>`);
    if (now.rules.bombs && playing) parts.push(`<button type="button" id="bomb"${has("bomb_played") ? "" : " disabled"}>Bomb</button>`);
    if (now.rules.bombs && playing) parts.push(`<button type="button" id="flip-only"${has("flip_only_played") ? "" : " disabled"}>Flip only</button>`);
    for (const a of now.actions) {
      if (a.verb === "four_of_a_month_shown" && !queue.length) parts.push(`<button type="button" data-line="${T.esc(a.line)}">${T.esc(a.line)}</button>`);
    }
    t.innerHTML = parts.join("");
    $("undo").addEventListener("click", () => ask(`Undo <code>${T.esc(now.undo.line)}</code>? It is retracted from the record.`, "Undo it", () => enqueue(["undo"])));
    if ($("shake")) $("shake").addEventListener("click", () => { showing = "shake"; draw(); });
    if ($("bomb")) $("bomb").addEventListener("click", () => { showing = "bomb"; draw(); });
    const who = now.waiting.seat === null ? "" : T.nameOf(now, now.waiting.seat);
    if ($("flip-only")) $("flip-only").addEventListener("click", () => ask(`${T.esc(who)} plays no card this turn (a flip-only turn)?`, "Record it", () => enqueue(["flip-only"])));
    t.querySelectorAll("button[data-line]").forEach((b) => b.addEventListener("click", () => ask(`Record <code>${T.esc(b.dataset.line)}</code>?`, "Record it", () => enqueue([b.dataset.line]))));
  }

  function drawQueue() {
    $("pending").innerHTML = queue.map((e) =>
      `<li class="pending" data-line="${T.esc(e.line)}"><span class="dot" aria-hidden="true"></span>${T.esc(e.line)} <span class="muted">${online ? "sending…" : "waiting for the network"}</span></li>`).join("");
  }

  /* What the rules wait for, naming the first dealer tapped before the first deal. */
  function promptNow() {
    if (tallied()) {
      const d = now.deal.dealer;
      return `Hand ${now.waiting.hand + 1}: the deal` + (d === null || d === undefined ? "" : ` (dealer ${T.nameOf(now, d)})`);
    }
    if (now.waiting.kind === "deal" && now.deal.choose_dealer) {
      const d = dealerOfDeal();
      return `Hand ${now.waiting.hand}: the deal` + (d === null ? ": who deals first?" : ` (dealer ${T.nameOf(now, d)})`);
    }
    return T.prompt(now, true);
  }

  function draw() {
    if (!now) {
      $("prompt").textContent = "Reading the game…";
      return;
    }
    const kind = expecting();
    $("prompt").textContent = queue.length ? `${queue.length} entr${queue.length > 1 ? "ies" : "y"} waiting to be confirmed` : promptNow();
    document.body.dataset.waiting = queue.length ? "pending" : now.waiting.kind;
    if (kind !== document.body.dataset.step && (kind === "pay" || (kind === "deal" && now.table.hand))) {
      // a panel of the step (the payment, the next deal) opens at the top: bring its top into
      // view, under the step bar (it may be taller than the screen: the proof follows it)
      setTimeout(() => $("controls").scrollIntoView({ block: "start" }));
    }
    document.body.dataset.step = kind;
    $("step").textContent = STEPS[kind] || kind;
    const m = $("message");
    m.hidden = !message;
    m.className = message ? `message ${message.kind}` : "message";
    m.innerHTML = message ? message.html + `<button type="button" class="plain" id="dismiss">OK</button>` : "";
    if (message) $("dismiss").addEventListener("click", () => { message = null; draw(); });
    drawControls(kind);
    drawPicker(kind);
    drawTools(kind);
    drawQueue();
    T.render(now, $("table"), $("seats"));
    T.recent(now, $("recent"));
    setOnline(online);
  }

  $("picker").addEventListener("click", (ev) => {
    const d = ev.target.closest("button[data-draw]");
    if (d) {
      const c = d.dataset.code;
      if (drawn.includes(c)) drawn = drawn.filter((x) => x !== c);
      else if (drawn.length < now.around.draw_seats.length) drawn = [...drawn, c];
      return draw();
    }
    const b = ev.target.closest("button[data-deal]");
    if (!b) return;
    const c = b.dataset.code;
    dealPicked = dealPicked.includes(c) ? dealPicked.filter((x) => x !== c) : [...dealPicked, c];
    draw();
    const again = document.querySelector(`#picker button[data-code="${c}"]`);
    if (again) again.focus();
  });
  $("note-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("note-text").value.trim();
    if (!text) return;
    $("note-text").value = "";
    enqueue([`note ${text}`]);
  });

  window.addEventListener("online", () => { setOnline(true); pump(); });
  window.addEventListener("offline", () => { setOnline(false); draw(); });
  setInterval(() => { if (queue.length && !inFlight) pump(); }, 3000);

  if (!token) {
    show("refusal", "<p>This device has no recorder token for the game: open the link (or QR code) given when the game was started.</p>");
  }
  draw();
  refresh().then(() => { document.body.classList.add("ready"); pump(); });
})();
