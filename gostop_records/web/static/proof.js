// The payout proof drawn from its JSON (gostop_records/proof_view.py proof_json): the same
// markup as the server's proof_html, from the same lines, so every page says what the terminal
// says. A page may pass face(code) to show each combination's cards beside its line.
(function () {
  "use strict";

  const esc = (s) =>
    String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" })[c]);

  function item(line, tag, cls, extra) {
    let attrs = ` data-kind="${esc(line.kind)}"`;
    if (line.amount !== null && line.amount !== undefined) attrs += ` data-amount="${line.amount}"`;
    if (line.kind === "loser") attrs += ` data-chips="${line.amount}"`;
    if (cls) attrs += ` class="${esc(cls)}"`;
    return `<${tag}${attrs}>${esc(line.text)}${extra || ""}</${tag}>`;
  }

  // The whole proof: a heading, the hand's items, then a block per loser.
  function html(proof, face) {
    const lines = proof.lines;
    const out = ['<div class="proof-view">', item(lines[0], "p", "proof-heading"), '<ul class="items">'];
    let open = false;
    for (const line of lines.slice(1)) {
      if (line.kind === "loser") {
        out.push(open ? "</ul></div>" : "</ul>");
        out.push(`<div class="loser" data-loser="${line.seat}">`, item(line, "p", "chips"), '<ul class="factors">');
        open = true;
      } else if (line.kind === "factor") {
        out.push(item(line, "li", line.applies ? "applies" : "not"));
      } else {
        const faces = face && line.cards && line.cards.length ? `<span class="faces">${line.cards.map(face).join("")}</span>` : "";
        out.push(item(line, "li", `proof-${line.kind}`, faces));
      }
    }
    out.push(open ? "</ul></div></div>" : "</ul></div>");
    return out.join("");
  }

  // What each loser would pay and the factors that apply (proof_view.stop_summary).
  function summary(proof) {
    const out = [];
    for (const line of proof.lines) {
      if (line.kind === "loser") out.push({ text: line.text.replace(/:$/, ""), applied: [] });
      else if (line.kind === "factor" && line.applies && line.amount > 1) out[out.length - 1].applied.push(`x${line.amount} ${line.name}`);
    }
    return out.map((l) => (l.applied.length ? `${l.text} (${l.applied.join(", ")})` : l.text));
  }

  window.GostopProof = { html, summary, esc };
})();
