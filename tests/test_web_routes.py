"""The pages as Litestar routes (what ``gostop serve`` includes): ``/games/{id}/replay`` is
the replayer of the stored game, ``/cards/{code}.svg`` each card drawing."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.exceptions import NotFoundException
from litestar.testing import TestClient

from gostop_records import log as L
from gostop_records.service.headers import csp
from gostop_records.store import Store
from gostop_records.web import cards as W
from gostop_records.web import replay_data as R
from gostop_records.web.pages import replay_page, source_hash
from gostop_records.web.play_routes import DEFAULT_BOT, DEFAULT_RULESET, play_page
from gostop_records.web.routes import page_routes
from gostop_records.web.table_pages import index_page, live_page, recorder_page

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "disputed-payment.jsonl"


def pages_app(db: Path) -> Litestar:
    """An app with the page routes over a store, reading games as a service would."""

    async def events_of(_request: Any, game_id: str) -> list[Any]:
        def read() -> list[Any]:
            with Store(db, read_only=True) as store:
                return store.events(game_id)

        envs = await asyncio.to_thread(read)
        if not envs:
            raise NotFoundException(f"there is no game {game_id!r}")
        return envs

    return Litestar(route_handlers=page_routes(events_of))


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient[Any]]:
    db = tmp_path / "s.duckdb"
    with Store(db) as store:
        store.import_paths([SAMPLE])
    with TestClient(pages_app(db)) as c:
        yield c


def _data(html: str) -> dict[str, Any]:
    body = html.split('<script type="application/json" id="replay-data">', 1)[1]
    return json.loads(body.split("</script>", 1)[0])  # type: ignore[no-any-return]


def test_the_replay_page_of_a_stored_game(client: TestClient[Any]) -> None:
    envs = list(L.read_log(SAMPLE))
    gid = envs[0].game_id
    r = client.get(f"/games/{gid}/replay")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    data = _data(r.text)
    assert data == _data(replay_page(gid, envs))
    assert data["seal"] == R.seal_text(envs[-1].hash)
    assert len(data["frames"]) == len(envs)
    # no such game: the reader's refusal, a 404 with the reason
    missing = client.get("/games/no-such-game/replay")
    assert missing.status_code == 404
    assert "no-such-game" in missing.text


def test_every_inline_style_is_allowed_by_its_page_and_by_the_service() -> None:
    """The felt pages join shared and own style sheets: the sheet a page holds is the one its
    own policy and the service's policy allow by hash (else the browser drops it)."""
    envs = list(L.read_log(SAMPLE))
    pages = [
        replay_page(envs[0].game_id, envs),
        index_page(),
        live_page("g1"),
        recorder_page("g1"),
        play_page(DEFAULT_RULESET, DEFAULT_BOT),
    ]
    for page in pages:
        own = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
        assert own is not None
        sheets = re.findall(r"<style>(.*?)</style>", page, re.S)
        assert sheets
        for css in sheets:
            assert "--felt:" in css  # the shared colours come first
            assert source_hash(css) in own.group(1).replace("&#39;", "'")
            assert source_hash(css) in csp()


def test_each_card_drawing_is_served(client: TestClient[Any]) -> None:
    for code in ("01G", "11D", "B3", "back"):
        r = client.get(f"/cards/{code}.svg")
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("image/svg+xml")
        assert r.text == W.card_svg(code)
    for bad in ("99Z.svg", "01G.png", "01g.svg"):
        r = client.get(f"/cards/{bad}")
        assert r.status_code == 404
        assert bad in r.text
