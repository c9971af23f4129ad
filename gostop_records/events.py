"""Every fact of a game as a typed event, and the envelope that chains them.

One stream per game (a sitting of consecutive hands with the same players and ruleset). Each
line of a log is an :class:`Envelope` whose ``event`` is one payload of the tagged union
:data:`Event`, tagged by ``type``. Payloads are past tense and carry card codes, not indices.

Every payload class derives from its kind, and the kind sets (:data:`INPUT_TYPES`, ...) are
read from the classes. Two kinds of payload, and metadata. *Inputs* (:class:`Input`) are what
a recorder enters at a table or a bot chooses: the deal, each play and flip, choices, shakes,
bombs, Go/Stop, payments. *Consequences* (:class:`Consequence`) are what the rules engine
derives from them: captures, ppuk, junk transfers, payments due, the end of a hand. Both go
into the log, so that a log answers SQL without running the engine; the projector re-derives
every consequence and checks it against the record. *Metadata* (:class:`Metadata`: a
recorder's public key, signed checkpoints, players' countersignatures) vouches for the record
without being part of the game: the projector accepts it anywhere and it changes no rule,
score or payment (see ``integrity.checkpoints``). The people record has events of its own
(:class:`PeopleEvent`), in a stream that is never a game's.

Storage rules (a stored log must stay readable by older and newer readers): no
``array_like``, no ``omit_defaults``, no ``forbid_unknown_fields``, and the tag field stays
``type``. A payload that changes shape gets a new ``v`` and an upcaster in ``log/codec.py``.

Long: fifty small classes, each a line of the log format; the tagged union that holds them
is the format, and one module is where a reader finds it whole.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from .cards import CODES

__all__ = [
    "CONSEQUENCE_TYPES",
    "EVENT_CLASSES",
    "EVENT_TYPES",
    "EVENT_VERSIONS",
    "INPUT_TYPES",
    "METADATA_TYPES",
    "PEOPLE_TYPES",
    "BombPlayed",
    "BonusCardTaken",
    "BrightsSold",
    "CardCode",
    "CardFlipped",
    "CardPlayed",
    "CardsCaptured",
    "CardsDealt",
    "CheckpointSigned",
    "ChipsCounted",
    "Consequence",
    "CupAssigned",
    "DealVoided",
    "DealerDraw",
    "DealerDrawn",
    "EntryRetracted",
    "Envelope",
    "Event",
    "FlipOnlyPlayed",
    "FourKept",
    "FourOfAMonthShown",
    "FourShown",
    "GameClosed",
    "GameStarted",
    "GoCalled",
    "HandEnded",
    "HandStarted",
    "Input",
    "JunkTransferred",
    "KeyAdded",
    "Metadata",
    "NoteAdded",
    "PaymentCapped",
    "PaymentDue",
    "PaymentRecorded",
    "PeopleEvent",
    "PersonForgotten",
    "PersonRenamed",
    "PersonsMerged",
    "Player",
    "PpukMade",
    "ResultCountersigned",
    "SeatsSatOut",
    "SettlementPaid",
    "SettlementProposed",
    "SettlementTransfer",
    "ShakeDeclined",
    "Shaken",
    "SittingEnded",
    "StopCalled",
    "UnknownEvent",
]

#: A card code as it appears in logs: canonical upper case (``01G``, ``11D``, ``B2``).
CardCode = Literal[CODES]  # type: ignore[valid-type]
Seat = Annotated[int, Meta(ge=0, le=4, description="Seat index in the game's seat order, from 0")]
Month = Annotated[int, Meta(ge=1, le=12)]
Count = Annotated[int, Meta(ge=0)]
Chips = Annotated[int, Meta(ge=0)]

CaptureKind = Literal[
    "pair",  # a card taken with one of its month
    "stack",  # a stack dealt to the layout taken with the fourth card
    "ppuk_taken",  # another player's ppuk taken with the fourth card
    "own_ppuk",  # the player's own ppuk taken back (ja-ppuk)
    "ttadak",  # two on the layout, played and flipped of the same month: all four
    "jjok",  # the flip takes the card just played to an empty month
    "last_turn_three",  # would have been ppuk, but on the last turn: all three taken
    "bomb",  # three (or two) from hand with the rest of the month from the layout
    "bonus",  # a bonus card, taken at once
]
CaptureSource = Literal["hand", "flip", "hand_and_flip"]
TransferReason = Literal[
    "jjok", "ttadak", "sseul", "stack", "ppuk_taken", "own_ppuk", "bomb", "bonus"
]
HandOutcome = Literal["stop", "instant", "nagari", "void"]
PaymentReason = Literal[
    "stop",
    "hand_four",
    "three_ppuk",
    "first_ppuk",
    "first_ttadak",
    "layout_four",
    "gwang_pali",
    "hudang",
]


# gc=False: the collector does not track events. They hold only text, numbers, lists of
# text and other events, so they cannot form a cycle, and a replay makes millions of them:
# tracked, they set off collections that walk every live object again and again.


class _Payload(Struct, tag_field="type", frozen=True, gc=False):
    """Base of every payload: tagged by ``type``, immutable."""


# The kinds. Each payload class derives from exactly one; the sets of type names below are
# read from the classes, so a new payload is of a kind by being declared, nowhere else. The
# kind classes carry no fields and no tag of their own: a payload's bytes are its own.


class Input(_Payload):
    """What a recorder enters at a table or a bot chooses; the engine checks it and derives
    the consequences. ``stop_called`` with ``auto`` is the one input class whose instances
    can be consequences (see :func:`is_input`)."""


class Consequence(_Payload):
    """What the rules derive from the inputs; the projector re-derives each and checks it."""


class Metadata(_Payload):
    """Vouches for the record without being part of the game (keys and signatures): the
    projector accepts it anywhere and it changes no rule, score or payment."""


class PeopleEvent(_Payload):
    """An event of the people record, a stream of its own (see ``people``), never a game's."""


class Player(Struct, frozen=True, gc=False):
    """A seat's person: ``id`` names the person across games and names (``people``); a
    seat without one is given an id made from its name (``people.derived_person_id``)."""

    id: str = ""
    name: str = ""


class FourShown(Struct, frozen=True, gc=False):
    seat: Seat
    month: Month
    cards: list[CardCode]


# --- game and hand -----------------------------------------------------------------------


class GameStarted(Input, tag="game_started"):
    """Input. The resolved ruleset (every rule, name and hash), seats, stake per point."""

    ruleset: dict[str, Any]
    players: list[Player]
    stake: Chips = 1
    venue: str | None = None
    notes: str | None = None


class HandStarted(Input, tag="hand_started"):
    """Input. Who deals (and plays first), the turn order; the shuffled deck when known."""

    hand: Annotated[int, Meta(ge=1)]
    dealer: Seat
    order: list[Seat]
    deck: list[CardCode] | None = None


class CardsDealt(Input, tag="cards_dealt"):
    """Input. Each seat's hand (null when unknown), the face-up layout, the stock if known.

    ``layout`` is the layout after bonus cards dealt face up were replaced; ``bonus_to_pile``
    lists those bonus cards, which went to the first player's pile.
    """

    hands: list[list[CardCode] | None]
    layout: list[CardCode]
    stock: list[CardCode] | None = None
    bonus_to_pile: list[CardCode] = []


class DealVoided(Consequence, tag="deal_voided"):
    """Consequence. The deal does not stand (four of a month on the layout, ...)."""

    reason: Literal["layout_four", "hand_fours"]
    month: Month | None = None


class FourOfAMonthShown(Input, tag="four_of_a_month_shown"):
    """Input. Players dealt four of a month show them (chongtong), before the first play."""

    shown: list[FourShown]


class ShakeDeclined(Input, tag="shake_declined"):
    """Input. Asked to shake once their card is chosen (``shake_asked``), the player holding
    three of its month declines; an accepted shake is a ``shaken`` of that month."""

    seat: Seat
    month: Month


class FourKept(Input, tag="four_kept"):
    """Input. The holder of four of a month in hand keeps it and plays on (들고치기,
    ``hand_four_keep``) rather than show it and win: their own decision, recorded when it is
    made (p2p asks the holder before anyone plays). A play while the four waits keeps it too."""

    seat: Seat


# --- seats, chips and the first dealer ---------------------------------------------------


class DealerDraw(Struct, frozen=True, gc=False):
    seat: Seat
    card: CardCode


class DealerDrawn(Input, tag="dealer_drawn"):
    """Input. 밤일낮장: each seat draws a card for the first deal; by ``night`` the lowest
    month deals, by day the highest. ``dealer`` is null when the deciding month is tied:
    the tied seats draw again (another ``dealer_drawn`` among them). ``by_lot``: a tie after
    which the ruleset chooses among the tied seats by lot (``draw_ties_by_lot``); ``dealer``
    names the seat the lot chose."""

    draws: list[DealerDraw]
    night: bool
    dealer: Seat | None
    by_lot: bool = False


class ChipsCounted(Input, tag="chips_counted"):
    """Input. The chips each seat holds at the start of the sitting, before the first hand."""

    chips: list[Chips]


class SeatsSatOut(Consequence, tag="seats_sat_out"):
    """Consequence. With 4 or 5 seats, the seats that sit out this hand (not in
    ``hand_started.order``), and the ruleset's rule that chose them."""

    seats: list[Seat]
    rule: Literal["turn_order", "choice"]


class BrightsSold(Input, tag="brights_sold"):
    """Input. Gwang-pali: a seat sitting out sells the brights in its hand, after the deal
    and before the first play; each player of the hand pays it (``payment_due``)."""

    seat: Seat
    cards: list[CardCode]


class PaymentCapped(Consequence, tag="payment_capped"):
    """Consequence. A due the chips on the table limit: ``paid`` of ``due`` chips, the
    shortfall ``due - paid``; ``cap`` names the limit (the loser's or the winner's chips)."""

    payer: Seat
    payee: Seat
    due: Chips
    paid: Chips
    cap: Literal["loser_holdings", "winner_holdings"]


class SittingEnded(Consequence, tag="sitting_ended"):
    """Consequence. The sitting is over: ``seats`` have no chips left (end_when_broke)."""

    seats: list[Seat]
    reason: Literal["broke"] = "broke"


# --- a turn --------------------------------------------------------------------------------


class Shaken(Input, tag="shaken"):
    """Input. Heundeum: a player shows three cards of a month."""

    seat: Seat
    month: Month
    cards: list[CardCode]


class BombPlayed(Input, tag="bomb_played"):
    """Input. A player plays three (or two) cards of a month to take the rest of it."""

    seat: Seat
    month: Month
    cards: list[CardCode]


class CardPlayed(Input, tag="card_played"):
    """Input. A hand card played; ``chosen`` is the layout card taken when two match."""

    seat: Seat
    card: CardCode
    chosen: CardCode | None = None


class FlipOnlyPlayed(Input, tag="flip_only_played"):
    """Input. A turn with no hand card (one of the turns a bomb leaves)."""

    seat: Seat


class CardFlipped(Input, tag="card_flipped"):
    """Input. The stock card turned; ``chosen`` is the layout card taken when two match."""

    seat: Seat
    card: CardCode
    chosen: CardCode | None = None


class BonusCardTaken(Consequence, tag="bonus_card_taken"):
    """Consequence. A bonus card goes to a pile; ``replacement`` is the card drawn for it."""

    seat: Seat
    card: CardCode
    source: Literal["hand", "flip", "layout"]
    replacement: CardCode | None = None


class CardsCaptured(Consequence, tag="cards_captured"):
    """Consequence. Cards a player takes into their pile, one group per event."""

    seat: Seat
    cards: list[CardCode]
    source: CaptureSource
    kind: CaptureKind


class PpukMade(Consequence, tag="ppuk_made"):
    """Consequence. Three of a month left on the layout as a stack owned by ``seat``."""

    seat: Seat
    month: Month
    cards: list[CardCode]
    count: Annotated[int, Meta(ge=1)]


class JunkTransferred(Consequence, tag="junk_transferred"):
    """Consequence. One junk card handed from one pile to another, with the reason."""

    from_seat: Seat
    to_seat: Seat
    card: CardCode
    reason: TransferReason


class CupAssigned(Input, tag="cup_assigned"):
    """Input. The September cup's holder decides it counts as animal or as double junk."""

    seat: Seat
    role: Literal["animal", "junk"]


class GoCalled(Input, tag="go_called"):
    """Input. Go; ``count`` is the Go number in this hand and ``score`` the combination score."""

    seat: Seat
    count: Annotated[int, Meta(ge=1)]
    score: Count


class StopCalled(Input, tag="stop_called"):
    """Input when chosen; a consequence when ``auto`` (qualifying on one's last turn)."""

    seat: Seat
    score: Count
    auto: bool = False


class HandEnded(Consequence, tag="hand_ended"):
    """Consequence. How the hand ended; ``carry`` multiplied its payments, ``next_carry`` is
    the nagari factor the next hand starts with."""

    outcome: HandOutcome
    winner: Seat | None
    reason: str
    carry: Annotated[int, Meta(ge=1)] = 1
    next_carry: Annotated[int, Meta(ge=1)] = 1


class PaymentDue(Consequence, tag="payment_due"):
    """Consequence. What the rules make one player owe another (settlement or instant)."""

    payer: Seat
    payee: Seat
    points: Count
    chips: Chips
    reason: PaymentReason


class PaymentRecorded(Input, tag="payment_recorded"):
    """Input. What the table actually paid (or a player claims), to be audited."""

    payer: Seat
    payee: Seat
    chips: Chips
    note: str | None = None


class NoteAdded(Input, tag="note_added"):
    """Input. Free text, optionally about an earlier seq."""

    text: str
    about_seq: Annotated[int, Meta(ge=1)] | None = None


class EntryRetracted(Input, tag="entry_retracted"):
    """Input. Undo of the latest input entry (``seq``): compensating, never an edit."""

    seq: Annotated[int, Meta(ge=1)]
    reason: str | None = None


# --- the night's settlement (see ``engine/night.py``) --------------------------------------


class GameClosed(Input, tag="game_closed"):
    """Input. The recorder closes the night: no hand follows; the rules derive the
    settlement (``settlement_proposed``) and the table pays it (``settlement_paid``)."""

    note: str | None = None


class SettlementTransfer(Struct, frozen=True, gc=False):
    """One transfer of a settlement: ``payer`` pays ``payee`` ``chips``."""

    payer: Seat
    payee: Seat
    chips: Chips


class SettlementProposed(Consequence, tag="settlement_proposed"):
    """Consequence. The night's settlement when it is closed, per seat in seat order:
    ``totals`` the net chips over all hands (the dues, after caps; positive: won), ``paid``
    the net chips recorded as paid during the night (``payment_recorded``), ``owed`` totals
    minus paid; ``transfers`` square ``owed`` (largest debtor to largest creditor, at most
    one fewer than the seats)."""

    totals: list[int]
    paid: list[int]
    owed: list[int]
    transfers: list[SettlementTransfer]


class SettlementPaid(Input, tag="settlement_paid"):
    """Input. A transfer of the settlement as the table paid it; one that differs from the
    proposal (another amount or pair) carries a ``note`` saying why."""

    payer: Seat
    payee: Seat
    chips: Chips
    note: str | None = None


# --- metadata: keys and signatures (see ``integrity.checkpoints``) ------------------------

Base64 = Annotated[str, Meta(pattern=r"^[A-Za-z0-9+/]+={0,2}$")]
Hex64 = Annotated[str, Meta(pattern=r"^[0-9a-f]{64}$")]


class KeyAdded(Metadata, tag="key_added"):
    """Metadata. A recorder's Ed25519 public key joins the record: the checkpoints it signs
    can be checked by anyone holding the log. ``key`` is the raw 32-byte key in base64,
    ``holder`` who keeps the private key (a recorder's name, a device, the service)."""

    key: Base64
    holder: str
    algorithm: Literal["ed25519"] = "ed25519"


class CheckpointSigned(Metadata, tag="checkpoint_signed"):
    """Metadata. The recorder signs the head of the record: ``head`` is the hash of the
    event at ``head_seq``, which the hash chain ties to every event before it. ``key`` is
    the fingerprint of a key added earlier; ``signature`` the Ed25519 signature (base64)."""

    head_seq: Annotated[int, Meta(ge=1)]
    head: Hex64
    key: str
    signature: Base64


class ResultCountersigned(Metadata, tag="result_countersigned"):
    """Metadata. A player signs a checkpoint's head (a hand's result) with their own key:
    ``key`` is the player's public key (base64), ``signature`` covers the game, the seat,
    ``head_seq`` and ``head``."""

    seat: Seat
    head_seq: Annotated[int, Meta(ge=1)]
    head: Hex64
    key: Base64
    signature: Base64


# --- the people record (see ``people``): a stream of its own, not a game's ---------------


class PersonRenamed(PeopleEvent, tag="person_renamed"):
    """People. The name shown for a person from now on; each game keeps the name its
    table gave (``game_started``)."""

    person: str
    name: str


class PersonsMerged(PeopleEvent, tag="persons_merged"):
    """People. Two ids turn out to be one person: ``person``'s games count for ``into``'s
    from now on (both stay in the games as recorded)."""

    person: str
    into: str


class PersonForgotten(PeopleEvent, tag="person_forgotten"):
    """People. A person asked to be forgotten: their key is deleted, so no name sealed under
    it (``game_started``, ``person_renamed``) can be read again; the games stay, byte for
    byte, under their id. Names nobody."""

    person: str


Event = (
    GameStarted
    | DealerDrawn
    | ChipsCounted
    | HandStarted
    | SeatsSatOut
    | BrightsSold
    | PaymentCapped
    | SittingEnded
    | CardsDealt
    | DealVoided
    | FourOfAMonthShown
    | FourKept
    | Shaken
    | ShakeDeclined
    | BombPlayed
    | CardPlayed
    | FlipOnlyPlayed
    | CardFlipped
    | BonusCardTaken
    | CardsCaptured
    | PpukMade
    | JunkTransferred
    | CupAssigned
    | GoCalled
    | StopCalled
    | HandEnded
    | PaymentDue
    | PaymentRecorded
    | NoteAdded
    | EntryRetracted
    | GameClosed
    | SettlementProposed
    | SettlementPaid
    | KeyAdded
    | CheckpointSigned
    | ResultCountersigned
    | PersonRenamed
    | PersonsMerged
    | PersonForgotten
)

EVENT_CLASSES: tuple[type[_Payload], ...] = Event.__args__  # type: ignore[attr-defined]
EVENT_TYPES: dict[str, type[_Payload]] = {
    cls.__struct_config__.tag: cls
    for cls in EVENT_CLASSES  # type: ignore[misc]
}
#: Current payload version per type; a stored payload with a lower ``v`` is upcast on read.
EVENT_VERSIONS: dict[str, int] = dict.fromkeys(EVENT_TYPES, 1)


def _tags_of(kind: type[_Payload]) -> frozenset[str]:
    return frozenset(tag for tag, cls in EVENT_TYPES.items() if issubclass(cls, kind))


#: Entered or chosen (``stop_called`` too: a consequence only when ``auto`` is true).
INPUT_TYPES: frozenset[str] = _tags_of(Input)
#: Keys and signatures: neither input nor consequence; the rules ignore them.
METADATA_TYPES: frozenset[str] = _tags_of(Metadata)
#: The people record's events (a stream of their own, never a game's: see ``people``).
PEOPLE_TYPES: frozenset[str] = _tags_of(PeopleEvent)
#: Derived by the engine; ``stop_called`` is a consequence only when ``auto`` is true.
CONSEQUENCE_TYPES: frozenset[str] = _tags_of(Consequence) | {"stop_called"}


class UnknownEvent(Struct, frozen=True):
    """A payload of a type this version does not know: kept as read, never dropped."""

    type: str
    payload: dict[str, Any]


def _doc(text: str) -> Meta:
    """A field's description, for the JSON Schema (no constraint: decoding is unchanged)."""
    return Meta(description=text)


class Envelope(Struct, frozen=True, gc=False):
    """One line of a log: where the event sits in its stream, when, by whom, and its hash.

    ``hash = sha256(prev + canonical bytes of every other field)``; a game's first ``prev``
    is 64 zeros. ``hand`` is null for game-level events.
    """

    game_id: Annotated[
        str, _doc("The stream: a sitting of consecutive hands with the same players and ruleset.")
    ]
    seq: Annotated[
        int, Meta(ge=1, description="Position in the game's stream: 1, 2, 3 ... with no gaps.")
    ]
    hand: Annotated[
        Annotated[int, Meta(ge=1)] | None,
        _doc("Hand number within the game; null for game-level events."),
    ]
    at: Annotated[
        str,
        _doc(
            "When it happened at the table (RFC 3339; may be historical for back-filled records)."
        ),
    ]
    recorded_at: Annotated[str, _doc("When it was recorded (RFC 3339 UTC).")]
    by: Annotated[
        str, _doc("Who or what recorded it: a recorder's name, a device, sim, import:<source>.")
    ]
    v: Annotated[
        int,
        Meta(ge=1, description="Schema version of the payload; older payloads are upcast on read."),
    ]
    event: Annotated[Event, _doc("The typed payload, tagged by its type field.")]
    prev: Annotated[
        str, _doc("Hash of the previous event of the game; 64 zeros for the first.")
    ] = ""
    hash: Annotated[
        str,
        _doc(
            "sha256 hex of prev followed by the canonical bytes (compact JSON, keys sorted at "
            "every depth) of every field except prev and hash."
        ),
    ] = ""

    @property
    def type(self) -> str:
        ev = self.event
        if isinstance(ev, UnknownEvent):
            return ev.type
        return ev.__struct_config__.tag  # type: ignore[return-value]


def event_type(event: Any) -> str:
    """The ``type`` tag of a payload (typed or unknown)."""
    if isinstance(event, UnknownEvent):
        return event.type
    return event.__struct_config__.tag  # type: ignore[no-any-return]


#: The input classes whose every instance is an input (all but ``StopCalled``).
_INPUT_CLASSES: frozenset[type] = frozenset(
    cls for cls in EVENT_CLASSES if issubclass(cls, Input) and cls is not StopCalled
)


def is_input(event: Any) -> bool:
    """Whether a payload is an input (entered or chosen) rather than a derived consequence."""
    t = type(event)
    if t in _INPUT_CLASSES:
        return True
    if t is StopCalled:
        return not event.auto
    return False


def is_metadata(event: Any) -> bool:
    """Whether a payload is metadata (a key or a signature), which the rules ignore."""
    return isinstance(event, Metadata)


def payload_to_dict(event: Any) -> dict[str, Any]:
    """The JSON-ready dict of a payload, ``type`` first (unknown payloads as read)."""
    if isinstance(event, UnknownEvent):
        return dict(event.payload)
    return msgspec.to_builtins(event)  # type: ignore[no-any-return]
