"""A line of the notation read into words: its verb, its seat and its arguments; the words
of cards, months, chips and seats; and the grammar's errors."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .. import cards as C
from .. import events as E
from ..errors import GostopError

MONTH_MASKS = C.MONTH_MASKS

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
DEAL_WORDS = ("layout", "hand", "stock", "bonus", "dealer", "out")
UNKNOWN_WORDS = ("?", "unknown", "-")
_CARD = re.compile(r"(0?[1-9]|1[0-2])(g|a|r|j1|j2|j3|d)|b[23][a-c]?")
_CARDISH = re.compile(r"\d|b\d")  # a word that starts like a card code
_CUP_ROLES = ("animal", "junk")
#: How a card code is written, for the refusals of a word that is none.
CARD_FORM = "a card is a month 01..12 and a kind (G, A, R, J1, J2, D), e.g. 03R, 8a, 11d"
PAY_LINE = re.compile(r"^\s*(\S+?)\s*(?:->|>|\s)\s*(\S+)\s+(\S+)(?:\s+(.*))?$", re.S)


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


def looks_like_card(word: str) -> bool:
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


def chips_of(token: str) -> int:
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


def first_word(text: str) -> tuple[str, str]:
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
    head, after = first_word(stripped)
    seat: str | None = None
    names = {p.id.lower() for p in players} | {p.name.lower() for p in players}
    if head.isdecimal() or (head.lower() in names and head.lower() not in VERBS):
        nxt, more = first_word(after)
        if head.isdecimal() or nxt.lower() in VERBS or looks_like_card(nxt):
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
        if key in C.CODE_TO_INDEX or looks_like_card(key):
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
