"""Running the service: uvicorn on a host and port, the banner a table needs to join.

The banner names the URL, the server key (the one secret that starts games and imports)
and, when the server listens beyond this machine, the address on the local network with a
QR code of it for the phones at the table. uvicorn stops on Ctrl-C or SIGTERM: it ends the
live streams at once, gives the requests in flight :data:`GRACE_S` seconds (an acknowledged
entry is already durable), interrupts the reads still running, and closes the store,
which hands the file to other commands again.
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import logging
import logging.handlers
import queue
import socket
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from .state import ServiceConfig
from .tokens_answers import new_secret

__all__ = ["ServeOptions", "access_log_to", "banner", "lan_address", "serve"]

#: Seconds a stopping server waits for open requests (live streams end at once).
GRACE_S = 3


def settle_gc() -> None:
    """Move everything made at start-up (the modules, the app, the store) out of the
    collector's reach. A full collection stops every thread (it holds the GIL) for as long
    as it takes to walk every object; frozen, the collector walks only what the service
    made since: the games it holds."""
    import gc

    gc.collect()
    gc.freeze()


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """How ``gostop serve`` runs: the service (its store, key, who may do what, backups),
    where it listens, and its access log: a file appended to, ``-`` for the standard
    output, None for none."""

    service: ServiceConfig = field(default_factory=ServiceConfig)
    host: str = "127.0.0.1"
    port: int = 8765
    access_log: str | None = None


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_address(host: str) -> str | None:
    """The address other devices reach this server at, or None for a loopback server."""
    if _is_loopback(host):
        return None
    if host not in ("0.0.0.0", "::", ""):
        return host
    try:  # the address of the interface that routes outwards; no packet is sent
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            addr = str(s.getsockname()[0])
    except OSError:
        return None
    return None if _is_loopback(addr) else addr


def _url(host: str, port: int) -> str:
    h = f"[{host}]" if ":" in host else host
    return f"http://{h}:{port}/"


def qr_text(url: str) -> str:
    """A QR code of ``url`` drawn with block characters, for a terminal."""
    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True)
    return out.getvalue()


def banner(opts: ServeOptions, signs: str | None = None) -> str:
    cfg = opts.service
    local = _url("127.0.0.1" if opts.host in ("0.0.0.0", "::", "") else opts.host, opts.port)
    lines = [
        f"gostop serve: the store {cfg.db}",
        f"  URL       {local}",
        f"  API       {local}schema",
    ]
    if signs is not None:
        lines.append(f"  signs     {signs}")
    if cfg.key is None:
        lines.append("  server key: none: nobody may reissue recorder tokens or import")
    elif cfg.open:
        lines.append(f"  server key {cfg.key}   (reissues recorder tokens and imports: Bearer)")
        lines.append("  games     anyone who reaches the server starts games (--open)")
    else:
        lines.append(f"  server key {cfg.key}   (starts games, reissues tokens, imports: Bearer)")
    lines.append(
        "  reads     "
        + ("need the server key or the game's token (--private)" if cfg.private else "open")
    )
    if cfg.allow_origins:
        lines.append(f"  CORS      pages of {', '.join(cfg.allow_origins)} may call the API")
    if cfg.backup_every is not None:
        keep = f", the {cfg.backup_keep} newest kept" if cfg.backup_keep is not None else ""
        folder = cfg.backup_dir or "backups/ beside the store"
        lines.append(f"  backups   every {_duration(cfg.backup_every)} into {folder}{keep}")
    lan = lan_address(opts.host)
    if lan is not None:
        url = _url(lan, opts.port)
        lines += [f"  LAN URL   {url}", "", qr_text(url).rstrip("\n")]
    lines.append("Ctrl-C stops the server.")
    return "\n".join(lines)


@contextlib.contextmanager
def access_log_to(target: str | None) -> Iterator[None]:
    """The ``gostop.access`` logger's lines to ``target`` (a file, appended to, or ``-``)
    while the server runs, written by a thread of their own so that no request waits for
    the disk; nothing when ``target`` is None."""
    if target is None:
        yield
        return
    from .metrics import access_log

    try:
        out: logging.Handler = (
            logging.StreamHandler(sys.stdout)
            if target == "-"
            else logging.FileHandler(target, encoding="utf-8")
        )
    except OSError as exc:
        raise SystemExit(
            f"gostop serve: cannot write the access log {target}: {exc.strerror}"
        ) from None
    out.setFormatter(logging.Formatter("%(message)s"))
    lines: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    listener = logging.handlers.QueueListener(lines, out)
    hand = logging.handlers.QueueHandler(lines)
    access_log.addHandler(hand)
    access_log.setLevel(logging.INFO)
    access_log.propagate = False  # its own file only, not the server's log
    listener.start()
    try:
        yield
    finally:
        access_log.removeHandler(hand)
        listener.stop()  # every line written
        out.close()


def _duration(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


def _log_backups() -> None:
    """Backups taken and removed (``gostop.backup``) are logged on stderr, beside the
    server's warnings."""
    import logging
    import sys

    logger = logging.getLogger("gostop.backup")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("gostop serve: %(asctime)s %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


def serve(opts: ServeOptions, say: Callable[[str], None] = print) -> None:
    """Serve until Ctrl-C or SIGTERM."""
    import uvicorn

    from ..store import Store, default_path
    from .app import create_app

    # --open opens starting games, never administration: the key is made all the same, for
    # whoever runs the server to reissue a recorder token or import (service/access.py)
    db = opts.service.db or str(default_path())
    key = opts.service.key or new_secret()
    cfg = replace(opts.service, db=db, key=key, access_log=opts.access_log is not None)
    opts = replace(opts, service=cfg)
    Store(db).close()  # a store another process holds is refused here, in one sentence
    from pathlib import Path

    from .core import server_key

    signer = server_key(Path(db))  # made on the first start; an unreadable one, in words
    signs = f"with key {signer.fingerprint} ({signer.path})"
    app = create_app(cfg)
    _log_backups()
    config = uvicorn.Config(
        app,
        host=opts.host,
        port=opts.port,
        # httptools and uvloop when installed (the package depends on them): a request
        # and a stream's write cost a fraction of h11's and asyncio's
        http=cfg.settings.http,  # type: ignore[arg-type]
        loop=cfg.settings.loop,  # type: ignore[arg-type]
        log_level="warning",
        timeout_graceful_shutdown=GRACE_S,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    original = server.startup

    async def startup(sockets: list[socket.socket] | None = None) -> None:
        await original(sockets)
        if server.started:
            sys.setswitchinterval(cfg.settings.switch_interval_s)
            if cfg.settings.freeze_gc:
                settle_gc()
            say(banner(opts, signs))

    stop = server.shutdown

    async def shutdown(sockets: list[socket.socket] | None = None) -> None:
        app.state["gostop"].hub.close()  # the live streams end now, not at the grace's end
        await stop(sockets)
        say("gostop serve: stopped; every acknowledged entry is in the store")

    server.startup = startup  # type: ignore[method-assign]
    server.shutdown = shutdown  # type: ignore[method-assign]
    with access_log_to(opts.access_log):
        server.run()
    if not server.started:
        raise SystemExit(1)
