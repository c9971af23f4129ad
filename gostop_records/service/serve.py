"""Running the service: uvicorn on a host and port, the banner a table needs to join.

The banner names the URL, the server key (the one secret that starts games and imports)
and, when the server listens beyond this machine, the address on the local network with a
QR code of it for the phones at the table. uvicorn stops on Ctrl-C or SIGTERM: it ends the
live streams at once, gives the requests in flight :data:`GRACE_S` seconds (an acknowledged
entry is already durable), interrupts the reads still running, and closes the store,
which hands the file to other commands again.
"""

from __future__ import annotations

import io
import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

from .settings import ServiceSettings
from .store_rows import new_secret

__all__ = ["ServeOptions", "banner", "lan_address", "serve"]

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
    db: str | None = None
    host: str = "127.0.0.1"
    port: int = 8765
    open: bool = False
    private: bool = False
    key: str | None = None
    allow_origins: tuple[str, ...] = ()
    settings: ServiceSettings = field(default_factory=ServiceSettings)


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


def banner(opts: ServeOptions, key: str | None, db: str, signs: str | None = None) -> str:
    local = _url("127.0.0.1" if opts.host in ("0.0.0.0", "::", "") else opts.host, opts.port)
    lines = [f"gostop serve: the store {db}", f"  URL       {local}", f"  API       {local}schema"]
    if signs is not None:
        lines.append(f"  signs     {signs}")
    if key is None:
        lines.append("  server key: none: nobody may reissue recorder tokens or import")
    elif opts.open:
        lines.append(f"  server key {key}   (reissues recorder tokens and imports: Bearer)")
        lines.append("  games     anyone who reaches the server starts games (--open)")
    else:
        lines.append(f"  server key {key}   (starts games, reissues tokens, imports: Bearer)")
    lines.append(
        "  reads     "
        + ("need the server key or the game's token (--private)" if opts.private else "open")
    )
    if opts.allow_origins:
        lines.append(f"  CORS      pages of {', '.join(opts.allow_origins)} may call the API")
    lan = lan_address(opts.host)
    if lan is not None:
        url = _url(lan, opts.port)
        lines += [f"  LAN URL   {url}", "", qr_text(url).rstrip("\n")]
    lines.append("Ctrl-C stops the server.")
    return "\n".join(lines)


def serve(
    opts: ServeOptions,
    say: Callable[[str], None] = print,
    *,
    after_commit: Callable[[], None] | None = None,
) -> None:
    """Serve until Ctrl-C or SIGTERM (``after_commit``: see :class:`.app.ServiceConfig`)."""
    import uvicorn

    from ..store import Store, default_path
    from .app import ServiceConfig, create_app

    # --open opens starting games, never administration: the key is made all the same, for
    # whoever runs the server to reissue a recorder token or import (service/access.py)
    key = opts.key or new_secret()
    db = opts.db or str(default_path())
    Store(db).close()  # a store another process holds is refused here, in one sentence
    from pathlib import Path

    from .core import server_key

    signer = server_key(Path(db))  # made on the first start; an unreadable one, in words
    signs = f"with key {signer.fingerprint} ({signer.path})"
    app = create_app(
        ServiceConfig(
            db=db,
            key=key,
            private=opts.private,
            open=opts.open,
            allow_origins=opts.allow_origins,
            settings=opts.settings,
            after_commit=after_commit,
        )
    )
    config = uvicorn.Config(
        app,
        host=opts.host,
        port=opts.port,
        # httptools and uvloop when installed (the package depends on them): a request
        # and a stream's write cost a fraction of h11's and asyncio's
        http=opts.settings.http,  # type: ignore[arg-type]
        loop=opts.settings.loop,  # type: ignore[arg-type]
        log_level="warning",
        timeout_graceful_shutdown=GRACE_S,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    original = server.startup

    async def startup(sockets: list[socket.socket] | None = None) -> None:
        await original(sockets)
        if server.started:
            if opts.settings.freeze_gc:
                settle_gc()
            say(banner(opts, key, db, signs))

    stop = server.shutdown

    async def shutdown(sockets: list[socket.socket] | None = None) -> None:
        app.state["gostop"].hub.close()  # the live streams end now, not at the grace's end
        await stop(sockets)
        say("gostop serve: stopped; every acknowledged entry is in the store")

    server.startup = startup  # type: ignore[method-assign]
    server.shutdown = shutdown  # type: ignore[method-assign]
    server.run()
    if not server.started:
        raise SystemExit(1)
