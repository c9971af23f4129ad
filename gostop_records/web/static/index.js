/* The games of the store and a form to start one: the new game's recorder link carries
   its token in the fragment, shown as a link and a QR code (drawn by the server). */
"use strict";
(function () {
  const T = window.GostopTable;
  const $ = (id) => document.getElementById(id);
  const KKEY = "gostop.serverkey";

  function key() {
    const field = $("server-key");
    const k = (field && field.value.trim()) || localStorage.getItem(KKEY) || "";
    if (field && field.value.trim()) localStorage.setItem(KKEY, field.value.trim());
    return k;
  }

  function row(g) {
    const open = g.hands === 0 || g.hands > g.hands_ended;
    const players = (g.players || []).join(", ");
    const rec = localStorage.getItem(`gostop.token.${g.game_id}`);
    const id = encodeURIComponent(g.game_id);
    return (
      `<li class="game${open ? " open" : ""}" data-game="${T.esc(g.game_id)}">` +
      `<a class="title" href="/games/${id}">${T.esc(players)}</a>` +
      `<span class="muted">${T.esc(g.ruleset)} · ${g.hands_ended}/${g.hands} hands · ${g.version} events · ${T.esc((g.started_at || "").slice(0, 16).replace("T", " "))}</span>` +
      `<span class="links">${open ? "<b class='state'>in progress</b>" : "<span class='state'>ended</span>"}` +
      ` <a href="/games/${id}">live table</a> · <a href="/games/${id}/replay">replay</a>` +
      (rec ? ` · <a href="/games/${id}/record">record</a>` : "") + `</span></li>`
    );
  }

  async function list() {
    const r = await fetch("/api/games?limit=200", { headers: { Accept: "application/json" } });
    const body = await r.json();
    if (!r.ok) {
      $("games").innerHTML = `<li class="muted">${T.esc(body.reason || r.status)}</li>`;
      return;
    }
    const open = (g) => g.hands === 0 || g.hands > g.hands_ended;
    const games = body.games.filter(open).concat(body.games.filter((g) => !open(g)));
    $("games").innerHTML = games.length ? games.map(row).join("") : "<li class='muted'>No games yet.</li>";
  }

  async function health() {
    const r = await fetch("/api/health");
    const h = await r.json();
    $("key-row").hidden = !!h.open;
    const net = $("net");
    net.textContent = `${h.games} game${h.games === 1 ? "" : "s"}` + (h.open ? " · open" : "");
    net.className = "net ok";
  }

  /* Who deals first: named on the recorder at the first deal, one of the players typed
     (the recorder link carries the choice), or drawn with cards under the draw rule. */
  function dealerChoices() {
    const sel = $("first-dealer");
    const was = sel.value;
    const names = seats().map((s) => s.split("=")[0].trim());
    for (const o of [...sel.options]) if (o.dataset.seat !== undefined) o.remove();
    names.slice(0, 5).forEach((n, i) => {
      const o = document.createElement("option");
      o.value = String(i);
      o.dataset.seat = String(i);
      o.textContent = `${n} deals first`;
      sel.appendChild(o);
    });
    sel.value = [...sel.options].some((o) => o.value === was) ? was : "";
  }
  $("players").addEventListener("input", dealerChoices);

  /* The seats as typed: "Ann" is a new person, "Ann=ID" the known person of that id (the
     server reads both; a tap on a known player writes the second). */
  function seats() {
    return $("players").value.split(",").map((s) => s.trim()).filter(Boolean);
  }

  async function known() {
    const r = await fetch("/api/people", { headers: { Accept: "application/json" } });
    if (!r.ok) return;
    const people = (await r.json()).filter((p) => p.counts_for === p.person_id && p.name && !p.forgotten).slice(0, 24);
    if (!people.length) return;
    // two people of one name are told apart by their games, the day they last played and,
    // should those agree, the start of their ids
    const twice = new Set(people.map((p) => p.name).filter((n, i, all) => all.indexOf(n) !== i));
    const label = (p) => {
      if (!twice.has(p.name)) return T.esc(p.name);
      const last = p.last_started_at ? `, last ${String(p.last_started_at).slice(0, 10)}` : "";
      const tag = String(p.person_id).replace(/^p_/, "").slice(0, 4);
      return `${T.esc(p.name)} <small>${p.games || 0} game${p.games === 1 ? "" : "s"}${T.esc(last)} · #${T.esc(tag)}</small>`;
    };
    $("known").innerHTML = people
      .map((p) => `<button type="button" class="known" data-id="${T.esc(p.person_id)}" data-name="${T.esc(p.name)}" title="${T.esc(p.person_id)}">${label(p)}</button>`)
      .join(" ");
    $("known-row").hidden = false;
  }
  $("known").addEventListener("click", (ev) => {
    const b = ev.target.closest("button.known");
    if (!b) return;
    const seat = `${b.dataset.name}=${b.dataset.id}`;
    const now = seats().filter((s) => !s.endsWith(`=${b.dataset.id}`));
    $("players").value = [...now, seat].join(", ");
    dealerChoices();
  });

  $("new-game").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const out = $("created");
    const players = seats();
    const first = $("first-dealer").value;
    const ruleset = first === "draw" ? { base: $("preset").value, first_dealer: "draw" } : $("preset").value;
    const body = { players, ruleset, stake: +$("stake").value || 1 };
    const headers = { "Content-Type": "application/json", Accept: "application/json" };
    const k = key();
    if (k) headers.Authorization = `Bearer ${k}`;
    const r = await fetch("/api/games", { method: "POST", headers, body: JSON.stringify(body) });
    const ans = await r.json().catch(() => ({}));
    if (r.status !== 201) {
      out.hidden = false;
      out.innerHTML = `<p class="refusal" role="alert"><b>Not started:</b> ${T.esc(ans.reason || r.status)}</p>`;
      return;
    }
    localStorage.setItem(`gostop.token.${ans.game_id}`, ans.recorder_token);
    const id = encodeURIComponent(ans.game_id);
    const dealer = /^\d$/.test(first) ? `&dealer=${first}` : "";
    const link = `${location.origin}/games/${id}/record#token=${encodeURIComponent(ans.recorder_token)}${dealer}`;
    const qr = await fetch("/qr", { method: "POST", headers: { "Content-Type": "text/plain" }, body: link });
    out.hidden = false;
    out.innerHTML =
      `<h2>Game ${T.esc(ans.game_id)} started</h2>` +
      `<p>Open the recorder on the phone at the table: scan the code, or open the link. ` +
      `The link holds the recorder token: give it only to who records.</p>` +
      `<div class="qr" role="img" aria-label="QR code of the recorder link">${qr.ok ? await qr.text() : ""}</div>` +
      `<p><a id="record-link" href="${T.esc(link)}">Record on this device</a> · ` +
      `<a href="/games/${id}">live table</a></p>` +
      `<p class="muted link-text">${T.esc(link)}</p>`;
    list();
  });

  health().catch(() => {});
  known().catch(() => {});
  list().then(() => document.body.classList.add("ready"));
})();
