/* The table as it stands, drawn from GET /api/games/{id}/now: shared by the recorder and
   the live table. Written by hand, no build step; everything the page needs is inline. */
"use strict";
window.GostopTable = (function () {
  const data = JSON.parse(document.getElementById("page-data").textContent);
  const labels = data.labels;
  const KINDS = [["brights", "Brights"], ["animals", "Animals"], ["ribbons", "Ribbons"], ["junk", "Junk"]];

  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({
      "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
    })[c]);
  }

  function label(code) {
    return labels[code] || code;
  }

  function face(code, cls) {
    return (
      `<svg class="${cls || "card"}" viewBox="0 0 50 80" role="img" aria-label="${esc(label(code))}"` +
      ` data-code="${esc(code)}"><title>${esc(label(code))}</title>` +
      `<use href="#card-${esc(code)}"></use></svg>`
    );
  }

  function monthOf(code) {
    const m = /^(\d\d)/.exec(code);
    return m ? +m[1] : 0;
  }

  function nameOf(now, seat) {
    const p = now.table.players[seat];
    return p ? p.name : `seat ${seat}`;
  }

  /* What the rules wait for, in a sentence (what a Stop pays is the Go or Stop sheet's). */
  function prompt(now) {
    const w = now.waiting;
    const who = w.seat === null || w.seat === undefined ? "" : nameOf(now, w.seat);
    switch (w.kind) {
      case "deal": return `Hand ${w.hand}: the deal` + (who ? ` (dealer ${who})` : "");
      case "play": return `${who} to play`;
      case "flip": return `${who}: the card flipped from the stock`;
      case "cup": return `${who}: the September cup counts as animal or junk`;
      case "decide": return `${who}: Go or Stop?`;
      case "pay": return `Hand ${w.hand} is over: the payment`;
      case "over": return "The game is over";
      case "settle": return "The night is closed: the settlement";
      case "closed": return "The night is closed and settled";
      default: return w.kind;
    }
  }

  /* Chips a seat holds, when the table counted them at the start of the sitting. */
  function heldText(now, s) {
    const held = now.table.holdings;
    return held ? `<span class="chips-held" title="chips held">${held[s]} chips</span>` : "";
  }

  /* A seat sitting the hand out (4 or 5 seats): its name, "sits out this hand", and the
     brights it sold (gwang-pali) with what each player of the hand paid. */
  function sitterBlock(now, seat) {
    const sold = seat.sold;
    const sale = sold
      ? `<p class="sold"><span class="faces">${sold.cards.map((c) => face(c, "card mini")).join("")}</span>` +
        `<span>sold ${sold.cards.length} bright${sold.cards.length > 1 ? "s" : ""}: <b>${sold.chips}</b> chips from each player (${sold.points} pt)</span></p>`
      : "";
    return (
      `<section class="seat sitter" data-seat="${seat.seat}" data-out="true" aria-label="${esc(seat.name)}">` +
      `<header><h2>${esc(seat.name)}</h2><span class="held">sits out this hand</span>${heldText(now, seat.seat)}</header>` +
      `${sale}</section>`
    );
  }

  function seatBlock(now, seat, h) {
    if (seat.plays === false) return sitterBlock(now, seat);
    const piles = KINDS.map(([k, title]) => {
      const cards = seat.pile[k] || [];
      return (
        `<div class="pile" data-kind="${k}"><span class="pile-name">${title} ${cards.length}</span>` +
        `<span class="faces">${cards.map((c) => face(c, "card mini")).join("")}</span></div>`
      );
    }).join("");
    const lines = seat.score_lines.length
      ? seat.score_lines.map((ln) => `<li><span>${esc(ln.name)}</span><b>${ln.points}</b></li>`).join("")
      : "<li class='muted'>no points yet</li>";
    const turn = h.turn_seat === seat.seat || h.decider === seat.seat;
    const extra = [];
    if (seat.go_count) extra.push(`${seat.go_count} Go`);
    if (seat.shakes) extra.push(`${seat.shakes} shake`);
    if (seat.bombs) extra.push(`${seat.bombs} bomb`);
    if (seat.ppuk_count) extra.push(`${seat.ppuk_count} ppuk`);
    const hand = seat.hand_known.length
      ? `<div class="hand">${seat.hand_known.map((c) => face(c, "card mini")).join("")}</div>`
      : "";
    return (
      `<section class="seat${turn ? " acting" : ""}" data-seat="${seat.seat}" aria-label="${esc(seat.name)}">` +
      `<header><h2>${esc(seat.name)}</h2><span class="held">` +
      `${seat.hand_count} in hand</span>${heldText(now, seat.seat)}` +
      (extra.length ? `<span class="tags">${esc(extra.join(" · "))}</span>` : "") +
      `<span class="score"><b class="score-total">${seat.score}</b> pt</span></header>` +
      `<ul class="score-lines">${lines}</ul>${hand}<div class="piles">${piles}</div></section>`
    );
  }

  /* The layout into ``root``, the seats into ``seatsRoot`` (or after the layout). */
  function render(now, root, seatsRoot) {
    const t = now.table;
    const h = t.hand;
    document.body.dataset.version = now.version;
    if (!h) {
      root.innerHTML = `<div class="felt"><p class="empty">No hand has been dealt yet.</p></div>`;
      if (seatsRoot) seatsRoot.innerHTML = "";
      return;
    }
    const played = new Set(h.played || []);
    const layout = h.layout.length
      ? h.layout.map((m) =>
          `<div class="month" data-month="${m.month}"><span class="m">${m.month}</span>` +
          m.cards.map((c) => face(c, "card" + (played.has(c) ? " played" : ""))).join("") + `</div>`).join("")
      : `<p class="empty">The layout is empty.</p>`;
    // how the hand ended, in the server's words (gostop_records.words)
    const result = now.result_words ? `<p class="result">${esc(now.result_words)}</p>` : "";
    const felt =
      `<div class="felt"><div class="layout-head"><h2>Layout</h2>` +
      `<span class="stock-count" data-count="${h.stock_count}">stock ${h.stock_count}</span>` +
      `<span class="hand-no">hand ${h.hand}</span></div>` +
      `<div id="layout" class="layout">${layout}</div>${result}</div>`;
    const seats = `<div class="seats">${h.seats.map((s) => seatBlock(now, s, h)).join("")}</div>`;
    if (seatsRoot) {
      root.innerHTML = felt;
      seatsRoot.innerHTML = seats;
    } else {
      root.innerHTML = felt + seats;
    }
  }

  function recent(now, root) {
    root.innerHTML = now.recent.length
      ? now.recent.slice().reverse().map((r) => `<li><span class="seq">${r.seq}</span> ${esc(r.text || r.line)}</li>`).join("")
      : "<li class='muted'>nothing recorded yet</li>";
  }

  return { data, esc, label, face, monthOf, nameOf, prompt, render, recent };
})();
