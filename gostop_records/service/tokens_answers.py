"""The service's own rows in the store: recorder token hashes and answered requests.

They sit beside the game tables in the same DuckDB file and are written in the same
transaction as the events they belong to (see ``Store.append(also=...)``): a game's token
hash with its ``game_started``, and the answer to an entry with the entry's events, so a
server killed between the commit and the answer still knows, once restarted, that the
request was done and what it answered. Only a hash of a token is kept: the token itself
is shown once, to the device that started the game.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import TYPE_CHECKING

from ..store.connection import fetch_one

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "ANSWERS",
    "TOKENS",
    "answered",
    "create_tables",
    "game_of_token",
    "keys_of",
    "matches",
    "new_secret",
    "record_answer",
    "record_answers",
    "set_token",
    "token_digest",
    "token_matches",
    "token_of",
]

#: The table of answers kept for retries (one row per answered idempotency key).
ANSWERS = "service_requests"
#: The table of recorder token hashes, one row a game: (game, sha256, issued at).
TOKENS = "service_tokens"

_DDL = (
    "CREATE TABLE IF NOT EXISTS service_tokens ("
    "game_id VARCHAR PRIMARY KEY, token_sha256 VARCHAR NOT NULL, issued_at VARCHAR NOT NULL)",
    "CREATE TABLE IF NOT EXISTS service_requests ("
    "scope VARCHAR NOT NULL, key VARCHAR NOT NULL, fingerprint VARCHAR NOT NULL, "
    "status INTEGER NOT NULL, body VARCHAR NOT NULL, answered_at VARCHAR NOT NULL, "
    "PRIMARY KEY (scope, key))",
)


def create_tables(conn: duckdb.DuckDBPyConnection) -> None:
    for sql in _DDL:
        conn.execute(sql)


def new_secret() -> str:
    """A random token: 32 URL-safe characters (192 bits)."""
    return secrets.token_urlsafe(24)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def set_token(conn: duckdb.DuckDBPyConnection, game_id: str, token: str, at: str) -> None:
    """Keep the hash of a game's recorder token (replacing an earlier one)."""
    conn.execute("DELETE FROM service_tokens WHERE game_id = ?", [game_id])
    conn.execute("INSERT INTO service_tokens VALUES (?, ?, ?)", token_row(game_id, token, at))


def token_row(game_id: str, token: str, at: str) -> tuple[str, str, str]:
    """The :data:`TOKENS` row of a new game's first token (written with its events)."""
    return (game_id, token_digest(token), at)


def token_of(conn: duckdb.DuckDBPyConnection, game_id: str) -> str | None:
    """The hash of a game's recorder token; None when the game has none."""
    row = fetch_one(conn, "SELECT token_sha256 FROM service_tokens WHERE game_id = ?", [game_id])
    return None if row is None else str(row[0])


def matches(digest: str | None, token: str) -> bool | None:
    """Whether ``token`` is the token of this hash; None when there is no hash."""
    return None if digest is None else hmac.compare_digest(digest, token_digest(token))


def token_matches(conn: duckdb.DuckDBPyConnection, game_id: str, token: str) -> bool | None:
    """Whether ``token`` is the game's recorder token; None when the game has none."""
    return matches(token_of(conn, game_id), token)


def game_of_token(conn: duckdb.DuckDBPyConnection, token: str) -> str | None:
    """The game a recorder token opens, if any."""
    row = fetch_one(
        conn, "SELECT game_id FROM service_tokens WHERE token_sha256 = ?", [token_digest(token)]
    )
    return None if row is None else str(row[0])


def answered(conn: duckdb.DuckDBPyConnection, scope: str, key: str) -> tuple[str, int, str] | None:
    """(fingerprint, status, body) of the answer given to an idempotency key, if any."""
    row = fetch_one(
        conn,
        "SELECT fingerprint, status, body FROM service_requests WHERE scope = ? AND key = ?",
        [scope, key],
    )
    return None if row is None else (str(row[0]), int(row[1]), str(row[2]))


def keys_of(conn: duckdb.DuckDBPyConnection, scope: str) -> set[str]:
    """Every idempotency key answered in a scope (a game)."""
    rows = conn.execute("SELECT key FROM service_requests WHERE scope = ?", [scope]).fetchall()
    return {str(r[0]) for r in rows}


def record_answer(
    conn: duckdb.DuckDBPyConnection,
    scope: str,
    key: str,
    fingerprint: str,
    status: int,
    body: str,
    at: str,
) -> None:
    record_answers(conn, [(scope, key, fingerprint, status, body, at)])


def record_answers(
    conn: duckdb.DuckDBPyConnection, rows: list[tuple[str, str, str, int, str, str]]
) -> None:
    """Keep answers: (scope, key, fingerprint, status, body, time) each, one statement."""
    if not rows:
        return
    values = ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(rows))
    conn.execute(f"INSERT INTO service_requests VALUES {values}", [v for row in rows for v in row])
