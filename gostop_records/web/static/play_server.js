/* /play talking to the server: a new hand, a hand resumed, an answer sent; the hint (the
   server's review of the decision in front of you). (Loaded after play_state.js.) */
"use strict";
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
