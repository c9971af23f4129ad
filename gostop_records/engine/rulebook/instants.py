"""Instant payments (A24): paid at once by every other seat, never by a Stop.

Each :class:`Instant` is one ``payment_due.reason`` with the setting that sets its points.
Four of a month in hand and three ppuk end the hand (instant wins, multiplied only when
``instant_win_multipliers`` says so); a first-turn ppuk and a first-turn ttadak are paid
during the hand and never multiplied.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from ...rules import BonusFour, LayoutFour, Ruleset
from .base import AuditContext, Candidate, Rule, ints

__all__ = [
    "FIRST_PPUK",
    "FIRST_TTADAK",
    "HAND_FOUR",
    "HUDANG",
    "INSTANTS",
    "LAYOUT_FOUR",
    "THREE_PPUK",
    "Instant",
]

_ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


class Instant(Rule):
    """An instant payment: its reason id and the setting with its points."""

    __slots__ = ()
    kind = "instant"
    group = "Instant payments"
    #: Whether it ends the hand (an instant win) rather than being paid during it.
    wins: ClassVar[bool] = False
    #: Other amounts a table may play, tried by the audit.
    TRY: ClassVar[tuple[int, ...]] = (5, 7, 10)

    @property
    def setting(self) -> str:
        return self.settings[0]

    def points(self, rules: Ruleset, k: int = 1) -> int:
        """The payment's points under ``rules`` (``k``: the how-manieth of its kind in the
        hand), before any multiplier; 0 when the ruleset does not pay it."""
        return getattr(rules, self.setting) or 0

    def probe(self, rules: Ruleset) -> dict[str, Any]:
        """Settings under which a replay of the hand tells each of these payments apart
        (the audit replays a hand with them to find every payment the play made)."""
        return {}

    def probed(self, points: int) -> int:
        """``k`` of a payment made under :meth:`probe`, from its points."""
        return 1

    def label(self, k: int = 1) -> str:
        """The payment's name in a finding; ``k``: the how-manieth of its kind in the hand."""
        return self.name

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting != self.setting:
            return None
        return f"{value} points for {self.name}" if value else f"no payment for {self.name}"

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if any(ev.reason == self.id for ev in ctx.instants):
            yield from ints(ctx.rules, self.setting, self.TRY)


class HandFour(Instant):
    """Four cards of one month in a hand at the deal: the holder wins at once,
    ``hand_four_points`` from every other seat (A24)."""

    __slots__ = ()
    id = "hand_four"
    name = "four of a month in hand"
    ref = "A24"
    group = "The deal"
    settings = ("hand_four_points", "bonus_four")
    wins = True

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "bonus_four":
            return {
                BonusFour.NEVER: "a four completed by a bonus card's replacement is no four",
                BonusFour.FIRST_TURN: "a four completed by a bonus card's replacement on the "
                "holder's first turn counts as dealt",
                BonusFour.ALWAYS: "a four completed by a bonus card's replacement counts as dealt",
            }[BonusFour(value)]
        if setting != self.setting:
            return None
        return f"{value} points for four of a month in hand"


class LayoutFourWin(Instant):
    """Four cards of one month dealt to the layout, where ``layout_four`` is
    ``dealer_wins``: the dealer wins at once, ``hand_four_points`` from every other seat
    (Hangame; A25). Else the deal is void (``redeal``) or a nagari (``nagari``)."""

    __slots__ = ()
    id = "layout_four"
    name = "four of a month on the layout"
    ref = "A25"
    group = "The deal"
    settings = ("hand_four_points", "layout_four")
    wins = True

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "layout_four":
            return {
                LayoutFour.REDEAL: "four of a month on the layout: the same dealer deals again",
                LayoutFour.NAGARI: "four of a month on the layout: a nagari",
                LayoutFour.DEALER_WINS: "four of a month on the layout: the dealer wins",
            }[LayoutFour(value)]
        return None


class ThreePpuk(Instant):
    """A third ppuk in one hand wins it at once: ``three_ppuk_points`` from every other seat
    (A24)."""

    __slots__ = ()
    id = "three_ppuk"
    name = "three ppuk"
    ref = "A24"
    settings = ("three_ppuk_points",)
    wins = True


class Hudang(Instant):
    """Hudang (허당): a seat that takes no card on ``hudang_turns`` of its turns in a row
    wins the hand at once, ``hudang_points`` from every other seat (Hangame's old matgo,
    p2p E14; A24). A turn takes a card when a card from the layout, the stock or a bonus
    card goes to the seat's pile; junk handed over by a steal is no card taken."""

    __slots__ = ()
    id = "hudang"
    name = "hudang"
    ref = "A24"
    settings = ("hudang_points", "hudang_turns")
    wins = True

    def points(self, rules: Ruleset, k: int = 1) -> int:
        return rules.hudang_points if rules.hudang_turns else 0

    def ends_hand(self, rules: Ruleset, idle_turns: int) -> bool:
        """Whether a seat's ``idle_turns`` turns in a row without a card taken win the hand."""
        return rules.hudang_turns is not None and idle_turns >= rules.hudang_turns

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "hudang_turns":
            if value is None:
                return "no hudang"
            return f"hudang: {value} turns in a row without taking a card win the hand"
        if setting == "hudang_points":
            return f"{value} points for hudang" if value else "no payment for hudang"
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if any(ev.reason == self.id for ev in ctx.instants):
            yield from ints(ctx.rules, self.setting, self.TRY)

    def absent(self, rules: Ruleset) -> str | None:
        return "hudang (hudang_turns = none)" if rules.hudang_turns is None else None


class FirstPpuk(Instant):
    """A ppuk on a seat's first turn (and on its 2nd, 3rd turn in a row) pays the k-th
    amount of ``first_ppuk_points`` at once (A24)."""

    __slots__ = ()
    id = "first_ppuk"
    name = "first-turn ppuk"
    ref = "A24"
    settings = ("first_ppuk_points",)
    TABLES: ClassVar[tuple[tuple[int, ...], ...]] = (
        (),
        (7, 14, 21),
        (3, 6, 12),
        (5, 10, 20),
        (10, 20, 30),
    )

    def label(self, k: int = 1) -> str:
        return f"{self.name} ({_ORDINAL.get(k, f'{k}th')} turn in a row)"

    def points(self, rules: Ruleset, k: int = 1) -> int:
        pts = rules.first_ppuk_points
        return pts[k - 1] if k <= len(pts) else 0

    def probe(self, rules: Ruleset) -> dict[str, Any]:
        # the k-th ppuk in a row pays k points: the amount says which turn it was
        return {self.setting: tuple(range(1, max(3, len(rules.first_ppuk_points)) + 1))}

    def probed(self, points: int) -> int:
        return points

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting != self.setting:
            return None
        pts = ", ".join(str(p) for p in value)
        return (
            f"first-turn ppuk paying {pts} points" if value else "no payment for a first-turn ppuk"
        )

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if any(ev.reason == self.id for ev in ctx.instants):
            for table in self.TABLES:
                if table != ctx.rules.first_ppuk_points:
                    yield Candidate(self.setting, table, {self.setting: table})


class FirstTtadak(Instant):
    """A ttadak on a seat's first turn pays ``first_ttadak_points`` at once (A24)."""

    __slots__ = ()
    id = "first_ttadak"
    name = "first-turn ttadak"
    ref = "A24"
    settings = ("first_ttadak_points",)
    TRY = (0, 5, 7, 10)

    def probe(self, rules: Ruleset) -> dict[str, Any]:
        return {self.setting: 1}  # paid at all, whatever this ruleset pays

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting != self.setting:
            return None
        return (
            f"{value} points for a first-turn ttadak"
            if value
            else "no payment for a first-turn ttadak"
        )


HAND_FOUR = HandFour()
LAYOUT_FOUR = LayoutFourWin()
THREE_PPUK = ThreePpuk()
HUDANG = Hudang()
FIRST_PPUK = FirstPpuk()
FIRST_TTADAK = FirstTtadak()

#: Every instant payment, by the order the audit tries their settings.
INSTANTS: tuple[Instant, ...] = (
    HAND_FOUR,
    LAYOUT_FOUR,
    THREE_PPUK,
    HUDANG,
    FIRST_PPUK,
    FIRST_TTADAK,
)
