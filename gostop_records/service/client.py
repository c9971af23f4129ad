"""A client of the table service for programs and the terminal commands (``--server``).

Standard library only (``urllib``), so the command line needs nothing more to talk to a
server. A refusal is a :class:`ServerRefused` with the status and the server's reason; a
server that cannot be reached is a :class:`~gostop_records.errors.GostopError` naming the
URL. An entry is sent with an idempotency key and sent again with the same key when the
connection fails before the answer arrives, so a flaky network never records it twice.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Sequence
from typing import Any

import msgspec

from .. import events as E
from .. import log as L
from ..errors import GostopError

__all__ = ["ServerRefused", "ServiceClient", "load_remote_game", "remote_query", "remote_report"]


class ServerRefused(GostopError):
    """The server answered with a 4xx or 5xx: ``status``, ``error``, ``reason`` and the body."""

    def __init__(self, status: int, body: dict[str, Any], url: str) -> None:
        self.status = status
        self.body = body
        self.error = str(body.get("error", "error"))
        self.reason = str(body.get("reason", f"HTTP {status}"))
        self.rule = body.get("rule")
        self.version = body.get("version")
        super().__init__(f"{url}: {self.reason}" if status >= 500 else self.reason)


class ServiceClient:
    """Calls of the JSON API of a ``gostop serve`` at ``url``; ``token`` is a game's recorder
    token or the server key, sent as a bearer token."""

    def __init__(
        self, url: str, token: str | None = None, *, timeout: float = 15.0, retries: int = 3
    ) -> None:
        u = url.strip()
        if "://" not in u:
            u = "http://" + u
        self.url = u.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = retries

    # --- plumbing ---------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        params: dict[str, Any] | Sequence[tuple[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
        content_type: str = "application/json",
        token: str | None = None,
        retry: bool = False,
    ) -> bytes:
        """The body of a 2xx answer; raises :class:`ServerRefused` for any other."""
        url = self.url + path
        if params:
            items = params.items() if isinstance(params, dict) else params
            q = [
                (k, str(v).lower() if isinstance(v, bool) else v) for k, v in items if v is not None
            ]
            if q:
                url += "?" + urllib.parse.urlencode(q)
        h = {"Accept": "application/json", **(headers or {})}
        if body is not None:
            h["Content-Type"] = content_type
        bearer = token or self.token
        if bearer:
            h["Authorization"] = f"Bearer {bearer}"
        attempts = 1 + (self.retries if retry else 0)
        for attempt in range(attempts):
            req = urllib.request.Request(url, data=body, headers=h, method=method)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    return bytes(resp.read())
            except urllib.error.HTTPError as exc:
                data = exc.read()
                try:
                    parsed = json.loads(data) if data else {}
                except ValueError:
                    parsed = {"reason": data.decode(errors="replace")[:200]}
                if not isinstance(parsed, dict):
                    parsed = {"reason": str(parsed)}
                raise ServerRefused(exc.code, parsed, url) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as exc:
                if attempt + 1 < attempts:
                    time.sleep(0.2 * (attempt + 1))
                    continue
                why = getattr(exc, "reason", exc)
                raise GostopError(f"cannot reach the server at {self.url}: {why}") from None
        raise AssertionError("unreachable")

    def get_json(self, path: str, **params: Any) -> Any:
        return json.loads(self.request("GET", path, params=params))

    def post_json(
        self, path: str, payload: Any, *, key: str | None = None, token: str | None = None
    ) -> Any:
        headers = {"Idempotency-Key": key} if key else None
        body = msgspec.json.encode(payload)
        out = self.request("POST", path, body=body, headers=headers, token=token, retry=bool(key))
        return json.loads(out)

    # --- the API ----------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        return self.get_json("/api/health")  # type: ignore[no-any-return]

    def create_game(
        self,
        players: Sequence[str],
        ruleset: str | dict[str, Any] | None = None,
        *,
        stake: int = 1,
        venue: str | None = None,
        by: str = "recorder",
        game_id: str | None = None,
        key: str | None = None,
    ) -> dict[str, Any]:
        """A new game (``key``: the server key, when the client's token is not it)."""
        body: dict[str, Any] = {"players": list(players), "stake": stake, "by": by}
        if ruleset is not None:
            body["ruleset"] = ruleset
        if venue is not None:
            body["venue"] = venue
        if game_id is not None:
            body["game_id"] = game_id
        return self.post_json(  # type: ignore[no-any-return]
            "/api/games", body, key=uuid.uuid4().hex, token=key
        )

    def token_game(self) -> dict[str, Any]:
        """The game the client's recorder token opens."""
        return self.get_json("/api/token")  # type: ignore[no-any-return]

    def enter(
        self,
        game_id: str,
        expected_version: int,
        *,
        entry: str | None = None,
        event: Any = None,
        key: str | None = None,
    ) -> dict[str, Any]:
        """Record one entry: a line of the grammar or a typed input payload."""
        body: dict[str, Any] = {"expected_version": expected_version}
        if entry is not None:
            body["entry"] = entry
        if event is not None:
            body["event"] = msgspec.to_builtins(event)
        return self.post_json(  # type: ignore[no-any-return]
            f"/api/games/{_q(game_id)}/entries", body, key=key or uuid.uuid4().hex
        )

    def table(self, game_id: str, at: int | None = None) -> dict[str, Any]:
        return self.get_json(f"/api/games/{_q(game_id)}", at=at)  # type: ignore[no-any-return]

    def event_lines(self, game_id: str, after: int = 0) -> bytes:
        return self.request(
            "GET", f"/api/games/{_q(game_id)}/events", params={"after": after or None}
        )

    def events(self, game_id: str, after: int = 0) -> list[E.Envelope]:
        """The game's envelopes, as stored (hashes check)."""
        data = self.event_lines(game_id, after)
        src = f"{self.url}/api/games/{game_id}/events"
        return [
            L.decode_json_line(line, file=src, lineno=n)
            for n, line in enumerate(data.splitlines(), 1)
            if line.strip()
        ]

    def audit(
        self,
        game_id: str,
        *,
        hand: int | None = None,
        claims: Sequence[str] = (),
        lenient: bool = False,
    ) -> dict[str, Any]:
        params: list[tuple[str, Any]] = [("hand", hand), ("lenient", lenient or None)]
        params += [("claim", c) for c in claims]
        out = self.request("GET", f"/api/games/{_q(game_id)}/audit", params=params)
        return json.loads(out)  # type: ignore[no-any-return]

    def games(self, **filters: Any) -> dict[str, Any]:
        return self.get_json("/api/games", **filters)  # type: ignore[no-any-return]

    def query(self, sql: str, limit: int = 1000) -> dict[str, Any]:
        """Read-only SQL on the server's store: ``{"columns": [...], "rows": [[...]]}``."""
        return self.post_json("/api/query", {"sql": sql, "limit": limit})  # type: ignore[no-any-return]

    def backup(self, name: str | None = None) -> dict[str, Any]:
        """A backup of the server's store into its backup folder (the client's token must be
        the server key): its ``name``, ``size`` and ``heads_tip``."""
        body = {"name": name} if name is not None else {}
        return self.post_json("/api/backup", body)  # type: ignore[no-any-return]

    def rebuild(self) -> dict[str, Any]:
        """Start a projection rebuild on the server (the client's token must be the server
        key); its progress, as ``/api/health`` shows it to the key holder."""
        return self.post_json("/api/rebuild", {})["rebuild"]  # type: ignore[no-any-return]

    def import_jsonl(self, data: bytes, *, lenient: bool = False) -> dict[str, Any]:
        try:
            out = self.request(
                "POST",
                "/api/import",
                body=data,
                params={"lenient": lenient or None},
                content_type="application/x-ndjson",
            )
        except ServerRefused as exc:
            if exc.status == 422 and "games" in exc.body:
                return exc.body
            raise
        return json.loads(out)  # type: ignore[no-any-return]


def _q(part: str) -> str:
    return urllib.parse.quote(part, safe="")


def remote_query(
    url: str, sql: str, limit: int | None, token: str | None = None
) -> tuple[tuple[str, ...], list[Any]]:
    """(columns, rows) of read-only SQL run by a server (``gostop db query --server``); a
    private server is read with ``token`` (the server key)."""
    client = ServiceClient(url, token)
    try:
        out = client.query(sql, 100_000 if limit is None else limit)
    except ServerRefused as exc:
        raise GostopError(f"{client.url}: {exc.reason}") from None
    return tuple(out["columns"]), [tuple(r) for r in out["rows"]]


def remote_report(url: str, token: str | None = None) -> str:
    """The club's report of the store a server holds (its ``/report`` page, the page ``gostop
    db report --html`` writes from a file), for ``gostop db report --server``; a private
    server is read with ``token`` (the server key)."""
    client = ServiceClient(url, token)
    try:
        body = client.request("GET", "/report", headers={"Accept": "text/html"})
    except ServerRefused as exc:
        raise GostopError(f"{client.url}: {exc.reason}") from None
    return body.decode("utf-8")


def load_remote_game(
    url: str, game_id: str | None, token: str | None = None
) -> tuple[str, list[E.Envelope]]:
    """A game's envelopes from a server, for the commands' ``--server URL --game ID``; a
    private server is read with ``token`` (the game's recorder token or the server key)."""
    if not game_id:
        raise GostopError("--server needs --game ID: the game to read from the server")
    client = ServiceClient(url, token)
    try:
        return game_id, client.events(game_id)
    except ServerRefused as exc:
        raise GostopError(f"{client.url}: {exc.reason}") from None
