/* The recorder's queue: entries kept in localStorage and sent one at a time, each with the
   version it expects and an idempotency key; the entry just made shown with an Undo.
   (Loaded after recorder_state.js; see there.) */
"use strict";
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
