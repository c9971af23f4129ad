"""How the store writes: row-level changes on live appends, the head not re-read, the import's
background writer. Whatever the path, the tables must equal a fresh derivation."""

from __future__ import annotations

import gc
import json
import sys
from itertools import cycle
from pathlib import Path
from typing import Any

import pytest
from store_support import games, write_games

from gostop_records import events as E
from gostop_records import log
from gostop_records.errors import ProjectionError
from gostop_records.projector import project
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_payloads
from gostop_records.store import ConcurrencyError, Store, importer
from gostop_records.store.projections import Rows, derive
from gostop_records.store.schema import GAME_TABLES, TABLES
from gostop_records.store.writer import (
    ROW_STATEMENTS,
    insert_projection,
    replace_changed,
    transaction,
)

SPEC = GameSpec(PRESETS["gostop3"], 3, 2, 9)
GID = SPEC.id()


def payloads() -> list[E.Event]:
    return [p for _, p in play_payloads(SPEC)]


def _table(st: Store, name: str) -> list[tuple[Any, ...]]:
    """A table's rows in a set order, dates as the text the derived rows hold."""
    cols = ", ".join(
        f'CAST("{c}" AS VARCHAR)' if t == "DATE" else f'"{c}"' for c, t in TABLES[name]
    )
    return sorted(st.conn.execute(f"SELECT {cols} FROM {name}").fetchall(), key=repr)


def test_tables_equal_a_rebuild_after_appends_of_every_size_and_retractions(
    tmp_path: Path,
) -> None:
    pl = payloads()
    sizes = cycle((1, 1, 2, 1, 5, 1, 13))
    with Store(tmp_path / "s.duckdb") as st:
        version, k, inputs, retracted = 0, 0, 0, 0
        while k < len(pl):
            n = min(next(sizes), len(pl) - k)
            version = st.append(GID, pl[k : k + n], version).version
            k += n
            last = pl[k - 1]
            entry = E.is_input(last) and type(last) not in (E.GameStarted, E.HandStarted)
            inputs += n == 1 and entry
            if n == 1 and entry and inputs % 4 == 1:
                # undo the entry and enter it again (lenient: its consequences may be due)
                version = st.append(
                    GID, [E.EntryRetracted(seq=version, reason="typo")], version, strict=False
                ).version
                assert st.verify().ok, st.verify().problems()
                version = st.append(GID, [last], version, strict=False).version
                retracted += 1
            if k % 7 == 0:
                assert st.verify().ok, st.verify().problems()
        assert retracted >= 3
        report = st.verify()
        assert report.ok, report.problems()
        live = {name: _table(st, name) for name in TABLES}
    # the same events imported in one go give the same tables
    with Store(tmp_path / "s.duckdb") as st:
        stored = st.events(GID)
    with Store(tmp_path / "import.duckdb") as other:
        assert other.import_envelopes(stored, strict=False).ok
        assert {name: _table(other, name) for name in TABLES} == live


def _rows_of(game: list[E.Envelope]) -> Rows:
    p = project(game, strict=False)
    assert p.game is not None
    return derive(game, p.game, p.issues, retracted=p.retracted)


def _replace(tmp_path: Path, old: Rows, fresh: Rows, gid: str, hands: set[int]) -> None:
    """Store ``old``, write the change to ``fresh``, and compare the tables with the result."""
    with Store(tmp_path / "t.duckdb") as st:
        with transaction(st.conn):
            insert_projection(st.conn, old)
        with transaction(st.conn):
            merged = replace_changed(st.conn, gid, hands, old, fresh)
        for name in TABLES:
            assert _table(st, name) == sorted(merged[name], key=repr), name
            kept = [r for r in old[name] if name in GAME_TABLES or r[1] not in hands]
            if name not in GAME_TABLES:
                assert sorted(merged[name], key=repr) == sorted(kept + fresh[name], key=repr)


def test_replace_changed_updates_deletes_inserts_and_falls_back(tmp_path: Path) -> None:
    game = games("gostop3", 3, count=1, hands=2, seed=3)[0]
    gid = game[0].game_id
    old = _rows_of(game)
    hand = 2
    fresh: Rows = {
        name: [r for r in rows if name in GAME_TABLES or r[1] == hand] for name, rows in old.items()
    }
    turns = fresh["turns"]
    # one turn changed in a column or two, one removed: single-row statements
    turns[0] = (*turns[0][:5], "card", *turns[0][6:-1], turns[0][-1] + 7)
    del turns[3]
    # a score row repeated: its key no longer tells rows apart, the hand is rewritten
    fresh["scores"].append(fresh["scores"][0])
    # every capture changed: more rows than single statements are worth, rewritten whole
    fresh["captures"] = [(*r[:8], "other", *r[9:]) for r in fresh["captures"]]
    assert len(fresh["captures"]) > ROW_STATEMENTS
    # a null in a key (never derived): ``= NULL`` matches no row, the hand is rewritten
    old["decisions"].append((gid, hand, None, 1, 0, "go", 1, 7, False, None, False))
    fresh["decisions"].append((gid, hand, None, 1, 0, "go", 1, 8, False, None, False))
    fresh["games"] = [(*fresh["games"][0][:12], 999, *fresh["games"][0][13:])]
    fresh["issues"] = [(gid, 5, hand, "rule", "reason", "violation")]
    _replace(tmp_path, old, fresh, gid, {hand})


def test_replace_changed_with_a_hand_added(tmp_path: Path) -> None:
    game = games("matgo", 2, count=1, hands=2, seed=8)[0]
    gid = game[0].game_id
    first_hand_end = next(i for i, e in enumerate(game) if type(e.event) is E.HandEnded)
    old = _rows_of(game[: first_hand_end - 3])
    full = _rows_of(game)
    fresh: Rows = {
        name: [r for r in rows if name in GAME_TABLES or r[1] in (1, 2)]
        for name, rows in full.items()
    }
    _replace(tmp_path, old, fresh, gid, {1, 2})


def test_a_stale_cache_gives_a_concurrency_error_not_a_rule_or_seq_error(
    tmp_path: Path,
) -> None:
    """The head is not read when the caller's version is the cached one: whatever goes
    wrong against a cache another writer made stale is still reported as a conflict."""
    pl = payloads()
    k = next(i for i, p in enumerate(pl) if type(p) is E.CardPlayed)
    path = tmp_path / "s.duckdb"
    with Store(path) as a, Store(path) as b:
        a.append(GID, pl[:k], 0)  # a caches version k
        b.append(GID, [pl[k]], k)  # the store moves on to k + 1
        with pytest.raises(ConcurrencyError) as exc:
            a.append(GID, [pl[k]], k)  # fine for a's stale state: collides on the key
        assert (exc.value.expected, exc.value.actual) == (k, k + 1)

        a.append(GID, [pl[k + 1]], k + 1)  # a reads the head again, caches k + 2
        b.append(GID, [pl[k + 2]], k + 2)
        undo_first = E.EntryRetracted(seq=1, reason="not the latest input")
        with pytest.raises(ConcurrencyError) as exc:
            a.append(GID, [undo_first], k + 2)  # refused by a's stale state
        assert (exc.value.expected, exc.value.actual) == (k + 2, k + 3)
        with pytest.raises(ProjectionError):
            b.append(GID, [undo_first], k + 3)  # refused by the rules on the real state

        a.append(GID, [pl[k + 3]], k + 3)  # a caches k + 4
        b.append(GID, [pl[k + 4]], k + 4)
        ahead = log.envelope(GID, k + 6, None, pl[k + 5], by="recorder")
        with pytest.raises(ConcurrencyError) as exc:
            a.append(GID, [ahead], k + 4)  # a wrong seq for a's stale state
        assert (exc.value.expected, exc.value.actual) == (k + 4, k + 5)
        assert a.version(GID) == k + 5
        assert a.verify().ok


def test_no_expected_version_appends_after_another_writer(tmp_path: Path) -> None:
    pl = payloads()
    path = tmp_path / "s.duckdb"
    with Store(path) as a, Store(path) as b:
        a.append(GID, pl[:5], 0)
        b.append(GID, pl[5:7], 5)  # a's cache is stale
        assert a.append(GID, [pl[7]], None).version == 8
        assert [e.event for e in b.events(GID)] == pl[:8]
        assert a.verify().ok


def test_import_retries_each_game_when_another_writer_got_there_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = games("matgo", 2, count=4, hands=1, seed=21)
    write_games(tmp_path / "logs", logs, per_file=4)
    db = tmp_path / "s.duckdb"
    real_write = importer._write
    calls = 0

    def racing_write(conn: Any, *args: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            # another writer stores the start of a game of this batch first
            with Store(db) as other:
                other.append(logs[1][0].game_id, logs[1][:6], 0)
        real_write(conn, *args)

    monkeypatch.setattr(importer, "_write", racing_write)
    with Store(db) as st:
        report = st.import_paths([tmp_path / "logs"])
        assert report.ok, report.conflicts
        assert (report.imported, report.extended, report.games) == (3, 1, 4)
        assert report.events == sum(len(g) for g in logs) - 6
        assert calls == 5  # the batch, then each game on its own
        assert [e.hash for e in st.events(logs[1][0].game_id)] == [e.hash for e in logs[1]]
        assert st.verify().ok


def test_a_failed_background_write_is_raised_and_the_interpreter_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = games("matgo", 2, count=2, hands=1, seed=31)
    write_games(tmp_path / "logs", logs)

    def failing_write(conn: Any, *args: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(importer, "_write", failing_write)
    interval = sys.getswitchinterval()
    with Store(tmp_path / "s.duckdb") as st:
        with pytest.raises(OSError, match="disk full"):
            st.import_paths([tmp_path / "logs"])
        assert st.game_ids() == []
    assert gc.isenabled()
    assert sys.getswitchinterval() == interval


def test_an_import_leaves_the_interpreter_settings_as_it_found_them(tmp_path: Path) -> None:
    logs = games("matgo", 2, count=2, hands=1, seed=32)
    write_games(tmp_path / "logs", logs)
    interval = sys.getswitchinterval()
    nested: list[int] = []

    def import_inside(_: Any) -> None:
        # an import run from another one's progress callback: the settings are shared
        if not nested:
            with Store(tmp_path / "inner.duckdb") as inner:
                nested.append(inner.import_paths([tmp_path / "logs"]).imported)

    gc.disable()
    try:
        with Store(tmp_path / "s.duckdb") as st:
            report = st.import_paths([tmp_path / "logs"], progress=import_inside)
            assert report.imported == nested[0] == 2
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert sys.getswitchinterval() == interval


def test_stored_forms_go_in_and_come_out_byte_exact(tmp_path: Path) -> None:
    """Envelopes read in a non-typed form (a payload type from a newer version, a field
    with its default left out) take the slow path into rows; they must verify and write
    back exactly as read."""
    game = games("matgo", 2, count=1, hands=1, seed=41)[0]
    lines = [json.loads(log.encode_json(e)) for e in game]
    lines.insert(
        1,
        {
            **lines[1],
            "hand": None,
            "v": 1,
            "event": {"type": "table_photo_taken", "url": "https://example.org/1"},
        },
    )
    sparse = next(d for d in lines if d["event"]["type"] == "card_played")
    del sparse["event"]["chosen"]  # a producer that leaves out defaults
    unsealed = []
    for seq, d in enumerate(lines, 1):
        d.update(seq=seq, prev="", hash="")
        unsealed.append(log.decode_json_line(json.dumps(d, separators=(",", ":"))))
    sealed = log.seal(unsealed)
    path = tmp_path / "g.jsonl"
    log.write_jsonl(path, sealed)
    with Store(tmp_path / "s.duckdb") as st:
        report = st.import_paths([path])
        assert report.ok and report.imported == 1, report.rejected
        stored = st.events(game[0].game_id)
        assert type(stored[1].event) is E.UnknownEvent
        assert log.verify(stored).ok
        assert [log.encode_json(e) + b"\n" for e in stored] == path.read_bytes().splitlines(
            keepends=True
        )
        assert st.verify().ok


def test_a_game_in_the_batch_being_written_is_planned_after_that_write(
    tmp_path: Path,
) -> None:
    """One batch per run: each run meets its game's earlier run while that is written."""
    game = games("gostop3", 3, count=1, hands=2, seed=44)[0]
    third = len(game) // 3
    log.write_jsonl(tmp_path / "a-start.jsonl", game[:third])
    log.write_jsonl(tmp_path / "b-rest.jsonl", game[third:])
    log.write_jsonl(tmp_path / "c-copy.jsonl", game)
    with Store(tmp_path / "s.duckdb") as st:
        report = st.import_paths([tmp_path], batch_events=1)
        assert report.ok, (report.rejected, report.conflicts)
        assert (report.imported, report.extended, report.skipped) == (1, 1, 1)
        assert report.events == len(game)
        assert [e.hash for e in st.events(game[0].game_id)] == [e.hash for e in game]
        assert st.verify().ok


def test_duckdb_works_with_one_thread_during_an_import_and_as_before_after(
    tmp_path: Path,
) -> None:
    logs = games("matgo", 2, count=2, hands=1, seed=33)
    write_games(tmp_path / "logs", logs)
    during: list[int] = []
    with Store(tmp_path / "s.duckdb") as st:
        st.conn.execute("SET threads = 3")

        def look(_: Any) -> None:
            during.append(st.conn.execute("SELECT current_setting('threads')").fetchone()[0])

        assert st.import_paths([tmp_path / "logs"], progress=look).ok
        assert set(during) == {1}
        assert st.conn.execute("SELECT current_setting('threads')").fetchone()[0] == 3
