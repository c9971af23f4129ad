"""Events in words: one place that says what a payload means, for every front end.

:func:`describe` tells an event in a sentence, naming players by name, in the third person
("Ben plays 03R (takes 03J1)") or to the player in seat ``viewer`` ("you play 03R, taking
03J1"; what that seat may not see stays hidden, such as the card drawn into another hand).
:func:`recorded` states an input as the record has it, for an audit ("seat 1 played 07R").

Colour is no business of the library: the parts a display may highlight (card codes, a ppuk,
a Go or Stop call, the outcome of a hand) go through a :class:`Marks` object; the default,
:data:`PLAIN`, leaves them as they are, and the terminal's painter colours them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

from . import cards as C
from . import events as E
from .engine.state import HandState, Phase
from .names import is_sealed

__all__ = [
    "CAPTURE_KINDS",
    "PHASE_WORDS",
    "PLAIN",
    "SOURCES",
    "STAYS",
    "WATCHER",
    "Marks",
    "describe",
    "fours_form",
    "fours_held",
    "named_seats",
    "payment_difference",
    "pile_groups",
    "rate_words",
    "recorded",
    "sale_proof",
    "seat_name",
    "settlement_words",
    "standings",
    "stays",
    "stock_words",
    "table_words",
    "transfer_words",
    "waiting_words",
    "who",
]

#: A capture's kind (``cards_captured.kind``) in words.
CAPTURE_KINDS = {
    "pair": "pair",
    "stack": "stack of four",
    "ppuk_taken": "ppuk taken",
    "own_ppuk": "own ppuk taken back",
    "ttadak": "ttadak",
    "jjok": "jjok",
    "last_turn_three": "three on the last turn",
    "bomb": "bomb",
    "bonus": "bonus card",
}
#: Where a capture's cards came from (``cards_captured.source``).
SOURCES = {"hand": "by hand", "flip": "by flip", "hand_and_flip": "by hand and flip"}
#: What the seat that acts does next, after its name ("Ann to play").
PHASE_WORDS = {
    Phase.DEAL: "waits for the deal",
    Phase.PLAY: "to play",
    Phase.FLIP: "to flip",
    Phase.FLIP_AS_PLAY: "to flip (in place of the bonus card)",
    Phase.CUP: "to decide the September cup",
    Phase.DECIDE: "to say Go or Stop",
}


class Marks(Protocol):
    """How a display marks the parts of a sentence it may highlight. ``role`` is ``ppuk``,
    ``call`` (a Go or a Stop), ``outcome`` (a hand's end) or ``heading``."""

    def card(self, code: str) -> str: ...

    def cards(self, codes: Sequence[str]) -> str: ...

    def mark(self, text: str, role: str) -> str: ...


class _Plain:
    """Marks that leave the text as it is."""

    def card(self, code: str) -> str:
        return code

    def cards(self, codes: Sequence[str]) -> str:
        return " ".join(codes) if codes else "-"

    def mark(self, text: str, role: str) -> str:
        return text


PLAIN: Marks = _Plain()


def pile_groups(h: HandState, seat: int) -> list[tuple[str, list[str]]]:
    """A seat's pile by kind, as a display names it: (``brights``, codes), (``animals``, ...),
    (``ribbons``, ...), (``junk``, ...), the kinds it holds none of left out."""
    pile = h.piles[seat]
    kinds = (
        ("brights", C.BRIGHTS),
        ("animals", C.ANIMALS),
        ("ribbons", C.RIBBONS),
        ("junk", h.table.stealable),
    )
    return [(label, got) for label, mask in kinds if (got := C.codes(pile & mask))]


def seat_name(players: Sequence[E.Player], seat: int | None) -> str:
    """``Ann (seat 0)``; just ``seat N`` when the seat has no player."""
    if seat is None:
        return "nobody"
    if 0 <= seat < len(players):
        return f"{players[seat].name} (seat {seat})"
    return f"seat {seat}"


def who(players: Sequence[E.Player], seat: int | None) -> str:
    """A seat by its player's name; ``seat N`` without one (or with a name sealed in a log
    read as stored, see ``names``), ``nobody`` for no seat."""
    if seat is not None and 0 <= seat < len(players):
        name = players[seat].name
        if name and not is_sealed(name):
            return name
    return "nobody" if seat is None else f"seat {seat}"


def describe(
    ev: Any, players: Sequence[E.Player], viewer: int | None = None, marks: Marks = PLAIN
) -> str:
    """One sentence for a payload (typed or unknown): in the third person, or told to the
    player in seat ``viewer``."""
    if viewer is None:
        return _third_person(ev, players, marks)
    return _told_to(ev, players, viewer, marks)


def _third_person(ev: Any, players: Sequence[E.Player], p: Marks) -> str:
    """One sentence for a payload (typed or unknown), naming players by name."""
    w = lambda s: who(players, s)  # noqa: E731
    v = lambda s, verb: _acts(who(players, s), verb)  # noqa: E731
    t = E.event_type(ev)
    if isinstance(ev, E.UnknownEvent):
        return f"{t} (an event type this version does not know; kept as read)"
    if t == "game_started":
        seats = ", ".join(f"{pl.name} (seat {i})" for i, pl in enumerate(ev.players))
        name = ev.ruleset.get("name", "?")
        return f"game started: {seats}; ruleset {name}; stake {ev.stake} per point"
    if t == "dealer_drawn":
        draws = ", ".join(f"{w(d.seat)} {p.card(d.card)}" for d in ev.draws)
        when = "by night the lowest month deals" if ev.night else "by day the highest deals"
        if ev.dealer is None:
            return f"draw for the first deal: {draws} ({when}): a tie, the tied seats draw again"
        if ev.by_lot:
            return (
                f"draw for the first deal: {draws} ({when}): a tie; by lot, {v(ev.dealer, 'deal')}"
            )
        return f"draw for the first deal: {draws} ({when}): {v(ev.dealer, 'deal')}"
    if t == "chips_counted":
        held = ", ".join(f"{w(s)} {c}" for s, c in enumerate(ev.chips))
        return f"chips on the table: {held}"
    if t == "seats_sat_out":
        how = "in turn order from the dealer" if ev.rule == "turn_order" else "by choice"
        return f"sitting out this hand ({how}): {', '.join(w(s) for s in ev.seats)}"
    if t == "brights_sold":
        n = len(ev.cards)
        return f"gwang-pali: {v(ev.seat, 'sell')} {n} bright{'s' * (n != 1)} {p.cards(ev.cards)}"
    if t == "payment_capped":
        whose = "what the loser holds" if ev.cap == "loser_holdings" else "the winner's chips"
        return (
            f"capped at {whose}: {v(ev.payer, 'pay')} {w(ev.payee)} {ev.paid} of "
            f"{ev.due} chips (short {ev.due - ev.paid})"
        )
    if t == "sitting_ended":
        return p.mark(
            f"the sitting is over: {', '.join(w(s) for s in ev.seats)} has no chips left",
            "outcome",
        )
    if t == "hand_started":
        deck = "; shuffled deck recorded" if ev.deck else ""
        plays = "play" if who(players, ev.dealer).lower() == "you" else "plays"
        return f"hand {ev.hand} started: {v(ev.dealer, 'deal')} and {plays} first{deck}"
    if t == "cards_dealt":
        known = [w(s) for s, h in enumerate(ev.hands) if h is not None]
        hands = f"hands known: {', '.join(known)}" if known else "hands unknown"
        stock = "stock known" if ev.stock is not None else "stock unknown"
        bonus = (
            f"; bonus to the dealer's pile: {p.cards(ev.bonus_to_pile)}" if ev.bonus_to_pile else ""
        )
        return f"dealt: layout {p.cards(ev.layout)}; {hands}; {stock}{bonus}"
    if t == "deal_voided":
        if ev.reason == "layout_four":
            return f"the deal does not stand: four of month {ev.month:02d} on the layout"
        return "the deal does not stand: every player holds a four"
    if t == "four_of_a_month_shown":
        shown = "; ".join(f"{w(f.seat)} shows month {f.month:02d}" for f in ev.shown)
        return f"four of a month: {shown}"
    if t == "four_kept":
        return f"{v(ev.seat, 'keep')} a four of a month in hand and plays on (들고치기)"
    if t == "shake_declined":
        return f"{v(ev.seat, 'decline')} to shake month {ev.month:02d}"
    if t == "shaken":
        return f"{v(ev.seat, 'shake')} month {ev.month:02d}: {p.cards(ev.cards)}"
    if t == "bomb_played":
        return f"{v(ev.seat, 'bomb')} month {ev.month:02d} with {p.cards(ev.cards)}"
    if t == "card_played":
        ch = f" (takes {p.card(ev.chosen)})" if ev.chosen else ""
        return f"{v(ev.seat, 'play')} {p.card(ev.card)}{ch}"
    if t == "flip_only_played":
        return f"{v(ev.seat, 'take')} a flip-only turn"
    if t == "card_flipped":
        ch = f" (takes {p.card(ev.chosen)})" if ev.chosen else ""
        return f"{v(ev.seat, 'flip')} {p.card(ev.card)}{ch}"
    if t == "bonus_card_taken":
        src = {"hand": "from the hand", "flip": "flipped", "layout": "from the layout"}
        rep = f"; draws {p.card(ev.replacement)}" if ev.replacement else ""
        if ev.source == "hand" and not ev.replacement:
            rep = "; draws a replacement"
        return f"{v(ev.seat, 'take')} bonus card {p.card(ev.card)} ({src[ev.source]}){rep}"
    if t == "cards_captured":
        kind = CAPTURE_KINDS.get(ev.kind, ev.kind)
        return f"{v(ev.seat, 'capture')} {p.cards(ev.cards)} ({kind}, {SOURCES[ev.source]})"
    if t == "ppuk_made":
        return (
            f"{p.mark('ppuk', 'ppuk')}: {v(ev.seat, 'leave')} {p.cards(ev.cards)} on the "
            f"layout (ppuk {ev.count} this hand)"
        )
    if t == "junk_transferred":
        return f"{v(ev.from_seat, 'give')} {w(ev.to_seat)} {p.card(ev.card)} ({ev.reason})"
    if t == "cup_assigned":
        return f"{v(ev.seat, 'count')} the September cup as {ev.role}"
    if t == "go_called":
        return p.mark(f"{v(ev.seat, 'call')} Go {ev.count} at {ev.score} points", "call")
    if t == "stop_called":
        how = " (automatic: the last turn)" if ev.auto else ""
        return p.mark(f"{v(ev.seat, 'stop')} at {ev.score} points{how}", "call")
    if t == "hand_ended":
        carry = f"; the next hand pays x{ev.next_carry}" if ev.next_carry > 1 else ""
        if ev.outcome in ("stop", "instant"):
            how = "by Stop" if ev.outcome == "stop" else f"instantly ({ev.reason})"
            return p.mark(f"hand over: {v(ev.winner, 'win')} {how}", "outcome") + carry
        if ev.outcome == "nagari":
            return p.mark(f"hand over: nagari, no winner ({ev.reason})", "outcome") + carry
        return p.mark(f"hand over: void ({ev.reason}), deal again", "outcome") + carry
    if t == "payment_due":
        return (
            f"due: {v(ev.payer, 'pay')} {w(ev.payee)} {ev.chips} chips "
            f"({ev.points} points, {ev.reason})"
        )
    if t == "payment_recorded":
        note = f" ({ev.note})" if ev.note else ""
        return f"paid: {w(ev.payer)} -> {w(ev.payee)} {ev.chips} chips{note}"
    if t == "game_closed":
        why = f" ({ev.note})" if ev.note else ""
        return p.mark(f"the night is closed, no hand follows{why}", "outcome")
    if t == "settlement_proposed":
        return "settlement: " + settlement_words(players, ev.totals, ev.paid, ev.transfers)
    if t == "settlement_paid":
        note = f" ({ev.note})" if ev.note else ""
        return f"settled: {v(ev.payer, 'pay')} {w(ev.payee)} {ev.chips}{note}"
    if t == "note_added":
        about = f" (about seq {ev.about_seq})" if ev.about_seq else ""
        return f"note{about}: {ev.text}"
    if t == "entry_retracted":
        why = f" ({ev.reason})" if ev.reason else ""
        return f"undo: the entry at seq {ev.seq} is retracted{why}"
    if t in ("key_added", "result_countersigned"):
        from .errors import GostopError
        from .integrity.signing import PublicKey

        try:
            fp = PublicKey.from_text(ev.key).fingerprint
        except GostopError:  # an unreadable key is named as such; the checks report it
            fp = "an unreadable key"
        if t == "key_added":
            return f"recorder key {fp} added, held by {ev.holder}"
        return f"{w(ev.seat)} countersigns the record up to seq {ev.head_seq} with key {fp}"
    if t == "checkpoint_signed":
        return f"checkpoint: the record up to seq {ev.head_seq} signed by key {ev.key}"
    if t == "person_renamed":
        return f"person {ev.person} is renamed"
    if t == "persons_merged":
        return f"person {ev.person}'s games count for person {ev.into} from now on"
    if t == "person_forgotten":
        return f"person {ev.person} is forgotten: their names can no longer be read"
    return t


def _acts(name: str, verb: str) -> str:
    """``Ben plays``, but ``You play``: a player named "You" (the default name of the person
    at ``gostop play``) is told in the second person."""
    return f"{name} {verb}" if name.lower() == "you" else f"{name} {verb}s"


def _subject(players: Sequence[E.Player], viewer: int | None, seat: int | None, verb: str) -> str:
    """``you play`` for the viewer's seat, ``Ben plays`` for another."""
    if seat is not None and seat == viewer:
        return f"you {verb}"
    return f"{who(players, seat)} {verb}s"


def _object(players: Sequence[E.Player], viewer: int | None, seat: int | None) -> str:
    return "you" if seat is not None and seat == viewer else who(players, seat)


def _told_to(ev: Any, players: Sequence[E.Player], viewer: int, p: Marks) -> str:
    """One sentence for a payload, told to the player in seat ``viewer`` ("you play 03R",
    "Ben gives you 01J1 (jjok)"); events without a player read as in the third person."""
    t = E.event_type(ev)
    if isinstance(ev, E.UnknownEvent):
        return _third_person(ev, players, p)
    seat = getattr(ev, "seat", None)

    def s(verb: str) -> str:
        return _subject(players, viewer, seat, verb)

    if t == "hand_started":
        dealer = _subject(players, viewer, ev.dealer, "deal")
        return p.mark(
            f"hand {ev.hand}: {dealer} and play{'' if ev.dealer == viewer else 's'} first",
            "heading",
        )
    if t == "cards_dealt":
        sizes = {len(h) for h in ev.hands if h is not None}
        each = f"{sizes.pop()} cards each, " if len(sizes) == 1 else ""
        stock = f", {len(ev.stock)} in the stock" if ev.stock is not None else ""
        dealt = sum(len(h) for h in ev.hands if h is not None) + len(ev.layout)
        extra = dealt + len(ev.stock or ()) + len(ev.bonus_to_pile) - C.STANDARD_DECK.bit_count()
        if ev.stock is not None and None not in ev.hands and extra > 0:
            stock += f" (the deck's {extra} bonus card{'s' if extra != 1 else ''} included)"
        return f"dealt: {each}{len(ev.layout)} face up{stock}"
    if t == "shake_declined":
        return f"{s('decline')} to shake month {ev.month:02d}"
    if t == "four_kept":
        if seat == viewer:
            return "you keep your four of a month in hand and play on (들고치기)"
        # the holder's decision tells no one else that a four is held (p2p says nothing)
        return f"{s('play')} on"
    if t == "shaken":
        return f"{s('shake')} month {ev.month:02d}: {p.cards(ev.cards)}"
    if t == "bomb_played":
        return f"{s('bomb')} month {ev.month:02d} with {p.cards(ev.cards)}"
    if t == "card_played":
        ch = f", taking {p.card(ev.chosen)}" if ev.chosen else ""
        return f"{s('play')} {p.card(ev.card)}{ch}"
    if t == "flip_only_played":
        return f"{s('play')} no card (a flip-only turn)"
    if t == "card_flipped":
        ch = f", taking {p.card(ev.chosen)}" if ev.chosen else ""
        return f"{s('flip')} {p.card(ev.card)}{ch}"
    if t == "bonus_card_taken":
        src = {"hand": "from the hand", "flip": "flipped", "layout": "dealt face up"}
        rep = ""
        if ev.replacement:
            draws = "draw" if seat == viewer else "draws"
            # the card drawn into a hand is seen by its holder only
            drawn = p.card(ev.replacement) if seat == viewer or ev.source != "hand" else "a card"
            rep = f"; {draws} {drawn}"
        return f"{s('take')} bonus card {p.card(ev.card)} ({src[ev.source]}){rep}"
    if t == "cards_captured":
        kind = CAPTURE_KINDS.get(ev.kind, ev.kind)
        return f"{s('capture')} {p.cards(ev.cards)} ({kind}, {SOURCES[ev.source]})"
    if t == "ppuk_made":
        return (
            f"{p.mark('ppuk', 'ppuk')}: {s('leave')} {p.cards(ev.cards)} on the layout "
            f"(ppuk {ev.count} this hand)"
        )
    if t == "junk_transferred":
        giver = _subject(players, viewer, ev.from_seat, "give")
        return f"{giver} {_object(players, viewer, ev.to_seat)} {p.card(ev.card)} ({ev.reason})"
    if t == "cup_assigned":
        return f"{s('count')} the September cup as {ev.role}"
    if t == "go_called":
        return p.mark(f"{s('call')} Go {ev.count} at {ev.score} points", "call")
    if t == "stop_called":
        how = " (automatic: the last turn)" if ev.auto else ""
        return p.mark(f"{s('stop')} at {ev.score} points{how}", "call")
    if t == "four_of_a_month_shown":
        shown = "; ".join(
            f"{_subject(players, viewer, f.seat, 'show')} four of month {f.month:02d}"
            for f in ev.shown
        )
        return f"four of a month: {shown}"
    if t == "hand_ended" and ev.outcome in ("stop", "instant"):
        how = "by Stop" if ev.outcome == "stop" else f"instantly ({ev.reason})"
        carry = f"; the next hand pays x{ev.next_carry}" if ev.next_carry > 1 else ""
        return (
            p.mark(f"hand over: {_subject(players, viewer, ev.winner, 'win')} {how}", "outcome")
            + carry
        )
    if t == "payment_due":
        payer = _subject(players, viewer, ev.payer, "owe")
        return (
            f"due: {payer} {_object(players, viewer, ev.payee)} {ev.chips} chips "
            f"({ev.points} points, {ev.reason})"
        )
    if t == "payment_recorded":
        payer = _subject(players, viewer, ev.payer, "pay")
        note = f" ({ev.note})" if ev.note else ""
        return f"paid: {payer} {_object(players, viewer, ev.payee)} {ev.chips} chips{note}"
    return _third_person(ev, players, p)


def recorded(ev: Any) -> str:
    """An input as the record states it, for an audit: "seat 1 played 07R" (seats by number,
    past tense: what the table did)."""
    t = type(ev)
    if t is E.CardPlayed:
        return f"seat {ev.seat} played {ev.card}" + (f" onto {ev.chosen}" if ev.chosen else "")
    if t is E.CardFlipped:
        return f"seat {ev.seat} turned {ev.card}" + (f" onto {ev.chosen}" if ev.chosen else "")
    if t is E.BombPlayed:
        return f"seat {ev.seat} bombed month {ev.month:02d} with {' '.join(ev.cards)}"
    if t is E.Shaken:
        return f"seat {ev.seat} shook month {ev.month:02d} ({' '.join(ev.cards)})"
    if t is E.FourKept:
        return f"seat {ev.seat} kept a four of a month in hand and played on"
    if t is E.ShakeDeclined:
        return f"seat {ev.seat} declined to shake month {ev.month:02d}"
    if t is E.FlipOnlyPlayed:
        return f"seat {ev.seat} took a flip-only turn"
    if t is E.GoCalled:
        return f"seat {ev.seat} called Go number {ev.count} at {ev.score}"
    if t is E.StopCalled:
        return f"seat {ev.seat} called Stop at {ev.score}"
    if t is E.CupAssigned:
        return f"seat {ev.seat} counted the cup as {ev.role}"
    if t is E.PaymentRecorded:
        return f"seat {ev.payer} paid seat {ev.payee} {ev.chips} chips"
    if t is E.SettlementPaid:
        return f"seat {ev.payer} paid seat {ev.payee} {ev.chips} chips in the settlement"
    if t is E.GameClosed:
        return "closed the night"
    if t is E.BrightsSold:
        return f"seat {ev.seat} sold {' '.join(ev.cards)}"
    if t is E.DealerDrawn:
        lot = f" (a tie: by lot, seat {ev.dealer} deals)" if ev.by_lot else ""
        return "drew " + ", ".join(f"seat {d.seat} {d.card}" for d in ev.draws) + lot
    if t is E.ChipsCounted:
        return "counted chips " + ", ".join(f"seat {s} {c}" for s, c in enumerate(ev.chips))
    return E.event_type(ev).replace("_", " ")


def sale_proof(
    players: Sequence[E.Player],
    seller: int,
    cards: Sequence[str],
    price: int,
    stake: int,
    payers: Sequence[int],
) -> str:
    """The arithmetic of a gwang-pali sale, as a ledger line's proof: brights times the
    ruleset's price per bright times the stake, from each player of the hand."""
    n = len(cards)
    pts = n * price
    return (
        f"gwang-pali: {who(players, seller)} sells {n} bright{'s' * (n != 1)} "
        f"({' '.join(cards)}) at {price} points each (gwang_price): {n} x {price} = {pts} "
        f"points x stake {stake} = {pts * stake} chips from each of "
        f"{', '.join(who(players, s) for s in payers)}"
    )


def transfer_words(players: Sequence[E.Player], transfers: Sequence[Any]) -> str:
    """``Ben pays Ann 340, Cho pays Ann 120`` (transfers as structs or (payer, payee,
    chips)); ``nobody pays anybody`` when every seat is square."""
    out = []
    for tr in transfers:
        payer, payee, chips = (tr.payer, tr.payee, tr.chips) if hasattr(tr, "payer") else tuple(tr)
        out.append(f"{_acts(who(players, payer), 'pay')} {who(players, payee)} {chips}")
    return ", ".join(out) if out else "nobody pays anybody"


def settlement_words(
    players: Sequence[E.Player],
    totals: Sequence[int],
    paid: Sequence[int],
    transfers: Sequence[Any],
) -> str:
    """The night's settlement in a sentence: each seat's total (and what was paid during
    the night, when anything was), then the transfers: ``Ann +460, Ben -340, Cho -120;
    Ben pays Ann 340, Cho pays Ann 120``."""
    seats = []
    for s, total in enumerate(totals):
        part = f"{who(players, s)} {total:+d}" if total else f"{who(players, s)} 0"
        if paid[s]:
            part += f" ({paid[s]:+d} paid during the night)"
        seats.append(part)
    return ", ".join(seats) + "; " + transfer_words(players, transfers)


def waiting_words(kind: str, seat: int | None, hand: int, players: Sequence[E.Player]) -> str:
    """Where a game stands, from what its table waits for (``GameState.waiting``): a listing
    of games shows it ("hand 2: Ann to play", "between hands: hand 3 to deal")."""
    name = who(players, seat)
    if kind == "over":
        return "over"
    if kind == "settle":
        return "closed: the settlement to pay"
    if kind == "closed":
        return "closed and settled"
    if kind == "pay":
        return f"hand {hand}: payments due"
    if kind == "deal":
        if hand <= 1:
            return "not dealt yet"
        return f"between hands: hand {hand} to deal"
    doing = {
        "play": "to play",
        "flip": "to flip",
        "cup": "to decide the September cup",
        "decide": "to say Go or Stop",
    }.get(kind, kind)
    return f"hand {hand}: {name} {doing}"


#: The viewer of :func:`describe` that sits at no seat: someone watching the table, told
#: what the table sees (a card drawn into a hand stays hidden) in the third person.
WATCHER = -1


def standings(players: Sequence[E.Player], net: Sequence[int]) -> str:
    """Chips won and lost so far, best first: ``Ann +30, Cho 0, Ben -30 chips``."""
    order = sorted(range(len(net)), key=lambda s: (-net[s], s))
    return (
        ", ".join(
            f"{who(players, s)} {net[s]:+d}" if net[s] else f"{who(players, s)} 0" for s in order
        )
        + " chips"
    )


def table_words(
    kind: str,
    seat: int | None,
    hand: int,
    players: Sequence[E.Player],
    result: str | None,
    net: Sequence[int],
    settled: Sequence[Any] = (),
) -> str:
    """Where a game stands, in a sentence with names, for the live table: what the table
    waits for (``GameState.waiting``) and, between hands or at the end, how the last hand
    ended (``result``, a sentence of :func:`describe`) and the chips won and lost (``net``:
    the night's totals); once the night is closed, the transfers ``settled`` so far."""
    name = who(players, seat)
    ended = _sentence(result.removeprefix("hand over: ")) if result else ""
    if kind == "over":
        return f"The game is over after hand {hand}. {ended}Standing: {standings(players, net)}."
    if kind in ("settle", "closed"):
        paying = "the settlement is being paid" if kind == "settle" else "the settlement is paid"
        if settled:
            paying += f" ({transfer_words(players, settled)})"
        return (
            f"The night is closed after hand {hand}: {paying}. Standing: {standings(players, net)}."
        )
    if kind == "pay":
        # paid now or tallied for the night's settlement: the table decides, the record waits
        return (
            f"Hand {hand} is over. {ended}Its payments are due. "
            f"Standing: {standings(players, net)}."
        )
    if kind == "deal":
        if hand <= 1:
            return f"Hand 1: the deal{f', {name} deals' if seat is not None else ''}."
        return (
            f"Hand {hand - 1} is over. {ended}Standing: {standings(players, net)}. "
            f"Next: hand {hand}, {name} deals."
        )
    doing = {
        "play": "to play",
        "flip": "to flip a card from the stock",
        "cup": "to count the September cup as animal or junk",
        "decide": "to say Go or Stop",
    }.get(kind, kind)
    return f"Hand {hand}: {name} {doing}."


def _sentence(text: str) -> str:
    """``hand over: Ann wins by Stop`` as a sentence of its own: capitalised, stopped."""
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + ". " if text else ""


def payment_difference(
    players: Sequence[E.Player],
    payer: int,
    payee: int,
    chips: int,
    due: Sequence[tuple[int, int, int, int, str]],
) -> str | None:
    """How a payment the table made differs from what the rules make due, or None when it is
    what is due. ``due``: the pending dues (payer, payee, points, chips, reason) of the hand."""
    paid = f"{who(players, payer)}->{who(players, payee)} {chips}"
    match = [d for d in due if d[0] == payer and d[1] == payee]
    if not match:
        owed = "; ".join(f"{who(players, d[0])}->{who(players, d[1])} {d[3]}" for d in due)
        return f"{paid}: no payment from {who(players, payer)} to {who(players, payee)} is " + (
            f"due (due: {owed})" if owed else "due"
        )
    _, _, points, owed_chips, reason = match[0]
    if chips == owed_chips:
        return None
    gap = chips - owed_chips
    how = f"{abs(gap)} chip{'s' if abs(gap) != 1 else ''} {'more' if gap > 0 else 'less'}"
    return (
        f"{paid} differs from the {owed_chips} due ({points} point"
        f"{'s' if points != 1 else ''}, {reason}): {how}"
    )


def fours_form(reason: str, form: str) -> str:
    """A refusal about fours of a month not shown, with the entry that shows them all."""
    return f"{reason}; enter `{form}` (or `four` alone) to show every four the hands hold"


def fours_held(shown: Any, players: Sequence[E.Player], form: str) -> str:
    """The fours of a month the dealt hands hold, and how to record them (before any play)."""
    by_seat: dict[int, list[str]] = {}
    for f in shown.shown:
        by_seat.setdefault(f.seat, []).append(f"{f.month:02d}")
    held = "; ".join(
        f"{who(players, seat)} holds four of month{'s' if len(ms) > 1 else ''} {' and '.join(ms)}"
        for seat, ms in by_seat.items()
    )
    return f"fours at the deal: {held}: they are shown before any play: `{form}` (or `four`)"


_SEAT = re.compile(r"\bseat (\d+)('s)?")


def named_seats(text: str, players: Sequence[E.Player]) -> str:
    """A message of the rules (which know seats, not names) with each ``seat N`` as its
    player's name: "Ann does not hold 07R: it is in Ben's pile"."""

    def name(m: re.Match[str]) -> str:
        seat = int(m.group(1))
        if seat >= len(players):
            return m.group(0)
        return players[seat].name + (m.group(2) or "")

    return _SEAT.sub(name, text)


def stock_words(h: HandState, face_down: bool = False) -> str:
    """The stock's size, and why it is more than 48 less the deal with bonus cards:
    "22 cards, face down (the deck's 2 bonus cards make 50)"."""
    n = h.stock_remaining()
    extra = h.table.deck_size - C.STANDARD_DECK.bit_count()
    text = f"{n} card{'s' if n != 1 else ''}" + (", face down" if face_down else "")
    if extra:
        text += (
            f" (the deck's {extra} bonus card{'s' if extra != 1 else ''} make {h.table.deck_size})"
        )
    return text


def stays(card: str, consequences: Sequence[Any]) -> bool:
    """Whether a flipped card stayed on the layout: no consequence of its entry (a capture,
    a ppuk, a bonus taken) moved it."""
    for ev in consequences:
        moved = getattr(ev, "cards", None) or ()
        if card in moved or getattr(ev, "card", None) == card:
            return False
    return True


#: Said after a flip that takes nothing and is not taken.
STAYS = "it stays on the layout"


def rate_words(count: int, noun: str, seconds: float) -> str:
    """``in T s (R nouns/s)`` for ``count`` nouns done in ``seconds``, with a rate only when
    the time can bear one: a run under a tenth of a second is told in milliseconds."""
    if seconds < 0.1:
        return f"in {seconds * 1000:.0f} ms"
    return f"in {seconds:.1f} s ({count / seconds:,.0f} {noun}s/s)"
