"""The table around the hand: who plays at 4 or 5 seats, gwang-pali, chips, the first dealer.

Go-Stop is a game of three. With 4 or 5 at the table, three play each hand and the others
sit out (``sit_out``); a seat sitting out may sell the brights in its hand (gwang-pali,
``gwang_price`` points each, from every player of the hand). The sitters' dealt hands lie
under the stock, the first sitter's (in turn order from the dealer) above the next's, so the
hand of the three is dealt and played exactly as at a table of three. Chips counted at the
start of a sitting limit what a loser pays and, under limited liability, what a winner gains
(``chip_limit``); a sitting may end when a player has nothing left (``end_when_broke``). The
first dealer is chosen by lot or by drawing cards (``first_dealer``, 밤일낮장).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ... import cards as C
from ...rules import ChipLimit, Ruleset, SitOut
from .base import AuditContext, Candidate, Rule, ints

__all__ = [
    "FIRST_DEALER_DRAW",
    "GWANG_PALI",
    "HAND_PLAYERS",
    "Capped",
    "GwangPali",
    "cap_dues",
    "dealer_by_draw",
    "sale_points",
    "seller_block",
    "sitters",
    "turn_order",
]

#: Players of one hand, whatever the number of seats.
HAND_PLAYERS = 3

Due = tuple[int, int, int, int, str]  # payer, payee, points, chips, reason
Capped = tuple[int, int, int, int, str]  # payer, payee, due chips, paid chips, cap


class GwangPali(Rule):
    """Gwang-pali: at 4 or 5 seats a seat sitting out sells the brights in its hand for
    ``gwang_price`` points each, paid by every player of the hand (a ``payment_due`` with
    reason ``gwang_pali``); never multiplied."""

    __slots__ = ()
    kind = "sale"
    id = "gwang_pali"
    name = "gwang-pali"
    ref = "GoStopCalculator CalculateSellScoreUseCase"
    group = "Seats and chips"
    settings = ("gwang_price",)

    def points(self, rules: Ruleset, brights: int) -> int:
        """What each player of the hand pays for a sale of ``brights`` brights."""
        return brights * rules.gwang_price

    def brights(self, rules: Ruleset, points: int) -> int:
        """The brights a sale of ``points`` a player sold."""
        return points // rules.gwang_price if rules.gwang_price else 0

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if any(ev.reason == self.id for ev in ctx.instants):
            yield from ints(ctx.rules, "gwang_price", range(1, 11))

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting != "gwang_price":
            return None
        if not value:
            return "no gwang-pali (a seat sitting out sells no bright)"
        return f"gwang-pali at {value} points a bright from each player of the hand"

    def absent(self, rules: Ruleset) -> str | None:
        return None if rules.gwang_price else "gwang-pali (gwang_price = 0)"


GWANG_PALI = GwangPali()


#: A bonus card's rank in the draw (draw_bonus_wins): above every month, by night or day.
_BONUS_RANK = 13


class FirstDealerDraw(Rule):
    """The draw for the first dealer (밤일낮장, ``first_dealer = draw``): whether a bonus
    card drawn beats every month (``draw_bonus_wins``, p2p R4) and after how many tied draws
    the lot chooses among the tied seats (``draw_ties_by_lot``, p2p: 3)."""

    __slots__ = ()
    kind = "table"
    id = "dealer_draw"
    name = "draw for the first dealer"
    group = "Seats and chips"
    settings = ("draw_bonus_wins", "draw_ties_by_lot")

    def by_lot(self, rules: Ruleset, ties_before: int, dealer: int | None) -> bool:
        """Whether a draw with this outcome (``dealer`` None: a tie), after ``ties_before``
        tied draws, ends by lot."""
        limit = rules.draw_ties_by_lot
        return dealer is None and limit is not None and ties_before + 1 >= limit

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "draw_bonus_wins":
            if value:
                return "a bonus card drawn for the first deal beats every month"
            return "the draw for the first deal from the 48 cards"
        if setting == "draw_ties_by_lot":
            if value is None:
                return "tied seats draw again until one deals"
            return f"after {value} tied draws the lot chooses the first dealer"
        return None


FIRST_DEALER_DRAW = FirstDealerDraw()


def turn_order(seats: int, dealer: int) -> list[int]:
    """Every seat in turn order from the dealer."""
    return [(dealer + k) % seats for k in range(seats)]


def sitters(rules: Ruleset, seats: int, dealer: int, order: Sequence[int]) -> list[int]:
    """The seats that sit out a hand with ``order`` as its turn order, in turn order from
    the dealer; raises ``ValueError`` naming the rule an order breaks."""
    around = turn_order(seats, dealer)
    if seats <= HAND_PLAYERS:
        if list(order) != around:
            raise ValueError(f"the dealer plays first and play goes round the seats: {around}")
        return []
    if rules.sit_out is SitOut.TURN_ORDER:
        want = around[:HAND_PLAYERS]
        if list(order) != want:
            raise ValueError(
                f"with {seats} seats the dealer and the next two play (sit_out = turn_order): "
                f"order {want}, not {list(order)}"
            )
        return around[HAND_PLAYERS:]
    if len(order) != HAND_PLAYERS or len(set(order)) != HAND_PLAYERS:
        raise ValueError(f"three seats play each hand at {seats} seats, not {list(order)}")
    if any(not 0 <= s < seats for s in order):
        raise ValueError(f"a seat of the order {list(order)} is not at the table")
    want = [s for s in around if s in order]
    if order[0] != dealer or list(order) != want:
        raise ValueError(
            "the dealer plays (sit_out = choice) and play goes round the seats: "
            f"order {[dealer, *[s for s in want if s != dealer]]}"
        )
    return [s for s in around if s not in order]


def seller_block(stock: Sequence[int], sat_out: Sequence[int], seat: int, hand: int) -> list[int]:
    """The cards of a sitter's dealt hand, at the bottom of a known stock (see the module
    docstring): the first sitter's block above the next's."""
    m = len(sat_out)
    i = sat_out.index(seat)
    end = len(stock) - (m - i - 1) * hand
    return list(stock[end - hand : end])


def sale_points(rules: Ruleset, cards: Sequence[str]) -> int:
    """What each player of the hand pays a seller of these brights, in points."""
    return GWANG_PALI.points(rules, len(cards))


def check_sale(cards: Sequence[str]) -> int:
    """The mask of the brights sold; raises ``ValueError`` for an empty sale, a card that
    is not a bright, or a card listed twice."""
    if not cards:
        raise ValueError("a sale lists the brights sold")
    mask = 0
    for code in cards:
        b = C.bit(code)
        if not b & C.BRIGHTS:
            raise ValueError(f"{code} is not a bright")
        if mask & b:
            raise ValueError(f"{code} is listed twice")
        mask |= b
    return mask


def cap_dues(
    rules: Ruleset, dues: Sequence[Due], balance: list[int], start: Sequence[int]
) -> tuple[list[Due], list[Capped]]:
    """Dues as the chips on the table allow them: in order, a loser pays at most what they
    hold (``holdings``), and under ``limited_liability`` a winner takes from each loser at
    most what the winner held when the hand began (``start``). ``balance`` is updated.
    Returns the dues with the chips paid, and (payer, payee, due, paid, cap) per capped due.
    """
    out: list[Due] = []
    capped: list[Capped] = []
    for payer, payee, pts, chips, why in dues:
        paid, cap = chips, ""
        if rules.chip_limit is not ChipLimit.NONE and paid > max(balance[payer], 0):
            paid, cap = max(balance[payer], 0), "loser_holdings"
        if rules.chip_limit is ChipLimit.LIMITED_LIABILITY and paid > max(start[payee], 0):
            paid, cap = max(start[payee], 0), "winner_holdings"
        balance[payer] -= paid
        balance[payee] += paid
        out.append((payer, payee, pts, paid, why))
        if cap:
            capped.append((payer, payee, chips, paid, cap))
    return out, capped


def dealer_by_draw(
    draws: Sequence[tuple[int, str]], night: bool, bonus_wins: bool = False
) -> tuple[int | None, list[int]]:
    """밤일낮장: by night the lowest month deals, by day the highest; with ``bonus_wins``
    (``draw_bonus_wins``) a bonus card beats every month. Returns the dealer, or None and
    the tied seats, who draw again; raises ``ValueError`` for a card drawn twice or a bonus
    card where the draw is from the 48 cards."""
    seen = 0
    months: list[tuple[int, int]] = []
    for seat, code in draws:
        b = C.bit(code)
        if b & C.BONUS and not bonus_wins:
            raise ValueError(f"{code} is a bonus card: the draw is from the 48 cards")
        if seen & b:
            raise ValueError(f"{code} is drawn twice")
        seen |= b
        months.append((seat, _BONUS_RANK if b & C.BONUS else C.MONTH_OF[C.index(code)]))
    if any(m == _BONUS_RANK for _, m in months):
        best = _BONUS_RANK
    else:
        best = min(m for _, m in months) if night else max(m for _, m in months)
    holders = [s for s, m in months if m == best]
    if len(holders) == 1:
        return holders[0], []
    return None, holders
