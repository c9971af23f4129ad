"""/play in a real browser (headless Chromium through Playwright) against ``gostop serve``:
a whole CARDAVIA hand played by taps on a phone, stored as a strictly valid game paid as the
audit says, its deal commitment verified by the page; a refused tap changes nothing; a hand
by keys alone on a desktop; the display controls kept per browser; the strong bot and a
3-player preset. Screenshots at 360x640 and 1280x800 go to tests/artifacts/."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, Guarded
from service_helpers import Server

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.validate import validate_envelopes

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 360, "height": 640}
DESKTOP = {"width": 1280, "height": 800}
#: A seeded greedy computer, and no pause between the frames of its turn.
SEEDED = "/play?bot=greedy&seed={seed}&pace=0"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("webplay") / "store.duckdb") as s:
        yield s


@pytest.fixture()
def open_page(browser: Any, server: Server) -> Iterator[Any]:
    """Pages that may ask only the server; script errors and other requests fail the test."""
    made: list[Guarded] = []

    def make(viewport: dict[str, int]) -> Any:
        g = Guarded(browser, (server.url, "data:"), viewport=viewport)
        made.append(g)
        return g.page()

    yield make
    for g in made:
        g.close()


def settle(page: Any) -> str:
    """Wait until the page waits for the player or shows the end; which of the two."""
    page.wait_for_function(
        "() => ['ready', 'over'].includes(document.body.dataset.state)", timeout=30_000
    )
    return str(page.evaluate("document.body.dataset.state"))


def stop_pays_said(page: Any) -> None:
    """Go or Stop is asked with what a Stop pays, in the proof's own words (its lines, the
    player told as "you")."""
    said = page.inner_text(".stop-pays")
    assert said.startswith("A Stop pays now: ") and " pays you " in said, said


def tap_first(page: Any) -> None:
    """Tap the first thing offered: a choice, else a playable hand card."""
    page.locator("#choices button:not(.plain), #hand button:not([disabled])").first.click()


def by_taps(page: Any) -> None:
    """Play the hand to its end by tapping the first thing offered each time."""
    for _ in range(100):
        if settle(page) == "over":
            return
        if page.evaluate("document.body.dataset.step") == "decide":
            stop_pays_said(page)
        tap_first(page)
    raise AssertionError("the hand did not end")


def by_keys(page: Any) -> None:
    """Play the hand to its end with the keyboard only."""
    arrows = False
    for _ in range(100):
        if settle(page) == "over":
            return
        step = page.evaluate("document.body.dataset.step")
        if step == "play" and not arrows:  # once: move along the hand and press Enter
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowLeft")
            page.keyboard.press("Enter")
            arrows = True
        elif step == "play":
            key = page.locator("#hand button:not([disabled])").first.get_attribute("data-key")
            page.keyboard.press(key)
        elif step in ("choose", "flip"):
            page.keyboard.press("1")
        elif step == "decide":
            stop_pays_said(page)
            page.keyboard.press("s")
        elif step == "cup":
            page.keyboard.press("j")
        else:
            raise AssertionError(f"nothing to press at {step}")
    raise AssertionError("the hand did not end")


def check_stored(server: Server, page: Any) -> dict[str, Any]:
    """The stored game is strictly valid and paid as the audit computes; the page's proof
    says the same amounts; its replay link opens the replayer."""
    gid = page.evaluate("document.body.dataset.game")
    lines = server.http.get(f"/api/games/{gid}/events").content.splitlines()
    envs = [L.decode_json_line(line) for line in lines if line.strip()]
    report = validate_envelopes(envs)
    assert not report.errors and report.games == 1, report.errors
    audit = server.http.get(f"/api/games/{gid}/audit").json()
    (hand,) = [h for h in audit["hands"] if h["outcome"] != "void"]
    assert hand["ok"], hand
    paid = {(p["payer"], p["payee"]): p["chips"] for p in hand["payments"]}
    assert paid == {(p["payer"], p["payee"]): p["computed"] for p in hand["payments"]}
    shown = {
        int(el.get_attribute("data-loser")): int(
            el.locator(".chips").get_attribute("data-chips") or -1
        )
        for el in page.locator("#end .loser").all()
    }
    if hand["outcome"] == "stop":
        assert shown == {payer: chips for (payer, _), chips in paid.items()}
    href = page.locator("#replay-link").get_attribute("href")
    assert href == f"/games/{gid}/replay"
    assert server.http.get(href).status_code == 200
    return {"gid": gid, "audit": audit}


def test_a_cardavia_hand_by_taps_on_a_phone(open_page: Any, server: Server) -> None:
    page = open_page(PHONE)
    page.goto(server.url + SEEDED.format(seed=21))
    assert settle(page) == "ready"
    assert "greedy" in page.locator("#facing").inner_text()
    promised = page.locator("#commitment").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play-phone-start.png"))
    by_taps(page)
    page.wait_for_selector(".reveal[data-verified]:not([data-verified=pending])")
    reveal = page.locator(".reveal").last
    assert reveal.get_attribute("data-verified") == "yes"
    assert promised in reveal.inner_text()
    assert "verified" in reveal.inner_text()
    page.locator("#end").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "play-phone-end.png"))
    page.screenshot(path=str(ARTIFACTS / "play-phone-end-full.png"), full_page=True)
    check_stored(server, page)
    page.click("#replay-link")
    page.wait_for_selector("#table .seat")
    assert page.title().startswith("Replay of")


def test_a_refused_tap_changes_nothing(open_page: Any, server: Server) -> None:
    page = open_page(DESKTOP)
    page.goto(server.url + SEEDED.format(seed=21))
    assert settle(page) == "ready"
    assert page.evaluate("document.body.dataset.step") == "play"
    hand_id = page.evaluate("new URLSearchParams(location.hash.slice(1)).get('hand')")
    before = server.http.get(f"/api/play/{hand_id}").json()["view"]
    mine = page.locator("#hand .hand-card").evaluate_all("(els) => els.map((e) => e.dataset.code)")
    target = page.locator("#layout .card").first
    code = target.get_attribute("data-code")
    assert code not in mine
    target.click()
    page.wait_for_selector("#message:not([hidden])")
    message = page.locator("#message").inner_text()
    assert f"{code} is not in your hand" in message and "face up on the layout" in message
    assert settle(page) == "ready"
    after = server.http.get(f"/api/play/{hand_id}").json()["view"]
    assert after == before
    assert page.evaluate("+document.body.dataset.version") == before["version"]
    assert (
        page.locator("#hand .hand-card").evaluate_all("(els) => els.map((e) => e.dataset.code)")
        == mine
    )
    # the next tap of a card that is yours is taken, and the refusal goes away
    page.locator("#hand button:not([disabled])").first.click()
    settle(page)
    assert page.locator("#message").is_hidden()
    assert page.evaluate("+document.body.dataset.version") > before["version"]


def test_a_hand_by_keys_alone_on_a_desktop(open_page: Any, server: Server) -> None:
    page = open_page(DESKTOP)
    page.goto(server.url + SEEDED.format(seed=8))
    assert settle(page) == "ready"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play-desktop-start.png"))
    by_keys(page)
    page.wait_for_selector(".reveal[data-verified=yes]")
    page.screenshot(path=str(ARTIFACTS / "play-desktop-end.png"))
    check_stored(server, page)
    played = page.evaluate("document.body.dataset.game")
    page.keyboard.press("n")  # a new hand, still by keys
    page.wait_for_function(
        "(g) => document.body.dataset.game !== g && document.body.dataset.state !== 'busy'",
        arg=played,
    )


def test_the_display_controls_are_kept_per_browser(open_page: Any, server: Server) -> None:
    page = open_page(PHONE)
    page.goto(server.url + SEEDED.format(seed=3))
    settle(page)
    page.click("#display summary")
    for name, value in (("contrast", 80), ("grain", 10), ("warmth", 90)):
        page.eval_on_selector(
            f"#{name}",
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }",
            value,
        )
    page.screenshot(path=str(ARTIFACTS / "play-phone-display.png"))
    page.reload()
    settle(page)
    kept = page.evaluate(
        "['contrast', 'grain', 'warmth'].map((k) => +document.getElementById(k).value)"
    )
    assert kept == [80, 10, 90]
    style = page.evaluate(
        "() => { const s = getComputedStyle(document.documentElement);"
        " return [s.getPropertyValue('--contrast'), s.getPropertyValue('--tint')]; }"
    )
    assert float(style[0]) == pytest.approx(1.24) and "255, 160, 60" in style[1]
    # the page's own SHA-256 (for phones reaching the server over plain http) is SHA-256
    for text in ("", "abc", "salt 01G 01R " * 40):
        digest = page.evaluate("(t) => window.GostopPlay.sha256js(t)", text)
        assert digest == hashlib.sha256(text.encode()).hexdigest()


def test_the_strong_bot_by_default_and_two_computers_in_gostop3(
    open_page: Any, server: Server
) -> None:
    page = open_page(PHONE)
    page.goto(server.url + "/play?pace=0")
    settle(page)
    assert "the strong bot" in page.locator("#facing").inner_text()
    assert page.locator("#ruleset").input_value() == "cardavia"
    page.select_option("#ruleset", "gostop3")
    page.select_option("#bot", "beginner")  # the level that plays at random
    page.click("#new-hand-button")
    page.wait_for_function("() => document.querySelectorAll('#opponents .seat').length === 2")
    settle(page)
    assert "you against two beginner bots" in page.locator("#facing").inner_text()
    assert "ruleset=gostop3" in page.url and "bot=beginner" in page.url
    page.screenshot(path=str(ARTIFACTS / "play-phone-gostop3.png"), full_page=True)


def test_a_bomb_and_a_flip_only_turn_are_buttons(open_page: Any, server: Server) -> None:
    page = open_page(PHONE)
    page.goto(server.url + "/play?ruleset=matgo&bot=random&seed=17&pace=0")
    assert settle(page) == "ready"
    bomb = page.locator("#choices button.extra[data-kind=bomb]")
    assert bomb.get_attribute("data-month") == "8"
    page.screenshot(path=str(ARTIFACTS / "play-phone-bomb.png"))
    bomb.click()
    settle(page)
    assert "you bomb month 08" in page.locator("#log").inner_text()
    page.locator("#choices button.extra[data-kind=flip_only]").click()
    settle(page)
    assert "you play no card (a flip-only turn)" in page.locator("#log").inner_text()


def test_a_matgo_game_goes_on_to_the_next_hand(open_page: Any, server: Server) -> None:
    page = open_page(DESKTOP)
    page.goto(server.url + "/play?ruleset=matgo&bot=greedy&seed=5&pace=0")
    by_taps(page)
    gid = page.evaluate("document.body.dataset.game")
    assert "After 1 hand of this game" in page.locator("#ledger").inner_text()
    assert page.locator("#again").inner_text().startswith("New game")
    page.locator("#next-hand").click()  # the button here, the key for the third hand
    assert settle(page) == "ready"
    assert page.locator("#end").is_hidden()
    assert page.locator("#commit .hash").count() == 1  # only the deal in play is committed
    by_taps(page)
    assert page.evaluate("document.body.dataset.game") == gid
    assert "After 2 hands of this game" in page.locator("#ledger").inner_text()
    # the end of a hand lists its own payments, not the earlier hands'
    paid = page.locator("#end .paid li").all_inner_texts()
    assert paid and all(line in page.locator("#log").inner_text() for line in paid)
    assert len(paid) == 1, paid
    page.screenshot(path=str(ARTIFACTS / "play-matgo-second-hand.png"), full_page=True)
    lines = server.http.get(f"/api/games/{gid}/events").content.splitlines()
    envs = [L.decode_json_line(line) for line in lines if line.strip()]
    assert not validate_envelopes(envs).errors
    assert sum(isinstance(e.event, E.HandStarted) for e in envs) == 2
    page.keyboard.press("h")  # the key deals the third hand of the same game
    assert settle(page) == "ready"
    assert page.evaluate("document.body.dataset.game") == gid


def test_go_or_stop_is_asked_with_what_a_stop_pays(open_page: Any, server: Server) -> None:
    """Seed 1, tapping the first thing offered, reaches a Go or Stop for the player."""
    page = open_page(DESKTOP)
    page.goto(server.url + SEEDED.format(seed=1))
    for _ in range(100):
        assert settle(page) == "ready", "the hand ended before Go or Stop was asked"
        if page.evaluate("document.body.dataset.step") == "decide":
            stop_pays_said(page)
            return
        tap_first(page)
    raise AssertionError("Go or Stop was never asked")
