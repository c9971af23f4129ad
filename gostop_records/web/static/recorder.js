/* The recorder's page drawn from the state, its controls wired, and its start: the last of
   the recorder's scripts (see recorder_state.js). */
"use strict";
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
  return T.prompt(now);
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
