"""The DuckDB store: durable appends, idempotent imports, typed projections for SQL.

``Store(path)`` opens one DuckDB file (one process owns it: see :mod:`.store`). The events
table is the record; the projection tables (``games``, ``hands``, ``turns``, ``captures``,
``transfers``, ``decisions``, ``scores``, ``payouts``, ``issues``) and the views on them
(``v_hand_summary``, ``v_payout_disputes``, ``v_specials``, ``v_specials_by_seat``,
``v_player_ledger``, ``v_events``) are derived from it and kept in step on every write.

Nothing here imports duckdb or pyarrow until a store is opened.
"""

from __future__ import annotations

from .append import AppendResult
from .connection import DEFAULT_DB, ENV_VAR, default_path
from .errors import ConcurrencyError, StoreError, StoreLockedError
from .importer import ImportProgress, ImportReport, Problem
from .sink import StoreSink
from .store import Store, open_for_queries

__all__ = [
    "DEFAULT_DB",
    "ENV_VAR",
    "AppendResult",
    "ConcurrencyError",
    "ImportProgress",
    "ImportReport",
    "Problem",
    "Store",
    "StoreError",
    "StoreLockedError",
    "StoreSink",
    "default_path",
    "open_for_queries",
]
