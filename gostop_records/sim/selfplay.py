"""Self-play: complete, strictly valid game logs from a seed.

A simulated game records everything a digital table knows: the shuffled deck, every hand
and the stock at the deal, every input a bot chose and every consequence the engine
derived, and a ``payment_recorded`` for each payment due, so that the log validates
strictly and audits clean. The same seed gives the same bytes.

Randomness comes from :class:`~.dealer.SplitMix64` streams named after the game: the deck of
hand ``h`` from ``"{seed}/sim-{ruleset}-{n}p-{seed}/hand{h}"``, the first dealer from
``"{seed}/sim-{ruleset}-{n}p-{seed}"`` and seat ``s``'s bot from the same key plus
``"/bot{s}"``. The streams do not depend on the bots, the stake or the game id, so two bot
line-ups meet the same deals on the same seed, which is what a fair comparison needs.
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

__all__ = [
    "EPOCH",
    "GameSpec",
    "game_specs",
    "game_start",
    "iter_game",
    "play_game",
    "play_payloads",
    "simulate",
]

CODES = C.CODES
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
DEFAULT_BOT = "greedy"


@dataclass(frozen=True, slots=True)
class GameSpec:
    """What to simulate: one game of ``hands`` hands (a single-hand ruleset plays one).

    ``bots`` are assigned to seats in turn (seat ``s`` plays ``bots[s % len(bots)]``).
    """

    rules: Ruleset
    players: int = 2
    hands: int = 1
    seed: int = 0
    bots: tuple[str, ...] = (DEFAULT_BOT,)
    stake: int = 1
    game_id: str | None = None

    def seat_bots(self) -> list[str]:
        """The bot of every seat."""
        names = self.bots or (DEFAULT_BOT,)
        return [names[s % len(names)] for s in range(self.players)]

    def stream_key(self) -> str:
        """The name the game's random streams derive from (see the module docstring)."""
        return f"sim-{self.rules.name}-{self.players}p-{self.seed}"

    def id(self) -> str:
        """``game_id``, else ``sim-{ruleset}-{n}p[-{bots}][-x{stake}]-{seed}``.

        The bots appear when a seat plays another bot than greedy and the stake when it is
        not 1, so runs that differ in either never share a game id (a store keeps one game
        per id).
        """
        if self.game_id:
            return self.game_id
        seats = self.seat_bots()
        tag = "" if all(b == DEFAULT_BOT for b in seats) else "-" + "-".join(seats)
        stake = f"-x{self.stake}" if self.stake != 1 else ""
        return f"sim-{self.rules.name}-{self.players}p{tag}{stake}-{self.seed}"


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
    key = spec.stream_key()
    players = [E.Player(id=f"p{s + 1}", name=f"Player {s + 1}") for s in range(n)]
    started = E.GameStarted(
        ruleset=rules.pinned(), players=players, stake=spec.stake, venue="simulator"
    )
    gs = start_game(spec.id(), started)
    yield None, started
    rng = SplitMix64(f"{spec.seed}/{key}")
    bots: list[Bot] = [
        make_bot(name, SplitMix64(f"{spec.seed}/{key}/bot{s}"))
        for s, name in enumerate(spec.seat_bots())
    ]
    dealer = rng.below(n)
    for h in range(1, spec.hands + 1):
        deck = shuffled_deck(gs.table, SplitMix64(f"{spec.seed}/{key}/hand{h}"))
        hs = E.HandStarted(
            hand=h,
            dealer=dealer,
            order=[(dealer + k) % n for k in range(n)],
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


def iter_game(spec: GameSpec, start: datetime | None = None) -> Iterator[E.Envelope]:
    """A simulated game as sealed envelopes, one at a time (constant memory per event).

    Event ``seq`` is stamped ``start + seq`` seconds (default :data:`EPOCH`).
    """
    base = start or EPOCH
    gid = spec.id()
    chain = L.Chain()
    for seq, (hand, payload) in enumerate(play_payloads(spec), start=1):
        stamp = L.timestamp(base + timedelta(seconds=seq))
        yield chain.seal(L.envelope(gid, seq, hand, payload, at=stamp, recorded_at=stamp, by="sim"))


def play_game(spec: GameSpec, start: datetime | None = None) -> list[E.Envelope]:
    """A complete, hash-chained simulated game log."""
    return list(iter_game(spec, start))


def game_specs(
    rules: Ruleset,
    players: int,
    games: int,
    hands: int,
    seed: int,
    bots: Sequence[str] = (DEFAULT_BOT,),
    stake: int = 1,
) -> Iterator[GameSpec]:
    """The specs of a run: game ``k`` (from 0) uses seed ``seed + k``."""
    for k in range(games):
        yield GameSpec(rules, players, hands, seed + k, tuple(bots), stake)


def game_start(seed: int) -> datetime:
    """When the game of a seed starts: a day per seed round a year, so that dates spread
    (Parquet exports partition by date) and a game's bytes depend on its seed alone, not
    on where it falls in a run: overlapping runs give identical games under one id."""
    return EPOCH + timedelta(days=seed % 365, seconds=seed % 86400)


def simulate(
    rules: Ruleset,
    players: int,
    games: int,
    hands: int,
    seed: int,
    bots: Sequence[str] = (DEFAULT_BOT,),
    stake: int = 1,
) -> Iterator[list[E.Envelope]]:
    """``games`` simulated games, one log each; game ``k`` uses seed ``seed + k``."""
    for spec in game_specs(rules, players, games, hands, seed, bots, stake):
        yield play_game(spec, game_start(spec.seed))
