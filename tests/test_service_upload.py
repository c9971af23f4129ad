"""An upload (``POST /api/import``, a finished ``/play`` hand) goes the entries' way: checked
by the rules before the writer, judged against the store and appended through the journal,
with the same verdicts as ``db import``."""

from __future__ import annotations

import shutil
from pathlib import Path

from service_helpers import hand_lines

from gostop_records.names import FORGOTTEN
from gostop_records.service import reads as R
from gostop_records.service.core import EntryRequest, TableService
from gostop_records.service.models import EntryIn, NewGame


def _record(svc: TableService, game_id: str, lines: list[str], players: list[str]) -> None:
    svc.create_game(NewGame(players=players, game_id=game_id))
    for line in lines:
        entry = EntryIn(expected_version=svc.store.version(game_id), entry=line)
        answer = svc.enter_group([EntryRequest(game_id, entry)])[0]
        assert not isinstance(answer, Exception), answer


def _log(svc: TableService, game_id: str) -> list[bytes]:
    svc.store.settle()
    return R.event_lines(svc.store.conn, game_id).splitlines(keepends=True)


def test_an_upload_imports_extends_and_skips_beside_a_live_session(tmp_path: Path) -> None:
    one = TableService(tmp_path / "one.duckdb", sign=False)
    two = TableService(tmp_path / "two.duckdb", sign=False)
    try:
        lines = hand_lines("matgo", 2, 7)[1]
        _record(two, "g", lines[:12], ["Ann", "Ben"])
        log = _log(two, "g")
        k = 5
        first = one.import_jsonl(b"".join(log[:k]))
        assert (first["imported"], first["events"], first["ok"]) == (1, k, True)
        one.now("g")  # a recording session of the game as the upload left it
        assert "g" in one.live
        more = one.import_jsonl(b"".join(log))
        assert (more["extended"], more["events"]) == (1, len(log) - k)
        assert "g" not in one.live  # the session was behind the store: it is read again
        # at once again, while the journal may still hold the events: nothing to add
        again = one.import_jsonl(b"".join(log))
        assert (again["skipped"], again["events"]) == (1, 0)
        # the next entry continues the uploaded record exactly as at the table it came from
        nxt = EntryIn(expected_version=len(log), entry=lines[12])
        for svc in (one, two):
            answer = svc.enter_group([EntryRequest("g", nxt)])[0]
            assert not isinstance(answer, Exception), answer
        assert [e.event for e in one.events("g")][1:] == [e.event for e in two.events("g")][1:]
        # the names are sealed under keys of the store that recorded them: not uploaded
        assert [p.name for p in two.events("g")[0].event.players] == ["Ann", "Ben"]
        assert [p.name for p in one.events("g")[0].event.players] == [FORGOTTEN, FORGOTTEN]
        one.store.settle()
        kinds = one.store.conn.execute(
            "SELECT kind FROM heads WHERE game_id = 'g' ORDER BY entry"
        ).fetchall()
        assert [k for (k,) in kinds][:2] == ["game_imported", "game_imported"]
        one.flush_rows()
        assert one.store.verify().ok
    finally:
        one.close()
        two.close()


def test_an_upload_that_differs_from_the_stored_game_writes_nothing(tmp_path: Path) -> None:
    one = TableService(tmp_path / "one.duckdb", sign=False)
    two = TableService(tmp_path / "two.duckdb", sign=False)
    try:
        lines = hand_lines("matgo", 2, 3)[1][:6]
        _record(one, "h", lines, ["Cy", "Di"])
        _record(two, "h", lines, ["Ann", "Ben"])
        before = one.store.version("h")
        report = one.import_jsonl(b"".join(_log(two, "h")))
        assert report["ok"] is False and report["events"] == 0
        (conflict,) = report["conflicts"]
        assert conflict["game_id"] == "h" and conflict["seq"] == 1
        assert "the stored events are kept" in conflict["reason"]
        assert one.store.version("h") == before
        # a gap: the upload starts past what the store holds
        tail = _log(two, "h")[3:]
        fresh = TableService(tmp_path / "fresh.duckdb", sign=False)
        try:
            gap = fresh.import_jsonl(b"".join(tail))
            (rejected,) = gap["rejected"]
            assert rejected["rule"] == "seq_dense" and rejected["file"] == "upload"
            assert rejected["line"] == 1
        finally:
            fresh.close()
    finally:
        one.close()
        two.close()


def test_an_uploaded_games_rows_show_names_as_the_store_does(tmp_path: Path) -> None:
    """Names sealed under another store's keys are forgotten in every row, whether the rows
    came from the upload's own derivation or an extension's; a store that holds the keys
    (a copy of the one that recorded the game) opens them."""
    one = TableService(tmp_path / "one.duckdb", sign=False)
    two = TableService(tmp_path / "two.duckdb", sign=False)
    lines = hand_lines("matgo", 2, 7)[1]
    try:
        _record(two, "h", lines[:2], ["Ann", "Ben"])
        seats = list(two.events("h")[0].event.players)
        two.store.settle()
        two.flush_rows()
        two.store.conn.execute("CHECKPOINT")
        shutil.copy(tmp_path / "two.duckdb", tmp_path / "copy.duckdb")
        _record(two, "g", lines[:12], seats)
        log = _log(two, "g")
        one.import_jsonl(b"".join(log[:5]))
        one.flush_rows()
        names = "SELECT player_names FROM games WHERE game_id = 'g'"
        assert one.store.conn.execute(names).fetchone() == ([FORGOTTEN, FORGOTTEN],)
        one.import_jsonl(b"".join(log))  # extended: its rows derived from the upload's run
        one.flush_rows()
        assert one.store.conn.execute(names).fetchone() == ([FORGOTTEN, FORGOTTEN],)
        assert one.store.verify().ok
    finally:
        one.close()
        two.close()
    copy = TableService(tmp_path / "copy.duckdb", sign=False)
    try:
        assert copy.import_jsonl(b"".join(log))["imported"] == 1
        copy.flush_rows()
        assert copy.store.conn.execute(names).fetchone() == (["Ann", "Ben"],)
        assert copy.store.verify().ok
    finally:
        copy.close()
