"""Servers of several settings side by side: the twenty tables at a recorder's pace.

``python -m bench.service_variants NAME=VAR=VALUE[,VAR=VALUE] ...`` starts one ``gostop
serve`` per variant and round, in the order A B C, C B A, A B C ... (a load that drifts
weighs on all alike), each on a fresh store, and prints each variant's client latency, the
server side (``Server-Timing``: ``app``, the wait for the store thread, the store's work,
the rest) and the server's CPU time. A variant with no variables (``settler=``) is the
server as it is. For example, the journal settled by the store thread against the
settler, and the settler's batch marks::

    python -m bench.service_variants thread=GOSTOP_SERVICE_SETTLER=off settler= \\
        big=GOSTOP_SERVICE_SETTLE=64/2 --entries 40 --rounds 2

Nothing is written to RESULTS.md: copy what the comparison shows, with the machine's state.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path
from typing import Any

from gostop_records.store.journal import segments

from .service import _pct, _tables, running_server


def _variant(text: str) -> tuple[str, dict[str, str]]:
    name, _, rest = text.partition("=")
    env: dict[str, str] = {}
    for pair in filter(None, rest.split(",")):
        var, sep, value = pair.partition("=")
        if not sep or not var:
            raise argparse.ArgumentTypeError(f"{text!r}: give NAME=VAR=VALUE[,VAR=VALUE]")
        env[var] = value
    if not name:
        raise argparse.ArgumentTypeError(f"{text!r}: the variant needs a name")
    return name, env


def _p(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * q))] if s else 0.0


def _run(
    work: Path,
    order: list[tuple[str, dict[str, str]]],
    entries: int,
    lat: dict[str, list[float]],
    timing: dict[str, list[dict[str, float]]],
    cpu: dict[str, float],
) -> None:
    for k, (name, env) in enumerate(order):
        db = work / f"s{k}.duckdb"
        for seg in segments(db):
            seg.unlink()
        before = os.times()
        with running_server(db, env) as url:
            groups: list[dict[str, float]] = []
            got, rate = asyncio.run(_tables(url, entries, 0.5, groups))
        after = os.times()
        used = (after.children_user + after.children_system) - (
            before.children_user + before.children_system
        )
        lat[name] += got
        timing[name] += groups
        cpu[name] += used
        print(
            f"{name}: p50 {_pct(got, 0.5):.1f} ms, p99 {_pct(got, 0.99):.1f} ms, "
            f"{rate:.1f} entries/s, server CPU {used:.1f} s, load {os.getloadavg()[0]:.2f}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.service_variants", description=__doc__)
    ap.add_argument("variants", nargs="+", type=_variant, help="NAME=VAR=VALUE[,VAR=VALUE]")
    ap.add_argument("--entries", type=int, default=40, help="entries per table (default 40)")
    ap.add_argument("--rounds", type=int, default=2, help="servers per variant (default 2)")
    args = ap.parse_args(argv)
    variants: list[tuple[str, dict[str, str]]] = args.variants
    order: list[tuple[str, dict[str, str]]] = []
    for r in range(args.rounds):
        order += variants if r % 2 == 0 else variants[::-1]
    lat: dict[str, list[float]] = {n: [] for n, _ in variants}
    timing: dict[str, list[dict[str, float]]] = {n: [] for n, _ in variants}
    cpu: dict[str, float] = dict.fromkeys(lat, 0.0)
    with tempfile.TemporaryDirectory(prefix="gostop-variants-") as tmp:
        _run(Path(tmp), order, args.entries, lat, timing, cpu)
    for name, _env in variants:
        g = timing[name]

        def of(metric: str, q: float, g: list[dict[str, Any]] = g) -> float:
            return _p([x.get(metric, 0.0) for x in g], q)

        rest = [x.get("app", 0.0) - x.get("queue", 0.0) - x.get("store", 0.0) for x in g]
        print(
            f"ALL {name}: {len(lat[name])} entries; client p50 {_pct(lat[name], 0.5):.1f}, "
            f"p90 {_pct(lat[name], 0.9):.1f}, p99 {_pct(lat[name], 0.99):.1f} ms; app p50 "
            f"{of('app', 0.5):.1f}, p99 {of('app', 0.99):.1f}; queue p99 "
            f"{of('queue', 0.99):.1f}; store p50 {of('store', 0.5):.1f}, p99 "
            f"{of('store', 0.99):.1f}; rest p99 {_p(rest, 0.99):.1f} ms; server CPU "
            f"{cpu[name]:.1f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
