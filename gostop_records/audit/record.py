"""Auditing the record itself: the hash chain, card conservation, the first rule violation.

A payout proof is only as good as the record it is computed from, so the audit also says
whether the log was changed after it was sealed, whether every card is in exactly one place
at the end of each hand, and, for a log of a table that played wrongly (lenient), the first
fact that breaks the rules with what the rules would have done instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import cards as C
from .. import events as E
from ..engine.actions import legal_actions
from ..engine.state import HandState, Phase
from ..log import verify
from ..projector import Issue, project
from ..words import recorded
from .model import ChainCheck, Conservation, Violation

__all__ = ["check_chain", "conservation", "describe_action", "legal_text", "violation"]


def check_chain(envelopes: Sequence[E.Envelope]) -> ChainCheck:
    """Seq order and the hash chain (:func:`gostop_records.log.verify`)."""
    r = verify(envelopes)
    return ChainCheck(r.ok, r.reason, r.first_bad_seq, len(envelopes))


def conservation(hand: int, state: HandState | None) -> Conservation:
    """Every card of the deck in exactly one place (layout, a hand, a pile, the stock)."""
    if state is None:
        return Conservation(hand, False)
    t = state.table
    places: list[tuple[str, int]] = [("the layout", state.layout)]
    for s in range(state.players):
        places.append((f"seat {s}'s hand", state.hands[s]))
        places.append((f"seat {s}'s pile", state.piles[s]))
    if state.stock is not None:
        stock = 0
        for i in state.stock[state.stock_pos :]:
            stock |= 1 << i
        places.append(("the stock", stock))
    problems: list[str] = []
    seen = 0
    where: dict[int, str] = {}
    for name, mask in places:
        for i in C.indices(seen & mask):
            problems.append(f"{C.ALL_CARDS[i].code} is both in {where[i]} and in {name}")
        for i in C.indices(mask & ~seen):
            where[i] = name
        seen |= mask
    for i in C.indices(seen & ~t.deck):
        problems.append(f"{C.ALL_CARDS[i].code} is in {where[i]} but not in this ruleset's deck")
    unknown = sum(state.hand_unknown) + (state.stock_count if state.stock is None else 0)
    total = seen.bit_count() + unknown
    if total != t.deck_size:
        problems.append(f"{total} cards are accounted for; the deck has {t.deck_size}")
    if not unknown:
        for i in C.indices(t.deck & ~seen):
            problems.append(f"{C.ALL_CARDS[i].code} is nowhere")
    return Conservation(hand, True, tuple(problems), total, t.deck_size)


#: An input as the record states it (:func:`gostop_records.words.recorded`).
describe_action = recorded


#: Each input the rules may allow but a play or a flip, in the words of :func:`legal_text`.
_ALLOWED: dict[type, Callable[[Any], str]] = {
    E.Shaken: lambda a: f"shake month {a.month:02d}",
    E.BombPlayed: lambda a: f"bomb month {a.month:02d}",
    E.FlipOnlyPlayed: lambda a: "a flip-only turn",
    E.GoCalled: lambda a: f"Go (number {a.count}, score {a.score})",
    E.StopCalled: lambda a: f"Stop (score {a.score})",
    E.CupAssigned: lambda a: f"the cup as {a.role}",
    E.FourOfAMonthShown: lambda a: "show the four of a month dealt",
    E.FourKept: lambda a: "keep the four of a month and play on",
    E.ShakeDeclined: lambda a: f"decline to shake month {a.month:02d}",
}


def legal_text(state: HandState, actions: Sequence[Any]) -> str:
    """The inputs the rules allowed, grouped: "play 01G, 03R; shake month 10; ..."."""
    if not actions:
        return ""
    plays, flips, parts = [], [], []
    for a in actions:
        t = type(a)
        if t is E.CardPlayed or t is E.CardFlipped:
            card = a.card + (f" (onto {a.chosen})" if a.chosen else "")
            (plays if t is E.CardPlayed else flips).append(card)
        elif t in _ALLOWED:
            parts.append(_ALLOWED[t](a))
    if plays:
        parts.insert(0, "play " + _some(plays))
    if flips:
        parts.insert(0, "turn " + _some(flips))
    seat = state.decider if state.phase in (Phase.CUP, Phase.DECIDE) else state.turn_seat
    return f"the rules allowed seat {seat}: " + "; ".join(parts)


def _some(items: list[str], most: int = 16) -> str:
    """A list in words, cut short when a hidden hand makes every unseen card possible."""
    if len(items) <= most:
        return ", ".join(items)
    return ", ".join(items[:most]) + f" and {len(items) - most} more"


def _payload(ev: Any) -> dict[str, Any] | None:
    if ev is None:
        return None
    return E.payload_to_dict(ev)


def violation(issue: Issue, envelopes: Sequence[E.Envelope], detail: bool = False) -> Violation:
    """An issue as a finding; with ``detail``, the state and the legal inputs at that point."""
    rec = issue.recorded
    what = describe_action(rec) if rec is not None and E.is_input(rec) else ""
    where = f"{issue.where}: " if issue.where else "at the end of the log: "
    text = f"{where}{what}: {issue.reason}" if what else f"{where}{issue.reason}"
    legal: tuple[dict[str, Any], ...] = ()
    ltext = ""
    if detail and issue.seq is not None and rec is not None and E.is_input(rec):
        before = project(envelopes, strict=False, until_seq=issue.seq - 1).game
        h = before.hand if before is not None else None
        if h is not None and h.phase is not Phase.ENDED:
            acts = legal_actions(h)
            legal = tuple(E.payload_to_dict(a) for a in acts)
            ltext = legal_text(h, acts)
            seat = getattr(rec, "seat", None)
            if (
                type(rec) in (E.CardPlayed, E.BombPlayed, E.Shaken)
                and seat is not None
                and (seat < h.players)
            ):
                parts = [" ".join(C.codes(h.hands[seat]))] if h.hands[seat] else []
                if h.hand_unknown[seat]:
                    parts.append(f"{h.hand_unknown[seat]} unknown card(s)")
                text += f"; seat {seat} held {' and '.join(parts) or 'no card'}"
    return Violation.of(
        issue,
        text=text,
        expected=_payload(issue.expected),
        recorded=_payload(rec),
        legal=legal,
        legal_text=ltext,
    )
