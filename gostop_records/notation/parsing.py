"""A line read in a game state: the input payloads it stands for.

Each verb has one reader: in :data:`_TABLE_VERBS` for the lines of the table (a deal, a
payment, a note), in :data:`_TURN_VERBS` for the steps of a seat's turn, which need a hand in
progress and a seat to act."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from .. import cards as C
from .. import events as E
from ..engine.actions import legal_actions
from ..engine.game import GameState
from ..engine.state import HandState, Phase
from ..errors import IllegalAction
from .facts import actor, bomb_cards, hand_started, needs_hand_start, shake_cards
from .line import (
    DEAL_WORDS,
    MONTH_MASKS,
    PAY_LINE,
    UNKNOWN_WORDS,
    Line,
    NotationError,
    card_code,
    chips_of,
    first_word,
    looks_like_card,
    month,
    read,
    seat_of,
)
from .writing import text


def parse(
    line: str | Line,
    game: GameState,
    *,
    seat: int | None = None,
    undo_target: int | None = None,
) -> list[Any]:
    """The input payloads a line stands for in ``game``, in order: one, except ``deal`` at
    the start of a hand (``hand_started`` and ``cards_dealt``) and ``pay`` (one
    ``payment_recorded`` per payment due).

    ``seat`` is the seat a line without one speaks for (default: the seat that acts).
    ``undo_target`` is the seq an ``undo`` without ``@SEQ`` retracts (the latest input entry
    still in force, which the recorder or the script knows). Raises :class:`NotationError`
    for a line outside the grammar, :class:`~gostop_records.errors.CardCodeError` for an
    unknown card and :class:`~gostop_records.errors.IllegalAction` when the state has nobody
    to act; the rules themselves are checked when the payloads are applied.
    """
    ln = line if isinstance(line, Line) else read(line, game.players)
    who = seat_of(ln.seat, game.players) if ln.seat is not None else seat
    verb = ln.verb
    table_line = _TABLE_VERBS.get(verb)
    if table_line is not None:
        return table_line(game, ln, who, undo_target)
    h = game.hand
    if verb == "card":
        if h is None or h.phase not in (Phase.PLAY, Phase.FLIP, Phase.FLIP_AS_PLAY):
            raise NotationError(
                f"a card is played or flipped; the table waits for {_waits_for(game)}"
            )
        verb = "play" if h.phase is Phase.PLAY else "flip"
    s = who if who is not None else actor(h)
    if s is None or h is None:
        raise IllegalAction("turn_order", f"no {_WHO.get(verb, verb)} is expected now")
    return [_TURN_VERBS[verb](game, h, s, ln)]


TableReader = Callable[[GameState, Line, int | None, int | None], list[Any]]
TurnReader = Callable[[GameState, HandState, int, Line], Any]


def _sell(game: GameState, ln: Line, who: int | None, _undo: int | None) -> list[Any]:
    cards = list(ln.args)
    if who is None and cards and not looks_like_card(cards[0]):
        who = seat_of(cards.pop(0), game.players)
    if who is None:
        raise NotationError("sell names the seat that sells: sell Dan 01G 08G")
    return [E.BrightsSold(seat=who, cards=[card_code(t) for t in cards])]


#: The lines of the table rather than of a seat's turn: each verb's reader (the game, the
#: line, the seat it names or speaks for, the seq an ``undo`` retracts).
_TABLE_VERBS: dict[str, TableReader] = {
    "note": lambda game, ln, who, undo: [_note(ln.rest)],
    "undo": lambda game, ln, who, undo: [_undo(ln.rest, undo)],
    "pay": lambda game, ln, who, undo: _pay(game, ln.rest),
    "settle": lambda game, ln, who, undo: _settle(game, ln.rest),
    "hand": lambda game, ln, who, undo: [_hand(game, ln.args)],
    "deal": lambda game, ln, who, undo: _deal(game, ln.args),
    "four": lambda game, ln, who, undo: [_fours(game, ln.args)],
    "keep": lambda game, ln, who, undo: [_keep(game, ln.args, who)],
    "noshake": lambda game, ln, who, undo: [_no_shake(game, ln.args, who)],
    "chips": lambda game, ln, who, undo: [E.ChipsCounted(chips=[chips_of(t) for t in ln.args])],
    "draw": lambda game, ln, who, undo: [_draw(game, ln.args)],
    "sell": _sell,
}


def _cup(game: GameState, h: HandState, s: int, ln: Line) -> E.CupAssigned:
    if len(ln.args) != 1:
        raise NotationError("cup animal or cup junk")
    role = {"a": "animal", "j": "junk", "animal": "animal", "junk": "junk"}.get(ln.args[0].lower())
    if role is None:
        raise NotationError(f"the cup counts as animal or junk, not {ln.args[0]!r}")
    return E.CupAssigned(seat=s, role=role)  # type: ignore[arg-type]


def _go_or_stop(game: GameState, h: HandState, s: int, ln: Line) -> E.GoCalled | E.StopCalled:
    if h.phase is not Phase.DECIDE:
        raise IllegalAction(
            "go_stop", f"nobody may say Go or Stop now (the table waits for {_waits_for(game)})"
        )
    if ln.verb == "go":
        return E.GoCalled(seat=s, count=h.go_count[s] + 1, score=h.score_of(s))
    return E.StopCalled(seat=s, score=h.score_of(s))


#: The steps of a seat's turn in the hand in progress: each verb's reader (the game, the
#: hand, the seat that acts, the line).
_TURN_VERBS: dict[str, TurnReader] = {
    "play": lambda game, h, s, ln: _card_step("play", s, h, ln),
    "flip": lambda game, h, s, ln: _card_step("flip", s, h, ln),
    "flip_only": lambda game, h, s, ln: E.FlipOnlyPlayed(seat=s),
    "bomb": lambda game, h, s, ln: _shown("bomb", s, h, ln.args),
    "shake": lambda game, h, s, ln: _shown("shake", s, h, ln.args),
    "cup": _cup,
    "go": _go_or_stop,
    "stop": _go_or_stop,
}


#: What a verb waits for, in the sentence "no ... is expected now".
_WHO = {
    "play": "play",
    "flip": "flip",
    "flip_only": "flip-only turn",
    "bomb": "bomb",
    "shake": "shake",
    "cup": "cup decision",
    "go": "Go or Stop",
    "stop": "Go or Stop",
}


def _waits_for(game: GameState) -> str:
    """What the table waits for, in the words of a prompt."""
    return game.waiting().kind


def _card_step(verb: str, seat: int, h: HandState, ln: Line) -> Any:
    args = list(ln.args)
    take = ln.take
    if len(args) == 2 and take is None:
        take = card_code(args.pop())
    if len(args) > 1:
        raise NotationError(
            f"{verb} takes a card and, when two match, the layout card it takes: {verb} 03R [03J1]"
        )
    if not args:
        top = h.stock_top() if verb == "flip" else None
        if top is None:
            what = "the card played" if verb == "play" else "the card turned (unknown stock)"
            raise NotationError(
                f"{verb} takes a card and, when two match, the layout card it takes: "
                f"{verb} 03R [03J1] (name {what})"
            )
        card = C.ALL_CARDS[top].code
    else:
        card = card_code(args[0])
    if verb == "play":
        return E.CardPlayed(seat=seat, card=card, chosen=take)
    return E.CardFlipped(seat=seat, card=card, chosen=take)


def _shown(verb: str, seat: int, h: HandState, args: Sequence[str]) -> Any:
    cls = E.Shaken if verb == "shake" else E.BombPlayed
    if not args:
        raise NotationError(
            f"{verb} takes a month: {verb} 05 (or the cards: {verb} 05 05A 05R 05J1)"
        )
    if args[0].isdecimal():
        m = month(args[0])
        cards = sorted((card_code(t) for t in args[1:]), key=C.index)
    else:
        cards = sorted((card_code(t) for t in args), key=C.index)
        m = C.month_of(C.index(cards[0]))
    if not cards:
        if verb == "bomb":
            cards = bomb_cards(h, seat, m)
        else:
            known = shake_cards(h, seat, m)
            if known is None:
                raise IllegalAction(
                    "shaking",
                    f"name the three cards of month {m:02d} shown "
                    f"(e.g. shake {m:02d} {' '.join(C.codes(MONTH_MASKS[m])[:3])})",
                )
            cards = known
    return cls(seat=seat, month=m, cards=cards)


def _no_shake(game: GameState, args: Sequence[str], who: int | None) -> E.ShakeDeclined:
    """``noshake [MM]``: asked once the card is chosen, the player declines to shake."""
    h = game.hand
    if len(args) > 1:
        raise NotationError("noshake takes the month asked about: noshake 05")
    due = h.turn.shake_due if h is not None and h.turn is not None else 0
    m = month(args[0]) if args else due
    if not m:
        raise NotationError("noshake takes the month asked about: noshake 05 (none is asked now)")
    seat = who if who is not None else h.turn_seat if h is not None else 0
    return E.ShakeDeclined(seat=seat, month=m)


def _keep(game: GameState, args: Sequence[str], who: int | None) -> E.FourKept:
    """``keep [SEAT]``: the holder keeps a four of a month in hand and plays on."""
    if len(args) > 1:
        raise NotationError("keep takes the seat that keeps its four: keep Ann")
    if args:
        return E.FourKept(seat=seat_of(args[0], game.players))
    h = game.hand
    acts = [a for a in legal_actions(h) if type(a) is E.FourKept] if h else []
    if who is not None and E.FourKept(seat=who) in acts:
        return E.FourKept(seat=who)
    if len(acts) == 1:
        return acts[0]  # type: ignore[no-any-return]
    if who is not None:
        return E.FourKept(seat=who)  # the rules say why not
    raise NotationError("keep takes the seat that keeps its four: keep Ann")


def _fours(game: GameState, args: Sequence[str]) -> E.FourOfAMonthShown:
    if not args:
        h = game.hand
        acts = [a for a in legal_actions(h) if type(a) is E.FourOfAMonthShown] if h else []
        if not acts:
            raise NotationError(
                "four takes a seat and a month for each four: four Ann 05 "
                "(alone, it shows the fours of the hands the record knows: none now)"
            )
        return acts[0]  # type: ignore[no-any-return]
    if len(args) % 2:
        h = game.hand
        acts = [a for a in legal_actions(h) if type(a) is E.FourOfAMonthShown] if h else []
        form = text(acts[0]) if acts else "four Ann 05"
        raise NotationError(f"four takes a seat and a month for each four: {form}")
    shown = []
    for k in range(0, len(args), 2):
        s, m = seat_of(args[k], game.players), month(args[k + 1])
        shown.append(E.FourShown(seat=s, month=m, cards=C.codes(MONTH_MASKS[m])))
    return E.FourOfAMonthShown(shown=shown)


def _pay(game: GameState, rest: str) -> list[Any]:
    if not rest or rest.strip().lower() == "due":
        dues = game.pending_dues()
        if not dues:
            raise IllegalAction("payment", "no payment is due")
        return [E.PaymentRecorded(payer=d[1], payee=d[2], chips=d[4]) for d in dues]
    m = PAY_LINE.match(rest)
    if m is None:
        raise NotationError(
            "pay PAYER->PAYEE CHIPS [NOTE], e.g. pay Ben->Ann 24 (or `pay` for the amounts due)"
        )
    payer, payee = seat_of(m.group(1), game.players), seat_of(m.group(2), game.players)
    note = (m.group(4) or "").strip() or None
    return [E.PaymentRecorded(payer=payer, payee=payee, chips=chips_of(m.group(3)), note=note)]


def _settle(game: GameState, rest: str) -> list[Any]:
    """``settle``: close the night; ``settle pay ...``: a transfer of the settlement paid."""
    word, more = first_word(rest)
    if not word:
        return [E.GameClosed()]
    if word.lower() == "note" and more.strip():
        return [E.GameClosed(note=more.strip())]
    if word.lower() != "pay":
        raise NotationError(
            "settle (close the night), settle note TEXT, or settle pay PAYER->PAYEE CHIPS "
            "[NOTE], e.g. settle pay Ben->Ann 340 (or `settle pay` for the open transfers)"
        )
    if not more.strip():
        open_ = game.open_transfers()
        if not open_:
            raise IllegalAction(
                "settlement_order",
                "no transfer of the settlement is open"
                + ("" if game.closed else ": close the night first (settle)"),
            )
        return [E.SettlementPaid(payer=p, payee=q, chips=c) for p, q, c in open_]
    m = PAY_LINE.match(more)
    if m is None:
        raise NotationError("settle pay PAYER->PAYEE CHIPS [NOTE], e.g. settle pay Ben->Ann 340")
    payer, payee = seat_of(m.group(1), game.players), seat_of(m.group(2), game.players)
    note = (m.group(4) or "").strip() or None
    return [E.SettlementPaid(payer=payer, payee=payee, chips=chips_of(m.group(3)), note=note)]


def _note(rest: str) -> E.NoteAdded:
    about = None
    m = re.match(r"^@(\d+)\s*(.*)$", rest, re.S)
    if m:
        about, rest = int(m.group(1)), m.group(2)
    text = rest.strip()
    if not text:
        raise IllegalAction("note", "a note needs some text")
    return E.NoteAdded(text=text, about_seq=about or None)


def _undo(rest: str, target: int | None) -> E.EntryRetracted:
    m = re.match(r"^@(\d+)\s*(.*)$", rest, re.S)
    if m:
        target, rest = int(m.group(1)), m.group(2)
    if not target:
        raise IllegalAction(
            "retract_latest",
            "there is no entry to undo (undo goes back to the start of the hand in progress)",
        )
    return E.EntryRetracted(seq=target, reason=rest.strip() or None)


def _draw(game: GameState, args: Sequence[str]) -> E.DealerDrawn:
    """``draw night|day SEAT CARD... [lot SEAT]``: the dealer is the one the rules make of
    the draw; ``lot SEAT`` names the seat the lot chose after the ruleset's last tie."""
    from ..engine.rulebook.seats import FIRST_DEALER_DRAW, dealer_by_draw

    form = "draw night|day SEAT CARD [SEAT CARD]... [lot SEAT], e.g. draw night Ann 03G Ben 11J1"
    lot: int | None = None
    if len(args) >= 2 and args[-2].lower() == "lot":
        lot = seat_of(args[-1], game.players)
        args = args[:-2]
    if not args or args[0].lower() not in ("night", "day") or len(args) % 2 == 0:
        raise NotationError(form)
    night = args[0].lower() == "night"
    draws = [
        E.DealerDraw(seat=seat_of(args[k], game.players), card=card_code(args[k + 1]))
        for k in range(1, len(args), 2)
    ]
    rules = game.rules
    try:
        dealer, tied = dealer_by_draw(
            [(d.seat, d.card) for d in draws], night, rules.draw_bonus_wins
        )
    except ValueError as exc:
        raise IllegalAction("dealer_draw", str(exc)) from None
    if FIRST_DEALER_DRAW.by_lot(rules, game.draw_ties, dealer):
        if lot is None:
            raise NotationError(
                f"a tie after {(rules.draw_ties_by_lot or 1) - 1} tied draw(s): the lot "
                f"chooses among seats {tied}; add lot SEAT"
            )
        return E.DealerDrawn(draws=draws, night=night, dealer=lot, by_lot=True)
    if lot is not None:
        raise NotationError("lot SEAT names the lot's choice after the ruleset's last tie only")
    return E.DealerDrawn(draws=draws, night=night, dealer=dealer)


def _seats_after(game: GameState, args: Sequence[str], k: int) -> tuple[list[int], int]:
    """The seats listed from ``args[k]`` up to the next keyword."""
    seats = []
    while k < len(args) and args[k].lower() not in ("dealer", "deck", "out", "order"):
        seats.append(seat_of(args[k], game.players))
        k += 1
    return seats, k


def _hand(game: GameState, args: Sequence[str]) -> E.HandStarted:
    dealer: int | None = None
    deck: list[str] | None = None
    out: list[int] | None = None
    order: list[int] | None = None
    k = 0
    while k < len(args):
        word = args[k].lower()
        if word == "dealer" and k + 1 < len(args):
            dealer = seat_of(args[k + 1], game.players)
            k += 2
        elif word == "out":
            out, k = _seats_after(game, args, k + 1)
        elif word == "order":
            order, k = _seats_after(game, args, k + 1)
        elif word == "deck":
            deck = [card_code(t) for t in args[k + 1 :]]
            break
        else:
            raise NotationError(
                f"{args[k]!r}: hand [dealer SEAT] [out SEAT...] [order SEAT...] [deck CARD...]"
            )
    started = hand_started(game, dealer, out, order)
    return E.HandStarted(hand=started.hand, dealer=started.dealer, order=started.order, deck=deck)


def _deal(game: GameState, tokens: Sequence[str]) -> list[Any]:
    n = game.table.players
    parts: dict[str, Any] = {
        "layout": None,
        "stock": None,
        "bonus": [],
        "dealer": None,
        "out": None,
    }
    hands: list[list[str] | None] = [None] * n
    section: str | None = None
    seat: int | None = None
    i = 0
    while i < len(tokens):
        tok = tokens[i].lower()
        if tok in DEAL_WORDS:
            section = tok
            if tok in ("hand", "dealer"):
                if i + 1 >= len(tokens):
                    raise NotationError(f"`{tok}` needs a seat")
                seat = seat_of(tokens[i + 1], game.players)
                i += 1
                if tok == "dealer":
                    parts["dealer"] = seat
                    section = None
                else:
                    hands[seat] = []
            elif tok == "layout":
                parts["layout"] = []
            elif tok == "stock":
                parts["stock"] = []
            elif tok == "out":
                parts["out"] = []
            i += 1
            continue
        if section == "out":
            parts["out"].append(seat_of(tokens[i], game.players))
            i += 1
            continue
        if section is None:
            raise NotationError(f"{tokens[i]!r}: start with `layout` (deal layout 01G 03R ...)")
        if tok in UNKNOWN_WORDS:
            if section == "hand" and seat is not None:
                hands[seat] = None
            elif section == "stock":
                parts["stock"] = None
            i += 1
            continue
        code = card_code(tokens[i])
        if section == "hand":
            assert seat is not None
            held = hands[seat]
            if held is None:
                raise NotationError(f"seat {seat}'s hand is marked unknown and lists {code}")
            held.append(code)
        elif section == "bonus":
            parts["bonus"].append(code)
        elif parts[section] is None:
            raise NotationError(f"the {section} is marked unknown and lists {code}")
        else:
            parts[section].append(code)
        i += 1
    if not parts["layout"]:
        raise NotationError("the deal needs the face-up layout: deal layout 01G 03R ...")
    dealt = E.CardsDealt(
        hands=hands, layout=parts["layout"], stock=parts["stock"], bonus_to_pile=parts["bonus"]
    )
    dealer = parts["dealer"]
    if needs_hand_start(game):
        return [hand_started(game, dealer, parts["out"]), dealt]
    h = game.hand
    if dealer is not None and h is not None and dealer != h.dealer:
        raise IllegalAction(
            "dealer", f"hand {game.hand_no} was started with seat {h.dealer} dealing"
        )
    return [dealt]
