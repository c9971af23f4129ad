"""The named rulesets a game starts from: ``cardavia``, ``gamerules``, ``matgo``, ``gostop3``
and the others of :data:`PRESETS`."""

from __future__ import annotations

from typing import Any

from ..errors import RulesetError
from .choices import (
    BonusPlay,
    CupMode,
    DoubleJunk,
    GoBak,
    GoPayout,
    HandFourTie,
    LastTurnRule,
    LayoutFour,
    NagariCarry,
    Shaking,
    SseulRule,
    StealCount,
    TransferOrder,
)
from .ruleset import Ruleset

_ALL_LAST_TURN = frozenset(LastTurnRule)

#: What standard Korean play (matgo and 3-player Go-Stop alike) agrees on: RULES.md 1C's
#: standard column and section 3. The presets add what differs with the player count.
_STANDARD: dict[str, Any] = {
    "hand_four_points": 10,
    "layout_four": LayoutFour.NAGARI,
    "all_hand_fours": HandFourTie.NAGARI,
    "shaking": Shaking.ON_PLAY,
    "bombs": True,
    "bomb_steal": 1,
    "bomb_multiplier": 2,
    "bonus_play": BonusPlay.DRAW_AND_PLAY_AGAIN,
    "bonus_steal": 1,
    "sseul_rule": SseulRule.FLOOR_EMPTY,
    "steal_count": StealCount.UNITS,
    "cup_mode": CupMode.PLAYER_CHOICE,
    "cup_transferable": True,
    "last_turn_exceptions": _ALL_LAST_TURN,
    "three_ppuk_points": 7,
    "go_payout": GoPayout.STANDARD,
    "pi_bak_zero_exempt": True,
    "nagari_carry": NagariCarry.CUMULATIVE,
    "nagari_carry_cap": 8,
}


def _preset(name: str, about: str, **rules: Any) -> Ruleset:
    """A preset, its description ``about`` and the command that shows every rule of it."""
    return Ruleset(
        name=name, description=f"{about} (every rule: gostop rules show {name}).", **rules
    )


PRESETS: dict[str, Ruleset] = {
    preset.name: preset
    for preset in (
        _preset(
            "cardavia",
            "CARDAVIA web app: 2 players, you vs the computer, a single hand, its precise rules",
            players=(2,),
            double_junk=DoubleJunk.STANDARD,
            hand_four_points=5,
            all_hand_fours=HandFourTie.REDEAL,
            layout_four=LayoutFour.REDEAL,
            single_hand=True,
            shaking=Shaking.NONE,
            bombs=False,
            sseul_rule=SseulRule.TWO_CARDS,
            steal_count=StealCount.UNITS,
            transfer_order=TransferOrder.LEAST_VALUABLE_FIRST,
            cup_mode=CupMode.AUTO_BEST,
            cup_transferable=False,
            loser_cup_protects=True,
            # C4.1 voids ttadak, chok and sseul; ppuk on the last turn follows the standard (A12).
            last_turn_exceptions=frozenset(
                {LastTurnRule.TTADAK, LastTurnRule.JJOK, LastTurnRule.SSEUL, LastTurnRule.PPUK}
            ),
            last_turn_auto_stop=True,
            three_ppuk_points=5,
            target_2p=7,
            go_payout=GoPayout.DOUBLE_FROM_THIRD,
            pi_bak_max_units=4,
            pi_bak_zero_exempt=False,
            go_bak=GoBak.NONE,
            nagari_carry=NagariCarry.NONE,
        ),
        _preset(
            "gamerules",
            "The general Go Stop rules page: 2-3 players, jokers optional",
            players=(2, 3),
            bonus_cards=("B2", "B3"),
            double_junk=DoubleJunk.STANDARD,
            hand_four_points=5,
            layout_four=LayoutFour.REDEAL,
            all_hand_fours=HandFourTie.REDEAL,
            some_hand_fours=HandFourTie.FIRST_IN_TURN_ORDER,
            shaking=Shaking.BEFORE_TURN,
            bombs=True,
            bomb_steal=0,
            bomb_multiplier=1,
            bonus_play=BonusPlay.FLIP_IN_PLACE,
            bonus_steal=0,
            sseul_rule=SseulRule.TWO_CARDS,
            own_ppuk_steal=2,
            steal_count=StealCount.CARDS,
            cup_mode=CupMode.ANIMAL_ONLY,
            cup_transferable=False,
            last_turn_exceptions=frozenset(),
            last_turn_auto_stop=True,
            target_2p=7,
            target_3p=3,
            go_payout=GoPayout.GENERAL_PAGE,
            go_double_from=4,
            pi_bak_max_units=5,
            go_bak=GoBak.NONE,
            nagari_carry=NagariCarry.CUMULATIVE,
        ),
        _preset(
            "matgo",
            "Standard Korean matgo, 2 players, as the big Korean services agree",
            players=(2,),
            bonus_cards=("B2", "B3"),
            first_ppuk_points=(7, 14, 21),
            target_2p=7,
            pi_bak_max_units=7,
            go_bak=GoBak.DOUBLE,
            **_STANDARD,
        ),
        _preset(
            "gostop3",
            "Standard Korean 3-player Go-Stop, as the big Korean services agree",
            players=(3,),
            # two 2-unit bonus cards and one 3-unit card (namu.wiki's online 3-player deck)
            bonus_cards=("B2", "B3", "B2B"),
            some_hand_fours=HandFourTie.FIRST_IN_TURN_ORDER,
            # 3-player first-ppuk amounts are lore (RULES.md section 3: 3/6/12), unverified.
            first_ppuk_points=(3, 6, 12),
            target_3p=3,
            pi_bak_max_units=5,
            go_bak=GoBak.PAYS_FOR_ALL,
            **_STANDARD,
        ),
    )
}


def get_preset(name: str) -> Ruleset:
    try:
        return PRESETS[name.strip().lower()]
    except KeyError:
        raise RulesetError(
            f"unknown ruleset {name!r}: presets are {', '.join(PRESETS)}, "
            "or give a .toml/.json ruleset file"
        ) from None
