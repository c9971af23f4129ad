"""The payout factors of a hand won by a Stop (A17-A23), one object each.

Settlement (``settlement.settle``) adds the Go bonus (``go.py``) to the winner's score, then
asks every :class:`Multiplier` in turn for its :class:`Factor` against each loser: whether
it applies, the condition behind it and the setting that decides it. Dokbak then moves the
losers' shares, and the stake turns points into chips. A multiplier with ``column = True``
has a flag column of that name in the ``payouts`` table.

Long: fourteen small classes, one per factor, each its settings, logic, wording and audit
alternatives together; they are read as one list in the order settlement applies them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, NamedTuple

from ... import cards as C
from ...rules import GoBak, InstantFactor, NagariCarry, Ruleset, Shaking
from ..proof import Factor, HandFacts, Score
from ..table import Table
from .base import AuditContext, Candidate, Rule, bak, flag, ints

__all__ = [
    "BOMB",
    "DOKBAK",
    "GO_BAK",
    "GWANG_BAK",
    "HAND_FOUR_KEPT",
    "JACKPOT",
    "MEONG_TTA",
    "MULTIPLIERS",
    "NAGARI_CARRY",
    "PI_BAK",
    "SHAKE",
    "STAKE",
    "Loser",
    "Multiplier",
]


class Loser(NamedTuple):
    """What the multipliers look at in one loser's pile (counts only: this runs at every
    Stop of a replay, so no score lines are made for a loser)."""

    seat: int
    pile: int
    cup_junk: bool
    brights: int
    animals: int


def _stopped(ctx: AuditContext) -> bool:
    return ctx.outcome == "stop" and ctx.facts is not None


class Multiplier(Rule):
    """A factor of a loser's payment, with the condition that makes it apply."""

    __slots__ = ()
    kind = "factor"
    #: Whether the ``payouts`` table has a BOOLEAN column named by the id.
    column: ClassVar[bool] = False
    #: The meaning of that column (before "NULL except on a loser's row ...").
    column_text: ClassVar[str] = ""

    def factor(self, t: Table, facts: HandFacts, win: Score, lo: Loser) -> Factor | None:
        """The factor against one loser, or None when the ruleset or the hand has none."""
        raise NotImplementedError


class Shake(Multiplier):
    """x``shake_multiplier`` per shake (heundeum) of the winner (A26, G33)."""

    __slots__ = ()
    id = "shake"
    name = "shake"
    ref = "A26"
    group = "Shaking, bombs and bonus cards"
    settings = ("shaking", "shake_multiplier", "shake_asked")

    def factor(self, t: Table, facts: HandFacts, win: Score, lo: Loser) -> Factor | None:
        # a ruleset without shaking (CARDAVIA C4.5) gives it no factor, even when the facts
        # (e.g. a hand re-settled under other rules in an audit) hold some
        rules = t.rules
        k = facts.shakes[facts.winner]
        if not k:
            return None
        f = rules.shake_multiplier**k
        cond = f"the winner shook {k} time(s)"
        played = rules.shaking is not Shaking.NONE
        if not played:
            cond += "; this ruleset has no shaking"
        return Factor(self.id, self.name, f, played and f > 1, cond, "shake_multiplier")

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "shake_multiplier":
            return f"x{value} per shake" if value > 1 else "no multiplier for a shake"
        if setting == "shake_asked":
            if value:
                return "a shake asked once the card is chosen, a decline recorded"
            return "a shake shown unasked before the card is played"
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if _stopped(ctx) and ctx.facts.shakes[ctx.facts.winner]:
            yield from ints(ctx.rules, "shake_multiplier", range(1, 5))

    def absent(self, rules: Ruleset) -> str | None:
        return "shaking (shaking = none)" if rules.shaking is Shaking.NONE else None


class Bomb(Multiplier):
    """x``bomb_multiplier`` per bomb of the winner, x``two_card_bomb_multiplier`` per
    two-card bomb where it is set (A11)."""

    __slots__ = ()
    id = "bomb"
    name = "bomb"
    ref = "A11"
    group = "Shaking, bombs and bonus cards"
    settings = ("bombs", "bomb_multiplier", "two_card_bomb_multiplier", "two_card_bomb_steal")

    @staticmethod
    def two_factor(rules: Ruleset) -> int:
        """The factor of one two-card bomb."""
        m = rules.two_card_bomb_multiplier
        return rules.bomb_multiplier if m is None else m

    def factor(self, t: Table, facts: HandFacts, win: Score, lo: Loser) -> Factor | None:
        rules = t.rules
        b = facts.bombs[facts.winner]
        if not b:
            return None
        two = facts.two_bombs[facts.winner] if facts.two_bombs else 0
        f = rules.bomb_multiplier ** (b - two) * self.two_factor(rules) ** two
        cond = f"the winner bombed {b} time(s)"
        if two:
            cond += f", {two} with two cards"
        if not rules.bombs:
            cond += "; this ruleset has no bombs"
        return Factor(self.id, self.name, f, rules.bombs and f > 1, cond, "bomb_multiplier")

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "bomb_multiplier":
            return f"x{value} per bomb" if value > 1 else "no multiplier for a bomb"
        if setting == "two_card_bomb_multiplier":
            if value is None:
                return "a two-card bomb multiplied as a three-card bomb"
            return (
                f"x{value} per two-card bomb" if value > 1 else "no multiplier for a two-card bomb"
            )
        if setting == "two_card_bomb_steal":
            if value is None:
                return "a two-card bomb stealing as a three-card bomb"
            return f"{value} junk per opponent for a two-card bomb"
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if _stopped(ctx) and ctx.facts.bombs[ctx.facts.winner]:
            yield from ints(ctx.rules, "bomb_multiplier", range(1, 5))
            if ctx.facts.two_bombs and ctx.facts.two_bombs[ctx.facts.winner]:
                yield from ints(ctx.rules, "two_card_bomb_multiplier", range(1, 5))

    def absent(self, rules: Ruleset) -> str | None:
        if not rules.bombs:
            return "bombs (bombs = false)"
        if rules.bomb_multiplier == 1:
            return "a bomb multiplier (bomb_multiplier = 1)"
        return None


class HandFourKept(Multiplier):
    """x``hand_four_kept_multiplier`` per four of a month the winner held in hand and kept
    playing with instead of winning at once (들고치기, ``hand_four_keep``; A24)."""

    __slots__ = ()
    id = "hand_four_kept"
    name = "kept four"
    ref = "A24"
    group = "The deal"
    settings = ("hand_four_keep", "hand_four_kept_multiplier")

    def factor(self, t: Table, facts: HandFacts, win: Score, lo: Loser) -> Factor | None:
        k = facts.kept_fours[facts.winner] if facts.kept_fours else 0
        if not k:
            return None
        f = t.rules.hand_four_kept_multiplier**k
        cond = f"the winner kept {k} four(s) of a month in hand and played on"
        return Factor(self.id, self.name, f, f > 1, cond, "hand_four_kept_multiplier")

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "hand_four_keep":
            return (
                "a four in hand kept and played on, or shown to win"
                if value
                else "a four in hand shown at the deal and won at once"
            )
        if setting == "hand_four_kept_multiplier":
            return f"x{value} per kept four" if value > 1 else "no multiplier for a kept four"
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        f = ctx.facts
        if _stopped(ctx) and f.kept_fours and f.kept_fours[f.winner]:
            yield from ints(ctx.rules, "hand_four_kept_multiplier", range(1, 5))


class GwangBak(Multiplier):
    """Gwang-bak: x2 when the winner scores brights and the loser holds none (A20)."""

    __slots__ = ()
    id = "gwang_bak"
    name = "gwang-bak"
    ref = "A20"
    settings = ("gwang_bak",)
    column = True
    column_text = (
        "whether gwang-bak doubled this loser's payment (winner scored brights, loser holds "
        "none); false when the ruleset has no gwang-bak"
    )

    def factor(self, t: Table, facts: HandFacts, win: Score, lo: Loser) -> Factor | None:
        if not t.rules.gwang_bak:
            return None
        applies = win.bright_points > 0 and lo.brights == 0
        cond = f"winner scores brights ({win.bright_points}), loser holds {lo.brights} bright(s)"
        return Factor(self.id, self.name, 2, applies, cond, "gwang_bak")

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "gwang_bak":
            if value:
                return "gwang-bak (x2 when the winner scores brights and the loser has none)"
            return "no gwang-bak"
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if _stopped(ctx):
            yield from flag(ctx.rules, "gwang_bak")

    def absent(self, rules: Ruleset) -> str | None:
        return None if rules.gwang_bak else "gwang-bak (gwang_bak = false)"


class PiBak(Multiplier):
    """Pi-bak: x2 when the winner scores junk and the loser holds at most
    ``pi_bak_max_units`` junk units (A19, C6.4)."""

    __slots__ = ()
    id = "pi_bak"
    name = "pi-bak"
    ref = "A19"
    settings = ("pi_bak", "pi_bak_max_units", "pi_bak_zero_exempt", "loser_cup_protects")
    column = True
    column_text = (
        "whether pi-bak doubled this loser's payment (winner scored junk, loser held at most "
        "`rules.pi_bak_max_units` junk units; none at all is exempt under "
        "`rules.pi_bak_zero_exempt`)"
    )

    def factor(self, t: Table, facts: HandFacts, win: Score, lo: Loser) -> Factor | None:
        rules = t.rules
        if not rules.pi_bak:
            return None
        units = t.units(lo.pile, lo.cup_junk or rules.loser_cup_protects)
        if win.junk_points <= 0:
            applies, cond = False, f"winner has no junk score ({win.junk_units} units)"
        elif rules.pi_bak_zero_exempt and units == 0:
            applies, cond = False, "loser holds no junk at all: exempt"
        else:
            applies = units <= rules.pi_bak_max_units
            rel = "<=" if applies else ">"
            cond = (
                f"winner scores junk ({win.junk_units} units), loser holds {units} unit(s) "
                f"{rel} {rules.pi_bak_max_units}"
            )
            if rules.loser_cup_protects and lo.pile & C.CUP:
                cond += " (the loser's cup counts 2)"
        return Factor(self.id, self.name, 2, applies, cond, "pi_bak_max_units")

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        v = value
        if setting == "pi_bak":
            if v:
                return (
                    f"pi-bak (x2 when the loser holds at most {rules.pi_bak_max_units} junk units)"
                )
            return "no pi-bak"
        if setting == "pi_bak_max_units":
            return f"pi-bak with a threshold of at most {v} junk units"
        if setting == "pi_bak_zero_exempt":
            if v:
                return "no pi-bak against a loser with no junk at all"
            return "pi-bak even against a loser with no junk at all"
        if setting == "loser_cup_protects":
            if v:
                return "the loser's cup counting 2 junk units against pi-bak"
            return "the loser's cup not counting against pi-bak"
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if not _stopped(ctx):
            return
        r = ctx.rules
        yield from bak(r, "pi_bak", "pi_bak_max_units", range(0, 13))
        yield from flag(r, "pi_bak_zero_exempt")
        if ctx.cup_holder is not None and ctx.cup_holder != ctx.facts.winner:
            yield from flag(r, "loser_cup_protects")

    def absent(self, rules: Ruleset) -> str | None:
        return None if rules.pi_bak else "pi-bak (pi_bak = false)"


class MeongTta(Multiplier):
    """Meong-tta: x2 when the winner holds ``meong_tta_min_animals`` animals or more (A21)."""

    __slots__ = ()
    id = "meong_tta"
    name = "meong-tta"
    ref = "A21"
    settings = ("meong_tta", "meong_tta_min_animals", "meong_tta_loser_zero")
    column = True
    column_text = (
        "whether meong-tta doubled this loser's payment (winner holds at least "
        "`rules.meong_tta_min_animals` animals; with `rules.meong_tta_loser_zero`, only a "
        "loser holding none)"
    )

    def factor(self, t: Table, facts: HandFacts, win: Score, lo: Loser) -> Factor | None:
        rules = t.rules
        if not rules.meong_tta:
            return None
        applies = win.animals >= rules.meong_tta_min_animals
        cond = f"winner holds {win.animals} animal(s), {rules.meong_tta_min_animals} needed"
        if rules.meong_tta_loser_zero:
            applies = applies and lo.animals == 0
            cond += f"; loser holds {lo.animals}"
        return Factor(self.id, self.name, 2, applies, cond, "meong_tta_min_animals")

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "meong_tta":
            if value:
                return f"meong-tta (x2 for {rules.meong_tta_min_animals} or more animals)"
            return "no meong-tta"
        if setting == "meong_tta_min_animals":
            return f"meong-tta from {value} animals"
        if setting == "meong_tta_loser_zero":
            if value:
                return "meong-tta only against a loser with no animals"
            return "meong-tta whatever animals the loser holds"
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if _stopped(ctx):
            yield from bak(ctx.rules, "meong_tta", "meong_tta_min_animals", range(5, 10))
            yield from flag(ctx.rules, "meong_tta_loser_zero")

    def absent(self, rules: Ruleset) -> str | None:
        return None if rules.meong_tta else "meong-tta (meong_tta = false)"


def _losers_went(ctx: AuditContext) -> list[int]:
    f = ctx.facts
    return [s for s in range(ctx.players) if s != f.winner and f.go_count[s]]


#: The go_bak values that double a Go caller's share, and those that make them pay for all.
_DOUBLES = (GoBak.DOUBLE, GoBak.DOUBLE_PAYS_FOR_ALL)
_DOKBAKS = (GoBak.PAYS_FOR_ALL, GoBak.DOUBLE_PAYS_FOR_ALL)


class GoBakRule(Multiplier):
    """Go-bak: x2 for a loser who had called Go, when ``go_bak`` is ``double`` (A22) or
    ``double_pays_for_all`` (GoStopCalculator: doubled, then dokbak)."""

    __slots__ = ()
    id = "go_bak"
    name = "go-bak"
    ref = "A22"
    settings = ("go_bak",)
    column = True
    column_text = (
        "whether go-bak doubled this loser's payment (the loser had called Go, `rules.go_bak` "
        "is `'double'` or `'double_pays_for_all'`)"
    )

    def factor(self, t: Table, facts: HandFacts, win: Score, lo: Loser) -> Factor | None:
        if t.rules.go_bak not in _DOUBLES:
            return None
        went = facts.go_count[lo.seat]
        cond = f"the loser called Go {went} time(s)" if went else "the loser did not call Go"
        return Factor(self.id, self.name, 2, went > 0, cond, "go_bak")

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting != "go_bak":
            return None
        mode = GoBak(value)
        if mode is GoBak.DOUBLE:
            return "go-bak (x2 for a loser who had called Go)"
        if mode is GoBak.PAYS_FOR_ALL:
            return "dokbak (a loser who had called Go pays for every loser)"
        if mode is GoBak.DOUBLE_PAYS_FOR_ALL:
            return "go-bak and dokbak (x2 for a loser who had called Go, who pays for every loser)"
        return "no go-bak"

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if not _stopped(ctx) or not _losers_went(ctx):
            return
        losers = ctx.players - 1
        for mode in GoBak:
            # dokbak moves shares between losers: with one loser it is no go-bak at all
            if mode is not ctx.rules.go_bak and not (mode in _DOKBAKS and losers < 2):
                yield Candidate("go_bak", mode.value, {"go_bak": mode})

    def absent(self, rules: Ruleset) -> str | None:
        return "go-bak (go_bak = none)" if rules.go_bak is GoBak.NONE else None


class NagariCarryRule(Multiplier):
    """The nagari carry: after hands with no winner, the next hand's payments are multiplied
    (doubling per nagari in a row, up to a cap, or x2 once) (A23)."""

    __slots__ = ()
    id = "nagari_carry"
    name = "nagari carry"
    ref = "A23"
    settings = ("nagari_carry", "nagari_carry_cap")

    def next_carry(self, rules: Ruleset, carry: int, outcome: str) -> int:
        """The carry of the hand after one that ended with ``outcome``."""
        if outcome == "void":
            return carry
        if outcome != "nagari":
            return 1
        mode = rules.nagari_carry
        if mode is NagariCarry.CUMULATIVE:
            nxt = carry * 2
            if rules.nagari_carry_cap is not None:
                nxt = min(nxt, rules.nagari_carry_cap)
            return nxt
        return 2 if mode is NagariCarry.ONCE else 1

    def carry_after(self, rules: Ruleset, streak: int) -> int:
        """The carry of a hand that follows ``streak`` nagari hands in a row."""
        carry = 1
        for _ in range(streak):
            carry = self.next_carry(rules, carry, "nagari")
        return carry

    def factor(self, t: Table, facts: HandFacts, win: Score, lo: Loser) -> Factor | None:
        if facts.carry <= 1:
            return None
        return Factor(
            self.id, self.name, facts.carry, True, "previous hand(s) had no winner", "nagari_carry"
        )

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "nagari_carry":
            mode = NagariCarry(value)
            if mode is NagariCarry.NONE:
                return "no nagari carry"
            if mode is NagariCarry.ONCE:
                return "a nagari carry of x2 however many nagari in a row"
            cap = rules.nagari_carry_cap
            return "a nagari carry doubling with each nagari in a row" + (
                f" (capped at x{cap})" if cap else ""
            )
        if setting == "nagari_carry_cap":
            return f"a nagari carry capped at x{value}" if value else "no cap on the nagari carry"
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if not ctx.nagari_streak or ctx.outcome not in ("stop", "instant"):
            return
        r = ctx.rules
        for mode in NagariCarry:
            if mode is not r.nagari_carry:
                yield Candidate("nagari_carry", mode.value, {"nagari_carry": mode})
        if r.nagari_carry is NagariCarry.CUMULATIVE:
            yield from ints(r, "nagari_carry_cap", (None, 2, 4, 8, 16))

    def absent(self, rules: Ruleset) -> str | None:
        if rules.nagari_carry is NagariCarry.NONE:
            return "a nagari carry (nagari_carry = none)"
        return None


class Dokbak(Rule):
    """Dokbak: with ``go_bak = pays_for_all`` (or ``double_pays_for_all``), the loser who
    called Go last pays every loser's Stop share, the others nothing (A22)."""

    __slots__ = ()
    kind = "factor"
    id = "dokbak"
    name = "dokbak"
    ref = "A22"
    settings = ("go_bak",)
    column: ClassVar[bool] = True
    column_text: ClassVar[str] = (
        "whether dokbak moved the losers' shares (`rules.go_bak` is `'pays_for_all'` or "
        "`'double_pays_for_all'`: the "
        "loser who called Go last pays every loser's Stop share, the others' is 0); true on "
        "every loser's row of that hand"
    )

    def shares(
        self, rules: Ruleset, facts: HandFacts, pays: dict[int, int]
    ) -> tuple[dict[int, int], str]:
        """Each loser's points after dokbak, and the note that says why (empty: no dokbak)."""
        losers: Sequence[int] = list(pays)
        if rules.go_bak not in _DOKBAKS or len(losers) < 2:
            return pays, ""
        goers = [lo for lo in losers if facts.go_count[lo] > 0]
        if not goers:
            return pays, ""
        culprit = max(goers, key=lambda s: facts.go_order[s])
        moved = dict.fromkeys(losers, 0)
        moved[culprit] = sum(pays.values())
        return moved, f"seat {culprit} called Go and lost: pays for every loser (dokbak)"


class Jackpot(Multiplier):
    """A jackpot hand (대박판, p2p's arcade preset): every hand whose number in the game is a
    multiple of ``jackpot_every`` multiplies its payments by ``jackpot_multiplier``, as the
    nagari carry does (a factor from outside the hand; an instant win too where its kind's
    factors name ``jackpot``). Hands are counted as recorded, a void deal included."""

    __slots__ = ()
    id = "jackpot"
    name = "jackpot hand"
    ref = "A23"
    group = "Settlement"
    settings = ("jackpot_every", "jackpot_multiplier")
    #: The periods the audit tries when the ruleset has no jackpot hands.
    TRY: ClassVar[tuple[int, ...]] = (3, 5, 10)

    def of(self, rules: Ruleset, hand_no: int) -> int:
        """The factor of hand number ``hand_no`` under ``rules`` (1: no jackpot)."""
        every = rules.jackpot_every
        if every is None or hand_no <= 0 or hand_no % every:
            return 1
        return rules.jackpot_multiplier

    def factor(self, t: Table, facts: HandFacts, win: Score, lo: Loser) -> Factor | None:
        every = t.rules.jackpot_every
        if every is None:
            return None
        f = self.of(t.rules, facts.hand_no)
        cond = f"hand {facts.hand_no}: a jackpot every {every} hands"
        if f == 1:
            cond = f"hand {facts.hand_no}: no jackpot (every {every} hands)"
        return Factor(self.id, self.name, f, f > 1, cond, "jackpot_multiplier")

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "jackpot_every":
            if value is None:
                return "no jackpot hands"
            return f"a jackpot hand (x{rules.jackpot_multiplier}) every {value} hands"
        if setting == "jackpot_multiplier":
            return f"x{value} in a jackpot hand"
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if ctx.outcome not in ("stop", "instant") or ctx.facts is None:
            return
        r = ctx.rules
        hand = ctx.facts.hand_no
        if r.jackpot_every is not None:
            yield Candidate("jackpot_every", None, {"jackpot_every": None})
            yield from ints(r, "jackpot_multiplier", range(2, 5))
        else:
            # the hand as a jackpot hand, at the periods tables use (p2p's arcade: 5)
            for every in (e for e in self.TRY if hand % e == 0):
                yield Candidate("jackpot_every", every, {"jackpot_every": every}, cost=1.5)

    def absent(self, rules: Ruleset) -> str | None:
        return "jackpot hands (jackpot_every = none)" if rules.jackpot_every is None else None


class InstantWinMultipliers(Rule):
    """Which of the nagari carry, shakes and bombs multiply each kind of instant win (four
    of a month in hand, three ppuk): ``instant_win_multipliers`` for every kind at once, or
    a kind's own list; first-turn payments are never multiplied (A17)."""

    __slots__ = ()
    kind = "factor"
    id = "instant_win_multipliers"
    name = "multiplied instant wins"
    ref = "A17"
    group = "Instant payments"
    settings = (
        "instant_win_multipliers",
        "hand_four_factors",
        "three_ppuk_factors",
        "hudang_factors",
    )
    #: The kinds of instant win with a setting of their own.
    KINDS: ClassVar[tuple[str, ...]] = ("hand_four", "three_ppuk", "hudang")
    _NAMES: ClassVar[dict[str, str]] = {
        "hand_four": "four of a month in hand",
        "three_ppuk": "three ppuk",
        "hudang": "hudang",
    }

    def multiplied(self, rules: Ruleset, kind: str) -> bool:
        """Whether any factor multiplies this kind of instant win under ``rules``."""
        return bool(rules.instant_factors(kind))

    def points(
        self,
        rules: Ruleset,
        pts: int,
        carry: int,
        shakes: int,
        bombs: int,
        kind: str,
        hand_no: int = 0,
    ) -> int:
        """The points of an instant win of ``kind`` after the factors its setting names
        (``hand_no``: the hand's number in the game, for a jackpot hand)."""
        used = rules.instant_factors(kind)
        if InstantFactor.NAGARI_CARRY in used:
            pts *= carry
        if InstantFactor.SHAKE in used:
            pts *= rules.shake_multiplier**shakes
        if InstantFactor.BOMB in used:
            pts *= rules.bomb_multiplier**bombs
        if InstantFactor.JACKPOT in used:
            pts *= JACKPOT.of(rules, hand_no)
        return pts

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting == "instant_win_multipliers":
            if value:
                return "shakes, bombs and the nagari carry multiplying instant wins"
            return "instant wins paid at their base points"
        kind = setting.removesuffix("_factors")
        if setting.endswith("_factors") and kind in self._NAMES:
            what = self._NAMES[kind]
            if value is None:
                return f"{what} multiplied as instant_win_multipliers says"
            names = sorted(str(getattr(v, "value", v)).replace("_", " ") for v in value)
            if not names:
                return f"{what} paid at its base points"
            return f"{what} multiplied by the {' and the '.join(names)}"
        return None

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        kinds = {ev.reason for ev in ctx.instants} & set(self.KINDS)
        if not kinds:
            return
        yield from flag(ctx.rules, "instant_win_multipliers")
        for kind in sorted(kinds):
            setting = f"{kind}_factors"
            pinned = ctx.rules.instant_factors(kind)
            for alt in _FACTOR_SETS:
                if alt != pinned and alt not in (frozenset(), frozenset(InstantFactor)):
                    yield Candidate(setting, alt, {setting: alt}, cost=1.2)


#: The per-kind lists an audit tries besides "all" and "none" (the shorthand's two values).
_FACTOR_SETS: tuple[frozenset[InstantFactor], ...] = (
    frozenset({InstantFactor.NAGARI_CARRY}),
    frozenset({InstantFactor.SHAKE, InstantFactor.BOMB}),
)


class Stake(Rule):
    """The stake: chips per point, agreed per game (``game_started.stake``), times every
    payment's points."""

    __slots__ = ()
    kind = "factor"
    id = "stake"
    name = "stake"
    group = "Game"
    settings = ()

    def words(self, setting: str, value: Any, rules: Ruleset, cup_holder: int | None) -> str | None:
        if setting != "stake":
            return None
        if value == 1:
            return "a stake of 1 chip per point (the stake left out)"
        return f"a stake of {value} chips per point"

    def alternatives(self, ctx: AuditContext) -> Iterator[Candidate]:
        if ctx.stake != 1:
            yield Candidate("stake", 1, stake=1, cost=1.5)

    def solved(self, stake: int, points: int, chips: int) -> Candidate | None:
        """The stake under which ``points`` make ``chips``, if a whole one does."""
        if points <= 0 or chips <= 0 or chips % points:
            return None
        value = chips // points
        if value in (1, stake):
            return None
        return Candidate("stake", value, stake=value, cost=2.5, solved=True)


SHAKE = Shake()
BOMB = Bomb()
HAND_FOUR_KEPT = HandFourKept()
GWANG_BAK = GwangBak()
PI_BAK = PiBak()
MEONG_TTA = MeongTta()
GO_BAK = GoBakRule()
NAGARI_CARRY = NagariCarryRule()
JACKPOT = Jackpot()
DOKBAK = Dokbak()
INSTANT_WIN_MULTIPLIERS = InstantWinMultipliers()
STAKE = Stake()

#: In the order a proof lists a loser's factors.
MULTIPLIERS: tuple[Multiplier, ...] = (
    SHAKE,
    BOMB,
    HAND_FOUR_KEPT,
    GWANG_BAK,
    PI_BAK,
    MEONG_TTA,
    GO_BAK,
    NAGARI_CARRY,
    JACKPOT,
)
