"""A benchmark figure, and its rendering as a terminal table and as Markdown."""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from .process import BUSY_S, LOADED_CORES, busy_loaded, loaded


@dataclass(frozen=True, slots=True)
class Figure:
    """One measured figure, beside its floor or peer when it has one."""

    name: str
    value: float
    unit: str
    beside: str = "-"  # the floor or peer, with its value
    ratio: str = "-"  # ours / floor, or ours / peer
    target: str = ""  # the speed asked for, and whether it is met
    #: the cores other work kept busy just before each round of the figure (busy_cores)
    loads: tuple[float, ...] = ()

    def load_text(self) -> str:
        """The load before the figure's rounds, and whether it was taken under load."""
        if not self.loads:
            return "-"
        lo, hi = min(self.loads), max(self.loads)
        shown = f"{lo:.2f}" if lo == hi else f"{lo:.2f}-{hi:.2f}"
        under = sum(1 for x in self.loads if busy_loaded(x))
        if not under:
            return shown
        if len(self.loads) == 1:
            return f"{shown} LOADED"
        return f"{shown} LOADED ({under} of {len(self.loads)} rounds)"

    @property
    def under_load(self) -> bool:
        return any(busy_loaded(x) for x in self.loads)

    def shown(self) -> str:
        v = self.value
        if v >= 100:
            return f"{v:,.0f} {self.unit}"
        return f"{v:,.2f} {self.unit}"


def stamped(figures: list[Figure], load: float) -> list[Figure]:
    """``figures`` with ``load`` (the cores busy before they were measured) as the load of
    those that carry none of their own."""
    return [f if f.loads else replace(f, loads=(load,)) for f in figures]


COLUMNS = ("figure", "value", "floor or peer", "ratio", "target", "others busy before (cores)")


def _row(f: Figure) -> tuple[str, ...]:
    return (f.name, f.shown(), f.beside, f.ratio, f.target, f.load_text())


def markdown_table(figures: Sequence[Figure]) -> list[str]:
    """The figures as the lines of a Markdown table (RESULTS.md and its sections)."""
    return [
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
        *("| " + " | ".join(_row(f)) + " |" for f in figures),
    ]


def render_table(figures: list[Figure]) -> str:
    rows = [COLUMNS, *(_row(f) for f in figures)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
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


def revision() -> str:
    """The commit the bench runs on, and whether the checkout holds changes beside it."""
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "an unknown commit"
    if not head:
        return "an unknown commit"
    return f"{head} with uncommitted changes" if dirty else head


def render_markdown(
    figures: list[Figure],
    machine: str,
    corpus: str,
    args: str,
    loads: tuple[float, float],
    more_notes: Sequence[str] = (),
) -> str:
    """RESULTS.md: this run alone (the file is rewritten by every run)."""
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    cores = os.cpu_count() or 1
    under = [f for f in figures if f.under_load]
    out = [
        "# Benchmark results",
        "",
        "The latest run of `python -m bench`, and nothing else: every run rewrites this file",
        "(the bots' section, written by `python -m bench --bots`, is kept as that run left it).",
        "Earlier runs and the analyses of where the time goes are in",
        "[docs/performance.md](../docs/performance.md).",
        "",
        f"Measured {when} on {revision()} with `python -m bench {args}`".rstrip()
        + f" on {corpus}.",
        "",
        f"Machine: {machine}.",
        "",
        f"Load: before every round the bench waits {BUSY_S} s and reads from /proc/stat how "
        "many cores other work kept busy meanwhile (the host's steal included); a figure is "
        f"marked LOADED when that was above {LOADED_CORES} of a core before one of its rounds: "
        "its absolute numbers are then low and its ratios noisier than on a quiet machine. "
        f"The 1-minute load average, which counts the bench's own work, was {loads[0]:.2f} "
        f"at the start of the run and {loads[1]:.2f} at its end, on {cores} cores"
        + (" (a loaded run)." if loaded(loads[0]) else "."),
        "",
    ]
    if under:
        out += [
            f"**{len(under)} of {len(figures)} figures were taken under load.**",
            "",
        ]
    out += markdown_table(figures)
    out += ["", "How the figures are made:", ""]
    out += [f"- {note}" for note in (*NOTES, *more_notes)]
    out.append("")
    return "\n".join(out)


NOTES = (
    "Ratios come from pairs: the figure and its floor or peer run back to back, the order "
    "alternating from pair to pair (A B, B A, A B, ...), and the ratio column gives the "
    "median of the per-pair ratios with their range (min-max) and the number of pairs. "
    "The value and the floor's value are the medians of their runs. No best-of-N: the best "
    "run of one side and the best of the other may come from different spells of a shared "
    "machine.",
    "In-process figures (decode, replay, validate, the peer) are CPU time of the process "
    "(`time.process_time`); commands run as processes (import, its floor, memory) are wall "
    "time from start to exit, with the CPU seconds of the whole process tree beside.",
    "The corpus is simulated by `gostop_records.sim` (greedy and random bots, every preset) "
    "and written as JSON Lines; every figure reads that one file.",
    "The floor of every reader is msgspec decoding each line into the project's own structs "
    "(`msgspec.json.Decoder(Envelope)`: the envelope and the tagged union of event types), "
    "not into dicts, which are slower than typed structs.",
    "Replay reads the file as `gostop replay` does (typed events, without each line's stored "
    "form) and folds every game with the strict projector: every consequence re-derived and "
    "compared, scores and payout proofs computed. It does not check the hash chain. The "
    "validate figure does: it is `gostop validate`'s path (`validate.validate_files`: lines "
    "decoded keeping their stored form, the hash chain, the signatures, the strict rules), "
    "against a floor of the typed decode plus one SHA-256 of each line.",
    "The peer is python-chess 1.x: random legal games exported to PGN, then parsed with "
    "`chess.pgn.read_game` and replayed move by move on a board that checks legality. A "
    "chess move (a ply) is one player's turn; it is set against our replay's player turns "
    "per second (a turn: a card played, a bomb or a flip-only turn, with the flips, "
    "captures, steals and decisions it brings; counted from the log as the store's `turns` "
    "rows are), not against events.",
    "Import is the command `gostop db import CORPUS --db NEW` run as a process, as a user "
    "runs it (interpreter start, imports, worker processes, the store's schema, every "
    "check, DuckDB's writes and close), against the floor of a process that imports duckdb "
    "and runs `CREATE TABLE raw AS SELECT * FROM read_json(...)` into a new file. Its memory "
    "is the whole process tree's (the importer and its workers), polled from /proc every "
    "50 ms: the peak of the tree's summed resident sets, and the largest high-water mark of "
    "one process.",
    "The archive figures run `gostop archive build` (`build_archive`) on a Dask LocalCluster "
    "of one and then two worker processes (one thread each), each in a fresh interpreter, "
    "timed from the first scan to the build's record (the cluster's start left out), beside "
    "the single-process import of the same corpus in the same run; the scaling ratio is the "
    "one-worker time over the two-worker time. File counts and sizes are of the two-worker "
    "archive and of `gostop db export` of the imported store.",
    "Live append is `Store.append` of one event per call, each validated by the rules, "
    "sealed into the hash chain and committed, over real games from their first event.",
    "Peak memory of a replay is the high-water mark (VmHWM) of a fresh interpreter replaying "
    "the whole corpus and then half of it: equal figures mean the replay streams. `gostop "
    "validate`, `db import`, `db verify`, `db rebuild` and `audit` are each run as a "
    "command, on the corpus and on its first half, their whole process tree polled as for "
    "the import; the budget is for the tree.",
    "The million-hand queries run on the imported corpus's projection tables copied with new "
    "game ids until they hold 1,000,000 hands (`--copy-hands N` for another size); the sample "
    "queries read only projection tables.",
)
