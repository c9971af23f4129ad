"""The fixed facts of one game: ruleset, player count, stake, and the masks they imply.

A :class:`Table` is built once per game and shared by every hand state, so that the hot
paths (scoring, steals) read precomputed bitmasks instead of re-deriving them from the
ruleset on every turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .. import cards as C
from ..cards import popcount
from ..rules import CupMode, DoubleJunk, LastTurnRule, Ruleset, Shaking, SseulRule

__all__ = ["Table", "table_for"]


@dataclass(frozen=True, slots=True, eq=False)
class Table:
    """Ruleset-derived constants for a game with a given number of players and stake."""

    rules: Ruleset
    players: int  # seats at the table (4 or 5: three play each hand, the others sit out)
    stake: int
    target: int
    hand_size: int
    layout_size: int
    deck: int  # mask of every card in play (48 + this ruleset's bonus cards)
    deck_size: int
    unit1: int  # cards worth one junk unit
    unit2: int  # cards worth two (double junk, two-unit bonus cards)
    unit3: int  # cards worth three (three-unit bonus cards)
    stealable: int  # cards a steal may take (junk and bonus cards; the cup is handled apart)
    ribbons: int  # ribbons that count toward the ribbon total (12R per the ruleset)
    cup_mode: CupMode
    last_turn_exceptions: frozenset[LastTurnRule]
    # settings read on every turn, copied here: a native field, not pydantic's attribute hook
    asks_shake_on_play: bool  # shake_asked under Shaking.ON_PLAY
    sseul_steal: int
    sseul_rule: SseulRule
    hudang: bool  # hudang_turns is set: the rulebook's HUDANG is asked after each turn

    def units(self, pile: int, cup_as_junk: bool = False) -> int:
        """Junk units of a pile; the cup adds two when it counts as junk."""
        u = (
            popcount(pile & self.unit1)
            + 2 * popcount(pile & self.unit2)
            + 3 * popcount(pile & self.unit3)
        )
        if cup_as_junk and pile & C.CUP:
            u += 2
        return u

    def card_units(self, idx: int) -> int:
        b = 1 << idx
        if b & self.unit1:
            return 1
        if b & self.unit2 or b == C.CUP:
            return 2
        if b & self.unit3:
            return 3
        return 0


@lru_cache(maxsize=64)
def _build(rules: Ruleset, players: int, stake: int) -> Table:
    hand, layout = rules.deal_size(players)
    bonus = C.mask_of(rules.bonus_cards)
    deck = C.STANDARD_DECK | bonus
    if rules.double_junk is DoubleJunk.STANDARD:
        doubles = C.DOUBLE_JUNK
    elif rules.double_junk is DoubleJunk.NONE:
        doubles = 0
    else:
        doubles = C.DOUBLE_JUNK | (C.SINGLE_JUNK & C.MONTH_MASKS[11])
    unit1 = C.JUNK & ~doubles
    b2 = sum(1 << C.index(code) for code in rules.bonus_cards if code[1] == "2")
    b3 = sum(1 << C.index(code) for code in rules.bonus_cards if code[1] == "3")
    return Table(
        rules=rules,
        players=players,
        stake=stake,
        target=rules.target(players),
        hand_size=hand,
        layout_size=layout,
        deck=deck,
        deck_size=popcount(deck),
        unit1=unit1,
        unit2=doubles | b2,
        unit3=b3,
        stealable=C.JUNK | bonus,
        ribbons=C.RIBBONS if rules.december_ribbon_counts else C.RIBBONS & ~C.bit("12R"),
        cup_mode=rules.cup_mode,
        last_turn_exceptions=rules.last_turn_exceptions,
        asks_shake_on_play=rules.shake_asked and rules.shaking is Shaking.ON_PLAY,
        sseul_steal=rules.sseul_steal,
        sseul_rule=rules.sseul_rule,
        hudang=rules.hudang_turns is not None,
    )


def table_for(rules: Ruleset, players: int, stake: int = 1) -> Table:
    """The table for a ruleset; rejects a player count the ruleset is not played with."""
    from ..errors import RulesetError

    if players not in rules.seats():
        allowed = " or ".join(str(p) for p in rules.players)
        why = ""
        if players > 3 and 3 in rules.players:
            why = " (sit_out = watch: players beyond three watch and join at the next deal)"
        raise RulesetError(
            f"ruleset {rules.name!r} is played by {allowed} players, not {players}{why}"
        )
    return _build(rules, players, stake)
