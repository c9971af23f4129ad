/* The live table: the view a viewer may see (GET /games/{id}/view: no card the table has
   not seen, every sentence written by the server's narrator), read again after each tick of
   /games/{id}/watch. EventSource reconnects by itself (the stream asks for 2 s). */
"use strict";
(function () {
  const T = window.GostopTable;
  const gid = T.data.game_id;
  const base = `/games/${encodeURIComponent(gid)}`;
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
      const r = await fetch(`${base}/view`, { headers: { Accept: "application/json" }, cache: "no-store" });
      const view = await r.json();
      if (!r.ok) {
        $("prompt").textContent = view.reason || `error ${r.status}`;
      } else {
        $("prompt").textContent = view.sentence;
        document.body.dataset.waiting = view.waiting ? view.waiting.kind : "";
        if (view.table) T.render(view, $("table"));
        T.recent(view, $("recent"));
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

  const es = new EventSource(`${base}/watch`);
  es.onopen = () => { status("live", "ok"); soon(); };
  es.addEventListener("seq", soon);
  es.onerror = () => status("reconnecting…", "down");
  window.addEventListener("online", soon);
  refresh();
})();
