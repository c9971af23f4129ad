"""Shared by the service tests: an app on a fresh store, a running server, scripted hands."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
from litestar.testing import TestClient
from record_helpers import script_for, sim_payloads

from gostop_records import events as E
from gostop_records.service import ServiceConfig, create_app

KEY = "test-server-key"
T = TypeVar("T")


def run_async(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run`` on a thread of its own: the browser tests' Playwright keeps an event
    loop running on the main thread for the whole session, where ``asyncio.run`` refuses."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


NAMES = ["Ann", "Ben", "Cho"]


@contextlib.contextmanager
def service_client(db: Path, **config: Any) -> Iterator[TestClient[Any]]:
    app = create_app(ServiceConfig(db=str(db), **{"key": KEY, **config}))
    with TestClient(app) as client:
        yield client


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def new_game(client: Any, players: int = 2, ruleset: str = "matgo", **extra: Any) -> dict[str, Any]:
    body = {"players": NAMES[:players], "ruleset": ruleset, **extra}
    r = client.post("/api/games", json=body, headers=auth(KEY))
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def hand_lines(preset: str, players: int, seed: int) -> tuple[list[Any], list[str]]:
    sim = sim_payloads(preset, players, seed)
    return sim, script_for(sim)


#: What a signing recorder adds to a record (its key, checkpoints, countersignatures).
SIGNING = ("key_added", "checkpoint_signed", "result_countersigned")


def comparable(payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Payloads without what differs between two recordings of one hand (the deck, and
    the signing events, made with other keys)."""
    out = []
    for d in payloads:
        if d["type"] in SIGNING:
            continue
        d = dict(d)
        if d["type"] == "hand_started":
            d["deck"] = None
        out.append(d)
    return out


def sim_dicts(sim: list[Any]) -> list[dict[str, Any]]:
    return comparable([E.payload_to_dict(p) for p in sim])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``gostop serve`` in a subprocess on a free port."""

    def __init__(
        self,
        db: Path,
        env: dict[str, str] | None = None,
        *args: str,
        command: list[str] | None = None,
    ) -> None:
        """``command``: what runs instead of ``gostop serve`` (given ``--db`` and
        ``--port``)."""
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        full = {**os.environ, "GOSTOP_SERVER_KEY": KEY, **(env or {})}
        full.pop("NO_COLOR", None)
        self.proc = subprocess.Popen(
            [
                *(command or [sys.executable, "-m", "gostop_cli.app", "serve"]),
                "--db",
                str(db),
                "--port",
                str(self.port),
                *args,
            ],
            env=full,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.http = httpx.Client(base_url=self.url, timeout=20)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server did not start: {self.proc.stderr.read()}")  # type: ignore[union-attr]
            try:
                if self.http.get("/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the server did not answer within 30 s")

    def stop(self) -> int:
        self.http.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


logging.getLogger("httpx").setLevel(logging.WARNING)
