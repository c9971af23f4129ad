"""Benchmarks of the table service: many tables recording at once, one game to many viewers.

A real ``gostop serve`` runs in its own process on a fresh store; this process plays the
devices. Twenty tables record simulated hands at once, each entry one HTTP request on the
table's own keep-alive connection, each table pausing between entries as a quick recorder
does (``PACE_S`` on average, jittered), and again with no pause at all (the most entries the
server takes). One game is then recorded while 200 viewers follow its Server-Sent Events
stream: the delivery lag is the time from an entry being sent to a viewer holding its
last event. Each of that is measured twice on two servers alternated in one run: [quiet]
with nothing else going on, and [busy] while a heavy SQL query and an import of whole
games run beside the tables, again and again, as a club's server sees them (an entry must
not wait for either). Beside them: the in-process append (``Store.append`` of one event)
and the in-process entry (``TableService.enter``, no HTTP), so the cost of HTTP and of a
whole entry are visible.

Run alone with ``python -m bench.service [--quick]``: the figures are printed, and the full
run writes them to the service section of ``bench/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gostop_records.service.settings import ServiceSettings
from gostop_records.store.journal import segments

from .figures import Figure

HERE = Path(__file__).resolve().parent
KEY = "bench-key"
TABLES = 20
VIEWERS = 200
PACE_S = 0.5
APPEND_TARGET_MS = 30.0
LAG_TARGET_MS = 100.0

SECTION = "## The table service"


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * q))] * 1000 if s else 0.0


def table_lines(seed: int, hands: int = 3) -> list[str]:
    """The entries of a simulated matgo game, as a recorder types them."""
    from gostop_records import events as E
    from gostop_records import notation
    from gostop_records.rules import PRESETS
    from gostop_records.sim.selfplay import GameSpec, play_payloads

    spec = GameSpec(PRESETS["matgo"], 2, hands, seed)
    return [
        notation.text(p)
        for _h, p in play_payloads(spec)
        if E.is_input(p) and type(p) is not E.GameStarted
    ]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: The two sides of the figure, alternated: nothing beside the tables, and a heavy query and
#: an import beside them (see :class:`Busy`).
VARIANTS = ("quiet", "busy")
#: The query run beside the tables: far more work than its time limit allows.
HEAVY_SQL = "SELECT count(*) FROM range(100000000) a, range(1000) b WHERE a.range % 7 = b.range"
#: The devices' HTTP client: ``raw`` (HTTP/1.1 keep-alive requests written on asyncio
#: streams, :class:`RawClient`) or ``httpx``. Both run in this one process on the
#: server's two cores; httpx takes several times the CPU per request.
CLIENT = os.environ.get("GOSTOP_BENCH_CLIENT", "raw")


class Busy:
    """A heavy query and an import of whole games, each in a loop, against the server at
    ``url`` until :meth:`stop`: what a club's server does beside the tables (a member's
    analysis, a night's logs uploaded).

    The loops run in a process of their own (:func:`busy_main`), not on threads of the
    bench: there they would hold the bench's interpreter lock against the clients whose
    latency is measured, and the busy figure would charge the server for the bench's own
    wait."""

    def __init__(self, url: str) -> None:
        self.queries = self.imports = self.refused = 0
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from bench.service import busy_main; busy_main()", url],
            cwd=HERE.parent,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()  # its logs made: the load starts now
        if ready.strip() != "ready":
            raise RuntimeError(f"the busy process did not start: {ready!r}")

    def stop(self) -> None:
        """Ends the loops (after the request in flight) and takes their counts."""
        import json

        out, _ = self.proc.communicate("stop\n", timeout=180)
        counts = json.loads(out.strip().splitlines()[-1])
        self.queries, self.imports, self.refused = (
            counts["queries"],
            counts["imports"],
            counts["refused"],
        )


def busy_main() -> None:
    """The busy process: ``ready`` once its logs are made, then the two loops until a line
    (or the end) on stdin; its counts as one JSON line."""
    import json
    import threading

    import httpx

    url = sys.argv[1]
    logs = [_import_log(40 + k) for k in range(40)]
    stopping = threading.Event()
    counts = {"queries": 0, "imports": 0, "refused": 0}

    def query() -> None:
        with httpx.Client(base_url=url, timeout=60) as c:
            while not stopping.is_set():
                with contextlib.suppress(httpx.HTTPError):
                    r = c.post("/api/query", json={"sql": HEAVY_SQL})
                    counts["queries"] += 1
                    counts["refused"] += r.status_code >= 400

    def upload() -> None:
        with httpx.Client(base_url=url, timeout=60) as c:
            for log in logs:
                if stopping.is_set():
                    return
                with contextlib.suppress(httpx.HTTPError):
                    c.post("/api/import", content=log, headers={"Authorization": f"Bearer {KEY}"})
                    counts["imports"] += 1

    threads = [threading.Thread(target=query), threading.Thread(target=upload)]
    for t in threads:
        t.start()
    print("ready", flush=True)
    sys.stdin.readline()
    stopping.set()
    for t in threads:
        t.join(timeout=120)
    print(json.dumps(counts), flush=True)


def serve_main() -> None:
    """``gostop serve`` as the command runs it, but with some :class:`ServiceSettings`
    fields changed (argv: the store, the port, the fields as a JSON object): what a
    comparison of two settings runs, since the command itself has no such options."""
    import dataclasses
    import json

    from gostop_records.service.serve import ServeOptions, serve
    from gostop_records.service.state import ServiceConfig

    db, port, fields = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    settings = dataclasses.replace(ServiceSettings(), **fields)
    service = ServiceConfig(db=db, key=KEY, settings=settings)
    serve(ServeOptions(service, port=port), say=lambda _: None)


def _import_log(seed: int) -> bytes:
    """A whole simulated game of three hands as JSON Lines, with a game id of its own."""
    from gostop_records import log as L
    from gostop_records.rules import PRESETS
    from gostop_records.sim.selfplay import GameSpec, play_game

    envs = play_game(GameSpec(PRESETS["gostop3"], 3, 3, seed))
    return b"".join(L.encode_json(e) + b"\n" for e in envs)


@contextlib.contextmanager
def running_server(
    db: Path, extra: dict[str, str] | None = None, settings: dict[str, Any] | None = None
) -> Iterator[str]:
    """``gostop serve`` on a free port until the block ends; with ``settings``, the same
    server with those :class:`ServiceSettings` fields changed (:func:`serve_main`)."""
    import httpx

    port = _free_port()
    env = {**os.environ, "GOSTOP_SERVER_KEY": KEY, **(extra or {})}
    if settings:
        import json

        cmd = [sys.executable, "-c", "from bench.service import serve_main; serve_main()"]
        cmd += [str(db), str(port), json.dumps(settings)]
    else:
        cmd = [sys.executable, "-m", "gostop_cli.app", "serve", "--db", str(db)]
        cmd += ["--port", str(port)]
    proc = subprocess.Popen(
        cmd,
        cwd=HERE.parent,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"gostop serve did not start: {proc.stderr.read()!r}")  # type: ignore[union-attr]
            try:
                httpx.get(url + "/api/health", timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


class RawResponse:
    """What :class:`RawClient` read: the status, the headers (lower-case names), the body."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status_code = status
        self.headers = headers
        self.content = body

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        import msgspec

        return msgspec.json.decode(self.content)

    def raise_for_status(self) -> None:
        if self.status_code >= 400:
            raise RuntimeError(f"HTTP {self.status_code}: {self.text}")


class RawClient:
    """A phone's HTTP client reduced to what the benchmark needs: one keep-alive connection,
    one request at a time, a JSON body out, a ``Content-Length`` body back.

    One process plays twenty tables on the server's own two cores; httpx spends several
    times this CPU per request (its models, its header handling), which a real phone does
    not take from the server. The latency is counted the same way: from the request's
    first byte written to its answer's last byte read."""

    def __init__(self, base_url: str, timeout: float = 60) -> None:
        host, _, port = base_url.removeprefix("http://").partition(":")
        self.host, self.port = host, int(port)
        self.timeout = timeout
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        return self._reader, self._writer

    async def request(
        self, method: str, path: str, json: Any = None, headers: dict[str, str] | None = None
    ) -> RawResponse:
        import msgspec

        body = msgspec.json.encode(json) if json is not None else b""
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        if json is not None:
            head.append("Content-Type: application/json")
        head.append(f"Content-Length: {len(body)}")
        data = ("\r\n".join(head) + "\r\n\r\n").encode() + body
        for attempt in (0, 1):  # a connection the server closed meanwhile: once more
            reader, writer = await self._connect()
            try:
                writer.write(data)
                return await asyncio.wait_for(self._read(reader), self.timeout)
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.aclose()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _read(self, reader: asyncio.StreamReader) -> RawResponse:
        raw = await reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await reader.readexactly(size + 2)
                if not size:
                    break
                body += chunk[:-2]
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.aclose()
        return RawResponse(status, headers, body)

    async def post(
        self, path: str, json: Any = None, headers: dict[str, str] | None = None
    ) -> RawResponse:
        return await self.request("POST", path, json, headers)

    async def get(self, path: str, headers: dict[str, str] | None = None) -> RawResponse:
        return await self.request("GET", path, None, headers)

    async def aclose(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await self._writer.wait_closed()
        self._reader = self._writer = None


def _client(url: str, timeout: float) -> Any:
    """A device's client: :class:`RawClient`, or httpx's when :data:`CLIENT` says so."""
    if CLIENT == "httpx":
        import httpx

        return httpx.AsyncClient(base_url=url, timeout=timeout)
    return RawClient(url, timeout)


async def _new_game(client: Any) -> dict[str, Any]:
    r = await client.post(
        "/api/games",
        json={"players": ["Ann", "Ben"], "ruleset": "matgo"},
        headers={"Authorization": f"Bearer {KEY}"},
    )
    r.raise_for_status()
    return r.json()  # type: ignore[no-any-return]


async def _table(
    client: Any,
    game: dict[str, Any],
    lines: list[str],
    pace: float,
    lat: list[float],
    rng: random.Random,
    store: list[tuple[float, int]] | None = None,
) -> int:
    headers = {"Authorization": f"Bearer {game['recorder_token']}"}
    path = f"/api/games/{game['game_id']}/entries"
    version = game["version"]
    for k, line in enumerate(lines):
        if pace:
            await asyncio.sleep(rng.uniform(0.5, 1.5) * pace)
        start = time.perf_counter()
        r = await client.post(
            path,
            json={"entry": line, "expected_version": version},
            headers={**headers, "Idempotency-Key": f"{game['game_id']}-{k}"},
        )
        lat.append(time.perf_counter() - start)
        if r.status_code != 201:
            raise RuntimeError(f"entry {line!r} refused: {r.text}")
        if store is not None:
            store.append(server_timing(r.headers.get("server-timing", "")))
        version = r.json()["version"]
    return len(lines)


def server_timing(header: str) -> dict[str, float]:
    """The metrics of a ``Server-Timing`` header: ``queue``, ``store``, ``app`` in ms, and
    ``group`` (the entries of the store's commit)."""
    out: dict[str, float] = {}
    for metric in header.split(","):
        name, *params = (p.strip() for p in metric.split(";"))
        for p in params:
            if p.startswith("dur="):
                out[name] = float(p[4:])
            elif p.startswith("desc=") and name == "store":
                out["group"] = float(p.rsplit(" ", 1)[-1].strip('"'))
    return out


async def _tables(
    url: str, entries: int, pace: float, store: list[dict[str, float]] | None = None
) -> tuple[list[float], float]:
    """Every table's connection and game are set up first; then all record at once."""
    lat: list[float] = []
    scripts = [table_lines(100 + t)[:entries] for t in range(TABLES)]
    clients = [_client(url, 60) for _ in range(TABLES)]
    try:
        # at once: made one after another on a loaded machine, the first tables' connections
        # sat idle past uvicorn's keep-alive (5 s) and were closed under their first entry
        games = await asyncio.gather(*(_new_game(c) for c in clients))
        start = time.perf_counter()
        done = await asyncio.gather(
            *(
                _table(c, g, s, pace, lat, random.Random(t), store)
                for t, (c, g, s) in enumerate(zip(clients, games, scripts, strict=True))
            )
        )
        rate = sum(done) / (time.perf_counter() - start)
    finally:
        for c in clients:
            await c.aclose()
    return lat, rate


async def _viewer(
    port: int,
    path: str,
    until: int,
    got: dict[int, float],
    ready: asyncio.Event,
    counter: list[int],
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    counter[0] += 1
    if counter[0] == VIEWERS_NOW[0]:
        ready.set()
    seq = 0
    try:
        while seq < until:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"id: "):
                seq = int(line[4:])
                got[seq] = time.perf_counter()
    finally:
        writer.close()


VIEWERS_NOW = [VIEWERS]


async def _stream(url: str, viewers: int, entries: int, pace: float) -> tuple[list[float], int]:
    VIEWERS_NOW[0] = viewers
    port = int(url.rsplit(":", 1)[1])
    lines = table_lines(7, hands=6)[:entries]
    client = _client(url, 30)
    try:
        game = await _new_game(client)
        gid = game["game_id"]
        # how many events the entries make: known only once recorded, so watch up to a note
        # entered last (its seq is the stream's end)
        ready = asyncio.Event()
        counter = [0]
        received: list[dict[int, float]] = [{} for _ in range(viewers)]
        until = 10**9
        tasks = [
            asyncio.create_task(
                _viewer(port, f"/api/games/{gid}/stream", until, received[v], ready, counter)
            )
            for v in range(viewers)
        ]
        await asyncio.wait_for(ready.wait(), 30)
        for _ in range(200):  # every viewer is subscribed on the server
            h = (await client.get("/api/health")).json()
            if h["viewers"] >= viewers:
                break
            await asyncio.sleep(0.05)
        headers = {"Authorization": f"Bearer {game['recorder_token']}"}
        version = game["version"]
        sent: dict[int, float] = {}  # the last seq of each entry -> when it was sent
        for line in [*lines, "note the end"]:
            await asyncio.sleep(pace / 2)
            start = time.perf_counter()
            r = await client.post(
                f"/api/games/{gid}/entries",
                json={"entry": line, "expected_version": version},
                headers=headers,
            )
            r.raise_for_status()
            version = r.json()["version"]
            sent[version] = start
        deadline = time.perf_counter() + 30
        while time.perf_counter() < deadline and not all(version in g for g in received):
            await asyncio.sleep(0.05)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        await client.aclose()
    lags = [g[seq] - t0 for g in received for seq, t0 in sent.items() if seq in g]
    missing = sum(1 for g in received for seq in sent if seq not in g)
    return lags, missing


def in_process_entries(work: Path, entries: int) -> list[float]:
    """``TableService.enter`` of whole entries, no HTTP: the floor of the HTTP figure."""
    import msgspec

    from gostop_records.service.core import TableService
    from gostop_records.service.models import EntryIn, NewGame

    db = work / "inproc.duckdb"
    db.unlink(missing_ok=True)
    lat: list[float] = []
    svc = TableService(db)
    try:
        seed = 0
        while len(lat) < entries:
            game = msgspec.json.decode(svc.create_game(NewGame(players=["Ann", "Ben"])).body)
            version = game["version"]
            for k, line in enumerate(table_lines(200 + seed)):
                if len(lat) >= entries:
                    break
                start = time.perf_counter()
                ans = svc.enter(
                    game["game_id"],
                    EntryIn(expected_version=version, entry=line),
                    idempotency_key=f"{seed}-{k}",
                )
                lat.append(time.perf_counter() - start)
                version = msgspec.json.decode(ans.body)["version"]
            seed += 1
    finally:
        svc.close()
    return lat


def service_figures(work: Path, quick: bool = False, live: bool = True) -> list[Figure]:
    """The table service's figures (see the module docstring); ``live`` adds the in-process
    append figure (the main benchmark run has it already)."""
    from .runs import live_figures

    per_table = 4 if quick else 60
    viewers = 20 if quick else VIEWERS
    stream_entries = 8 if quick else 80
    pace = PACE_S
    figs: list[Figure] = []
    if live:
        figs += live_figures(work, 50 if quick else 300)
    inproc = in_process_entries(work, 20 if quick else 300)
    figs.append(
        Figure(
            "service entry in process (TableService.enter), p50",
            _pct(inproc, 0.5),
            "ms",
            beside=f"{len(inproc)} entries: the input and its consequences, one transaction",
        )
    )
    figs.append(Figure("service entry in process, p99", _pct(inproc, 0.99), "ms"))
    raw: dict[str, list[dict[str, Any]]] = {"quiet": [], "busy": []}
    order = _interleaved(quick)
    share = len(order) // 2  # the servers of each variant share its entries
    for k, name in enumerate(order):
        raw[name].append(
            _service_run(
                work,
                f"{name}{k}",
                name == "busy",
                per_table // share,
                viewers,
                stream_entries // share,
                pace,
            )
        )
    runs = {name: _merged(r) for name, r in raw.items()}
    for name in VARIANTS:
        r = runs[name]
        label = f"[{name}]"
        met = "met" if r["p99"] < APPEND_TARGET_MS else "not met"
        if name == "busy":
            quiet99 = runs["quiet"]["p99"]
            met = "met" if r["p99"] < APPEND_TARGET_MS and r["p99"] <= 1.5 * quiet99 else "not met"
        figs.append(
            Figure(
                f"{label} HTTP append, {TABLES} tables at a recorder's pace, p50",
                r["p50"],
                "ms",
                beside=f"{r['n']} entries, one request each, {pace:g} s apart on average "
                f"per table ({r['rate']:.0f} entries/s in all)",
            )
        )
        figs.append(
            Figure(
                f"{label} HTTP append, {TABLES} tables at a recorder's pace, p99",
                r["p99"],
                "ms",
                beside=f"in process: {_pct(inproc, 0.99):.1f} ms",
                ratio=f"{r['p99'] / max(_pct(inproc, 0.99), 1e-9):.2f}x in process",
                target=f"< {APPEND_TARGET_MS:.0f} ms"
                + (" and <= 1.5x quiet" if name == "busy" else "")
                + f": {met}",
            )
        )
        if name == "busy":
            figs.append(
                Figure(
                    "[busy] work beside the tables: heavy queries, imports",
                    r["queries"],
                    "queries",
                    beside=f"{r['imports']} imports of a whole game; {r['refused']} queries "
                    "stopped at their limit",
                )
            )
        figs.append(
            Figure(
                f"{label} server side of those entries (Server-Timing app), p99",
                r["app99"],
                "ms",
                beside=f"p50 {r['app50']:.1f} ms; waiting for the writer thread p99 "
                f"{r['queue99']:.1f} ms; from the handler holding the parsed request to "
                "its answer",
                ratio=f"{r['app99'] / max(r['p99'], 1e-9):.2f}x the client's p99",
            )
        )
        figs.append(
            Figure(
                f"{label} HTTP entries/s, {TABLES} tables without pauses",
                r["rate2"],
                "entries/s",
                beside=f"p50 {r['p50_2']:.1f} ms, p99 {r['p99_2']:.1f} ms ({r['n2']} entries)",
            )
        )
        figs.append(
            Figure(
                f"{label} writer thread per commit, at a recorder's pace, p50",
                r["store"],
                "ms",
                beside=f"entries per commit: mean {r['group']:.1f} (Server-Timing)",
            )
        )
        met = "met" if r["lag99"] < LAG_TARGET_MS and not r["missing"] else "not met"
        figs.append(
            Figure(
                f"{label} SSE delivery lag, one game to {viewers} viewers, p50",
                r["lag50"],
                "ms",
                beside=f"{stream_entries // 2 + 1} entries twice, every viewer; from the "
                "entry sent to the viewer holding its last event",
            )
        )
        figs.append(
            Figure(
                f"{label} SSE delivery lag, one game to {viewers} viewers, p99",
                r["lag99"],
                "ms",
                beside=f"{r['missing']} deliveries missing",
                target=f"< {LAG_TARGET_MS:.0f} ms: {met}",
            )
        )
    b, a = runs["quiet"], runs["busy"]
    for what, key in (
        ("HTTP append p50", "p50"),
        ("HTTP append p99", "p99"),
        ("server side (app) p99", "app99"),
        ("writer thread per commit p50", "store"),
        ("SSE lag p50", "lag50"),
        ("SSE lag p99", "lag99"),
    ):
        figs.append(
            Figure(
                f"busy / quiet: {what}",
                a[key] / max(b[key], 1e-9),
                "x",
                beside=f"{b[key]:.1f} ms -> {a[key]:.1f} ms, same run",
            )
        )
    figs.append(
        Figure(
            "busy / quiet: entries/s without pauses",
            a["rate2"] / max(b["rate2"], 1e-9),
            "x",
            beside=f"{b['rate2']:.0f} -> {a['rate2']:.0f} entries/s, same run",
        )
    )
    return figs


NOTES = [
    "The service runs as `gostop serve` in its own process on a fresh store; the devices "
    "are this process (asyncio, one keep-alive connection per table, HTTP/1.1 requests "
    "written and read on raw asyncio streams; $GOSTOP_BENCH_CLIENT=httpx uses httpx). Each "
    "entry is a line of the recorder's notation with an idempotency key; the server answers "
    "it once its input, consequences and the answer itself are durable.",
    f"A recorder's pace: each of the {TABLES} tables waits {PACE_S:g} s on average "
    "(uniformly 0.5x to 1.5x) before each entry, as a quick recorder at a table does; "
    "without pauses, every table sends its next entry as soon as the last is answered, "
    "which measures the most entries per second the single store writer takes.",
    "In-process figures beside them: `Store.append` of one event, and `TableService.enter` "
    "of one whole entry without HTTP (the same work the server does per request).",
    "Store thread per commit: the `Server-Timing` header of each answer, the time the "
    "store's one thread spent on the commit the entry was in, and how many entries that "
    "commit held (entries waiting together are committed together).",
    "SSE: one game recorded at the same pace while every viewer follows its stream on its "
    "own connection; the lag counts from the entry being sent (so it includes the append) "
    "to the viewer reading the entry's last event.",
    "[quiet] and [busy] are two servers each, measured one after the other in the same run "
    "(quiet, busy, busy, quiet), each on a fresh store: this checkout's server with its "
    "default settings. [busy] runs, beside the tables, a heavy SQL query through /api/query "
    "again and again (a cross join far past the query's time limit) and imports of whole "
    "simulated games through /api/import (one after another, with the server key). Entries "
    "are made durable by the writer thread (one synced journal record per group), their "
    f"rows written to DuckDB by the settler in batches ({ServiceSettings().settle_records} "
    f"records or {ServiceSettings().settle_s:g} s); reads run on their own threads and "
    "connections. The targets: p99 under 30 ms, and [busy] no worse than 1.5x [quiet].",
    "Client and server side: the client's figure counts from the request being sent to its "
    "answer being read, in one asyncio process that plays all twenty tables (and on the same "
    "two cores as the server), so it includes the client's own scheduling and takes CPU from "
    "the server, which real phones do not. The server side is "
    "the `app` metric of each answer's `Server-Timing` header: from the handler holding the "
    "parsed request to its answer (waiting for the writer thread, the store's work, the hand-"
    "back to the event loop); it leaves out reading the request and writing the answer on the "
    "socket, a fraction of a millisecond each.",
]


def _interleaved(quick: bool = False) -> list[str]:
    """quiet, busy, busy, quiet: a load that drifts over the run weighs on both alike (one
    pair in a quick run, which only checks that the bench works)."""
    quiet, busy = VARIANTS
    return [quiet, busy] if quick else [quiet, busy, busy, quiet]


def _service_run(
    work: Path,
    name: str,
    busy: bool,
    per_table: int,
    viewers: int,
    stream_entries: int,
    pace: float,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One server of a variant: the tables at pace, without pauses, and the stream (raw)."""
    db = work / f"service-{name}.duckdb"
    db.unlink(missing_ok=True)
    Path(f"{db}.key").unlink(missing_ok=True)
    for seg in segments(db):  # a journal of an earlier run's store is not this one's
        seg.unlink()
    with running_server(db, settings=settings) as url:
        load = Busy(url) if busy else None
        try:
            groups: list[dict[str, float]] = []
            lat, rate = asyncio.run(_tables(url, per_table, pace, groups))
            lat2, rate2 = asyncio.run(_tables(url, max(1, per_table // 2), 0.0))
            lags, missing = asyncio.run(_stream(url, viewers, stream_entries, pace))
        finally:
            if load is not None:
                load.stop()
    return {
        "queries": load.queries if load else 0,
        "imports": load.imports if load else 0,
        "refused": load.refused if load else 0,
        "lat": lat,
        "rate": [rate],
        "lat2": lat2,
        "rate2": [rate2],
        "groups": groups,
        "lags": lags,
        "missing": missing,
    }


def _merged(raw: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of a variant's runs taken together."""
    lat = [x for r in raw for x in r["lat"]]
    lat2 = [x for r in raw for x in r["lat2"]]
    lags = [x for r in raw for x in r["lags"]]
    groups = [g for r in raw for g in r["groups"]]
    return {
        "n": len(lat),
        "p50": _pct(lat, 0.5),
        "p99": _pct(lat, 0.99),
        "rate": sum(x for r in raw for x in r["rate"]) / len(raw),
        "n2": len(lat2),
        "p50_2": _pct(lat2, 0.5),
        "p99_2": _pct(lat2, 0.99),
        "rate2": sum(x for r in raw for x in r["rate2"]) / len(raw),
        "store": _pct([g.get("store", 0.0) / 1000 for g in groups], 0.5),
        "group": sum(g.get("group", 1.0) for g in groups) / max(1, len(groups)),
        "queue99": _pct([g.get("queue", 0.0) / 1000 for g in groups], 0.99),
        "app50": _pct([g.get("app", 0.0) / 1000 for g in groups], 0.5),
        "app99": _pct([g.get("app", 0.0) / 1000 for g in groups], 0.99),
        "lag50": _pct(lags, 0.5),
        "lag99": _pct(lags, 0.99),
        "missing": sum(r["missing"] for r in raw),
        "queries": sum(r["queries"] for r in raw),
        "imports": sum(r["imports"] for r in raw),
        "refused": sum(r["refused"] for r in raw),
    }


def write_section(results: Path, figs: list[Figure], machine: str) -> None:
    """Put the figures in the service section of RESULTS.md (replacing an older one; the
    next run of ``python -m bench``, which measures the service too, drops it)."""
    from datetime import UTC, datetime

    from .figures import markdown_table
    from .process import LOADED_CORES

    when = datetime.now(UTC).strftime("%Y-%m-%d")
    body = [
        SECTION,
        "",
        f"Measured {when} with `python -m bench.service` on {machine}; a figure is marked "
        f"LOADED when other work kept more than {LOADED_CORES} of a core busy just before it "
        "(read from /proc/stat, the host's steal included).",
        "",
        *markdown_table(figs),
        "",
        *(f"- {n}" for n in NOTES),
        "",
    ]
    text = results.read_text(encoding="utf-8") if results.exists() else "# Benchmark results\n"
    if SECTION in text:
        head, _, rest = text.partition(SECTION)
        nxt = rest.find("\n## ")
        tail = rest[nxt + 1 :] if nxt >= 0 else ""
        text = head + "\n".join(body) + ("\n" + tail if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(body)
    results.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    from .figures import machine, render_table, stamped
    from .process import busy_cores

    ap = argparse.ArgumentParser(prog="python -m bench.service", description=__doc__)
    ap.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    ap.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="gostop-bench-service-"))
    busy = busy_cores()
    figs = stamped(service_figures(work, args.quick), busy)
    print(render_table(figs))
    if not args.quick:
        write_section(args.results, figs, machine())
        print(f"[bench] results written to {args.results}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
