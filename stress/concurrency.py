"""Writers at once: threads appending to one game with expected versions, a second recorder
on a log, a second process on a store. One wins each race; the others are told why."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from gostop_records import events as E
from gostop_records import log
from gostop_records.errors import GostopError
from gostop_records.log import JsonlSink
from gostop_records.recorder import RecordingSession
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import simulate
from gostop_records.store import ConcurrencyError, Store

from .crash import _child_env
from .figures import Figures

__all__ = ["racing_appends", "second_writers"]


def racing_appends(work: Path, *, threads: int, appends: int) -> Figures:
    """``threads`` writers, each with its own store connection, append ``appends`` notes to
    one game, re-reading the version after every refusal. Every note must be there once,
    in one unbroken chain. Each append is a trial."""
    fig = Figures("concurrency: racing appends")
    start = time.perf_counter()
    path = work / "race.duckdb"
    with Store(path) as st:
        # a game starts with its game_started: take one from a simulated game
        first = next(iter(simulate(PRESETS["matgo"], 2, 1, 1, 1)))[0]
        st.append("race", [first.event], expected_version=0)
        conflicts = [0] * threads
        errors: list[str] = []

        def writer(k: int) -> None:
            with Store(path) as mine:
                for n in range(appends):
                    while True:
                        try:
                            v = mine.version("race")
                            mine.append("race", [E.NoteAdded(text=f"{k}-{n}")], expected_version=v)
                            break
                        except ConcurrencyError:
                            conflicts[k] += 1
                        except Exception as exc:  # anything else is a failure
                            errors.append(f"{type(exc).__name__}: {exc}")
                            return

        pool = [threading.Thread(target=writer, args=(k,)) for k in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        envs = st.events("race")
        notes = [e.event.text for e in envs if type(e.event) is E.NoteAdded]
        fig.trials = threads * appends
        want = {f"{k}-{n}" for k in range(threads) for n in range(appends)}
        fig.survived = len(want & set(notes)) if len(notes) == len(set(notes)) else 0
        fig.lost = len(want - set(notes))
        for e in errors[:5]:
            fig.fail(e)
        if not log.verify(envs).ok or not st.verify().ok:
            fig.fail("the game's chain or projections do not verify")
        fig.notes.append(f"{sum(conflicts)} append(s) refused as stale and retried")
    fig.seconds = time.perf_counter() - start
    return fig


def second_writers(work: Path) -> Figures:
    """A second recorder on a log being recorded, and a second process on a store in use:
    refused with a sentence, never a traceback, and the first writer goes on."""
    fig = Figures("concurrency: second writers")
    start = time.perf_counter()
    from .recording import NAMES

    path = work / "locked.jsonl"
    with RecordingSession.start(JsonlSink(path), NAMES[:2], "matgo", game_id="a") as s:
        fig.trials += 1
        try:
            JsonlSink(path)
            fig.fail("a second recorder on the same log was let in")
        except GostopError as exc:
            fig.survived += "locked" in str(exc)
        s.note("still recording")
    db = work / "busy.duckdb"
    with Store(db):
        fig.trials += 1
        done = subprocess.run(
            [sys.executable, "-m", "gostop_cli.app", "db", "stats", "--db", str(db)],
            capture_output=True,
            text=True,
            env=_child_env(),
            timeout=120,
        )
        if "Traceback" in done.stderr:
            fig.tracebacks += 1
            fig.fail(done.stderr[-300:])
        elif done.returncode == 1 and "in use by another process" in done.stderr:
            fig.survived += 1
        else:
            fig.fail(f"a second process on the store: exit {done.returncode}: {done.stderr}")
    fig.seconds = time.perf_counter() - start
    return fig
