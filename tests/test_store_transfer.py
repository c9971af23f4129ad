"""A worker's rows sent in memory files over a socket: the same tables, nothing left open."""

from __future__ import annotations

import gc
import os
import socket
from pathlib import Path
from typing import Any

import pytest
from store_support import every_preset

from gostop_records import log
from gostop_records.store import Store, parallel, transfer
from gostop_records.store.bulk import arrow_available

pytestmark = [
    pytest.mark.skipif(not arrow_available(), reason="needs pyarrow"),
    pytest.mark.skipif(not transfer.available(), reason="needs memfd and descriptor passing"),
]


def _tables() -> dict[str, Any]:
    import pyarrow as pa

    return {
        "events": pa.table({"game_id": ["a", "a", "b"], "seq": [1, 2, 1]}),
        "hands": pa.table({"game_id": pa.array([], pa.string())}),  # no rows: a schema only
        "turns": pa.table({"payload": pa.array([b'{"x":1}'], pa.json_(pa.string()))}),
    }


def _memory_files() -> list[str]:
    """The memory files this process holds open or mapped."""
    fds = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            fds.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            continue
    with open("/proc/self/maps") as maps:
        mapped = [line.split()[-1] for line in maps if "gostop-rows" in line]
    return [name for name in fds if "gostop-rows" in name] + mapped


def test_tables_arrive_equal_and_as_views_of_the_mapped_file() -> None:
    ours, theirs = transfer.channel()
    with ours, theirs:
        sent = _tables()
        index = transfer.send(theirs, sent)
        assert index is not None and [name for name, _, _ in index] == list(sent)
        assert _memory_files() == []  # the sender keeps no descriptor
        got = transfer.receive(ours, index)
        assert got.keys() == sent.keys()
        for name, table in sent.items():
            assert got[name].equals(table)
        assert any("gostop-rows" in m for m in _memory_files())  # mapped, not copied
        del got
        gc.collect()
        assert _memory_files() == []  # freed with the last table


def test_no_memory_file_leaves_the_tables_in_the_result(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any) -> int:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(os, "memfd_create", refuse)
    ours, theirs = transfer.channel()
    with ours, theirs:
        tables = _tables()
        result = parallel.PieceResult([], tables.pop("events"), tables)
        parallel._send_apart(theirs, result)
        assert result.shared is None and result.events.num_rows == 3 and len(result.rows) == 2


def test_a_socket_without_descriptor_is_an_error_not_a_hang() -> None:
    ours, theirs = transfer.channel()
    with ours:
        theirs.close()  # the worker died before sending
        with pytest.raises(OSError, match="no rows"):
            transfer.receive(ours, [("events", 0, 10)])


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(parallel, "PIECE_BYTES", 6_000)
    monkeypatch.setattr(parallel, "MIN_BYTES", 1)
    logs = every_preset(count=2, hands=1, seed=91)
    path = tmp_path / "all.jsonl"
    log.write_jsonl(path, [e for g in logs for e in g])
    return path


def _rows(path: Path) -> dict[str, list[Any]]:
    with Store(path) as st:
        return {
            name: sorted(st.conn.execute(f"SELECT * FROM {name}").fetchall(), key=repr)
            for name in ("events", "games", "hands", "turns", "captures", "payouts")
        }


@pytest.fixture
def received(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of tables of each memory file the importer received."""
    seen: list[int] = []
    real = transfer.receive

    def spy(sock: socket.socket, index: transfer.Index) -> dict[str, Any]:
        seen.append(len(index))
        return real(sock, index)

    monkeypatch.setattr(transfer, "receive", spy)
    return seen


def test_an_import_through_memory_files_equals_one_through_pipes(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch, received: list[int]
) -> None:
    with Store(tmp_path / "shared.duckdb") as st:
        shared = st.import_paths([corpus], workers=2)
    assert len(received) > 3  # every piece's rows came in a memory file
    gc.collect()
    assert _memory_files() == []  # none left open or mapped after the import
    monkeypatch.setattr(transfer, "available", lambda: False)
    received.clear()
    with Store(tmp_path / "piped.duckdb") as st:
        piped = st.import_paths([corpus], workers=2)
    assert received == []  # pickled through the pipes
    assert shared.to_dict() == piped.to_dict() and shared.ok
    assert _rows(tmp_path / "shared.duckdb") == _rows(tmp_path / "piped.duckdb")


#: A worker that sends its first piece's rows and dies at its second piece.
DIES_AT_SECOND = """
import os
from gostop_records.store import parallel as p
real, seen = p.check_piece, []
def first_only(*args):
    seen.append(1)
    if len(seen) > 1:
        os._exit(9)
    return real(*args)
p.check_piece = first_only
p.serve()
"""


def test_a_worker_killed_after_sending_rows_leaves_the_rest_to_the_importer(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch, received: list[int]
) -> None:
    with Store(tmp_path / "alone.duckdb") as st:
        alone = st.import_paths([corpus], workers=0)
    monkeypatch.setattr(parallel, "WORKER_CODE", DIES_AT_SECOND)
    with Store(tmp_path / "killed.duckdb") as st:
        killed = st.import_paths([corpus], workers=2)
    assert received  # rows came from the workers before they died
    gc.collect()
    assert _memory_files() == []
    assert killed.to_dict() == alone.to_dict() and killed.ok
    assert _rows(tmp_path / "killed.duckdb") == _rows(tmp_path / "alone.duckdb")
