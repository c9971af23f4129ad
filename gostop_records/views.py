"""Plain JSON views of the library's results: the table at a point of a game and the payout
proof.

What ``gostop replay --json`` prints and what the HTTP service returns are these same dicts:
only JSON values (str, int, bool, None, lists and dicts), keys in a stable order. The hand's
own view is :meth:`~gostop_records.engine.state.HandState.to_dict`; this module adds the
players by name, the ledger, the results so far and the proof.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import cards as C
from . import events as E
from . import log as L
from .engine.game import GameState
from .engine.rulebook import seats as SEATS
from .engine.settlement import Proof
from .engine.state import HandState, Phase
from .proof_view import proof_json

__all__ = ["game_dict", "pending_cards", "proof_dict"]


def pending_cards(h: HandState) -> int:
    """Cards the turn in progress put on the layout before its flip (the played card, a
    bomb): they are not yet paired, so displays show them apart."""
    turn = h.turn
    if turn is None or h.phase not in (Phase.FLIP, Phase.FLIP_AS_PLAY):
        return 0
    return (1 << turn.played if turn.played >= 0 else 0) | turn.bomb


def proof_dict(proof: Proof, players: Sequence[Any] = ()) -> dict[str, Any]:
    """A payout proof as the pages get it: plain JSON values (every score line with its
    combination's id, ``combo``, every factor with its rule's id, ``rule``) and its ``lines``
    in words, which ``static/proof.js`` draws (:func:`gostop_records.proof_view.proof_json`)."""
    return proof_json(proof, players)


def game_dict(game: GameState, last: E.Envelope | None = None) -> dict[str, Any]:
    """The table at a point as JSON: the hand (``HandState.to_dict``), seats with names, the
    ledger, results so far and the event just applied."""
    players = [{"seat": s, "id": pl.id, "name": pl.name} for s, pl in enumerate(game.players)]
    out: dict[str, Any] = {
        "game_id": game.game_id,
        "ruleset": game.rules.name,
        "stake": game.stake,
        "players": players,
        "hand_no": game.hand_no,
        "hand": None,
        "results": [
            {
                "hand": r.hand,
                "outcome": r.outcome,
                "winner": r.winner,
                "reason": r.reason,
                "dues": [
                    {"payer": a, "payee": b, "points": pts, "chips": ch, "reason": why}
                    for a, b, pts, ch, why in r.dues
                ],
            }
            for r in game.results
        ],
        "ledger_due": game.ledger(),
        "ledger_paid": game.recorded_ledger(),
        "holdings": game.holdings(),  # chips held now, when the table counted them
        "event": L.envelope_to_dict(last) if last is not None else None,
    }
    h = game.hand
    if h is not None:
        d = h.to_dict()
        sold = {seller: cards for hand, seller, cards in game.sales if hand == h.hand_no}
        for seat in d["seats"]:
            seat["name"] = game.players[seat["seat"]].name
            cards = sold.get(seat["seat"])
            if cards:  # gwang-pali: what a seat sitting out sold, and what each player paid
                pts = SEATS.sale_points(game.rules, cards)
                seat["sold"] = {"cards": list(cards), "points": pts, "chips": pts * game.stake}
        d["decider"] = h.decider if h.phase in (Phase.CUP, Phase.DECIDE) else None
        d["played"] = C.codes(pending_cards(h))  # on the layout, waiting for the flip
        out["hand"] = d
        r = next((r for r in game.results if r.hand == h.hand_no), None)
        proof = r.proof() if r is not None else None
        out["proof"] = proof_dict(proof, game.players) if proof is not None else None
    return out
