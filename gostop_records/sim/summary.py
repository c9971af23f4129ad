"""What a simulation run produced, counted from its events as they stream by.

The command line prints it after ``gostop simulate``; benchmarks and bot comparisons read
the same numbers: games, hands, events, how hands ended, the nagari rate, the chips the rules
made due per hand, and per bot its wins and net chips.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import events as E

__all__ = ["RunSummary"]


@dataclass(slots=True)
class RunSummary:
    """Counters over the envelopes of a run; feed each one to :meth:`add`."""

    seat_bots: list[str]
    games: int = 0
    hands: int = 0
    events: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    chips_due: int = 0
    wins: Counter[str] = field(default_factory=Counter)
    net: Counter[str] = field(default_factory=Counter)

    def add(self, env: E.Envelope) -> None:
        self.events += 1
        count = _COUNTS.get(type(env.event))
        if count is not None:
            count(self, env.event)

    def _game(self, ev: E.GameStarted) -> None:
        self.games += 1

    def _hand(self, ev: E.HandEnded) -> None:
        self.hands += 1
        self.outcomes[ev.outcome] += 1
        self.reasons[f"{ev.outcome}:{ev.reason}"] += 1
        if ev.winner is not None:
            self.wins[self.seat_bots[ev.winner]] += 1

    def _due(self, ev: E.PaymentDue) -> None:
        self.chips_due += ev.chips
        self.net[self.seat_bots[ev.payee]] += ev.chips
        self.net[self.seat_bots[ev.payer]] -= ev.chips

    @property
    def nagari_rate(self) -> float:
        return self.outcomes["nagari"] / self.hands if self.hands else 0.0

    @property
    def chips_per_hand(self) -> float:
        """Chips the rules made due, summed over payers, per hand played (voids included)."""
        return self.chips_due / self.hands if self.hands else 0.0

    def to_dict(self) -> dict[str, Any]:
        bots = sorted(set(self.seat_bots), key=self.seat_bots.index)
        return {
            "games": self.games,
            "hands": self.hands,
            "events": self.events,
            "outcomes": {k: self.outcomes[k] for k in ("stop", "instant", "nagari", "void")},
            "reasons": dict(sorted(self.reasons.items())),
            "nagari_rate": round(self.nagari_rate, 4),
            "chips_due": self.chips_due,
            "avg_chips_per_hand": round(self.chips_per_hand, 3),
            "bots": [
                {
                    "bot": b,
                    "seats": [s for s, name in enumerate(self.seat_bots) if name == b],
                    "wins": self.wins[b],
                    "net_chips": self.net[b],
                }
                for b in bots
            ],
        }


#: The events a run summary counts, each with what it adds.
_COUNTS: dict[type, Callable[[RunSummary, Any], None]] = {
    E.GameStarted: RunSummary._game,
    E.HandEnded: RunSummary._hand,
    E.PaymentDue: RunSummary._due,
}
