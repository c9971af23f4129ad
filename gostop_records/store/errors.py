"""The store's typed errors: a busy file, a stale expected version, a refused statement,
a query stopped at one of its limits.

All derive from :class:`~gostop_records.errors.GostopError`, so the command line prints them
as one sentence with exit code 1 and programs can catch the store's failures apart.
"""

from __future__ import annotations

from ..errors import GostopError, NoSpaceError, is_no_space

__all__ = [
    "ConcurrencyError",
    "NoSpaceError",
    "QueryCancelledError",
    "QueryRefusedError",
    "QueryTimeoutError",
    "QueryTooLargeError",
    "StoreError",
    "StoreLockedError",
    "is_no_space",
    "no_space",
]


class StoreError(GostopError):
    """The store cannot do what was asked: missing file, newer schema, refused statement."""


class StoreLockedError(StoreError):
    """Another process has the DuckDB file open; DuckDB lets one process own a file."""

    def __init__(self, path: str, holder: str | None = None) -> None:
        self.path = path
        self.holder = holder
        who = f" ({holder})" if holder else ""
        super().__init__(
            f"{path}: the store is in use by another process{who}. DuckDB lets one process "
            "open a database file at a time, even to read it: wait for that process to end "
            "or use another file with --db"
        )


class ConcurrencyError(StoreError):
    """An append expected a game at one version and found it at another.

    Another writer appended to the game first. The caller re-reads the game (its version is
    ``actual``) and decides again; nothing of the rejected append was written.
    """

    def __init__(self, game_id: str, expected: int | None, actual: int) -> None:
        self.game_id = game_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"game {game_id!r}: expected version {expected}, but the store holds {actual} "
            "event(s): another writer appended first; re-read the game and try again"
        )


class QueryRefusedError(StoreError):
    """SQL that is not a read (or reaches past the store) is refused before it runs;
    ``reason`` says which statement and why."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class QueryTimeoutError(StoreError):
    """A query ran past its time limit and was interrupted (nothing of it is kept)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(
            f"the query was stopped after its time limit of {seconds:g} s; narrow it "
            "(a WHERE on game_id or a date, fewer joins) or raise the limit (gostop db query "
            "--timeout; gostop serve --query-timeout)"
        )


class QueryTooLargeError(StoreError):
    """A query's answer passed its limit in rows or in encoded bytes; it was stopped as soon
    as it did, so the answer is never held whole."""

    def __init__(self, what: str, limit: int, max_rows: int | None, max_bytes: int | None) -> None:
        self.what = what
        self.limit = limit
        self.max_rows = max_rows
        self.max_bytes = max_bytes
        super().__init__(
            f"the answer has more than {limit} {what}, the limit of a query "
            f"(at most {_limit(max_rows, 'rows')} and {_limit(max_bytes, 'bytes')}); "
            "aggregate, or add LIMIT or a WHERE"
        )


class QueryCancelledError(StoreError):
    """A running query was cancelled by its caller (its client went away)."""

    def __init__(self) -> None:
        super().__init__("the query was cancelled before it ended")


def _limit(n: int | None, unit: str) -> str:
    return f"{n} {unit}" if n is not None else f"any number of {unit}"


def no_space(exc: BaseException, path: object) -> NoSpaceError | None:
    """A :class:`NoSpaceError` naming the store file when ``exc`` says the disk is full.

    DuckDB reports a full disk at commit as a ``TransactionException`` ("Failed to commit:
    Could not write file ...: No space left on device"), the same type as a write conflict:
    it is told apart here, before anything takes it for another writer's append.
    """
    return NoSpaceError(str(path)) if is_no_space(exc) else None
