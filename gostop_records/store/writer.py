"""Writing inside a transaction: event rows, projection rows, and DuckDB's write errors.

Shared by the live append, the bulk import and the rebuild, so that the three keep the
projection tables the same way: a game's rows are replaced whole (import, rebuild) or, on a
live append, only where they changed, always in the transaction that writes the events, so
the tables never disagree with the events after a crash.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .bulk import Prepared, insert_rows, placeholder, prepare, prepare_columns
from .codec import EventRow
from .projections import Row, Rows, player_games
from .schema import EVENT_COLUMNS, GAME_TABLES, KEYS, TABLES, Columns, quote

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "EVENT_SELECT",
    "ROW_STATEMENTS",
    "clear_games",
    "insert_events",
    "insert_projection",
    "is_write_conflict",
    "prepare_events",
    "prepare_projection",
    "replace_changed",
    "replace_changed_many",
    "transaction",
]

#: The event columns in row order, quoted, for ``SELECT``.
EVENT_SELECT = ", ".join(quote(c) for c, _ in EVENT_COLUMNS)


def is_write_conflict(exc: BaseException) -> bool:
    """A duplicate key or a conflicting update: another writer got there first (never a
    full disk, which DuckDB reports with the same exception type)."""
    import duckdb

    from ..errors import is_no_space

    if is_no_space(exc):
        return False
    if isinstance(exc, duckdb.ConstraintException | duckdb.TransactionException):
        return True
    text = str(exc)
    return "Conflict on" in text or "constraint violation" in text.lower()


@contextlib.contextmanager
def transaction(conn: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """BEGIN ... COMMIT, rolled back on any error (a failed COMMIT has rolled back itself)."""
    conn.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        raise
    try:
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        raise


def insert_events(conn: duckdb.DuckDBPyConnection, rows: Sequence[EventRow] | Prepared) -> int:
    return insert_rows(conn, "events", EVENT_COLUMNS, rows)


def insert_projection(
    conn: duckdb.DuckDBPyConnection, rows: Mapping[str, Sequence[Row] | Prepared]
) -> int:
    n = 0
    for name, cols in TABLES.items():
        n += insert_rows(conn, name, cols, rows.get(name, ()))
    return n


def prepare_events(columns: Sequence[Sequence[Any]]) -> Prepared:
    """Event rows given as columns (:func:`.codec.event_columns`) made ready to insert."""
    return prepare_columns(EVENT_COLUMNS, columns, len(columns[0]))


def prepare_projection(rows: Rows) -> dict[str, Prepared]:
    """Projection rows made ready to insert (see :func:`.bulk.prepare`)."""
    return {name: prepare(cols, rows.get(name, [])) for name, cols in TABLES.items()}


def clear_games(
    conn: duckdb.DuckDBPyConnection, game_ids: Collection[str], tables: Iterable[str] = TABLES
) -> None:
    """Delete the projection rows of these games."""
    if not game_ids:
        return
    ids: list[Any] = list(game_ids)
    for name in tables:
        conn.execute(f"DELETE FROM {name} WHERE game_id IN (SELECT unnest(?::VARCHAR[]))", [ids])


#: A table with more changed or removed rows than this (a retraction, a hand that ends)
#: gets its rows of the touched hands deleted and inserted again, in two statements.
ROW_STATEMENTS = 4


def replace_changed(
    conn: duckdb.DuckDBPyConnection, game_id: str, hands: set[int], old: Rows, fresh: Rows
) -> Rows:
    """Write what changed in the game-level rows and the rows of the touched hands.

    ``old`` is the game's rows as stored, ``fresh`` the rows derived now for ``hands``;
    returns the game's rows after the write. A live append changes few rows: the game's,
    its position, the hand's, the turn in progress, and it adds a capture or two. Each
    statement costs a good part of a millisecond, and a parameter more costs more, so rows
    that stay are not touched, a changed row is updated in its changed columns only, new
    rows are inserted, and only a table where much changed is rewritten.
    """
    merged: Rows = {}
    for name, cols in TABLES.items():
        keep, before = _split(name, old, hands)
        now = _fresh_of(name, fresh, merged)
        merged[name] = keep + now
        if before != now:
            _write_changes(conn, name, cols, game_id, hands, before, now)
    return merged


def _fresh_of(name: str, fresh: Rows, merged: Rows) -> list[Row]:
    """A table's rows derived now; ``player_games`` sums the game's ``hand_seats`` as
    merged (a live append derives the touched hands only)."""
    if name == "player_games":
        return player_games(merged["hand_seats"])
    return fresh.get(name, [])


def _split(name: str, old: Rows, hands: set[int]) -> tuple[list[Row], list[Row]]:
    """A table's old rows as (kept, compared): a game-wide table is compared whole; a
    per-hand table keeps the rows of hands the append did not touch."""
    rows = old.get(name, [])
    if name in GAME_TABLES:
        return [], rows
    return [r for r in rows if r[1] not in hands], [r for r in rows if r[1] in hands]


def merge_rows(old: Rows, hands: set[int], fresh: Rows) -> Rows:
    """The game's rows after an append, as :func:`replace_changed` would leave them, with
    nothing written: ``old`` outside the touched ``hands``, ``fresh`` for them."""
    merged: Rows = {}
    for name in TABLES:
        keep, _before = _split(name, old, hands)
        merged[name] = keep + _fresh_of(name, fresh, merged)
    return merged


def rows_of_hands(rows: Rows, hands: set[int]) -> Rows:
    """A game's rows of the game-level tables and of ``hands`` (what :func:`derive` gives
    for those hands)."""
    return {
        name: list(rows.get(name, []))
        if name in GAME_TABLES
        else [r for r in rows.get(name, []) if r[1] in hands]
        for name in TABLES
    }


def replace_changed_many(
    conn: duckdb.DuckDBPyConnection, games: Sequence[tuple[str, set[int], Rows, Rows]]
) -> list[Rows]:
    """:func:`replace_changed` for several games (game id, touched hands, old, fresh) in
    a few statements per table: the rows that go or change are deleted together, the new
    and changed ones inserted together. One game goes through :func:`replace_changed`.

    Statements, not rows, are what a live append pays for, so a server that commits the
    entries of many tables at once writes each table two or three times, not once per
    game and changed row."""
    if len(games) == 1:
        game_id, hands, old, fresh = games[0]
        return [replace_changed(conn, game_id, hands, old, fresh)]
    out: list[Rows] = []
    wipe: dict[str, list[tuple[str, list[int] | None]]] = {}
    gone: dict[str, list[tuple[Any, ...]]] = {}
    put: dict[str, list[Row]] = {}
    for game_id, hands, old, fresh in games:
        merged: Rows = {}
        for name, cols in TABLES.items():
            keep, before = _split(name, old, hands)
            now = _fresh_of(name, fresh, merged)
            merged[name] = keep + now
            if before == now:
                continue
            diff = _row_diff(name, cols, before, now, limit=None)
            if diff is None:
                if before:
                    scope = None if name in GAME_TABLES else sorted(hands)
                    wipe.setdefault(name, []).append((game_id, scope))
                put.setdefault(name, []).extend(now)
                continue
            removed, changed, added = diff
            at = [i for i, (c, _) in enumerate(cols) if c in KEYS[name]]
            gone.setdefault(name, []).extend(
                tuple(r[i] for i in at) for r in [*removed, *(was for was, _ in changed)]
            )
            put.setdefault(name, []).extend([*(row for _, row in changed), *added])
        out.append(merged)
    for name, cols in TABLES.items():
        for game_id, scope in wipe.get(name, ()):
            _delete_rows(conn, name, game_id, scope)
        keys = gone.get(name)
        if keys:
            one = "(" + " AND ".join(f"{quote(c)} = ?" for c in KEYS[name]) + ")"
            conn.execute(
                f"DELETE FROM {name} WHERE " + " OR ".join([one] * len(keys)),
                [v for k in keys for v in k],
            )
        insert_rows(conn, name, cols, put.get(name, []))
    return out


def _delete_rows(
    conn: duckdb.DuckDBPyConnection, name: str, game_id: str, hands: Sequence[int] | None
) -> None:
    """A game's rows of a table: all of them, or those of some of its hands."""
    if hands is None:
        conn.execute(f"DELETE FROM {name} WHERE game_id = ?", [game_id])
    else:
        conn.execute(
            f"DELETE FROM {name} WHERE game_id = ? AND hand IN (SELECT unnest(?::INTEGER[]))",
            [game_id, list(hands)],
        )


def _write_changes(
    conn: duckdb.DuckDBPyConnection,
    name: str,
    cols: Columns,
    game_id: str,
    hands: set[int],
    before: list[Row],
    now: list[Row],
) -> None:
    diff = _row_diff(name, cols, before, now)
    if diff is None:
        if before:
            _delete_rows(conn, name, game_id, None if name in GAME_TABLES else sorted(hands))
        insert_rows(conn, name, cols, now)
        return
    removed, changed, added = diff
    key = KEYS[name]
    where = " AND ".join(f"{quote(c)} = ?" for c in key)
    at = [i for i, (c, _) in enumerate(cols) if c in key]
    for row in removed:
        conn.execute(f"DELETE FROM {name} WHERE {where}", [row[i] for i in at])
    for was, row in changed:
        sets = [(c, t, v) for (c, t), a, v in zip(cols, was, row, strict=True) if a != v]
        assignments = ", ".join(f"{quote(c)} = {placeholder(t)}" for c, t, _ in sets)
        conn.execute(
            f"UPDATE {name} SET {assignments} WHERE {where}",
            [v for _, _, v in sets] + [row[i] for i in at],
        )
    insert_rows(conn, name, cols, added)


def _row_diff(
    name: str, cols: Columns, before: list[Row], now: list[Row], limit: int | None = ROW_STATEMENTS
) -> tuple[list[Row], list[tuple[Row, Row]], list[Row]] | None:
    """(removed, changed as (was, now), added) rows by key; None to rewrite the rows whole.

    None when the table has no key, when a key is missing or repeated (the rows could not
    be told apart), or when more rows changed than single statements are worth.
    """
    key = KEYS.get(name)
    if key is None:
        return None
    at = [i for i, (c, _) in enumerate(cols) if c in key]
    old = _by_key(before, at)
    new = _by_key(now, at)
    if old is None or new is None:
        return None
    removed = [r for k, r in old.items() if k not in new]
    changed = [(old[k], r) for k, r in new.items() if k in old and old[k] != r]
    if limit is not None and len(removed) + len(changed) > limit:
        return None
    added = [r for k, r in new.items() if k not in old]
    return removed, changed, added


def _by_key(rows: list[Row], at: list[int]) -> dict[tuple[Any, ...], Row] | None:
    out: dict[tuple[Any, ...], Row] = {}
    for r in rows:
        k = tuple(r[i] for i in at)
        if None in k or k in out:
            return None
        out[k] = r
    return out
