"""Benchmarks: figures and ratios measured side by side in one run on one generated corpus.

Run with ``make bench`` (or ``python -m bench [--quick] [--hands N] [--pairs N] [--only
replay,import,...] [--million]``; the bots' strength is its own, longer entry, ``python -m
bench --bots [--deals N]``; the queries alone on a larger copy, ``python -m bench
--copies-only --copy-hands 10000000 --out DIR``). Never run by the test suite. Every ratio
comes from pairs of back-to-back runs whose order alternates, reported as the median and the
range of the per-pair ratios; the cores other work keeps busy are read before every round
(:func:`.process.busy_cores`), and a figure taken under load is marked so. A run (not
``--quick``) rewrites ``bench/RESULTS.md`` with its own figures alone, keeping the bots'
section; the history and the analyses are in ``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .figures import Figure, machine, render_markdown, render_table, stamped
from .peer_chess import make_pgn
from .process import busy_cores, load_average

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


PARTS = ("replay", "rollouts", "import", "queries", "archive", "live", "service", "memory")


#: Options naming where a run keeps its files: they change no figure, and a path of one
#: machine means nothing on another, so the command shown in RESULTS.md leaves them out.
_LOCAL_OPTIONS = ("--out", "--results")


def shown_args(argv: list[str]) -> str:
    """The run's options as RESULTS.md shows them: ``--out DIR`` and ``--results FILE``
    (either spelling, ``--out DIR`` or ``--out=DIR``) left out."""
    shown: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in _LOCAL_OPTIONS:
            skip = True
        elif not arg.startswith(tuple(f"{o}=" for o in _LOCAL_OPTIONS)):
            shown.append(arg)
    return " ".join(shown)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="a small smoke run (under a minute)")
    ap.add_argument("--hands", type=int, default=20_000, help="hands in the corpus")
    ap.add_argument(
        "--pairs",
        type=int,
        default=None,
        help="pairs each comparison is measured in, the order alternating (default 6; 2 with "
        "--quick; the import 3)",
    )
    ap.add_argument(
        "--only",
        default=",".join(PARTS),
        help=f"a comma-separated choice of {', '.join(PARTS)} (default: all; --archive and "
        "--million add theirs)",
    )
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
        "--results",
        type=Path,
        default=HERE / "RESULTS.md",
        help="the file this run rewrites (not with --quick)",
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
    parts = {p.strip() for p in args.only.split(",") if p.strip()}
    unknown = parts - set(PARTS)
    if unknown:
        ap.error(f"--only: unknown part(s) {', '.join(sorted(unknown))}; choose from {PARTS}")
    if args.archive:
        parts.add("archive")
    pairs = args.pairs or (2 if args.quick else 6)

    from . import runs

    work = args.out or Path(tempfile.mkdtemp(prefix="gostop-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    figures: list[Figure] = []

    began = time.perf_counter()

    def step(title: str) -> None:
        at = time.perf_counter() - began
        print(
            f"[bench] {at:6.1f} s  {title} (load {load_average():.2f})", file=sys.stderr, flush=True
        )

    def measure(title: str, fn: Callable[[], list[Figure]]) -> None:
        step(title)
        load = busy_cores()
        figures.extend(stamped(fn(), load))

    if args.copies_only:
        return _copies(args, work, hands, step)

    start_load = load_average()
    busy = busy_cores()
    step(f"generating a corpus of {hands} hands")
    corpus = runs.make_corpus(work / "corpus.jsonl", hands)
    figures += stamped(runs.simulate_figures(corpus), busy)

    if "replay" in parts:
        step(
            f"decode, replay, validate and python-chess: {pairs} rounds of pairs, the order "
            "alternating"
        )
        rounds = runs.Rounds(corpus, make_pgn(60 if args.quick else 600))
        for k in range(pairs):
            rounds.round()
            step(f"round {k + 1} of {pairs} done")
        figures += rounds.figures()

    if "rollouts" in parts:
        from .rollouts import rollout_figures

        measure(
            f"rollouts beside simulated hands: {pairs} pairs"
            + ("" if args.quick else "; a whole hand reviewed"),
            lambda: rollout_figures(pairs, quick=args.quick),
        )

    db = work / "bench.duckdb"
    if "import" in parts:
        import_pairs = 1 if args.quick else (args.pairs or 3)
        measure(
            f"gostop db import as a process beside read_json: {import_pairs} rounds",
            lambda: runs.import_figures(corpus, work, import_pairs),
        )
    elif parts & {"queries", "archive"} or args.million:
        step("importing the corpus (no figure)")
        runs.plain_import(corpus, db)

    if "queries" in parts:
        measure(
            "analytical queries",
            lambda: runs.query_figures(db, ROOT / "samples" / "queries"),
        )

    if "archive" in parts and (args.archive or args.quick):
        measure(
            "archive build on Dask with one and two workers, beside the import",
            lambda: runs.archive_figures(corpus, work, db),
        )

    if "live" in parts:
        measure(
            "live recording latency", lambda: runs.live_figures(work, 50 if args.quick else 500)
        )

    if "service" in parts:
        from .service import NOTES as SERVICE_NOTES
        from .service import service_figures

        measure(
            "the table service: twenty tables over HTTP, one game to many viewers",
            lambda: service_figures(work, args.quick, live=False),
        )
    else:
        SERVICE_NOTES = ()

    if "memory" in parts:
        measure("peak memory of a streaming replay", lambda: runs.memory_figures(corpus, work))
        measure(
            "peak memory of validate, import, verify, rebuild and audit at two sizes",
            lambda: runs.command_memory_figures(corpus, work, halves=not args.quick),
        )

    if args.quick and "replay" in parts:
        from . import bots

        measure(
            "bot matches (a few deals, small searches)",
            lambda: bots.bot_figures(bots.run(2, workers=1, rollouts=8), judge=False),
        )

    if args.million:
        measure("the million-hand copy", lambda: _copy_figures(args.copy_hands, work, step))

    end_load = load_average()
    print(render_table(figures))
    if not args.quick:
        what = (
            f"a corpus of {corpus.hands:,} simulated hands ({corpus.events:,} events, "
            f"{corpus.turns:,} player turns, {corpus.games:,} games; every preset, both player "
            "counts where allowed)"
        )
        text = render_markdown(
            figures,
            machine(),
            what,
            shown_args(sys.argv[1:] if argv is None else argv),
            (start_load, end_load),
            SERVICE_NOTES,
        )
        old = args.results.read_text(encoding="utf-8") if args.results.exists() else ""
        args.results.write_text(with_bots_of(old, text), encoding="utf-8")
        print(f"[bench] results written to {args.results}", file=sys.stderr)
    return 0


def with_bots_of(old: str, generated: str) -> str:
    """``generated`` (this run's RESULTS.md) followed by the bots' section of ``old``.

    RESULTS.md holds the latest run alone: everything of the old file goes, except the
    section the bots' own run (``python -m bench --bots``, about 45 minutes) wrote between
    its marks, which this run does not measure again.
    """
    from .bots import section_of

    kept = section_of(old)
    if kept is None:
        return generated
    return generated.rstrip("\n") + "\n\n" + kept + "\n"


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
    load = busy_cores()
    print(render_table(stamped(_copy_figures(args.copy_hands, work, step), load)))
    return 0


def _bots(args: argparse.Namespace) -> int:
    """The bots' matches; their section of RESULTS.md is replaced, the rest kept."""
    from . import bots

    def log(line: str) -> None:
        print(f"[bench] {line}", file=sys.stderr, flush=True)

    deals = 2 if args.quick else args.deals
    start_load = load_average()
    results = bots.run(
        deals, workers=1 if args.quick else None, rollouts=8 if args.quick else None, log=log
    )
    print(render_table(bots.bot_figures(results, judge=not args.quick)))
    if not args.quick:
        section = bots.render_section(
            results, machine(), shown_args(sys.argv[1:]), (start_load, load_average())
        )
        old = args.results.read_text(encoding="utf-8") if args.results.exists() else ""
        args.results.write_text(bots.merge_section(old, section), encoding="utf-8")
        print(f"[bench] results written to {args.results}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    t0 = time.perf_counter()
    rc = main()
    print(f"[bench] done in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    raise SystemExit(rc)
