/* /play drawn: the frames of an answer played back one at a time, the table, the seats, the
   hand and the choices. (Loaded after play_server.js; see play_state.js.) */
"use strict";
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

function seatName(v, seat) {
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
  say(f.seat ? `${seatName(v, f.seat)} is playing… (tap the table or press Space to skip ahead)` : f.seat === 0 ? "Your turn goes on…" : "…");
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
    const pays = GostopProof.summary(v.stop_pays).join("; ");
    say(`You have ${me.score} points: Go or Stop?`);
    html =
      `<p class="stop-pays">A Stop pays now: ${esc(pays)} (stake ${v.stop_pays.stake}). ` +
      "A Go plays on for more, and loses it all if the computer stops first.</p>" +
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
