"""A deal as a script gives it, completed: the cards left out (``...``) filled from what is
not seen elsewhere, the stock and the deck derived; and one input line read in a state."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from .. import cards as C
from .. import events as E
from .. import notation
from ..engine.game import GameState
from ..engine.table import Table
from ..errors import GostopError
from ..sim.dealer import SplitMix64, deal
from .model import CODES, Deal, HandScript, ScriptError
from .reading import canon


@contextlib.contextmanager
def named_at(where: str) -> Iterator[None]:
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


def read_line(line: str, where: str) -> notation.Line:
    with named_at(where):
        return notation.read(line)


def _draws(inputs: Sequence[tuple[int, str]], where: str) -> list[str]:
    """The stock cards a hand's script turns or draws, in order."""
    out = []
    for n, text in inputs:
        here = f"{where}, line {n}"
        ln = read_line(text, here)
        if ln.verb == "flip" and ln.args:
            out.append(canon(ln.args[0], here))
        if ln.draw is not None:
            out.append(ln.draw)
    return out


def _own_cards(inputs: Sequence[tuple[int, str]], seat: int, where: str) -> list[str]:
    """Cards a seat plays, shakes, bombs or sells from its hand in a script, in order (a
    script names the seat of each input by number, so that the deal can be completed)."""
    out = []
    for n, text in inputs:
        here = f"{where}, line {n}"
        ln = read_line(text, here)
        if ln.verb == "sell" and ln.seat is None and ln.args and ln.args[0].isdecimal():
            ln = notation.Line("sell", ln.args[0], ln.args[1:], ln.rest)  # sell SEAT CARD...
        if ln.seat is None or not ln.seat.isdecimal() or int(ln.seat) != seat or not ln.args:
            continue
        if ln.verb == "sell":
            out.extend(canon(x, here) for x in ln.args)
        if ln.verb == "play":
            out.append(canon(ln.args[0], here))
        elif ln.verb in ("shake", "bomb"):
            out.extend(canon(x, here) for x in ln.args if not x.isdecimal())
    return out


# Long: a deal completed in the order its parts constrain each other (hands, stock, deck).
def complete_deal(
    t: Table, hs: HandScript, where: str, seed: str = "", started: E.HandStarted | None = None
) -> Deal:
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
        return Deal(
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
    return Deal(hands, list(hs.layout), stock, list(hs.bonus_to_pile), deck)


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
    with named_at(where):
        return notation.parse(line, gs, undo_target=undo_target)
