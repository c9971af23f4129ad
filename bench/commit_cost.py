"""What one entry's transaction costs in DuckDB: the floor beside the service's own.

The floor is a bare DuckDB file holding only the tables an entry writes (``events``,
``heads``, ``service_requests``, with the store's own DDL and keys) and a night's worth of
events; each step is one transaction of the same three single-row inserts (the event, the
heads chain entry, the answer kept for a retry) and its commit, each statement timed. Ours
is ``TableService.enter`` of whole entries (rules, sealing, the same transaction), no HTTP.
Each is measured with DuckDB's default thread pool and with ``threads = 1``; the variants
take turns, step by step, so a shared machine's load falls on all of them alike.

Run with ``python -m bench.commit_cost [--entries N]``; the figures are printed only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .service import table_lines

STEPS = ("begin", "event", "heads", "answer", "commit", "total")


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


class Floor:
    """The bare transaction: three inserts and a commit, nothing else."""

    def __init__(self, path: Path, threads: int | None) -> None:
        import duckdb

        from gostop_records.service import tokens_answers
        from gostop_records.store.bulk import placeholder
        from gostop_records.store.schema import (
            EVENT_COLUMNS,
            HEADS_COLUMNS,
            _events_ddl,
            heads_ddl,
            quote,
        )

        self.conn = duckdb.connect(str(path), config={"threads": threads} if threads else {})
        c = self.conn
        c.execute(_events_ddl())
        c.execute(heads_ddl())
        tokens_answers.create_tables(c)
        names = ", ".join(quote(n) for n, _ in EVENT_COLUMNS)
        self.event_sql = (
            f"INSERT INTO events ({names}) VALUES ("
            + ", ".join(placeholder(t) for _, t in EVENT_COLUMNS)
            + ")"
        )
        heads = ", ".join(quote(n) for n, _ in HEADS_COLUMNS)
        self.heads_sql = (
            f"INSERT INTO heads ({heads}) VALUES (" + ", ".join("?" for _ in HEADS_COLUMNS) + ")"
        )
        self.payload = json.dumps(
            {"type": "card_played", "player": "P1", "card": "03G", "matched": ["03R"]}
        )
        self.body = json.dumps(
            {"game_id": "g", "version": 9, "events": [json.loads(self.payload)] * 2}
        )
        # a night at twenty tables: 100 events each already stored
        c.execute("BEGIN TRANSACTION")
        c.executemany(self.event_sql, [self._event(g, s) for g in range(20) for s in range(100)])
        c.execute("COMMIT")
        self.n = 0
        self.times: dict[str, list[float]] = {k: [] for k in STEPS}

    def _event(self, game: int, seq: int) -> list[Any]:
        stamp = "2026-12-02T07:00:00.000Z"
        return [
            f"g{game:02d}-0123456789abcdef",
            seq + 1,
            "card_played",
            1,
            stamp,
            stamp,
            "recorder",
            1,
            self.payload,
            "b" * 64,
        ]

    def step(self) -> None:
        c, n = self.conn, self.n
        self.n += 1
        ev = self._event(n % 20, 100 + n // 20)
        hd = [n + 1, "appended", ev[0], ev[1], "b" * 64, ev[4], None, "c" * 64, "d" * 64]
        an = [ev[0], f"key-{n}", "f" * 64, 201, self.body, ev[4]]
        t = [time.perf_counter()]
        c.execute("BEGIN TRANSACTION")
        t.append(time.perf_counter())
        c.execute(self.event_sql, ev)
        t.append(time.perf_counter())
        c.execute(self.heads_sql, hd)
        t.append(time.perf_counter())
        c.execute("INSERT INTO service_requests VALUES (?, ?, ?, ?, ?, ?)", an)
        t.append(time.perf_counter())
        c.execute("COMMIT")
        t.append(time.perf_counter())
        for k, name in enumerate(STEPS[:-1]):
            self.times[name].append((t[k + 1] - t[k]) * 1000)
        self.times["total"].append((t[-1] - t[0]) * 1000)


class Ours:
    """``TableService.enter`` of whole entries of simulated games, one after another."""

    def __init__(self, path: Path, threads: int | None) -> None:
        from gostop_records.service.core import TableService
        from gostop_records.service.settings import ServiceSettings

        cfg = ServiceSettings(store_threads=threads or (os.cpu_count() or 1))
        self.svc = TableService(path, settings=cfg)
        self.times: dict[str, list[float]] = {"total": []}
        self._entries = self._games()

    def _games(self) -> Any:
        import msgspec

        from gostop_records.service.models import NewGame

        seed = 0
        while True:
            game = msgspec.json.decode(self.svc.create_game(NewGame(players=["Ann", "Ben"])).body)
            self.version = game["version"]
            for k, line in enumerate(table_lines(300 + seed)):
                yield game["game_id"], line, f"{seed}-{k}"
            seed += 1

    def step(self) -> None:
        import msgspec

        from gostop_records.service.models import EntryIn

        gid, line, key = next(self._entries)
        start = time.perf_counter()
        ans = self.svc.enter(
            gid, EntryIn(expected_version=self.version, entry=line), idempotency_key=key
        )
        self.times["total"].append((time.perf_counter() - start) * 1000)
        self.version = msgspec.json.decode(ans.body)["version"]

    def close(self) -> None:
        self.svc.close()


def run(entries: int, work: Path) -> list[tuple[str, dict[str, list[float]]]]:
    from gostop_records.service.settings import ServiceSettings

    STORE_THREADS = ServiceSettings().store_threads

    makers: list[tuple[str, Callable[[Path], Any]]] = [
        ("floor, threads default", lambda p: Floor(p, None)),
        (f"floor, threads={STORE_THREADS}", lambda p: Floor(p, STORE_THREADS)),
        ("TableService.enter, threads default", lambda p: Ours(p, None)),
        (f"TableService.enter, threads={STORE_THREADS}", lambda p: Ours(p, STORE_THREADS)),
    ]
    shm = Path("/dev/shm")
    if shm.is_dir():  # the floor where a commit's fsync costs nothing: DuckDB's CPU alone
        mem = Path(tempfile.mkdtemp(prefix="gostop-bench-commit-", dir=shm))
        makers.append(("floor on tmpfs (no fsync cost)", lambda _p: Floor(mem / "f.duckdb", None)))
    runs = [(name, make(work / f"v{k}.duckdb")) for k, (name, make) in enumerate(makers)]
    for k in range(entries):
        for _name, r in runs if k % 2 else runs[::-1]:
            r.step()
    for _name, r in runs:
        if isinstance(r, Ours):
            r.close()
    if shm.is_dir():
        shutil.rmtree(mem, ignore_errors=True)
    return [(name, r.times) for name, r in runs]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.commit_cost", description=__doc__)
    ap.add_argument("--entries", type=int, default=300)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="gostop-bench-commit-"))
    start = os.getloadavg()[0]
    results = run(args.entries, work)
    end = os.getloadavg()[0]
    marked = " LOADED (above 0.5 per core)" if max(start, end) > 0.5 * (os.cpu_count() or 1) else ""
    print(f"load average (1 min): {start:.2f} before, {end:.2f} after{marked}")
    for name, times in results:
        print(name)
        for step, values in times.items():
            print(
                f"  {step:7s} p50 {_pct(values, 0.5):6.2f}  p90 {_pct(values, 0.9):6.2f}  "
                f"p99 {_pct(values, 0.99):6.2f}  mean {sum(values) / len(values):6.2f} ms"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
