"""A /play hand reviewed and a decision played again, in a real browser (headless Chromium
through Playwright) on a phone: the hand played out, its review opened (the page says it is
being computed until it is ready, then the replayer with the review), a decision of the
player's chosen and "replay to this decision and choose again" pressed: /play opens at that
position, the same deal, every move before it as it was, and the hand is played on from
there. Screenshots go to tests/artifacts/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, Guarded
from service_helpers import Server
from test_web_play_browser import by_taps, settle

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 360, "height": 640}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("replayplay") / "store.duckdb") as s:
        yield s


def test_a_reviewed_decision_is_played_again_from_its_position(
    browser: Any, server: Server
) -> None:
    g = Guarded(browser, (server.url, "data:"), viewport=PHONE)
    try:
        page = g.page()
        page.goto(server.url + "/play?bot=casual&seed=11&pace=0")
        by_taps(page)
        game = page.evaluate("document.body.dataset.game")
        href = page.locator("#review-link").get_attribute("href")
        assert href is not None
        page.goto(server.url + href)
        # the progress page looks again by itself until the review is ready
        page.wait_for_selector("body.ready[data-review]", timeout=300_000)
        assert page.title() == f"Review of {game}"
        mine = page.evaluate(
            "window.GostopReplay.data.review.decisions"
            ".filter((d) => d.seat === 0).map((d) => d.seq)"
        )
        assert mine
        seq = mine[-1]
        page.locator(f'#review-list button:has(b:text-is("{seq}"))').first.click()
        card = page.locator(f'#review-now article.decision[data-seq="{seq}"]').first
        card.wait_for()
        assert card.locator("li.option").count() >= 2
        card.scroll_into_view_if_needed()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "play-phone-review-decision.png"))
        card.locator("button.rewind").click()
        # /play, at that decision of a new table: the same moves before it, the player to move
        page.wait_for_url("**/play?*#hand=*")
        assert settle(page) == "ready"
        assert int(page.evaluate("document.body.dataset.version")) == seq - 1
        assert page.evaluate("document.body.dataset.game") != game
        note = page.locator("#practice")
        assert note.is_visible() and f"seq {seq}" in note.inner_text() and game in note.inner_text()
        page.screenshot(path=str(ARTIFACTS / "play-phone-choose-again.png"))
        by_taps(page)
        end = page.locator("#practice-end")
        assert end.is_visible() and "not kept in the store" in end.inner_text()
    finally:
        g.close()
