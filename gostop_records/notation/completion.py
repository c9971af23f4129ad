"""The lines the rules accept now, and the words that complete a line being typed (the
recorder's prompt, ``/now`` of the service)."""

from __future__ import annotations

from collections.abc import Sequence

from .. import events as E
from ..engine.actions import legal_actions
from ..engine.game import GameState
from ..engine.state import Phase
from .writing import text


def lines_now(game: GameState | None) -> list[str]:
    """The table inputs the rules allow now, as lines (the legal entries, and a play or flip
    by its card alone); between hands ``deal`` and ``pay``, ``settle`` once a hand has ended
    (``settle pay`` once the night is closed), the table's ``chips``, ``draw`` and ``sell``
    when the rules wait for or allow them, always ``note`` and ``undo``."""
    out: list[str] = []
    h = game.hand if game is not None else None
    for a in legal_actions(h) if h is not None and h.phase is not Phase.ENDED else []:
        line = text(a)
        out.append(line)
        if type(a) is E.CardPlayed or type(a) is E.CardFlipped:
            out.append(line.split(" ", 1)[1])  # CARD [TAKE]: play or flip, as the table waits
    if game is not None:
        w = game.waiting()
        if w.kind == "pay":
            out.append("pay")
        elif w.kind == "deal":
            out.append("deal")
        elif w.kind == "settle":
            out.append("settle pay")
        if game.can_close():
            out.append("settle")
        for word in game.table_entries():
            if word == "draw":
                out += ["draw night", "draw day"]
            elif word == "sell":
                out += [f"sell {game.players[s].name}" for s in game.sellers()]
            else:
                out.append(word)
    out += ["note", "undo"]
    return list(dict.fromkeys(out))


def complete(lines: Sequence[str], before: str, word: str) -> list[str]:
    """The words that can follow ``before`` (the words typed before the one being completed)
    and start with ``word`` (case-insensitive), among the words of ``lines``."""
    typed = [t.lower() for t in before.split()]
    out: list[str] = []
    for line in lines:
        words = line.split()
        if len(words) > len(typed) and [w.lower() for w in words[: len(typed)]] == typed:
            nxt = words[len(typed)]
            if nxt.lower().startswith(word.lower()):
                out.append(nxt)
    return sorted(dict.fromkeys(out))
