/* /play: a hand against the computer. The server holds the hand and decides every rule; this
   page shows the human seat's view, sends taps and keys as answers to POST /api/play/{id},
   and plays back the frames of each answer (your flip, the computer's play, flip, captures
   and steals) one at a time. At the end it recomputes the deal's commitment with SHA-256. */
"use strict";
(function () {
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

  // --- talking to the server -----------------------------------------------------------------

  function net(kind, text) {
    const el = $("net");
    el.className = "net " + kind;
    el.textContent = text;
  }

  async function call(method, url, body) {
    net("busy", method === "GET" ? "loading…" : "thinking…");
    let r;
    try {
      r = await fetch(url, {
        method,
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store",
      });
    } catch (e) {
      net("down", "offline");
      throw { status: 0, reason: "the server cannot be reached: check the network and try again" };
    }
    let data;
    try {
      data = await r.json();
    } catch (e) {
      data = { reason: `the server answered ${r.status}` };
    }
    net("ok", "online");
    if (!r.ok) throw Object.assign({ status: r.status }, data);
    return data;
  }

  function choice() {
    const ruleset = $("ruleset").value;
    const out = { ruleset, bot: $("bot").value };
    const counts = D.presets[ruleset] || [2];
    if (counts.length > 1) out.players = +$("players").value;
    return out;
  }

  function fillPlayers(wanted) {
    const counts = D.presets[$("ruleset").value] || [2];
    const sel = $("players");
    sel.innerHTML = counts.map((n) => `<option value="${n}">${n}</option>`).join("");
    sel.value = String(counts.includes(wanted) ? wanted : counts.includes(2) ? 2 : counts[0]);
    $("players-label").hidden = counts.length < 2;
  }

  async function newHand() {
    if (busy) return;
    const body = choice();
    if (params.get("seed")) body.seed = +params.get("seed");
    busy = true;
    state("busy");
    say("Dealing…");
    try {
      const out = await call("POST", "/api/play", body);
      handId = out.id;
      shown = 0;
      seen = {};
      pick = null;
      view = null;
      const q = new URLSearchParams(location.search);
      q.set("ruleset", body.ruleset);
      q.set("bot", body.bot);
      if (body.players) q.set("players", body.players);
      else q.delete("players");
      history.replaceState(null, "", `/play?${q}#hand=${out.id}`);
      busy = false;
      await take(out, true);
    } catch (e) {
      busy = false;
      refuse(e.reason || String(e));
      state(view ? stateOf(view) : "ready");
    }
  }

  async function resume(id) {
    try {
      const out = await call("GET", `/api/play/${encodeURIComponent(id)}`);
      handId = id;
      try {
        seen = JSON.parse(sessionStorage.getItem(`gostop.play.seen.${id}`) || "{}") || {};
      } catch (e) {
        seen = {};
      }
      await take(out, false);
    } catch (e) {
      await newHand();
    }
  }

  async function act(body) {
    if (busy || !view || !handId) return;
    busy = true;
    state("busy");
    body.version = view.version;
    body.since = shown;
    try {
      const out = await call("POST", `/api/play/${encodeURIComponent(handId)}`, body);
      refuse(null);
      pick = null;
      busy = false;
      await take(out, true);
    } catch (e) {
      busy = false;
      refuse(e.reason || String(e));
      render(view);
    }
  }

  // the next hand of the same game: the server deals it, with its own commitment
  function nextHand() {
    if (!view || !view.next_hand) return;
    return act({ kind: "next" });
  }

  // --- the hint: the server's review of the decision in front of you -------------------------

  let hinted = null; // the version the hint shown was made at

  function drawHintButton(v) {
    const ask = v.step.human && ["play", "flip", "decide", "cup"].includes(v.step.kind) && !v.deals;
    $("hint-button").hidden = !ask;
    if (hinted !== v.version) {
      $("hint").hidden = true;
      $("hint").innerHTML = "";
    }
  }

  async function askHint() {
    if (busy || !view || !handId) return;
    const box = $("hint");
    box.hidden = false;
    box.dataset.state = "busy";
    box.innerHTML = `<p class="muted">Playing out your options…</p>`;
    const at = view.version;
    try {
      const out = await call("GET", `/api/play/${encodeURIComponent(handId)}/hint`);
      if (!view || view.version !== at) return;
      const h = out.hint;
      hinted = at;
      box.dataset.state = "shown";
      box.innerHTML =
        `<p class="hint-summary">${esc(h.summary)}</p>` +
        (h.options.length
          ? `<ol class="hint-options" id="hint-options">` +
            h.options
              .map(
                (o) =>
                  `<li class="${o.best ? "best" : ""}" data-label="${esc(o.label)}" data-chips="${o.chips}">` +
                  `<span class="what">${esc(o.text)}</span> <b class="chips">${esc(o.chips_text)}</b> <small>${esc(o.interval_text)}</small></li>`,
              )
              .join("") +
            `</ol>`
          : "");
    } catch (e) {
      box.dataset.state = "refused";
      box.innerHTML = `<p class="refusal">${esc(e.reason || String(e))}</p>`;
    }
  }

  // --- playing back what happened ------------------------------------------------------------

  function wait(ms) {
    return new Promise((done) => {
      if (skipping || ms <= 0) return done();
      const t = setTimeout(done, ms);
      skipWait = () => {
        clearTimeout(t);
        done();
      };
    });
  }

  function skip() {
    skipping = true;
    if (skipWait) skipWait();
  }

  async function take(out, animate) {
    const v = out.view;
    for (const c of v.commitments) if (!(c.hand in seen)) seen[c.hand] = c.commitment;
    sessionStorage.setItem(`gostop.play.seen.${out.id}`, JSON.stringify(seen));
    if (animate && out.frames.length) {
      busy = true;
      state("busy");
      skipping = false;
      drawCommit(v);
      for (const f of out.frames) {
        if (f.index < shown) continue;
        if (f.table) {
          drawFrame(v, f);
          await wait(f.seat === 0 ? pace() * 0.6 : f.seat === null || f.seat === undefined ? pace() * 0.5 : pace());
        }
        shown = f.index + 1;
      }
      skipWait = null;
      skipping = false;
      busy = false;
    }
    shown = v.frame_count;
    view = v;
    render(v);
  }

  // --- drawing -------------------------------------------------------------------------------

  function face(code, cls, marks) {
    const m = marks && marks[code] ? " " + marks[code] : "";
    return T.face(code, (cls || "card") + m);
  }

  function back(cls) {
    return `<svg class="${cls || "card"}" viewBox="0 0 50 80" role="img" aria-label="card back"><use href="#card-back"></use></svg>`;
  }

  function name(v, seat) {
    return seat === 0 ? "You" : v.players[seat] || `seat ${seat}`;
  }

  function drawLayout(t, marks) {
    const pending = new Set(t.pending || []);
    const months = t.layout.length
      ? t.layout
          .map(
            (m) =>
              `<div class="month${m.stack ? " stack" : ""}" data-month="${m.month}"><span class="m">${String(m.month).padStart(2, "0")}</span>` +
              m.cards.map((c) => face(c, "card" + (pending.has(c) ? " pending" : ""), marks)).join("") +
              `</div>`,
          )
          .join("")
      : `<p class="empty">The layout is empty.</p>`;
    $("layout").innerHTML = months;
    $("stock").innerHTML = `${back("card mini")}<b class="stock-count" data-count="${t.stock_count}">${t.stock_count}</b> in the stock`;
  }

  function piles(seat, marks) {
    return KINDS.map(([k, title]) => {
      const cards = seat.pile[k] || [];
      return (
        `<div class="pile" data-kind="${k}"><span class="pile-name">${title} ${cards.length}</span>` +
        `<span class="faces">${cards.map((c) => face(c, "card mini", marks)).join("")}</span></div>`
      );
    }).join("");
  }

  function scoreLines(seat) {
    return seat.score_lines.length
      ? seat.score_lines.map((ln) => `<li><span>${esc(ln.name)}</span> <b>${ln.points}</b></li>`).join("")
      : "<li class='muted'>no points yet</li>";
  }

  function tags(seat) {
    const out = [];
    if (seat.go_count) out.push(`${seat.go_count} Go`);
    if (seat.shakes) out.push(`${seat.shakes} shake`);
    if (seat.bombs) out.push(`${seat.bombs} bomb`);
    if (seat.ppuk_count) out.push(`${seat.ppuk_count} ppuk`);
    if (seat.flip_only_turns) out.push(`${seat.flip_only_turns} flip-only`);
    return out.length ? `<span class="tags">${esc(out.join(" · "))}</span>` : "";
  }

  function drawSeats(v, t, marks) {
    $("opponents").innerHTML = t.seats
      .filter((s) => s.seat !== 0)
      .map((s) => {
        const hand = s.hand
          ? `<div class="their-hand revealed">${s.hand.map((c) => face(c, "card mini")).join("")}</div>`
          : `<div class="their-hand" data-count="${s.hand_count}">${Array.from({ length: s.hand_count }, () => back("card mini")).join("")}</div>`;
        return (
          `<section class="seat${t.turn_seat === s.seat ? " acting" : ""}" data-seat="${s.seat}" aria-label="${esc(s.name)}">` +
          `<header><h2>${esc(s.name)}</h2><span class="held">${s.hand_count} in hand</span>${tags(s)}` +
          `<span class="score"><b class="score-total">${s.score}</b> pt</span></header>` +
          `${hand}<ul class="score-lines">${scoreLines(s)}</ul><div class="piles">${piles(s, marks)}</div></section>`
        );
      })
      .join("");
    const me = t.seats[0];
    $("my-seat").innerHTML =
      `<section class="seat${t.turn_seat === 0 ? " acting" : ""}" data-seat="0" aria-label="your captures">` +
      `<header><h2>Your captures</h2>${tags(me)}<span class="score"><b class="score-total">${me.score}</b> pt</span></header>` +
      `<ul class="score-lines">${scoreLines(me)}</ul><div class="piles">${piles(me, marks)}</div></section>`;
  }

  function marksOf(f) {
    const marks = {};
    for (const c of f.played) marks[c] = "played";
    for (const c of f.flipped) marks[c] = "flipped";
    for (const c of f.captured) marks[c] = (marks[c] ? marks[c] + " " : "") + "taken";
    for (const g of f.given) marks[g.card] = "given";
    return marks;
  }

  function drawFrame(v, f) {
    const t = f.table;
    const marks = marksOf(f);
    drawLayout(t, marks);
    drawSeats(v, t, marks);
    drawHand(v, t, false);
    $("choices").innerHTML = "";
    const who = f.seat === null || f.seat === undefined ? "" : f.seat === 0 ? "mine" : "theirs";
    $("caption").className = `caption ${who}`;
    $("caption").innerHTML = f.lines.map((l) => `<span>${esc(l)}</span>`).join("");
    say(f.seat ? `${name(v, f.seat)} is playing… (tap the table or press Space to skip ahead)` : f.seat === 0 ? "Your turn goes on…" : "…");
  }

  function optionFor(v, code) {
    return (v.options || []).find((o) => o.kind === "card" && o.card === code) || null;
  }

  function drawHand(v, t, live) {
    const mine = t.seats[0].hand || [];
    $("hand").innerHTML = mine.length
      ? mine
          .map((code, i) => {
            const o = live ? optionFor(v, code) : null;
            const key = i < 9 ? String(i + 1) : i === 9 ? "0" : "";
            const k = key && o ? `<kbd>${key}</kbd> ` : "";
            const takes = o
              ? `<span class="takes">${o.takes.map((c) => face(c, "card mini")).join("")}<small>${k}${esc(o.text)}</small></span>`
              : `<span class="takes"></span>`;
            return (
              `<button type="button" class="hand-card${pick && pick.card === code ? " on" : ""}" data-code="${esc(code)}" data-key="${key}"` +
              `${o ? "" : " disabled"} aria-label="${esc(T.label(code))}${o ? ": " + esc(o.text) : ""}"${o ? ` title="${esc(o.text)}"` : ""}>` +
              `${face(code, "card")}${takes}</button>`
            );
          })
          .join("")
      : `<p class="empty">Your hand is empty.</p>`;
  }

  function say(text) {
    $("prompt").textContent = text;
  }

  function refuse(reason) {
    const box = $("message");
    box.hidden = !reason;
    box.textContent = reason ? `Refused: ${reason}` : "";
  }

  function stateOf(v) {
    if (v.step.kind === "over" || v.step.kind === "hand_over") return "over";
    return v.step.human ? "ready" : "busy";
  }

  function state(s) {
    document.body.dataset.state = s;
  }

  function button(attrs, html) {
    return `<button type="button" ${attrs}>${html}</button>`;
  }

  function drawChoices(v) {
    const step = v.step.kind;
    const t = v.table;
    let html = "";
    if (pick) {
      say(`${pick.card} matches ${pick.takes.join(" and ")}: which does it take?`);
      html =
        pick.takes.map((c, i) => button(`class="pick" data-choose="${esc(c)}"`, `<kbd>${i + 1}</kbd>${face(c, "card")}<span class="code">${esc(c)}</span>`)).join("") +
        button('class="plain" data-cancel="1"', "another card <kbd>Esc</kbd>");
    } else if (!v.step.human) {
      say(step === "over" || step === "hand_over" ? "The hand is over." : "The computer is playing…");
    } else if (step === "play") {
      const extra = (v.options || []).filter((o) => o.kind !== "card");
      say(extra.length ? "Your turn: play a card, or:" : "Your turn: play a card.");
      html = extra
        .map((o) =>
          button(
            `class="big extra" data-kind="${esc(o.kind)}" data-month="${o.month || ""}"`,
            `${esc(o.kind === "flip_only" ? "Flip only" : o.kind === "bomb" ? `Bomb ${String(o.month).padStart(2, "0")}` : `Shake ${String(o.month).padStart(2, "0")}`)}` +
              `<span class="faces">${o.cards.map((c) => face(c, "card mini")).join("")}</span><small>${esc(o.text)}</small>`,
          ),
        )
        .join("");
    } else if (step === "flip") {
      const f = v.flip;
      say(`You flipped ${f.card}: it matches ${f.choices.join(" and ")}. Which does it take?`);
      html =
        `<span class="flipped-card">${face(f.card, "card flipped")}</span>` +
        f.choices.map((c, i) => button(`class="pick" data-flip="${esc(c)}"`, `<kbd>${i + 1}</kbd>${face(c, "card")}<span class="code">${esc(c)}</span>`)).join("");
    } else if (step === "decide") {
      const me = t.seats[0];
      const p = v.stop_pays;
      const pays = (p.losers || []).map((l) => `${name(v, l.loser)} pays you ${l.pays_chips} chip${l.pays_chips === 1 ? "" : "s"}`).join(", ");
      say(`You have ${me.score} points: Go or Stop?`);
      html =
        `<p class="stop-pays">A Stop now: ${esc(pays)} (${p.go_points} points` +
        (p.losers || []).map((l) => (l.multiplier > 1 ? ` × ${l.multiplier} for ${esc(name(v, l.loser))}` : "")).join("") +
        `, stake ${p.stake}). A Go plays on for more, and loses it all if the computer stops first.</p>` +
        button('class="big go" data-answer="go"', "Go <kbd>G</kbd>") +
        button('class="big stop" data-answer="stop"', "Stop <kbd>S</kbd>");
    } else if (step === "cup") {
      const pts = v.cup_points || {};
      say("The September cup: does it count as an animal or as junk?");
      html =
        button('class="big" data-cup="animal"', `Animal <kbd>A</kbd><small>${pts.animal} points</small>`) +
        button('class="big" data-cup="junk"', `Junk <kbd>J</kbd><small>${pts.junk} points</small>`);
    }
    $("choices").innerHTML = html;
  }

  function drawLog(v) {
    $("log").innerHTML = v.log.length
      ? v.log.slice().reverse().map((line) => `<li>${esc(line)}</li>`).join("")
      : "<li class='muted'>nothing yet</li>";
  }

  function drawCommit(v) {
    const box = $("commit");
    if (v.deals) return; // the end draws the reveal
    const practice = v.practice
      ? `<p class="practice" id="practice">Played again from your decision at seq ${v.practice.seq} of hand ${v.practice.hand} ` +
        `(game <code>${esc(v.practice.game_id)}</code>): the same deal, every move before it as it was. Choose again; ` +
        `the computer plays on by itself. The deck was shown at the end of that hand, so this is practice, not kept in the store.</p>`
      : "";
    box.innerHTML = practice + v.commitments
      .filter((c) => c.hand >= v.deals_from)
      .map(
        (c) =>
          `<p>Before your first play the server committed to the shuffled deck of hand ${c.hand}:</p>` +
          `<p class="hash" data-hand="${c.hand}"><span>sha256</span> <code id="commitment">${esc(c.commitment)}</code></p>`,
      )
      .join("") + `<p class="muted">The deck and a salt are shown when the hand is over, for you to check.</p>`;
  }

  function render(v) {
    document.body.dataset.version = v.version;
    document.body.dataset.game = v.game_id;
    document.body.dataset.step = pick ? "choose" : v.step.kind;
    const t = v.table;
    const n = v.players.length - 1;
    $("bot-name").textContent = v.bot;
    $("facing").innerHTML = `${esc(v.ruleset)} · you against ${n > 1 ? "two" : "the"} <b id="bot-name">${esc(v.bot)}</b> bot${n > 1 ? "s" : ""}`;
    document.title = `Play · ${v.ruleset} against the ${v.bot} bot`;
    if (t) {
      const choosing = pick ? pick.takes : v.step.human && v.step.kind === "flip" ? v.flip.choices : [];
      drawLayout(t, Object.fromEntries(choosing.map((c) => [c, "choice"])));
      drawSeats(v, t, {});
      drawHand(v, t, v.step.human && v.step.kind === "play" && !pick);
      if (pick) drawHand(v, t, false);
    }
    drawChoices(v);
    drawHintButton(v);
    drawLog(v);
    drawCommit(v);
    drawEnd(v);
    state(busy ? "busy" : stateOf(v));
    if (v.step.human && !busy) {
      const first = document.querySelector("#choices button, #hand button:not([disabled])");
      if (first && !document.activeElement.closest("#new-hand, #display")) first.focus({ preventScroll: true });
    }
  }

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
    if (r.outcome === "stop") head = r.winner === 0 ? "You win" : `${name(v, r.winner)} wins`;
    else if (r.outcome === "instant") head = `${r.winner === 0 ? "You win" : name(v, r.winner) + " wins"} at once (${r.reason || "instant"})`;
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
        v.ledger.map((n, seat) => `<tr data-seat="${seat}"><td>${esc(name(v, seat))}</td><td class="num">${signed(n)} chip${Math.abs(n) === 1 ? "" : "s"}</td></tr>`).join("") +
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
})();
