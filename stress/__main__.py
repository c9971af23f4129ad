"""``make stress``: crash, fuzz, tampering, concurrency, full-disk and SQL-safety probes.

Run with ``python -m stress [--quick] [--seed N] [--keep DIR]``. Prints the figures of every
probe at the end (trials, survived, lost, tracebacks) and exits 1 when any probe found a
failure; bounded to a few minutes on a two-core machine (``--quick``: well under one).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from gostop_records.store import Store

from . import concurrency, crash, faults, fuzz, soak, sql, tamper
from .damage import write_corpus
from .figures import Figures, render


def _plan(work: Path, quick: bool, seed: int) -> list[tuple[str, Callable[[], Figures]]]:
    k = 4 if quick else 1  # quick: about a quarter of every probe
    tamper.load_plugins()
    base = fuzz.base_games(6, 1, seed)
    longer = fuzz.base_games(4, 2, seed + 1)
    logs, _ = write_corpus(work / "logs", longer, 0, 120 // k, seed)
    store_file = work / "sql.duckdb"

    def sql_store() -> Path:
        if not store_file.exists():
            with Store(store_file) as st:
                st.import_paths(logs[:10], workers=0)
        return store_file

    return [
        (
            "import fuzz",
            lambda: fuzz.import_fuzz(work, trials=400 // k, clean=40 // k, seed=seed, base=base),
        ),
        (
            "import fuzz, workers",
            lambda: fuzz.import_fuzz(
                work, trials=160 // k, clean=20 // k, seed=seed + 1, workers=2, base=longer
            ),
        ),
        ("reader fuzz", lambda: fuzz.reader_fuzz(work, trials=100 // k, seed=seed)),
        ("tampering", lambda: tamper.tampering(work, base, rounds=10 // k, seed=seed)),
        ("SQL safety", lambda: sql.sql_safety(work, sql_store())),
        ("SQL safety, files", lambda: sql.sql_safety(work, sql_store(), allow_files=True)),
        (
            "disk full, log",
            lambda: faults.disk_full_recording(
                work, kind="jsonl", leaves=[200 + 7_000 * i for i in range(9 // k + 1)], seed=seed
            ),
        ),
        (
            "disk full, store",
            lambda: faults.disk_full_recording(
                work, kind="duckdb", leaves=[20_000, 80_000, 150_000][: 3 // k or 1], hands=2
            ),
        ),
        (
            "disk full, import",
            lambda: faults.disk_full_import(
                work, logs, leaves=[50_000, 300_000, 900_000][: 3 // k or 1]
            ),
        ),
        ("kill -9, log", lambda: crash.crash_recording(work, trials=20 // k, seed=seed)),
        (
            "kill -9, store",
            lambda: crash.crash_recording(work, trials=4 // k, kind="duckdb", seed=seed),
        ),
        ("kill -9, import", lambda: crash.crash_import(work, logs, trials=8 // k, seed=seed)),
        ("kill -9, service", lambda: crash.crash_service(work, trials=8 // k, seed=seed)),
        (
            "racing appends",
            lambda: concurrency.racing_appends(work, threads=4, appends=25 // k),
        ),
        ("second writers", lambda: concurrency.second_writers(work)),
        (
            "soak of gostop serve",
            lambda: soak.soak(work / "soak", seconds=120 / k, seed=seed).fig,
        ),
        *((p.__name__, (lambda p=p: p(work))) for p in tamper.PROBES),  # type: ignore[misc]
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m stress", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="a quarter of every probe")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = ap.parse_args(argv)
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gostop-stress-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        figures: list[Figures] = []
        for name, probe in _plan(work, args.quick, args.seed):
            print(f"stress: {name} ...", file=sys.stderr, flush=True)
            try:
                fig = probe()
            except Exception as exc:  # a probe that breaks is a failure, not the end
                fig = Figures(name, trials=1, tracebacks=1)
                fig.fail(f"the probe itself failed: {type(exc).__name__}: {exc}")
            figures.append(fig)
            state = "skipped" if fig.skipped else ("ok" if fig.ok else "FAILED")
            print(
                f"stress: {name}: {state}, {fig.survived}/{fig.trials} in {fig.seconds:.1f} s",
                file=sys.stderr,
                flush=True,
            )
    print(render(figures))
    for f in figures:
        for note in f.notes:
            print(f"- {f.probe}: {note}")
        if f.skipped:
            print(f"- {f.probe}: skipped: {f.skipped}")
        for what in f.failures:
            print(f"- {f.probe}: FAILED: {what}")
    print(f"\n{time.perf_counter() - began:.0f} s in all")
    return 0 if all(f.ok for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
