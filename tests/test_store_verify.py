"""verify: broken hash chains named by game and seq; projections equal a fresh rebuild."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from store_support import every_preset, gostop, write_games

from gostop_records import events as E
from gostop_records.store import Store
from gostop_records.store.schema import TABLES


@pytest.fixture
def filled(tmp_path: Path) -> tuple[Path, list[list[E.Envelope]]]:
    logs = every_preset(count=1, hands=2, seed=80)
    with Store(tmp_path / "s.duckdb") as st:
        assert st.import_envelopes([e for g in logs for e in g]).ok
    return tmp_path / "s.duckdb", logs


def _snapshot(st: Store) -> dict[str, list[tuple[object, ...]]]:
    return {t: sorted(st.conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in TABLES}


def test_projection_tables_equal_a_fresh_rebuild(filled: tuple[Path, list]) -> None:
    db, logs = filled
    with Store(db) as st:
        report = st.verify()
        assert report.ok, report.problems()
        assert (report.games, report.events) == (len(logs), sum(len(g) for g in logs))
        before = _snapshot(st)
        rebuilt = st.rebuild()
        assert rebuilt.games == len(logs) and not rebuilt.failed
        assert _snapshot(st) == before
        assert all(
            before[t]
            for t in (
                "games",
                "hands",
                "turns",
                "captures",
                "scores",
                "payouts",
                "decisions",
                "positions",
            )
        )


def test_a_payload_changed_with_sql_is_found(filled: tuple[Path, list]) -> None:
    db, logs = filled
    game = logs[2]
    target = next(e for e in game if type(e.event) is E.CardFlipped and e.seq > 10)
    other = "01G" if target.event.card != "01G" else "02A"
    payload = json.dumps(
        {"type": "card_flipped", "seat": target.event.seat, "card": other, "chosen": None}
    )
    with Store(db) as st:
        st.conn.execute(
            "UPDATE events SET payload = ? WHERE game_id = ? AND seq = ?",
            [payload, target.game_id, target.seq],
        )
    with Store(db, read_only=True) as st:
        report = st.verify()
    assert not report.ok
    assert [(b.game_id, b.seq) for b in report.breaks] == [(target.game_id, target.seq)]
    assert "hash does not match" in report.breaks[0].reason
    done = gostop("db", "verify", "--db", str(db))
    assert done.returncode == 1
    assert f"game {target.game_id} seq {target.seq}" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unreadable_payload_is_a_break_at_its_seq(filled: tuple[Path, list]) -> None:
    db, logs = filled
    gid = logs[0][0].game_id
    with Store(db) as st:
        st.conn.execute(
            'UPDATE events SET payload = \'{"type": "card_played", "seat": 9}\' '
            "WHERE game_id = ? AND seq = 5",
            [gid],
        )
        report = st.verify()
    assert [(b.game_id, b.seq) for b in report.breaks] == [(gid, 5)]


def test_a_projection_edited_by_hand_is_found_and_rebuild_repairs_it(
    filled: tuple[Path, list],
) -> None:
    db, logs = filled
    gid = logs[1][0].game_id
    with Store(db) as st:
        st.conn.execute(
            "UPDATE payouts SET chips = chips + 5 WHERE game_id = ? AND hand = 1", [gid]
        )
        [(third,)] = st.conn.execute(
            "SELECT count(*) FROM turns WHERE game_id = ? AND turn = 3", [gid]
        ).fetchall()
        st.conn.execute("DELETE FROM turns WHERE game_id = ? AND turn = 3", [gid])
        report = st.verify()
        assert not report.breaks
        found = {(d.table, d.game_id) for d in report.diffs}
        assert found == {("payouts", gid), ("turns", gid)}
        turns = next(d for d in report.diffs if d.table == "turns")
        assert (turns.extra, turns.missing) == (0, third) and third > 0
        st.rebuild()
        assert st.verify().ok


def test_verify_json_and_rebuild_cli(filled: tuple[Path, list]) -> None:
    db, logs = filled
    done = gostop("db", "verify", "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["games"] == len(logs)
    done = gostop("db", "rebuild", "--db", str(db))
    assert done.returncode == 0 and f"{len(logs)} game(s)" in done.stdout


def test_a_type_column_changed_with_sql_is_found(filled: tuple[Path, list]) -> None:
    db, logs = filled
    gid = logs[3][0].game_id
    with Store(db) as st:
        st.conn.execute(
            "UPDATE events SET type = 'note_added' WHERE game_id = ? AND seq = 2", [gid]
        )
        report = st.verify()
    assert [(b.game_id, b.seq) for b in report.breaks] == [(gid, 2)]
    assert "'note_added'" in report.breaks[0].reason


def test_a_rebuild_in_many_groups_writes_the_same_tables_and_leaves_no_staging(
    filled: tuple[Path, list], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gostop_records.store import rebuild as R

    db, logs = filled
    with Store(db) as st:
        before = _snapshot(st)
        # a table of the user's own under a staging name is never touched
        st.conn.execute("CREATE TABLE rebuild_scores AS SELECT 7 AS mine")
        monkeypatch.setattr(R, "GROUP_EVENTS", 50)  # a group per game or two
        monkeypatch.setattr(R.game_groups, "__defaults__", (50,))
        assert len(list(R.game_groups(st))) > 2
        report = st.rebuild()
        assert report.games == len(logs)
        assert _snapshot(st) == before
        temps = st.conn.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()
        assert temps == []
        assert st.conn.execute("FROM main.rebuild_scores").fetchall() == [(7,)]
        assert st.verify().ok


def test_a_failed_rebuild_leaves_the_old_tables_and_no_staging(
    filled: tuple[Path, list], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gostop_records.store import rebuild as R

    db, _ = filled
    with Store(db) as st:
        before = _snapshot(st)
        calls = []

        def fail_late(*args: object) -> object:
            calls.append(1)
            if len(calls) > 1:
                raise RuntimeError("disk gone")
            return real(*args)

        real = R.fresh_rows
        monkeypatch.setattr(R, "fresh_rows", fail_late)
        monkeypatch.setattr(R.game_groups, "__defaults__", (50,))
        with pytest.raises(RuntimeError):
            st.rebuild()
        assert _snapshot(st) == before
        assert not st.conn.execute("SELECT 1 FROM duckdb_tables() WHERE temporary").fetchall()


def test_passes_over_the_whole_store_hold_duckdb_memory_and_restore_it(
    filled: tuple[Path, list], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gostop_records.store.rebuild as R
    import gostop_records.store.verify as V
    from gostop_records.store.connection import WHOLE_STORE_MEMORY

    db, logs = filled
    limit = "SELECT current_setting('memory_limit')"
    held = WHOLE_STORE_MEMORY.replace("MiB", ".0 MiB")
    with Store(db) as st:
        st.conn.execute("SET memory_limit = '1GiB'")
        during: list[str] = []
        real = R.fresh_rows

        def look(*args: object) -> object:
            during.append(st.conn.execute(limit).fetchone()[0])
            return real(*args)

        monkeypatch.setattr(R, "fresh_rows", look)
        monkeypatch.setattr(V, "fresh_rows", look)
        st.rebuild()
        st.verify()
        assert during and set(during) == {held}
        assert st.conn.execute(limit).fetchone()[0] == "1.0 GiB"
    write_games(tmp_path / "logs", logs)
    with Store(tmp_path / "other.duckdb") as st:
        st.conn.execute("SET memory_limit = '1GiB'")
        seen: list[str] = []

        def progress(_: object) -> None:
            seen.append(st.conn.execute(limit).fetchone()[0])

        assert st.import_paths([tmp_path / "logs"], progress=progress).ok
        assert seen and set(seen) == {held}
        assert st.conn.execute(limit).fetchone()[0] == "1.0 GiB"
