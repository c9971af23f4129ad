"""The Parquet archive on a Dask LocalCluster of two workers: the store's tables row for row,
no partial partition after a failure, incremental builds that never rewrite a file."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from store_support import ROOT, break_a_rule, every_preset, gostop, write_games

from gostop_records import log
from gostop_records.store import Store
from gostop_records.store.layout import LAYOUT_TABLES

pytest.importorskip("dask.bag")
distributed = pytest.importorskip("distributed")

from gostop_records.archive import ArchiveError, build_archive, query  # noqa: E402
from gostop_records.archive import target as archive_target  # noqa: E402

QUERIES = sorted((ROOT / "samples" / "queries").glob("*.sql"))


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    with distributed.Client(cluster) as c:
        c.wait_for_workers(2)  # the units are planned for the workers there are
        yield c
    cluster.close()


def _corpus(seeds: tuple[int, ...]) -> list[list[Any]]:
    """Games of every preset, their dates spread over several months by the seeds."""
    return [g for s in seeds for g in every_preset(count=2, hands=2, seed=s)]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("archive-logs")
    first = _corpus((3, 70, 140))
    second = _corpus((250,))
    a = write_games(root / "a", first, per_file=4)
    b = write_games(root / "b", second, per_file=4)
    return {"root": root, "a": a, "b": b, "first": first, "second": second}


def _store(tmp: Path, files: list[Path]) -> Path:
    db = tmp / "store.duckdb"
    with Store(db) as st:
        report = st.import_paths(files, workers=0)
        assert report.ok
    return db


def _tables_of_store(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    with Store(db, read_only=True) as st:
        return {
            t: st.conn.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in LAYOUT_TABLES
        }


def _tables_of_archive(out: Path) -> dict[str, list[tuple[Any, ...]]]:
    return {t: query(str(out), f"SELECT * FROM {t} ORDER BY ALL").rows for t in LAYOUT_TABLES}


def _files(out: Path) -> dict[str, tuple[float, str]]:
    """Every file of the archive with its mtime and content hash."""
    found = {}
    for p in sorted(out.rglob("*")):
        if p.is_file():
            found[str(p.relative_to(out))] = (
                p.stat().st_mtime_ns,
                hashlib.sha256(p.read_bytes()).hexdigest(),
            )
    return found


def test_archive_equals_the_store_and_grows_without_rewriting(
    client: Any, logs: dict[str, Any], tmp_path: Path
) -> None:
    out = tmp_path / "archive"
    report = build_archive(
        [str(p) for p in logs["a"]], str(out), client=client, min_unit_events=500
    )
    assert report.ok, report.rejected
    assert report.games == len(logs["first"])
    assert report.units >= 2  # both workers had work
    db = _store(tmp_path, logs["a"])
    assert _tables_of_archive(out) == _tables_of_store(db)
    # coarse partitions: one folder per month and table, the event type a column
    months = {p.name for p in (out / "events").iterdir()}
    assert len(months) >= 3 and all(m.startswith("month=2026-") for m in months)
    assert not any(p.is_dir() for m in (out / "events").iterdir() for p in m.iterdir())
    assert report.units > len(months)  # some month had several units
    # the units' small files are merged: one file per table and month, each one a manifest
    # names holding the game's events
    for table in LAYOUT_TABLES:
        for m in (out / table).iterdir() if (out / table).exists() else ():
            assert len(list(m.iterdir())) == 1, (table, m.name)
    parts = query(str(out), "SELECT DISTINCT part FROM archive_manifest").rows
    assert len(parts) == len(months) and all((out / p).is_file() for (p,) in parts)
    # every column carries its documentation, as docs/sql.md has it
    import pyarrow.parquet as pq

    from gostop_records.store.columns import COLUMN_DOCS

    schema = pq.read_schema(next((out / "payouts").rglob("*.parquet")))
    assert (
        schema.field("pi_bak").metadata[b"description"].decode()
        == (COLUMN_DOCS["payouts"]["pi_bak"])
    )
    before = _files(out)

    # the same logs and new ones: the old games are skipped, every old file stays as it was
    again = build_archive([str(p) for p in [*logs["a"], *logs["b"]]], str(out), client=client)
    assert again.ok and again.skipped == len(logs["first"])
    assert again.games == len(logs["second"])
    after = _files(out)
    assert {k: after[k] for k in before} == before
    assert len(after) > len(before)
    db2 = tmp_path / "both"
    db2.mkdir()
    assert _tables_of_archive(out) == _tables_of_store(_store(db2, [*logs["a"], *logs["b"]]))
    manifest = query(str(out), "SELECT count(*), count(DISTINCT build) FROM archive_manifest")
    assert manifest.rows == [(len(logs["first"]) + len(logs["second"]), 2)]

    # nothing new: no build at all
    idle = build_archive([str(p) for p in logs["a"]], str(out), client=client)
    assert idle.build is None and idle.ok
    assert _files(out) == after


def test_an_archive_begun_before_version_8_grows_and_reads_as_the_store(
    client: Any, logs: dict[str, Any], tmp_path: Path
) -> None:
    """Events files written before schema version 8 carry a ``prev`` column; a build of
    this version adds files without it beside them, and the archive reads as the store."""
    import duckdb
    import pyarrow.parquet as pq

    from gostop_records.store.schema import PREV_SQL

    out = tmp_path / "archive"
    assert build_archive([str(p) for p in logs["a"]], str(out), client=client).ok
    old = sorted((out / "events").rglob("*.parquet"))
    con = duckdb.connect()
    for f in old:  # the layout before version 8: prev stored before hash
        con.execute(
            f"COPY (SELECT * EXCLUDE (hash), {PREV_SQL} AS prev, hash FROM read_parquet('{f}')"
            f" ORDER BY game_id, seq) TO '{f}.old' (FORMAT PARQUET)"
        )
        os.replace(f"{f}.old", f)
    con.close()
    again = build_archive([str(p) for p in [*logs["a"], *logs["b"]]], str(out), client=client)
    assert again.ok and again.games == len(logs["second"])
    assert all("prev" in pq.read_schema(f).names for f in old)
    new = set((out / "events").rglob("*.parquet")) - set(old)
    assert new and all("prev" not in pq.read_schema(f).names for f in new)
    both = tmp_path / "both"
    both.mkdir()
    assert _tables_of_archive(out) == _tables_of_store(_store(both, [*logs["a"], *logs["b"]]))


def test_files_stay_apart_past_the_file_size(
    client: Any, logs: dict[str, Any], tmp_path: Path
) -> None:
    out = tmp_path / "archive"
    report = build_archive(
        [str(p) for p in logs["a"]], str(out), client=client, min_unit_events=500, file_bytes=1
    )
    assert report.ok
    assert len(report.files["events"]) == report.units > len(list((out / "events").iterdir()))
    assert _tables_of_archive(out) == _tables_of_store(_store(tmp_path, logs["a"]))


def test_sample_queries_answer_the_same_over_archive_and_store(
    client: Any, logs: dict[str, Any], tmp_path: Path
) -> None:
    out = tmp_path / "archive"
    assert build_archive([str(p) for p in logs["a"]], str(out), client=client).ok
    db = _store(tmp_path, logs["a"])
    assert QUERIES
    with Store(db, read_only=True) as st:
        for q in QUERIES:
            sql = q.read_text()
            assert query(str(out), sql).rows == st.query(sql).rows, q.name


def test_a_failure_while_writing_leaves_no_partial_partition(
    client: Any, logs: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "archive"
    calls = {"n": 0}

    def fail_on_the_fifth(path: str) -> None:
        calls["n"] += 1
        if calls["n"] == 5:
            raise OSError("worker killed while writing")

    monkeypatch.setattr(archive_target, "_written", fail_on_the_fifth)
    with pytest.raises(ArchiveError, match="run it again"):
        build_archive([str(p) for p in logs["a"]], str(out), client=client)
    assert calls["n"] >= 5
    # nothing readable was left: no build record, no file in any partition
    assert not (out / "_builds").exists()
    assert not any(
        p.is_file() for t in LAYOUT_TABLES if (out / t).exists() for p in (out / t).rglob("*")
    )
    with pytest.raises(ArchiveError, match="no archive"):
        query(str(out), "SELECT 1")
    monkeypatch.undo()

    report = build_archive([str(p) for p in logs["a"]], str(out), client=client)
    assert report.ok and report.games == len(logs["first"])
    assert not (out / archive_target.STAGING).exists()
    assert not [p for p in out.rglob("*") if ".tmp-" in p.name]
    assert _tables_of_archive(out) == _tables_of_store(_store(tmp_path, logs["a"]))


def test_leftovers_of_an_unfinished_build_are_removed_and_the_games_built(
    client: Any, logs: dict[str, Any], tmp_path: Path
) -> None:
    """A build killed after moving some files into place but before its record."""
    out = tmp_path / "archive"
    assert build_archive([str(p) for p in logs["a"][:2]], str(out), client=client).ok
    kept = _files(out)
    stray = out / "events" / "month=2026-01" / "part-20990101T000000Zdeadbe-0.parquet"
    stray.parent.mkdir(parents=True, exist_ok=True)
    stray.write_bytes(b"half a file")
    (out / "games" / "month=2026-01").mkdir(parents=True, exist_ok=True)
    (out / "games" / "month=2026-01" / "x.parquet.tmp-1234").write_bytes(b"")
    report = build_archive([str(p) for p in logs["a"]], str(out), client=client)
    assert report.ok and len(report.removed) == 2
    assert not stray.exists()
    after = _files(out)
    assert {k: after[k] for k in kept} == kept
    assert _tables_of_archive(out) == _tables_of_store(_store(tmp_path, logs["a"]))


def test_rejected_and_changed_games_are_reported(
    client: Any, logs: dict[str, Any], tmp_path: Path
) -> None:
    first = logs["first"]
    folder = tmp_path / "logs"
    broken, seq = break_a_rule(first[0])
    good = write_games(folder, first[1:3], per_file=2)
    bad = folder / "broken.jsonl"
    log.write_log(bad, broken)
    out = tmp_path / "archive"
    report = build_archive([str(p) for p in [*good, bad]], str(out), client=client)
    assert report.games == 2
    [problem] = report.rejected
    assert (problem.file, problem.game_id, problem.seq, problem.line) == (
        str(bad),
        first[0][0].game_id,
        seq,
        seq,
    )
    assert problem.rule
    record = json.loads(next((out / "_builds").iterdir()).read_text())
    assert record["rejected"][0]["seq"] == seq and record["rejected"][0]["line"] == seq

    # the same game id with other events: reported as changed, the archive keeps its own
    changed = folder / "changed.jsonl"
    log.write_log(changed, first[1][:-3])
    before = _files(out)
    again = build_archive([str(changed)], str(out), client=client)
    assert again.skipped == 0 and again.games == 0
    [c] = again.changed
    assert c.game_id == first[1][0].game_id and c.rule == "game_changed"
    assert {k: v for k, v in _files(out).items() if k in before} == before


def test_a_game_cut_across_pieces_and_files_is_read_whole(
    client: Any, logs: dict[str, Any], tmp_path: Path
) -> None:
    games = logs["first"][:6]
    folder = tmp_path / "split"
    folder.mkdir()
    events = [e for g in games for e in g]
    half = len(events) // 2
    log.write_log(folder / "1.jsonl", events[:half])
    log.write_log(folder / "2.jsonl", events[half:])
    out = tmp_path / "archive"
    report = build_archive([str(folder)], str(out), client=client, piece_bytes=20_000)
    assert report.ok and report.games == len(games), report.rejected
    db = _store(tmp_path, [folder / "1.jsonl", folder / "2.jsonl"])
    assert _tables_of_archive(out) == _tables_of_store(db)


def test_export_shares_the_layout(client: Any, logs: dict[str, Any], tmp_path: Path) -> None:
    db = _store(tmp_path, logs["a"])
    out = tmp_path / "export"
    done = gostop("db", "export", "--parquet", str(out), "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    assert {p.name for p in (out / "events").iterdir()} == {
        p.name for p in (out / "games").iterdir()
    }
    assert _tables_of_archive(out) == _tables_of_store(db)
    files = [p for p in out.rglob("*.parquet")]
    assert len(files) <= 12 * (len(LAYOUT_TABLES) + 1)


def test_cli_builds_and_queries(logs: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "archive"
    done = gostop(
        "archive",
        "build",
        *map(str, logs["a"][:2]),
        "--out",
        str(out),
        "--workers",
        "1",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"] == 8
    # in a pipe: the stages, then a plain line per tenth of the units built
    err = done.stderr.splitlines()
    assert any(ln.startswith("gostop: archive: scanned 2 log(s): 8 game(s)") for ln in err)
    units = [ln for ln in err if ln.startswith("archive: ")]
    assert units and re.fullmatch(r"archive: (\d+)/\1 units \(100%\)", units[-1]), err
    q = gostop("archive", "query", str(out), "SELECT count(*) AS n FROM games", "--format", "csv")
    assert q.returncode == 0, q.stderr
    assert q.stdout.splitlines() == ["n", "8"]
    bad = gostop("archive", "query", str(out), "DELETE FROM events")
    assert bad.returncode == 1 and "read-only" in bad.stderr
    assert os.listdir(out)


def test_logs_and_archive_on_an_fsspec_filesystem(
    client: Any, logs: dict[str, Any], tmp_path: Path
) -> None:
    """Object storage through fsspec URLs (the in-memory filesystem stands in for s3://)."""
    import fsspec

    mem = fsspec.filesystem("memory")
    for p in logs["a"][:2]:
        mem.pipe(f"/club/logs/{p.name}", p.read_bytes())
    try:
        report = build_archive(["memory://club/logs"], "memory://club/archive", client=client)
        assert report.ok and report.games == 8
        assert mem.exists("/club/archive/_builds")
        db = _store(tmp_path, logs["a"][:2])
        assert _tables_of_archive_url("memory://club/archive") == _tables_of_store(db)
        [row] = query(
            "memory://club/archive",
            "SELECT DISTINCT source FROM archive_manifest ORDER BY 1 LIMIT 1",
        ).rows
        assert row[0].startswith("memory://") and row[0].endswith("/club/logs/games-00000.jsonl")
    finally:
        mem.rm("/club", recursive=True)


def _tables_of_archive_url(url: str) -> dict[str, list[tuple[Any, ...]]]:
    return {t: query(url, f"SELECT * FROM {t} ORDER BY ALL").rows for t in LAYOUT_TABLES}


class _KillWhileWriting(distributed.WorkerPlugin):
    """Ends the worker process the first time any worker has a data file complete under
    its temporary name, before the rename: a worker killed mid-build."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def setup(self, worker: Any) -> None:
        marker = self.marker

        def die(path: str) -> None:
            try:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.write(fd, path.encode())
            os.close(fd)
            os._exit(1)

        archive_target._written = die


def test_a_worker_process_killed_mid_build(logs: dict[str, Any], tmp_path: Path) -> None:
    """Dask runs the killed worker's task again elsewhere; its half-written file is never
    published, and the archive still equals the store."""
    marker = tmp_path / "killed"
    out = tmp_path / "archive"
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        c.register_plugin(_KillWhileWriting(str(marker)))
        report = build_archive([str(p) for p in logs["a"]], str(out), client=c)
    assert marker.exists()  # a worker did die while it wrote
    assert ".tmp-" in marker.read_text()
    assert report.ok and report.games == len(logs["first"])
    assert not (out / archive_target.STAGING).exists()
    assert not [p for p in out.rglob("*") if ".tmp-" in p.name]
    assert _tables_of_archive(out) == _tables_of_store(_store(tmp_path, logs["a"]))
