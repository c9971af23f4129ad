"""Benchmarks: figures and ratios measured side by side in one run on one generated corpus.

Run with ``make bench`` (or ``python -m bench [--quick] [--hands N] [--million]``; the bots'
strength is its own, longer entry, ``python -m bench --bots [--deals N]``; the queries alone
on a larger copy, ``python -m bench --copies-only --copy-hands 10000000 --out DIR``). Never
run by the test suite. Every figure is printed beside its floor or peer, measured in the same run
on the same machine, and written with the machine's description to ``bench/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .figures import Figure, machine, render_markdown, render_table
from .peer_chess import make_pgn

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="a small smoke run (a few seconds)")
    ap.add_argument("--hands", type=int, default=20_000, help="hands in the corpus")
    ap.add_argument(
        "--million", action="store_true", help="also time the queries on 1,000,000 hands"
    )
    ap.add_argument(
        "--copy-hands",
        type=int,
        default=1_000_000,
        help="hands of the copy --million times the queries and pages on (default 1,000,000)",
    )
    ap.add_argument(
        "--copies-only",
        action="store_true",
        help="only the queries and pages on the copy (the corpus of --out is kept and reused); "
        "prints the figures, leaves RESULTS.md as it is",
    )
    ap.add_argument(
        "--archive",
        action="store_true",
        help="also build the Dask archive with one and two workers (a tiny one with --quick)",
    )
    ap.add_argument("--out", type=Path, default=None, help="work folder (default: a temp dir)")
    ap.add_argument(
        "--results", type=Path, default=HERE / "RESULTS.md", help="where to write the results"
    )
    ap.add_argument(
        "--bots",
        action="store_true",
        help="measure the bots instead: strong vs greedy, greedy vs random (long)",
    )
    ap.add_argument("--deals", type=int, default=1000, help="deals per bot match (x2 hands)")
    args = ap.parse_args(argv)
    if args.bots:
        return _bots(args)
    hands = 400 if args.quick else args.hands

    from . import runs

    work = args.out or Path(tempfile.mkdtemp(prefix="gostop-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    figures: list[Figure] = []

    def step(title: str) -> None:
        print(f"[bench] {title}", file=sys.stderr, flush=True)

    if args.copies_only:
        return _copies(args, work, hands, step)

    step(f"generating a corpus of {hands} hands")
    corpus = runs.make_corpus(work / "corpus.jsonl", hands)
    figures += runs.simulate_figures(corpus)

    step("decoding")
    figures += runs.decode_figures(corpus)

    step("replay with strict validation, scores and payouts, beside python-chess (round 1)")
    rounds = runs.ReplayRounds(corpus, make_pgn(60 if args.quick else 600))
    rounds.round()
    at = len(figures)

    step("import into DuckDB")
    figures += runs.import_figures(corpus, work, 1 if args.quick else 3)

    step("replay beside python-chess (round 2)")
    rounds.round()

    step("analytical queries")
    figures += runs.query_figures(work / "bench.duckdb", ROOT / "samples" / "queries")

    if args.archive or args.quick:
        step("archive build on Dask with one and two workers, beside the import")
        figures += runs.archive_figures(corpus, work, work / "bench.duckdb")

    step("live recording latency")
    figures += runs.live_figures(work, 50 if args.quick else 500)

    step("the table service: twenty tables over HTTP, one game to many viewers")
    from .service import NOTES as SERVICE_NOTES
    from .service import service_figures

    figures += service_figures(work, args.quick, live=False)

    step("peak memory of a streaming replay")
    figures += runs.memory_figures(corpus, work)
    step("peak memory of validate, import, verify, rebuild and audit at two sizes")
    figures += runs.command_memory_figures(corpus, work)

    if args.quick:
        from . import bots

        step("bot matches (a few deals, small searches)")
        figures += bots.bot_figures(bots.run(2, workers=1, rollouts=8), judge=False)

    if args.million:
        figures += _copy_figures(args.copy_hands, work, step)

    step("replay beside python-chess (round 3)")
    rounds.round()
    figures[at:at] = rounds.figures()

    print(render_table(figures))
    if not args.quick:
        text = render_markdown(figures, machine(), hands, " ".join(sys.argv[1:]), SERVICE_NOTES)
        old = args.results.read_text(encoding="utf-8") if args.results.exists() else ""
        args.results.write_text(with_sections_of(old, text), encoding="utf-8")
        print(f"[bench] results written to {args.results}", file=sys.stderr)
    return 0


def with_sections_of(old: str, generated: str) -> str:
    """``generated`` (this run's table and notes) followed by the sections of ``old``.

    RESULTS.md is this run's table on top and, below it, sections written by hand or by
    other runs (the analyses of where time goes, the service, the bots' matches): those
    start at the first heading below the title and are kept as they are.
    """
    found = re.search(r"^#{2,6} ", old, re.MULTILINE)
    if found is None:
        return generated
    return generated.rstrip("\n") + "\n\n" + old[found.start() :]


def _copy_figures(hands: int, work: Path, step: Callable[[str], None]) -> list[Figure]:
    """The sample queries and the reading pages on the copy of ``hands`` hands."""
    from . import runs
    from .pages import page_figures

    step(f"queries on {hands:,} hands")
    figures = runs.million_figures(work, ROOT / "samples" / "queries", hands)
    step(f"the reading pages on {hands:,} hands")
    return figures + page_figures(work / "million.duckdb")


def _copies(args: argparse.Namespace, work: Path, hands: int, step: Callable[[str], None]) -> int:
    """``--copies-only``: the corpus of ``work`` (made and imported when absent), copied to
    ``--copy-hands`` hands, its queries and pages timed; nothing else is run."""
    from gostop_records.store import Store

    from . import runs

    if not (work / "bench.duckdb").exists():
        step(f"generating a corpus of {hands} hands and importing it")
        corpus = runs.make_corpus(work / "corpus.jsonl", hands)
        with Store(work / "bench.duckdb") as store:
            store.import_paths([corpus.path])
    else:
        with Store(work / "bench.duckdb"):
            pass  # an older schema is upgraded (its projection rows derived again)
    print(render_table(_copy_figures(args.copy_hands, work, step)))
    return 0


def _bots(args: argparse.Namespace) -> int:
    """The bots' matches; their section of RESULTS.md is replaced, the rest kept."""
    from . import bots

    def log(line: str) -> None:
        print(f"[bench] {line}", file=sys.stderr, flush=True)

    deals = 2 if args.quick else args.deals
    results = bots.run(
        deals, workers=1 if args.quick else None, rollouts=8 if args.quick else None, log=log
    )
    print(render_table(bots.bot_figures(results, judge=not args.quick)))
    if not args.quick:
        section = bots.render_section(results, machine(), " ".join(sys.argv[1:]))
        old = args.results.read_text(encoding="utf-8") if args.results.exists() else ""
        args.results.write_text(bots.merge_section(old, section), encoding="utf-8")
        print(f"[bench] results written to {args.results}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    t0 = time.perf_counter()
    rc = main()
    print(f"[bench] done in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    raise SystemExit(rc)
