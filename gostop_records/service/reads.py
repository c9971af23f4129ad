"""Reads: every answer that only looks at the store, on connections of their own.

A read never runs on the writer thread, so a slow one (a search, an audit, a page, a SQL
query) delays no entry. :class:`Reads` keeps a few threads, each with its own DuckDB
connection to the store's database (DuckDB gives each a consistent snapshot of what is
committed). Before it reads, a read waits for the settler to write into DuckDB every entry
acknowledged before it (:meth:`~.settler.Settler.sync`): an acknowledged entry is durable in
the journal first, and a read that left it out would answer with less than was recorded.
While the settler cannot write (a full disk) a read is answered 503 with the cause.

The functions below take that connection first; they know SQL and the service's answers,
not the rules (the audit and the table are computed by the library from the events read).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

from .. import events as E
from .. import log as L
from ..audit import AuditArgumentError, ClaimError, audit_game, parse_claim
from ..errors import GostopError, ProjectionError
from ..replay import timeline
from ..store.errors import (
    QueryCancelledError,
    QueryTimeoutError,
    QueryTooLargeError,
    StoreError,
)
from ..store.query import query as run_sql
from ..store.sandbox import DEFAULT_LIMITS, QueryHandle, QueryLimits
from ..store.store import game_events, game_head
from .errors import ServiceError
from .priority import idle_priority

if TYPE_CHECKING:
    import duckdb

    from ..store import Store
    from .settler import Settler

__all__ = ["Reads", "audit", "event_lines", "events", "health", "query", "search", "table"]

T = TypeVar("T")
Conn = Any  # a DuckDB connection of a read thread


class Reads:
    """The read threads of one store (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        settler: Settler | None,
        *,
        threads: int = 4,
        wait_s: float = 15.0,
        nice: int = 0,
    ) -> None:
        self.store = store
        self.settler = settler
        self.wait_s = wait_s
        self.nice = nice
        self._jobs: queue.SimpleQueue[tuple[Callable[[Conn], Any], Future[Any], bool] | None] = (
            queue.SimpleQueue()
        )
        self._conns: list[duckdb.DuckDBPyConnection] = []
        self._lock = threading.Lock()
        self._closing = False
        self._threads = [
            threading.Thread(target=self._loop, name=f"gostop-read-{i}", daemon=True)
            for i in range(max(1, threads))
        ]
        for t in self._threads:
            t.start()

    async def run(self, fn: Callable[[Conn], T], *, settled: bool = True) -> T:
        """``fn(connection)`` on a read thread, once every acknowledged entry is readable
        (``settled=False``: at once, with what DuckDB holds, as the health check reads)."""
        if self._closing:
            raise ServiceError(503, "unavailable", "the service is stopping")
        fut: Future[T] = Future()
        self._jobs.put((fn, fut, settled))
        return await asyncio.wrap_future(fut)

    def ready(self) -> None:
        """Wait for the settler (see the module docstring); a 503 naming why it cannot."""
        if self.settler is None:
            return
        cause = self.settler.sync(self.wait_s)
        if cause is not None:
            raise ServiceError(
                503,
                "store_unavailable",
                f"the recorded entries cannot be read now: {cause}; they are kept in the "
                "store's journal and nothing is lost: try again later",
            )

    def close(self, timeout: float = 5.0) -> None:
        """Stop: interrupt what runs, end the threads, close their connections (the store
        file is free only when every connection to it is closed)."""
        self._closing = True
        with self._lock:
            for conn in self._conns:
                with contextlib.suppress(Exception):
                    conn.interrupt()
        for _ in self._threads:
            self._jobs.put(None)
        for t in self._threads:
            t.join(timeout=timeout)
        with self._lock:
            conns, self._conns = self._conns, []
        for conn in conns:
            with contextlib.suppress(Exception):
                conn.close()

    def _loop(self) -> None:
        idle_priority(self.nice)
        with self._lock:
            conn = self.store.conn.cursor()
            self._conns.append(conn)
        while True:
            item = self._jobs.get()
            if item is None:
                return
            fn, fut, settled = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                if settled:
                    self.ready()
                result = fn(conn)
            except BaseException as exc:
                fut.set_exception(exc)
            else:
                fut.set_result(result)


# --- the reads --------------------------------------------------------------------------


def version(conn: Conn, game_id: str) -> int:
    return game_head(conn, game_id)[0]


def events(conn: Conn, game_id: str, after: int = 0) -> list[E.Envelope]:
    """A game's envelopes after ``after``, decoded as from a log; 404 for no such game."""
    envs = game_events(conn, game_id)
    if not envs:
        raise ServiceError(404, "not_found", f"there is no game {game_id!r}")
    return [e for e in envs if e.seq > after] if after else envs


def event_lines(conn: Conn, game_id: str, after: int = 0) -> bytes:
    """The log after ``after`` as JSON Lines, each line as stored."""
    return b"".join(L.encode_json(e) + b"\n" for e in events(conn, game_id, after))


def table(conn: Conn, game_id: str, at: int | None = None) -> dict[str, Any]:
    """The table and scores right after seq ``at`` (or now), as ``gostop replay --json``."""
    envs = events(conn, game_id)
    if at is not None and not 1 <= at <= envs[-1].seq:
        raise ServiceError(
            400, "bad_seq", f"game {game_id!r} has no seq {at} (seqs 1..{envs[-1].seq})"
        )
    tl = timeline(game_id, envs)
    if not tl.envelopes:
        raise ServiceError(422, "rules", f"game {game_id}: its first event does not replay")
    try:
        return tl.state_dict(tl.index_of_seq(at) if at is not None else len(tl.envelopes) - 1)
    except GostopError as exc:
        raise ServiceError(400, "bad_seq", str(exc)) from None


def audit(
    conn: Conn,
    game_id: str,
    *,
    hand: int | None = None,
    claims: Sequence[str] = (),
    lenient: bool = False,
) -> dict[str, Any]:
    envs = events(conn, game_id)
    try:
        parsed = [parse_claim(c) for c in claims]
        result = audit_game(envs, hand=hand, claims=parsed, lenient=lenient)
    except (ClaimError, AuditArgumentError) as exc:
        raise ServiceError(400, "bad_audit", str(exc)) from None
    except ProjectionError as exc:
        raise ServiceError(
            422, "rules", f"{exc} (audit with lenient=true)", rule=exc.rule
        ) from None
    return result.to_dict()  # type: ignore[no-any-return]


_GAME_KEYS = (
    "game_id",
    "ruleset",
    "players",
    "stake",
    "venue",
    "started_at",
    "last_at",
    "version",
    "hands",
    "hands_ended",
    "disputes",
    "violations",
)


def search(
    conn: Conn,
    *,
    player: str | None = None,
    date: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    ruleset: str | None = None,
    outcome: str | None = None,
    disputed: bool | None = None,
    limit: int = 50,
    offset: int = 0,
) -> dict[str, Any]:
    """Stored games, newest first, by player (id or name), date, ruleset, a hand's
    outcome, or whether a recorded payment differs from the computed one."""
    where: list[str] = []
    params: list[Any] = []
    if player:
        where.append(
            "(list_contains([lower(x) FOR x IN g.player_ids], lower(?)) OR "
            "list_contains([lower(x) FOR x IN g.player_names], lower(?)) OR "
            "EXISTS (SELECT 1 FROM people p WHERE p.counts_for = ? "
            "AND list_contains(g.player_ids, p.person_id)))"
        )
        params += [player, player, player]
    for value, op in ((date, "="), (date_from, ">="), (date_to, "<=")):
        if value:
            where.append(f"g.started_on {op} TRY_CAST(? AS DATE)")
            params.append(_date(value))
    if ruleset:
        where.append("g.ruleset = ?")
        params.append(ruleset)
    if outcome:
        where.append("EXISTS (SELECT 1 FROM hands h WHERE h.game_id = g.game_id AND h.outcome = ?)")
        params.append(outcome)
    if disputed is not None:
        where.append(
            ("" if disputed else "NOT ") + "EXISTS (SELECT 1 FROM v_payout_disputes d "
            "WHERE d.game_id = g.game_id)"
        )
    cond = ("WHERE " + " AND ".join(where)) if where else ""
    total = int(conn.execute(f"SELECT count(*) FROM games g {cond}", params).fetchall()[0][0])
    rows = conn.execute(
        "SELECT g.game_id, g.ruleset, g.player_names, g.stake, g.venue, g.started_at, "
        "g.last_at, g.events, g.hands, g.hands_ended, "
        "(SELECT count(*) FROM v_payout_disputes d WHERE d.game_id = g.game_id), "
        f"g.violations FROM games g {cond} "
        "ORDER BY g.started_at DESC NULLS LAST, g.game_id LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    games = [dict(zip(_GAME_KEYS, r, strict=True)) for r in rows]
    return {"games": games, "total": total, "limit": limit, "offset": offset}


def query(
    conn: Conn,
    sql: str,
    limit: int,
    limits: QueryLimits = DEFAULT_LIMITS,
    handle: QueryHandle | None = None,
) -> dict[str, Any]:
    """Read-only SQL (the store's query path: no write, no file) within ``limits``; the
    last result. ``handle`` cancels it (the client went away)."""
    try:
        result = run_sql(conn, sql, limit=limit, allow_files=False, limits=limits, handle=handle)
    except QueryTimeoutError as exc:
        raise ServiceError(408, "query_timeout", str(exc), limits=limits.describe()) from None
    except QueryCancelledError as exc:  # the client has gone: nobody reads this answer
        raise ServiceError(408, "query_cancelled", str(exc)) from None
    except QueryTooLargeError as exc:
        raise ServiceError(413, "query_too_large", str(exc), limits=limits.describe()) from None
    except StoreError as exc:
        raise ServiceError(400, "bad_sql", str(exc)) from None
    rows = [[_cell(v) for v in r] for r in result.rows]
    return {
        "columns": list(result.columns),
        "rows": rows,
        "limit": limit,
        "truncated": result.truncated,
    }


def health(conn: Conn) -> dict[str, Any]:
    n = conn.execute("SELECT count(*) FROM games").fetchall()[0][0]
    return {"ok": True, "games": int(n)}


def _cell(v: Any) -> Any:
    """A SQL value as JSON: numbers, text, lists and maps as they are, the rest as text."""
    if v is None or isinstance(v, bool | int | float | str):
        return v
    if isinstance(v, list | tuple):
        return [_cell(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _cell(x) for k, x in v.items()}
    return str(v)


def _date(value: str) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise ServiceError(400, "bad_query", f"date {value!r}: give YYYY-MM-DD") from None
