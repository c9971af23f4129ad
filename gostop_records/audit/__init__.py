"""Payout proofs and dispute audits: what the rules make due, what was paid, and why not.

``audit_game(envelopes, hand=None, claims=(), lenient=False) -> GameAudit`` is the entry
point; the result is data (frozen dataclasses with ``to_dict()``), and
:func:`gostop_records.audit.render.render_audit` turns it into text for people.

- :mod:`.core`: the audit of a game, hand by hand.
- :mod:`.context`: a hand's settlement facts, re-settled under any ruleset.
- :mod:`.explain`: the search for the house rule that explains a disputed amount.
- :mod:`.night`: the night's settlement of a closed game, itemised by hand, its transfers.
- :mod:`.record`: hash chain, card conservation, the first rule violation.
- :mod:`.claims`: "PAYER->PAYEE=CHIPS".
- :mod:`.model`: the result types.
- :mod:`.render`: the result as text.
"""

from __future__ import annotations

from . import model
from .claims import AuditArgumentError, Claim, ClaimError, parse_claim
from .context import HandContext, Settlement, carry_of, settle_under
from .core import audit_game
from .explain import explain_amount

# the result types, name for name: the list is kept in one place, beside them
from .model import *  # noqa: F403

__all__ = [
    *model.__all__,
    "AuditArgumentError",
    "Claim",
    "ClaimError",
    "HandContext",
    "Settlement",
    "audit_game",
    "carry_of",
    "explain_amount",
    "parse_claim",
    "settle_under",
]
