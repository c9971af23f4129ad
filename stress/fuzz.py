"""Fuzz probes: damaged logs through ``gostop db import``, mutated logs through the readers.

The import probe checks the whole-game rule: the store after importing every file (damaged
and clean, in a random order) must hold, table by table, exactly what a store of the clean
files alone holds, and every damaged file must be rejected by name.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gostop_cli.app import app
from typer.testing import CliRunner

from gostop_records import log
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import simulate
from gostop_records.store import Store, parallel
from gostop_records.store.schema import TABLES

from .damage import write_corpus
from .figures import Figures

__all__ = ["base_games", "import_fuzz", "reader_fuzz", "tables"]


def base_games(count: int = 4, hands: int = 1, seed: int = 7) -> list[list[Any]]:
    """A few small games of two rulesets to damage (renamed for each log)."""
    half = max(1, count // 2)
    return [
        *simulate(PRESETS["matgo"], 2, half, hands, seed),
        *simulate(PRESETS["gostop3"], 3, count - half, hands, seed + 100),
    ]


def tables(store: Store) -> dict[str, list[Any]]:
    """Every row of every table, in a stable order: two stores compare equal by this."""
    return {
        name: sorted(store.conn.execute(f"SELECT * FROM {name}").fetchall(), key=repr)
        for name in ("events", *TABLES)
    }


@contextlib.contextmanager
def small_pieces(on: bool) -> Iterator[None]:
    """Worker processes for any import, in pieces of a few kilobytes (the parallel path)."""
    if not on:
        yield
        return
    before = parallel.PIECE_BYTES, parallel.MIN_BYTES
    parallel.PIECE_BYTES, parallel.MIN_BYTES = 20_000, 1
    try:
        yield
    finally:
        parallel.PIECE_BYTES, parallel.MIN_BYTES = before


def import_fuzz(
    work: Path,
    *,
    trials: int,
    clean: int,
    seed: int = 1,
    workers: int = 0,
    base: list[list[Any]] | None = None,
) -> Figures:
    """``trials`` damaged logs and ``clean`` undamaged ones through ``gostop db import``."""
    name = f"import fuzz ({'workers' if workers else 'in-process'})"
    fig = Figures(name)
    start = time.perf_counter()
    folder = work / f"fuzz-{seed}-{workers}"
    clean_files, damaged = write_corpus(folder, base or base_games(), trials, clean, seed)
    every = [*clean_files, *(d.path for d in damaged)]
    random.Random(seed).shuffle(every)
    db = folder / "all.duckdb"
    with small_pieces(workers > 0):
        res = CliRunner().invoke(
            app,
            [
                "db",
                "import",
                *map(str, every),
                "--db",
                str(db),
                "--json",
                "--workers",
                f"{workers}",
            ],
        )
    fig.trials = trials
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        fig.tracebacks += 1
        fig.fail(f"import crashed: {res.exception!r}")
        fig.seconds = time.perf_counter() - start
        return fig
    report = json.loads(res.stdout)
    named = {p["file"] for p in report["rejected"] + report["conflicts"]}
    unnamed = [p for p in report["rejected"] if not p["file"]]
    for p in unnamed:
        fig.fail(f"a rejection names no file: {p}")
    expect_db = folder / "clean.duckdb"
    twins = [d.twin for d in damaged if d.twin is not None]
    with Store(expect_db) as expected:
        expected.import_paths([*clean_files, *twins], workers=0)
        want = tables(expected)
    with Store(db, read_only=True) as got_store:
        got = tables(got_store)
        stored = {gid for (gid,) in got_store.conn.execute("SELECT game_id FROM games").fetchall()}
        clean_ok = got_store.verify().ok
    fig.notes.append(
        f"{len(twins)} damaged log(s) read as the same events (see docs/operations.md, Reliability)"
    )
    for d in damaged:
        if d.twin is not None:
            fig.survived += d.game_ids[0] in stored
            continue
        leaked = [g for g in d.game_ids if g in stored]
        if leaked:
            fig.lost += 1
            fig.fail(f"{d.path.name}: {d.kind}: game {leaked[0]} was stored")
        elif str(d.path) not in named:
            fig.fail(f"{d.path.name}: {d.kind}: no rejection names the file")
        else:
            fig.survived += 1
    if got != want:
        diff = [t for t in want if got.get(t) != want[t]]
        fig.lost += 1
        fig.fail(f"the store differs from the store of the clean logs in {', '.join(diff)}")
    if not clean_ok:
        fig.fail("db verify does not call the store clean")
    fig.seconds = time.perf_counter() - start
    return fig


def _mutate(rng: random.Random, lines: list[str]) -> list[str]:
    out = list(lines)
    k = rng.randrange(len(out))
    d = json.loads(out[k])
    how = rng.choice(["seq", "game_id", "drop", "dup", "swap", "hand", "field", "type", "byte"])
    if how == "drop":
        del out[k]
        return out
    if how == "dup":
        out.insert(k, out[k])
        return out
    if how == "swap" and k + 1 < len(out):
        out[k], out[k + 1] = out[k + 1], out[k]
        return out
    if how == "byte":
        i = rng.randrange(len(out[k]))
        out[k] = out[k][:i] + chr(rng.randrange(32, 127)) + out[k][i + 1 :]
        return out
    if how == "seq":
        d["seq"] = rng.choice([0, -1, d["seq"] + 5, "x", None])
    elif how == "game_id":
        d["game_id"] = "other"
    elif how == "hand":
        d["hand"] = rng.choice([None, 99, -3, "a"])
    elif how == "field":
        d["event"][rng.choice(list(d["event"]))] = rng.choice([None, 5, "zz", [], {}])
    else:
        d["event"]["type"] = rng.choice(["card_played", "nope", "game_started"])
    out[k] = json.dumps(d)
    return out


#: validate's closing count, after the errors it lists (each naming the file and line)
_SUMMARY = re.compile(r"gostop: error: \d+ error\(s\) found$")
#: The commands whose every message about a log must name it.
READERS = (("validate",), ("replay",), ("audit",))


def reader_fuzz(work: Path, *, trials: int, seed: int = 2) -> Figures:
    """Mutated logs through validate, replay and audit: a message naming the file for
    every rejection, never a traceback. Each (log, command) is a trial."""
    fig = Figures("reader fuzz (validate, replay, audit)")
    start = time.perf_counter()
    rng = random.Random(seed)
    folder = work / f"readers-{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    games = base_games(2, 1, seed)
    runner = CliRunner()
    for t in range(trials):
        game = rng.choice(games)
        lines = [log.encode_json(e).decode() for e in game]
        path = folder / f"m{t:04d}.jsonl"
        path.write_text("\n".join(_mutate(rng, lines)) + "\n")
        for cmd in READERS:
            fig.trials += 1
            res = runner.invoke(app, [*cmd, str(path)])
            if res.exception is not None and not isinstance(res.exception, SystemExit):
                fig.tracebacks += 1
                fig.fail(f"{cmd[0]} {path.name}: {res.exception!r}")
                continue
            messages = [
                m
                for m in res.output.splitlines()
                if m.startswith("gostop:") and not _SUMMARY.match(m)
            ]
            if res.exit_code != 0 and str(path) not in res.output:
                fig.fail(f"{cmd[0]} {path.name}: exit {res.exit_code}, the file not named")
            elif any(str(path) not in m for m in messages):
                fig.fail(f"{cmd[0]} {path.name}: a message does not name the file: {messages}")
            else:
                fig.survived += 1
    fig.seconds = time.perf_counter() - start
    return fig
