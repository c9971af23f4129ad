"""The text of a script read into a :class:`~.model.GameScript`, each statement named by
its line."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from .. import cards as C
from ..errors import GostopError
from ..rules import Ruleset, resolve
from .model import CODES, FILL, UNKNOWN, GameScript, HandScript, ScriptError


def canon(code: str, where: str) -> str:
    try:
        return CODES[C.parse(code)]
    except GostopError as exc:
        raise ScriptError(f"{where}: {exc}") from None


def _cards(tokens: Iterable[str], where: str) -> tuple[str, ...]:
    return tuple(canon(t, where) for t in tokens)


def _attrs(tokens: Sequence[str], where: str) -> dict[str, str]:
    out = {}
    for tok in tokens:
        key, eq, value = tok.partition("=")
        if not eq or not key:
            raise ScriptError(f"{where}: expected key=value, got {tok!r}")
        out[key.lower()] = value
    return out


def _int(value: str, what: str, where: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ScriptError(f"{where}: {what} must be a whole number, not {value!r}") from None


_SEAT_LINE = re.compile(r"^seat\s*(\d+)\s*:(.*)$", re.IGNORECASE)
_HEAD_LINE = re.compile(r"^(layout|bonus|stock|deck)\s*:(.*)$", re.IGNORECASE)


def _beside(name: str, where: str) -> str:
    """A ruleset file named relative to the script's folder, when it is not found as given
    (a preset name stays a name)."""
    p = Path(name)
    if p.suffix in (".toml", ".json") and not p.is_absolute() and not p.exists():
        near = Path(where).parent / p
        if near.exists():
            return str(near)
    return name


def _seats_attr(value: str) -> tuple[str, ...]:
    return tuple(v for v in value.replace(",", " ").split() if v)


def parse_script(text: str, *, where: str = "<script>", rules: Ruleset | None = None) -> GameScript:
    """A :class:`GameScript` from its text form; ``rules`` overrides the ``ruleset=`` name."""
    game: dict[str, Any] | None = None
    hands: list[dict[str, Any]] = []
    pre: list[tuple[int, str]] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        here = f"{where}, line {n}"
        head = line.split(None, 1)[0].lower()
        if head == "game":
            if game is not None:
                raise ScriptError(f"{here}: one game per script")
            tokens = shlex.split(line)[1:]
            if not tokens or "=" in tokens[0]:
                raise ScriptError(f"{here}: the game line starts with the game id")
            game = {"id": tokens[0], "line": str(n), **_attrs(tokens[1:], here)}
            continue
        if game is None:
            raise ScriptError(f"{here}: a script starts with a game line")
        if head == "hand":
            attrs = _attrs(line.split()[1:], here)
            dealer = attrs.pop("dealer", None)
            hands.append(
                {
                    "dealer": None if dealer is None else _int(dealer, "dealer", here),
                    "out": _seats_attr(attrs.pop("out", "")),
                    "order": _seats_attr(attrs.pop("order", "")),
                    "deck_flag": attrs.pop("deck", "yes").lower() not in ("no", "false", "0"),
                    "seats": {},
                    "layout": None,
                    "bonus": (),
                    "stock": "auto",
                    "stock_fill": False,
                    "deck": None,
                    "inputs": [],
                    "line": n,
                }
            )
            if attrs:
                raise ScriptError(f"{here}: unknown hand attribute(s) {', '.join(attrs)}")
            continue
        m = _SEAT_LINE.match(line)
        h = _HEAD_LINE.match(line)
        if (m or h) and not hands:
            raise ScriptError(f"{here}: deal lines belong to a hand (start it with 'hand')")
        if m:
            seat = int(m.group(1))
            toks = m.group(2).split()
            cur = hands[-1]
            if toks == [UNKNOWN]:
                cur["seats"][seat] = (None, False)
            else:
                fill = bool(toks) and toks[-1] == FILL
                cur["seats"][seat] = (_cards(toks[:-1] if fill else toks, here), fill)
            continue
        if h:
            key, toks = h.group(1).lower(), h.group(2).split()
            cur = hands[-1]
            if key == "layout":
                cur["layout"] = _cards(toks, here)
            elif key == "bonus":
                cur["bonus"] = _cards(toks, here)
            elif key == "deck":
                cur["deck"] = _cards(toks, here)
            elif toks == [UNKNOWN]:
                cur["stock"] = None
            elif toks == ["auto"]:
                cur["stock"] = "auto"
            else:
                fill = bool(toks) and toks[-1] == FILL
                cur["stock"] = _cards(toks[:-1] if fill else toks, here)
                cur["stock_fill"] = fill
            continue
        (hands[-1]["inputs"] if hands else pre).append((n, line))
    if game is None:
        raise ScriptError(f"{where}: empty script (no game line)")
    return _game_of(game, hands, pre, where, rules)


def _game_of(
    game: dict[str, Any],
    hands: list[dict[str, Any]],
    pre: list[tuple[int, str]],
    where: str,
    rules: Ruleset | None,
) -> GameScript:
    attrs = dict(game)
    here = f"{where}, line {attrs.pop('line')}"
    gid = attrs.pop("id")
    name = attrs.pop("ruleset", None)
    if rules is None:
        if name is None:
            raise ScriptError(f"{here}: ruleset=NAME is required")
        rules = resolve(_beside(name, where))
    script = GameScript(
        rules=rules,
        players=_int(attrs.pop("players", "2"), "players", here),
        game_id=gid,
        stake=_int(attrs.pop("stake", "1"), "stake", here),
        names=tuple(attrs.pop("names").split(",")) if "names" in attrs else (),
        by=attrs.pop("by", "script"),
        venue=attrs.pop("venue", None),
        notes=attrs.pop("notes", None),
        pre=tuple(pre),
        where=where,
        step_seconds=_int(attrs.pop("step", "1"), "step", here),
    )
    if attrs:
        raise ScriptError(f"{here}: unknown game attribute(s) {', '.join(attrs)}")
    return replace(
        script,
        hands=tuple(_hand_of(hd, k, script.players, where) for k, hd in enumerate(hands, 1)),
    )


def _hand_of(hd: dict[str, Any], k: int, players: int, where: str) -> HandScript:
    """Hand ``k`` as read, each seat's line checked against the game's ``players``."""
    seats = hd["seats"]
    hand_cards: list[tuple[str, ...] | None] = []
    fill: list[bool] = []
    listed: list[bool] = []
    if hd["deck"] is None or seats or hd["layout"] is not None:
        for s in range(players):
            if s not in seats and players <= 3:
                raise ScriptError(f"{where}: hand {k}: no line for seat{s}")
            # at 4 or 5 seats a sitter's line may be left out (checked when dealt)
            cards, f = seats.get(s, (None, False))
            listed.append(s in seats)
            hand_cards.append(cards)
            fill.append(f)
        if hd["layout"] is None:
            raise ScriptError(f"{where}: hand {k}: no layout line")
    return HandScript(
        dealer=hd["dealer"],
        out=hd["out"],
        order=hd["order"],
        hands=tuple(hand_cards),
        fill=tuple(fill),
        listed=tuple(listed),
        layout=tuple(hd["layout"] or ()),
        bonus_to_pile=tuple(hd["bonus"]),
        stock=hd["stock"],
        stock_fill=hd["stock_fill"],
        deck=hd["deck"],
        record_deck=hd["deck_flag"],
        inputs=tuple(hd["inputs"]),
        line=hd["line"],
    )
