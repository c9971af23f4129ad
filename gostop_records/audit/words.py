"""Settlement settings and amounts in plain words, for findings people can check at a table."""

from __future__ import annotations

from typing import Any

from ..rules import CupMode, GoBak, GoPayout, NagariCarry, Ruleset

__all__ = ["INSTANT_NAMES", "instant_text", "rule_text", "value_text"]

INSTANT_NAMES = {
    "hand_four": "four of a month in hand",
    "three_ppuk": "three ppuk",
    "first_ppuk": "first-turn ppuk",
    "first_ttadak": "first-turn ttadak",
}
_ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


def instant_text(reason: str, k: int = 1) -> str:
    """The name of an instant payment; a first-turn ppuk says its turn in a row."""
    name = INSTANT_NAMES.get(reason, reason)
    if reason == "first_ppuk":
        return f"{name} ({_ORDINAL.get(k, f'{k}th')} turn in a row)"
    return name


def _go_payout(mode: GoPayout, rules: Ruleset) -> str:
    if mode is GoPayout.STANDARD:
        return "the standard Go payout (S + n, doubled per Go from the third Go)"
    if mode is GoPayout.GENERAL_PAGE:
        return f"the general page's Go payout (S + n, doubled once from {rules.go_double_from} Go)"
    return "the CARDAVIA Go payout (S + n up to 2 Go, then S doubled per Go, no Go points)"


def rule_text(setting: str, value: Any, rules: Ruleset, cup_holder: int | None = None) -> str:
    """A setting at a value, in words; ``rules`` supplies related values (thresholds)."""
    v = value
    if setting == "go_payout":
        return _go_payout(GoPayout(v), rules)
    if setting == "go_double_from":
        return f"the Go payout doubled from {v} Go"
    if setting == "gwang_bak":
        return (
            "gwang-bak (x2 when the winner scores brights and the loser has none)"
            if v
            else ("no gwang-bak")
        )
    if setting == "pi_bak":
        return (
            f"pi-bak (x2 when the loser holds at most {rules.pi_bak_max_units} junk units)"
            if v
            else "no pi-bak"
        )
    if setting == "pi_bak_max_units":
        return f"pi-bak with a threshold of at most {v} junk units"
    if setting == "pi_bak_zero_exempt":
        return (
            "no pi-bak against a loser with no junk at all"
            if v
            else ("pi-bak even against a loser with no junk at all")
        )
    if setting == "loser_cup_protects":
        return (
            "the loser's cup counting 2 junk units against pi-bak"
            if v
            else ("the loser's cup not counting against pi-bak")
        )
    if setting == "meong_tta":
        return (
            f"meong-tta (x2 for {rules.meong_tta_min_animals} or more animals)"
            if v
            else ("no meong-tta")
        )
    if setting == "meong_tta_min_animals":
        return f"meong-tta from {v} animals"
    if setting == "meong_tta_loser_zero":
        return (
            "meong-tta only against a loser with no animals"
            if v
            else ("meong-tta whatever animals the loser holds")
        )
    if setting == "go_bak":
        mode = GoBak(v)
        if mode is GoBak.DOUBLE:
            return "go-bak (x2 for a loser who had called Go)"
        if mode is GoBak.PAYS_FOR_ALL:
            return "dokbak (a loser who had called Go pays for every loser)"
        return "no go-bak"
    if setting == "shake_multiplier":
        return f"x{v} per shake" if v > 1 else "no multiplier for a shake"
    if setting == "bomb_multiplier":
        return f"x{v} per bomb" if v > 1 else "no multiplier for a bomb"
    if setting == "nagari_carry":
        mode = NagariCarry(v)
        if mode is NagariCarry.NONE:
            return "no nagari carry"
        if mode is NagariCarry.ONCE:
            return "a nagari carry of x2 however many nagari in a row"
        cap = rules.nagari_carry_cap
        return "a nagari carry doubling with each nagari in a row" + (
            f" (capped at x{cap})" if cap else ""
        )
    if setting == "nagari_carry_cap":
        return f"a nagari carry capped at x{v}" if v else "no cap on the nagari carry"
    if setting == "cup_mode":
        mode = CupMode(v)
        if mode is CupMode.ANIMAL_ONLY:
            return "the September cup always counted as an animal"
        if mode is CupMode.AUTO_BEST:
            return "the September cup counted as whichever scores more"
        return "the September cup counted as its holder chose"
    if setting == "cup_role":
        where = f" in seat {cup_holder}'s pile" if cup_holder is not None else ""
        what = "double junk (2 units)" if v == "junk" else "an animal"
        return f"the September cup{where} counted as {what}"
    if setting == "hand_four_points":
        return f"{v} points for four of a month in hand"
    if setting == "three_ppuk_points":
        return f"{v} points for three ppuk" if v else "no payment for three ppuk"
    if setting == "first_ppuk_points":
        pts = ", ".join(str(p) for p in v)
        return f"first-turn ppuk paying {pts} points" if v else "no payment for a first-turn ppuk"
    if setting == "first_ttadak_points":
        return f"{v} points for a first-turn ttadak" if v else "no payment for a first-turn ttadak"
    if setting == "instant_win_multipliers":
        return (
            "shakes, bombs and the nagari carry multiplying instant wins"
            if v
            else ("instant wins paid at their base points")
        )
    if setting == "stake":
        if v == 1:
            return "a stake of 1 chip per point (the stake left out)"
        return f"a stake of {v} chips per point"
    return f"{setting} = {v}"


def value_text(value: Any) -> str:
    """A setting's value as a ruleset file would write it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if hasattr(value, "value"):
        return str(value.value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(str(x) for x in value) + "]"
    return str(value)
