"""The review drawn in the replayer, in a real browser (headless Chromium through
Playwright) at phone size: the ``--html`` file of ``gostop review`` opened from the disk
(no request at all: the guarded context refuses and reports any), every decision marked on
the timeline and in the events, and at a marked decision its options drawn with their
chips, interval, loss and grade. Screenshots go to tests/artifacts/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from browser_support import CHROMIUM, Guarded
from gostop_cli.app import app
from typer.testing import CliRunner

from gostop_records.review import GameReview

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)
SAMPLES = Path(__file__).resolve().parent.parent / "samples"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 360, "height": 640}


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GameReview]:
    page = tmp_path_factory.mktemp("review") / "review.html"
    log = str(SAMPLES / "go-bak.jsonl")
    res = CliRunner().invoke(
        app, ["review", log, "--budget", "12", "--seed", "0", "--json", "--html", str(page)]
    )
    assert res.exit_code == 0, res.output
    return page, msgspec.json.decode(res.stdout, type=GameReview)


@pytest.fixture()
def phone(browser: Any) -> Iterator[Any]:
    g = Guarded(browser, ("file:", "data:"), viewport=PHONE)
    yield g.page()
    g.close()  # fails the test on any request beyond the file, or a script error


def test_the_review_file_marks_each_decision_and_draws_its_options_on_a_phone(
    phone: Any, reviewed: tuple[Path, GameReview]
) -> None:
    path, review = reviewed
    decisions = [d for h in review.hands for d in h.decisions]
    assert len(decisions) >= 2
    phone.goto(path.as_uri())
    phone.wait_for_selector("body.ready")
    assert phone.evaluate("document.body.dataset.review") == str(len(decisions))
    # a mark on the timeline and in the events for every decision, coloured by its grade
    marks = phone.locator("#review-marks .mark")
    assert marks.count() == len(decisions)
    for d in decisions:
        li = phone.locator(f'#events li.ev.reviewed[data-seq="{d.seq}"]')
        assert li.count() == 1 and d.grade in li.inner_text()
    # the page opens in front of the worst decision: seat 0's Go at seq 22, where Stop was best
    go = next(d for d in decisions if d.seq == 22)
    assert (go.taken, go.best) == ("go", "stop") and go.grade in ("mistake", "blunder")
    card = phone.locator('#review-now article.decision[data-seq="22"]')
    assert card.count() == 1
    assert int(phone.evaluate("document.body.dataset.seq")) == 21  # the table before the Go
    assert phone.locator("#table .seat.acting").count() == 1
    rows = card.locator("li.option")
    assert rows.count() == len(go.options)
    means = rows.evaluate_all("(els) => els.map((e) => +e.dataset.chips)")
    assert means == sorted(means, reverse=True)
    assert rows.evaluate_all("(els) => els.map((e) => e.dataset.label)") == [
        o.label for o in sorted(go.options, key=lambda o: -o.chips.mean)
    ]
    text = card.inner_text()
    assert go.grade in text and "lost" in text and "best" in text and "taken" in text
    assert f"{go.loss.mean:.1f} chips" in text
    # every option but the best says how far below the best it is
    assert f"{go.loss.mean:.1f} below the best" in rows.nth(1).inner_text()
    assert card.locator("svg.bar").count() == len(go.options)  # each option drawn
    assert card.locator("form").count() == 0  # a file offers no replay of a decision
    card.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    phone.screenshot(path=str(ARTIFACTS / "review-phone-decision.png"))
    # the next decision by its button; away from any decision, the card says how to find one
    other = next(d for d in decisions if d.seq != 22)
    phone.locator(f'#review-list button:has-text("{other.seq}")').first.click()
    phone.wait_for_selector(f'#review-now article.decision[data-seq="{other.seq}"]')
    assert int(phone.evaluate("document.body.dataset.seq")) == other.seq - 1
    phone.evaluate("window.GostopReplay.go(0)")
    assert "go to one to see its options" in phone.locator("#review-now").inner_text()
    # the luck of the hand is shown with the hand
    phone.evaluate(f"window.GostopReplay.go({phone.locator('#events li.ev').count() - 1})")
    assert "deal worth" in phone.locator("#review-luck").inner_text()
    phone.screenshot(path=str(ARTIFACTS / "review-phone-end.png"), full_page=True)


def test_the_served_review_page_is_computed_then_drawn_on_a_phone(
    browser: Any, tmp_path: Path
) -> None:
    """``/games/{id}/review`` of a game nobody reviewed: the page says it is being computed,
    looks again by itself, then draws the review in the replayer under the server's own
    Content-Security-Policy (a style or script it did not allow would be an error here)."""
    from service_helpers import KEY, Server, auth

    with Server(tmp_path / "s.duckdb") as server:
        body = (SAMPLES / "go-bak.jsonl").read_bytes()
        assert server.http.post("/api/import", content=body, headers=auth(KEY)).is_success
        g = Guarded(browser, (server.url, "data:"), viewport=PHONE)
        try:
            page = g.page()
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(server.url + "/games/sample-go-bak/review")
            page.wait_for_selector("body.ready[data-review]", timeout=300_000)
            assert page.locator("#review-marks .mark").count() == 2
            card = page.locator('#review-now article.decision[data-seq="22"]')
            assert card.count() == 1 and card.locator("svg.bar").count() == 2
            # the page's own style applies: the options are laid out as a grid
            display = card.locator("li.option").first.evaluate("(e) => getComputedStyle(e).display")
            assert display == "grid"
            assert not [e for e in errors if "Content Security Policy" in e], errors
            card.scroll_into_view_if_needed()
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "review-phone-served.png"))
        finally:
            g.close()
