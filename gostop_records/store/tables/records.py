"""The record tables: ``events``, the store's chain of heads (``heads``) and the people record
(``person_events``, ``people``, ``person_keys``): never rebuilt, except ``people``, which
``person_events`` says again on every append."""

from typing import Annotated

import msgspec
from msgspec import Struct

from .fields import Big, Json, about, table_row

__all__ = ["EventRow", "HeadRow", "PersonEventRow", "PersonKeyRow", "PersonRow"]


class EventRow(Struct):
    """The record: one row per envelope of a game's log, the payload exactly as it was hashed. Key
    (`game_id`, `seq`), the one declared primary key; every other table is derived from these
    rows.
    """

    game_id: Annotated[str, about("the game (one stream per game)")]
    seq: Annotated[int, about("position in the game's stream: 1, 2, 3 ..., dense")]
    type: Annotated[
        str,
        about("the payload's type tag, e.g. `'card_played'` (see [The event format](events.md))"),
    ]
    hand: Annotated[
        int,
        about(
            "hand number within the game, from 1; NULL for game-level events such as `game_started`"
        ),
    ]
    at: Annotated[
        str,
        about(
            "when it happened at the table: RFC 3339 UTC text, e.g. "
            "`'2026-01-08T00:00:08.000Z'`; a reserved word, write `\"at\"` (parsed in "
            "`v_events.at_ts`)"
        ),
    ]
    recorded_at: Annotated[str, about("when it was recorded, same format as `at`")]
    by: Annotated[
        str,
        about(
            "who or what recorded it: a recorder's name, `'sim'`, `'play'`, `'import:...'`; a "
            'reserved word, write `"by"`'
        ),
    ]
    v: Annotated[int, about("the payload's schema version (older payloads are upcast on read)")]
    payload: Annotated[
        Json,
        about(
            "the event's payload as JSON, exactly as hashed, with its `type`; read a field with"
            " `payload ->> 'seat'`"
        ),
    ]
    hash: Annotated[
        str,
        about(
            "SHA-256 (64 hex digits) of the envelope's prev (the `hash` of the game's event "
            "before, 64 zeros for `seq` 1; not stored, `v_events.prev` shows it) and the "
            "canonical bytes of every other envelope field: the hash chain `gostop db verify` "
            "checks"
        ),
    ]


class HeadRow(Struct):
    """The store's own chain of game heads, a record like `events` and never rebuilt: one row per
    live append (a game started, a hand ended or sealed, any other entry), per game imported,
    per loss accepted, per rebuild and per repair, each chained to the one before it, so that a
    game deleted, replaced or cut short is found by `gostop db verify` (see [Seals and
    signatures](seals.md)). Key `entry`.
    """

    entry: Annotated[Big, about("the entry's number: 1, 2, 3 ..., dense")]
    kind: Annotated[
        str,
        about(
            "`'game_appended'` (a game's first live append), `'hand_sealed'` (an append that "
            "ends a hand or holds a signed checkpoint), `'appended'` (any other live append), "
            "`'game_imported'`, `'migrated'` (stored before the chain began, or past its latest"
            " entry when version 4 began chaining every append), `'loss_accepted'`, `'rebuild'`"
            " or `'repaired'` (`gostop db repair`: a game's events the chain missed, and last "
            "the repair's own record), `'people'` (an append to the people record, "
            "`person_events`), `'game_resealed'` (`gostop people upgrade`: a game re-chained "
            "with its names sealed; `detail` keeps its old first and head hashes and, for each "
            "seat given a minted id, its old id sealed under the new person's key)"
        ),
    ]
    game_id: Annotated[
        str, about("the game written; NULL for a rebuild, a repair's record or the people record")
    ]
    seq: Annotated[
        int,
        about(
            "the game's number of events after the write (its last `events.seq`; the people "
            "record's, for its entries); 0 for a rebuild, a repair's record or a game whose "
            "loss was accepted whole"
        ),
    ]
    head: Annotated[
        str, about("`events.hash` of that last event: the game's head; NULL when it has none")
    ]
    recorded_at: Annotated[str, about("when the entry was written (RFC 3339 UTC text)")]
    detail: Annotated[
        str,
        about(
            "JSON text: what a loss, a rebuild or a repair was about (a repair's record: the "
            "games adopted with their seq ranges, each re-linked entry with its old `prev` and "
            "`hash`); NULL otherwise"
        ),
    ]
    prev: Annotated[str, about("`hash` of the entry before; 64 zeros for entry 1")]
    hash: Annotated[
        str,
        about(
            "SHA-256 of `prev` and the entry's other fields: the chain `gostop db verify` checks"
        ),
    ]


class PersonRow(Struct):
    """What the people record says of each person it names, derived from `person_events` again on
    every append and by `gostop db rebuild`: a person seated in games and never renamed or
    merged has no row (see `v_people`). Key `person_id`.
    """

    person_id: Annotated[
        str, about("the person's id, as the games' seats name them (`games.player_ids`)")
    ]
    name: Annotated[
        str,
        about(
            "the name a `person_renamed` gave (sealed in the record, opened here), to show from"
            " then on; NULL when none did"
        ),
    ]
    named_at: Annotated[str, about("when that rename was made (`person_events.at`)")]
    merged_into: Annotated[
        str,
        about("the person a `persons_merged` made this one's games count for; NULL when none did"),
    ]
    counts_for: Annotated[
        str,
        about(
            "the person this one's games count for: `person_id` itself, or the end of its merges"
        ),
    ]
    forgotten: Annotated[
        bool,
        about(
            "a `person_forgotten` forgot the person (or the one they count for): their key is "
            "gone and `name` is `'(forgotten)'`"
        ),
    ]


class PersonKeyRow(Struct):
    """Each person's key (AES-256), under which the names a game recorded into the store holds are
    sealed before the event is hashed: outside every hashed record, never exported. `gostop
    people forget` deletes a person's row, after which nobody can read their name (see
    [Forget](operations.md#forget)). Key `person_id`.
    """

    person_id: Annotated[str, about("the person's id, as the games' seats name them")]
    key: Annotated[bytes, about("32 random bytes: the key of the person's sealed names")]


#: The people record keeps its events as ``events`` keeps a game's.
_PERSON_EVENT_FIELDS = {
    "game_id": Annotated[str, about("always `'people'`: the people record is one stream")],
    "seq": Annotated[int, about("position in the people record: 1, 2, 3 ..., dense")],
    "hand": Annotated[int, about("always NULL")],
}
PersonEventRow = table_row(
    "PersonEventRow",
    """The people record: renames and merges of persons (`person_renamed`, `persons_merged`),
    one stream of its own hash-chained like a game's and never rebuilt; each append adds a
    `heads` entry of kind `'people'`. Key `seq`; the columns are those of `events`, `game_id`
    always `'people'` (see [Players as people](recording.md#players-as-people)).""",
    [(f.name, _PERSON_EVENT_FIELDS.get(f.name, f.type)) for f in msgspec.structs.fields(EventRow)],
)
