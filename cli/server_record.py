"""``gostop record --server URL``: the same recorder, writing into a running ``gostop serve``.

The prompts, the grammar and the checks are those of ``gostop record``: the recording
session runs here, on a copy of the game read from the server, and each input it accepts
is sent to the server as a typed entry with the version it was made at. The server checks
it again, stores it with its consequences and answers them; they must be the ones the
session derived (the same rules engine), or the recording stops. When another device
recorded first (409), the game is read again, what the other device entered is shown, and
the line is refused so that the recorder can decide again.
"""

from __future__ import annotations

import contextlib
import sys
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import typer

from gostop_records import events as E
from gostop_records.errors import GostopError, IllegalAction
from gostop_records.names import named, sealed_ids
from gostop_records.recorder import RecordingSession
from gostop_records.service.client import ServerRefused, ServiceClient

from . import common
from .record_session import Refused, Session
from .render import Painter, describe_event

__all__ = ["RemoteSink", "record_remote"]

KEY_ENV = "GOSTOP_SERVER_KEY"


class ServerConflict(GostopError):
    """Another device appended to the game first."""

    def __init__(self, version: int | None, reason: str) -> None:
        self.version = version
        super().__init__(reason)


class RemoteSink:
    """An event sink whose appends are entries of a game on a server (see the module doc)."""

    def __init__(self, client: ServiceClient, game_id: str) -> None:
        self.client = client
        self.game_id = game_id
        self.location = client.url
        self.stored = 0
        self.expect: deque[E.Envelope] = deque()

    def version(self, game_id: str) -> int:
        return self.stored

    def game_events(self, game_id: str) -> list[E.Envelope]:
        envs = self.client.events(game_id)
        self.stored = envs[-1].seq if envs else 0
        if envs and sealed_ids(envs[0].event):  # the server holds the keys: its names
            seats = self.client.table(game_id, at=1).get("players") or []
            envs[0] = named(envs[0], {p["id"]: p["name"] for p in seats})
        return envs

    def append(
        self, envs: Sequence[E.Envelope], expected_version: int, checked: object = None
    ) -> None:
        """An entry as the server records it: the input is sent, and the consequences the
        server answers with must be the ones this recorder derived."""
        for k, env in enumerate(envs):
            self._one(env, expected_version + k)

    def _one(self, env: E.Envelope, expected_version: int) -> None:
        if self.expect:
            srv = self.expect.popleft()
            if srv.seq != env.seq or _payload(srv) != _payload(env):
                raise GostopError(
                    f"the server stored seq {srv.seq} as {srv.type}, this recorder derived "
                    f"{env.type}: the two disagree on the rules; stop and replay the game"
                )
            return
        if not (E.is_input(env.event) or type(env.event) is E.EntryRetracted):
            raise GostopError(
                f"seq {env.seq} ({env.type}) is derived by the rules: the server completes "
                "an interrupted entry itself"
            )
        try:
            answer = self.client.enter(self.game_id, expected_version, event=env.event)
        except ServerRefused as exc:
            if exc.status == 409:
                raise ServerConflict(exc.version, exc.reason) from None
            if exc.status == 422:
                raise IllegalAction(str(exc.rule or "server"), exc.reason) from None
            raise
        stored = [msgspec.convert(e, E.Envelope) for e in answer["events"]]
        if not stored or _payload(stored[0]) != _payload(env):
            raise GostopError("the server stored another entry than the one sent")
        self.stored = int(answer["version"])
        self.expect.extend(stored[1:])

    def close(self) -> None:
        pass


def _payload(env: E.Envelope) -> Any:
    return msgspec.to_builtins(env.event)


class ServerSession(Session):
    """The recorder's loop; a conflict reloads the game from the server."""

    def __init__(self, *args: Any, client: ServiceClient, by: str, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.client = client
        self.by = by

    def handle(self, text: str) -> None:
        try:
            super().handle(text)
            self._take_signatures()
        except ServerConflict as exc:
            seen = self.rec.last_seq
            gid = self.rec.game_id
            self.rec = RecordingSession.resume(RemoteSink(self.client, gid), gid, by=self.by)
            for env in self.rec.envelopes[seen:]:
                self.out(
                    f"{env.seq:>5}  {describe_event(env.event, self.rec.players, self.p)}"
                    "  (recorded by another device)"
                )
            raise Refused(
                f"another device recorded first (the game is at version {exc.version}); "
                "the table is read again: enter the line again if it still stands"
            ) from None

    def _take_signatures(self) -> None:
        """The server signs what it records: the checkpoint it wrote after a hand's end
        (which this session, holding no key, does not derive) is read in with the game."""
        sink = self.rec.sink
        if not isinstance(sink, RemoteSink) or not sink.expect:
            return
        extra = [e for e in sink.expect if not isinstance(e.event, E.Metadata)]
        if extra:
            raise GostopError(
                f"the server stored seq {extra[0].seq} ({extra[0].type}), which this recorder "
                "did not derive: the two disagree on the rules; stop and replay the game"
            )
        gid = self.rec.game_id
        self.rec = RecordingSession.resume(RemoteSink(self.client, gid), gid, by=self.by)


#: Events a signing server adds to what it records.
def record_remote(
    server: str,
    *,
    token: str | None,
    key: str | None,
    players: str | None,
    ruleset: str | None,
    stake: int,
    venue: str | None,
    by: str,
    game_id: str | None,
    resume: str | None,
    script: Path | None,
) -> None:
    """Record into the server at ``server`` (see the module docstring)."""
    import os

    key = key or os.environ.get(KEY_ENV) or None
    with contextlib.ExitStack() as stack:
        stream, interactive = common.script_or_stdin(stack, script)
        resumed = resume is not None or players is None
        if not resumed:
            assert players is not None
            names = [n.strip() for n in players.split(",") if n.strip()]
            maker = ServiceClient(server)
            made = maker.create_game(
                names, ruleset, stake=stake, venue=venue, by=by, game_id=game_id, key=key
            )
            gid, token = str(made["game_id"]), str(made["recorder_token"])
            typer.echo(
                f"game {gid}: recorder token {token} (another device continues with "
                f"gostop record --server {server} --token {token})",
                err=True,
            )
        else:
            if not token:
                raise typer.BadParameter(
                    "give the game's recorder token (or --players to start a game)",
                    param_hint="--token",
                )
            gid = resume or str(ServiceClient(server, token).token_game()["game_id"])
        client = ServiceClient(server, token)
        rec = RecordingSession.resume(RemoteSink(client, gid), gid, by=by)
        loop = ServerSession(
            rec,
            common.LineReader(stream, interactive),
            out=common.echo,
            err=lambda s: typer.echo(s, err=True),
            paint=Painter(common.color_enabled(sys.stdout)),
            err_paint=Painter(common.color_enabled(sys.stderr)),
            client=client,
            by=by,
        )
        loop.greet(resumed=resumed)
        try:
            loop.run()
        except KeyboardInterrupt:
            typer.echo("", err=True)
        typer.echo(
            f"game {gid}: {loop.rec.last_seq} events stored by {server}; continue with: "
            f"gostop record --server {server} --token TOKEN",
            err=True,
        )
    if loop.refused and not interactive:
        common.error_message(f"{loop.refused} line(s) refused")
        raise typer.Exit(common.EXIT_REJECTED)
