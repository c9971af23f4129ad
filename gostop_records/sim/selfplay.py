"""Self-play: complete, strictly valid game logs from a seed.

A simulated game records everything a digital table knows: the shuffled deck, every hand
and the stock at the deal, every input a bot chose and every consequence the engine
derived, and a ``payment_recorded`` for each payment due, so that the log validates
strictly and audits clean. The same seed gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from .. import cards as C
from .. import events as E
from .. import log as L
from ..engine.actions import legal_actions
from ..engine.game import GameState, apply_game, start_game
from ..engine.state import Phase
from ..rules import Ruleset
from .bots import Bot, make_bot
from .dealer import SplitMix64, deal, shuffled_deck

__all__ = ["GameSpec", "play_game", "play_payloads", "simulate"]

CODES = tuple(c.code for c in C.ALL_CARDS)
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class GameSpec:
    """What to simulate: one game of ``hands`` hands (a single-hand ruleset plays one)."""

    rules: Ruleset
    players: int = 2
    hands: int = 1
    seed: int = 0
    bots: tuple[str, ...] = ("greedy",)
    stake: int = 1
    game_id: str | None = None

    def id(self) -> str:
        return self.game_id or f"sim-{self.rules.name}-{self.players}p-{self.seed}"


def _actor(gs: GameState) -> int:
    h = gs.hand
    assert h is not None
    if h.phase in (Phase.CUP, Phase.DECIDE):
        return h.decider
    return h.turn_seat


def play_payloads(spec: GameSpec) -> Iterator[tuple[int | None, Any]]:
    """The (hand number, payload) pairs of a simulated game, in log order."""
    rules = spec.rules
    n = spec.players
    gid = spec.id()
    players = [E.Player(id=f"p{s + 1}", name=f"Player {s + 1}") for s in range(n)]
    started = E.GameStarted(ruleset=rules.pinned(), players=players, stake=spec.stake,
                            venue="simulator")
    gs = start_game(gid, started)
    yield None, started
    rng = SplitMix64(f"{spec.seed}/{gid}")
    names = spec.bots or ("greedy",)
    bots: list[Bot] = [
        make_bot(names[s % len(names)], SplitMix64(f"{spec.seed}/{gid}/bot{s}")) for s in range(n)
    ]
    dealer = rng.below(n)
    for h in range(1, spec.hands + 1):
        deck = shuffled_deck(gs.table, SplitMix64(f"{spec.seed}/{gid}/hand{h}"))
        hs = E.HandStarted(
            hand=h, dealer=dealer, order=[(dealer + k) % n for k in range(n)],
            deck=[CODES[i] for i in deck],
        )
        gs, _ = apply_game(gs, hs)
        yield h, hs
        d = deal(gs.table, deck, dealer)
        cd = E.CardsDealt(
            hands=[[CODES[i] for i in hand] for hand in d.hands],
            layout=[CODES[i] for i in d.layout],
            stock=[CODES[i] for i in d.stock],
            bonus_to_pile=[CODES[i] for i in d.bonus_to_pile],
        )
        gs, derived = apply_game(gs, cd)
        yield h, cd
        for ev in derived:
            yield h, ev
        dues: list[E.PaymentDue] = [ev for ev in derived if type(ev) is E.PaymentDue]
        while gs.in_hand:
            hand = gs.hand
            assert hand is not None
            actions = legal_actions(hand)
            action = bots[_actor(gs)].choose(hand, actions)
            gs, derived = apply_game(gs, action)
            yield h, action
            for ev in derived:
                yield h, ev
                if type(ev) is E.PaymentDue:
                    dues.append(ev)
        for due in dues:
            if due.chips:
                pay = E.PaymentRecorded(payer=due.payer, payee=due.payee, chips=due.chips)
                gs, _ = apply_game(gs, pay)
                yield h, pay
        assert gs.next_dealer is not None
        dealer = gs.next_dealer
        if gs.finished:
            break


def play_game(spec: GameSpec, start: datetime | None = None) -> list[E.Envelope]:
    """A complete, hash-chained simulated game log."""
    base = start or EPOCH
    gid = spec.id()
    chain = L.Chain()
    out: list[E.Envelope] = []
    for seq, (hand, payload) in enumerate(play_payloads(spec), start=1):
        stamp = _stamp(base + timedelta(seconds=seq))
        out.append(chain.seal(L.envelope(gid, seq, hand, payload, at=stamp, recorded_at=stamp,
                                         by="sim")))
    return out


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def simulate(
    rules: Ruleset,
    players: int,
    games: int,
    hands: int,
    seed: int,
    bots: Sequence[str] = ("greedy",),
    stake: int = 1,
) -> Iterator[list[E.Envelope]]:
    """``games`` simulated games, one log each; game ``k`` uses seed ``seed + k``."""
    for k in range(games):
        spec = GameSpec(rules, players, hands, seed + k, tuple(bots), stake)
        start = EPOCH + timedelta(days=k % 365, seconds=k)
        yield play_game(spec, start)
