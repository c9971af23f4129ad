"""verify: broken hash chains named by game and seq; projections equal a fresh rebuild."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from store_support import every_preset, gostop

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
    assert f"game {target.game_id}, seq {target.seq}" in done.stderr
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
