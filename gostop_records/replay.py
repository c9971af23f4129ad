"""Replay to a point: a game folded once, the table after every event a lookup away.

The log is folded by the projector in lenient mode, so a record of a table that played
wrongly can still be looked at; its disagreements with the rules are kept as issues. A log
that stops replaying (a first event that is not ``game_started``, a fact the projector cannot
read) keeps the events up to that point. ``gostop replay`` steps forward and back through a
:class:`Timeline`; the HTTP service answers "the table at seq N" from the same one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import events as E
from . import log as L
from .engine.game import GameState
from .errors import GostopError, ProjectionError
from .projector import Issue, Projector
from .views import game_dict

__all__ = ["TURN_OPENERS", "Timeline", "timeline"]

#: The event types that open a turn (a ``shaken`` and the play it announces are one turn).
TURN_OPENERS = frozenset({"card_played", "flip_only_played", "bomb_played", "shaken"})


@dataclass(frozen=True, slots=True)
class Timeline:
    """A game folded once: the state after every event, so any point (forward or back) is a
    lookup. ``states[i]`` is the game after ``envelopes[i]`` (None before ``game_started``
    took effect)."""

    game_id: str
    envelopes: list[E.Envelope]
    states: list[GameState | None]
    issues: list[Issue]

    def index_of_seq(self, seq: int) -> int:
        """The index of the event ``seq``; :class:`GostopError` naming the seqs there are."""
        for i, env in enumerate(self.envelopes):
            if env.seq == seq:
                return i
        first, last = self.envelopes[0].seq, self.envelopes[-1].seq
        raise GostopError(f"game {self.game_id} has no seq {seq} (seqs {first}..{last})")

    def hand_range(self, hand: int) -> range:
        """The indexes of the events of hand ``hand``; :class:`GostopError` if there is none."""
        idx = [i for i, env in enumerate(self.envelopes) if env.hand == hand]
        if not idx:
            hands = sorted({e.hand for e in self.envelopes if e.hand is not None})
            have = f"hands 1..{hands[-1]}" if hands else "no hands"
            raise GostopError(f"game {self.game_id} has no hand {hand} ({have})")
        return range(idx[0], idx[-1] + 1)

    def hand_span(self, i: int) -> range:
        """The indexes of the hand the event at ``i`` belongs to (just ``i`` for an event of
        no hand, such as ``game_started``)."""
        hand = self.envelopes[i].hand
        if hand is None:
            return range(i, i + 1)
        lo = i
        while lo > 0 and self.envelopes[lo - 1].hand == hand:
            lo -= 1
        hi = i
        while hi + 1 < len(self.envelopes) and self.envelopes[hi + 1].hand == hand:
            hi += 1
        return range(lo, hi + 1)

    def turn_ends(self) -> list[int]:
        """The indexes at which a turn is complete, in order: the event before each turn's
        opening play (so the deal counts as a turn of its own) and each hand's last event.
        Stepping by turn shows the table after a play, its flip and all they caused."""
        envs = self.envelopes
        ends: list[int] = []
        for k in range(1, len(envs) + 1):
            if k == len(envs) or envs[k].hand != envs[k - 1].hand:
                ends.append(k - 1)
                continue
            t = E.event_type(envs[k].event)
            if t in TURN_OPENERS and E.event_type(envs[k - 1].event) != "shaken":
                ends.append(k - 1)
        return ends

    def issues_until(self, seq: int) -> list[Issue]:
        """The issues found up to and including ``seq`` (and those of no seq)."""
        return [x for x in self.issues if x.seq is None or x.seq <= seq]

    def state_dict(self, i: int) -> dict[str, Any]:
        """The table after the event at index ``i`` as JSON (:func:`~.views.game_dict`), with
        its seq and the issues so far; before the game started, only the event."""
        state = self.states[i]
        env = self.envelopes[i]
        if state is None:
            return {"game_id": self.game_id, "seq": env.seq, "event": L.envelope_to_dict(env)}
        out = game_dict(state, env)
        out["seq"] = env.seq
        out["issues"] = [
            {"seq": x.seq, "rule": x.rule, "reason": x.reason, "severity": x.severity}
            for x in self.issues_until(env.seq)
        ]
        return out


def timeline(game_id: str, envelopes: Sequence[E.Envelope]) -> Timeline:
    """Fold a game's envelopes, keeping the state after each (states are immutable)."""
    proj = Projector(strict=False)
    states: list[GameState | None] = []
    kept: list[E.Envelope] = []
    try:
        for env in envelopes:
            proj.feed(env)
            kept.append(env)
            states.append(proj.game)
    except ProjectionError as exc:
        reason = f"{exc.reason} (replay stops here)"
        proj.issues.append(Issue(rule=exc.rule, reason=reason, seq=exc.seq, severity="violation"))
    return Timeline(game_id, kept, states, proj.issues)
