"""The rebuild beside live tables, step by step (:class:`gostop_records.store.rebuild.Rebuild`).

Its bulk reads on a connection of its own while the store goes on appending on its own
connection: a game appended to during the bulk is derived again in a catch-up round, one
appended to after the last round has its rows taken from the store's cache in the swap,
and a game imported after it is derived in the swap; the swapped tables then equal a
rebuild from scratch. The appends are made between the rebuild's steps (its progress
callback, and before :meth:`finish`), so nothing depends on timing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from store_support import every_preset, one_game

from gostop_records.store import Store, staging
from gostop_records.store import rebuild as R
from gostop_records.store.schema import TABLES


def _tables(st: Store) -> dict[str, list[tuple[Any, ...]]]:
    return {t: sorted(st.conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in TABLES}


def test_appends_during_and_after_the_bulk_are_in_the_swapped_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(R.game_groups, "__defaults__", (50,))  # many groups
    monkeypatch.setattr(R, "FEW_EVENTS", 0)  # a catch-up round for any event behind
    live = one_game("gostop3", 3, hands=2, seed=9, game_id="live-game")
    late = one_game("matgo", 2, hands=1, seed=4, game_id="late-game")
    db = tmp_path / "s.duckdb"
    with Store(db) as st:
        logs = every_preset(count=1, hands=2, seed=21)
        assert st.import_envelopes([e for g in logs for e in g] + live[:20]).ok
        appended: list[int] = []

        def during(done: int, total: int) -> None:
            if not appended:  # after the first group: the live game was in it
                st.append("live-game", live[20:40], 20)
                appended.append(done)

        job = R.Rebuild(st, conn=st.conn.cursor(), progress=during)
        job.derive()
        assert appended and job.status.catch_up_rounds >= 1 and job.status.behind_events == 0
        st.append("live-game", live[40:], 40)  # after the last round: from the cache
        assert st.import_envelopes(late).ok  # a new game, no cache: derived in the swap
        derived: list[str] = []
        real = R.fresh_rows

        def seen(source: Any, ids: list[str], failed: list[Any]) -> Any:
            derived.extend(ids)
            return real(source, ids, failed)

        monkeypatch.setattr(R, "fresh_rows", seen)
        report = job.finish()
        assert derived == ["late-game"]  # the live game's rows came from the store's cache
        assert job.status.state == "done" and not job.status.running
        assert report.games == len(logs) + 2 and not report.failed
        swapped = _tables(st)
        assert st.verify().ok
        st.rebuild()
        assert _tables(st) == swapped
        names = [r[0] for r in st.conn.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        assert not [n for n in names if n.startswith((staging.NEXT, staging.OLD))]


def test_a_cancel_before_the_swap_leaves_the_live_tables(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as st:
        assert st.import_envelopes([e for g in every_preset(count=1, hands=1) for e in g]).ok
        st.conn.execute("UPDATE games SET venue = 'stale'")
        before = _tables(st)
        job = R.Rebuild(st, conn=st.conn.cursor())
        job.derive()
        job.cancel()
        with pytest.raises(R.RebuildCancelled) as caught:
            job.finish()
        job.abandon(caught.value)
        assert job.status.state == "cancelled" and job.status.error is None
        assert _tables(st) == before
        kinds = [k for (k,) in st.conn.execute("SELECT kind FROM heads").fetchall()]
        assert "rebuild" not in kinds


def test_a_loss_is_refused_before_any_new_table(tmp_path: Path) -> None:
    from gostop_records.store.heads import LossError

    game = one_game("matgo", 2, hands=1, seed=4, game_id="cut")
    with Store(tmp_path / "s.duckdb") as st:
        assert st.import_envelopes(game).ok
        st.conn.execute("DELETE FROM events WHERE game_id = 'cut' AND seq = ?", [len(game)])
        job = R.Rebuild(st, conn=st.conn.cursor())
        with pytest.raises(LossError, match="cut"):
            job.derive()
        names = [r[0] for r in st.conn.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        assert not [n for n in names if n.startswith(staging.NEXT)]
