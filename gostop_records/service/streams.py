"""Live streams of games: every committed event to every viewer of its game, in order.

The service's worker thread announces each append (:meth:`Hub.publish_threadsafe`); the
hub formats each event once as a Server-Sent Events message (its seq as the message id, its
type as the event name, the stored JSON line as the data) and hands the batch to every
viewer's queue on the event loop. A viewer subscribes before it reads what it missed, and
skips what it has already sent, so nothing falls between the two.

An idle stream gets a comment line now and then so that proxies keep it open: one timer of
the hub puts an empty batch in every viewer's queue (:meth:`Hub.beat`), rather than each
viewer waiting on its queue with a timeout, which costs a task and a timer per message per
viewer when two hundred phones watch one game.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from .. import events as E
from .. import log as L

__all__ = ["Hub", "sse_message"]

Batch = list[tuple[int, bytes]]


def sse_message(env: E.Envelope) -> bytes:
    """One event as an SSE message: ``id`` seq, ``event`` type, ``data`` the stored line."""
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (env.seq, env.type.encode(), L.encode_json(env))


class Hub:
    """The viewers of each game and the queues that feed them."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.viewers: dict[str, set[asyncio.Queue[Batch | None]]] = {}
        self.closed = False

    def subscribe(self, game_id: str) -> asyncio.Queue[Batch | None]:
        q: asyncio.Queue[Batch | None] = asyncio.Queue()
        self.viewers.setdefault(game_id, set()).add(q)
        return q

    def unsubscribe(self, game_id: str, q: asyncio.Queue[Batch | None]) -> None:
        group = self.viewers.get(game_id)
        if group is not None:
            group.discard(q)
            if not group:
                del self.viewers[game_id]

    def viewer_count(self) -> int:
        return sum(len(g) for g in self.viewers.values())

    def publish(self, game_id: str, batch: Batch) -> None:
        for q in self.viewers.get(game_id, ()):
            q.put_nowait(batch)

    def publish_threadsafe(self, game_id: str, envs: Sequence[E.Envelope]) -> None:
        """From the worker thread: format the events here, deliver them on the loop."""
        loop = self.loop
        if loop is None or self.closed or game_id not in self.viewers:
            return
        batch = [(env.seq, sse_message(env)) for env in envs]
        loop.call_soon_threadsafe(self.publish, game_id, batch)

    async def beat(self, every: float) -> None:
        """Every ``every`` seconds, an empty batch to every viewer (a keep-alive)."""
        import asyncio

        while not self.closed:
            await asyncio.sleep(every)
            for group in list(self.viewers.values()):
                for q in group:
                    q.put_nowait([])

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        self.closed = True
        for group in self.viewers.values():
            for q in group:
                q.put_nowait(None)
