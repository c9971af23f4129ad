"""The web recorder on a 360x640 phone, as a table uses it through a night (headless
Chromium against ``gostop serve``): the first dealer named when the game starts or at the
first deal, or drawn under the draw rule; every prompt after it names the right player.
Screenshots go to tests/artifacts/ (ignored by git) for a person to look at."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, guarded_contexts
from record_helpers import script_for, sim_payloads
from service_helpers import KEY, Server, auth

from gostop_records import events as E
from gostop_records import log as L

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 360, "height": 640}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("webphone") / "store.duckdb") as s:
        yield s


@pytest.fixture()
def contexts(browser: Any, server: Server) -> Iterator[Any]:
    yield from guarded_contexts(browser, server.url)


def shot(page: Any, name: str, full: bool = False) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full, animations="disabled")


def version(page: Any) -> int:
    return int(page.evaluate("() => +document.body.dataset.version || 0"))


def settled(page: Any, after: int, timeout: float = 10_000) -> int:
    page.wait_for_function(
        "(v) => +document.body.dataset.version > v && !document.querySelector('#pending li')",
        arg=after,
        timeout=timeout,
    )
    return version(page)


def events_of(server: Server, gid: str) -> list[Any]:
    lines = server.http.get(f"/api/games/{gid}/events").text.splitlines()
    return [L.decode_json_line(ln).event for ln in lines]


def start_from_the_form(page: Any, server: Server, players: str, preset: str, first: str) -> str:
    """Start a game on the games page, choosing who deals first; the recorder link."""
    page.goto(server.url + "/")
    page.wait_for_selector("body.ready")
    page.fill("#players", players)
    page.select_option("#preset", preset)
    page.select_option("#first-dealer", first)
    page.fill("#server-key", KEY)
    page.click("#new-game button[type=submit]")
    page.wait_for_selector("#created .qr svg")
    return str(page.get_attribute("#record-link", "href"))


def first_deal(lines: list[str]) -> list[str]:
    deal = next(ln for ln in lines if ln.startswith("deal "))
    words = deal.split()
    return words[words.index("layout") + 1 :]


def test_the_first_dealer_named_when_the_game_starts_deals_and_plays_first(
    contexts: Any, server: Server
) -> None:
    ctx = contexts(viewport=PHONE, has_touch=True, is_mobile=True)
    page = ctx.page()
    page.goto(server.url + "/")
    page.wait_for_selector("body.ready")
    page.fill("#players", "Ann, Ben, Cho")
    options = page.eval_on_selector_all("#first-dealer option", "os => os.map(o => o.textContent)")
    assert "Ben deals first" in options
    link = start_from_the_form(page, server, "Ann, Ben, Cho", "gostop3", "1")
    assert "dealer=1" in link
    gid = link.split("/games/")[1].split("/record")[0]
    page.goto(link)
    page.wait_for_selector("body.ready")
    v = version(page)
    # the choice came with the link: Ben is marked, and the prompt names him
    assert page.get_attribute("#first-dealer button[data-first-dealer='1']", "aria-pressed") == (
        "true"
    )
    assert "(dealer Ben)" in page.inner_text("#prompt")
    shot(page, "recorder-first-dealer-phone")
    layout = first_deal(script_for(sim_payloads("gostop3", 3, 7), hidden=True))
    for code in layout:
        page.click(f"#picker button[data-deal][data-code='{code}']")
    page.click("#deal-record")
    settled(page, v)
    started = [e for e in events_of(server, gid) if type(e) is E.HandStarted]
    assert [(h.dealer, list(h.order)) for h in started] == [(1, [1, 2, 0])]
    assert page.inner_text("#prompt").startswith("Ben to play")
    assert "Ben" in page.inner_text("#picker-title")


def test_at_the_first_deal_the_recorder_asks_who_deals(contexts: Any, server: Server) -> None:
    r = server.http.post(
        "/api/games", json={"players": ["Ann", "Ben"], "ruleset": "matgo"}, headers=auth(KEY)
    )
    gid, token = r.json()["game_id"], r.json()["recorder_token"]
    ctx = contexts(viewport=PHONE, has_touch=True, is_mobile=True)
    page = ctx.page()
    page.goto(f"{server.url}/games/{gid}/record#token={token}")
    page.wait_for_selector("body.ready")
    v = version(page)
    assert "who deals first?" in page.inner_text("#prompt")
    layout = first_deal(script_for(sim_payloads("matgo", 2, 5), hidden=True))
    for code in layout:
        page.click(f"#picker button[data-deal][data-code='{code}']")
    # the deal waits for the dealer: no silent seat 0
    assert page.is_disabled("#deal-record")
    page.click("#first-dealer button[data-first-dealer='1']")
    assert "(dealer Ben)" in page.inner_text("#prompt")
    page.click("#deal-record")
    settled(page, v)
    started = [e for e in events_of(server, gid) if type(e) is E.HandStarted]
    assert [h.dealer for h in started] == [1]
    assert page.inner_text("#prompt").startswith("Ben to play")


def test_a_game_started_with_the_draw_records_it(contexts: Any, server: Server) -> None:
    ctx = contexts(viewport=PHONE, has_touch=True, is_mobile=True)
    page = ctx.page()
    link = start_from_the_form(page, server, "Ann, Ben", "matgo", "draw")
    gid = link.split("/games/")[1].split("/record")[0]
    page.goto(link)
    page.wait_for_selector("body.ready")
    v = version(page)
    assert page.locator("#first-dealer").count() == 0
    page.click("#picker button[data-draw][data-code='03G']")
    page.click("#picker button[data-draw][data-code='11J1']")
    shot(page, "recorder-draw-phone")
    page.click("#draw button[data-draw-when='night']")
    settled(page, v)
    drawn = [e for e in events_of(server, gid) if type(e) is E.DealerDrawn]
    assert [(d.dealer, d.night) for d in drawn] == [(0, True)]
    assert "(dealer Ann)" in page.inner_text("#prompt")
