"""/play's levels, hint and review link in a real browser (headless Chromium through
Playwright) on a phone: a level picked, the hint asked for and shown with every option's
chips, the hand played out and its review opened. Screenshots go to tests/artifacts/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, Guarded
from service_helpers import Server
from test_review_web import wait_for_review
from test_web_play_browser import by_taps, settle

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 360, "height": 640}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("webhint") / "store.duckdb") as s:
        yield s


def test_a_level_picked_a_hint_shown_and_the_hand_reviewed_on_a_phone(
    browser: Any, server: Server
) -> None:
    g = Guarded(browser, (server.url, "data:"), viewport=PHONE)
    try:
        page = g.page()
        page.goto(server.url + "/play?bot=beginner&seed=11&pace=0")
        assert settle(page) == "ready"
        levels = page.locator("#bot option").evaluate_all("(els) => els.map((e) => e.value)")
        assert levels == ["beginner", "casual", "club", "strong", "expert", "master"]
        page.select_option("#bot", "club")
        page.click("#new-hand-button")
        page.wait_for_function(
            "() => document.querySelector('#facing').textContent.includes('club')"
        )
        assert settle(page) == "ready"
        assert page.evaluate("document.body.dataset.step") == "play"
        assert page.locator("#hint").is_hidden()
        page.click("#hint-button")
        page.wait_for_selector("#hint-options li", timeout=60_000)
        rows = page.locator("#hint-options li")
        assert rows.count() >= 2
        chips = rows.evaluate_all("(els) => els.map((e) => +e.dataset.chips)")
        assert chips == sorted(chips, reverse=True)
        first = rows.first.inner_text()
        assert "chips" in first and "95%" in first and first.startswith("play ")
        assert "deals of the" in page.locator(".hint-summary").inner_text()
        page.locator("#hint").scroll_into_view_if_needed()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "play-phone-hint.png"))
        # the hint goes once the player moves
        page.locator("#hand button:not([disabled])").first.click()
        settle(page)
        assert page.locator("#hint").is_hidden()
        by_taps(page)
        link = page.locator("#review-link")
        href = link.get_attribute("href")
        assert href is not None and href.startswith("/play/") and "/review/" in href
        page.locator("#end").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "play-phone-review-link.png"))
        r = wait_for_review(server.http, href)
        assert r.status_code == 200 and "<title>Review of" in r.text
    finally:
        g.close()
