// The review drawn over the replayer: every reviewed decision marked on the timeline and in
// the events; at a decision (the table in front of its seat, or its input) its options, each
// with its expected chips and 95% interval drawn on one scale, the option taken, the best,
// the loss and the grade. The words are the server's; this script only places them. On a
// hand played on /play, each of the player's decisions offers to play it again.
(function () {
  "use strict";

  const R = window.GostopReplay;
  const review = R.data.review;
  const $ = (id) => document.getElementById(id);
  const esc = R.esc;
  const last = R.events.length - 1;

  // each decision at the index of its input; the table in front of the seat is the one before
  const inputAt = {};
  R.events.forEach((e, i) => {
    if (!(e.seq in inputAt)) inputAt[e.seq] = i;
  });
  const decisions = review.decisions
    .filter((d) => d.seq in inputAt)
    .map((d, k) => Object.assign({ k, i: inputAt[d.seq] }, d));
  const before = (d) => Math.max(0, d.i - 1);

  function grade(d) {
    return `<span class="grade g-${esc(d.grade.replace(" ", "-"))}">${esc(d.grade)}</span>`;
  }

  function label(d) {
    return `seq ${d.seq} · ${esc(R.who(d.seat))} · ${esc(d.kind_text)}`;
  }

  // --- the marks: on the timeline, in the events, in the list --------------------------------

  const marks = $("review-marks");
  marks.innerHTML = decisions
    .map((d) => `<button type="button" class="mark g-${esc(d.grade.replace(" ", "-"))}" data-k="${d.k}" ` +
      `title="${label(d)}: ${esc(d.grade)}" aria-label="${label(d)}: ${esc(d.grade)}"></button>`)
    .join("");
  marks.querySelectorAll("button").forEach((b) => {
    const d = decisions[+b.dataset.k];
    b.style.left = `${last ? (100 * before(d)) / last : 0}%`; // CSSOM: allowed by the page's policy
  });

  decisions.forEach((d) => {
    const li = document.querySelector(`#events li.ev[data-seq="${d.seq}"]`);
    if (!li || li.querySelector(".grade")) return;
    li.classList.add("reviewed");
    li.querySelector("button").insertAdjacentHTML("beforeend", ` ${grade(d)}`);
  });

  $("review-list").innerHTML = decisions.length
    ? decisions
        .map((d) => `<button type="button" data-k="${d.k}" class="g-${esc(d.grade.replace(" ", "-"))}">` +
          `<b>${d.seq}</b> ${esc(d.kind_text)}<small>${esc(d.grade)}</small></button>`)
        .join("")
    : '<p class="empty">no decision to review</p>';

  function goTo(d) {
    R.go(before(d));
    const box = $("review-now");
    if (box.getBoundingClientRect().top > window.innerHeight) box.scrollIntoView({ block: "start" });
  }

  document.addEventListener("click", (ev) => {
    const b = ev.target.closest("#review-marks button, #review-list button, #review-now button[data-k]");
    if (b) goTo(decisions[+b.dataset.k]);
  });

  // --- a decision: its options on one scale ---------------------------------------------------

  function bar(o, lo, hi) {
    const x = (v) => (hi > lo ? (100 * (v - lo)) / (hi - lo) : 50).toFixed(2);
    const [mean, low, high] = o.chips;
    return (
      `<svg class="bar" viewBox="0 0 100 12" preserveAspectRatio="none" aria-hidden="true">` +
      `<line class="zero" x1="${x(0)}" x2="${x(0)}" y1="0" y2="12"></line>` +
      `<rect class="span" x="${x(low)}" y="3" width="${Math.max(0.6, x(high) - x(low))}" height="6"></rect>` +
      `<rect class="mean" x="${Math.max(0, x(mean) - 0.8)}" y="0" width="1.6" height="12"></rect></svg>`
    );
  }

  function drawDecision(d) {
    const lo = Math.min(0, ...d.options.map((o) => o.chips[1]));
    const hi = Math.max(0, ...d.options.map((o) => o.chips[2]));
    const rows = d.options
      .map((o) => {
        const tags = [o.taken ? "taken" : "", o.best ? "best" : ""].filter(Boolean).join(", ");
        return (
          `<li class="option${o.taken ? " taken" : ""}${o.best ? " best" : ""}" data-label="${esc(o.label)}" data-chips="${o.chips[0]}">` +
          `<div class="what"><code>${esc(o.label)}</code>${tags ? ` <small>${tags}</small>` : ""}</div>` +
          `<div class="value"><b>${esc(o.chips_text)}</b> <small>${esc(o.span_text)}</small>` +
          `${o.behind_text ? `<small class="behind">${esc(o.behind_text)}</small>` : ""}</div>` +
          bar(o, lo, hi) + `</li>`
        );
      })
      .join("");
    let again = "";
    if (review.rewind && d.seat === review.rewind.seat) {
      again =
        `<form method="post" action="${esc(review.rewind.url)}" class="again">` +
        `<input type="hidden" name="hand" value="${d.hand}"><input type="hidden" name="seq" value="${d.seq}">` +
        `<button type="submit" class="rewind" data-seq="${d.seq}">Replay to this decision and choose again</button></form>`;
    }
    return (
      `<article class="decision g-${esc(d.grade.replace(" ", "-"))}" data-seq="${d.seq}" data-kind="${esc(d.kind)}" data-grade="${esc(d.grade)}">` +
      `<h3>${label(d)} ${grade(d)}</h3>` +
      `<p class="took">took <code>${esc(d.taken)}</code>${d.taken !== d.best ? `, best <code>${esc(d.best)}</code>` : ""}` +
      `${d.taken !== d.best ? ` · <span class="verdict">${esc(d.verdict)}</span>` : ""}</p>` +
      `<ol class="options" aria-label="the options, best first">${rows}</ol>` +
      `<p class="basis">expected chips from here to the end of the hand · ${esc(d.basis)}</p>${again}</article>`
    );
  }

  function moved(at) {
    const here = decisions.filter((d) => d.i === at + 1 || d.i === at);
    const after = decisions.find((d) => before(d) > at);
    const prev = decisions.filter((d) => d.i < at).pop();
    const nav =
      `<p class="review-nav">${prev ? `<button type="button" data-k="${prev.k}">◀ seq ${prev.seq}</button>` : ""}` +
      `${after ? `<button type="button" data-k="${after.k}">next decision: seq ${after.seq} ▶</button>` : ""}</p>`;
    $("review-now").innerHTML = here.length
      ? here.map(drawDecision).join("") + nav
      : `<p class="empty">A marked move is a decision reviewed: go to one to see its options.</p>${nav}`;
    document.querySelectorAll("#review-list button, #review-marks button").forEach((b) => {
      b.classList.toggle("current", here.includes(decisions[+b.dataset.k]));
    });
    const f = R.frames[at];
    const hand = f && f.h ? f.h.no : null;
    const luck = review.luck.filter((x) => x.hand === hand);
    $("review-luck").innerHTML = luck.length
      ? `<h3>Hand ${hand}: luck and skill</h3><ul>${luck
          .map((x) => `<li data-seat="${x.seat}"><b>${esc(R.who(x.seat))}</b>: ${esc(x.text)}</li>`)
          .join("")}</ul><p class="note">won = deal worth − lost to decisions + luck</p>`
      : "";
  }

  R.onMove(moved);
  document.body.dataset.review = String(decisions.length);
})();
