"""One notation for a table input, both ways: a line of text to input payloads, and back.

``gostop record`` reads it at its prompt and from scripts, the scripted games of
:mod:`gostop_records.script` are written in it, ``gostop play`` reads its answers with
it and the HTTP service takes entries as lines of it. :func:`parse` gives the payloads a line
stands for in a game state; :func:`text` writes a payload as a line that parses back to it.
A grammar error is a :class:`NotationError` with the reason; a line that parses can still be
refused by the rules, which is the engine's business, not this module's.

The grammar (one input per line; case does not matter; commas and colons count as spaces)::

    [SEAT] play CARD [TAKE]    a hand card; TAKE (or ``choose TAKE``) is the layout card it
                               takes when two of its month lie there
    [SEAT] flip [CARD] [TAKE]  the card turned from the stock (left out: the known top)
    CARD [TAKE]                play or flip, whichever the table waits for
    [SEAT] bomb MONTH [CARDS]  three (or two) cards of a month onto the rest of it
    [SEAT] shake MONTH [CARDS] three cards of a month shown (named when the hand is unknown)
    [SEAT] flip-only           a turn without a hand card, after a bomb (alias ``fo``)
    four [SEAT MONTH]...       fours of a month shown at the deal (alone: every four held)
    [SEAT] cup animal|junk     the September cup counts as animal or as junk
    [SEAT] go | [SEAT] stop    the decision of the player who may stop
    pay [due]                  every payment due, at the computed amounts
    pay PAYER->PAYEE CHIPS [NOTE]
                               what the table paid: ``pay Ben->Ann 24``
    settle                     close the night (정산): no hand follows; the rules propose
                               each seat's total and the transfers that square them
    settle pay [PAYER->PAYEE CHIPS [NOTE]]
                               a transfer of the settlement as paid (alone: every open
                               transfer at the proposed amounts); a different one needs a NOTE
    note [@SEQ] TEXT           free text, optionally about an earlier seq
    undo [@SEQ] [REASON]       retract the latest input entry (alias ``retract``)
    hand [dealer SEAT] [out SEAT...] [order SEAT...] [deck CARD...]
                               start the next hand (``deal`` does it when needed); at 4 or 5
                               seats ``out`` names the seats sitting out (by choice) or
                               ``order`` the three that play
    deal layout CARD... [hand SEAT CARD...]... [stock CARD...] [bonus CARD...] [dealer SEAT]
         [out SEAT...]         the deal; a hand or the stock left out (or ``?``) is unknown
    [SEAT] sell [SEAT] CARD... gwang-pali: a seat sitting out sells the brights in its hand
    chips N...                 the chips of every seat at the start of the sitting
    draw night|day SEAT CARD...
                               the draw for the first deal (밤일낮장), a card per seat

A SEAT is a seat number or a player's id or name (or a unique start of a name); left out, it
is the seat that acts. MONTH is 1..12. A card is a code in any case (``03r``, ``9a``,
``11d``). ``draw CARD`` after a bonus card played from the hand names the card drawn for it
(the rules derive it; a script checks it). Lines are written by :func:`text` with the seat
left out unless asked for, cards in canonical codes and seats by number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import cards as C
from .. import events as E
from ..engine.actions import legal_actions
from ..engine.game import GameState
from ..engine.night import open_transfers
from ..engine.state import HandState, Phase
from ..errors import GostopError, IllegalAction

__all__ = [
    "VERBS",
    "Line",
    "NotationError",
    "UnknownCommand",
    "actor",
    "bomb_cards",
    "card_code",
    "complete",
    "hand_started",
    "lines_now",
    "month",
    "parse",
    "read",
    "seat_of",
    "shake_cards",
    "text",
]

_MM = C.MONTH_MASKS

#: Every spelling of each verb, to its canonical name.
VERBS: dict[str, str] = {
    "play": "play",
    "p": "play",
    "flip": "flip",
    "f": "flip",
    "flip-only": "flip_only",
    "fliponly": "flip_only",
    "flip_only": "flip_only",
    "fo": "flip_only",
    "bomb": "bomb",
    "shake": "shake",
    "four": "four",
    "fours": "four",
    "keep": "keep",
    "noshake": "noshake",
    "no-shake": "noshake",
    "cup": "cup",
    "go": "go",
    "stop": "stop",
    "pay": "pay",
    "settle": "settle",
    "note": "note",
    "undo": "undo",
    "retract": "undo",
    "hand": "hand",
    "deal": "deal",
    "sell": "sell",
    "gwang": "sell",
    "chips": "chips",
    "draw": "draw",
}
_DEAL_WORDS = ("layout", "hand", "stock", "bonus", "dealer", "out")
_UNKNOWN = ("?", "unknown", "-")
_CARD = re.compile(r"(0?[1-9]|1[0-2])(g|a|r|j1|j2|j3|d)|b[23][a-c]?")
_CARDISH = re.compile(r"\d|b\d")  # a word that starts like a card code
_CUP_ROLES = ("animal", "junk")
#: How a card code is written, for the refusals of a word that is none.
CARD_FORM = "a card is a month 01..12 and a kind (G, A, R, J1, J2, D), e.g. 03R, 8a, 11d"
_PAY = re.compile(r"^\s*(\S+?)\s*(?:->|>|\s)\s*(\S+)\s+(\S+)(?:\s+(.*))?$", re.S)


class NotationError(GostopError, ValueError):
    """A line that is not a table input of the grammar; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class UnknownCommand(NotationError):
    """A line whose first word is no verb of the grammar (nor a card)."""

    def __init__(self, word: str) -> None:
        self.word = word
        super().__init__(f"unknown command {word!r}")


@dataclass(frozen=True, slots=True)
class Line:
    """A line read by the grammar, before a game state gives it meaning.

    ``verb`` is canonical (``play``, ``flip_only`` ...; ``card`` for the ``CARD [TAKE]``
    shorthand), ``seat`` the seat token as written (None: the seat that acts), ``args`` the
    tokens after the verb (commas and colons split), ``rest`` the text after the verb as
    written (a note's text), ``take`` and ``draw`` the cards named by those keywords.
    """

    verb: str
    seat: str | None
    args: tuple[str, ...]
    rest: str
    take: str | None = None
    draw: str | None = None


def card_code(token: str) -> str:
    """The canonical code of a card typed in any case (``03r`` -> ``03R``)."""
    return C.ALL_CARDS[C.parse(token)].code


def _looks_like_card(word: str) -> bool:
    return bool(_CARD.fullmatch(word.lower()))


def month(token: str) -> int:
    """A month 1..12 from its number (``5``, ``05``)."""
    try:
        m = int(token)
    except ValueError:
        raise NotationError(f"a month is 01..12, not {token!r}") from None
    if not 1 <= m <= 12:
        raise NotationError(f"a month is 01..12, not {token!r}")
    return m


def _chips(token: str) -> int:
    try:
        n = int(token)
    except ValueError:
        raise NotationError(f"{token!r} is not a number of chips") from None
    if n < 0:
        raise NotationError(f"{token!r}: a number of chips is 0 or more")
    return n


def _split(text: str) -> list[str]:
    return text.replace(",", " ").replace(":", " ").split()


_FIRST = re.compile(r"([^\s,:]*)[\s,:]*(.*)", re.S)


def _first(text: str) -> tuple[str, str]:
    """The first word of a text (up to a space, a comma or a colon) and the rest."""
    m = _FIRST.match(text.strip())
    assert m is not None  # the pattern matches any text
    return m.group(1), m.group(2)


def read(line: str, players: Sequence[E.Player] = ()) -> Line:
    """The grammar's reading of a line, without a game state (see :class:`Line`).

    A leading seat is a seat number, or a player's id or name followed by a verb.
    """
    stripped = line.strip()
    if not stripped:
        raise NotationError("empty input")
    head, after = _first(stripped)
    seat: str | None = None
    names = {p.id.lower() for p in players} | {p.name.lower() for p in players}
    if head.isdecimal() or (head.lower() in names and head.lower() not in VERBS):
        nxt, more = _first(after)
        if head.isdecimal() or nxt.lower() in VERBS or _looks_like_card(nxt):
            seat, head, after = head, nxt, more
            if not head:
                raise NotationError(f"seat {seat}: what does it do? e.g. '{seat} play 03R'")
    key = head.lower()
    rest = after.strip()
    if key == "note":
        return Line("note", seat, tuple(rest.split()), rest)
    verb = VERBS.get(key)
    tokens = _split(after)
    if verb is None:
        if key in C.CODE_TO_INDEX or _looks_like_card(key):
            return _with_keywords(Line("card", seat, (head, *tokens), stripped))
        if key in _CUP_ROLES:  # the bare answer the cup prompt offers
            return Line("cup", seat, (head, *tokens), rest)
        if _CARDISH.match(key):
            raise NotationError(f"{head!r} is not a card code: {CARD_FORM}")
        raise UnknownCommand(head)
    if verb in ("play", "flip"):
        return _with_keywords(Line(verb, seat, tuple(tokens), rest))
    return Line(verb, seat, tuple(tokens), rest)


def _with_keywords(ln: Line) -> Line:
    """``choose``/``take`` and ``draw`` taken out of a card step's tokens."""
    args: list[str] = []
    take = draw = None
    toks = list(ln.args)
    k = 0
    while k < len(toks):
        low = toks[k].lower()
        if low in ("choose", "take", "draw") and k + 1 < len(toks):
            if low == "draw":
                draw = card_code(toks[k + 1])
            else:
                take = card_code(toks[k + 1])
            k += 2
            continue
        args.append(toks[k])
        k += 1
    return Line(ln.verb, ln.seat, tuple(args), ln.rest, take, draw)


def seat_of(token: str, players: Sequence[E.Player]) -> int:
    """A seat from its number, a player's id or name, or a unique start of a name."""
    t = token.strip().lower()
    if t.isdecimal():  # not isdigit: "¹" is a digit, but no number int() reads
        s = int(t)
        if s < len(players):
            return s
        raise NotationError(f"there is no seat {s} (seats 0..{len(players) - 1})")
    exact = [i for i, p in enumerate(players) if t in (p.id.lower(), p.name.lower())]
    if len(exact) == 1:
        return exact[0]
    pre = [i for i, p in enumerate(players) if p.name.lower().startswith(t)]
    if len(pre) == 1:
        return pre[0]
    names = ", ".join(f"{i} {p.name}" for i, p in enumerate(players))
    raise NotationError(f"{token!r} is not a seat: give a seat number or a name ({names})")


# --- facts a line leaves out, from the state -----------------------------------------------


def hand_started(
    game: GameState,
    dealer: int | None = None,
    out: Sequence[int] | None = None,
    order: Sequence[int] | None = None,
) -> E.HandStarted:
    """``hand_started`` of the next hand: the rules' dealer (the winner deals), ``dealer``
    for the first hand (default seat 0). At 4 or 5 seats three play: the dealer and the next
    two, or those not ``out``, or ``order``."""
    n = game.table.players
    d = game.next_dealer if game.next_dealer is not None and dealer is None else dealer
    d = 0 if d is None else d
    around = [(d + k) % n for k in range(n)]
    if order:
        seats = list(order)
    elif out:
        seats = [s for s in around if s not in out]
    else:
        seats = around[:3]
    return E.HandStarted(hand=game.hand_no + 1, dealer=d, order=seats)


def _needs_hand_start(game: GameState) -> bool:
    return game.hand is None or game.hand.phase is Phase.ENDED


def actor(h: HandState | None) -> int | None:
    """The seat that acts next in the hand: plays, flips, decides the cup or Go/Stop."""
    if h is None:
        return None
    if h.phase in (Phase.PLAY, Phase.FLIP, Phase.FLIP_AS_PLAY):
        return h.turn_seat
    if h.phase in (Phase.CUP, Phase.DECIDE):
        return h.decider
    return None


def shake_cards(h: HandState, seat: int, m: int) -> list[str] | None:
    """The three cards ``seat`` can shake in month ``m``, when the record knows them."""
    mine = h.hands[seat] & _MM[m]
    if mine.bit_count() == 3:
        return C.codes(mine)
    if h.hand_unknown[seat]:
        pool = mine | (h.unknown_pool() & _MM[m])
        if pool.bit_count() == 3:
            return C.codes(pool)
    return None


def bomb_cards(h: HandState, seat: int, m: int) -> list[str]:
    """The cards of month ``m`` a bomb of ``seat`` plays: those held when the hand is known,
    else those not face up."""
    if not h.hand_unknown[seat] and h.hands[seat] & _MM[m]:
        return C.codes(h.hands[seat] & _MM[m])
    return C.codes(_MM[m] & ~h.layout)


# --- parsing -------------------------------------------------------------------------------


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
    args = ln.args
    h = game.hand
    if verb == "note":
        return [_note(ln.rest)]
    if verb == "undo":
        return [_undo(ln.rest, undo_target)]
    if verb == "pay":
        return _pay(game, ln.rest)
    if verb == "settle":
        return _settle(game, ln.rest)
    if verb == "hand":
        return [_hand(game, args)]
    if verb == "deal":
        return _deal(game, args)
    if verb == "four":
        return [_fours(game, args)]
    if verb == "keep":
        return [_keep(game, args, who)]
    if verb == "noshake":
        return [_no_shake(game, args, who)]
    if verb == "chips":
        return [E.ChipsCounted(chips=[_chips(t) for t in args])]
    if verb == "draw":
        return [_draw(game, args)]
    if verb == "sell":
        cards = list(args)
        if who is None and cards and not _looks_like_card(cards[0]):
            who = seat_of(cards.pop(0), game.players)
        if who is None:
            raise NotationError("sell names the seat that sells: sell Dan 01G 08G")
        return [E.BrightsSold(seat=who, cards=[card_code(t) for t in cards])]
    if verb == "card":
        if h is None or h.phase not in (Phase.PLAY, Phase.FLIP, Phase.FLIP_AS_PLAY):
            raise NotationError(
                f"a card is played or flipped; the table waits for {_waits_for(game)}"
            )
        verb = "play" if h.phase is Phase.PLAY else "flip"
    s = who if who is not None else actor(h)
    if s is None or h is None:
        raise IllegalAction("turn_order", f"no {_WHO.get(verb, verb)} is expected now")
    if verb in ("play", "flip"):
        return [_card_step(verb, s, h, ln)]
    if verb == "flip_only":
        return [E.FlipOnlyPlayed(seat=s)]
    if verb in ("bomb", "shake"):
        return [_shown(verb, s, h, args)]
    if verb == "cup":
        if len(args) != 1:
            raise NotationError("cup animal or cup junk")
        role = {"a": "animal", "j": "junk", "animal": "animal", "junk": "junk"}.get(args[0].lower())
        if role is None:
            raise NotationError(f"the cup counts as animal or junk, not {args[0]!r}")
        return [E.CupAssigned(seat=s, role=role)]  # type: ignore[arg-type]
    if h.phase is not Phase.DECIDE:
        raise IllegalAction(
            "go_stop", f"nobody may say Go or Stop now (the table waits for {_waits_for(game)})"
        )
    if verb == "go":
        return [E.GoCalled(seat=s, count=h.go_count[s] + 1, score=h.score_of(s))]
    return [E.StopCalled(seat=s, score=h.score_of(s))]


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
                    f"(e.g. shake {m:02d} {' '.join(C.codes(_MM[m])[:3])})",
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
        shown.append(E.FourShown(seat=s, month=m, cards=C.codes(_MM[m])))
    return E.FourOfAMonthShown(shown=shown)


def _pay(game: GameState, rest: str) -> list[Any]:
    if not rest or rest.strip().lower() == "due":
        dues = game.pending_dues()
        if not dues:
            raise IllegalAction("payment", "no payment is due")
        return [E.PaymentRecorded(payer=d[1], payee=d[2], chips=d[4]) for d in dues]
    m = _PAY.match(rest)
    if m is None:
        raise NotationError(
            "pay PAYER->PAYEE CHIPS [NOTE], e.g. pay Ben->Ann 24 (or `pay` for the amounts due)"
        )
    payer, payee = seat_of(m.group(1), game.players), seat_of(m.group(2), game.players)
    note = (m.group(4) or "").strip() or None
    return [E.PaymentRecorded(payer=payer, payee=payee, chips=_chips(m.group(3)), note=note)]


def _settle(game: GameState, rest: str) -> list[Any]:
    """``settle``: close the night; ``settle pay ...``: a transfer of the settlement paid."""
    word, more = _first(rest)
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
        open_ = open_transfers(game)
        if not open_:
            raise IllegalAction(
                "settlement_order",
                "no transfer of the settlement is open"
                + ("" if game.closed else ": close the night first (settle)"),
            )
        return [E.SettlementPaid(payer=p, payee=q, chips=c) for p, q, c in open_]
    m = _PAY.match(more)
    if m is None:
        raise NotationError("settle pay PAYER->PAYEE CHIPS [NOTE], e.g. settle pay Ben->Ann 340")
    payer, payee = seat_of(m.group(1), game.players), seat_of(m.group(2), game.players)
    note = (m.group(4) or "").strip() or None
    return [E.SettlementPaid(payer=payer, payee=payee, chips=_chips(m.group(3)), note=note)]


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
        if tok in _DEAL_WORDS:
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
        if tok in _UNKNOWN:
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
    if _needs_hand_start(game):
        return [hand_started(game, dealer, parts["out"]), dealt]
    h = game.hand
    if dealer is not None and h is not None and dealer != h.dealer:
        raise IllegalAction(
            "dealer", f"hand {game.hand_no} was started with seat {h.dealer} dealing"
        )
    return [dealt]


# --- completion ------------------------------------------------------------------------------


def lines_now(game: GameState | None) -> list[str]:
    """The table inputs the rules allow now, as lines (the legal entries, and a play or flip
    by its card alone); between hands ``deal`` and ``pay``, ``settle`` once a hand has ended
    (``settle pay`` once the night is closed), the table's ``chips``, ``draw`` and ``sell``
    when the rules wait for or allow them, always ``note`` and ``undo``."""
    out: list[str] = []
    h = game.hand if game is not None else None
    for a in legal_actions(h) if h is not None and h.phase is not Phase.ENDED else []:
        line = text(a)
        out.append(line)
        if type(a) is E.CardPlayed or type(a) is E.CardFlipped:
            out.append(line.split(" ", 1)[1])  # CARD [TAKE]: play or flip, as the table waits
    if game is not None:
        w = game.waiting()
        if w.kind == "pay":
            out.append("pay")
        elif w.kind == "deal":
            out.append("deal")
        elif w.kind == "settle":
            out.append("settle pay")
        if game.can_close():
            out.append("settle")
        for word in game.table_entries():
            if word == "draw":
                out += ["draw night", "draw day"]
            elif word == "sell":
                out += [f"sell {game.players[s].name}" for s in game.sellers()]
            else:
                out.append(word)
    out += ["note", "undo"]
    return list(dict.fromkeys(out))


def complete(lines: Sequence[str], before: str, word: str) -> list[str]:
    """The words that can follow ``before`` (the words typed before the one being completed)
    and start with ``word`` (case-insensitive), among the words of ``lines``."""
    typed = [t.lower() for t in before.split()]
    out: list[str] = []
    for line in lines:
        words = line.split()
        if len(words) > len(typed) and [w.lower() for w in words[: len(typed)]] == typed:
            nxt = words[len(typed)]
            if nxt.lower().startswith(word.lower()):
                out.append(nxt)
    return sorted(dict.fromkeys(out))


# --- writing -------------------------------------------------------------------------------


def text(payload: Any, *, seat: bool = False) -> str:
    """The line of an input payload, which :func:`parse` reads back to it in the state it was
    entered in. ``seat`` writes the seat of a seat's input first (``0 play 08G``), as scripts
    do. Raises :class:`NotationError` for a consequence or ``game_started`` (no table input)."""
    t = type(payload)
    who = f"{payload.seat} " if seat and hasattr(payload, "seat") else ""
    if t is E.CardPlayed or t is E.CardFlipped:
        verb = "play" if t is E.CardPlayed else "flip"
        take = f" {payload.chosen}" if payload.chosen else ""
        return f"{who}{verb} {payload.card}{take}"
    if t is E.FlipOnlyPlayed:
        return f"{who}flip-only"
    if t is E.Shaken or t is E.BombPlayed:
        verb = "shake" if t is E.Shaken else "bomb"
        return f"{who}{verb} {payload.month:02d} " + " ".join(payload.cards)
    if t is E.FourOfAMonthShown:
        return "four " + " ".join(f"{f.seat} {f.month:02d}" for f in payload.shown)
    if t is E.FourKept:
        return f"keep {payload.seat}"
    if t is E.ShakeDeclined:
        return f"{who}noshake {payload.month:02d}"
    if t is E.CupAssigned:
        return f"{who}cup {payload.role}"
    if t is E.GoCalled:
        return f"{who}go"
    if t is E.StopCalled and not payload.auto:
        return f"{who}stop"
    if t is E.PaymentRecorded:
        note = f" {payload.note}" if payload.note else ""
        return f"pay {payload.payer}->{payload.payee} {payload.chips}{note}"
    if t is E.GameClosed:
        return "settle" + (f" note {payload.note}" if payload.note else "")
    if t is E.SettlementPaid:
        note = f" {payload.note}" if payload.note else ""
        return f"settle pay {payload.payer}->{payload.payee} {payload.chips}{note}"
    if t is E.NoteAdded:
        about = f"@{payload.about_seq} " if payload.about_seq is not None else ""
        return f"note {about}{payload.text}"
    if t is E.EntryRetracted:
        return f"undo @{payload.seq}" + (f" {payload.reason}" if payload.reason else "")
    if t is E.HandStarted:
        deck = " deck " + " ".join(payload.deck) if payload.deck else ""
        # a hand of three names its players: at 4 or 5 seats they are three of the seats
        o = payload.order
        order = " order " + " ".join(map(str, o)) if len(o) == 3 else ""
        return f"hand dealer {payload.dealer}{order}{deck}"
    if t is E.BrightsSold:
        return f"{payload.seat} sell " + " ".join(payload.cards)
    if t is E.ChipsCounted:
        return "chips " + " ".join(map(str, payload.chips))
    if t is E.DealerDrawn:
        draws = " ".join(f"{d.seat} {d.card}" for d in payload.draws)
        lot = f" lot {payload.dealer}" if payload.by_lot else ""
        return f"draw {'night' if payload.night else 'day'} {draws}{lot}"
    if t is E.CardsDealt:
        parts = ["deal layout " + " ".join(payload.layout)]
        for s, held in enumerate(payload.hands):
            if held is not None:
                parts.append(f"hand {s} " + " ".join(held))
        if payload.stock is not None:
            parts.append("stock " + " ".join(payload.stock))
        if payload.bonus_to_pile:
            parts.append("bonus " + " ".join(payload.bonus_to_pile))
        return " ".join(parts)
    raise NotationError(f"{E.event_type(payload)} is not a table input: the rules derive it")
