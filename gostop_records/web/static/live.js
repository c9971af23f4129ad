/* The live table: the table redrawn after each event of the SSE stream. EventSource
   reconnects by itself (the stream asks for 2 s) and resumes after the last seq it saw. */
"use strict";
(function () {
  const T = window.GostopTable;
  const gid = T.data.game_id;
  const api = `/api/games/${encodeURIComponent(gid)}`;
  const $ = (id) => document.getElementById(id);
  let pending = null;
  let reading = false;
  let again = false;

  function status(text, cls) {
    const net = $("net");
    net.textContent = text;
    net.className = "net " + cls;
  }

  async function refresh() {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      const r = await fetch(`${api}/now`, { headers: { Accept: "application/json" }, cache: "no-store" });
      const now = await r.json();
      if (!r.ok) {
        $("prompt").textContent = now.reason || `error ${r.status}`;
      } else {
        $("prompt").textContent = T.prompt(now);
        document.body.dataset.waiting = now.waiting.kind;
        T.render(now, $("table"));
        T.recent(now, $("recent"));
      }
      if (es.readyState === EventSource.OPEN) status("live", "ok");
    } catch (e) {
      status("reconnecting…", "down");
      setTimeout(soon, 1000); // read again until the network is back
    }
    reading = false;
    document.body.classList.add("ready");
    if (again) {
      again = false;
      refresh();
    }
  }

  function soon() {
    if (pending) return;
    pending = setTimeout(() => { pending = null; refresh(); }, 60);
  }

  const es = new EventSource(`${api}/stream`);
  es.onopen = () => { status("live", "ok"); soon(); };
  es.onmessage = soon;
  // each message is named by its event type
  for (const type of T.data.event_types) es.addEventListener(type, soon);
  es.onerror = () => status("reconnecting…", "down");
  window.addEventListener("online", soon);
  refresh();
})();
