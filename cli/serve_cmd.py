"""``gostop serve``: one process owns the store and serves it to every device at a table."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["serve"]

KEY_ENV = "GOSTOP_SERVER_KEY"


# Long: a typer command: its options are its signature, most of its lines.
def serve(
    db: Annotated[
        Path | None,
        typer.Option(
            "--db", metavar="FILE", help="The store (default $GOSTOP_DB or gostop.duckdb)."
        ),
    ] = None,
    host: Annotated[
        str,
        typer.Option(
            "--host", help="Address to listen on: 0.0.0.0 for every device on the network."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 8765,
    open_: Annotated[
        bool,
        typer.Option(
            "--open",
            help="Anyone who reaches the server may start games (and play on /play); "
            "reissuing recorder tokens and importing still need the server key.",
        ),
    ] = False,
    private: Annotated[
        bool,
        typer.Option(
            "--private",
            help="Reads (and /play) need the server key or the game's recorder token too.",
        ),
    ] = False,
    allow_origin: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-origin",
            metavar="URL",
            help="A web origin whose pages may call the API (CORS), e.g. "
            "https://club.example; repeatable. None by default.",
        ),
    ] = None,
    query_timeout: Annotated[
        float,
        typer.Option(
            "--query-timeout",
            min=0.1,
            metavar="SECONDS",
            help="Stop a query of /api/query after this long (answered 408).",
        ),
    ] = 5.0,
    query_max_rows: Annotated[
        int,
        typer.Option(
            "--query-max-rows",
            min=1,
            metavar="N",
            help="Refuse a query answer of more rows (413).",
        ),
    ] = 100_000,
    query_max_bytes: Annotated[
        int,
        typer.Option(
            "--query-max-bytes",
            min=1024,
            metavar="N",
            help="Refuse a query answer of more bytes, as JSON (413).",
        ),
    ] = 16 * 1024 * 1024,
    query_memory: Annotated[
        str,
        typer.Option(
            "--query-memory",
            metavar="SIZE",
            help="DuckDB's memory for the store while queries run (e.g. 256MB, 1GB); "
            "beyond it a query spills to disk.",
        ),
    ] = "1GB",
    access_log: Annotated[
        str | None,
        typer.Option(
            "--access-log",
            metavar="FILE|-",
            help="Append one JSON line per request to FILE (- for the standard output): "
            "time, method, route, status, duration, the error of a refusal, the client "
            "address; never a header or a query string. Off by default.",
        ),
    ] = None,
    backup_dir: Annotated[
        Path | None,
        typer.Option(
            "--backup-dir",
            metavar="DIR",
            help="Where backups are written (POST /api/backup, --backup-every); default: "
            "backups/ beside the store.",
            show_default=False,
        ),
    ] = None,
    backup_every: Annotated[
        str | None,
        typer.Option(
            "--backup-every",
            metavar="DURATION",
            help="Back the store up this often, e.g. 6h, 30m, 1d (none by default).",
        ),
    ] = None,
    keep: Annotated[
        int | None,
        typer.Option(
            "--keep",
            min=1,
            metavar="N",
            help="After each backup, keep the N newest backups named by their time and "
            "remove the older ones (default: remove none).",
        ),
    ] = None,
) -> None:
    """Serve the store over HTTP: a JSON API, live event streams, OpenAPI at /schema.

    Prints the URL and the server key (set it with $GOSTOP_SERVER_KEY, else a new one each
    start; --open prints it too: it reissues tokens and imports). Who may do what:
    docs/access.md. Backups: --backup-every 6h --keep 28, into --backup-dir (see gostop db
    backup). Listening beyond this machine (--host 0.0.0.0) it prints the LAN URL and a QR
    code of it. Ctrl-C or SIGTERM stops it cleanly.

    Example: gostop serve --host 0.0.0.0 --db club.duckdb
    """
    from gostop_records.service.serve import ServeOptions
    from gostop_records.service.serve import serve as run
    from gostop_records.service.settings import ServiceSettings
    from gostop_records.service.state import ServiceConfig
    from gostop_records.store.sandbox import DEFAULT_LIMITS

    key = os.environ.get(KEY_ENV) or None
    try:
        query_limits = dataclasses.replace(
            DEFAULT_LIMITS,
            timeout=query_timeout,
            max_rows=query_max_rows,
            max_bytes=query_max_bytes,
            memory=query_memory,
        )
    except ValueError:
        raise typer.BadParameter(
            "give a size such as 256MB or 1GB", param_hint="--query-memory"
        ) from None
    service = ServiceConfig(
        db=str(db) if db is not None else None,
        key=key,
        private=private,
        open=open_,
        allow_origins=tuple(_origin(o) for o in allow_origin or ()),
        settings=ServiceSettings(query_limits=query_limits),
        backup_dir=str(backup_dir) if backup_dir is not None else None,
        backup_every=_duration(backup_every) if backup_every is not None else None,
        backup_keep=keep,
    )
    opts = ServeOptions(service, host=host, port=port, access_log=access_log)
    run(opts, say=typer.echo)


def _duration(text: str) -> float:
    """Seconds of a duration such as ``6h``, ``30m``, ``1d`` or ``90s``, or a usage error."""
    import re

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", text.lower())
    seconds = float(m[1]) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m[2]] if m else 0
    if seconds < 1:
        raise typer.BadParameter(
            f"{text!r}: give a duration such as 6h, 30m, 1d or 90s", param_hint="--backup-every"
        )
    return seconds


def _origin(url: str) -> str:
    """An origin as browsers send it (scheme, host and port, no path), or a usage error."""
    from urllib.parse import urlsplit

    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
        raise typer.BadParameter(
            f"{url!r}: give an origin such as https://club.example or http://10.0.0.5:8080",
            param_hint="--allow-origin",
        )
    return f"{parts.scheme}://{parts.netloc}".lower()
