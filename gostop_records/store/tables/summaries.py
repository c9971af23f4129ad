"""Rows per game and per seat, and per-hand summaries of the event rows: ``games``,
``capture_tallies``, ``transfer_tallies``, ``hand_seats``, ``player_games``, ``seats``,
``issues``, ``positions``."""

from typing import Annotated

from msgspec import Struct

from .fields import (
    FLAG_IDS,
    SPECIAL_KINDS,
    Big,
    Date,
    GameId,
    HandNo,
    SeatNo,
    Small,
    Tiny,
    about,
    rule_fields,
    table_row,
)

__all__ = [
    "CaptureTallyRow",
    "GameRow",
    "HandSeatRow",
    "IssueRow",
    "PlayerGameRow",
    "PositionRow",
    "SeatRow",
    "TransferTallyRow",
]


def _special_docs() -> list[tuple[str, str]]:
    """What a seat made and suffered of each special play (a shake is a shaken turn)."""
    out = []
    for k in SPECIAL_KINDS:
        column = "shaken" if k == "shake" else k
        out.append((f"{k}_made", f"the seat's turns with {k} (`turns.{column}`)"))
        out.append((f"{k}_suffered", f"the other seats' turns with {k} in the hand"))
    return out


def _flag_docs() -> list[tuple[str, str]]:
    """The seat's payouts rows that carry each multiplier flag, as payer and as payee."""
    return [
        (f"{b}_{side}", f"the seat's `payouts` rows of the hand as {role} that carry `payouts.{b}`")
        for b in FLAG_IDS
        for side, role in (("paid", "payer"), ("received", "payee"))
    ]


class GameRow(Struct):
    """One row per game (one event stream: a sitting of hands with the same players and ruleset),
    from its `game_started` event and the projector's findings. Key `game_id`.
    """

    game_id: GameId
    ruleset: Annotated[str, about("name of the ruleset pinned in `game_started`, e.g. `'matgo'`")]
    ruleset_hash: Annotated[
        str,
        about(
            "content hash of the pinned rules (`'sha256:'` and 64 hex digits): equal for equal "
            "rules whatever their name"
        ),
    ]
    players: Annotated[Tiny, about("number of seats, 2 to 5 (at 4 or 5, three play each hand)")]
    player_ids: Annotated[
        list[str],
        about(
            "player ids in seat order: seat s is element s + 1 (DuckDB lists count from 1), "
            "e.g. `player_ids[1]` for seat 0"
        ),
    ]
    player_names: Annotated[
        list[str], about("display names in seat order, indexed like `player_ids`")
    ]
    stake: Annotated[
        int, about("chips per point: chips anywhere in the store are points times this")
    ]
    venue: Annotated[str, about("`game_started.venue`; NULL when not given")]
    started_at: Annotated[str, about("`events.at` of the game's first event (RFC 3339 UTC text)")]
    started_on: Annotated[Date, about("the UTC date of `started_at`")]
    last_at: Annotated[str, about("`events.at` of the game's last stored event")]
    recorded_by: Annotated[str, about("`events.by` of the game's first event")]
    events: Annotated[
        int, about("number of stored events (the last `events.seq`), retracted ones included")
    ]
    hands: Annotated[int, about("hands started (`hand_started` events not undone by a retraction)")]
    hands_ended: Annotated[
        int, about("hands with a `hand_ended` event (not undone by a retraction)")
    ]
    violations: Annotated[
        int,
        about(
            "the game's `issues` rows with severity `'violation'`; 0 unless the game was stored"
            " leniently"
        ),
    ]


class CaptureTallyRow(Struct):
    """The `captures` rows of each hand counted by `capture_kind`: one row per hand and kind of
    capture it had, so that a question over every hand reads a few rows per hand rather than one
    per card. Key (`game_id`, `hand`, `capture_kind`).
    """

    game_id: GameId
    hand: HandNo
    capture_kind: Annotated[str, about("`captures.capture_kind`")]
    cards: Annotated[Small, about("the hand's `captures` rows of that kind: cards taken")]
    captures: Annotated[Small, about("those whose `captures.position` is 1: captures made")]


class TransferTallyRow(Struct):
    """The `transfers` rows of each hand counted by `reason`: one row per hand and reason junk
    changed hands for in it. Key (`game_id`, `hand`, `reason`).
    """

    game_id: GameId
    hand: HandNo
    reason: Annotated[str, about("`transfers.reason`")]
    cards: Annotated[Small, about("the hand's `transfers` rows for that reason: cards handed over")]
    double_junk: Annotated[Small, about("those whose `transfers.card_kind` is `'double_junk'`")]
    bonus_cards: Annotated[Small, about("those whose `transfers.card_kind` is `'bonus'`")]


class _HandSeatBase(Struct):
    game_id: GameId
    hand: HandNo
    seat: SeatNo
    player_id: Annotated[str, about("the seat's player id (`games.player_ids`)")]
    player_name: Annotated[str, about("the seat's player name (`games.player_names`)")]
    started_at: Annotated[str, about("`hands.started_at`")]
    date: Annotated[Date, about("`hands.date`")]
    ruleset: Annotated[str, about("`hands.ruleset`")]
    outcome: Annotated[str, about("`hands.outcome`; NULL while the hand goes on")]
    ended: Annotated[bool, about("`hands.ended`")]
    checked: Annotated[bool, about("`hands.checked`")]
    won: Annotated[bool, about("the seat won the hand (`hands.winner`), instant wins included")]
    sat_out: Annotated[bool, about("the seat sat the hand out (a `sitting_out` row)")]
    gos: Annotated[
        Small, about("the Gos the seat called in the hand (`decisions` rows of kind `'go'`)")
    ]
    chips: Annotated[
        int,
        about(
            "net chips the rules make due to the seat in the hand: `payouts.chips` received "
            "minus paid (0 for a hand not checked)"
        ),
    ]
    recorded_chips: Annotated[
        int,
        about(
            "net chips recorded: `payouts.recorded_chips` received minus paid, a payment not "
            "recorded counting 0"
        ),
    ]
    payments_received: Annotated[Small, about("`payouts` rows with the seat as payee")]


class _PlayerGameBase(Struct):
    game_id: GameId
    seat: SeatNo
    player_id: Annotated[str, about("`hand_seats.player_id`")]
    player_name: Annotated[str, about("`hand_seats.player_name`")]
    last_started_at: Annotated[
        str, about("the latest `hand_seats.started_at` of the seat's ended hands")
    ]
    hands: Annotated[int, about("ended hands the seat played (not sat out)")]
    hands_sat_out: Annotated[int, about("ended hands the seat sat out")]
    wins: Annotated[int, about("ended hands the seat won")]
    chips: Annotated[Big, about("the sum of `hand_seats.chips` over the ended hands")]
    recorded_chips: Annotated[
        Big, about("the sum of `hand_seats.recorded_chips` over the ended hands")
    ]
    gos: Annotated[int, about("the sum of `hand_seats.gos` over the ended hands")]
    gos_paid_off: Annotated[int, about("the Gos of the ended hands the seat won by a Stop")]


class SeatRow(Struct):
    """One row per seat of a game: hands played and sat out, the chips counted at the start of the
    sitting (`chips_counted`) and held now, and the card it drew for the first deal
    (`dealer_drawn`). Key (`game_id`, `seat`).
    """

    game_id: GameId
    seat: SeatNo
    player_id: Annotated[str, about("the seat's player id (`games.player_ids`)")]
    hands_played: Annotated[int, about("hands started in which the seat played (did not sit out)")]
    hands_sat_out: Annotated[int, about("hands the seat sat out (`sitting_out` rows)")]
    chips_counted: Annotated[
        int,
        about(
            "chips the seat held at the start of the sitting (`chips_counted.chips`); NULL when"
            " the table counted none"
        ),
    ]
    chips_held: Annotated[
        int,
        about(
            "`chips_counted` plus the chips the rules made due to and from the seat so far "
            "(after caps); NULL when the table counted no chips"
        ),
    ]
    broke: Annotated[
        bool, about("whether the sitting ended with this seat out of chips (`sitting_ended`)")
    ]
    draw_card: Annotated[
        str,
        about(
            "the card the seat drew last for the first deal (`dealer_drawn`); NULL when the "
            "first dealer was not drawn"
        ),
    ]
    first_dealer: Annotated[
        bool,
        about(
            "whether the draw made this seat the first dealer; NULL when the first dealer was "
            "not drawn"
        ),
    ]


class IssueRow(Struct):
    """One row per disagreement the projector found between the record and the rules, or per event
    it kept without checking. A strict import or append keeps only warnings; a lenient one
    (`--lenient`) also keeps the violations of the games it stores. No key.
    """

    game_id: GameId
    seq: Annotated[
        int,
        about(
            "the event the issue is about; NULL when it is about the end of the log (e.g. a "
            "consequence missing there)"
        ),
    ]
    hand: Annotated[
        int, about("number of the latest hand started when it was found; 0 before the first hand")
    ]
    rule: Annotated[
        str, about("id of the rule or check, e.g. `'consequence_missing'`, `'unknown_event_type'`")
    ]
    reason: Annotated[str, about("what disagrees, in words")]
    severity: Annotated[
        str,
        about(
            "`'violation'` (the record breaks a rule; after an input the rules refuse, the rest"
            " of its hand is kept unchecked) or `'warning'` (kept but not checked, e.g. an "
            "unknown event type)"
        ),
    ]


class PositionRow(Struct):
    """One row per game: the last event its projection rows were derived through, which equals the
    game's last `events` row when the projections are current. Key `game_id`.
    """

    game_id: GameId
    seq: Annotated[int, about("`seq` of the last event the game's projection rows include")]
    hash: Annotated[str, about("`hash` of that event")]


HandSeatRow = table_row(
    "HandSeatRow",
    """One row per seat of every hand started (a seat sitting out included): what the seat
    made of the hand, summed from the hand's `turns`, `decisions`, `payouts` and
    `sitting_out` rows, with the game's player and the hand's outcome beside them, so that a
    question per player or per winner reads one row per seat and joins nothing
    (`v_player_hands` is its ended hands). Key (`game_id`, `hand`, `seat`).""",
    _HandSeatBase,
    rule_fields(_special_docs(), Small),
    rule_fields(_flag_docs(), Small),
)

PlayerGameRow = table_row(
    "PlayerGameRow",
    """One row per seat of a game with an ended hand: the seat's `hand_seats` rows of ended
    hands summed, so that a player's figures over the whole store (`v_player_stats`) read one
    row per game rather than one per hand. Written with the game's other rows (after a live
    append, from all of the game's `hand_seats` rows). Key (`game_id`, `seat`).""",
    _PlayerGameBase,
    rule_fields(
        (
            (c, f"the sum of `hand_seats.{c}` over the ended hands")
            for c, _ in (*_special_docs(), *_flag_docs())
        ),
        int,
    ),
)
