"""A benchmark figure, and its rendering as a terminal table and as Markdown."""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True, slots=True)
class Figure:
    """One measured figure, beside its floor or peer when it has one."""

    name: str
    value: float
    unit: str
    beside: str = "-"  # the floor or peer, with its value
    ratio: str = "-"  # ours / floor, or ours / peer
    target: str = ""  # the speed asked for, and whether it is met

    def shown(self) -> str:
        v = self.value
        if v >= 100:
            return f"{v:,.0f} {self.unit}"
        return f"{v:,.2f} {self.unit}"


def render_table(figures: list[Figure]) -> str:
    rows = [("figure", "value", "floor or peer", "ratio", "target")]
    rows += [(f.name, f.shown(), f.beside, f.ratio, f.target) for f in figures]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = []
    for k, r in enumerate(rows):
        lines.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def machine() -> str:
    """The machine and the versions that matter, as RESULTS.md names them."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import duckdb
    import msgspec

    return (
        f"{cpu}, {os.cpu_count()} cores; Python {platform.python_version()} "
        f"({platform.python_implementation()}), {platform.system()} {platform.release()}; "
        f"msgspec {msgspec.__version__}, duckdb {duckdb.__version__}"
    )


def render_markdown(
    figures: list[Figure], machine: str, hands: int, args: str, more_notes: Sequence[str] = ()
) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    out = [
        "# Benchmark results",
        "",
        f"Measured {when} with `python -m bench {args}`".rstrip() + f" on a corpus of {hands:,}"
        " simulated hands (every preset, both player counts where allowed).",
        "",
        f"Machine: {machine}.",
        "",
        "Every figure is measured in the same run as the floor or peer beside it; ratios, not",
        "absolute numbers, are what carries over to another machine. Reproduce with",
        "`make bench` (add `--million` through `python -m bench --million` for the",
        "1,000,000-hand query timings).",
        "",
        "| figure | value | floor or peer | ratio | target |",
        "|---|---|---|---|---|",
    ]
    for f in figures:
        out.append(f"| {f.name} | {f.shown()} | {f.beside} | {f.ratio} | {f.target} |")
    out += ["", "How the figures are made:", ""]
    out += [f"- {note}" for note in (*NOTES, *more_notes)]
    out.append("")
    return "\n".join(out)


NOTES = (
    "Single-threaded figures (simulate, decode, replay, the peer) are CPU time of the process "
    '(`time.process_time`): what "one core" means, and steadier than wall time on a shared '
    "virtual machine. Decode, replay and the peer are the best of three runs each, as "
    "`timeit` advises (noise only ever adds time); replay, its decode floor and the peer "
    "are timed together in three rounds, at the start, the middle and the end of the run, "
    "so that a slow spell of the machine (they last minutes here, and the same replay has "
    "measured from 105,000 to 190,000 events/s within ten minutes) falls on all three "
    "alike. Import, queries and append "
    "latencies are wall-clock time, since DuckDB works on other threads.",
    "The corpus is simulated by `gostop_records.sim` (greedy and random bots, every preset) "
    "and written as JSON Lines; every figure reads that one file.",
    "Replay reads the file as `gostop replay` does (typed events, without keeping each "
    "line's stored form, which only hash checks need) and folds every game with the strict "
    "projector: every consequence re-derived and compared, scores and payout proofs computed. "
    'The decode figure "keeping each line\'s stored form" is how `validate`, `audit` and '
    "`db import` read, since they check the hash chain.",
    "The peer is python-chess 1.x: random legal games exported to PGN, then parsed with "
    "`chess.pgn.read_game` and replayed move by move on a board that checks legality.",
    "Import is `Store.import_paths` on an empty store: decode, hash chain, strict rules, "
    "projection tables, DuckDB writes (events with their primary key, and every projection "
    "table). The floor is DuckDB's `read_json` of the same file into a bare table, which "
    "uses every core too. By default the importer checks a large file in pieces in worker "
    "processes, one per core, while its own process writes (`store/parallel.py`); the "
    "figure with `--workers 0` is the same import checked in the importing process alone. "
    "Import and floor alternate three times, each in a fresh interpreter, and the medians "
    "are compared; each side loads its libraries (duckdb, and pyarrow for the import) before "
    "its clock starts and opens its database after it (the store's open creates its "
    "schema, the floor's connect an empty file).",
    "The archive figures run `gostop archive build` (`build_archive`) on a Dask LocalCluster "
    "of one and then two worker processes (one thread each), each in a fresh interpreter, "
    "timed from the first scan to the build's record (the cluster's start left out), beside "
    "the single-process import (`--workers 0`) of the same corpus in the same run; the "
    "scaling ratio is the one-worker time over the two-worker time. File counts and sizes "
    "are of the two-worker archive and of `gostop db export` of the imported store, beside "
    "the JSON Lines they came from. `python -m bench --archive` (which `make bench` runs) "
    "measures them on the full corpus, `--quick` on a tiny one.",
    "Live append is `Store.append` of one event per call, each validated by the rules, "
    "sealed into the hash chain and committed, over real games from their first event.",
    "Peak memory is the high-water mark (VmHWM) of a fresh interpreter replaying the whole "
    "corpus and then half of it: equal figures mean the replay streams. The same is measured "
    "for `gostop validate`, `db import`, `db verify`, `db rebuild` and `audit`, each a fresh "
    "process (its peak RSS from `wait4`, worker processes included), on the corpus and on "
    "its first half; the budget is the replay's: less than 16 MiB more for twice the data.",
    "The million-hand queries run on the imported corpus's projection tables copied with new "
    "game ids until they hold 1,000,000 hands (`--copy-hands N` for another size; simulating "
    "and importing a million hands takes hours on this machine; the copies keep the "
    "distributions query speed depends on). The sample queries read only projection tables.",
)
