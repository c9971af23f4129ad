"""kill -9 at a random moment: of a recording (then resume it), of an import (then verify
the store and import again). Nothing acknowledged may be lost, every resume must be exact.

A recording runs in a child process (``python -m stress.crash record PATH SEED``) that
prints ``ack SEQ`` after each entry the session has returned from, which is when the
recorder promises the entry is durable.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from gostop_records.recorder import RecordingSession
from gostop_records.store import Store

from . import recording as R
from .figures import Figures

__all__ = ["crash_import", "crash_recording", "crash_service"]

ROOT = Path(__file__).resolve().parent.parent
GAME = "crash-1"


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def _entries(seed: int) -> list[object]:
    return R.inputs("gostop3", 3, seed, hands=2)


def _child_record(path: Path, seed: int) -> None:
    """The child: record every entry, saying which seq each one reached."""
    entries = _entries(seed)
    with R.start(path, "gostop3", 3, GAME) as s:
        print("ack", s.last_seq, flush=True)
        for ev in entries:
            R.record(s, [ev])
            print("ack", s.last_seq, flush=True)


def crash_recording(work: Path, *, trials: int, kind: str = "jsonl", seed: int = 5) -> Figures:
    """``trials`` recordings killed at random moments, each resumed and completed."""
    fig = Figures(f"kill -9: recording ({kind})")
    start = time.perf_counter()
    rng = random.Random(seed)
    entries = _entries(seed)
    ref = work / f"crash-ref.{kind}"
    with R.start(ref, "gostop3", 3, GAME) as s:
        R.record(s, entries)
    want = R.payloads(R.stored(ref, GAME))
    midway = 0
    for t in range(trials):
        fig.trials += 1
        path = work / f"crash-{t}.{kind}"
        child = subprocess.Popen(
            [sys.executable, "-m", "stress.crash", "record", str(path), str(seed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_child_env(),
            cwd=ROOT,
        )
        assert child.stdout is not None
        acked = 0
        # wait for the first acknowledgement (the interpreter starting), then a random while
        first = child.stdout.readline()
        if first.startswith(b"ack"):
            acked = int(first.split()[1])
        deadline = time.monotonic() + rng.uniform(0.0, 1.2 if kind == "jsonl" else 3.0)
        os.set_blocking(child.stdout.fileno(), False)
        while time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.005)
        child.send_signal(signal.SIGKILL)
        child.wait()
        os.set_blocking(child.stdout.fileno(), True)
        rest = child.stdout.read() or b""
        child.stdout.close()
        assert child.stderr is not None
        err = child.stderr.read().decode(errors="replace")
        child.stderr.close()
        for line in rest.splitlines():
            if line.startswith(b"ack"):
                acked = max(acked, int(line.split()[1]))
        if "Traceback" in err:
            fig.tracebacks += 1
            fig.fail(f"trial {t}: the recording crashed by itself: {err.strip()[-300:]}")
            continue
        try:
            durable = R.stored(path, GAME) if path.exists() or kind == "jsonl" else []
        except Exception as exc:
            fig.fail(f"trial {t}: the log cannot be read after the kill: {exc}")
            continue
        midway += 0 < len(durable) < len(want)
        if len(durable) < acked:
            fig.lost += acked - len(durable)
            fig.fail(f"trial {t}: {acked} acknowledged, {len(durable)} on disk")
            continue
        try:
            if durable:
                with RecordingSession.resume(R.open_sink(path, create=False), GAME) as s:
                    R.record(s, entries[R.inputs_before(s.envelopes) :])
            else:
                if path.exists():
                    path.unlink()
                with R.start(path, "gostop3", 3, GAME) as s:
                    R.record(s, entries)
            got = R.payloads(R.stored(path, GAME))
        except Exception as exc:
            fig.tracebacks += 1
            fig.fail(f"trial {t}: resume: {type(exc).__name__}: {exc}")
            continue
        if got != want:
            fig.fail(f"trial {t}: the resumed game differs from the reference")
            continue
        fig.survived += 1
    fig.notes.append(f"{midway} of {trials} killed in the middle of the game")
    fig.seconds = time.perf_counter() - start
    return fig


def crash_import(work: Path, logs: list[Path], *, trials: int, seed: int = 6) -> Figures:
    """``trials`` imports (``gostop db import``, small transactions) killed at random
    moments; after each, the store must verify and hold whole games only, and an import
    run again must end equal to an import never killed."""
    from .fuzz import tables

    fig = Figures("kill -9: import")
    start = time.perf_counter()
    rng = random.Random(seed)
    with Store(work / "crash-import-ref.duckdb") as ref:
        ref.import_paths(logs, workers=0)
        want = tables(ref)
        whole = {g: ref.events(g) for g in ref.game_ids()}
    midway = 0

    def run(db: Path) -> subprocess.Popen[bytes]:
        cmd = [sys.executable, "-m", "gostop_cli.app", "db", "import", *map(str, logs)]
        cmd += ["--batch-events", "400", "--workers", "0", "--db", str(db)]
        return subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_child_env()
        )

    # how long a whole import takes here: the kills fall anywhere within it
    began = time.perf_counter()
    timed = run(work / "crash-import-timed.duckdb")
    timed.communicate()
    whole_time = time.perf_counter() - began
    for t in range(trials):
        fig.trials += 1
        db = work / f"crash-import-{t}.duckdb"
        child = run(db)
        time.sleep(rng.uniform(0.2, 1.0) * whole_time)
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert child.stderr is not None
        err = child.stderr.read().decode(errors="replace")
        child.stderr.close()
        if "Traceback" in err:
            fig.tracebacks += 1
            fig.fail(f"trial {t}: {err.strip()[-300:]}")
            continue
        try:
            with Store(db) as st:
                ids = st.game_ids()
                midway += 0 < len(ids) < len(whole)
                partial = [g for g in ids if st.events(g) != whole.get(g)]
                verified = st.verify().ok
                st.import_paths(logs, workers=0)
                got = tables(st)
        except Exception as exc:
            fig.tracebacks += 1
            fig.fail(f"trial {t}: after the kill: {type(exc).__name__}: {exc}")
            continue
        if partial:
            fig.lost += len(partial)
            fig.fail(f"trial {t}: {len(partial)} game(s) stored in part")
        elif not verified:
            fig.fail(f"trial {t}: the store does not verify after the kill")
        elif got != want:
            fig.fail(f"trial {t}: the completed import differs from one never killed")
        else:
            fig.survived += 1
    fig.notes.append(f"{midway} of {trials} killed with part of the games stored")
    fig.seconds = time.perf_counter() - start
    return fig


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "record":
        _child_record(Path(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit("usage: python -m stress.crash record PATH SEED")


def crash_service(work: Path, *, trials: int, tables: int = 4, seed: int = 7) -> Figures:
    """``gostop serve`` killed (SIGKILL) at random moments while ``tables`` games record as
    fast as the server answers, so that the kill falls in the middle of the settler's
    batches (the journal's rows being written to DuckDB) as often as between them. After
    each kill the store is opened (which applies the journal's segments): every answered
    entry must be there, at its seq with its hash, and the store must verify; the next
    trial's server goes on with the same store."""
    import httpx

    from bench.service import KEY, table_lines
    from gostop_records.store.journal import pending

    fig = Figures("kill -9: the service (journal and settler)")
    start = time.perf_counter()
    rng = random.Random(seed)
    db = work / "crash-service.duckdb"
    midway = 0
    for t in range(trials):
        fig.trials += 1
        acked: dict[str, tuple[int, str]] = {}  # game: (version, hash of its last event)
        port = _free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "gostop_cli.app", "serve", "--db", str(db), "--port", str(port)],
            env={**_child_env(), "GOSTOP_SERVER_KEY": KEY},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
                _record_until_killed(http, server, rng, acked, t, tables, KEY, table_lines)
        except Exception as exc:
            server.kill()
            fig.tracebacks += 1
            fig.fail(f"trial {t}: {type(exc).__name__}: {exc}")
            continue
        finally:
            server.wait()
            assert server.stderr is not None
            err = server.stderr.read().decode(errors="replace")
            server.stderr.close()
        if "Traceback" in err:
            fig.tracebacks += 1
            fig.fail(f"trial {t}: the server crashed by itself: {err.strip()[-300:]}")
            continue
        midway += pending(db)
        try:
            with Store(db) as store:
                for gid, (version, head) in acked.items():
                    envs = store.events(gid)
                    if len(envs) < version or (head and envs[version - 1].hash != head):
                        fig.lost += max(1, version - len(envs))
                        fig.fail(f"trial {t}: game {gid}: {version} answered, {len(envs)} stored")
                report = store.verify()
                if not report.ok:
                    fig.fail(f"trial {t}: the store does not verify: {report.problems()}")
                    continue
        except Exception as exc:
            fig.tracebacks += 1
            fig.fail(f"trial {t}: the store cannot be opened after the kill: {exc}")
            continue
        if acked and not fig.lost:
            fig.survived += 1
    fig.notes.append(f"{midway} of {trials} killed with journaled rows not yet in DuckDB")
    fig.seconds = time.perf_counter() - start
    return fig


def _record_until_killed(
    http: Any,
    server: subprocess.Popen[bytes],
    rng: random.Random,
    acked: dict[str, tuple[int, str]],
    trial: int,
    tables: int,
    key: str,
    table_lines: Any,
) -> None:
    """Start ``tables`` games, record into them in turns until a random moment, then kill
    the server; ``acked`` holds each game's last answered version and head."""
    import httpx

    deadline = time.monotonic() + 60
    while True:
        try:
            http.get("/api/health", timeout=1)
            break
        except httpx.HTTPError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    games = []
    for k in range(tables):
        r = http.post(
            "/api/games",
            json={"players": ["A", "B"], "ruleset": "matgo"},
            headers={"Authorization": f"Bearer {key}"},
        )
        r.raise_for_status()
        games.append((r.json(), table_lines(1000 * trial + k)))
        acked[r.json()["game_id"]] = (r.json()["version"], "")
    until = time.monotonic() + rng.uniform(0.3, 3.0)
    step = 0
    while time.monotonic() < until and step // tables < min(len(g[1]) for g in games):
        game, lines = games[step % tables]
        gid = game["game_id"]
        r = http.post(
            f"/api/games/{gid}/entries",
            json={"entry": lines[step // tables], "expected_version": acked[gid][0]},
            headers={"Authorization": f"Bearer {game['recorder_token']}"},
        )
        r.raise_for_status()
        acked[gid] = (r.json()["version"], r.json()["events"][-1]["hash"])
        step += 1
    server.send_signal(signal.SIGKILL)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
