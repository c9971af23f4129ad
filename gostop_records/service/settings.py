"""The service's tuning, in one object: what a benchmark may vary, and nothing else.

The service has one design: entries journaled by the writer thread, their rows written to
DuckDB by the settler, reads on connections of their own. What can still be set are sizes
and times within that design; ``gostop serve`` uses the defaults and ``bench/`` builds other
settings to compare them side by side. Nothing here is read from the environment.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..store.sandbox import DEFAULT_LIMITS, QueryLimits

__all__ = ["ServiceSettings"]


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    """Sizes and times of the service (see the module docstring)."""

    #: The most entries (of as many games) committed in one journal record.
    group_max: int = 32
    #: The settler writes the journal's rows to DuckDB once it holds this many records or
    #: its oldest is ``settle_s`` old: DuckDB charges per statement, so a batch of many
    #: records costs little more than one. A read asks for a batch at once.
    settle_records: int = 16
    settle_s: float = 0.5
    #: After a batch that could not be written (a full disk), the next try this much later.
    retry_s: float = 1.0
    #: Threads that serve reads, each with its own DuckDB connection to the store.
    read_threads: int = 4
    #: How much lower than the writer's the CPU priority of the settler's thread is, and of
    #: the threads that read and check uploads, which run in Linux's idle class besides
    #: (see :mod:`.priority`).
    settler_nice: int = 5
    read_nice: int = 10
    #: How long a read waits for the settler to write what was acknowledged before it, and
    #: a write job for its turn, before it is answered 503.
    wait_s: float = 15.0
    #: DuckDB threads of the store's own connection (the writer's and the settler's
    #: transactions are a few small statements each: a pool would only add hand-offs).
    store_threads: int = 1
    #: Recording sessions kept in memory (the least recently used go first).
    live_games: int = 256
    #: uvicorn's HTTP protocol and event loop (``auto`` picks the fastest installed).
    http: str = "auto"
    loop: str = "auto"
    #: Move what start-up made out of the garbage collector's reach (a full collection
    #: stops every thread for as long as it walks every object).
    freeze_gc: bool = True
    #: How soon a thread waiting for Python's interpreter lock gets it from one that runs
    #: Python (seconds; Python's default is 5 ms). The writer thread takes the lock back
    #: after every fsync and every DuckDB statement of an entry: behind an upload checked
    #: by the rules, or the settler deriving rows, each of those waits could last 5 ms.
    switch_interval_s: float = 0.0005
    #: What one ``/api/query`` may take: time, rows, bytes, memory (docs/queries.md).
    query_limits: QueryLimits = DEFAULT_LIMITS
