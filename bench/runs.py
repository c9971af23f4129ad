"""The measurements: each returns figures, each timed beside its floor in the same run."""

from __future__ import annotations

import hashlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import msgspec

import gostop_records
from gostop_records import events as E
from gostop_records import log as L
from gostop_records.projector import project
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import simulate

from .figures import Figure
from .peer_chess import replay_pgn
from .process import TreeRun, busy_cores, run_tree

#: The corpus mix: (preset, players, hands per game, share of the corpus).
MIX = (
    ("matgo", 2, 10, 0.30),
    ("gostop3", 3, 10, 0.25),
    ("gamerules", 2, 10, 0.15),
    ("gamerules", 3, 10, 0.15),
    ("cardavia", 2, 1, 0.15),
)

REPLAY_TARGET = 0.3  # replay events/s over the typed decode floor, one core
#: ``gostop validate`` events/s over its floor, the typed decode plus SHA-256 of each line.
VALIDATE_TARGET = 0.3
PEER_TARGET = 3.0  # our replay events/s over the peer's moves/s
IMPORT_TARGET = 2.0  # the import at most 2x DuckDB's bare read_json, in time and in CPU
QUERY_TARGET_MS = 1000.0
LIVE_TARGET_MS = 20.0


@dataclass(slots=True)
class Corpus:
    path: Path
    hands: int
    events: int
    games: int
    sim_rates: list[tuple[str, float]]
    turns: int = 0  # player turns (:class:`TurnCounter`): what a chess move is to chess


class TurnCounter:
    """Counts a log's player turns as the store's ``turns`` rows count them: a turn starts at
    a card played, a bomb or a flip-only turn, except the play that follows a bonus card
    played from the hand before the turn's flip (the same seat plays on in the same turn).
    Fed every event of a log in order; games are contiguous in the bench's corpus."""

    __slots__ = ("bonus_open", "turns")

    def __init__(self) -> None:
        self.turns = 0
        self.bonus_open = False  # a bonus card was played and the turn has not flipped yet

    def feed(self, env: E.Envelope) -> None:
        ev = env.event
        if isinstance(ev, E.CardPlayed | E.BombPlayed | E.FlipOnlyPlayed):
            if not self.bonus_open:
                self.turns += 1
            self.bonus_open = isinstance(ev, E.CardPlayed) and ev.card.startswith("B")
        elif isinstance(ev, E.CardFlipped | E.HandStarted | E.GameStarted):
            self.bonus_open = False


def make_corpus(path: Path, hands: int) -> Corpus:
    """Simulate the corpus mix to a JSONL file, timing each preset's simulation."""
    enc = msgspec.json.Encoder()
    events = games = made = 0
    turns = TurnCounter()
    rates: list[tuple[str, float]] = []
    with open(path, "wb") as f:
        for k, (name, players, per_game, share) in enumerate(MIX):
            want = max(per_game, int(hands * share))
            n_games = max(1, want // per_game)
            start = time.process_time()
            done = 0
            buf = bytearray()
            for log in simulate(PRESETS[name], players, n_games, per_game, seed=1000 * k):
                done += sum(1 for e in log if e.type == "hand_started")
                for env in log:
                    buf += enc.encode(env)
                    buf += b"\n"
                    turns.feed(env)
                events += len(log)
                games += 1
                if len(buf) > 1 << 20:
                    f.write(buf)
                    buf.clear()
            f.write(buf)
            secs = time.process_time() - start
            rates.append((f"{name} {players}p", done / secs if secs else 0.0))
            made += done
    return Corpus(path, made, events, games, rates, turns.turns)


def simulate_figures(c: Corpus) -> list[Figure]:
    return [Figure(f"simulate {label}", rate, "hands/s") for label, rate in c.sim_rates]


T = TypeVar("T")

#: How many pairs each in-process comparison is measured in (``--pairs``).
PAIRS = 6


def pair_order(runs: Sequence[tuple[str, Callable[[], T]]], k: int) -> dict[str, T]:
    """Run ``runs`` in order in round ``k`` when ``k`` is even, in reverse when it is odd, and
    return what each returned by name. Neighbours in ``runs`` are the pairs compared: each
    pair's two runs follow each other, and their order alternates from round to round
    (A B, B A, A B ...), so that neither side always runs first, on a warmer cache or a
    quieter spell of a shared machine."""
    order = list(runs) if k % 2 == 0 else list(reversed(runs))
    return {name: fn() for name, fn in order}


def spread(ratios: Sequence[float], unit: str = "") -> str:
    """The median of per-pair ratios with their range: ``0.46 (0.44-0.48, 6 pairs)``."""
    med = statistics.median(ratios)
    n = len(ratios)
    what = "pair" if n == 1 else "pairs"
    return f"{med:.2f}{unit} ({min(ratios):.2f}-{max(ratios):.2f}{unit}, {n} {what})"


def _cpu(fn: Callable[[], Any]) -> float:
    """CPU seconds of the process for one call of ``fn``."""
    start = time.process_time()
    fn()
    return time.process_time() - start


_typed = msgspec.json.Decoder(E.Envelope)


def _typed_floor(path: Path) -> float:
    """The floor of every reader: msgspec decoding each line straight into the project's own
    structs (the envelope and its tagged union of event types), nothing else. CPU seconds."""

    def run() -> None:
        dec = _typed.decode
        with open(path, "rb") as f:
            for line in f:
                dec(line)

    return _cpu(run)


def _hashed_floor(path: Path) -> float:
    """The floor of a reader that checks the hash chain: each line decoded into the structs
    and hashed once with SHA-256 (a chain check hashes each event once). CPU seconds."""

    def run() -> None:
        dec = _typed.decode
        sha = hashlib.sha256
        with open(path, "rb") as f:
            for line in f:
                dec(line)
                sha(line).digest()

    return _cpu(run)


def _reader(path: Path, exact: bool) -> float:
    return _cpu(lambda: sum(1 for _ in L.iter_jsonl(path, exact=exact)))


def _replay_once(path: Path) -> tuple[int, int]:
    events = hands = 0
    # read as `gostop replay` reads: typed events, no stored form (only hash checks need it)
    for _gid, game in L.iter_games(L.iter_jsonl(path, exact=False)):
        p = project(game, strict=True)
        events += p.events
        if p.game is not None:
            hands += len(p.game.results)
    return events, hands


_PURE_REPLAY = """
import sys, time
from pathlib import Path
from bench.runs import _replay_once
start = time.process_time()
events, _ = _replay_once(Path(sys.argv[1]))
print(events, time.process_time() - start)
"""


def _pure_replay_seconds(path: Path) -> float:
    """CPU seconds of the same replay on the pure-Python source, in a child process."""
    env = {**os.environ, "GOSTOP_PURE_PYTHON": "1"}
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (root, env.get("PYTHONPATH"))))
    out = subprocess.run(
        [sys.executable, "-c", _PURE_REPLAY, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return float(out.stdout.split()[-1])


def _validate_seconds(path: Path) -> float:
    """CPU seconds of ``gostop validate``'s path over the file (``validate_files``): every
    line decoded keeping its stored form, the hash chain, the signatures, the strict rules."""
    from gostop_records.validate import validate_files

    def run() -> None:
        report = validate_files([path])
        if not report.valid:
            raise RuntimeError(f"the benchmark corpus does not validate: {report.summary()}")

    return _cpu(run)


@dataclass(slots=True)
class Rounds:
    """The in-process comparisons, each measured in pairs of back-to-back runs whose order
    alternates from round to round (:func:`pair_order`). Every ratio is the median of the
    per-pair ratios, shown with their range; the load average is read before each round.

    The comparisons: our typed reader (with and without keeping each line's stored form)
    against the typed floor; replay (strict rules, no hash chain, as ``gostop replay``
    reads) against the typed floor; ``gostop validate``'s path (hash chain, signatures,
    strict rules) against the typed floor plus a SHA-256 of each line; our replay in player
    turns per second against python-chess in moves (plies) per second; with the compiled
    build, the compiled replay against the pure-Python source.
    """

    corpus: Corpus
    pgn: str
    runs: list[dict[str, float]] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)
    peer_moves: int = 0
    events: int = 0
    hands: int = 0
    validated: int = 0

    def _replay(self) -> float:
        start = time.process_time()
        self.events, self.hands = _replay_once(self.corpus.path)
        return time.process_time() - start

    def _peer(self) -> float:
        r = replay_pgn(self.pgn)
        self.peer_moves = r.moves
        return r.seconds

    def round(self) -> None:
        k = len(self.runs)
        path = self.corpus.path
        self.loads.append(busy_cores())
        got: dict[str, float] = {}
        got |= pair_order(
            [
                ("reader", lambda: _reader(path, False)),
                ("floor_r", lambda: _typed_floor(path)),
                ("reader_exact", lambda: _reader(path, True)),
            ],
            k,
        )
        got |= pair_order(
            [
                ("floor", lambda: _typed_floor(path)),
                ("replay", self._replay),
                ("peer", self._peer),
            ],
            k,
        )
        got |= pair_order(
            [
                ("floor_h", lambda: _hashed_floor(path)),
                ("validate", lambda: _validate_seconds(path)),
            ],
            k,
        )
        if gostop_records.compiled():
            got |= pair_order(
                [("replay_c", self._replay), ("pure", lambda: _pure_replay_seconds(path))], k
            )
        self.runs.append(got)

    def _rates(self, name: str, count: int) -> list[float]:
        return [count / r[name] for r in self.runs]

    def figures(self) -> list[Figure]:
        ev = self.corpus.events
        turns = self.corpus.turns
        loads = tuple(self.loads)
        n = len(self.runs)
        med = statistics.median

        def ratio(a: str, b: str) -> list[float]:
            # a rate over b rate for the same events: b's seconds over a's
            return [r[b] / r[a] for r in self.runs]

        floor_r = med(self._rates("floor_r", ev))
        out = [
            Figure(
                "decode JSONL into typed events (the replay's reader)",
                med(self._rates("reader", ev)),
                "events/s",
                beside=f"msgspec decode into the project's structs: {floor_r:,.0f} events/s",
                ratio=spread(ratio("reader", "floor_r")),
                loads=loads,
            ),
            Figure(
                "decode, keeping each line's stored form (validate, audit, import)",
                med(self._rates("reader_exact", ev)),
                "events/s",
                beside=f"msgspec decode into the project's structs: {floor_r:,.0f} events/s",
                ratio=spread(ratio("reader_exact", "floor_r")),
                loads=loads,
            ),
        ]
        replay = med(self._rates("replay", ev))
        floor = med(self._rates("floor", ev))
        rr = ratio("replay", "floor")
        met = "met" if med(rr) >= REPLAY_TARGET else "not met"
        build = "compiled kernel" if "pure" in self.runs[0] else "pure Python"
        out.append(
            Figure(
                f"replay + strict rules + scores + payouts, no hash chain check (decode "
                f"included; {build})",
                replay,
                "events/s",
                beside=f"msgspec decode into the project's structs: {floor:,.0f} events/s",
                ratio=spread(rr),
                target=f">= {REPLAY_TARGET} of the floor: {met}",
                loads=loads,
            )
        )
        if "pure" in self.runs[0]:
            pure = med(self._rates("pure", ev))
            out.append(
                Figure(
                    "replay as above, pure-Python source (GOSTOP_PURE_PYTHON=1)",
                    pure,
                    "events/s",
                    beside=f"compiled, in the same pairs: "
                    f"{med(self._rates('replay_c', ev)):,.0f} events/s",
                    ratio=f"compiled/pure {spread(ratio('replay_c', 'pure'), 'x')}",
                    loads=loads,
                )
            )
        vr = ratio("validate", "floor_h")
        out.append(
            Figure(
                "gostop validate: decode + hash chain + signatures + strict rules",
                med(self._rates("validate", ev)),
                "events/s",
                beside=f"decode into the structs + SHA-256 of each line: "
                f"{med(self._rates('floor_h', ev)):,.0f} events/s",
                ratio=spread(vr),
                target=f">= {VALIDATE_TARGET} of the floor: "
                f"{'met' if med(vr) >= VALIDATE_TARGET else 'not met'}",
                loads=loads,
            )
        )
        ours_turns = [turns / r["replay"] for r in self.runs]
        peer = [self.peer_moves / r["peer"] for r in self.runs]
        per_pair = [o / p for o, p in zip(ours_turns, peer, strict=True)]
        met = "met" if med(per_pair) >= PEER_TARGET else "not met"
        out += [
            Figure("replay, hands", self.hands / med(r["replay"] for r in self.runs), "hands/s"),
            Figure(
                f"replay, player turns ({ev / turns:.2f} events a turn)",
                med(ours_turns),
                "turns/s",
                beside=f"python-chess PGN parse + replay: {med(peer):,.0f} moves/s",
                ratio=f"ours/peer {spread(per_pair, 'x')}",
                target=f">= {PEER_TARGET:.0f}x: {met}",
                loads=loads,
            ),
        ]
        return [f if f.loads else replace(f, loads=loads) for f in out] if n else []


# VmHWM, not getrusage: ru_maxrss survives exec, so a child would report its parent's peak
_PEAK = """
import sys
import gostop_records
from gostop_records import events as E
from gostop_records import log as L
from gostop_records.projector import project
if sys.argv[1] != "-":
    for _gid, game in L.iter_games(L.iter_jsonl(sys.argv[1], exact=False)):
        project(game)
with open("/proc/self/status") as f:
    print(next(line.split()[1] for line in f if line.startswith("VmHWM:")))
"""


def _peak_kib(path: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", _PEAK, path], capture_output=True, text=True, check=True
    )
    return int(out.stdout.strip().splitlines()[-1])


def memory_figures(c: Corpus, work: Path) -> list[Figure]:
    """Peak RSS replaying the corpus and its first half: equal when replay streams."""
    half = work / "half.jsonl"
    with open(c.path, "rb") as src, open(half, "wb") as dst:
        size = c.path.stat().st_size
        copied = 0
        for line in src:
            if copied > size // 2 and b'"game_started"' in line:
                break
            dst.write(line)
            copied += len(line)
    base = _peak_kib("-")
    full = _peak_kib(str(c.path))
    part = _peak_kib(str(half))
    grow = (full - part) / 1024
    return [
        Figure(
            "peak memory, streaming replay of the whole corpus",
            full / 1024,
            "MiB",
            beside=f"half the corpus: {part / 1024:.1f} MiB; interpreter + imports: "
            f"{base / 1024:.1f} MiB",
            ratio=f"full/half {full / part:.2f}",
            target=f"bounded: {'met' if grow < 16 else 'not met'} ({grow:+.1f} MiB for 2x data)",
        )
    ]


def gostop_argv(*args: str) -> list[str]:
    """A ``gostop`` command as a user runs it: the installed script beside this interpreter
    (the virtual environment's), else the same entry point through this interpreter."""
    script = Path(sys.executable).with_name("gostop")
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-c", "from gostop_cli.app import main; main()", *args]


def _command_tree(*args: str) -> TreeRun:
    """One ``gostop`` command run as a process, its whole tree measured."""
    return run_tree(gostop_argv(*args))


def _last_game(path: Path) -> str:
    """The game of a log's last line: an audit of it reads the whole file."""
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - 65536))
        last = f.read().splitlines()[-1]
    return str(msgspec.json.decode(last)["game_id"])


#: The most memory each command may take, whatever the size of the logs or the store (MiB).
#: validate and audit hold one game. db import holds the interpreter with DuckDB and Arrow
#: (about 95 MiB), two transactions of 250,000 events as Arrow tables (one gathered, one
#: being written: about 85 MiB each), the chunk being checked and DuckDB's 64 MiB
#: (store.connection.WHOLE_STORE_MEMORY). db verify and db rebuild hold the interpreter, one
#: group of 20,000 events (rows, envelopes, projections: about 120 MiB) and DuckDB's 64 MiB.
COMMAND_BUDGET_MIB: dict[str, int] = {
    "validate": 64,
    "db import": 448,
    "db verify": 320,
    "db rebuild": 320,
    "audit": 64,
}


def command_memory_figures(c: Corpus, work: Path, halves: bool = True) -> list[Figure]:
    """Peak RSS of validate, db import, db verify, db rebuild and audit (of the log's last
    game) on the corpus and on its first half (written by :func:`memory_figures`): each
    within its budget (:data:`COMMAND_BUDGET_MIB`) at both sizes when the command streams.

    Each command runs as a process; its value is the peak of its whole tree (an import's
    workers included), the budget is judged on its largest single process, for which the
    budgets were set. Without ``halves`` (a quick run) each command runs once, on the
    whole corpus, and the half's figures repeat it."""
    half = work / "half.jsonl"
    peaks: dict[str, dict[str, TreeRun]] = {}
    for label, path in (("full", c.path), ("half", half))[: 2 if halves else 1]:
        db = str(_fresh(work / f"memory-{label}.duckdb"))
        for name, args in (
            ("validate", ("validate", str(path))),
            ("db import", ("db", "import", str(path), "--db", db)),
            ("db verify", ("db", "verify", "--db", db)),
            ("db rebuild", ("db", "rebuild", "--db", db)),
            ("audit", ("audit", str(path), "--game", _last_game(path))),
        ):
            peaks.setdefault(name, {})[label] = _command_tree(*args)
    out = []
    for name, p in peaks.items():
        full = p["full"]
        part = p.get("half", full)
        grow = (full.largest_kib - part.largest_kib) / 1024
        budget = COMMAND_BUDGET_MIB[name]
        worst = max(full.largest_kib, part.largest_kib) / 1024
        met = "met" if worst <= budget else "not met"
        procs = f" ({full.processes} processes)" if full.processes > 1 else ""
        out.append(
            Figure(
                f"peak memory, gostop {name} of the whole corpus, whole process tree{procs}",
                full.tree_peak_kib / 1024,
                "MiB",
                beside=f"largest process {full.largest_kib / 1024:.1f} MiB; half the corpus: "
                f"tree {part.tree_peak_kib / 1024:.1f} MiB, largest "
                f"{part.largest_kib / 1024:.1f} MiB",
                ratio=f"tree full/half {full.tree_peak_kib / part.tree_peak_kib:.2f}",
                target=f"largest process <= {budget} MiB at both sizes: {met} "
                f"({grow:+.1f} MiB for 2x data)",
            )
        )
    return out


def _fresh(path: Path) -> Path:
    for p in (path, path.with_name(path.name + ".wal")):
        if p.exists():
            p.unlink()
    return path


# The floor of the import: a process that loads duckdb and reads the file into a bare table
# of a new database file with DuckDB's own JSON reader (every core), then closes it.
_FLOOR = """
import sys, duckdb
con = duckdb.connect(sys.argv[2])
con.execute("SET enable_progress_bar = false")
con.execute(
    "CREATE TABLE raw AS SELECT * FROM read_json(?, format = 'newline_delimited')", [sys.argv[1]]
)
con.close()
"""


def _floor_run(path: Path, work: Path) -> TreeRun:
    return run_tree([sys.executable, "-c", _FLOOR, str(path), str(_fresh(work / "bare.duckdb"))])


def _import_run(path: Path, db: Path, workers: int | None) -> TreeRun:
    """``gostop db import PATH --db DB`` as a process, as a user runs it."""
    more = () if workers is None else ("--workers", str(workers))
    run = _command_tree("db", "import", str(path), "--db", str(_fresh(db)), *more)
    if run.returncode:
        raise RuntimeError(f"the benchmark corpus was rejected: {run.stdout[-2000:]}")
    return run


def plain_import(c: Corpus, db: Path) -> None:
    """The corpus imported into ``db`` for the figures that read a store, untimed."""
    from gostop_records.store import Store

    with Store(_fresh(db)) as store:
        store.import_paths([c.path])


def _import_seconds(path: Path, db: Path, workers: int | None) -> float:
    return _import_run(path, db, workers).wall


def import_figures(c: Corpus, work: Path, pairs: int = PAIRS) -> list[Figure]:
    """``gostop db import`` run as a process (with its default worker processes, and with
    ``--workers 0``) beside a process running DuckDB's bare read_json of the file.

    Each round runs the three back to back, the floor in the middle and the order reversed
    every other round (import, floor, import --workers 0; then the reverse), so each import
    and the floor form a pair whose order alternates. Ratios are per pair, reported as the
    median and range; the load average is read before each round.
    """
    from gostop_records.store.parallel import default_workers

    rounds: list[dict[str, TreeRun]] = []
    loads: list[float] = []
    for k in range(pairs):
        loads.append(busy_cores())
        got = pair_order(
            [
                ("import", lambda: _import_run(c.path, work / "bench.duckdb", None)),
                ("floor", lambda: _floor_run(c.path, work)),
                ("single", lambda: _import_run(c.path, work / "single.duckdb", 0)),
            ],
            k,
        )
        rounds.append(got)
    med = statistics.median

    def times(name: str) -> list[float]:
        return [r[name].wall for r in rounds]

    def over_floor(name: str, what: str = "wall") -> list[float]:
        return [getattr(r[name], what) / getattr(r["floor"], what) for r in rounds]

    ratio = over_floor("import")
    by_cpu = over_floor("import", "cpu")

    def met(ratios: list[float]) -> str:
        return "met" if med(ratios) <= IMPORT_TARGET else "not met"

    floor_rate = c.events / med(times("floor"))
    tree = max(r["import"].tree_peak_kib for r in rounds) / 1024
    largest = max(r["import"].largest_kib for r in rounds) / 1024
    floor_tree = max(r["floor"].tree_peak_kib for r in rounds) / 1024
    loads_t = tuple(loads)
    return [
        Figure(
            f"gostop db import, the whole command ({default_workers()} workers): validation, "
            "projections, DuckDB",
            c.events / med(times("import")),
            "events/s",
            beside=f"a process running DuckDB read_json into a bare table: {floor_rate:,.0f} "
            f"events/s; CPU {med(r['import'].cpu for r in rounds):.1f} s against "
            f"{med(r['floor'].cpu for r in rounds):.1f} s",
            ratio=f"time {spread(ratio, 'x')} the floor's; CPU {spread(by_cpu, 'x')}",
            target=f"time <= {IMPORT_TARGET:.0f}x: {met(ratio)}; CPU <= {IMPORT_TARGET:.0f}x: "
            f"{met(by_cpu)}",
            loads=loads_t,
        ),
        Figure(
            "gostop db import --workers 0 (every game checked in the importing process)",
            c.events / med(times("single")),
            "events/s",
            beside=f"DuckDB read_json process: {floor_rate:,.0f} events/s",
            ratio=f"time {spread(over_floor('single'), 'x')} the floor's",
            loads=loads_t,
        ),
        Figure(
            "peak memory of gostop db import, whole process tree (importer and workers)",
            tree,
            "MiB",
            beside=f"largest single process {largest:.1f} MiB; the read_json process "
            f"{floor_tree:.1f} MiB",
            ratio=f"{tree / floor_tree:.2f}x the floor's",
            loads=loads_t,
        ),
    ]


_ARCHIVE = """
import sys, time
from distributed import Client, LocalCluster
from gostop_records.archive import build_archive
n = int(sys.argv[3])
with LocalCluster(
    n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0"
) as cluster, Client(cluster) as client:
    client.wait_for_workers(n)
    start = time.perf_counter()
    report = build_archive([sys.argv[1]], sys.argv[2], client=client)
    secs = time.perf_counter() - start
if not report.ok:
    sys.exit(f"the benchmark corpus was rejected: {report.rejected[0]}")
print(secs)
"""


def _fresh_seconds(code: str, *args: str) -> float:
    """The seconds a fresh interpreter running ``code`` prints on its last line."""
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=False
    )
    if out.returncode:
        raise RuntimeError(out.stderr.strip() or f"exit code {out.returncode}")
    return float(out.stdout.strip().splitlines()[-1])


def _tree(folder: Path) -> tuple[int, int]:
    """Files and bytes under a folder."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def archive_figures(c: Corpus, work: Path, db: Path) -> list[Figure]:
    """``gostop archive build`` on a LocalCluster of one and of two worker processes, beside
    the single-process import of the same corpus; the files of the archive and of
    ``db export`` beside the JSON Lines they came from."""
    import shutil

    def build(n: int) -> float:
        out = work / f"archive-{n}"
        shutil.rmtree(out, ignore_errors=True)
        return _fresh_seconds(_ARCHIVE, str(c.path), str(out), str(n))

    single = _import_seconds(c.path, work / "archive-single.duckdb", 0)
    one, two = build(1), build(2)
    files, size = _tree(work / "archive-2")
    export = work / "export"
    shutil.rmtree(export, ignore_errors=True)
    from gostop_records.store import Store

    with Store(db, read_only=True) as st:
        st.export_parquet(export)
    efiles, esize = _tree(export)
    jsonl = c.path.stat().st_size
    return [
        Figure(
            "archive build on Dask, 1 worker process (validation and every table as Parquet)",
            c.hands / one,
            "hands/s",
            beside=f"single-process import (--workers 0): {c.hands / single:,.0f} hands/s",
            ratio=f"{single / one:.2f}x the import",
        ),
        Figure(
            "archive build on Dask, 2 worker processes",
            c.hands / two,
            "hands/s",
            beside=f"1 worker: {c.hands / one:,.0f} hands/s",
            ratio=f"scaling 2w/1w {one / two:.2f}",
        ),
        Figure(
            "archive files (2-worker build)",
            files,
            "files",
            beside=f"{size / 2**20:.1f} MiB of Parquet for {jsonl / 2**20:.1f} MiB of JSON Lines",
            ratio=f"{size / jsonl:.2f} of the JSONL",
        ),
        Figure(
            "db export files (same layout)",
            efiles,
            "files",
            beside=f"{esize / 2**20:.1f} MiB of Parquet for {jsonl / 2**20:.1f} MiB of JSON Lines",
            ratio=f"{esize / jsonl:.2f} of the JSONL",
        ),
    ]


def _queries(folder: Path) -> list[tuple[str, str]]:
    return [(p.stem, p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.sql"))]


def _time_queries(db: Path, folder: Path, label: str) -> list[Figure]:
    from gostop_records.store import Store

    out = []
    with Store(db, read_only=True) as store:
        hands = store.query("SELECT count(*) FROM hands").rows[0][0]
        for name, sql in _queries(folder):
            store.query(sql)  # warm: the first run pays for loading the columns
            runs = [_timed_cpu(lambda s=sql: store.query(s)) for _ in range(3)]
            ms = min(w for w, _ in runs) * 1000
            cpu = min(c for _, c in runs) * 1000
            met = "met" if ms < QUERY_TARGET_MS else "not met"
            out.append(
                Figure(
                    f"query {name} ({label}, {hands:,} hands)",
                    ms,
                    "ms",
                    # CPU time of every thread: what a loaded machine inflates least
                    beside=f"CPU {cpu:,.0f} ms",
                    target=f"< {QUERY_TARGET_MS:.0f} ms: {met}" if "million" in label else "",
                )
            )
    return out


def _timed_cpu(fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall, CPU) seconds of one call; CPU counts every thread of the process."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def query_figures(db: Path, folder: Path) -> list[Figure]:
    return _time_queries(db, folder, "corpus")


def live_figures(work: Path, events: int) -> list[Figure]:
    """Latency of live appends: one event per call, validated, sealed, committed."""
    from gostop_records.sim.selfplay import GameSpec, play_payloads
    from gostop_records.store import Store

    payloads: list[object] = []
    seed = 0
    while len(payloads) < events:
        spec = GameSpec(PRESETS["matgo"], 2, 10, seed, game_id=f"live-{seed}")
        payloads.extend((spec.id(), p) for _h, p in play_payloads(spec))  # type: ignore[misc]
        seed += 1
    lat: list[float] = []
    with Store(_fresh(work / "live.duckdb")) as store:
        for gid, payload in payloads[:events]:  # type: ignore[misc]
            version = store.version(gid)
            start = time.perf_counter()
            store.append(gid, [payload], version)
            lat.append(time.perf_counter() - start)
    lat.sort()
    p50 = lat[len(lat) // 2] * 1000
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
    met = "met" if p99 < LIVE_TARGET_MS else "not met"
    return [
        Figure("live append latency, p50", p50, "ms", beside=f"{len(lat)} appends, one per call"),
        Figure("live append latency, p99", p99, "ms", target=f"< {LIVE_TARGET_MS:.0f} ms: {met}"),
    ]


#: The projection tables the sample queries, the views and the reading pages read, copied
#: whole; ``turns`` (15 rows a hand) only with the columns they read, its game ids as in the
#: source (no query groups turns by game); the rest (``captures``: 37 rows a hand) is left
#: out, so that a ten-million-hand copy is made in minutes rather than hours.
COPIED_TABLES = (
    "games",
    "hands",
    "decisions",
    "payouts",
    "capture_tallies",
    "transfer_tallies",
    "hand_seats",
    "player_games",
)
NARROW_TABLES = {"turns": ("game_id", "hand", "turn", "seat", "played_month", "ppuk")}


def _copy_holds(dst: Path, hands: int) -> bool:
    """The copy of an earlier run is reused when it has this schema and ``hands`` hands."""
    import duckdb

    from gostop_records.store.schema import SCHEMA_VERSION, file_version

    if not dst.exists() or dst.with_name(dst.name + ".wal").exists():
        return False
    try:
        con = duckdb.connect(str(dst), read_only=True)
    except duckdb.Error:
        return False
    try:
        if file_version(con) != SCHEMA_VERSION:
            return False
        have = con.execute("SELECT count(*) FROM hands").fetchone()[0]  # type: ignore[index]
        return bool(have == hands)
    finally:
        con.close()


def million_copy(work: Path, hands: int = 1_000_000) -> Path:
    """The imported corpus's projection tables (``work/bench.duckdb``) copied with new game
    ids until they hold ``hands`` hands, into ``work/million.duckdb`` (simulating and
    importing a million hands would take hours; the copies have the same distributions,
    which is what query speed depends on). The events table is not copied, nor the tables
    no query or page reads (:data:`COPIED_TABLES`, :data:`NARROW_TABLES`). A copy of the
    same size left by an earlier run is reused."""
    import duckdb

    from gostop_records.store import Store

    src = work / "bench.duckdb"
    dst = work / "million.duckdb"
    base_hands = _hands_of(src)
    if _copy_holds(dst, max(1, -(-hands // base_hands)) * base_hands):
        return dst
    dst = _fresh(dst)
    with Store(dst):
        pass  # create the schema
    con = duckdb.connect(str(dst))
    con.execute("SET enable_progress_bar = false")
    con.execute(f"ATTACH '{src}' AS src (READ_ONLY)")
    copies = max(1, -(-hands // base_hands))
    for table in (*COPIED_TABLES, *NARROW_TABLES):
        cols = [
            c[0]
            for c in con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE database_name = 'src' "
                "AND table_name = ? ORDER BY column_index",
                [table],
            ).fetchall()
        ]
        narrow = table in NARROW_TABLES
        if narrow:
            cols = [c for c in cols if c in NARROW_TABLES[table]]
        names = ", ".join(f'"{c}"' for c in cols)
        select = ", ".join(
            "game_id || '-' || k::VARCHAR AS game_id" if c == "game_id" and not narrow else f'"{c}"'
            for c in cols
        )
        con.execute(
            f'INSERT INTO "{table}" ({names}) SELECT {select} '
            f'FROM src."{table}", range({copies}) AS r(k)'
        )
        con.execute("CHECKPOINT")
    con.close()
    return dst


def _hands_of(db: Path) -> int:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        return int(con.execute("SELECT count(*) FROM hands").fetchone()[0])  # type: ignore[index]
    finally:
        con.close()


def million_figures(work: Path, folder: Path, hands: int = 1_000_000) -> list[Figure]:
    """The sample queries on a million hands (:func:`million_copy`)."""
    return _time_queries(million_copy(work, hands), folder, "million-hand copy")
