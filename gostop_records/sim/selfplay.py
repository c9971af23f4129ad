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
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from .. import cards as C
from .. import events as E
from .. import log as L
from ..engine.actions import legal_actions
from ..engine.game import GameState, apply_game, start_game
from ..engine.rulebook import seats as SEATS
from ..engine.state import Phase
from ..rules import ChipLimit, FirstDealer, Ruleset, SitOut
from .bots import Bot
from .dealer import SplitMix64, deal, shuffled_deck
from .roster import make_bot

__all__ = [
    "EPOCH",
    "GameSpec",
    "game_start",
    "iter_game",
    "play_game",
    "play_payloads",
    "simulate",
]

CODES = C.CODES
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
DEFAULT_BOT = "greedy"
#: Points' worth of chips each seat brings when the ruleset needs chips counted.
DEFAULT_CHIPS = 50


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
    chips: int | None = None  # each seat's chips, counted before the first hand

    def counted_chips(self) -> int | None:
        """The chips each seat brings: ``chips``, else when the ruleset limits payments by
        chips (or ends a sitting on them) :data:`DEFAULT_CHIPS` points' worth."""
        if self.chips is not None:
            return self.chips
        if self.rules.chip_limit is not ChipLimit.NONE or self.rules.end_when_broke:
            return DEFAULT_CHIPS * self.stake
        return None

    def seat_bots(self) -> list[str]:
        """The bot of every seat."""
        names = self.bots or (DEFAULT_BOT,)
        return [names[s % len(names)] for s in range(self.players)]

    def stream_key(self) -> str:
        """The name the game's random streams derive from (see the module docstring)."""
        return f"sim-{self.rules.name}-{self.players}p-{self.seed}"

    def run(self, games: int) -> Iterator[GameSpec]:
        """The specs of a run of ``games`` games from this one: game ``k`` (from 0) uses seed
        ``seed + k``."""
        for k in range(games):
            yield replace(self, seed=self.seed + k)

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
        chips = f"-c{self.chips}" if self.chips is not None else ""
        return f"sim-{self.rules.name}-{self.players}p{tag}{stake}{chips}-{self.seed}"


def _actor(gs: GameState) -> int:
    h = gs.hand
    assert h is not None
    if h.phase in (Phase.CUP, Phase.DECIDE):
        return h.decider
    return h.turn_seat


# Long: one game's loop of hands and turns; the seeded streams it carries order the payloads.
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
    chips = spec.counted_chips()
    if chips is not None:
        counted = E.ChipsCounted(chips=[chips] * n)
        gs, _ = apply_game(gs, counted)
        yield None, counted
    # the table around the hand draws from streams of its own, so that 2 and 3 seats deal
    # as before these rules existed
    if rules.first_dealer is FirstDealer.DRAW:
        for ev in _draw_for_dealer(gs, SplitMix64(f"{spec.seed}/{key}/draw")):
            gs, _ = apply_game(gs, ev)
            yield None, ev
        assert gs.next_dealer is not None
        dealer = gs.next_dealer
    seating = SplitMix64(f"{spec.seed}/{key}/seats")
    for h in range(1, spec.hands + 1):
        deck = shuffled_deck(gs.table, SplitMix64(f"{spec.seed}/{key}/hand{h}"))
        order = _hand_order(rules, n, dealer, seating)
        hs = E.HandStarted(hand=h, dealer=dealer, order=order, deck=[CODES[i] for i in deck])
        gs, derived = apply_game(gs, hs)
        yield h, hs
        for ev in derived:
            yield h, ev
        d = deal(gs.table, deck, dealer, order if n > SEATS.HAND_PLAYERS else None)
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
        for sale in _sales(gs, d.stock):
            gs, derived = apply_game(gs, sale)
            yield h, sale
            for ev in derived:
                yield h, ev
            dues += [ev for ev in derived if type(ev) is E.PaymentDue]
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
        if gs.chips is not None:  # what the chips on the table let through
            dues = [
                E.PaymentDue(payer=d[1], payee=d[2], points=d[3], chips=d[4], reason=d[5])  # type: ignore[arg-type]
                for d in gs.pending_dues()
            ]
        for due in dues:
            if due.chips:
                pay = E.PaymentRecorded(payer=due.payer, payee=due.payee, chips=due.chips)
                gs, _ = apply_game(gs, pay)
                yield h, pay
        assert gs.next_dealer is not None
        dealer = gs.next_dealer
        if gs.finished:
            break


def _draw_for_dealer(gs: GameState, rng: SplitMix64) -> Iterator[E.DealerDrawn]:
    """밤일낮장 at a simulated table: every seat draws, the tied seats again; by night."""
    seats = list(range(gs.table.players))
    rules = gs.rules
    deck = gs.table.deck if rules.draw_bonus_wins else C.STANDARD_DECK
    ties = 0
    while True:
        cards = list(C.indices(deck))
        draws = []
        for seat in seats:
            i = cards.pop(rng.below(len(cards)))
            draws.append(E.DealerDraw(seat=seat, card=CODES[i]))
        dealer, tied = SEATS.dealer_by_draw(
            [(d.seat, d.card) for d in draws], night=True, bonus_wins=rules.draw_bonus_wins
        )
        if SEATS.FIRST_DEALER_DRAW.by_lot(rules, ties, dealer):
            lot = tied[rng.below(len(tied))]
            yield E.DealerDrawn(draws=draws, night=True, dealer=lot, by_lot=True)
            return
        yield E.DealerDrawn(draws=draws, night=True, dealer=dealer)
        if dealer is not None:
            return
        seats, ties = tied, ties + 1


def _hand_order(rules: Ruleset, n: int, dealer: int, rng: SplitMix64) -> list[int]:
    """The turn order of a hand: every seat, or at 4-5 seats the three that play (by
    choice: the dealer and two others drawn at random)."""
    around = SEATS.turn_order(n, dealer)
    if n <= SEATS.HAND_PLAYERS:
        return around
    if rules.sit_out is SitOut.CHOICE:
        others = around[1:]
        picked = {others.pop(rng.below(len(others))) for _ in range(SEATS.HAND_PLAYERS - 1)}
        return [s for s in around if s == dealer or s in picked]
    return around[: SEATS.HAND_PLAYERS]


def _sales(gs: GameState, stock: list[int]) -> Iterator[E.BrightsSold]:
    """Gwang-pali at a simulated table: every sitter holding brights sells them."""
    if not gs.rules.gwang_price or not gs.in_hand:
        return
    for seat in gs.sat_out:
        block = SEATS.seller_block(stock, gs.sat_out, seat, gs.table.hand_size)
        brights = [CODES[i] for i in sorted(block) if (1 << i) & C.BRIGHTS]
        if brights:
            yield E.BrightsSold(seat=seat, cards=brights)


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
    for spec in GameSpec(rules, players, hands, seed, tuple(bots), stake).run(games):
        yield play_game(spec, game_start(spec.seed))
