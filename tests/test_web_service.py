"""The replayer on ``gostop serve``: the service includes the page routes, reading games as
its API does (404 for no such game, a private server's pages private too).

Skipped while the table service (gostop_records.service) is not in this tree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("gostop_records.service.app", reason="the table service is not in this tree")

from service_helpers import KEY, auth, service_client

from gostop_records import log as L
from gostop_records.web.pages import replay_page

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "disputed-payment.jsonl"


def _data(html: str) -> dict[str, Any]:
    body = html.split('<script type="application/json" id="replay-data">', 1)[1]
    return json.loads(body.split("</script>", 1)[0])  # type: ignore[no-any-return]


def test_the_service_serves_the_replay_page(tmp_path: Path) -> None:
    envs = list(L.read_log(SAMPLE))
    gid = envs[0].game_id
    with service_client(tmp_path / "s.duckdb") as c:
        assert c.post("/api/import", content=SAMPLE.read_bytes(), headers=auth(KEY)).is_success
        r = c.get(f"/games/{gid}/replay")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert _data(r.text) == _data(replay_page(gid, envs))
        assert c.get("/cards/01G.svg").status_code == 200
        missing = c.get("/games/no-such-game/replay")
        assert missing.status_code == 404 and "no-such-game" in missing.text
        assert missing.headers["content-type"].startswith("text/html")  # a page, refused
        assert "/games" in missing.text  # with where to go on


def test_a_private_server_keeps_the_page_private(tmp_path: Path) -> None:
    gid = next(iter(L.read_log(SAMPLE))).game_id
    with service_client(tmp_path / "s.duckdb", private=True) as c:
        assert c.post("/api/import", content=SAMPLE.read_bytes(), headers=auth(KEY)).is_success
        assert c.get(f"/games/{gid}/replay").status_code == 401
        assert c.get(f"/games/{gid}/replay", headers=auth(KEY)).status_code == 200


def test_a_page_is_refused_with_a_page_and_the_api_with_json(tmp_path: Path) -> None:
    """A stale link or a mistyped game in a browser gets a short page saying why, with where
    to go on; the API keeps answering JSON, whatever the client accepts."""
    browser = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    with service_client(tmp_path / "s.duckdb") as c:
        for url in ("/games/no-such-game", "/games/no-such-game/audit", "/no/such/page"):
            r = c.get(url, headers=browser)
            assert r.status_code == 404, url
            assert r.headers["content-type"].startswith("text/html"), url
            assert "<title>not found</title>" in r.text
            assert "href='/games'" in r.text
            assert "Traceback" not in r.text and str(tmp_path) not in r.text
        assert "there is no page at /no/such/page" in c.get("/no/such/page", headers=browser).text
        # a page whose path holds markup says it, never runs it
        r = c.get("/<script>alert(1)</script>", headers=browser)
        assert r.status_code == 404 and "<script>alert" not in r.text
        # the API, and a client that does not ask for HTML, still read JSON
        r = c.get("/api/games/no-such-game", headers=browser)
        assert r.status_code == 404 and r.json()["error"] == "not_found"
        assert c.get("/no/such/page").json()["error"] == "not_found"
