"""An event told in a sentence: in the third person, to the player of a seat (what it may
not see kept hidden), or as the record has it for an audit.

One table per concern: :data:`_TELLERS` maps each payload class to the function that tells
it, with the person as a parameter (a :class:`_Say`); :data:`_RECORDED` maps each input class
to its sentence for an audit. A test holds the tables to the event classes, so a new event
type is told before it is used."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import cards as C
from .. import events as E
from .marks import PLAIN, Marks, acts, object_of, subject_of, who
from .payments import settlement_words

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


class _Say:
    """Who a sentence is told to, and how it marks its parts. ``viewer`` is the seat told in
    the second person (None: every seat in the third)."""

    __slots__ = ("p", "players", "viewer")

    def __init__(self, players: Sequence[E.Player], viewer: int | None, p: Marks) -> None:
        self.players = players
        self.viewer = viewer
        self.p = p

    def name(self, seat: int | None) -> str:
        """A seat by its player's name, whoever is told."""
        return who(self.players, seat)

    def acts(self, seat: int | None, verb: str) -> str:
        """``Ben plays`` in the third person, whoever is told."""
        return acts(who(self.players, seat), verb)

    def subject(self, seat: int | None, verb: str) -> str:
        """``you play`` for the viewer's seat, ``Ben plays`` for another."""
        return subject_of(self.players, self.viewer, seat, verb)

    def object(self, seat: int | None) -> str:
        """``you`` for the viewer's seat, the player's name for another."""
        return object_of(self.players, self.viewer, seat)

    def mine(self, seat: int | None) -> bool:
        """Whether ``seat`` is the viewer's."""
        return seat is not None and seat == self.viewer


Teller = Callable[[Any, _Say], str]
_TELLERS: dict[type, Teller] = {}


def _tells(*classes: type) -> Callable[[Teller], Teller]:
    def register(fn: Teller) -> Teller:
        for cls in classes:
            _TELLERS[cls] = fn
        return fn

    return register


def describe(
    ev: Any, players: Sequence[E.Player], viewer: int | None = None, marks: Marks = PLAIN
) -> str:
    """One sentence for a payload (typed or unknown): in the third person, or told to the
    player in seat ``viewer`` ("you play 03R", "Ben gives you 01J1 (jjok)"); events that
    name no player read the same either way."""
    tell = _TELLERS.get(type(ev))
    if tell is None:
        return f"{E.event_type(ev)} (an event type this version does not know; kept as read)"
    return tell(ev, _Say(players, viewer, marks))


# --- a seat's act, in the person of whoever is told ----------------------------------------


@_tells(E.CardPlayed, E.CardFlipped)
def _card(ev: E.CardPlayed | E.CardFlipped, say: _Say) -> str:
    verb = "play" if type(ev) is E.CardPlayed else "flip"
    taking = f", taking {say.p.card(ev.chosen)}" if ev.chosen else ""
    return f"{say.subject(ev.seat, verb)} {say.p.card(ev.card)}{taking}"


@_tells(E.ShakeDeclined)
def _shake_declined(ev: E.ShakeDeclined, say: _Say) -> str:
    return f"{say.subject(ev.seat, 'decline')} to shake month {ev.month:02d}"


@_tells(E.Shaken)
def _shaken(ev: E.Shaken, say: _Say) -> str:
    return f"{say.subject(ev.seat, 'shake')} month {ev.month:02d}: {say.p.cards(ev.cards)}"


@_tells(E.BombPlayed)
def _bomb(ev: E.BombPlayed, say: _Say) -> str:
    return f"{say.subject(ev.seat, 'bomb')} month {ev.month:02d} with {say.p.cards(ev.cards)}"


@_tells(E.CardsCaptured)
def _captured(ev: E.CardsCaptured, say: _Say) -> str:
    kind = CAPTURE_KINDS.get(ev.kind, ev.kind)
    taken = say.p.cards(ev.cards)
    return f"{say.subject(ev.seat, 'capture')} {taken} ({kind}, {SOURCES[ev.source]})"


@_tells(E.PpukMade)
def _ppuk(ev: E.PpukMade, say: _Say) -> str:
    return (
        f"{say.p.mark('ppuk', 'ppuk')}: {say.subject(ev.seat, 'leave')} {say.p.cards(ev.cards)} "
        f"on the layout (ppuk {ev.count} this hand)"
    )


@_tells(E.JunkTransferred)
def _junk(ev: E.JunkTransferred, say: _Say) -> str:
    to = say.object(ev.to_seat)
    return f"{say.subject(ev.from_seat, 'give')} {to} {say.p.card(ev.card)} ({ev.reason})"


@_tells(E.CupAssigned)
def _cup(ev: E.CupAssigned, say: _Say) -> str:
    return f"{say.subject(ev.seat, 'count')} the September cup as {ev.role}"


@_tells(E.GoCalled)
def _go(ev: E.GoCalled, say: _Say) -> str:
    return say.p.mark(f"{say.subject(ev.seat, 'call')} Go {ev.count} at {ev.score} points", "call")


@_tells(E.StopCalled)
def _stop(ev: E.StopCalled, say: _Say) -> str:
    how = " (automatic: the last turn)" if ev.auto else ""
    return say.p.mark(f"{say.subject(ev.seat, 'stop')} at {ev.score} points{how}", "call")


@_tells(E.HandEnded)
def _hand_ended(ev: E.HandEnded, say: _Say) -> str:
    carry = f"; the next hand pays x{ev.next_carry}" if ev.next_carry > 1 else ""
    if ev.outcome in ("stop", "instant"):
        how = "by Stop" if ev.outcome == "stop" else f"instantly ({ev.reason})"
        return say.p.mark(f"hand over: {say.subject(ev.winner, 'win')} {how}", "outcome") + carry
    if ev.outcome == "nagari":
        return say.p.mark(f"hand over: nagari, no winner ({ev.reason})", "outcome") + carry
    return say.p.mark(f"hand over: void ({ev.reason}), deal again", "outcome") + carry


# --- told to a player otherwise than to the table (``say.viewer``) --------------------------


@_tells(E.HandStarted)
def _hand_started(ev: E.HandStarted, say: _Say) -> str:
    if say.viewer is not None:
        dealer = say.subject(ev.dealer, "deal")
        plays = "play" if say.mine(ev.dealer) else "plays"
        return say.p.mark(f"hand {ev.hand}: {dealer} and {plays} first", "heading")
    deck = "; shuffled deck recorded" if ev.deck else ""
    plays = "play" if say.name(ev.dealer).lower() == "you" else "plays"
    return f"hand {ev.hand} started: {say.acts(ev.dealer, 'deal')} and {plays} first{deck}"


@_tells(E.CardsDealt)
def _dealt(ev: E.CardsDealt, say: _Say) -> str:
    if say.viewer is not None:  # what was dealt, not which cards: those are the seats' own
        sizes = {len(h) for h in ev.hands if h is not None}
        each = f"{sizes.pop()} cards each, " if len(sizes) == 1 else ""
        stock = f", {len(ev.stock)} in the stock" if ev.stock is not None else ""
        dealt = sum(len(h) for h in ev.hands if h is not None) + len(ev.layout)
        extra = dealt + len(ev.stock or ()) + len(ev.bonus_to_pile) - C.STANDARD_DECK.bit_count()
        if ev.stock is not None and None not in ev.hands and extra > 0:
            stock += f" (the deck's {extra} bonus card{'s' if extra != 1 else ''} included)"
        return f"dealt: {each}{len(ev.layout)} face up{stock}"
    known = [say.name(s) for s, h in enumerate(ev.hands) if h is not None]
    hands = f"hands known: {', '.join(known)}" if known else "hands unknown"
    stock = "stock known" if ev.stock is not None else "stock unknown"
    bonus = f"; bonus to the dealer's pile: {say.p.cards(ev.bonus_to_pile)}"
    return f"dealt: layout {say.p.cards(ev.layout)}; {hands}; {stock}" + (
        bonus if ev.bonus_to_pile else ""
    )


@_tells(E.FourKept)
def _four_kept(ev: E.FourKept, say: _Say) -> str:
    if say.viewer is None:
        return f"{say.acts(ev.seat, 'keep')} a four of a month in hand and plays on (들고치기)"
    if say.mine(ev.seat):
        return "you keep your four of a month in hand and play on (들고치기)"
    # the holder's decision tells no one else that a four is held (p2p says nothing)
    return f"{say.subject(ev.seat, 'play')} on"


@_tells(E.FlipOnlyPlayed)
def _flip_only(ev: E.FlipOnlyPlayed, say: _Say) -> str:
    if say.viewer is None:
        return f"{say.acts(ev.seat, 'take')} a flip-only turn"
    return f"{say.subject(ev.seat, 'play')} no card (a flip-only turn)"


@_tells(E.BonusCardTaken)
def _bonus(ev: E.BonusCardTaken, say: _Say) -> str:
    card = say.p.card(ev.card)
    if say.viewer is None:
        src = {"hand": "from the hand", "flip": "flipped", "layout": "from the layout"}
        rep = f"; draws {say.p.card(ev.replacement)}" if ev.replacement else ""
        if ev.source == "hand" and not ev.replacement:
            rep = "; draws a replacement"
        return f"{say.acts(ev.seat, 'take')} bonus card {card} ({src[ev.source]}){rep}"
    src = {"hand": "from the hand", "flip": "flipped", "layout": "dealt face up"}
    rep = ""
    if ev.replacement:
        draws = "draw" if say.mine(ev.seat) else "draws"
        # the card drawn into a hand is seen by its holder only
        seen = say.mine(ev.seat) or ev.source != "hand"
        rep = f"; {draws} {say.p.card(ev.replacement) if seen else 'a card'}"
    return f"{say.subject(ev.seat, 'take')} bonus card {card} ({src[ev.source]}){rep}"


@_tells(E.FourOfAMonthShown)
def _fours_shown(ev: E.FourOfAMonthShown, say: _Say) -> str:
    if say.viewer is None:
        shown = "; ".join(f"{say.name(f.seat)} shows month {f.month:02d}" for f in ev.shown)
    else:
        shown = "; ".join(
            f"{say.subject(f.seat, 'show')} four of month {f.month:02d}" for f in ev.shown
        )
    return f"four of a month: {shown}"


@_tells(E.PaymentDue)
def _due(ev: E.PaymentDue, say: _Say) -> str:
    if say.viewer is None:
        between = f"{say.acts(ev.payer, 'pay')} {say.name(ev.payee)}"
    else:
        between = f"{say.subject(ev.payer, 'owe')} {say.object(ev.payee)}"
    return f"due: {between} {ev.chips} chips ({ev.points} points, {ev.reason})"


@_tells(E.PaymentRecorded)
def _paid(ev: E.PaymentRecorded, say: _Say) -> str:
    note = f" ({ev.note})" if ev.note else ""
    if say.viewer is None:
        return f"paid: {say.name(ev.payer)} -> {say.name(ev.payee)} {ev.chips} chips{note}"
    between = f"{say.subject(ev.payer, 'pay')} {say.object(ev.payee)}"
    return f"paid: {between} {ev.chips} chips{note}"


# --- told alike to everyone, players by name ------------------------------------------------


@_tells(E.GameStarted)
def _game_started(ev: E.GameStarted, say: _Say) -> str:
    seats = ", ".join(f"{pl.name} (seat {i})" for i, pl in enumerate(ev.players))
    name = ev.ruleset.get("name", "?")
    return f"game started: {seats}; ruleset {name}; stake {ev.stake} per point"


@_tells(E.DealerDrawn)
def _dealer_drawn(ev: E.DealerDrawn, say: _Say) -> str:
    draws = ", ".join(f"{say.name(d.seat)} {say.p.card(d.card)}" for d in ev.draws)
    when = "by night the lowest month deals" if ev.night else "by day the highest deals"
    head = f"draw for the first deal: {draws} ({when})"
    if ev.dealer is None:
        return f"{head}: a tie, the tied seats draw again"
    if ev.by_lot:
        return f"{head}: a tie; by lot, {say.acts(ev.dealer, 'deal')}"
    return f"{head}: {say.acts(ev.dealer, 'deal')}"


@_tells(E.ChipsCounted)
def _chips(ev: E.ChipsCounted, say: _Say) -> str:
    return "chips on the table: " + ", ".join(f"{say.name(s)} {c}" for s, c in enumerate(ev.chips))


@_tells(E.SeatsSatOut)
def _sat_out(ev: E.SeatsSatOut, say: _Say) -> str:
    how = "in turn order from the dealer" if ev.rule == "turn_order" else "by choice"
    return f"sitting out this hand ({how}): {', '.join(say.name(s) for s in ev.seats)}"


@_tells(E.BrightsSold)
def _brights_sold(ev: E.BrightsSold, say: _Say) -> str:
    n = len(ev.cards)
    sells = say.acts(ev.seat, "sell")
    return f"gwang-pali: {sells} {n} bright{'s' * (n != 1)} {say.p.cards(ev.cards)}"


@_tells(E.PaymentCapped)
def _capped(ev: E.PaymentCapped, say: _Say) -> str:
    whose = "what the loser holds" if ev.cap == "loser_holdings" else "the winner's chips"
    return (
        f"capped at {whose}: {say.acts(ev.payer, 'pay')} {say.name(ev.payee)} {ev.paid} of "
        f"{ev.due} chips (short {ev.due - ev.paid})"
    )


@_tells(E.SittingEnded)
def _sitting_ended(ev: E.SittingEnded, say: _Say) -> str:
    broke = ", ".join(say.name(s) for s in ev.seats)
    return say.p.mark(f"the sitting is over: {broke} has no chips left", "outcome")


@_tells(E.DealVoided)
def _deal_voided(ev: E.DealVoided, say: _Say) -> str:
    if ev.reason == "layout_four":
        return f"the deal does not stand: four of month {ev.month:02d} on the layout"
    return "the deal does not stand: every player holds a four"


@_tells(E.GameClosed)
def _closed(ev: E.GameClosed, say: _Say) -> str:
    why = f" ({ev.note})" if ev.note else ""
    return say.p.mark(f"the night is closed, no hand follows{why}", "outcome")


@_tells(E.SettlementProposed)
def _settlement(ev: E.SettlementProposed, say: _Say) -> str:
    return "settlement: " + settlement_words(say.players, ev.totals, ev.paid, ev.transfers)


@_tells(E.SettlementPaid)
def _settled(ev: E.SettlementPaid, say: _Say) -> str:
    note = f" ({ev.note})" if ev.note else ""
    return f"settled: {say.acts(ev.payer, 'pay')} {say.name(ev.payee)} {ev.chips}{note}"


@_tells(E.NoteAdded)
def _note(ev: E.NoteAdded, say: _Say) -> str:
    about = f" (about seq {ev.about_seq})" if ev.about_seq else ""
    return f"note{about}: {ev.text}"


@_tells(E.EntryRetracted)
def _retracted(ev: E.EntryRetracted, say: _Say) -> str:
    why = f" ({ev.reason})" if ev.reason else ""
    return f"undo: the entry at seq {ev.seq} is retracted{why}"


def _fingerprint(key: str) -> str:
    from ..errors import GostopError
    from ..integrity.signing import PublicKey

    try:
        return PublicKey.from_text(key).fingerprint
    except GostopError:  # an unreadable key is named as such; the checks report it
        return "an unreadable key"


@_tells(E.KeyAdded)
def _key_added(ev: E.KeyAdded, say: _Say) -> str:
    return f"recorder key {_fingerprint(ev.key)} added, held by {ev.holder}"


@_tells(E.ResultCountersigned)
def _countersigned(ev: E.ResultCountersigned, say: _Say) -> str:
    fp = _fingerprint(ev.key)
    return f"{say.name(ev.seat)} countersigns the record up to seq {ev.head_seq} with key {fp}"


@_tells(E.CheckpointSigned)
def _checkpoint(ev: E.CheckpointSigned, say: _Say) -> str:
    return f"checkpoint: the record up to seq {ev.head_seq} signed by key {ev.key}"


@_tells(E.PersonRenamed)
def _renamed(ev: E.PersonRenamed, say: _Say) -> str:
    return f"person {ev.person} is renamed"


@_tells(E.PersonsMerged)
def _merged(ev: E.PersonsMerged, say: _Say) -> str:
    return f"person {ev.person}'s games count for person {ev.into} from now on"


@_tells(E.PersonForgotten)
def _forgotten(ev: E.PersonForgotten, say: _Say) -> str:
    return f"person {ev.person} is forgotten: their names can no longer be read"


# --- an input as the record states it, for an audit -----------------------------------------


def _taking(ev: E.CardPlayed | E.CardFlipped) -> str:
    return f" onto {ev.chosen}" if ev.chosen else ""


#: Each input class's sentence for an audit: seats by number, past tense (what the table did).
_RECORDED: dict[type, Callable[[Any], str]] = {
    E.CardPlayed: lambda ev: f"seat {ev.seat} played {ev.card}{_taking(ev)}",
    E.CardFlipped: lambda ev: f"seat {ev.seat} turned {ev.card}{_taking(ev)}",
    E.BombPlayed: lambda ev: (
        f"seat {ev.seat} bombed month {ev.month:02d} with {' '.join(ev.cards)}"
    ),
    E.Shaken: lambda ev: f"seat {ev.seat} shook month {ev.month:02d} ({' '.join(ev.cards)})",
    E.FourKept: lambda ev: f"seat {ev.seat} kept a four of a month in hand and played on",
    E.ShakeDeclined: lambda ev: f"seat {ev.seat} declined to shake month {ev.month:02d}",
    E.FlipOnlyPlayed: lambda ev: f"seat {ev.seat} took a flip-only turn",
    E.GoCalled: lambda ev: f"seat {ev.seat} called Go number {ev.count} at {ev.score}",
    E.StopCalled: lambda ev: f"seat {ev.seat} called Stop at {ev.score}",
    E.CupAssigned: lambda ev: f"seat {ev.seat} counted the cup as {ev.role}",
    E.PaymentRecorded: lambda ev: f"seat {ev.payer} paid seat {ev.payee} {ev.chips} chips",
    E.SettlementPaid: lambda ev: (
        f"seat {ev.payer} paid seat {ev.payee} {ev.chips} chips in the settlement"
    ),
    E.GameClosed: lambda ev: "closed the night",
    E.BrightsSold: lambda ev: f"seat {ev.seat} sold {' '.join(ev.cards)}",
    E.DealerDrawn: lambda ev: (
        "drew "
        + ", ".join(f"seat {d.seat} {d.card}" for d in ev.draws)
        + (f" (a tie: by lot, seat {ev.dealer} deals)" if ev.by_lot else "")
    ),
    E.ChipsCounted: lambda ev: (
        "counted chips " + ", ".join(f"seat {s} {c}" for s, c in enumerate(ev.chips))
    ),
}


def recorded(ev: Any) -> str:
    """An input as the record states it, for an audit: "seat 1 played 07R" (seats by number,
    past tense: what the table did). An input with no sentence of its own (the deal, a note)
    is named by its type."""
    say = _RECORDED.get(type(ev))
    return say(ev) if say is not None else E.event_type(ev).replace("_", " ")
