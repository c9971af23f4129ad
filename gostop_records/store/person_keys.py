"""Each person's key as the store holds it (``person_keys``), and a game's names opened by
those keys: what reading a game back from the store needs of the people record."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..names import reveal, sealed_ids

if TYPE_CHECKING:
    import duckdb

    from .. import events as E

__all__ = ["keys_for", "revealed"]


def keys_for(conn: duckdb.DuckDBPyConnection, ids: Sequence[str]) -> dict[str, bytes]:
    """The keys the store holds of these persons (a forgotten person's is gone)."""
    rows = conn.execute(
        "SELECT person_id, key FROM person_keys WHERE person_id IN (SELECT unnest(?::VARCHAR[]))",
        [list(ids)],
    ).fetchall()
    return {str(p): bytes(k) for p, k in rows}


def revealed(conn: duckdb.DuckDBPyConnection, envs: list[E.Envelope]) -> list[E.Envelope]:
    """A game's envelopes with the names its ``game_started`` seals opened by the keys the
    store holds (see :mod:`gostop_records.names`); the bytes hashed stay as stored."""
    if not envs or not (ids := sealed_ids(envs[0].event)):
        return envs
    return [reveal(envs[0], keys_for(conn, ids)), *envs[1:]]
