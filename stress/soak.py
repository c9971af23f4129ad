"""A soak of ``gostop serve``: everything a server meets at once, for a bounded time, with
SIGTERM and kill -9 at random moments, on one store.

A real server runs on 127.0.0.1 in its own process; this process plays its clients, each on
a thread of its own with its own keep-alive connection:

- tables recording whole matgo games entry by entry (a line of the grammar each, sent with
  an Idempotency-Key and the expected version; after a refused connection, the same entry
  again with the same key), countersigning some hands' checkpoints and having their
  recorder token reissued now and then;
- imports of fresh valid logs (``POST /api/import``) and finished ``/play`` hands (stored
  through the same import);
- readers of every kind (health, search, table, ``/now``, events, audit, the pages, light
  SQL), heavy SQL (a cross join) and SQL the client gives up on (times out and
  disconnects), and Server-Sent Events viewers following live games;
- the server stopped at random moments, by SIGTERM (it must end within ``TERM_LIMIT_S`` and
  leave the store unlocked: ``gostop db verify`` is run on it right then) or by kill -9,
  and started again on the same store each time.

At the end (after a last SIGTERM): every acknowledged answer's events are in the store
exactly once, at their seq with their hash, and nothing else was stored for them; every
acknowledged import and ``/play`` hand is there whole; ``gostop db verify`` passes without
``--accept-loss``; no read was answered 5xx, except a 503 "unavailable" while the server was
stopping or starting (the stated window). The figures (entries, reads, p50/p99 latencies,
kills, terms, the time to stop after SIGTERM) are printed.

The random choices (the stops, what each client does, the games) come from ``--seed`` and
are printed: ``python -m stress.soak --seed N --seconds S`` runs the same plan again (the
timing, and so what each stop interrupts, is the machine's).

Run with ``python -m stress.soak [--seconds N | --quick] [--seed N] [--keep DIR]``; exits 1
when anything above fails. Not part of ``make stress``: it takes minutes (``--quick``:
about 25 s).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from .crash import ROOT, _child_env, _free_port
from .figures import Figures, render

__all__ = ["KEY", "SoakResult", "play_answer", "soak"]

KEY = "soak-key"
#: The longest a server may take to end after SIGTERM.
TERM_LIMIT_S = 20.0
#: The longest a server may take to answer its first health check after a start.
START_LIMIT_S = 60.0
#: How long an entry (or an import) is sent again while the server is down.
RETRY_S = 90.0
JSONL = "application/x-ndjson"


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * q))] if s else 0.0


def _p50_p99(seconds: list[float]) -> str:
    return f"{_pct(seconds, 0.5) * 1000:.1f} / {_pct(seconds, 0.99) * 1000:.1f}"


def _spread(seconds: list[float]) -> str:
    """A few times each, sorted; many as their median and maximum."""
    if len(seconds) <= 8:
        return ", ".join(f"{t:.2f}" for t in sorted(seconds)) or "-"
    return f"median {_pct(seconds, 0.5):.2f}, max {max(seconds):.2f}"


class _Server:
    """``gostop serve`` on one store and one port, started again after each stop."""

    def __init__(self, db: Path, logs: Path) -> None:
        self.db = db
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.logs = logs
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        #: set from the moment a stop is decided until the next server answers
        self.down = threading.Event()
        self.down.set()
        #: moves at every stop and start: a request that saw it move was in the window
        self.epoch = 0

    def start(self) -> float:
        """Start a server and wait for its first answer; the seconds it took."""
        began = time.perf_counter()
        self.starts += 1
        with open(self.logs, "ab") as err:
            err.write(f"--- start {self.starts}\n".encode())
            err.flush()
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gostop_cli.app",
                    "serve",
                    "--db",
                    str(self.db),
                    "--port",
                    str(self.port),
                ],
                env={**_child_env(), "GOSTOP_SERVER_KEY": KEY},
                stdout=subprocess.DEVNULL,
                stderr=err,
                cwd=ROOT,
            )
        deadline = time.monotonic() + START_LIMIT_S
        with httpx.Client(base_url=self.url, timeout=2) as http:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the server exited at start ({self.proc.returncode})")
                try:
                    http.get("/api/health")  # any answer: how it answers is the readers' to judge
                    break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not answer within {START_LIMIT_S:.0f} s")
                time.sleep(0.1)
        self.epoch += 1
        self.down.clear()
        return time.perf_counter() - began

    def term(self) -> float | None:
        """SIGTERM: the seconds until the process ended, or None when it outlived
        ``TERM_LIMIT_S`` (then it is killed)."""
        assert self.proc is not None
        self.down.set()
        self.epoch += 1
        began = time.perf_counter()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=TERM_LIMIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        return time.perf_counter() - began

    def kill(self) -> None:
        assert self.proc is not None
        self.down.set()
        self.epoch += 1
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def tracebacks(self) -> tuple[int, str]:
        text = self.logs.read_text(errors="replace") if self.logs.exists() else ""
        at = text.rfind("Traceback")
        return text.count("Traceback (most recent call last)"), text[at : at + 1200]


@dataclass
class _Game:
    """A live game a table records: what was answered for it."""

    game_id: str
    created: int  # the version its creation answered
    players: int
    acked: dict[int, str] = field(default_factory=dict)  # seq: hash, of every answer
    uncertain: bool = False  # left with an entry whose answer never came
    bound: set[int] = field(default_factory=set)  # seats whose key the recorder confirmed


@dataclass
class _Run:
    """What the clients saw, shared by their threads."""

    server: _Server
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    games: dict[str, _Game] = field(default_factory=dict)
    imported: dict[str, tuple[int, str]] = field(default_factory=dict)  # game: (events, head)
    played: dict[str, int] = field(default_factory=dict)  # game: version stored
    counts: dict[str, int] = field(default_factory=dict)
    entry_s: list[float] = field(default_factory=list)
    read_s: list[float] = field(default_factory=list)
    heavy_s: list[float] = field(default_factory=list)
    term_s: list[float] = field(default_factory=list)
    start_s: list[float] = field(default_factory=list)
    verify_s: list[float] = field(default_factory=list)
    fig: Figures = field(default_factory=lambda: Figures("soak: gostop serve"))
    #: each failure's shape (ids and numbers left out): its index in fig.failures, and count
    shapes: dict[str, list[int]] = field(default_factory=dict)

    def add(self, what: str, n: int = 1) -> None:
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + n

    def fail(self, what: str, shape: str | None = None) -> None:
        """A failure, told once per shape (the same refusal of a thousand reads is one
        line, the first, with its count); ``shape`` by default: ``what`` without numbers."""
        shape = shape or re.sub(r"\d+", "N", what)[:90]
        with self.lock:
            self.counts["failures"] = self.counts.get("failures", 0) + 1
            seen = self.shapes.get(shape)
            if seen is not None:
                seen[1] += 1
            elif len(self.fig.failures) < 20:
                self.shapes[shape] = [len(self.fig.failures), 1]
                self.fig.fail(what)

    def told(self) -> None:
        """The failures' counts, added to their lines."""
        for at, n in self.shapes.values():
            if n > 1:
                self.fig.failures[at] += f" ({n} times)"

    def game_ids(self) -> list[str]:
        with self.lock:
            return [*self.games, *self.imported, *self.played]


def _error(r: httpx.Response) -> str:
    """The ``error`` word of a refusal (its first words when it is not JSON)."""
    try:
        return str(r.json().get("error"))
    except Exception:
        return r.text[:40]


def _stopping(r: httpx.Response) -> bool:
    """The service's answer while it starts or stops: 503 ``unavailable``."""
    return r.status_code == 503 and _error(r) == "unavailable"


class _GiveUp(Exception):
    """The server did not take a write within ``RETRY_S``, or refused it."""


@contextlib.contextmanager
def _window(run: _Run) -> Iterator[Callable[[], bool]]:
    """Whether a request overlapped a stop or a start (the stated window)."""
    srv = run.server
    epoch, down = srv.epoch, srv.down.is_set()
    yield lambda: down or srv.down.is_set() or srv.epoch != epoch


def _read(
    run: _Run, http: httpx.Client, method: str, path: str, *, timed: bool = True, **kw: Any
) -> httpx.Response | None:
    """A read, counted: None when the server could not be reached; a 5xx outside the
    window is a failure."""
    began = time.perf_counter()
    with _window(run) as in_window:
        try:
            r = http.request(method, path, **kw)
        except httpx.TransportError:
            run.add("reads unreachable" if in_window() else "reads cut while up")
            return None
        seconds = time.perf_counter() - began
        run.add("reads")
        if r.status_code >= 500:
            if _stopping(r) and in_window():
                run.add("reads 503 in the window")
            else:
                run.add("reads 5xx")
                run.fail(
                    f"{method} {path}: {r.status_code} {r.text[:200]}",
                    f"read {r.status_code} {_error(r)}",
                )
        elif timed:
            run.read_s.append(seconds)
        return r


def _write(
    run: _Run,
    http: httpx.Client,
    path: str,
    *,
    what: str,
    ok: tuple[int, ...] = (200, 201),
    refresh: Callable[[], dict[str, str]] | None = None,
    **kw: Any,
) -> tuple[httpx.Response, float]:
    """A write sent until answered (the same request each time: the same Idempotency-Key);
    a 503 in the window is sent again too. Any other 5xx is a failure, tried again twice.
    ``refresh``: new headers after a 403 (a token reissued whose answer was lost)."""
    deadline = time.monotonic() + RETRY_S
    errors = 0
    attempt = 0
    while True:
        began = time.perf_counter()
        with _window(run) as in_window:
            try:
                r = http.post(path, **kw)
            except httpx.TransportError:
                r = None
            seconds = time.perf_counter() - began
            if r is not None and r.status_code in ok:
                if attempt:
                    run.add(f"{what} sent again")
                return r, seconds
            if r is not None and r.status_code == 403 and refresh is not None and errors < 3:
                errors += 1
                kw["headers"] = {**kw.get("headers", {}), **refresh()}
                continue
            if r is not None and r.status_code < 500:
                run.fail(
                    f"{what} {path}: {r.status_code} {r.text[:200]}",
                    f"{what} {r.status_code} {_error(r)}",
                )
                raise _GiveUp(r.text)
            if r is not None and not (_stopping(r) and in_window()):
                run.add(f"{what} 5xx")
                run.fail(
                    f"{what} {path}: {r.status_code} {r.text[:200]}",
                    f"{what} {r.status_code} {_error(r)}",
                )
                errors += 1
                if errors > 2:
                    raise _GiveUp(r.text)
        attempt += 1
        if time.monotonic() > deadline:
            run.fail(f"{what} {path}: not taken within {RETRY_S:.0f} s")
            raise _GiveUp("no answer")
        time.sleep(0.2)


# --- the clients ----------------------------------------------------------------------------


def _table(run: _Run, seed: int) -> None:
    """Games recorded entry by entry until the run ends (the entry in flight finishes)."""
    from bench.service import table_lines
    from gostop_records.integrity.signing import SigningKey

    rng = random.Random(seed)
    key_auth = {"Authorization": f"Bearer {KEY}"}
    with httpx.Client(base_url=run.server.url, timeout=15) as http:
        while not run.stop.is_set():
            try:
                r, _ = _write(
                    run,
                    http,
                    "/api/games",
                    what="game start",
                    json={"players": ["Ann", "Ben"], "ruleset": "matgo"},
                    headers={
                        **key_auth,
                        "Idempotency-Key": uuid.UUID(int=rng.getrandbits(128)).hex,
                    },
                )
            except _GiveUp:
                time.sleep(1)
                continue
            made = r.json()
            gid, token, version = made["game_id"], made["recorder_token"], made["version"]
            game = _Game(gid, version, 2)
            with run.lock:
                run.games[gid] = game
            run.add("games started")
            lines = table_lines(rng.randrange(1 << 30), hands=rng.choice((1, 2)))
            signers: dict[int, SigningKey] = {}

            def reissue(gid: str = gid) -> dict[str, str]:
                nonlocal token
                r, _ = _write(run, http, f"/api/games/{gid}/token", what="token", headers=key_auth)
                token = r.json()["recorder_token"]
                run.add("tokens reissued")
                return {"Authorization": f"Bearer {token}"}

            try:
                for line in lines:
                    if run.stop.is_set():
                        break
                    if rng.random() < 0.03:
                        reissue()
                    key = uuid.UUID(int=rng.getrandbits(128)).hex
                    body = {"entry": line, "expected_version": version}
                    game.uncertain = True
                    r, seconds = _write(
                        run,
                        http,
                        f"/api/games/{gid}/entries",
                        what="entry",
                        json=body,
                        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key},
                        refresh=reissue,
                    )
                    game.uncertain = False
                    ans = r.json()
                    with run.lock:
                        game.acked.update({e["seq"]: e["hash"] for e in ans["events"]})
                    run.entry_s.append(seconds)
                    run.add("entries")
                    if r.headers.get("idempotent-replayed"):
                        run.add("entries answered as replayed")
                    if rng.random() < 0.05:  # again, as a device that never saw the answer
                        headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": key}
                        _twice(run, http, f"/api/games/{gid}/entries", body, headers, ans)
                    version = ans["version"]
                    ended = any(e["event"]["type"] == "checkpoint_signed" for e in ans["events"])
                    if ended and rng.random() < 0.6:
                        version = _countersign(
                            run, http, rng, game, signers, version, token, reissue
                        )
                    time.sleep(rng.uniform(0, 0.03))
            except _GiveUp:
                time.sleep(0.5)


def _twice(
    run: _Run,
    http: httpx.Client,
    path: str,
    body: dict[str, Any],
    headers: dict[str, str],
    first: dict[str, Any],
) -> None:
    """An answered entry sent again with its key: the first answer again (its status, the
    same events, ``Idempotent-Replayed: true``), nothing recorded."""
    r, _ = _write(run, http, path, what="entry sent twice", json=body, headers=headers)
    run.add("entries sent twice")
    replayed = r.headers.get("idempotent-replayed") == "true"
    if not replayed or r.json().get("events") != first["events"]:
        run.fail(f"an entry sent twice with its key: {r.status_code} {r.text[:200]}")


def _countersign(
    run: _Run,
    http: httpx.Client,
    rng: random.Random,
    game: _Game,
    signers: dict[int, Any],
    version: int,
    token: str,
    reissue: Callable[[], dict[str, str]],
) -> int:
    """Players countersign the latest checkpoint (one or both seats); the version after. A
    seat's first countersignature binds its key and is confirmed by the recorder (it
    carries the recorder token); later ones carry only the seat's signature."""
    from gostop_records.integrity.signing import SigningKey

    gid = game.game_id
    cp = _read(run, http, "GET", f"/api/games/{gid}/checkpoint")
    if cp is None or cp.status_code != 200:
        return version
    body = cp.json()
    for seat in rng.sample(range(game.players), rng.randint(1, game.players)):
        signer = signers.setdefault(seat, SigningKey.generate(f"seat{seat}"))
        message = base64.b64decode(body["messages"][seat])
        sig = {
            "seat": seat,
            "head_seq": body["head_seq"],
            "head": body["head"],
            "public_key": signer.public.text,
            "signature": signer.sign(message),
        }
        first = seat not in game.bound
        headers = {"Authorization": f"Bearer {token}"} if first else {}
        game.uncertain = True
        r, _ = _write(
            run,
            http,
            f"/api/games/{gid}/countersign",
            what="countersign",
            json=sig,
            headers=headers,
            refresh=reissue if first else None,
        )
        game.bound.add(seat)
        game.uncertain = False
        ans = r.json()
        with run.lock:
            game.acked.update({e["seq"]: e["hash"] for e in ans["events"]})
        run.add("countersignatures")
        version = max(version, ans["version"])
    return version


def _importer(run: _Run, seed: int, pace: tuple[float, float]) -> None:
    """Fresh valid logs (one or two games each) imported now and then."""
    from gostop_records import log
    from stress.damage import renamed
    from stress.fuzz import base_games

    rng = random.Random(seed)
    base = base_games(4, 1, seed)
    n = 0
    with httpx.Client(base_url=run.server.url, timeout=30) as http:
        while not run.stop.wait(rng.uniform(*pace)):
            games = [renamed(rng.choice(base), f"soak{seed}-imp-{n + k}") for k in range(2)]
            games = games[: rng.randint(1, 2)]
            n += len(games)
            data = b"".join(log.encode_json(e) + b"\n" for g in games for e in g)
            try:
                r, _ = _write(
                    run,
                    http,
                    "/api/import",
                    what="import",
                    content=data,
                    headers={"Authorization": f"Bearer {KEY}", "Content-Type": JSONL},
                )
            except _GiveUp:
                continue
            if not r.json().get("ok"):
                run.fail(f"import refused: {r.text[:200]}")
                continue
            with run.lock:
                for g in games:
                    run.imported[g[0].game_id] = (len(g), g[-1].hash)
            run.add("imports")


def play_answer(view: dict[str, Any]) -> dict[str, Any]:
    """The first thing the player may do (as the /play tests answer)."""
    kind = view["step"]["kind"]
    if kind == "play":
        o = view["options"][0]
        if o["kind"] == "card":
            out = {"kind": "play", "card": o["card"]}
            if o["choose"]:
                out["chosen"] = o["takes"][0]
            return out
        return {"kind": o["kind"], "month": o["month"] or None}
    if kind == "flip":
        return {"kind": "flip", "chosen": view["flip"]["choices"][0]}
    if kind == "decide":
        return {"kind": "stop"}
    return {"kind": "cup", "chosen": "junk"}


def _player(run: _Run, seed: int, pace: tuple[float, float]) -> None:
    """Hands of CARDAVIA against the random bot on /play, played to their end (a hand in
    play when the server stops is lost with it: it was never acknowledged)."""
    rng = random.Random(seed)
    with httpx.Client(base_url=run.server.url, timeout=15) as http:
        while not run.stop.wait(rng.uniform(*pace)):
            body = {"bot": "random", "seed": rng.randrange(1 << 40)}
            r = _read(run, http, "POST", "/api/play", json=body, timed=False)
            if r is None or r.status_code != 201:
                continue
            out = r.json()
            for _ in range(200):
                view = out["view"]
                if view["step"]["kind"] in ("over", "hand_over") or not view["step"]["human"]:
                    break
                ans = {k: v for k, v in play_answer(view).items() if v is not None}
                r = _read(
                    run,
                    http,
                    "POST",
                    f"/api/play/{out['id']}",
                    json={**ans, "version": view["version"]},
                    timed=False,
                )
                if r is None or r.status_code != 200:
                    break
                out = r.json()
            view = out["view"]
            if view["step"]["kind"] not in ("over", "hand_over"):
                continue
            if view.get("stored"):
                with run.lock:
                    run.played[view["game_id"]] = view["version"]
                run.add("play hands stored")
            elif not run.server.down.is_set():
                run.fail(f"a finished /play hand was not stored: {view.get('store_error')}")


def _reader(run: _Run, seed: int) -> None:
    """Every kind of read, one after another."""
    rng = random.Random(seed)
    with httpx.Client(base_url=run.server.url, timeout=20) as http:
        while not run.stop.wait(rng.uniform(0.03, 0.12)):
            ids = run.game_ids()
            gid = rng.choice(ids) if ids else None
            paths = ["/api/health", "/api/games?limit=20", "/", "/games", "/players"]
            if gid is not None:
                paths += [
                    f"/api/games/{gid}",
                    f"/api/games/{gid}/now",
                    f"/api/games/{gid}/events",
                    f"/api/games/{gid}/audit",
                    f"/games/{gid}",
                ]
            if rng.random() < 0.15:
                sql = "SELECT ruleset, count(*) AS games FROM games GROUP BY ruleset"
                _read(run, http, "POST", "/api/query", json={"sql": sql, "limit": 100})
            else:
                if _read(run, http, "GET", rng.choice(paths)) is None:
                    time.sleep(0.25)  # the server is down: look again shortly


#: A cross join over the store's events, bounded by its LIMITs (finishes in well under 1 s).
HEAVY_SQL = (
    "SELECT count(*) AS n, sum(a.seq * b.seq) AS s FROM "
    "(SELECT seq FROM events LIMIT 3000) a CROSS JOIN (SELECT seq FROM events LIMIT 3000) b"
)
#: One the client gives up on: it times out after ``CANCEL_AFTER_S`` and hangs up, while
#: the server goes on (0.4 s of DuckDB on this two-core machine, busy: the store's one
#: thread is held that long).
CANCELLED_SQL = (
    "SELECT count(*) AS n FROM range(2500) a CROSS JOIN range(2500) b "
    "WHERE (a.range * 7 + b.range) % 11 = 3"
)
CANCEL_AFTER_S = 0.05


def _querier(run: _Run, seed: int, pace: tuple[float, float]) -> None:
    """Heavy SQL, and SQL cancelled by its client, in turns."""
    rng = random.Random(seed)
    with httpx.Client(base_url=run.server.url, timeout=30) as http:
        while not run.stop.wait(rng.uniform(*pace)):
            if rng.random() < 0.5:
                began = time.perf_counter()
                body = {"sql": HEAVY_SQL, "limit": 10}
                r = _read(run, http, "POST", "/api/query", json=body, timed=False)
                if r is not None and r.status_code == 200:
                    run.heavy_s.append(time.perf_counter() - began)
                    run.add("heavy queries")
                elif r is not None and r.status_code < 500:
                    run.fail(f"heavy query refused: {r.status_code} {r.text[:200]}")
            else:
                with contextlib.suppress(httpx.TransportError):
                    http.post(
                        "/api/query",
                        json={"sql": CANCELLED_SQL, "limit": 10},
                        timeout=CANCEL_AFTER_S,
                    )
                run.add("queries cancelled by the client")


def _viewer(run: _Run, seed: int) -> None:
    """Server-Sent Events of live games, followed a few seconds at a time: the ids must
    rise."""
    rng = random.Random(seed)
    timeout = httpx.Timeout(10, read=3)
    with httpx.Client(base_url=run.server.url, timeout=timeout) as http:
        while not run.stop.wait(rng.uniform(0.1, 0.5)):
            with run.lock:
                live = list(run.games)
            if not live:
                continue
            gid = rng.choice(live)
            until = time.monotonic() + rng.uniform(1, 4)
            last = 0
            with _window(run) as in_window:
                try:
                    with http.stream("GET", f"/api/games/{gid}/stream") as r:
                        run.add("reads")
                        if r.status_code >= 500:
                            r.read()
                            if _stopping(r) and in_window():
                                run.add("reads 503 in the window")
                            else:
                                run.add("reads 5xx")
                                run.fail(
                                    f"stream of {gid}: {r.status_code} {r.text[:200]}",
                                    f"read {r.status_code} {_error(r)}",
                                )
                            continue
                        run.add("viewers")
                        for line in r.iter_lines():
                            if line.startswith("id:"):
                                seq = int(line[3:].strip())
                                if seq <= last:
                                    run.fail(f"stream of {gid}: seq {seq} after {last}")
                                last = seq
                                run.add("stream messages")
                            if time.monotonic() > until or run.stop.is_set():
                                break
                except httpx.TransportError:
                    run.add("streams cut")


# --- the stops ------------------------------------------------------------------------------


def _verify(run: _Run, when: str) -> None:
    """``gostop db verify`` on the stopped server's store: it must open it (unlocked) and
    find it whole, without ``--accept-loss``."""
    began = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "gostop_cli.app", "db", "verify", "--db", str(run.server.db)],
            capture_output=True,
            text=True,
            env=_child_env(),
            cwd=ROOT,
            timeout=120,
        )
    except subprocess.TimeoutExpired:
        run.fail(f"db verify {when}: no answer in 120 s")
        return
    run.verify_s.append(time.perf_counter() - began)
    run.add("verifies")
    if done.returncode != 0:
        run.add("verifies failed")
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()
        run.fail(f"db verify {when}: exit {done.returncode}: {' | '.join(said[-3:])[:300]}")


def _chaos(
    run: _Run,
    rng: random.Random,
    until: float,
    gap: tuple[float, float],
    say: Callable[[str], None],
) -> None:
    """SIGTERM or kill -9 at random moments until ``until``, restarting each time."""
    srv = run.server
    began = time.monotonic()
    while True:
        wait = rng.uniform(*gap)
        if time.monotonic() + wait > until - 2:
            time.sleep(max(0.0, until - time.monotonic()))
            return
        time.sleep(wait)
        if rng.random() < 0.5:
            took = srv.term()
            run.add("terms")
            if took is None:
                run.fail(f"the server did not end within {TERM_LIMIT_S:.0f} s of SIGTERM")
            else:
                run.term_s.append(took)
            _verify(run, f"after SIGTERM {run.counts.get('terms', 0)}")
            what = f"SIGTERM, ended in {took:.2f} s" if took is not None else "SIGTERM, hung"
        else:
            srv.kill()
            run.add("kills")
            what = "kill -9"
        run.start_s.append(srv.start())
        say(f"soak: {time.monotonic() - began:5.1f} s: {what}; started again")


# --- the end --------------------------------------------------------------------------------


def _check_store(run: _Run) -> None:
    """Every acknowledged write in the store exactly once, and nothing unacknowledged."""
    from gostop_records.store import Store

    fig = run.fig
    with Store(run.server.db) as st:
        for gid, game in run.games.items():
            fig.trials += 1
            held = {e.seq: e.hash for e in st.events(gid)}
            lost = [s for s, h in game.acked.items() if held.get(s) != h]
            if len(held) < game.created or lost:
                fig.lost += len(lost) or 1
                fig.fail(f"game {gid}: answered seq {lost[:5]} not stored as answered")
                continue
            extra = sorted(s for s in held if s > game.created and s not in game.acked)
            tail = max(game.acked, default=game.created)
            if extra and not (game.uncertain and extra[0] > tail):
                fig.fail(f"game {gid}: seq {extra[:5]} stored but never acknowledged")
                continue
            fig.survived += 1
        for gid, (n, head) in run.imported.items():
            fig.trials += 1
            envs = st.events(gid)
            if len(envs) != n or envs[-1].hash != head:
                fig.lost += 1
                fig.fail(f"imported game {gid}: {n} events answered, {len(envs)} stored")
                continue
            fig.survived += 1
        for gid, version in run.played.items():
            fig.trials += 1
            envs = st.events(gid)
            if len(envs) != version:
                fig.lost += 1
                fig.fail(f"/play game {gid}: stored at version {version}, {len(envs)} held")
                continue
            fig.survived += 1


@dataclass
class SoakResult:
    """The outcome: the probe's figures and the soak's own."""

    fig: Figures
    figures: dict[str, Any]
    seed: int

    @property
    def ok(self) -> bool:
        return self.fig.ok and self.fig.trials > 0 and not self.fig.failures

    def render(self) -> str:
        lines = [render([self.fig]), "", "| figure | value |", "|---|---:|"]
        lines += [f"| {k} | {v} |" for k, v in self.figures.items()]
        lines += [f"- {self.fig.probe}: {n}" for n in self.fig.notes]
        lines += [f"- {self.fig.probe}: FAILED: {w}" for w in self.fig.failures]
        return "\n".join(lines)


def soak(
    work: Path,
    *,
    seconds: float = 180.0,
    seed: int = 1,
    tables: int = 4,
    gap: tuple[float, float] | None = None,
    say: Callable[[str], None] = lambda s: None,
) -> SoakResult:
    """The soak in ``work`` for ``seconds`` (see the module's docstring)."""
    started = time.perf_counter()
    rng = random.Random(seed)
    gap = gap or ((3.0, 7.0) if seconds < 60 else (6.0, 18.0))
    work.mkdir(parents=True, exist_ok=True)
    srv = _Server(work / "soak.duckdb", work / "server.log")
    run = _Run(srv)
    say(f"soak: seed {seed}, {seconds:.0f} s, {tables} tables, a stop every {gap[0]}-{gap[1]} s")
    run.start_s.append(srv.start())
    pace = (1.0, 4.0) if seconds < 60 else (2.0, 6.0)
    seeds = iter(rng.randrange(1 << 30) for _ in range(100))
    clients = [
        *((f"table {k}", _table, (next(seeds),)) for k in range(tables)),
        ("importer", _importer, (next(seeds), pace)),
        ("player", _player, (next(seeds), pace)),
        *((f"reader {k}", _reader, (next(seeds),)) for k in range(2)),
        ("querier", _querier, (next(seeds), pace)),
        *((f"viewer {k}", _viewer, (next(seeds),)) for k in range(2)),
    ]
    errors: list[str] = []

    def guarded(name: str, fn: Callable[..., None], args: tuple[Any, ...]) -> None:
        try:
            fn(run, *args)
        except Exception as exc:  # a client that breaks is a failure, not the end
            errors.append(f"{name}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=guarded, args=c, name=c[0], daemon=True) for c in clients]
    try:
        for t in threads:
            t.start()
        try:
            _chaos(run, random.Random(rng.randrange(1 << 30)), time.monotonic() + seconds, gap, say)
        except RuntimeError as exc:  # a server that does not start again ends the run
            run.fail(f"after {srv.starts - 1} stop(s): {exc}")
        run.stop.set()
        for t in threads:
            t.join(timeout=RETRY_S + 30)
            if t.is_alive():
                run.fail(f"client {t.name} did not end")
        for e in errors:
            run.fig.tracebacks += 1
            run.fail(f"client {e}")
        took = srv.term()  # the last stop, measured like the others
        run.add("terms")
        if took is None:
            run.fail(f"the server did not end within {TERM_LIMIT_S:.0f} s of SIGTERM")
        else:
            run.term_s.append(took)
        _verify(run, "at the end")
        _check_store(run)
    finally:
        srv.close()
    run.told()
    n, last = srv.tracebacks()
    if n:
        run.fig.tracebacks += n
        run.fig.fail(f"the server logged {n} traceback(s); the last: {last[-600:]}")
    c = run.counts
    figures: dict[str, Any] = {
        "seed": seed,
        "seconds": f"{time.perf_counter() - started:.0f}",
        "entries acknowledged": c.get("entries", 0),
        "entries sent again (same key)": c.get("entry sent again", 0),
        "entries answered as replayed": c.get("entries answered as replayed", 0),
        "entries sent twice on purpose (answered as replayed)": c.get("entries sent twice", 0),
        "entry p50 / p99 ms": _p50_p99(run.entry_s),
        "reads": c.get("reads", 0),
        "read p50 / p99 ms": _p50_p99(run.read_s),
        "reads 5xx (outside the window)": c.get("reads 5xx", 0),
        "reads 503 in the stop window": c.get("reads 503 in the window", 0),
        "reads unreachable (server down)": c.get("reads unreachable", 0),
        "reads cut while up": c.get("reads cut while up", 0),
        "games started": c.get("games started", 0),
        "imports": c.get("imports", 0),
        "/play hands stored": c.get("play hands stored", 0),
        "countersignatures": c.get("countersignatures", 0),
        "tokens reissued": c.get("tokens reissued", 0),
        "heavy queries, p50 / p99 ms": f"{c.get('heavy queries', 0)}, {_p50_p99(run.heavy_s)}",
        "queries cancelled by the client": c.get("queries cancelled by the client", 0),
        "SSE viewers / messages": f"{c.get('viewers', 0)} / {c.get('stream messages', 0)}",
        "kill -9": c.get("kills", 0),
        "SIGTERM (with the last)": c.get("terms", 0),
        "stop after SIGTERM, s": _spread(run.term_s),
        "start to first answer, median s": f"{_pct(run.start_s, 0.5):.2f}",
        "db verify runs / failed": f"{c.get('verifies', 0)} / {c.get('verifies failed', 0)}",
    }
    run.fig.seconds = time.perf_counter() - started
    return SoakResult(run.fig, figures, seed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m stress.soak", description=__doc__)
    ap.add_argument("--seconds", type=float, default=180.0, help="how long (default 180)")
    ap.add_argument("--quick", action="store_true", help="25 s, three tables")
    ap.add_argument("--seed", type=int, help="the plan's seed (default: a new one, printed)")
    ap.add_argument("--tables", type=int, help="tables recording at once (default 4)")
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = ap.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 20)
    seconds = 25.0 if args.quick else args.seconds
    tables = args.tables or (3 if args.quick else 4)
    print(
        f"soak: seed {seed} (again: python -m stress.soak --seed {seed} --seconds {seconds:.0f}"
        f" --tables {tables})",
        file=sys.stderr,
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="gostop-soak-") as tmp:
        work = args.keep or Path(tmp)
        result = soak(
            work,
            seconds=seconds,
            seed=seed,
            tables=tables,
            say=lambda s: print(s, file=sys.stderr, flush=True),
        )
    print(result.render())
    print(f"\nsoak: {'ok' if result.ok else 'FAILED'} (seed {seed})")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
