"""A small scenario builder for engine and projector tests.

A :class:`Scenario` drives :func:`apply_game` with explicit inputs: a test names the hands,
the layout and the first stock cards; the builder fills the rest of the hands (unless told
not to) and of the stock with the remaining cards, so the deck is always complete and card
conservation holds. Every input and every derived consequence is kept in log order, so the
same scenario can be sealed into a log for the projector. :func:`small_deal` gives a preset
with smaller hands and layout, to reach a last turn or a near-empty layout in a few plays.

Mid-hand setups (a pile that already scores) come from :meth:`Scenario.preload`, which moves
cards from the bottom of the stock into a pile: the cards stay accounted for, only their
place changes, as if they had been captured earlier in the hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log
from gostop_records.engine import GameState, HandState, apply_game, start_game
from gostop_records.engine.settlement import HandFacts, Proof, settle
from gostop_records.engine.table import Table, table_for
from gostop_records.rules import PRESETS, Ruleset, apply_overrides

AT = "2024-05-01T19:00:00.000Z"

#: (preset name, player count) for every preset and every player count it is played with.
PRESET_SEATS: list[tuple[str, int]] = [
    (name, n) for name, rs in PRESETS.items() for n in rs.players
]


def ruleset(name: str, **overrides: Any) -> Ruleset:
    """A preset, or the preset with some fields changed (e.g. a smaller deal)."""
    base = PRESETS[name]
    if not overrides:
        return base
    return apply_overrides(base, {"name": name, **overrides}, "test")


def small_deal(name: str, hand: int, layout: int, players: int = 2, **more: Any) -> Ruleset:
    """A preset with a smaller deal, to reach a player's last turn or a near-empty layout in a
    few plays. Only the deal sizes change; every rule of the preset stays."""
    if players == 2:
        return ruleset(name, hand_size_2p=hand, layout_size_2p=layout, **more)
    return ruleset(name, hand_size_3p=hand, layout_size_3p=layout, **more)


def table(name: str, players: int | None = None, stake: int = 1) -> Table:
    rs = PRESETS[name]
    return table_for(rs, players or rs.players[0], stake)


def mask(codes: Iterable[str]) -> int:
    return C.mask_of(codes)


def units_pile(n: int, exclude: Iterable[str] = ()) -> list[str]:
    """Single junk cards worth ``n`` units (at most 22), lowest codes first."""
    skip = set(exclude)
    singles = [c for c in C.codes(C.SINGLE_JUNK) if c not in skip]
    assert n <= len(singles)
    return singles[:n]


def facts(
    winner: int,
    piles: Sequence[Iterable[str]],
    go: Sequence[int] | None = None,
    shakes: Sequence[int] | None = None,
    bombs: Sequence[int] | None = None,
    carry: int = 1,
    cup_role: str | None = None,
    go_order: Sequence[int] | None = None,
) -> HandFacts:
    """Settlement facts from piles of card codes (for settle() tests)."""
    n = len(piles)
    zeros = (0,) * n
    go_t = tuple(go) if go is not None else zeros
    return HandFacts(
        winner=winner,
        piles=tuple(mask(p) for p in piles),
        cup_role=cup_role,
        go_count=go_t,
        go_order=tuple(go_order) if go_order is not None else go_t,
        shakes=tuple(shakes) if shakes is not None else zeros,
        bombs=tuple(bombs) if bombs is not None else zeros,
        carry=carry,
    )


def proof(name: str, f: HandFacts, stake: int = 1) -> Proof:
    return settle(table_for(PRESETS[name], len(f.piles), stake), f)


class Scenario:
    """One game driven input by input; see the module docstring."""

    def __init__(
        self,
        rules: Ruleset | str,
        players: int | None = None,
        stake: int = 1,
        game_id: str = "scenario",
    ) -> None:
        self.rules = PRESETS[rules] if isinstance(rules, str) else rules
        self.players = players or self.rules.players[0]
        self.stake = stake
        self.game_id = game_id
        seats = [E.Player(id=f"p{s}", name=f"Seat {s}") for s in range(self.players)]
        started = E.GameStarted(ruleset=self.rules.pinned(), players=seats, stake=stake)
        self.game: GameState = start_game(game_id, started)
        self.entries: list[tuple[int | None, Any]] = [(None, started)]
        self.derived: list[Any] = []  # every consequence so far, in order
        self.last: list[Any] = []  # consequences of the latest input
        self.prefix = 0  # length of the stock prefix of the latest deal
        self.undo: list[tuple[int, GameState]] = []  # (seq of an input, the game before it)

    # --- state ---------------------------------------------------------------------------

    @property
    def hand(self) -> HandState:
        assert self.game.hand is not None
        return self.game.hand

    @property
    def table(self) -> Table:
        return self.game.table

    def pile(self, seat: int) -> list[str]:
        return C.codes(self.hand.piles[seat])

    def layout(self) -> list[str]:
        return C.codes(self.hand.layout)

    def score(self, seat: int) -> int:
        return self.hand.score_of(seat)

    # --- driving -------------------------------------------------------------------------

    def input(self, ev: Any) -> list[Any]:
        """Apply one input; returns (and records) its consequences."""
        before = self.game
        self.game, out = apply_game(self.game, ev)
        hand_no = self.game.hand_no or None
        self.entries.append((hand_no, ev))
        self.undo.append((len(self.entries), before))
        self.entries.extend((hand_no, d) for d in out)
        self.derived.extend(out)
        self.last = out
        return out

    def start_hand(self, dealer: int = 0) -> None:
        n = self.players
        self.input(
            E.HandStarted(
                hand=self.game.hand_no + 1,
                dealer=dealer,
                order=[(dealer + k) % n for k in range(n)],
            )
        )

    def deal(
        self,
        hands: Sequence[Sequence[str]],
        layout: Sequence[str],
        stock: Sequence[str] = (),
        *,
        fill_hands: bool = True,
        bonus_to_pile: Sequence[str] = (),
        dealer: int | None = None,
        reserve: Sequence[str] = (),
    ) -> list[Any]:
        """Start a hand and deal it (see :meth:`dealt`)."""
        self.start_hand(dealer if dealer is not None else self._next_dealer())
        self.prefix = len(stock)
        return self.input(
            self.dealt(
                hands,
                layout,
                stock,
                fill_hands=fill_hands,
                bonus_to_pile=bonus_to_pile,
                reserve=reserve,
            )
        )

    def dealt(
        self,
        hands: Sequence[Sequence[str]],
        layout: Sequence[str],
        stock: Sequence[str] = (),
        *,
        fill_hands: bool = True,
        bonus_to_pile: Sequence[str] = (),
        reserve: Sequence[str] = (),
    ) -> E.CardsDealt:
        """A deal: hands (filled up when short), layout, and the stock from its prefix.

        Fillers never complete a four in a hand and are never bonus cards; the stock is the
        prefix, then the remaining month cards (junk last), then the remaining bonus cards.
        ``reserve`` cards are kept out of the hands (for :meth:`preload`).
        """
        t = self.table
        used = mask([*layout, *stock, *bonus_to_pile, *reserve, *(c for h in hands for c in h)])
        rest = list(C.indices(t.deck & ~used))
        # hands are filled with brights, animals and ribbons first, so that the junk stays in
        # the stock where preload() can find it
        month_rest = sorted((i for i in rest if i < 48), key=lambda i: bool((1 << i) & C.JUNK))
        bonus_rest = [i for i in rest if i >= 48]
        full_hands: list[list[str]] = []
        for h in hands:
            h = list(h)
            if fill_hands:
                have = mask(h)
                k = 0
                while len(h) < t.hand_size:
                    i = month_rest[k]
                    m = C.MONTH_MASKS[C.month_of(i)]
                    if ((have | (1 << i)) & m) == m:
                        k += 1
                        continue
                    month_rest.pop(k)
                    have |= 1 << i
                    h.append(C.ALL_CARDS[i].code)
            full_hands.append(h)
        tail = [*month_rest, *(C.index(c) for c in reserve), *bonus_rest]
        full_stock = [*stock, *(C.ALL_CARDS[i].code for i in tail)]
        return E.CardsDealt(
            hands=full_hands,
            layout=list(layout),
            stock=full_stock,
            bonus_to_pile=list(bonus_to_pile),
        )

    def _next_dealer(self) -> int:
        nd = self.game.next_dealer
        return 0 if nd is None else nd

    def preload(self, seat: int, codes: Iterable[str]) -> None:
        """Put cards from the unplayed stock into a pile, as if captured earlier.

        Test setup only (it edits the state in place and is not an input): the cards must be
        in the stock below the prefix the test plays with.
        """
        h = self.hand
        assert h.stock is not None
        for code in codes:
            i = C.index(code)
            pos = h.stock.index(i)
            assert pos >= h.stock_pos, f"{code} was already drawn"
            del h.stock[pos]
            h.piles[seat] |= 1 << i
        assert h.card_total() == self.table.deck_size

    def preload_units(self, seat: int, units: int) -> list[str]:
        """Preload junk worth exactly ``units`` from the stock below the prefix."""
        h = self.hand
        assert h.stock is not None
        below = h.stock[max(self.prefix, h.stock_pos) :]
        picked: list[int] = []
        due = units
        D = set(C.indices(C.DOUBLE_JUNK))
        # doubles first, then singles, lowest codes first: exact for any total it can reach
        for i in sorted((i for i in below if (1 << i) & C.JUNK), key=lambda i: (-(i in D), i)):
            u = self.table.card_units(i)
            if u <= due:
                picked.append(i)
                due -= u
        assert due == 0, "not enough junk below the stock prefix"
        codes = [C.ALL_CARDS[i].code for i in picked]
        self.preload(seat, codes)
        return codes

    def play(self, seat: int, card: str, chosen: str | None = None) -> list[Any]:
        return self.input(E.CardPlayed(seat=seat, card=card, chosen=chosen))

    def flip(self, seat: int, card: str | None = None, chosen: str | None = None) -> list[Any]:
        if card is None:
            top = self.hand.stock_top()
            assert top is not None
            card = C.ALL_CARDS[top].code
        return self.input(E.CardFlipped(seat=seat, card=card, chosen=chosen))

    def turn(
        self,
        seat: int,
        card: str,
        chosen: str | None = None,
        flip_chosen: str | None = None,
    ) -> list[Any]:
        """Play a card and turn the stock top; returns the consequences of both."""
        out = self.play(seat, card, chosen)
        return out + self.flip(seat, chosen=flip_chosen)

    def flip_only(self, seat: int) -> list[Any]:
        out = self.input(E.FlipOnlyPlayed(seat=seat))
        return out + self.flip(seat)

    def shake(self, seat: int, month: int, codes: Sequence[str]) -> list[Any]:
        return self.input(E.Shaken(seat=seat, month=month, cards=list(codes)))

    def bomb(self, seat: int, month: int, codes: Sequence[str]) -> list[Any]:
        return self.input(E.BombPlayed(seat=seat, month=month, cards=list(codes)))

    def go(self, seat: int) -> list[Any]:
        h = self.hand
        return self.input(E.GoCalled(seat=seat, count=h.go_count[seat] + 1, score=h.score_of(seat)))

    def stop(self, seat: int) -> list[Any]:
        return self.input(E.StopCalled(seat=seat, score=self.hand.score_of(seat)))

    def cup(self, seat: int, role: str) -> list[Any]:
        return self.input(E.CupAssigned(seat=seat, role=role))  # type: ignore[arg-type]

    def fours(self, *shown: tuple[int, int]) -> list[Any]:
        return self.input(
            E.FourOfAMonthShown(
                shown=[
                    E.FourShown(seat=s, month=m, cards=C.codes(C.MONTH_MASKS[m])) for s, m in shown
                ]
            )
        )

    def pay_dues(self) -> None:
        """Record every payment the latest hand made due, as a table would."""
        res = self.game.results[-1]
        for payer, payee, _pts, chips, _why in res.dues:
            if chips:
                self.input(E.PaymentRecorded(payer=payer, payee=payee, chips=chips))

    def retract(self, reason: str = "typo") -> int:
        """Record the undo of the latest input (``entry_retracted``); returns its seq."""
        seq, before = self.undo.pop()
        self.game = before
        self.entries.append((before.hand_no or None, E.EntryRetracted(seq=seq, reason=reason)))
        return seq

    # --- the record ----------------------------------------------------------------------

    def envelopes(self) -> list[E.Envelope]:
        """The scenario as a sealed log."""
        return log.seal(
            log.envelope(self.game_id, seq, hand, ev, by="test", at=AT, recorded_at=AT)
            for seq, (hand, ev) in enumerate(self.entries, 1)
        )


# --- reading consequences ----------------------------------------------------------------


def of_type(events: Iterable[Any], cls: type) -> list[Any]:
    return [e for e in events if type(e) is cls]


def captures(events: Iterable[Any]) -> list[tuple[str, list[str]]]:
    """(kind, sorted cards) of every capture, in order."""
    return [(e.kind, sorted(e.cards)) for e in of_type(events, E.CardsCaptured)]


def transfers(events: Iterable[Any]) -> list[tuple[int, int, str, str]]:
    """(from, to, card, reason) of every junk transfer, in order."""
    return [(e.from_seat, e.to_seat, e.card, e.reason) for e in of_type(events, E.JunkTransferred)]


def dues(events: Iterable[Any]) -> list[tuple[int, int, int, int, str]]:
    """(payer, payee, points, chips, reason) of every payment due, in order."""
    return [(e.payer, e.payee, e.points, e.chips, e.reason) for e in of_type(events, E.PaymentDue)]


def ended(events: Iterable[Any]) -> E.HandEnded | None:
    found = of_type(events, E.HandEnded)
    return found[0] if found else None


def disjoint_places(h: HandState) -> bool:
    """No card in two places: layout, hands, piles and the unplayed stock are disjoint."""
    places = [h.layout, *h.hands, *h.piles]
    if h.stock is not None:
        places.append(sum(1 << i for i in h.stock[h.stock_pos :]))
    seen = 0
    for m in places:
        if seen & m:
            return False
        seen |= m
    return True


def mid_hand() -> HandState:
    """A simulated matgo hand stopped between a play and its flip: a state with a turn in
    progress, every field of it set to something."""
    from gostop_records.sim.selfplay import GameSpec, play_payloads

    payloads = list(play_payloads(GameSpec(PRESETS["matgo"], 2, 1, seed=7)))
    g = start_game("g", payloads[0][1])
    for _hand, ev in payloads[1:12]:
        if E.is_input(ev):
            g, _ = apply_game(g, ev)
    assert g.hand is not None and g.hand.turn is not None
    return g.hand
