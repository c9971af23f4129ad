"""``gostop db rebuild --server URL``: a rebuild by the server that holds the store.

The server rebuilds beside its live tables while it records (``POST /api/rebuild``); this
asks for it with the server key, then follows its progress in ``/api/health`` until it is
swapped in, failed or cancelled.
"""

from __future__ import annotations

import time
from typing import Any

from . import common
from .progress import Progress

__all__ = ["remote_rebuild", "server_rebuild"]

#: How often the server's health is read while its rebuild runs.
POLL_S = 0.5


def remote_rebuild(server: str, key: str | None) -> dict[str, Any]:
    """The server's rebuild, followed to its end: its last progress (``state`` is
    ``done``, ``failed`` or ``cancelled``). Exits with a message when the server refuses."""
    from gostop_records.errors import GostopError
    from gostop_records.service.client import ServerRefused, ServiceClient

    if not key:
        common.fail("--server needs the server key: --key KEY or $GOSTOP_SERVER_KEY")
    client = ServiceClient(server, key, timeout=30)
    try:
        status = client.rebuild()
        with Progress("rebuild", None, "game") as bar:
            while status.get("running"):
                time.sleep(POLL_S)
                status = client.health().get("rebuild") or status
                if status.get("total"):
                    bar.update(status["games"], status["total"])
    except ServerRefused as exc:
        common.fail(f"{client.url}: {exc.reason}")
    except GostopError as exc:
        common.fail(str(exc))
    return status


def server_rebuild(server: str, key: str | None, *, accept_loss: bool, as_json: bool) -> None:
    """``gostop db rebuild --server``: the rebuild asked for and followed, its end printed;
    exit code 1 when it failed or was cancelled."""
    if accept_loss:
        common.fail("--accept-loss is for a store no server holds: stop the server first")
    status = remote_rebuild(server, key)
    if as_json:
        common.print_json(status)
    elif status["state"] == "done":
        common.echo(f"the server rebuilt the projections of {status['total']} game(s), swapped in")
    if status["state"] != "done":
        why = f": {status['error']}" if status.get("error") else ""
        common.fail(f"the server's rebuild {status['state']}{why}; its tables are as they were")
