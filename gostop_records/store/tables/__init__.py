"""The store's tables as types: one msgspec Struct per table, its fields the columns in
order, each with its description, the class docstring the table's.

Everything else about a table is derived from its row type: the DDL (:mod:`..schema`), the
SQL reference (:mod:`..columns`, rendered into ``docs/sql.md``), the Arrow schema of the
Parquet layout (:func:`..layout.arrow_schema`), the descriptions an export's files carry
(:mod:`..export`) and the positions the row builders fill (:data:`COLUMN_AT`). The bulk
insert reads rows as tuples in column order: a ``hands`` row is built by name as its
Struct and turned into that tuple (``msgspec.structs.astuple``), a ``payouts`` row given
by column name and put in this order; the rows made per event or per seat are built as
tuples directly (cheaper on the import's path), their layout read from here, never
counted by hand.

Writing conventions for the descriptions (a test holds them to these): a name in backticks
is a column of the table or view described, ``table.column``, a table or view, an event
type, ``event_type.field`` or ``rules.setting`` (a :class:`~gostop_records.rules.Ruleset`
field); any other backticked text is a SQL expression or literal that runs on the table
described. Seats are 0-based indices into the game's seat order.
"""

from typing import Final

from msgspec import Struct

from .fields import (
    COMBO_IDS,
    DOKBAK_ID,
    FLAG_IDS,
    SPECIAL_KINDS,
    Columns,
    column_docs,
    sql_columns,
    table_doc,
)
from .hands import (
    CappedPaymentRow,
    CaptureRow,
    DecisionRow,
    HandRow,
    PayoutRow,
    ScoreRow,
    SittingOutRow,
    TransferRow,
    TurnRow,
)
from .records import EventRow, HeadRow, PersonEventRow, PersonKeyRow, PersonRow
from .summaries import (
    CaptureTallyRow,
    GameRow,
    HandSeatRow,
    IssueRow,
    PlayerGameRow,
    PositionRow,
    SeatRow,
    TransferTallyRow,
)

__all__ = [
    "COLUMN_AT",
    "COMBO_IDS",
    "DOKBAK_ID",
    "FLAG_IDS",
    "PROJECTION_ROWS",
    "RECORD_ROWS",
    "ROWS",
    "SPECIAL_KINDS",
    "CappedPaymentRow",
    "CaptureRow",
    "CaptureTallyRow",
    "Columns",
    "DecisionRow",
    "EventRow",
    "GameRow",
    "HandRow",
    "HandSeatRow",
    "HeadRow",
    "IssueRow",
    "PayoutRow",
    "PersonEventRow",
    "PersonKeyRow",
    "PersonRow",
    "PlayerGameRow",
    "PositionRow",
    "ScoreRow",
    "SeatRow",
    "SittingOutRow",
    "TransferRow",
    "TransferTallyRow",
    "TurnRow",
    "column_docs",
    "sql_columns",
    "table_doc",
]

#: The projection tables in the order they are derived.
PROJECTION_ROWS: Final[dict[str, type[Struct]]] = {
    "games": GameRow,
    "hands": HandRow,
    "turns": TurnRow,
    "captures": CaptureRow,
    "transfers": TransferRow,
    "decisions": DecisionRow,
    "scores": ScoreRow,
    "payouts": PayoutRow,
    # the table around the hand: 4-5 seats, gwang-pali, chips, the draw for the first deal
    "sitting_out": SittingOutRow,
    "capped_payments": CappedPaymentRow,
    # per-hand summaries of the rows above, for queries over every hand of a large store
    "capture_tallies": CaptureTallyRow,
    "transfer_tallies": TransferTallyRow,
    "hand_seats": HandSeatRow,
    # per game and seat: the seat's ended hands of ``hand_seats`` summed (the players' views)
    "player_games": PlayerGameRow,
    "seats": SeatRow,
    "issues": IssueRow,
    "positions": PositionRow,
}
#: The record tables: never derived from other rows (``people`` from ``person_events``).
RECORD_ROWS: Final[dict[str, type[Struct]]] = {
    "events": EventRow,
    "heads": HeadRow,
    "person_events": PersonEventRow,
    "people": PersonRow,
    "person_keys": PersonKeyRow,
}
#: Every table of the store.
ROWS: Final[dict[str, type[Struct]]] = {**RECORD_ROWS, **PROJECTION_ROWS}

#: Where each column sits in its table's row tuple.
COLUMN_AT: Final[dict[str, dict[str, int]]] = {
    name: {c: i for i, c in enumerate(row.__struct_fields__)} for name, row in ROWS.items()
}
