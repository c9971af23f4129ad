"""Schema migrations: the steps that bring a store file written by an older version up to
:data:`~.schema.SCHEMA_VERSION`.

:data:`MIGRATIONS` maps a version to the step that brings a file from it to the next one,
and the steps run in order, each in its own transaction, until the version this code
writes; then the views are made again over the tables as they now stand (a step adds tables
and columns, never views, since a view of the current schema may read a column a later step
adds).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from .errors import StoreError
from .heads import adopt, adopt_tails
from .schema import (
    PREV_SQL,
    SCHEMA_VERSION,
    VIEWS,
    create_schema,
    create_tables,
    create_views,
    file_version,
    heads_ddl,
    people_ddl,
    set_version,
)

if TYPE_CHECKING:
    import duckdb

__all__ = ["MIGRATIONS", "Migration", "migrate"]


def _v0_to_v1(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 0 is a bare ``events`` table: add the projection tables (the views of the
    current schema are made once the last step has run).

    The projection rows themselves are derived by the store after the migration (every
    game is then behind its position).
    """
    create_tables(conn)


def _v1_to_v2(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 2 numbers the cards of a capture (``captures.position``), so that captures
    are counted with one scan instead of a distinct count over millions of rows. The store
    derives the rows again after the migration."""
    columns = {r[0] for r in conn.execute("DESCRIBE captures").fetchall()}
    if "position" not in columns:
        conn.execute("ALTER TABLE captures ADD COLUMN position TINYINT")


def _v2_to_v3(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 3 keeps the store's own chain of game heads (``heads``), which begins with an
    entry for every game already stored."""
    conn.execute(heads_ddl())
    adopt(conn)


def _v3_to_v4(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 4 chains every live append, not only hand ends: the games whose events go
    on past their latest entry get one now (:func:`.heads.adopt_tails`)."""
    adopt_tails(conn)


def _v4_to_v5(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 5 adds the tables of the table around the hand (``sitting_out``,
    ``capped_payments``, ``seats``); the store derives the rows again after the migration."""
    create_tables(conn)


def _v5_to_v6(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 6 adds per-hand summaries of the projection rows (``capture_tallies``,
    ``transfer_tallies``, ``hand_seats``) and reads the player views from ``hand_seats``;
    the store derives the rows again after the migration."""
    create_tables(conn)


def _v6_to_v7(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 7 says on each ``decisions`` row whether the deciding seat won the hand by a
    Stop (``won_by_stop``), so that counting the Gos that paid off needs no join with
    ``hands``; puts the game's ruleset and the payer's and payee's names on each
    ``payouts`` row, so that ``v_payout_disputes`` reads no ``games``; and sums each game's
    ``hand_seats`` per seat (``player_games``) for the players' views. The store derives the
    rows again after the migration."""
    create_tables(conn)
    added = (
        ("decisions", "won_by_stop", "BOOLEAN"),
        ("payouts", "ruleset", "VARCHAR"),
        ("payouts", "payer_name", "VARCHAR"),
        ("payouts", "payee_name", "VARCHAR"),
    )
    for table, column, kind in added:
        columns = {r[0] for r in conn.execute(f"DESCRIBE {table}").fetchall()}
        if column not in columns:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def _v7_to_v8(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 8 no longer stores ``events.prev``, the ``hash`` of the game's event before
    (``lag(hash)`` gives it back; ``v_events`` shows it). A stored ``prev`` that is not that
    hash is a broken chain: the step refuses, leaving the file as it is, rather than drop
    the one column that shows the break."""
    columns = {r[0] for r in conn.execute("DESCRIBE events").fetchall()}
    if "prev" not in columns:
        return
    broken = conn.execute(
        f"""SELECT game_id, seq FROM (SELECT game_id, seq, prev, {PREV_SQL} AS chained
                                      FROM events)
            WHERE prev IS DISTINCT FROM chained ORDER BY game_id, seq LIMIT 1"""
    ).fetchall()
    if broken:
        gid, seq = broken[0]
        raise StoreError(
            f"game {gid!r} seq {seq}: the stored prev is not the hash of the event before it, "
            "so the file cannot be upgraded to schema version 8 (which no longer stores prev): "
            "the chain is broken (gostop db verify with the version that wrote it says where)"
        )
    conn.execute("ALTER TABLE events DROP COLUMN prev")


def _v8_to_v9(conn: duckdb.DuckDBPyConnection) -> None:
    """Version 9 keeps the people record (``person_events``, ``people``): players as
    persons, renamed and merged by events; and each person's key (``person_keys``), under
    which the names of the games recorded from now on are sealed. A file before it has no
    renames, merges or keys, so all three start empty; the player views read ``people``
    from now on."""
    people_ddl(conn)


Migration = Callable[["duckdb.DuckDBPyConnection"], None]

#: ``from_version -> step`` that upgrades a file from that version to the next.
MIGRATIONS: dict[int, Migration] = {
    0: _v0_to_v1,
    1: _v1_to_v2,
    2: _v2_to_v3,
    3: _v3_to_v4,
    4: _v4_to_v5,
    5: _v5_to_v6,
    6: _v6_to_v7,
    7: _v7_to_v8,
    8: _v8_to_v9,
}


def migrate(
    conn: duckdb.DuckDBPyConnection,
    *,
    registry: Mapping[int, Migration] | None = None,
    target: int | None = None,
) -> list[int]:
    """Bring the file up to ``target`` (default :data:`SCHEMA_VERSION`); the steps run.

    An empty file gets the current schema directly. A file newer than this version is
    refused rather than guessed at.
    """
    steps = MIGRATIONS if registry is None else registry
    want = SCHEMA_VERSION if target is None else target
    version = file_version(conn)
    if version is None:
        create_schema(conn)
        return []
    if version > want:
        raise StoreError(
            f"the store has schema version {version}; this version of gostop reads up to "
            f"{want}: upgrade gostop-records"
        )
    ran = []
    while version < want:
        step = steps.get(version)
        if step is None:
            raise StoreError(f"no migration from schema version {version} to {version + 1}")
        conn.execute("BEGIN TRANSACTION")
        try:
            step(conn)
            set_version(conn, version + 1)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        ran.append(version)
        version += 1
    if version == SCHEMA_VERSION:
        if ran:
            # the views of the current schema, over the tables the steps brought up to it
            conn.execute("BEGIN TRANSACTION")
            try:
                create_views(conn)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        else:
            _add_missing_views(conn)
    return ran


def _add_missing_views(conn: duckdb.DuckDBPyConnection) -> None:
    """Views added since the file was made (they hold no data, so no version step): a file
    of this version gets the ones it lacks when a writer opens it."""
    have = {r[0] for r in conn.execute("SELECT view_name FROM duckdb_views()").fetchall()}
    for name, sql in VIEWS.items():
        if name not in have:
            conn.execute(f"CREATE VIEW {name} AS {sql}")
