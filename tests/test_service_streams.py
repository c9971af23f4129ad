"""The hub of the live streams: batches to every viewer of a game, the keep-alive beat."""

from __future__ import annotations

import asyncio

from service_helpers import run_async

from gostop_records.service.streams import Hub


def test_the_beat_reaches_every_idle_viewer_and_stops_with_the_hub() -> None:
    async def run() -> list[list[object]]:
        hub = Hub()
        hub.loop = asyncio.get_running_loop()
        a, b = hub.subscribe("g1"), hub.subscribe("g2")
        beat = asyncio.create_task(hub.beat(0.01))
        got = [await asyncio.wait_for(q.get(), 5) for q in (a, b)]
        hub.publish("g1", [(3, b"x")])
        while True:  # beats may come first; the batch follows them, in order
            item = await asyncio.wait_for(a.get(), 5)
            if item:
                got.append(item)
                break
        hub.close()
        await asyncio.wait_for(beat, 5)  # the beat ends once the hub is closed
        assert beat.done()
        return got

    got = run_async(run)
    assert got == [[], [], [(3, b"x")]]
