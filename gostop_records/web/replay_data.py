"""What the replayer page carries: every event in words, the table after each one, the hands'
payout proofs beside the payments recorded, the turn marks and the game's seal.

The tables are the projector's own (:meth:`gostop_records.replay.Timeline.state_dict`, the
same data as ``gostop replay --json --at SEQ``), turned into a compact frame per event; the
page's script only draws them. Consecutive frames differ little (one card moves), so frames
after the first are stored as patches (:func:`diff`), which :func:`patch` (and the script's
twin of it) turns back into the frames.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

from .. import events as E
from .. import words
from ..audit import audit_game
from ..errors import GostopError
from ..replay import Timeline, timeline
from . import cards as W

__all__ = [
    "EVENT_FIELDS",
    "FORMAT",
    "build",
    "diff",
    "frame_of",
    "frames",
    "patch",
    "seal_text",
]

#: The version of the page data, so that a saved page says which reader it needs.
FORMAT = 1

#: Inputs that open a turn when the mover has not moved yet in it: a shake, a bomb, a card,
#: a flip-only turn (the flip and a card played after a bonus card continue it).
_TURN_INPUTS = frozenset({"shaken", "bomb_played", "card_played", "flip_only_played"})


def seal_text(head_hash: str) -> str:
    """How the page names the game's head: its seal (the short base32 form of the head, of
    :mod:`gostop_records.integrity.seals`), or the head itself where that module is absent."""
    try:
        from ..integrity.seals import seal_text as short
    except ImportError:
        return head_hash
    return short(head_hash)


# --- frames -------------------------------------------------------------------------------


def frame_of(state: dict[str, Any]) -> dict[str, Any]:
    """A table (``Timeline.state_dict``) in the compact shape the page draws."""
    out: dict[str, Any] = {
        "seq": state["seq"],
        "due": state.get("ledger_due"),
        "paid": state.get("ledger_paid"),
        "issues": len(state.get("issues", ())),
        "h": None,
    }
    if state.get("holdings") is not None:  # chips counted at the start of the sitting
        out["held"] = state["holdings"]
    h = state.get("hand")
    if h is None:
        return out
    out["h"] = {
        "no": h["hand"],
        "dealer": h["dealer"],
        "phase": h["phase"],
        "turn": h["turn_seat"],
        "decider": h.get("decider"),
        "carry": h["carry"],
        "outcome": h["outcome"],
        "winner": h["winner"],
        "reason": h["reason"],
        "layout": [
            [m["month"], m["cards"], m.get("stack", False), m.get("ppuk_owner")]
            for m in h["layout"]
        ],
        "played": h.get("played", []),
        "stock": h["stock_count"],
        "next": h["stock_next"],
        "seats": [
            {
                "hand": s["hand_known"],
                "unknown": s["hand_unknown"],
                "flip_only": s["flip_only_turns"],
                "pile": [s["pile"][k] for k in ("brights", "animals", "ribbons", "junk")],
                "score": s["score"],
                "lines": [[ln["name"], ln["points"], ln["cards"]] for ln in s["score_lines"]],
                "cup": s["cup_role"],
                "go": s["go_count"],
                "ppuk": s["ppuk_count"],
                "shakes": s["shakes"],
                "bombs": s["bombs"],
                **_sitting_out(s),
            }
            for s in h["seats"]
        ],
    }
    return out


def _sitting_out(seat: dict[str, Any]) -> dict[str, Any]:
    """At 4 or 5 seats, a seat that sits the hand out and the brights it sold (with what
    each player of the hand paid for them); nothing for a seat that plays."""
    if seat.get("plays", True):
        return {}
    out: dict[str, Any] = {"out": True}
    if seat.get("sold"):
        out["sold"] = seat["sold"]
    return out


def frames(tl: Timeline) -> list[dict[str, Any]]:
    """The compact table after every event of a timeline."""
    return [frame_of(tl.state_dict(i)) for i in range(len(tl.envelopes))]


# --- patches ------------------------------------------------------------------------------
#
# A patch of a dict by a dict of the same keys holds only the keys whose value changed, each
# as a patch of the old value; a list of the same length becomes {"~": {index: patch}};
# anything else is the new value itself, or {"=": value} where a dict would be misread as a
# patch (a dict whose keys changed).


def diff(old: Any, new: Any) -> Any:
    """The patch that turns ``old`` into ``new`` (see :func:`patch`)."""
    if isinstance(old, dict) and isinstance(new, dict):
        if old.keys() != new.keys():
            return {"=": new}
        changed = {k: diff(old[k], v) for k, v in new.items() if old[k] != v}
        # a patch of the one key "=" would read as a replacement
        return {"=": new} if list(changed) == ["="] else changed
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new) and old:
        pairs = enumerate(zip(old, new, strict=True))
        changed = {str(i): diff(a, b) for i, (a, b) in pairs if a != b}
        return {"~": changed} if _size({"~": changed}) < _size(new) else new
    if isinstance(new, dict):
        return {"=": new}
    return new


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def patch(old: Any, p: Any) -> Any:
    """``old`` with the patch ``p`` of :func:`diff` applied (a new value; ``old`` is kept)."""
    if isinstance(p, dict):
        if "=" in p and len(p) == 1:
            return p["="]
        if "~" in p and len(p) == 1 and isinstance(old, list):
            out = list(old)
            for k, v in p["~"].items():
                out[int(k)] = patch(old[int(k)], v)
            return out
        if isinstance(old, dict):
            merged = dict(old)
            for k, v in p.items():
                merged[k] = patch(old.get(k), v)
            return merged
    return p


# --- events, turns, hands ------------------------------------------------------------------


def _describe(ev: Any, players: Sequence[E.Player]) -> str:
    return words.describe(ev, players)  # the one wording of events, shared with the terminal


#: The fields of each event's array in the page data.
EVENT_FIELDS = ("seq", "hand", "type", "seat", "turn", "input", "text", "cards")


def _events(tl: Timeline) -> tuple[list[list[Any]], list[int]]:
    """Every event in words with its turn, and the turn ends: the index of the last event
    of each turn (a step by turn lands there: the turn played out, its Go or Stop said)."""
    players: Sequence[E.Player] = ()
    out: list[list[Any]] = []
    turn = 0
    opened: tuple[int, int] | None = None  # (hand, turns taken) of the turn in progress
    for i, env in enumerate(tl.envelopes):
        ev = env.event
        t = E.event_type(ev)
        if isinstance(ev, E.GameStarted):
            players = ev.players
        before = tl.states[i - 1] if i else None
        h = before.hand if before is not None else None
        if t == "hand_started":
            turn = 0
            opened = None
        elif t in _TURN_INPUTS and h is not None:
            key = (h.hand_no, sum(h.turns_taken))
            if key != opened:
                turn += 1
                opened = key
        seat = getattr(ev, "seat", None)
        # one array per event (the page names the fields: EVENT_FIELDS): a game has hundreds
        out.append(
            [
                env.seq,
                env.hand,
                t,
                seat if isinstance(seat, int) else None,
                turn if turn and env.hand is not None else None,
                1 if E.is_input(ev) else 0,
                _describe(ev, players),
                _codes_in(ev),
            ]
        )
    ends = []
    for i, e in enumerate(out):
        nxt = out[i + 1] if i + 1 < len(out) else None
        if nxt is None or nxt[1] != e[1] or nxt[4] != e[4]:
            ends.append(i)
    return out, ends


def _codes_in(ev: Any) -> list[str]:
    """The cards an event names (to mark them on the table)."""
    out: list[str] = []
    for name in ("card", "chosen", "replacement"):
        v = getattr(ev, name, None)
        if isinstance(v, str):
            out.append(v)
    v = getattr(ev, "cards", None)
    if isinstance(v, (list, tuple)):
        out.extend(c for c in v if isinstance(c, str))
    return out


def _hands(tl: Timeline, envs: Sequence[E.Envelope]) -> list[dict[str, Any]]:
    """Each hand: its first and last event, its payout proof, the payments beside what the
    rules make due (from the audit, which knows which payment belongs to which hand)."""
    spans: dict[int, list[int]] = {}
    for i, env in enumerate(tl.envelopes):
        if env.hand is not None:
            spans.setdefault(env.hand, []).append(i)
    audits: dict[int, Any] = {}
    try:
        for ha in audit_game(envs, lenient=True).hands:
            audits[ha.hand] = ha
    except GostopError:
        pass  # a log the audit refuses still replays; its hands show no payment check
    out = []
    for n, idx in sorted(spans.items()):
        last = idx[-1]
        # payments recorded after the hand_ended carry no hand: they belong to this one
        while last + 1 < len(tl.envelopes) and tl.envelopes[last + 1].hand is None:
            last += 1
        state = tl.state_dict(last)
        ha = audits.get(n)
        out.append(
            {
                "hand": n,
                "start": idx[0],
                "end": last,
                "proof": state.get("proof"),
                "summary": ha.summary if ha is not None else None,
                "instants": [x.text for x in ha.instants] if ha is not None else [],
                "payments": [
                    {
                        "payer": p.payer,
                        "payee": p.payee,
                        "source": p.source,
                        "chips": p.chips,
                        "computed": p.computed,
                        "status": p.status,
                        "difference": p.difference,
                        "seqs": list(p.seqs),
                        "finding": p.finding,
                        "explanations": [x.text for x in p.explanations][:3],
                    }
                    for p in (ha.payments if ha is not None else ())
                ],
            }
        )
    return out


def build(game_id: str, envelopes: Sequence[E.Envelope]) -> dict[str, Any]:
    """Everything the replayer page shows of one game, as JSON values."""
    envs = list(envelopes)
    tl = timeline(game_id, envs)
    if not tl.envelopes:
        raise GostopError(f"game {game_id}: its first event does not replay")
    fs = frames(tl)
    patches: list[Any] = [fs[0]] + [diff(a, b) for a, b in itertools.pairwise(fs)]
    events, ends = _events(tl)
    first = tl.states[-1]
    players = (
        [{"seat": i, "id": p.id, "name": p.name} for i, p in enumerate(first.players)]
        if (first is not None)
        else []
    )
    head = envs[-1].hash
    return {
        "format": FORMAT,
        "game_id": game_id,
        "ruleset": first.rules.name if first is not None else None,
        "stake": first.stake if first is not None else None,
        "players": players,
        "head": head,
        "seal": seal_text(head),
        "events_total": len(envs),
        "replayed": len(tl.envelopes),
        "issues": [
            {"seq": x.seq, "rule": x.rule, "reason": x.reason, "severity": x.severity}
            for x in tl.issues
        ],
        "event_fields": list(EVENT_FIELDS),
        "events": events,
        "turn_ends": ends,
        # entries an undo took back (they stay in the log, marked)
        "retracted": sorted(
            {e.event.seq for e in tl.envelopes if isinstance(e.event, E.EntryRetracted)}
        ),
        "hands": _hands(tl, envs),
        "frames": patches,
        "labels": W.labels(),
    }
