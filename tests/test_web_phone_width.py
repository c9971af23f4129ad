"""Every page of ``gostop serve`` fits a 360x640 phone: nothing wider than the screen
(document.documentElement.scrollWidth <= 360), a wide table scrolls inside its own box or
folds into cards. Screenshots of each page go to tests/artifacts/ (ignored by git)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, guarded_contexts
from record_helpers import script_for, sim_payloads
from service_helpers import KEY, Server, auth

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)
ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 360, "height": 640}
#: A stored game with a disputed payment (the audit has something to say) and one recorded
#: through the API (the recorder and the live table have a hand).
DISPUTED = ROOT / "samples" / "disputed-payment.jsonl"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("phonewidth") / "store.duckdb") as s:
        yield s


@pytest.fixture(scope="module")
def games(server: Server) -> dict[str, Any]:
    r = server.http.post(
        "/api/import", content=DISPUTED.read_bytes(), headers={**auth(KEY)}, timeout=60
    )
    assert r.status_code == 200, r.text
    disputed = server.http.get("/api/games", params={"limit": 5}).json()["games"][0]
    r = server.http.post(
        "/api/games",
        json={"players": ["Ann", "Ben", "Cho"], "ruleset": "gostop3"},
        headers=auth(KEY),
    )
    gid, token = r.json()["game_id"], r.json()["recorder_token"]
    for line in script_for(sim_payloads("gostop3", 3, 4), hidden=True)[:5]:
        v = server.http.get(f"/api/games/{gid}/now").json()["version"]
        r = server.http.post(
            f"/api/games/{gid}/entries",
            json={"entry": line, "expected_version": v},
            headers=auth(token),
        )
        assert r.status_code == 201, r.text
    players = server.http.get("/players").text
    player = players.split('href="/players/', 1)[1].split('"', 1)[0]
    return {"disputed": disputed, "live": gid, "token": token, "player": f"/players/{player}"}


def _pages(games: dict[str, Any]) -> list[tuple[str, str]]:
    d = games["disputed"]["game_id"]
    g = games["live"]
    return [
        ("index", "/"),
        ("games", "/games"),
        ("players", "/players"),
        ("player", games["player"]),
        ("report", "/report"),
        ("audit", f"/games/{d}/audit"),
        ("replay", f"/games/{d}/replay"),
        ("live", f"/games/{g}"),
        ("record", f"/games/{g}/record#token={games['token']}"),
        ("play", "/play"),
    ]


def test_every_page_fits_a_360_px_phone(
    browser: Any, server: Server, games: dict[str, Any]
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    wide: dict[str, int] = {}
    for make in guarded_contexts(browser, server.url):
        ctx = make(viewport=PHONE, has_touch=True, is_mobile=True)
        page = ctx.page()
        for name, path in _pages(games):
            page.goto(server.url + path)
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(ARTIFACTS / f"width-{name}-phone.png"), full_page=True)
            width = page.evaluate("() => document.documentElement.scrollWidth")
            if width > PHONE["width"]:
                wide[name] = width
    assert not wide, f"pages wider than the phone: {wide}"
