"""The script format: a complete, valid log from an explicit deal and a list of inputs.

A sample log, a test fixture or a hand copied from a paper score sheet is a deal plus what the
players did. A script states exactly that, and the rules engine derives every consequence
(captures, ppuk, junk transfers, Go/Stop prompts, payments due, the end of the hand) with
:func:`~gostop_records.engine.game.apply_game`, so a scripted log is a real game: it
validates strictly, and a script with an illegal input fails at that line with the rule.

The text form, one statement per line (``#`` starts a comment)::

    game sample-ppuk ruleset=matgo players=2 stake=1 by=sample names=North,South
    chips 100 100                  # chips at the start of the sitting (before the first hand)
    draw night 0 03G 1 11J1        # the draw for the first dealer (밤일낮장)
    hand dealer=0                  # a new hand; deck=no leaves the shuffled deck out
                                   # (dealer left out: the drawn dealer, or the winner)
    seat0: 08G 01J1 03G ...        # a hand; "..." completes it (see below); "?" = unknown
    seat1: 02R 05A ...
    layout: 08A 01G 03J1 04J1 06R 07R 10J1 12A
    bonus: B2                      # bonus cards dealt face up, moved to the dealer's pile
    stock: auto                    # or the cards top first (may end in "..."), or "?"
    deck: 01G 01R ...              # the shuffled deck; alone, it is dealt by the dealer
    0 play 08G                     # seat 0 plays 08G
    0 play 09R choose 09J1         # ... taking 09J1 when two cards of its month lie face up
    0 play B2 draw 05A             # a bonus card from the hand; 05A is drawn to replace it
    0 flip 01J1                    # seat 0 turns the stock ("0 flip": the top of a listed
                                   # stock)
    0 flip 08A choose 08G
    1 flip-only                    # a turn without a hand card (after a bomb)
    0 shake 08                     # show the three cards of month 08 (or list them)
    0 bomb 10                      # play the three cards of month 10 (or list them)
    fours                          # every four of a month held is shown ("fours 0:05 1:07")
    0 cup junk                     # the September cup as junk (or animal)
    1 go                           # Go at the current score (count and score are derived)
    0 stop
    pay 1->0 24 paid in cash       # what the table paid, with an optional note
    pay due                        # every payment the rules made due in this hand, as due
    note @12 the flip was dropped  # a note, optionally about a seq
    retract typo                   # undo the latest input entry

At 4 or 5 seats three play each hand: ``hand dealer=0 out=3`` names the seats sitting out
(by choice), ``order=0,1,2`` the three that play; left out, the dealer and the next two play.
A sitter's seat line is its dealt hand, which lies at the bottom of the stock (may be left
out, or ``?``); ``3 sell 01G 08G`` is its sale of brights (gwang-pali), after the deal.

The game line also takes ``venue=``, ``notes=`` (quote values with spaces) and ``step=N``,
the seconds between two inputs (timestamps start at ``build(start=...)``; consequences carry
the time of their input). ``ruleset=`` is a preset name or a ruleset file.

Completing a deal: a hand line ending in ``...`` gets the cards its seat plays, shakes or
bombs in the script (unless they come from the stock), then filler cards (never a bonus card,
never the fourth of a month). ``stock: auto`` stacks the stock with the cards the script
flips and draws, in order, then the rest. Filler comes in an order shuffled by a seed drawn
from the game id, so a completed deal looks like a real one and is the same on every run.
When every card is known, ``hand_started`` records the deck order that
:func:`~gostop_records.sim.dealer.deal` turns into exactly this deal, so a scripted hand is
a game with a fixed deck order.
"""

from __future__ import annotations

import contextlib
import re
import shlex
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from .. import cards as C
from .. import events as E
from .. import log as L
from .. import notation
from ..engine.game import GameState, apply_game, start_game
from ..engine.table import Table, table_for
from ..errors import GostopError
from ..rules import Ruleset, resolve
from ..sim.dealer import SplitMix64, deal

__all__ = [
    "GameScript",
    "HandScript",
    "ScriptError",
    "amend",
    "build",
    "deck_of",
    "load",
    "parse_input",
    "parse_script",
    "payloads",
    "script_of",
]

CODES = C.CODES
EPOCH = datetime(2026, 1, 1, 19, 0, tzinfo=UTC)
_FILL = "..."
_UNKNOWN = "?"


class ScriptError(GostopError):
    """A script that cannot be built: the line, its text and the reason (a rule, if any)."""


@dataclass(frozen=True, slots=True)
class HandScript:
    """One hand: the deal (cards as given, before completion) and the input lines.

    ``hands[s]`` is a seat's cards, or None when the record does not know them; ``fill[s]``
    completes it (see the module docstring). ``stock`` is the cards top first, None when
    unknown, or ``"auto"``; ``stock_fill`` completes an explicit stock. ``deck`` is the
    shuffled deck to record; without seats and layout, :func:`~.dealer.deal` deals it.
    """

    dealer: int | None = None  # None: the drawn dealer, the winner of the last hand, or 0
    out: tuple[str, ...] = ()  # seats sitting out (as the grammar's ``hand out``)
    order: tuple[str, ...] = ()  # the seats that play (as the grammar's ``hand order``)
    hands: tuple[tuple[str, ...] | None, ...] = ()
    fill: tuple[bool, ...] = ()
    listed: tuple[bool, ...] = ()  # a seat line given (a sitter's may be left out)
    layout: tuple[str, ...] = ()
    bonus_to_pile: tuple[str, ...] = ()
    stock: tuple[str, ...] | str | None = "auto"
    stock_fill: bool = False
    deck: tuple[str, ...] | None = None
    record_deck: bool = True
    inputs: tuple[tuple[int, str], ...] = ()  # (script line number, text)
    line: int = 0  # the script line of the ``hand`` statement


@dataclass(frozen=True, slots=True)
class GameScript:
    """A game: ruleset, seats, stake, who records it, and its hands."""

    rules: Ruleset
    players: int
    game_id: str
    hands: tuple[HandScript, ...] = ()
    stake: int = 1
    names: tuple[str, ...] = ()
    by: str = "script"
    venue: str | None = None
    notes: str | None = None
    pre: tuple[tuple[int, str], ...] = ()  # game-level lines before the first hand
    where: str = "<script>"
    step_seconds: int = 1


@dataclass(slots=True)
class _Deal:
    hands: list[list[str] | None]
    layout: list[str]
    stock: list[str] | None
    bonus: list[str]
    deck: list[str] | None


# --- parsing the text form ---------------------------------------------------------------


def _canon(code: str, where: str) -> str:
    try:
        return CODES[C.parse(code)]
    except GostopError as exc:
        raise ScriptError(f"{where}: {exc}") from None


def _cards(tokens: Iterable[str], where: str) -> tuple[str, ...]:
    return tuple(_canon(t, where) for t in tokens)


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
            if toks == [_UNKNOWN]:
                cur["seats"][seat] = (None, False)
            else:
                fill = bool(toks) and toks[-1] == _FILL
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
            elif toks == [_UNKNOWN]:
                cur["stock"] = None
            elif toks == ["auto"]:
                cur["stock"] = "auto"
            else:
                fill = bool(toks) and toks[-1] == _FILL
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
    players = _int(attrs.pop("players", "2"), "players", here)
    stake = _int(attrs.pop("stake", "1"), "stake", here)
    names = tuple(attrs.pop("names").split(",")) if "names" in attrs else ()
    by = attrs.pop("by", "script")
    venue = attrs.pop("venue", None)
    notes = attrs.pop("notes", None)
    step = _int(attrs.pop("step", "1"), "step", here)
    if attrs:
        raise ScriptError(f"{here}: unknown game attribute(s) {', '.join(attrs)}")
    out = []
    for k, hd in enumerate(hands, 1):
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
        out.append(
            HandScript(
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
        )
    return GameScript(
        rules=rules,
        players=players,
        game_id=gid,
        hands=tuple(out),
        stake=stake,
        names=names,
        by=by,
        venue=venue,
        notes=notes,
        pre=tuple(pre),
        where=where,
        step_seconds=step,
    )


# --- completing a deal -------------------------------------------------------------------


@contextlib.contextmanager
def _named(where: str) -> Iterator[None]:
    """A notation error inside the block, as a ScriptError naming ``where``."""
    try:
        yield
    except notation.UnknownCommand as exc:
        raise ScriptError(
            f"{where}: unknown input {exc.word!r}: play, flip, flip-only, shake, bomb, cup, go, "
            "stop, fours, pay, note, retract, chips, draw, sell"
        ) from None
    except GostopError as exc:
        raise ScriptError(f"{where}: {exc}") from None


def _read(line: str, where: str) -> notation.Line:
    with _named(where):
        return notation.read(line)


def _draws(inputs: Sequence[tuple[int, str]], where: str) -> list[str]:
    """The stock cards a hand's script turns or draws, in order."""
    out = []
    for n, text in inputs:
        here = f"{where}, line {n}"
        ln = _read(text, here)
        if ln.verb == "flip" and ln.args:
            out.append(_canon(ln.args[0], here))
        if ln.draw is not None:
            out.append(ln.draw)
    return out


def _own_cards(inputs: Sequence[tuple[int, str]], seat: int, where: str) -> list[str]:
    """Cards a seat plays, shakes, bombs or sells from its hand in a script, in order (a
    script names the seat of each input by number, so that the deal can be completed)."""
    out = []
    for n, text in inputs:
        here = f"{where}, line {n}"
        ln = _read(text, here)
        if ln.verb == "sell" and ln.seat is None and ln.args and ln.args[0].isdecimal():
            ln = notation.Line("sell", ln.args[0], ln.args[1:], ln.rest)  # sell SEAT CARD...
        if ln.seat is None or not ln.seat.isdecimal() or int(ln.seat) != seat or not ln.args:
            continue
        if ln.verb == "sell":
            out.extend(_canon(x, here) for x in ln.args)
        if ln.verb == "play":
            out.append(_canon(ln.args[0], here))
        elif ln.verb in ("shake", "bomb"):
            out.extend(_canon(x, here) for x in ln.args if not x.isdecimal())
    return out


def _complete(
    t: Table, hs: HandScript, where: str, seed: str = "", started: E.HandStarted | None = None
) -> _Deal:
    """The full deal of a hand script: filled hands, stock and the deck order.

    ``started`` is the hand's start (dealer and the seats that play); at 4 or 5 seats a
    sitter is dealt no hand of the play: its cards are a block at the bottom of the stock,
    the first sitter's (in turn order from the dealer) above the next's."""
    dealer = started.dealer if started is not None else hs.dealer or 0
    n = t.players
    playing = list(started.order) if started is not None else list(range(n))
    sitters = [s for s in ((dealer + k) % n for k in range(n)) if s not in playing]
    if hs.deck is not None and not hs.hands:
        idx = [C.parse(c) for c in hs.deck]
        d = deal(t, idx, dealer, playing if sitters else None)
        return _Deal(
            [[CODES[i] for i in h] for h in d.hands],
            [CODES[i] for i in d.layout],
            [CODES[i] for i in d.stock],
            [CODES[i] for i in d.bonus_to_pile],
            list(hs.deck) if hs.record_deck else None,
        )
    if len(hs.hands) != n:
        raise ScriptError(f"{where}: the deal lists {len(hs.hands)} hands for {n} players")
    for s in playing:
        if hs.listed and not hs.listed[s]:
            raise ScriptError(f"{where}: no line for seat{s}, which plays this hand")
    used: dict[str, str] = {}

    def claim(code: str, place: str) -> None:
        if code in used:
            raise ScriptError(f"{where}: {code} is placed twice ({used[code]} and {place})")
        if not t.deck & (1 << C.index(code)):
            raise ScriptError(f"{where}: {code} ({place}) is not in this ruleset's deck")
        used[code] = place

    hands: list[list[str] | None] = []
    for s, cards in enumerate(hs.hands):
        hands.append(None if cards is None else list(cards))
        for c in cards or ():
            claim(c, f"seat {s}'s hand")
    for c in hs.layout:
        claim(c, "the layout")
    for c in hs.bonus_to_pile:
        claim(c, "bonus")
    if hs.stock == "auto" and any(hands[s] is None for s in playing):
        raise ScriptError(
            f"{where}: 'stock: auto' needs every hand known; list the stock or give '?'"
        )
    draws = _draws(hs.inputs, where) if hs.stock == "auto" else []
    explicit_stock = list(hs.stock) if isinstance(hs.stock, tuple) else []
    for c in (*draws, *explicit_stock):
        claim(c, "the stock")
    fill = [bool(hs.fill and hs.fill[s]) for s in range(n)]
    for s in sitters:  # a sitter left out of a stock the script completes: all filler
        if hands[s] is None and not hs.listed[s] and (hs.stock == "auto" or hs.stock_fill):
            hands[s], fill[s] = [], True
    for s in range(n):
        h = hands[s]
        if h is None or not fill[s]:
            continue
        for c in _own_cards(hs.inputs, s, where):
            if c not in used:
                claim(c, f"seat {s}'s hand")
                h.append(c)
    pool = [i for i in C.indices(t.deck) if CODES[i] not in used]
    rng = SplitMix64(f"{seed}/fill")
    for k in range(len(pool) - 1, 0, -1):  # filler in a shuffled order, like a real deal
        j = rng.below(k + 1)
        pool[k], pool[j] = pool[j], pool[k]
    for s in range(n):
        h = hands[s]
        if h is None:
            continue
        if len(h) > t.hand_size:
            raise ScriptError(
                f"{where}: seat {s} would hold {len(h)} cards; this ruleset deals {t.hand_size}"
            )
        if not fill[s] and s in sitters and len(h) < t.hand_size:
            raise ScriptError(
                f"{where}: seat {s} sits out and its line lists {len(h)} of the {t.hand_size} "
                "cards dealt to it (end the line with ... to complete it)"
            )
        if not fill[s]:
            continue
        mask = C.mask_of(h)
        for i in list(pool):
            if len(h) >= t.hand_size:
                break
            m = C.MONTH_MASKS[C.month_of(i)]
            if i >= 48 or (m and (mask & m).bit_count() == 3):
                continue
            h.append(CODES[i])
            mask |= 1 << i
            pool.remove(i)
        if len(h) < t.hand_size:
            raise ScriptError(f"{where}: not enough cards left to complete seat {s}'s hand")
    rest = [CODES[i] for i in pool]
    blocks = [c for s in sitters for c in hands[s] or ()]  # under the stock, in turn order
    for s in sitters:
        hands[s] = None  # a sitter holds no hand of the play
    stock: list[str] | None
    if hs.stock is None:
        stock = None
    elif hs.stock == "auto":
        stock = draws + rest + blocks
    else:
        stock = explicit_stock + (rest if hs.stock_fill else []) + blocks
    known = stock is not None and all(hands[s] is not None for s in playing)
    deck = list(hs.deck) if hs.deck is not None and hs.record_deck else None
    if deck is None and known and hs.record_deck:
        assert stock is not None
        deck = deck_of(t, dealer, hands, list(hs.layout), stock, list(hs.bonus_to_pile), playing)
    return _Deal(hands, list(hs.layout), stock, list(hs.bonus_to_pile), deck)


def deck_of(
    t: Table,
    dealer: int,
    hands: Sequence[Sequence[str] | None],
    layout: Sequence[str],
    stock: Sequence[str],
    bonus_to_pile: Sequence[str] = (),
    playing: Sequence[int] | None = None,
) -> list[str] | None:
    """The deck order that :func:`~gostop_records.sim.dealer.deal` turns into this deal.

    Bonus cards dealt face up are put on the first layout places, so that their replacements
    are the first layout cards, drawn from the stock top. ``playing``: the seats of the hand
    when some sit out (their hands are in the stock). None when a hand's size or the
    layout's does not fit the dealer's scheme.
    """
    n = t.players
    hand, lay = t.hand_size, t.layout_size
    dealt_to = list(range(n)) if playing is None else list(playing)
    if len(layout) != lay or any(hands[s] is None or len(hands[s]) != hand for s in dealt_to):  # type: ignore[arg-type]
        return None
    k = len(bonus_to_pile)
    dealt = [*bonus_to_pile, *layout[k:]]
    stock_before = [*layout[:k], *stock]
    seats = [s for s in ((dealer + j) % n for j in range(1, n + 1)) if s in dealt_to]
    h1, l1 = (hand + 1) // 2, (lay + 1) // 2
    out: list[str] = []
    for lo, hi, llo, lhi in ((0, h1, 0, l1), (h1, hand, l1, lay)):
        for s in seats:
            out.extend(hands[s][lo:hi])  # type: ignore[index]
        out.extend(dealt[llo:lhi])
    out.extend(stock_before)
    return out


# --- inputs ------------------------------------------------------------------------------


def parse_input(
    line: str, gs: GameState, where: str = "<input>", undo_target: int | None = None
) -> list[Any]:
    """The payloads of one input line in the current game state: the table notation
    (:func:`gostop_records.notation.parse`), its errors named with ``where``."""
    with _named(where):
        return notation.parse(line, gs, undo_target=undo_target)


# --- running a script --------------------------------------------------------------------


@dataclass(slots=True)
class _Run:
    gs: GameState
    seq: int = 0
    undo: list[tuple[int, GameState]] = field(default_factory=list)


def payloads(script: GameScript) -> Iterator[tuple[int | None, bool, Any]]:
    """(hand field, is input, payload) of every event of a scripted game, in log order."""
    rules = script.rules
    n = script.players
    table = table_for(rules, n, script.stake)
    names = script.names or tuple(f"Player {s + 1}" for s in range(n))
    if len(names) != n:
        raise ScriptError(f"{script.where}: {len(names)} names for {n} players")
    started = E.GameStarted(
        ruleset=rules.pinned(),
        players=[E.Player(id=f"p{s + 1}", name=names[s]) for s in range(n)],
        stake=script.stake,
        venue=script.venue,
        notes=script.notes,
    )
    run = _Run(start_game(script.game_id, started))
    run.seq = 1
    yield None, True, started
    yield from _lines(run, script.pre, script.where)
    for k, hs in enumerate(script.hands, 1):
        where = f"{script.where}, hand {k}"
        # who deals and who plays, by the table grammar's ``hand`` line (one reading)
        words = ["hand"]
        if hs.dealer is not None:
            words += ["dealer", str(hs.dealer)]
        if hs.out:
            words += ["out", *hs.out]
        if hs.order:
            words += ["order", *hs.order]
        here = f"{script.where}, line {hs.line}"
        (head,) = parse_input(" ".join(words), run.gs, here)
        with _named(here):  # the rules' word on who deals and plays, before the deal
            apply_game(run.gs, head)
        d = _complete(table, hs, where, f"{script.game_id}/hand{k}", head)
        started_hand = msgspec.structs.replace(head, deck=d.deck)
        yield from _apply(run, started_hand, where)
        dealt = E.CardsDealt(hands=d.hands, layout=d.layout, stock=d.stock, bonus_to_pile=d.bonus)
        yield from _apply(run, dealt, where)
        yield from _lines(run, hs.inputs, script.where)


def _lines(
    run: _Run, lines: Sequence[tuple[int, str]], where: str
) -> Iterator[tuple[int | None, bool, Any]]:
    for n, text in lines:
        here = f"{where}, line {n}: {text!r}"
        target = run.undo[-1][0] if run.undo else None
        want = _read(text, here).draw
        for payload in parse_input(text, run.gs, here, target):
            if type(payload) is E.EntryRetracted:
                _target, before = run.undo.pop()
                run.gs = before
                run.seq += 1
                yield _hand_field(run.gs), True, payload
                continue
            for item in _apply(run, payload, here):
                ev = item[2]
                if want is not None and type(ev) is E.BonusCardTaken and ev.replacement != want:
                    raise ScriptError(f"{here}: the card drawn is {ev.replacement}, not {want}")
                yield item


def _hand_field(gs: GameState) -> int | None:
    return gs.hand_no or None


def _apply(run: _Run, payload: Any, where: str) -> Iterator[tuple[int | None, bool, Any]]:
    before = run.gs
    try:
        run.gs, derived = apply_game(before, payload)
    except GostopError as exc:
        state = f"\n{before.hand}" if before.hand is not None else ""
        raise ScriptError(f"{where}: {exc}{state}") from None
    run.seq += 1
    if type(payload) is E.HandStarted:
        run.undo.clear()
    run.undo.append((run.seq, before))
    hand = _hand_field(run.gs)
    yield hand, True, payload
    for ev in derived:
        run.seq += 1
        yield hand, False, ev


def build(
    script: GameScript | str,
    *,
    start: datetime | None = None,
    rules: Ruleset | None = None,
    where: str = "<script>",
) -> list[E.Envelope]:
    """The sealed log of a script (a :class:`GameScript` or its text form).

    Each input takes ``step`` seconds (a ``game`` attribute, default 1) from ``start``; the
    consequences carry the time of the input they follow.
    """
    if isinstance(script, str):
        script = parse_script(script, where=where, rules=rules)
    t = start or EPOCH
    step = timedelta(seconds=script.step_seconds)
    chain = L.Chain()
    out = []
    stamp = L.timestamp(t)
    for seq, (hand, is_input, payload) in enumerate(payloads(script), 1):
        if is_input and seq > 1:
            t += step
            stamp = L.timestamp(t)
        env = L.envelope(
            script.game_id, seq, hand, payload, by=script.by, at=stamp, recorded_at=stamp
        )
        out.append(chain.seal(env))
    return out


def amend(envelopes: Sequence[E.Envelope], seq: int, event: Any) -> list[E.Envelope]:
    """The log with the payload at ``seq`` replaced and the chain sealed again.

    For records of a table that broke a rule: the chain verifies, only the rules object.
    """
    if not any(env.seq == seq for env in envelopes):
        raise ScriptError(f"no event with seq {seq}")
    out = [
        msgspec.structs.replace(env, event=event, prev="", hash="") if env.seq == seq else env
        for env in envelopes
    ]
    return L.seal(out)


# --- a log as a script -------------------------------------------------------------------


def script_of(envelopes: Iterable[E.Envelope]) -> str:
    """The text script of one game's log: its deals and inputs (consequences are derived).

    Building the result gives the same payloads again, so a simulated or recorded hand can
    be kept, read and edited as a script.
    """
    lines: list[str] = []
    pending_draw: int | None = None
    seats = 3
    for env in envelopes:
        ev = env.event
        t = type(ev)
        if t is E.GameStarted:
            seats = len(ev.players)
            attrs = [
                f"ruleset={ev.ruleset.get('name', '?')}",
                f"players={len(ev.players)}",
                f"stake={ev.stake}",
                f"by={shlex.quote(env.by)}",
            ]
            lines.append(f"game {shlex.quote(env.game_id)} " + " ".join(attrs))
            lines[-1] += " names=" + shlex.quote(",".join(p.name for p in ev.players))
            for key in ("venue", "notes"):
                value = getattr(ev, key)
                if value is not None:
                    lines[-1] += f" {key}={shlex.quote(value)}"
        elif t is E.HandStarted:
            deck_flag = "" if ev.deck is not None else " deck=no"
            order = f" order={','.join(map(str, ev.order))}" if len(ev.order) < seats else ""
            lines.append(f"hand dealer={ev.dealer}{order}{deck_flag}")
            if ev.deck is not None:
                lines.append("deck: " + " ".join(ev.deck))
        elif t is E.CardsDealt:
            for s, h in enumerate(ev.hands):
                lines.append(f"seat{s}: " + (" ".join(h) if h is not None else _UNKNOWN))
            lines.append("layout: " + " ".join(ev.layout))
            if ev.bonus_to_pile:
                lines.append("bonus: " + " ".join(ev.bonus_to_pile))
            lines.append("stock: " + (" ".join(ev.stock) if ev.stock is not None else _UNKNOWN))
        elif t is E.BonusCardTaken and ev.source == "hand" and ev.replacement is not None:
            if pending_draw is not None:
                lines[pending_draw] += f" draw {ev.replacement}"
                pending_draw = None
        elif E.is_input(ev):
            text = _input_text(ev)
            if text is not None:
                lines.append(text)
                if t is E.CardPlayed and ev.card.startswith("B"):
                    pending_draw = len(lines) - 1
    return "\n".join(lines) + "\n"


def _input_text(ev: Any) -> str | None:
    if type(ev) in (E.GameStarted, E.HandStarted, E.CardsDealt):
        return None  # a script states these in its own lines
    try:
        return notation.text(ev, seat=True)
    except notation.NotationError:
        return None


def load(path: str | Path, rules: Ruleset | None = None) -> list[E.Envelope]:
    """Build the log of a script file."""
    p = Path(path)
    return build(p.read_text(encoding="utf-8"), where=str(p), rules=rules)
