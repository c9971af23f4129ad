// The replayer: draws the table after any event of a game from the data the page carries.
// The server computed every table (the projector's own); this script only rebuilds the
// frames from their patches, draws one, and moves between them. No request is ever made.
(function () {
  "use strict";

  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const $ = (id) => document.getElementById(id);
  const KINDS = ["brights", "animals", "ribbons", "junk"];

  // --- data --------------------------------------------------------------------------------

  // The twin of replay_data.patch: {"=": v} replaces, {"~": {i: p}} patches list items, a
  // dict patches a dict key by key, anything else is the new value.
  function patch(old, p) {
    if (p !== null && typeof p === "object" && !Array.isArray(p)) {
      const keys = Object.keys(p);
      if (keys.length === 1 && keys[0] === "=") return p["="];
      if (keys.length === 1 && keys[0] === "~" && Array.isArray(old)) {
        const out = old.slice();
        for (const k of Object.keys(p["~"])) out[+k] = patch(old[+k], p["~"][k]);
        return out;
      }
      if (old !== null && typeof old === "object" && !Array.isArray(old)) {
        const out = Object.assign({}, old);
        for (const k of keys) out[k] = patch(old[k], p[k]);
        return out;
      }
    }
    return p;
  }

  const frames = [];
  data.frames.forEach((p, i) => frames.push(i ? patch(frames[i - 1], p) : p));
  const events = data.events.map((row) => {
    const e = {};
    data.event_fields.forEach((name, k) => (e[name] = row[k]));
    return e;
  });
  const last = events.length - 1;
  const handOf = {};
  data.hands.forEach((h) => (handOf[h.hand] = h));
  const names = data.players.map((p) => p.name);

  // --- drawing helpers -----------------------------------------------------------------------

  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({
      "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
    })[c]);
  }

  function card(code, extra) {
    const label = data.labels[code] || code;
    const cls = "card" + (extra ? " " + extra : "");
    return (
      `<svg class="${cls}" viewBox="0 0 50 80" role="img" aria-label="${esc(label)}"` +
      ` data-code="${esc(code)}"><title>${esc(label)}</title>` +
      `<use href="#card-${esc(code)}"></use></svg>`
    );
  }

  function back(count, what) {
    const label = `${count} ${what}`;
    return (
      `<span class="backs" data-unknown="${count}" title="${esc(label)}">` +
      `<svg class="card" viewBox="0 0 50 80" role="img" aria-label="${esc(label)}">` +
      `<use href="#card-back"></use></svg><b>×${count}</b></span>`
    );
  }

  function who(seat) {
    return seat === null || seat === undefined ? "nobody" : names[seat] || `seat ${seat}`;
  }

  // --- the table -----------------------------------------------------------------------------

  function marked(code, ev) {
    return ev && ev.cards.indexOf(code) >= 0 ? "hit" : "";
  }

  function drawLayout(h, ev) {
    if (!h.layout.length) return '<p class="empty">the layout is empty</p>';
    return h.layout
      .map(([month, cards, stack, owner]) => {
        let badge = "";
        if (stack) {
          badge =
            owner === null || owner === undefined
              ? '<span class="badge">stack</span>'
              : `<span class="badge ppuk">ppuk · ${esc(who(owner))}</span>`;
        }
        // a card played onto its month waits beside it until the flip
        const faces = cards
          .filter((c) => h.played.indexOf(c) < 0)
          .concat(cards.filter((c) => h.played.indexOf(c) >= 0))
          .map((c) => card(c, [h.played.indexOf(c) >= 0 ? "played" : "", marked(c, ev)].join(" ").trim()))
          .join("");
        return (
          `<div class="month${stack ? " stacked" : ""}" data-month="${month}">` +
          `<div class="faces">${faces}</div>${badge}</div>`
        );
      })
      .join("");
  }

  // A seat sitting the hand out (4 or 5 seats): its name, "sits out", and the brights it
  // sold (gwang-pali) with what each player of the hand paid for them.
  function drawSitter(h, f, s) {
    const seat = h.seats[s];
    const sold = seat.sold;
    const sale = sold
      ? `<div class="sold"><span class="faces">${sold.cards.map((c) => card(c)).join("")}</span>` +
        `<span>sold ${sold.cards.length} bright${sold.cards.length > 1 ? "s" : ""}: ` +
        `<b>${sold.chips}</b> chips from each player (${sold.points} pts)</span></div>`
      : "";
    const held = f.held ? `<span class="ledger">${f.held[s]} chips held</span>` : "";
    return (
      `<section class="seat sitter" data-seat="${s}" data-out="true">` +
      `<header><h2>${esc(who(s))}</h2><span class="badge out">sits out</span>${sale}${held}</header></section>`
    );
  }

  function drawSeat(h, f, s, ev) {
    const seat = h.seats[s];
    if (seat.out) return drawSitter(h, f, s);
    const acting =
      h.phase !== "ended" && (h.decider !== null && h.decider !== undefined ? h.decider : h.turn) === s;
    const won = h.phase === "ended" && h.winner === s;
    let hand = seat.hand.map((c) => card(c, marked(c, ev))).join("");
    if (seat.unknown) hand += back(seat.unknown, "unknown card(s) in hand");
    if (!hand) hand = '<span class="empty">no cards</span>';
    if (seat.flip_only) hand += `<span class="badge">+${seat.flip_only} flip-only</span>`;
    const piles = KINDS.map((kind, k) => {
      const cards = seat.pile[k];
      return (
        `<div class="pile" data-kind="${kind}"><span class="pile-name">${kind} ${cards.length}</span>` +
        `<div class="faces">${cards.map((c) => card(c, marked(c, ev))).join("")}</div></div>`
      );
    }).join("");
    const lines = seat.lines.length
      ? seat.lines.map(([name, pts]) => `<li><span>${esc(name)}</span><b>${pts}</b></li>`).join("")
      : '<li class="empty">no scoring combination yet</li>';
    const flags = [
      [seat.go, "Go"], [seat.ppuk, "ppuk"], [seat.shakes, "shake"], [seat.bombs, "bomb"],
    ]
      .filter(([n]) => n)
      .map(([n, w]) => `<span class="badge ${w.toLowerCase()}">${n} ${w}</span>`)
      .join("");
    const cup = seat.cup ? `<span class="badge">cup as ${esc(seat.cup)}</span>` : "";
    const settled = f.due && f.due.concat(f.paid).some((n) => n !== 0);
    const held = f.held ? ` · ${f.held[s]} held` : "";
    const ledger = settled || f.held ? `<span class="ledger" title="chips due / paid over the game">${
      f.due[s] >= 0 ? "+" : ""}${f.due[s]} due · ${f.paid[s] >= 0 ? "+" : ""}${f.paid[s]} paid${held}</span>` : "";
    return (
      `<section class="seat${acting ? " acting" : ""}${won ? " won" : ""}" data-seat="${s}">` +
      `<header><h2>${esc(who(s))}${h.dealer === s ? ' <span class="badge dealer">dealer</span>' : ""}` +
      `${acting ? ' <span class="badge turn">to move</span>' : ""}${won ? ' <span class="badge win">wins</span>' : ""}</h2>` +
      `<span class="score"><b class="score-total">${seat.score}</b> pts</span></header>` +
      `<div class="flags">${flags}${cup}${ledger}</div>` +
      `<div class="hand" aria-label="hand of ${esc(who(s))}">${hand}</div>` +
      `<div class="piles">${piles}</div>` +
      `<ul class="lines">${lines}</ul></section>`
    );
  }

  function phaseText(h) {
    if (h.phase === "ended") {
      if (h.outcome === "stop") return `${who(h.winner)} wins by Stop`;
      if (h.outcome === "instant") return `${who(h.winner)} wins instantly (${h.reason})`;
      if (h.outcome === "nagari") return `nagari, no winner (${h.reason})`;
      return `the deal does not stand (${h.reason})`;
    }
    const words = {
      deal: "waits for the deal", play: "to play", flip: "to flip",
      flip_as_play: "to flip in place of the bonus card", cup: "to decide the September cup",
      decide: "to say Go or Stop",
    };
    if (h.phase === "deal") return "the hand waits for the deal";
    const actor = h.decider !== null && h.decider !== undefined ? h.decider : h.turn;
    return `${who(actor)} ${words[h.phase] || h.phase}`;
  }

  function drawTable(f, ev) {
    const h = f.h;
    if (!h) {
      $("table").innerHTML = '<p class="empty">no hand has started yet</p>';
      return;
    }
    // the players of the hand (at 4 or 5 seats three play, the others sit out)
    const order = h.seats.map((_, s) => s).filter((s) => !h.seats[s].out);
    const out = h.seats.map((_, s) => s).filter((s) => h.seats[s].out);
    // two players face each other: the second seat on top, the first at the bottom
    const top = order.slice(1).reverse();
    const stock =
      `<div class="stock" aria-label="stock">${back(h.stock, "card(s) in the stock")}` +
      `<span class="stock-count" data-count="${h.stock}">${h.stock} in stock</span>` +
      (h.next ? `<span class="next">next ${card(h.next)}</span>` : "") + `</div>`;
    // who sits the hand out (4 or 5 seats): a strip above the table, in view at once
    $("table").innerHTML =
      (out.length ? `<div class="seats out" aria-label="sitting out">${out.map((s) => drawSitter(h, f, s)).join("")}</div>` : "") +
      `<div class="seats top">${top.map((s) => drawSeat(h, f, s, ev)).join("")}</div>` +
      `<section class="floor" aria-label="layout"><header><span class="status">${esc(phaseText(h))}</span>` +
      `${h.carry > 1 ? `<span class="badge">carry ×${h.carry}</span>` : ""}</header>` +
      `<div class="floor-row"><div class="layout" id="layout">${drawLayout(h, ev)}</div>${stock}</div></section>` +
      `<div class="seats bottom">${drawSeat(h, f, order[0], ev)}</div>`;
  }

  // --- the payout proof ------------------------------------------------------------------------

  function drawProof(f) {
    const box = $("proof");
    const h = f.h && f.h.phase === "ended" ? handOf[f.h.no] : null;
    if (!h) {
      box.hidden = true;
      box.innerHTML = "";
      return;
    }
    const p = h.proof;
    let html = `<h2>Hand ${h.hand}: ${esc(h.summary || phaseText(f.h))}</h2>`;
    if (p) html += GostopProof.html(p, (c) => card(c, "mini"));
    if (h.instants.length) html += `<ul class="instants">${h.instants.map((t) => `<li>${esc(t)}</li>`).join("")}</ul>`;
    if (h.payments.length) {
      html += '<table class="payments"><caption>Payments: recorded beside what the rules make due</caption>' +
        "<tr><th>who pays whom</th><th>recorded</th><th>due</th><th></th></tr>";
      for (const pay of h.payments) {
        const ok = pay.status === "agreed";
        const later = pay.seqs.length && pay.seqs[0] > f.seq ? ` <small>(seq ${pay.seqs.join(", ")})</small>` : "";
        html += `<tr class="${esc(pay.status)}" data-status="${esc(pay.status)}"><td>${esc(who(pay.payer))} → ${esc(who(pay.payee))}</td>` +
          `<td class="num">${pay.chips === null ? "—" : pay.chips}${later}</td><td class="num">${pay.computed}</td>` +
          `<td class="mark">${ok ? "✓" : pay.status === "differs" ? "✗" : "?"}</td></tr>`;
        if (!ok) {
          html += `<tr class="finding"><td colspan="4">${esc(pay.finding)}` +
            (pay.explanations.length ? `<ol>${pay.explanations.map((t) => `<li>${esc(t)}</li>`).join("")}</ol>` : "") + `</td></tr>`;
        }
      }
      html += "</table>";
    } else if (p) {
      html += '<p class="empty">no payment recorded for this hand</p>';
    }
    box.innerHTML = html;
    box.hidden = false;
  }

  // --- the events list ---------------------------------------------------------------------

  // the disagreements with the rules, by seq (a lenient record is replayed past them)
  const faults = {};
  data.issues.forEach((x) => {
    if (x.seq !== null) (faults[x.seq] = faults[x.seq] || []).push(`${x.rule}: ${x.reason}`);
  });

  const retracted = new Set(data.retracted);

  function drawEvents() {
    let html = "";
    let hand = undefined;
    events.forEach((e, i) => {
      if (e.hand !== hand && e.hand !== null) {
        hand = e.hand;
        html += `<li class="hand-head" data-hand="${hand}">Hand ${hand}</li>`;
      }
      const kind = e.type === "junk_transferred" ? " steal" : e.type === "cards_captured" ? " capture" : "";
      const prev = events[i - 1];
      const opens = e.turn && (!prev || prev.turn !== e.turn || prev.hand !== e.hand);
      const fault = faults[e.seq];
      const undone = retracted.has(e.seq) ? " retracted" : "";
      html +=
        `<li class="ev${e.input ? " input" : " conseq"}${kind}${fault ? " fault" : ""}${opens ? " turn-start" : ""}${undone}"` +
        ` data-i="${i}" data-seq="${e.seq}"${opens ? ` data-turn="${e.turn}"` : ""}>` +
        `<button type="button" tabindex="-1"><span class="seq">${e.seq}</span>${esc(e.text)}` +
        (fault ? `<span class="why">${esc(fault.join("; "))}</span>` : "") + `</button></li>`;
    });
    $("events").innerHTML = html;
    $("events").addEventListener("click", (ev) => {
      const li = ev.target.closest("li.ev");
      if (li) go(+li.dataset.i);
    });
  }

  // --- moving ------------------------------------------------------------------------------

  let at = last;

  function handSpan(i) {
    const e = events[i];
    const h = e.hand !== null ? handOf[e.hand] : null;
    if (h) return [h.start, h.end];
    for (const x of data.hands) if (i >= x.start && i <= x.end) return [x.start, x.end];
    return null;
  }

  function go(i, keepHash) {
    at = Math.max(0, Math.min(last, i));
    const f = frames[at];
    const e = events[at];
    drawTable(f, e);
    drawProof(f);
    $("slider").value = String(at);
    $("where").textContent =
      `seq ${e.seq} of ${events[last].seq}` + (e.hand !== null ? ` · hand ${e.hand}` : "") +
      (e.turn ? ` · turn ${e.turn}` : "");
    $("now").innerHTML = `<span class="seq">${e.seq}</span> ${esc(e.text)}`;
    const list = $("events");
    const cur = list.querySelector("li.current");
    if (cur) cur.classList.remove("current");
    list.querySelectorAll("li.ev").forEach((li) => li.classList.toggle("future", +li.dataset.i > at));
    const li = list.querySelector(`li.ev[data-i="${at}"]`);
    if (li) {
      li.classList.add("current");
      const top = li.offsetTop; // the list is the offset parent (position: relative)
      if (top < list.scrollTop + 24 || top > list.scrollTop + list.clientHeight - li.offsetHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 3);
      }
    }
    document.body.dataset.seq = String(e.seq);
    const chips = $("hand-chips");
    chips.querySelectorAll("button").forEach((b) => {
      const here = e.hand !== null && +b.dataset.hand === e.hand;
      b.classList.toggle("current", here);
      if (here && (b.offsetLeft < chips.scrollLeft ||
          b.offsetLeft + b.offsetWidth > chips.scrollLeft + chips.clientWidth)) {
        chips.scrollLeft = b.offsetLeft - chips.clientWidth / 2;
      }
    });
    if (!keepHash) {
      const hash = `#seq=${e.seq}`;
      if (location.hash !== hash) history.replaceState(null, "", hash);
    }
    moved.forEach((fn) => fn(at));
  }

  // what a page drawn over the replayer (a review) is told after every move
  const moved = [];

  function turnStep(dir) {
    const ends = data.turn_ends;
    if (dir > 0) {
      for (const i of ends) if (i > at) return go(i);
      return go(last);
    }
    for (let k = ends.length - 1; k >= 0; k--) if (ends[k] < at) return go(ends[k]);
    return go(0);
  }

  function handStart() {
    const span = handSpan(at);
    if (span && at > span[0]) return go(span[0]);
    const prev = data.hands.filter((h) => h.start < at).pop();
    go(prev ? prev.start : 0);
  }

  function handEnd() {
    const span = handSpan(at);
    if (span && at < span[1]) return go(span[1]);
    const next = data.hands.find((h) => h.end > at);
    go(next ? next.end : last);
  }

  function indexOfSeq(seq) {
    let best = null;
    events.forEach((e, i) => {
      if (e.seq <= seq) best = i;
    });
    return best === null ? 0 : best;
  }

  function fromHash() {
    const m = /seq=(\d+)/.exec(location.hash);
    return m ? indexOfSeq(+m[1]) : null;
  }

  const actions = {
    "hand-start": handStart, "turn-back": () => turnStep(-1), "back": () => go(at - 1),
    "forward": () => go(at + 1), "turn-forward": () => turnStep(1), "hand-end": handEnd,
  };

  // one chip per hand: its number and how it ended; a click goes to its start
  $("hand-chips").innerHTML = data.hands
    .map((h) => {
      const f = frames[h.end].h;
      const end = f && f.phase === "ended"
        ? f.outcome === "stop" || f.outcome === "instant" ? `${who(f.winner)}` : f.outcome
        : "in play";
      return `<button type="button" data-hand="${h.hand}" data-start="${h.start}" title="hand ${h.hand}: ${esc(end)}">` +
        `${h.hand}<small>${esc(end)}</small></button>`;
    })
    .join("");
  $("hand-chips").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-start]");
    if (b) go(+b.dataset.start);
  });
  document.querySelectorAll("[data-action]").forEach((b) =>
    b.addEventListener("click", () => actions[b.dataset.action]()));
  $("slider").max = String(last);
  $("slider").addEventListener("input", (ev) => go(+ev.target.value));
  document.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const keys = {
      ArrowRight: () => (ev.shiftKey ? turnStep(1) : go(at + 1)),
      ArrowLeft: () => (ev.shiftKey ? turnStep(-1) : go(at - 1)),
      Home: handStart,
      End: handEnd,
    };
    const act = keys[ev.key];
    if (act) {
      ev.preventDefault();
      act();
    }
  });
  window.addEventListener("hashchange", () => {
    const i = fromHash();
    if (i !== null && i !== at) go(i, true);
  });

  drawEvents();
  const linked = fromHash();
  const start = linked !== null ? linked : data.start ? indexOfSeq(data.start) : last;
  go(start, linked !== null);
  // for a script drawn over the replayer: where it is, how to move, what it shows
  window.GostopReplay = {
    data, events, frames, go, indexOfSeq, esc, card, who,
    at: () => at,
    onMove: (fn) => {
      moved.push(fn);
      fn(at);
    },
  };
  document.body.classList.add("ready");
})();
