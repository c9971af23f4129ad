"""The table service: one process owns the store and serves it over HTTP to every device at
a table (``gostop serve``). :mod:`.core` holds the service without HTTP, :mod:`.app` the
Litestar routes, :mod:`.streams` the live event streams, :mod:`.client` the client the
terminal commands use with ``--server``."""

from __future__ import annotations

__all__ = ["ServiceConfig", "TableService", "create_app"]


def __getattr__(name: str) -> object:
    # the web framework is imported only by what serves
    if name in ("ServiceConfig", "create_app"):
        from . import app

        return getattr(app, name)
    if name == "TableService":
        from .core import TableService

        return TableService
    raise AttributeError(name)
