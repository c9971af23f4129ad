"""Large files checked by worker processes: the same store, the same report as in-process."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from store_support import break_a_rule, every_preset, games

from gostop_records import log
from gostop_records.events import Envelope
from gostop_records.store import Store, importer, parallel
from gostop_records.store.schema import TABLES


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of a few kilobytes, so that a test file is cut into many."""
    monkeypatch.setattr(parallel, "PIECE_BYTES", 6_000)
    monkeypatch.setattr(parallel, "MIN_BYTES", 1)


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of runs of each piece a worker checked and the importer took up."""
    seen: list[int] = []
    real = importer.Importer._take

    def spy(self: importer.Importer, task: Any, result: Any, at: Any) -> None:
        seen.append(sum(len(part.notes) for part in result.parts))
        real(self, task, result, at)

    monkeypatch.setattr(importer.Importer, "_take", spy)
    return seen


def _tables(st: Store) -> dict[str, list[Any]]:
    return {
        name: sorted(st.conn.execute(f"SELECT * FROM {name}").fetchall(), key=repr)
        for name in ("events", *TABLES)
    }


def _both(tmp_path: Path, files: list[Path], **kw: Any) -> tuple[Any, Any, Store, Store]:
    """The same import in-process and with two workers, into two fresh stores."""
    inproc = Store(tmp_path / "inproc.duckdb")
    workers = Store(tmp_path / "workers.duckdb")
    a = inproc.import_paths(files, workers=0, **kw)
    b = workers.import_paths(files, workers=2, **kw)
    return a, b, inproc, workers


def _same(a: Any, b: Any, inproc: Store, workers: Store) -> None:
    try:
        ra, rb = a.to_dict(), b.to_dict()
        key = lambda p: (p["file"], p["game_id"] or "", p["seq"] or 0)  # noqa: E731
        for r in (ra, rb):
            r["rejected"] = sorted(r["rejected"], key=key)
            r["conflicts"] = sorted(r["conflicts"], key=key)
        assert ra == rb
        assert _tables(inproc) == _tables(workers)
        assert workers.verify().ok
    finally:
        inproc.close()
        workers.close()


def test_pieces_hold_whole_runs(tmp_path: Path) -> None:
    logs = every_preset(count=2, hands=1, seed=5)
    path = tmp_path / "all.jsonl"
    log.write_jsonl(path, [e for g in logs for e in g])
    data = path.read_bytes()
    spans = list(parallel.pieces(path, 3_000))
    tasks = list(parallel.tasks([path], 3_000))
    assert [t[0].span for t in tasks] == spans and [t[0].last for t in tasks][-2:] == [False, True]
    assert len(spans) > 3
    assert spans[0][0] == 0 and spans[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    for start, _ in spans[1:]:
        before = data[:start].splitlines()[-1]
        after = data[start:].split(b"\n", 1)[0]
        assert json.loads(before)["game_id"] != json.loads(after)["game_id"]


def test_a_clean_corpus_gives_the_same_tables(
    tmp_path: Path, small_pieces: None, taken: list[int]
) -> None:
    logs = every_preset(count=3, hands=2, seed=61)
    path = tmp_path / "all.jsonl"
    log.write_jsonl(path, [e for g in logs for e in g])
    a, b, inproc, workers = _both(tmp_path, [path])
    assert b.ok and b.imported == len(logs)
    assert len(taken) > 3 and sum(taken) == len(logs)  # checked by the workers, in pieces
    _same(a, b, inproc, workers)


def _reseal(events: list[Envelope]) -> list[Envelope]:
    return log.seal([msgspec.structs.replace(e, prev="", hash="") for e in events])


def test_every_kind_of_run_is_decided_as_in_process(tmp_path: Path, small_pieces: None) -> None:
    """Rejections, a broken chain, a game repeated in its file, a stored prefix, a game
    split across files: each decided where the in-process import decides it."""
    logs = games("matgo", 2, count=8, hands=2, seed=62)
    broken_rules, bad_seq = break_a_rule(logs[0])
    tampered = list(logs[1])
    k = len(tampered) // 2
    tampered[k] = msgspec.structs.replace(tampered[k], at="2030-01-01T00:00:00.000Z")
    split = logs[2]
    half = len(split) // 2
    body = [
        *broken_rules,
        *tampered,
        *split[:half],
        *logs[3],
        *logs[4],
        *logs[5],
        *logs[4],  # the same game again in its file: its lines are not one run
        *logs[6],
    ]
    path = tmp_path / "mixed.jsonl"
    log.write_jsonl(path, body)
    extra = tmp_path / "later.jsonl"
    # the continuation of a game begun in the other file; logs[5] again: stored by then
    log.write_jsonl(extra, [*logs[7], *split[half:], *logs[5]])
    stored_prefix = logs[6][:10]
    with Store(tmp_path / "inproc.duckdb") as a_st, Store(tmp_path / "workers.duckdb") as b_st:
        for st in (a_st, b_st):
            st.import_envelopes(stored_prefix)
    a, b, inproc, workers = _both(tmp_path, [path, extra])
    assert {(p.game_id, p.seq) for p in b.rejected} >= {(logs[0][0].game_id, bad_seq)}
    assert any(p.rule == "hash_chain" and p.game_id == logs[1][0].game_id for p in b.rejected)
    assert any(p.rule == "one_run" and p.game_id == logs[4][0].game_id for p in b.rejected)
    assert b.extended >= 2 and b.skipped >= 1
    _same(a, b, inproc, workers)


def test_lenient_imports_count_the_same_violations(tmp_path: Path, small_pieces: None) -> None:
    logs = games("gamerules", 2, count=6, hands=1, seed=63)
    broken, _ = break_a_rule(logs[2])
    path = tmp_path / "lenient.jsonl"
    log.write_jsonl(path, [e for g in [*logs[:2], broken, *logs[3:]] for e in g])
    a, b, inproc, workers = _both(tmp_path, [path], strict=False)
    assert b.violations >= 1 and b.imported == len(logs)
    _same(a, b, inproc, workers)


def test_a_read_error_ends_the_file_at_the_same_line(tmp_path: Path, small_pieces: None) -> None:
    logs = games("gostop3", 3, count=8, hands=1, seed=64)
    lines = [log.encode_json(e) + b"\n" for g in logs for e in g]
    bad = len(lines) * 2 // 3
    lines[bad] = b'{"game_id": "broken", "seq": \n'
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b"".join(lines))
    a, b, inproc, workers = _both(tmp_path, [path])
    assert [p.line for p in b.rejected] == [bad + 1]
    assert "the rest of the file was not read" in b.rejected[0].reason
    _same(a, b, inproc, workers)


@pytest.mark.parametrize(
    "failure",
    [
        ("WORKER_CODE", "import sys; sys.exit(3)"),  # workers that die at once
        ("executable", "no-such-python"),  # workers that cannot start
    ],
)
def test_failed_workers_leave_the_import_to_this_process(
    tmp_path: Path,
    small_pieces: None,
    monkeypatch: pytest.MonkeyPatch,
    taken: list[int],
    failure: tuple[str, str],
) -> None:
    name, value = failure
    if name == "executable":
        monkeypatch.setattr(parallel.sys, "executable", str(tmp_path / value))
    else:
        monkeypatch.setattr(parallel, name, value)
    logs = every_preset(count=2, hands=1, seed=65)
    path = tmp_path / "all.jsonl"
    log.write_jsonl(path, [e for g in logs for e in g])
    a, b, inproc, workers = _both(tmp_path, [path])
    assert b.ok and b.imported == len(logs)
    assert taken == []
    _same(a, b, inproc, workers)


def test_a_folder_of_small_files_goes_to_the_workers_in_order(
    tmp_path: Path, small_pieces: None, taken: list[int]
) -> None:
    """Small files gathered into tasks, a msgpack log read in between by the importer, a
    large file in pieces, a game continued in a later file and a read error in one file:
    the same store and report as in-process."""
    logs = games("gamerules", 3, count=24, hands=1, seed=67)
    folder = tmp_path / "logs"
    folder.mkdir()
    for k, game in enumerate(logs[:12]):
        log.write_jsonl(folder / f"a{k:02d}.jsonl", game)
    log.write_log(folder / "b-middle.msgpack", [e for g in logs[12:14] for e in g])
    big = [e for g in logs[14:20] for e in g]
    log.write_jsonl(folder / "c-big.jsonl", big)
    half = len(logs[20]) // 2
    log.write_jsonl(folder / "d-start.jsonl", logs[20][:half])
    log.write_jsonl(folder / "e-rest.jsonl", logs[20][half:])
    lines = [log.encode_json(e) + b"\n" for g in logs[21:24] for e in g]
    lines[len(lines) // 2] = b"not json\n"
    (folder / "f-cut.jsonl").write_bytes(b"".join(lines))
    a, b, inproc, workers = _both(tmp_path, [folder])
    assert b.files == 17 and b.extended == 1
    assert [p.file for p in b.rejected] == [str(folder / "f-cut.jsonl")]
    assert len(taken) > 3  # the workers took part
    _same(a, b, inproc, workers)
