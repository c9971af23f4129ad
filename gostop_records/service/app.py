"""The HTTP API of the table service: Litestar routes over one :class:`TableService`.

Litestar speaks msgspec: the request and answer types are Structs and a typed entry is an
event payload of :mod:`gostop_records.events`, so the OpenAPI document (served at
``/schema``) is generated from the same definitions the log uses.

Every write runs on the writer thread (:mod:`.worker`), one at a time; every read runs on
a read thread with a DuckDB connection of its own (:mod:`.reads`), so a slow read delays
no entry and the event loop stays free for the live streams. Refusals are JSON
``{"error": ..., "reason": ...}`` with a 4xx status, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Annotated, Any, TypeVar

import msgspec
from litestar import Litestar, Request, Response, get, post
from litestar.config.cors import CORSConfig
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.config import OpenAPIConfig
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter
from litestar.response import Stream

from .. import events as E
from ..review.model import GameReview
from ..store.backup import BackupError, finish_copy, prune, remove_partials, stamped_names
from ..store.sandbox import QueryHandle
from ..web.browse_routes import browse_routes
from ..web.notice import announce
from ..web.play_routes import play_routes
from ..web.review_jobs import ReviewJobs
from ..web.routes import page_routes
from . import access
from . import reads as R
from .access import Action
from .backups import default_folder, failed
from .core import Answer, EntryRequest, TableService
from .errors import ServiceError
from .headers import MAX_DEPTH, add_security_headers, refuse_deep_json
from .imports import Imports, UploadChecks
from .metrics import CONTENT_TYPE, Metrics, Snapshot, observe
from .models import (
    BackupIn,
    CountersignIn,
    EntryAnswer,
    EntryIn,
    ErrorAnswer,
    GameCreated,
    GamesPage,
    NewGame,
    QueryIn,
)
from .people_routes import people_routes
from .reads import Reads
from .rebuilds import RebuildRunner, rebuild_routes
from .settings import ServiceSettings
from .streams import Hub, sse_message
from .worker import Worker

__all__ = ["ENTRY_LIMIT", "IMPORT_LIMIT", "ServiceConfig", "create_app"]

T = TypeVar("T")
log = logging.getLogger("gostop.service")
backup_log = logging.getLogger("gostop.backup")

#: Largest body of an entry or a new game; of an import upload.
ENTRY_LIMIT = 64 * 1024
IMPORT_LIMIT = 64 * 1024 * 1024
#: A comment line sent to an idle stream this often, so proxies keep it open.
KEEPALIVE_S = 15.0

JSON = "application/json"
JSONL = "application/x-ndjson"


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """``key``: the server key, which administers (reissues recorder tokens, imports) and
    starts games; ``open``: anyone may start games (and play on ``/play``), never
    administer; ``private``: reads (and ``/play``) need the server key or the game's
    recorder token; ``allow_origins``: the web origins other than the server's own whose
    pages may call the API (CORS; none by default). Who may do what is
    :mod:`.access`'s table.

    Without a key nobody administers, and games start without one (as ``open``)."""

    db: str | None = None
    key: str | None = None
    private: bool = False
    open: bool = False
    allow_origins: tuple[str, ...] = ()
    settings: ServiceSettings = field(default_factory=ServiceSettings)
    #: One JSON line per request on the ``gostop.access`` logger (:mod:`.metrics`).
    access_log: bool = False
    #: Called after every commit, before the answer (the tests stop a server there).
    after_commit: Callable[[], None] | None = None
    #: The folder backups are written into (default: ``backups/`` beside the store); a
    #: backup every ``backup_every`` seconds (None: only when asked); after each, all but
    #: the ``backup_keep`` newest backups named by their time are removed (None: none).
    backup_dir: str | None = None
    backup_every: float | None = None
    backup_keep: int | None = None

    @property
    def opens_games(self) -> bool:
        """Whether anyone may start a game."""
        return self.open or self.key is None


class _State:
    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.hub = Hub()
        self.metrics = Metrics()
        self.rebuilds = RebuildRunner(self.metrics)
        self.worker: Worker | None = None
        self.reads: Reads | None = None
        self.beat: asyncio.Task[None] | None = None
        self.backups: asyncio.Task[None] | None = None
        #: The process that reads and checks uploads (one at a time, after the reads in line
        #: for the cores: see :mod:`.priority`).
        self.checks = UploadChecks(config.settings.read_nice)

    async def run(self, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """``fn`` on the writer thread: a write."""
        if self.worker is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        return await self.worker.call(partial(fn, *args, **kw))  # type: ignore[no-any-return]

    async def journaled(self, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """``fn`` on the writer thread: a write through the journal, as an entry is (it
        neither waits for the settler nor writes what is pending first)."""
        if self.worker is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        return await self.worker.call(  # type: ignore[no-any-return]
            partial(fn, *args, **kw), journaled=True
        )

    async def upload(self, data: bytes, *, lenient: bool = False) -> dict[str, Any]:
        """An upload read and checked by the rules in a process of its own, then judged and
        appended through the journal by the writer (:mod:`.imports`)."""
        if self.worker is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        up = await self.checks.read(data, lenient=lenient)
        try:
            return await self.journaled(self.svc.import_upload, up)
        finally:
            Imports.discard(up)

    async def look(self, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """``fn`` on the writer thread, writing nothing: a look at a live game's session or
        a token, which are the writer's state."""
        if self.worker is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        return await self.worker.call(  # type: ignore[no-any-return]
            partial(fn, *args, **kw), writes=False
        )

    async def read(self, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """``fn(connection, ...)`` on a read thread (:mod:`.reads`)."""
        if self.reads is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        return await self.reads.run(lambda conn: fn(conn, *args, **kw))

    async def read_now(self, fn: Callable[..., T]) -> T:
        """``fn(connection)`` on a read thread without waiting for the settler."""
        if self.reads is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        return await self.reads.run(fn, settled=False)

    def snapshot(self) -> Snapshot:
        """The gauges of :mod:`.metrics`, read here without the store (they answer while
        the store is stuck, when they matter most)."""
        worker = self.worker
        svc = worker.service if worker is not None else None
        settler = svc.settler if svc is not None else None
        journal = svc.store.journal if svc is not None else None
        job = self.rebuilds.job
        rebuilding = job is not None and job.status.running
        return Snapshot(
            queue=worker.depth if worker is not None else 0,
            journal=journal.records if journal is not None else 0,
            batches=settler.batches if settler is not None else 0,
            failures=settler.failures if settler is not None else 0,
            failing=svc is not None and svc.write_error() is not None,
            viewers=self.hub.viewer_count(),
            live=len(svc.live) if svc is not None else 0,
            rebuilding=rebuilding,
            rebuild_done=job.status.games / job.status.total
            if rebuilding and job is not None and job.status.total
            else 0.0,
            rebuild_behind=job.status.behind if rebuilding and job is not None else 0,
        )

    def backup_folder(self) -> Path:
        if self.config.backup_dir is not None:
            return Path(self.config.backup_dir).absolute()
        return default_folder(self.svc.path)

    async def backup(self, name: str | None = None) -> dict[str, Any]:
        """A backup of the store, taken as a write job (:mod:`.backups`): copied on the
        writer thread, checked and named off it; then the old ones pruned (``--keep``)."""
        folder = self.backup_folder()
        copied = await self.run(self.svc.copy_for_backup, folder, name)
        try:
            info = await asyncio.to_thread(finish_copy, copied)
        except BackupError as exc:
            log.error("backup not kept: %s", exc)
            raise ServiceError(500, "backup_failed", self.svc.hide_paths(str(exc))) from None
        except OSError as exc:
            raise failed(exc) from None
        out = info.to_dict()
        self.metrics.backups.inc()
        backup_log.info(
            "backup %s: %s bytes, %s game(s), %s event(s), heads entry %s",
            info.path,
            info.size,
            info.games,
            info.events,
            info.entry,
        )
        keep = self.config.backup_keep
        if keep is not None:
            removed = await asyncio.to_thread(prune, folder, keep)
            for p in removed:
                backup_log.info("backup %s removed (--keep %s)", p, keep)
            out["removed"] = [p.name for p in removed]
        return out

    async def backup_every(self, seconds: float) -> None:
        """Take a backup every ``seconds``, logged; the first ``seconds`` after the newest
        backup in the folder named by its time (a server restarted more often than that
        still backs up), or after ``seconds`` when there is none. A failure is logged and
        the next one tried on time."""
        folder = self.backup_folder()
        first = seconds
        with contextlib.suppress(OSError):  # what a stop during a backup left behind
            await asyncio.to_thread(remove_partials, folder)
            taken = stamped_names(folder)
            if taken:
                age = time.time() - taken[-1].stat().st_mtime
                first = min(seconds, max(0.0, seconds - age))
        wait = first
        while True:
            await asyncio.sleep(wait)
            wait = seconds
            try:
                await self.backup()
            except asyncio.CancelledError:
                raise
            except ServiceError as exc:
                backup_log.error("backup failed: %s", exc.reason)
            except Exception:
                backup_log.exception("backup failed")

    @property
    def svc(self) -> TableService:
        service = self.worker.service if self.worker is not None else None
        if service is None:
            raise ServiceError(503, "unavailable", "the service is starting or stopping")
        return service


def _state(request: Request[Any, Any, Any]) -> _State:
    return request.app.state["gostop"]  # type: ignore[no-any-return]


def _answer(a: Answer, since: float | None = None) -> Response[Any]:
    """The answer's JSON as made (and, for a retry, as stored), sent byte for byte.

    ``Server-Timing`` of an entry: ``queue`` (waiting for the store's thread), ``store``
    (the thread's work on the group of entries committed together, ``desc`` its size) and
    ``app`` (from the handler receiving the parsed request, ``since``, to the answer)."""
    headers = {"Idempotent-Replayed": "true"} if a.replayed else {}
    if a.store_ms is not None:
        timing = [f'store;dur={a.store_ms:.2f};desc="group of {a.group}"']
        if a.queue_ms is not None:
            timing.insert(0, f"queue;dur={a.queue_ms:.2f}")
        if since is not None:
            timing.append(f"app;dur={(time.perf_counter() - since) * 1000:.2f}")
        headers["Server-Timing"] = ", ".join(timing)

    return Response(a.body, status_code=a.status, media_type=JSON, headers=headers)


def _refusals(*codes: int) -> dict[int, ResponseSpec]:
    words = {
        400: "the request cannot be read (bad JSON, unknown field, unknown card code)",
        401: "no token or key given",
        403: "the token or key does not open this",
        404: "no such game",
        409: "another device recorded first: the answer has the current version",
        408: "a query ran past its time limit (the answer names the limits)",
        413: "the body is too large, or a query's answer is (the answer names the limits)",
        422: "the rules refuse the entry: the answer names the rule; nothing was written",
    }
    return {c: ResponseSpec(ErrorAnswer, description=words[c]) for c in codes}


def _idem_key(request: Request[Any, Any, Any]) -> str | None:
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    key = key.strip()
    if not key or len(key) > 200:
        raise ServiceError(400, "bad_request", "Idempotency-Key: give 1 to 200 characters")
    return key


# --- routes ---------------------------------------------------------------------------------


def _opt(action: Action, **more: Any) -> dict[str, Any]:
    """A route's ``opt``: the action it performs, which :mod:`.access` checks."""
    return {"access": action, **more}


@get(
    "/api/health",
    summary="Whether the service is up (the store's file name for the server key only)",
    opt=_opt(Action.PUBLIC),
)
async def health(request: Request[Any, Any, Any]) -> dict[str, Any]:
    st = _state(request)
    out = await st.read_now(R.health)
    svc = st.svc
    out["live"] = len(svc.live)
    cause = svc.write_error()
    if cause is not None:  # that it fails for everyone; the cause for the key holder
        out["ok"] = False
    out["rebuilding"] = st.rebuilds.running  # the pages say it to everyone
    if access.holds_key(request):
        out["store"] = svc.path.name
        if cause is not None:
            out["writes"] = cause
        rebuild = st.rebuilds.status()
        if rebuild is not None:  # the running rebuild's progress, or the last one's end
            out["rebuild"] = rebuild
    if st.worker is not None:
        out["queue"] = st.worker.depth
    out["viewers"] = st.hub.viewer_count()
    out["open"] = st.config.opens_games
    out["private"] = st.config.private
    return out


@post(
    "/api/games",
    summary="Start a game (needs the server key)",
    request_max_body_size=ENTRY_LIMIT,
    status_code=201,
    responses=_refusals(400, 401, 403, 409),
    opt=_opt(Action.START_GAME),
)
async def create_game(
    data: JSONBody[NewGame], request: Request[Any, Any, Any]
) -> Response[GameCreated]:
    st = _state(request)
    return _answer(await st.journaled(st.svc.create_game, data, _idem_key(request)))


@post(
    "/api/games/{game_id:str}/entries",
    summary="Record one entry: a line of the recorder's grammar or a typed input event",
    request_max_body_size=ENTRY_LIMIT,
    status_code=201,
    responses=_refusals(400, 401, 403, 404, 409, 413, 422),
    opt=_opt(Action.RECORD),
)
async def add_entry(
    game_id: FromPath[str], data: JSONBody[EntryIn], request: Request[Any, Any, Any]
) -> Response[EntryAnswer]:
    since = time.perf_counter()
    st = _state(request)
    token = access.bearer(request)
    key = _idem_key(request)
    raw_event = None
    if data.event is not None:
        with contextlib.suppress(Exception):
            raw = msgspec.json.decode(await request.body())
            raw_event = raw.get("event") if isinstance(raw, dict) else None

    if st.worker is None:
        raise ServiceError(503, "unavailable", "the service is starting or stopping")
    request_ = EntryRequest(
        game_id,
        data,
        raw_event=raw_event if isinstance(raw_event, dict) else None,
        idempotency_key=key,
        token=token,
        check_token=True,
    )
    answer = await st.worker.enter(request_)
    st.metrics.timed(answer.queue_ms, answer.store_ms)
    return _answer(answer, since)


@get(
    "/api/games/{game_id:str}/checkpoint",
    summary="The latest signed checkpoint and the bytes each seat signs to countersign it",
    responses=_refusals(404),
    opt=_opt(Action.READ_GAME),
)
async def game_checkpoint(
    game_id: FromPath[str], request: Request[Any, Any, Any]
) -> dict[str, Any]:
    st = _state(request)
    return await st.look(st.svc.checkpoint, game_id)


@post(
    "/api/games/{game_id:str}/countersign",
    summary="Countersign a hand's result: a player's signature of a signed checkpoint (a "
    "seat's first binds its key and needs the game's recorder token)",
    request_max_body_size=ENTRY_LIMIT,
    status_code=201,
    responses=_refusals(400, 401, 403, 404, 422),
    opt=_opt(Action.COUNTERSIGN),
)
async def countersign(
    game_id: FromPath[str], data: JSONBody[CountersignIn], request: Request[Any, Any, Any]
) -> Response[bytes]:
    st = _state(request)
    # binding a seat's key is the recorder's (access.TABLE[BIND_SEAT]): the service asks
    # for it only when the seat has no key yet
    confirmed = await access.permits(request, Action.BIND_SEAT, game_id)
    return _answer(await st.run(st.svc.countersign, game_id, data, confirmed=confirmed))


@post(
    "/api/games/{game_id:str}/token",
    summary="Issue a new recorder token for a stored game (needs the server key)",
    request_max_body_size=1024,
    opt=_opt(Action.REISSUE_TOKEN),
)
async def issue_token(game_id: FromPath[str], request: Request[Any, Any, Any]) -> Response[bytes]:
    st = _state(request)
    body = await st.run(st.svc.issue_token, game_id)
    return Response(msgspec.json.encode(body), status_code=201, media_type=JSON)


@get(
    "/api/token",
    summary="The game a recorder token opens (the token as Bearer)",
    opt=_opt(Action.PUBLIC),
)
async def token_game(request: Request[Any, Any, Any]) -> dict[str, Any]:
    st = _state(request)
    return await st.look(st.svc.token_game, access.bearer(request))


@get(
    "/api/games/{game_id:str}",
    summary="The table and scores (as gostop replay --json)",
    opt=_opt(Action.READ_GAME),
)
async def game_table(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    at: Annotated[int | None, QueryParameter(ge=1, description="right after this seq")] = None,
) -> dict[str, Any]:
    st = _state(request)
    return await st.read(R.table, game_id, at)


@get(
    "/api/games/{game_id:str}/now",
    summary="The table, what the rules wait for and every entry they accept next (as lines)",
    opt=_opt(Action.READ_GAME),
)
async def game_now(game_id: FromPath[str], request: Request[Any, Any, Any]) -> dict[str, Any]:
    st = _state(request)
    return await st.look(st.svc.now, game_id)


@get(
    "/api/games/{game_id:str}/events",
    summary="The log as JSON Lines, each line as stored",
    media_type=JSONL,
    opt=_opt(Action.READ_GAME),
)
async def game_events(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    after: Annotated[int, QueryParameter(ge=0, description="only events after this seq")] = 0,
) -> Response[bytes]:
    st = _state(request)
    return Response(await st.read(R.event_lines, game_id, after), media_type=JSONL)


@get(
    "/api/games/{game_id:str}/audit",
    summary="The audit of a game as JSON",
    opt=_opt(Action.READ_GAME),
)
async def game_audit(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    hand: Annotated[int | None, QueryParameter(ge=1)] = None,
    claim: Annotated[
        list[str] | None,
        QueryParameter(description='claimed payments "PAYER->PAYEE=CHIPS", repeatable'),
    ] = None,
    lenient: FromQuery[bool] = False,
) -> dict[str, Any]:
    st = _state(request)
    return await st.read(R.audit, game_id, hand=hand, claims=claim or [], lenient=lenient)


@get("/api/games", summary="Search the stored games (paged)", opt=_opt(Action.READ_STORE))
async def list_games(
    request: Request[Any, Any, Any],
    player: FromQuery[str | None] = None,
    date: Annotated[str | None, QueryParameter(description="YYYY-MM-DD: started that day")] = None,
    date_from: Annotated[str | None, QueryParameter(name="from")] = None,
    date_to: Annotated[str | None, QueryParameter(name="to")] = None,
    ruleset: FromQuery[str | None] = None,
    outcome: Annotated[
        str | None, QueryParameter(description="a hand ended so: stop, instant, nagari, void")
    ] = None,
    disputed: Annotated[
        bool | None, QueryParameter(description="a recorded payment differs from the computed one")
    ] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=500)] = 50,
    offset: Annotated[int, QueryParameter(ge=0)] = 0,
) -> GamesPage:
    st = _state(request)
    page = await st.read(
        R.search,
        player=player,
        date=date,
        date_from=date_from,
        date_to=date_to,
        ruleset=ruleset,
        outcome=outcome,
        disputed=disputed,
        limit=limit,
        offset=offset,
    )
    return msgspec.convert(page, GamesPage)


@post(
    "/api/import",
    summary="Import a JSON Lines upload, validated and whole per game (needs the server key)",
    request_max_body_size=IMPORT_LIMIT,
    status_code=200,
    opt=_opt(Action.IMPORT, raw_body=True),
)
async def import_logs(
    request: Request[Any, Any, Any], lenient: FromQuery[bool] = False
) -> Response[bytes]:
    st = _state(request)
    data = await request.body()
    report = await st.upload(data, lenient=lenient)
    status = 200 if report.get("ok") else 422
    return Response(msgspec.json.encode(report), status_code=status, media_type=JSON)


@post(
    "/api/query",
    summary="Read-only SQL over the store's tables and views (no write, no file)",
    request_max_body_size=ENTRY_LIMIT,
    status_code=200,
    responses=_refusals(400, 401, 403, 408, 413),
    opt=_opt(Action.READ_STORE),
)
async def run_query(data: JSONBody[QueryIn], request: Request[Any, Any, Any]) -> dict[str, Any]:
    st = _state(request)
    if not st.svc.sql:
        raise ServiceError(
            501, "no_sql", "SQL over HTTP needs pyarrow on the server (pip install pyarrow)"
        )
    svc = st.svc
    limits = st.config.settings.query_limits
    handle = QueryHandle()  # cancelled when the client goes away, even while it waits
    gone = asyncio.ensure_future(_cancel_when_gone(request, handle))
    try:
        answer = await st.read(R.query, data.sql, data.limit, limits, handle)
    except ServiceError as exc:  # DuckDB's words may name a file of the server's
        exc.reason = svc.hide_paths(exc.reason)
        raise
    finally:  # answered, failed, or the handler cancelled (the server stopping): it ends
        gone.cancel()
        handle.cancel()
    return svc.hide_paths(answer)  # type: ignore[no-any-return]


@post(
    "/api/backup",
    summary="Back the store up into the server's backup folder (needs the server key)",
    request_max_body_size=1024,
    status_code=201,
    responses=_refusals(400, 401, 403),
    opt=_opt(Action.BACKUP, raw_body=True),
)
async def take_backup(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """A copy of the store at this point (every entry acknowledged before it, none after),
    written into the backup folder under a name of the UTC time or the one given
    (``{"name": "FILE.duckdb"}``, a bare file name); the answer names it, with its size and
    the heads chain tip (entry, hash) it holds."""
    st = _state(request)
    raw = await request.body()
    name = None
    if raw.strip():
        try:
            name = msgspec.json.decode(raw, type=BackupIn).name
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise ServiceError(400, "bad_request", f"the body: {exc}") from None
    return await st.backup(name)


async def _cancel_when_gone(request: Request[Any, Any, Any], handle: QueryHandle) -> None:
    """Cancels ``handle`` at the client's disconnect: the body has been read, so the next
    message of the connection is ``http.disconnect``."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
    handle.cancel()


@get(
    "/api/games/{game_id:str}/stream",
    summary="Server-Sent Events: one message per event, its seq as the id",
    media_type="text/event-stream",
    opt=_opt(Action.READ_GAME),
)
async def game_stream(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    after: Annotated[int | None, QueryParameter(ge=0, description="start after this seq")] = None,
) -> Stream:
    st = _state(request)
    last_id = request.headers.get("last-event-id")
    cursor = after or 0
    if last_id is not None:
        try:
            cursor = int(last_id.strip())
        except ValueError:
            raise ServiceError(400, "bad_request", "Last-Event-ID: give a seq") from None
    queue = st.hub.subscribe(game_id)
    try:
        backlog = await st.read(R.events, game_id, cursor)
    except BaseException:
        st.hub.unsubscribe(game_id, queue)
        raise

    async def messages() -> AsyncIterator[bytes]:
        seen = cursor
        try:
            yield b"retry: 2000\n\n"
            for env in backlog:
                yield sse_message(env)
                seen = env.seq
            while True:
                batch = await queue.get()
                if batch is None:
                    return
                if not batch:  # the hub's keep-alive beat
                    yield b": keep-alive\n\n"
                    continue
                out = [data for seq, data in batch if seq > seen]
                if out:
                    seen = max(seq for seq, _ in batch)
                    yield b"".join(out)
        finally:
            st.hub.unsubscribe(game_id, queue)

    return Stream(
        messages(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@get(
    "/metrics",
    summary="What the server is doing, in Prometheus' text format (needs the server key)",
    media_type=CONTENT_TYPE,
    opt=_opt(Action.METRICS),
)
async def server_metrics(request: Request[Any, Any, Any]) -> Response[bytes]:
    st = _state(request)
    return Response(st.metrics.render(st.snapshot()), media_type=CONTENT_TYPE)


# --- errors ---------------------------------------------------------------------------------


def _service_error(_request: Request[Any, Any, Any], exc: ServiceError) -> Response[bytes]:
    return Response(msgspec.json.encode(exc.body()), status_code=exc.status, media_type=JSON)


def _http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    if exc.status_code >= 500:
        return _internal_error(request, exc)
    reason = str(exc.detail)
    if isinstance(exc, ValidationException) and exc.extra:
        parts = []
        for item in exc.extra if isinstance(exc.extra, list) else [exc.extra]:
            if isinstance(item, dict):
                where = item.get("key") or item.get("source") or ""
                parts.append(f"{item.get('message', '')}" + (f" ({where})" if where else ""))
            else:
                parts.append(str(item))
        reason = f"{reason}: " + "; ".join(parts)
    names = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}
    body = {"error": names.get(exc.status_code, "http_error"), "reason": reason}
    return Response(
        msgspec.json.encode(body),
        status_code=exc.status_code,
        media_type=JSON,
        headers=getattr(exc, "headers", None) or {},
    )


def _internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    """A failure of the server: the answer says only that, with an error id; the server's
    log has the id with the exception and its traceback (never sent: they name files)."""
    if isinstance(exc, RecursionError):  # a body the size limit let through, nested deep
        body = {
            "error": "too_deep",
            "reason": f"the body nests too deeply to be read (at most {MAX_DEPTH} levels)",
        }
        return Response(msgspec.json.encode(body), status_code=400, media_type=JSON)
    error_id = secrets.token_hex(6)
    log.error(
        "internal error %s on %s %s", error_id, request.method, request.url.path, exc_info=exc
    )
    body = {
        "error": "internal",
        "reason": f"the server failed on this request; its log has the details under error id "
        f"{error_id}",
        "error_id": error_id,
    }
    return Response(msgspec.json.encode(body), status_code=500, media_type=JSON)


# --- the app --------------------------------------------------------------------------------


def create_app(config: ServiceConfig | None = None) -> Litestar:
    """The Litestar app over the store of ``config.db`` (opened at startup, closed at
    shutdown)."""
    cfg = config or ServiceConfig()
    st = _State(cfg)

    async def startup(app: Litestar) -> None:
        st.hub.loop = asyncio.get_running_loop()
        st.beat = asyncio.create_task(st.hub.beat(KEEPALIVE_S))
        worker = Worker(cfg.settings.group_max)

        def open_store() -> None:
            worker.service = TableService(
                cfg.db,
                on_commit=st.hub.publish_threadsafe,
                settings=cfg.settings,
                after_commit=cfg.after_commit,
            )

        try:
            await worker.call(open_store)
        except BaseException:
            worker.stop()
            raise
        svc = worker.service
        assert svc is not None
        st.reads = Reads(
            svc.store,
            svc.settler,
            threads=cfg.settings.read_threads,
            wait_s=cfg.settings.wait_s,
            nice=cfg.settings.read_nice,
        )
        st.worker = worker
        if cfg.backup_every is not None:
            st.backups = asyncio.create_task(st.backup_every(cfg.backup_every))

    async def shutdown(app: Litestar) -> None:
        await reviews.close()
        st.hub.close()
        await st.rebuilds.stop()  # cancelled before its swap: the live tables stay
        if st.beat is not None:
            st.beat.cancel()
        if st.backups is not None:
            st.backups.cancel()
        reads, st.reads = st.reads, None
        if reads is not None:  # a long read is interrupted: stopping never waits for it
            await asyncio.to_thread(reads.close)
        st.checks.close()
        worker, st.worker = st.worker, None
        if worker is not None:
            svc = worker.service
            if svc is not None:
                with contextlib.suppress(Exception):
                    await worker.call(svc.close)
            worker.service = None
            worker.stop()

    async def events_of(request: Request[Any, Any, Any], game_id: str) -> list[E.Envelope]:
        """A game's events for the web pages, read as the API reads them."""
        await access.require(request, Action.READ_GAME, game_id)
        return await st.read(R.events, game_id)

    async def store_game(data: bytes) -> dict[str, Any]:
        """A hand played on /play, stored as an import (strict) is."""
        return await st.upload(data)

    async def read_store(request: Request[Any, Any, Any], fn: Callable[[Any], T]) -> T:
        """Runs ``fn`` on the store's connection for the reading pages, after the read check."""
        await access.require(request, Action.READ_STORE)
        return await st.read(fn)

    async def keep_review(review: GameReview) -> None:
        """A review computed in the background, kept in the store (a write job: a few rows)."""
        from ..review.store import store_review

        await st.run(lambda: store_review(st.svc.store.conn, review))

    reviews = ReviewJobs()

    app = Litestar(
        route_handlers=[
            *page_routes(events_of, st.hub),
            *play_routes(store_game, reviews=reviews),
            *browse_routes(events_of, read_store, reviews, keep_review),
            *people_routes(),
            health,
            create_game,
            add_entry,
            issue_token,
            game_checkpoint,
            countersign,
            token_game,
            game_table,
            game_now,
            game_events,
            game_audit,
            list_games,
            import_logs,
            run_query,
            take_backup,
            *rebuild_routes(),
            game_stream,
            server_metrics,
        ],
        on_startup=[startup],
        on_shutdown=[shutdown],
        exception_handlers={
            ServiceError: _service_error,
            HTTPException: _http_error,
            Exception: _internal_error,
        },
        openapi_config=OpenAPIConfig(
            title="gostop-records table service",
            version="1",
            description="Record Go-Stop and matgo games from every device at a table.",
        ),
        # no CORS unless origins are named (gostop serve --allow-origin URL)
        cors_config=CORSConfig(
            allow_origins=list(cfg.allow_origins),
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID"],
            expose_headers=["Idempotent-Replayed", "Server-Timing"],
        )
        if cfg.allow_origins
        else None,
        guards=[access.guard],
        before_request=refuse_deep_json,
        before_send=[add_security_headers],
        request_max_body_size=ENTRY_LIMIT,
        debug=False,
    )
    app.state["gostop"] = st
    # every request counted (and logged, when asked), routed or not: around the whole app
    app.asgi_handler = observe(
        announce(app.asgi_handler, st.rebuilds.notice), st.metrics, log=cfg.access_log
    )
    return app
