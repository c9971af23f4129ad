"""db repair: a heads chain damaged by a stale tip (as the journal of earlier versions left
it) is mended and the repair recorded; any other damage is refused and left as it is."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from gostop_cli.app import app
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gostop_records import events as E
from gostop_records.integrity.seals import parse_seal
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import simulate
from gostop_records.store import Store
from gostop_records.store.bulk import insert_rows
from gostop_records.store.heads import KINDS, check, check_seal, entry_digest, tip
from gostop_records.store.repair import RepairError
from gostop_records.store.schema import HEADS_COLUMNS, TABLES

runner = CliRunner()

#: Games: two imported first, one imported between the journal's appends, a live one, and
#: one started live after the import.
GAMES = list(simulate(PRESETS["matgo"], 2, 6, 2, 61))


def _append(st: Store, gid: str, game: list[E.Envelope], upto: int) -> None:
    """The game's events up to seq ``upto`` appended live, one an append, from where it is."""
    for env in game[st.version(gid) : upto]:
        st.append(gid, [env.event], env.seq - 1)


def _stale_tip(st: Store, stale: tuple[int, str], after_entry: int) -> None:
    """The entries after ``after_entry`` written as the journal of earlier versions wrote
    them after an import: numbered and chained from the tip it remembered (``stale``), the
    ones whose number an entry of the import took ignored; their events went in."""
    rows = st.conn.execute(
        "SELECT entry, kind, game_id, seq, head, recorded_at, detail FROM heads "
        "WHERE entry > ? ORDER BY entry",
        [after_entry],
    ).fetchall()
    st.conn.execute("DELETE FROM heads WHERE entry > ?", [after_entry])
    n, prev = stale
    kept = []
    for row in rows:
        n += 1
        fields = (n, *row[1:])
        digest = entry_digest(prev, fields)
        if n > after_entry:
            kept.append((*fields, prev, digest))
        prev = digest
    insert_rows(st.conn, "heads", HEADS_COLUMNS, kept)


def _events(st: Store) -> list[tuple[object, ...]]:
    return st.conn.execute("SELECT game_id, seq, hash FROM events ORDER BY game_id, seq").fetchall()


def _tables(st: Store) -> dict[str, list[tuple[object, ...]]]:
    return {t: st.conn.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in TABLES}


def _heads(st: Store) -> list[tuple[object, ...]]:
    return st.conn.execute("SELECT * FROM heads ORDER BY entry").fetchall()


def _damage(st: Store) -> None:
    """Both kinds of damage: game ``live`` gets seq 11 past its latest entry, 12, whose row
    collided with the import's entry 13; the entries of game ``late`` (14..16) are chained
    after that ignored entry."""
    st.import_envelopes([e for g in GAMES[:2] for e in g])  # entries 1, 2
    _append(st, "live", GAMES[3], 10)  # entries 3..12
    stale = tip(st.conn)
    st.import_envelopes(GAMES[2])  # entry 13: the journal does not see it
    _append(st, "live", GAMES[3], 11)  # its entry, numbered 13 after the stale tip: ignored
    _append(st, "late", GAMES[4], 3)  # 14..16, chained after the ignored one
    _stale_tip(st, stale, 13)


@pytest.fixture
def damaged(tmp_path: Path) -> Iterator[Store]:
    st = Store(tmp_path / "s.duckdb")
    _damage(st)
    yield st
    st.close()


def test_both_kinds_of_damage_are_mended_and_recorded(damaged: Store) -> None:
    st = damaged
    problems = st.verify().problems()
    assert problems == [
        "game late: entry 14 does not follow the entry before it (an entry before it was "
        "changed, removed or inserted) [rule: heads_chain]",
        "game live: seq 11 are not in the heads chain (its latest entry, 12, counts 10 "
        "event(s)): written outside gostop [rule: not_in_chain]",
    ]
    events, heads = _events(st), _heads(st)

    report = st.repair()
    assert report.changed and report.broken_links == [14]
    assert [r.entry for r in report.relinked] == [14, 15, 16]
    assert [(a.game_id, a.after_entry, a.first, a.last, a.entry) for a in report.adopted] == [
        ("live", 12, 11, 11, 17)
    ]
    assert report.entry == 18 and not report.behind
    assert st.verify().ok, st.verify().problems()
    assert _events(st) == events

    after = _heads(st)
    assert after[:13] == heads[:13]  # before the broken link: untouched
    for old, new in zip(heads[13:], after[13:16], strict=True):
        assert new[:7] == old[:7] and new[7:] != old[7:]  # fields kept, links new
    live_head = st.conn.execute(
        "SELECT hash FROM events WHERE game_id = 'live' AND seq = 11"
    ).fetchone()
    assert after[16][1:5] == ("repaired", "live", 11, live_head[0])
    assert json.loads(after[16][6]) == {"after_entry": 12, "seq": [11, 11]}
    record = after[17]
    assert record[1:5] == ("repaired", None, 0, None)
    detail = json.loads(record[6])
    assert detail["broken_links"] == [14]
    assert detail["adopted"] == [
        {"game_id": "live", "entry": 17, "after_entry": 12, "seq": [11, 11]}
    ]
    assert detail["relinked"] == [{"entry": r[0], "prev": r[7], "hash": r[8]} for r in heads[13:16]]

    again = st.repair()  # nothing left to do, nothing written
    assert not again.changed and _heads(st) == after
    assert again.lines() == ["nothing to repair: the heads chain is whole and counts every event"]
    # and the store goes on: a live append chains after the repair's record
    _append(st, "late", GAMES[4], 4)
    assert tip(st.conn)[0] == 19 and st.verify().ok


def test_a_seal_taken_before_the_repair(damaged: Store) -> None:
    st = damaged
    old_tip = _heads(st)[-1]
    before_break = _heads(st)[4]
    st.repair()
    found = check_seal(st.conn, parse_seal(str(old_tip[8])))
    assert not found.holds and found.seq == 16
    assert "held seal" in found.text and "at entry 16 before the repair of " in found.text
    assert "the entry is the same but for its link to the entry before" in found.text
    assert check_seal(st.conn, parse_seal(str(before_break[8]))).holds
    path = st.path
    st.close()
    res = runner.invoke(app, ["verify", "--db", str(path), "--seal", str(old_tip[8])])
    assert res.exit_code == 1 and "before the repair of" in res.stderr, res.output


def test_a_game_without_any_entry_is_adopted_from_its_first_event(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as st:
        st.import_envelopes(GAMES[0])  # entry 1
        stale = tip(st.conn)
        st.import_envelopes(GAMES[1])  # entry 2
        _append(st, "new", GAMES[5], 1)  # its first entry, numbered 2 too: ignored
        _stale_tip(st, stale, 2)
        assert st.verify().problems() == [
            "game new: not in the heads chain: its 1 event(s) were written outside gostop (or "
            "replaced a game under another id) [rule: not_in_chain]"
        ]
        report = st.repair()
        assert not report.relinked
        assert [(a.game_id, a.after_entry, a.first, a.last, a.entry) for a in report.adopted] == [
            ("new", None, 1, 1, 3)
        ]
        assert "game new: seq 1 (no entry before) counted by entry 3" in report.lines()[0]
        assert st.verify().ok


def test_projections_behind_are_left_to_a_rebuild_after_the_repair(damaged: Store) -> None:
    st = damaged
    st.conn.execute("DELETE FROM positions WHERE game_id = 'live'")
    planned = st.repair(dry_run=True)
    assert planned.behind == ["live"] and planned.dry_run
    assert planned.lines()[-1] == (
        "the projection rows of 1 game(s) are behind their events: run gostop db rebuild next"
    )
    st.repair()
    problems = st.verify().problems()
    assert problems and all("run gostop db rebuild" in p for p in problems), problems
    st.rebuild()
    assert st.verify().ok
    assert [r[0] for r in st.conn.execute("SELECT kind FROM heads ORDER BY entry").fetchall()][
        -3:
    ] == ["repaired", "repaired", "rebuild"]


def _refused(st: Store, what: str) -> None:
    events, heads = _events(st), _heads(st)
    with pytest.raises(RepairError) as caught:
        st.repair()
    assert what in str(caught.value) and "Nothing was changed" in str(caught.value)
    with pytest.raises(RepairError):
        st.repair(dry_run=True)
    assert _events(st) == events and _heads(st) == heads


def test_a_broken_event_chain_is_refused(damaged: Store) -> None:
    gid = GAMES[0][0].game_id
    damaged.conn.execute(
        'UPDATE events SET payload = json_merge_patch(payload, \'{"text": "x"}\') '
        "WHERE game_id = ? AND seq = 1",
        [gid],
    )
    _refused(damaged, f"game {gid} seq 1")


def test_a_type_column_that_disagrees_with_its_payload_is_refused(damaged: Store) -> None:
    gid = GAMES[0][0].game_id
    damaged.conn.execute(
        "UPDATE events SET type = 'note_added' WHERE game_id = ? AND seq = 1", [gid]
    )
    _refused(damaged, f"game {gid} seq 1: the type column says 'note_added'")


def test_a_loss_is_refused_and_left_to_rebuild(damaged: Store) -> None:
    gid = GAMES[1][0].game_id
    n = damaged.version(gid)
    damaged.conn.execute("DELETE FROM events WHERE game_id = ? AND seq = ?", [gid, n])
    _refused(damaged, f"game {gid}: seq {n} missing")
    _refused(damaged, "gostop db rebuild --accept-loss")


def test_an_entry_changed_or_removed_is_refused(damaged: Store) -> None:
    damaged.conn.execute("UPDATE heads SET recorded_at = 'x' WHERE entry = 5")
    _refused(damaged, "heads chain: entry 5 (appended) was changed after it was written")
    row = damaged.conn.execute("SELECT * FROM heads WHERE entry = 5").fetchone()
    damaged.conn.execute("DELETE FROM heads WHERE entry = 5")
    _refused(damaged, "heads chain: entry 5 missing (removed?)")
    assert row is not None


def test_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    with Store(path) as st:
        _damage(st)
        heads = _heads(st)
    res = runner.invoke(app, ["db", "repair", "--db", str(path), "--dry-run"])
    assert res.exit_code == 0, res.output
    assert "would re-link entries 14..16 of the heads chain (broken link(s) at entry 14)" in (
        res.stdout
    )
    assert "would adopt game live: seq 11 (past its latest entry 12) counted by entry 17" in (
        res.stdout
    )
    assert "would record the repair as entry 18 (kind repaired)" in res.stdout
    with Store(path) as st:
        assert _heads(st) == heads
    res = runner.invoke(app, ["db", "verify", "--db", str(path)])
    assert res.exit_code == 1 and "entry 14 does not follow" in res.stderr
    res = runner.invoke(app, ["db", "repair", "--db", str(path)])
    assert res.exit_code == 0, res.output
    assert "recorded the repair as entry 18 (kind repaired) at " in res.stdout
    res = runner.invoke(app, ["db", "verify", "--db", str(path)])
    assert res.exit_code == 0, res.stderr
    res = runner.invoke(app, ["db", "repair", "--db", str(path), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["changed"] is False
    with Store(path) as st:
        st.conn.execute("DELETE FROM events WHERE game_id = 'late' AND seq = 3")
    res = runner.invoke(app, ["db", "repair", "--db", str(path)])
    assert res.exit_code == 1 and "refusing to repair: game late: seq 3 missing" in res.stderr


def test_repaired_is_a_kind() -> None:
    assert "repaired" in KINDS


#: One store with two imported games and a game appended live; each example copies it.
@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("repair") / "base.duckdb"
    with Store(path) as st:
        st.import_envelopes([e for g in GAMES[:2] for e in g])
        _append(st, "live", GAMES[3], 6)
    return path


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    imported=st.integers(1, 2),
    appends=st.lists(st.sampled_from(["live", "late"]), min_size=1, max_size=6),
)
def test_any_stale_tip_is_mended(base: Path, imported: int, appends: list[str]) -> None:
    """An import of one or two games between the journal's appends, then appends to the
    live game and to one started after: whichever entries collided, the repair mends it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.duckdb"
        shutil.copy(base, path)
        with Store(path) as st:
            stale = tip(st.conn)
            st.import_envelopes([e for g in GAMES[4 : 4 + imported] for e in g])
            games = {"live": GAMES[3], "late": GAMES[5]}
            for gid in appends:
                _append(st, gid, games[gid], st.version(gid) + 1)
            _stale_tip(st, stale, stale[0] + imported)
            assert check(st.conn)  # the heads part of db verify (the rest is not touched)
            events, tables = _events(st), _tables(st)
            report = st.repair()
            assert report.changed
            assert check(st.conn) == []
            assert _tables(st) == tables
            assert _events(st) == events
            heads = _heads(st)
            assert not st.repair().changed and _heads(st) == heads
