"""Where the CPU of ``gostop db import`` goes, part by part.

``python -m bench.import_parts [--hands N] [--rounds N] [--out DIR]`` (never run by the test
suite) generates the bench's corpus and takes three readings of it, each round in fresh
processes, reported as the median and range over the rounds with the cores other work kept
busy before each (``busy_cores``):

1. **The parts, one after another in one process**, by process CPU, the cyclic collector
   paused as the import's processes pause it: the checked read (decode, stored form, each
   hash), the chain and the rules (a projector per game), the rows (the store's walk of each
   hand), the event columns, the Arrow tables, and DuckDB's insert and commit into a new
   store with one DuckDB thread (as the import sets it). Beside them, the CPU of starting an
   interpreter with a worker's imports and with the command's.
2. **The command as a user runs it**, per process of its tree: the importer and each worker,
   as :func:`.process.run_tree` polls them from ``/proc`` (to within 50 ms), and the whole
   tree.
3. **The price of running side by side**: one process checking the whole corpus as a worker
   checks a piece, alone, and two such processes at once, each with its own CPU.

Each round also runs the import's floor, a process reading the file with DuckDB's
``read_json`` (:func:`.runs._floor_run`), so that the parts and the command are given as
ratios to the floor's CPU in the same round.

Reading 3 tells how much of the command's CPU beyond reading 1's parts comes from the
processes sharing the machine (caches, memory bandwidth, a virtual machine's host) rather
than from work the import does.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .process import LOADED_CORES, busy_cores, busy_loaded, run_tree
from .runs import _floor_run, _fresh, gostop_argv, make_corpus

#: The parts of reading 1, in the order they run.
PARTS = ("read", "rules", "rows", "event columns", "arrow", "duckdb")

_PARTS_CODE = r"""
import gc, json, resource, sys, time
from itertools import chain
import duckdb
from gostop_records.store import Store
from gostop_records.store.bulk import to_arrow
from gostop_records.store.codec import event_columns
from gostop_records.store.game_runs import Run, RunReader, check_links, replay
from gostop_records.store.projections import derive, empty_rows
from gostop_records.store.schema import EVENT_COLUMNS, TABLES
from gostop_records.store.writer import prepare_events, prepare_projection

gc.disable()
gc.freeze()
path, db = sys.argv[1], sys.argv[2]
out = {}

def part(name, fn):
    start = time.process_time()
    got = fn()
    out[name] = time.process_time() - start
    return got

runs = part("read", lambda: list(RunReader(path)))

def rules():
    done = []
    for i, (events, bad) in enumerate(runs):
        assert check_links(events, bad) is None
        done.append(replay(Run(path, i, events, bad), events, 0, False))
    return done

checked = part("rules", rules)

def rows():
    made = empty_rows()
    for c in checked:
        derive(c.full, c.game, c.issues, rows=made, retracted=c.retracted)
    return made

made = part("rows", rows)
new = list(chain.from_iterable(c.new for c in checked))
columns = part("event columns", lambda: event_columns(new))

def arrow():
    events = to_arrow(EVENT_COLUMNS, prepare_events(columns))
    tables = {name: to_arrow(TABLES[name], p) for name, p in prepare_projection(made).items()}
    return events, tables

events, tables = part("arrow", arrow)
with Store(db):
    pass
con = duckdb.connect(db)
con.execute("SET threads = 1")
con.execute("SET max_vacuum_tasks = 0")
before = resource.getrusage(resource.RUSAGE_SELF)
con.execute("BEGIN")
for name, table in {"events": events, **tables}.items():
    con.register("src", table)
    con.execute(f"INSERT INTO {name} SELECT * FROM src")
    con.unregister("src")
con.execute("COMMIT")
con.close()
after = resource.getrusage(resource.RUSAGE_SELF)
out["duckdb"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
print(json.dumps(out))
"""

_CHECK_CODE = r"""
import gc, sys, time
from gostop_records.store.parallel import check_piece
gc.disable()
gc.freeze()
start = time.process_time()
check_piece([(sys.argv[1], None)], False)
print(time.process_time() - start)
"""

#: What an interpreter loads before it works: a worker (the command line it is started
#: with), and the command (its entry point, DuckDB and Arrow).
_WORKER_START = "from gostop_records.store.parallel import serve"
_COMMAND_START = "import duckdb, pyarrow; from gostop_cli.app import app"


def _checker(path: str) -> subprocess.Popen[bytes]:
    """A process checking the whole corpus as a worker checks a piece; it prints its CPU."""
    return subprocess.Popen([sys.executable, "-c", _CHECK_CODE, path], stdout=subprocess.PIPE)


def _start_cpu(code: str) -> float:
    before = os.times()
    subprocess.run([sys.executable, "-c", code], check=True)
    after = os.times()
    return (after.children_user + after.children_system) - (
        before.children_user + before.children_system
    )


def _spread(values: Sequence[float], unit: str = " s") -> str:
    med = statistics.median(values)
    return f"{med:.2f}{unit} ({min(values):.2f}-{max(values):.2f})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.import_parts", description=__doc__)
    ap.add_argument("--hands", type=int, default=6_400, help="hands in the corpus (400k events)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of each reading")
    ap.add_argument("--out", type=Path, default=None, help="work folder (default: a temp dir)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.out or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        corpus = make_corpus(work / "corpus.jsonl", args.hands)
        path = str(corpus.path)
        parts: dict[str, list[float]] = {p: [] for p in PARTS}
        starts: dict[str, list[float]] = {"worker": [], "command": []}
        tree: dict[str, list[float]] = {"wall": [], "importer": [], "workers": [], "tree": []}
        floor: list[float] = []
        alone: list[float] = []
        beside: list[float] = []
        loads: list[float] = []
        for _ in range(args.rounds):
            loads.append(busy_cores())
            db = _fresh(work / "parts.duckdb")
            got = subprocess.run(
                [sys.executable, "-c", _PARTS_CODE, path, str(db)],
                check=True,
                capture_output=True,
                text=True,
            )
            for name, secs in json.loads(got.stdout).items():
                parts[name].append(secs)
            starts["worker"].append(_start_cpu(_WORKER_START))
            starts["command"].append(_start_cpu(_COMMAND_START))
            db = _fresh(work / "import.duckdb")
            floor.append(_floor_run(corpus.path, work).cpu)
            run = run_tree(gostop_argv("db", "import", path, "--db", str(db)))
            if run.returncode:
                raise RuntimeError(f"the corpus was not imported: {run.stdout[-2000:]}")
            cpus = run.process_cpu
            tree["wall"].append(run.wall)
            tree["importer"].append(cpus[0])
            tree["workers"].append(sum(cpus[1:]))
            tree["tree"].append(sum(cpus))
            alone.append(float(_checker(path).communicate()[0]))
            pair = [_checker(path) for _ in range(2)]
            beside.extend(float(p.communicate()[0]) for p in pair)
    mark = f" (LOADED: above {LOADED_CORES})" if any(busy_loaded(x) for x in loads) else ""
    print(
        f"gostop db import, {corpus.events:,} events ({corpus.hands:,} hands), "
        f"{args.rounds} rounds; cores busy with other work before each: "
        f"{', '.join(f'{x:.2f}' for x in loads)}{mark}"
    )
    print("\n1. the parts in one process (CPU, median and range):")
    for name in PARTS:
        print(f"   {name:15s} {_spread(parts[name])}")
    total = [sum(parts[p][k] for p in PARTS) for k in range(args.rounds)]
    print(f"   {'all parts':15s} {_spread(total)}")
    print(f"   {'start, worker':15s} {_spread(starts['worker'])}")
    print(f"   {'start, command':15s} {_spread(starts['command'])}")
    print("\n2. the command, per process (CPU; wall for the whole):")
    for name in ("importer", "workers", "tree", "wall"):
        print(f"   {name:15s} {_spread(tree[name])}")
    print(f"\n   the floor: read_json's process, CPU {_spread(floor)}")
    ratio = [t / f for t, f in zip(total, floor, strict=True)]
    print(f"   all the parts / the floor: {_spread(ratio, 'x')}")
    ratio = [t / f for t, f in zip(tree["tree"], floor, strict=True)]
    print(f"   the command's tree / the floor: {_spread(ratio, 'x')}")
    print("\n3. checking the whole corpus as a worker does (CPU of one process):")
    print(f"   {'alone':15s} {_spread(alone)}")
    print(f"   {'two at once':15s} {_spread(beside)}")
    print(f"   {'ratio':15s} {statistics.median(beside) / statistics.median(alone):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
