"""A payout proof rendered for people and programs: as text (the terminal), as HTML (the
audit page, drawn on the server) and as JSON (the pages' script, ``static/proof.js``, draws
it the way :func:`proof_html` does).

Every rendering is made of :meth:`Proof.lines <gostop_records.engine.proof.Proof.lines>`,
so the commands and the pages say the same items, amounts and reasons; none of them words a
proof itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape
from typing import Any

import msgspec

from .engine.proof import Proof, ProofLine

__all__ = ["names_of", "proof_html", "proof_json", "proof_text", "stop_summary"]


def names_of(players: Sequence[Any]) -> list[str]:
    """The seats' names, from players (anything with a ``name``) or names."""
    return [p if isinstance(p, str) else str(p.name) for p in players]


def proof_text(
    proof: Proof,
    players: Sequence[Any] = (),
    bold: Callable[[str], str] = lambda text: text,
) -> list[str]:
    """The proof as the terminal prints it, one item a line (``bold`` marks the heading)."""
    lines = [str(line) for line in proof.lines(names_of(players) or None)]
    return [bold(lines[0]), *lines[1:]]


def stop_summary(proof: Proof, players: Sequence[Any] = ()) -> list[str]:
    """What each loser would pay, and the factors that apply: the short form a player is shown
    when Go or Stop is asked (``static/proof.js`` ``summary`` says the same)."""
    found: list[tuple[str, list[str]]] = []
    for line in proof.lines(names_of(players) or None):
        if line.kind == "loser":
            found.append((line.text.removesuffix(":"), []))
        elif line.kind == "factor" and line.applies and (line.amount or 0) > 1:
            found[-1][1].append(f"x{line.amount} {line.name}")
    return [f"{text} ({', '.join(applied)})" if applied else text for text, applied in found]


def proof_json(proof: Proof, players: Sequence[Any] = ()) -> dict[str, Any]:
    """What a page gets: the proof's values (:meth:`Proof.to_dict`) and its ``lines`` in
    words, which ``static/proof.js`` draws."""
    lines = proof.lines(names_of(players) or None)
    return {**proof.to_dict(), "lines": msgspec.to_builtins(lines)}


def _item(line: ProofLine, tag: str = "li", cls: str = "") -> str:
    attrs = f' data-kind="{line.kind}"'
    if line.amount is not None:
        attrs += f' data-amount="{line.amount}"'
    if line.kind == "loser":  # what this loser pays, for a page's script and its tests
        attrs += f' data-chips="{line.amount}"'
    if cls:
        attrs += f' class="{cls}"'
    return f"<{tag}{attrs}>{escape(line.text)}</{tag}>"


def proof_html(proof: Proof, players: Sequence[Any] = ()) -> str:
    """The proof as an HTML fragment (its text escaped): a heading, the hand's items, then a
    block per loser with its factors and sums."""
    lines = proof.lines(names_of(players) or None)
    out = ['<div class="proof-view">', _item(lines[0], "p", "proof-heading"), '<ul class="items">']
    open_loser = False
    for line in lines[1:]:
        if line.kind == "loser":
            out.append("</ul></div>" if open_loser else "</ul>")
            out.append(f'<div class="loser" data-loser="{line.seat}">')
            out.append(f'{_item(line, "p", "chips")}<ul class="factors">')
            open_loser = True
        elif line.kind == "factor":
            out.append(_item(line, cls="applies" if line.applies else "not"))
        else:
            out.append(_item(line, cls=f"proof-{line.kind}"))
    out.append("</ul></div></div>" if open_loser else "</ul></div>")
    return "".join(out)
