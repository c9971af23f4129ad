"""Seating a known person from the new-game form, in a real browser against ``gostop
serve`` at phone size: the known players come from ``GET /api/people``, a tap writes
``NAME=ID`` into the players field, who deals first still reads the name, and the game
started seats that person; a forgotten person is not offered."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, guarded_contexts
from service_helpers import KEY, Server, auth

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 360, "height": 640}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("people") / "store.duckdb") as s:
        yield s


@pytest.fixture()
def contexts(browser: Any, server: Server) -> Iterator[Any]:
    yield from guarded_contexts(browser, server.url)


def test_a_tap_on_a_known_player_seats_that_person(contexts: Any, server: Server) -> None:
    for players in (["Ann", "Ben"], ["Gone", "Ben"], ["Ben", "Dee"]):
        r = server.http.post(
            "/api/games", json={"players": players, "ruleset": "matgo"}, headers=auth(KEY)
        )
        assert r.status_code == 201, r.text
    people = {p["name"]: p["person_id"] for p in server.http.get("/api/people").json()}
    ann, gone = people["Ann"], people["Gone"]
    r = server.http.post(f"/api/people/{gone}/forget", headers=auth(KEY))
    assert r.status_code == 201, r.text
    ctx = contexts(viewport=PHONE, has_touch=True, is_mobile=True)
    page = ctx.page()
    page.goto(f"{server.url}/")
    page.wait_for_selector(f"#known button.known[data-id='{ann}']")
    assert page.locator(f"#known button.known[data-id='{gone}']").count() == 0
    # three games seated a new "Ben" each: the buttons say which is which
    bens = page.locator("#known button.known[data-name='Ben']").all_inner_texts()
    assert len(bens) == 3 and len(set(bens)) == 3 and all("1 game, last" in b for b in bens)
    page.fill("#server-key", KEY)
    page.click(f"#known button.known[data-id='{ann}']")
    assert page.input_value("#players") == f"Ann={ann}"
    page.fill("#players", f"Ann={ann}, Cho")
    page.dispatch_event("#players", "input")
    options = page.locator("#first-dealer option").all_inner_texts()
    assert "Ann deals first" in options and "Cho deals first" in options
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "people-known-phone.png"), full_page=True)
    page.click("#new-game button[type=submit]")
    page.wait_for_selector("#created h2")
    gid = page.inner_text("#created h2").split()[1]
    seats = server.http.get(f"/api/games/{gid}").json()["players"]
    assert (seats[0]["id"], seats[0]["name"]) == (ann, "Ann")
    assert seats[1]["name"] == "Cho" and seats[1]["id"] not in people.values()
