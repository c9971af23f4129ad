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


def recorder_at_play(contexts: Any, server: Server, seed: int = 5) -> tuple[Any, str, list[str]]:
    """A matgo game of Ann and Ben dealt from the API, its recorder open on a phone at the
    first play; the hand's lines (hidden hands) after the deal."""
    lines = script_for(sim_payloads("matgo", 2, seed), hidden=True)
    r = server.http.post(
        "/api/games", json={"players": ["Ann", "Ben"], "ruleset": "matgo"}, headers=auth(KEY)
    )
    gid, token = r.json()["game_id"], r.json()["recorder_token"]
    v = server.http.get(f"/api/games/{gid}/now").json()["version"]
    r = server.http.post(
        f"/api/games/{gid}/entries",
        json={"entry": lines[0], "expected_version": v},
        headers=auth(token),
    )
    assert r.status_code == 201, r.text
    ctx = contexts(viewport=PHONE, has_touch=True, is_mobile=True)
    page = ctx.page()
    page.goto(f"{server.url}/games/{gid}/record#token={token}")
    page.wait_for_selector("body.ready")
    return page, gid, lines[1:]


def inputs_of(server: Server, gid: str) -> list[str]:
    from gostop_records.notation import text

    skip = (E.GameStarted, E.KeyAdded, E.CheckpointSigned, E.ResultCountersigned)
    return [text(e) for e in events_of(server, gid) if E.is_input(e) and type(e) not in skip]


def test_the_step_stays_on_screen_and_the_pickers_say_played_or_flipped(
    contexts: Any, server: Server
) -> None:
    page, gid, lines = recorder_at_play(contexts, server, seed=2)
    play, flip = lines[0].split(), lines[1].split()
    assert play[0] == "play" and flip[0] == "flip" and len(play) == 2
    v = version(page)
    assert page.inner_text("#step") == "1 · CARD PLAYED"
    assert page.get_attribute("#picker-box", "data-verb") == "play"
    assert page.inner_text("#picker-title").startswith("PLAYED Ann")
    play_colour = page.eval_on_selector("#picker-box", "e => getComputedStyle(e).borderTopColor")
    bar_play = page.eval_on_selector("#step-bar", "e => getComputedStyle(e).backgroundColor")
    # scrolled down to the bottom of the picker, the step is still at the top of the screen
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    assert page.eval_on_selector("#step-bar", "e => e.getBoundingClientRect().top") <= 1
    shot(page, "recorder-play-step-phone")
    # a plain turn is two taps: the card played, then the card flipped
    taps = 0
    page.click(f"#picker button[data-verb='play'][data-code='{play[1]}']")
    taps += 1
    v = settled(page, v)
    assert page.inner_text("#step") == "2 · CARD FLIPPED"
    assert page.inner_text("#picker-title").startswith("FLIPPED Ann")
    flip_colour = page.eval_on_selector("#picker-box", "e => getComputedStyle(e).borderTopColor")
    bar_flip = page.eval_on_selector("#step-bar", "e => getComputedStyle(e).backgroundColor")
    assert play_colour != flip_colour and bar_play != bar_flip
    # the card just entered, with an Undo, for a few seconds
    assert page.is_visible("#toast")
    assert f"Ann played {play[1]}" in page.inner_text("#toast")
    shot(page, "recorder-flip-step-toast-phone")
    page.click(f"#picker button[data-verb='flip'][data-code='{flip[1]}']")
    taps += 1
    if page.locator("#choice").count():
        page.click(f"#choice button[data-choose='{flip[2]}']")
    settled(page, v)
    assert taps == 2
    assert inputs_of(server, gid)[-2:] == [lines[0], lines[1]]


def test_the_toast_undoes_the_card_just_entered(contexts: Any, server: Server) -> None:
    page, gid, lines = recorder_at_play(contexts, server, seed=2)
    v = version(page)
    card = lines[0].split()[1]
    page.click(f"#picker button[data-verb='play'][data-code='{card}']")
    v = settled(page, v)
    page.click("#toast-undo")
    settled(page, v)
    assert page.get_attribute("body", "data-waiting") == "play"
    made = inputs_of(server, gid)
    assert made[-2] == lines[0] and made[-1].startswith("undo @")
    assert page.is_hidden("#toast")


def test_a_tap_the_step_does_not_expect_is_asked_first(contexts: Any, server: Server) -> None:
    page, gid, lines = recorder_at_play(contexts, server, seed=2)
    v = version(page)
    before = inputs_of(server, gid)
    # flip-only and undo are off the turn's path: each asks, and Cancel records nothing
    page.click("#undo")
    assert page.is_visible("#confirm")
    assert "Undo" in page.inner_text("#confirm")
    shot(page, "recorder-confirm-phone")
    page.click("#confirm-no")
    assert page.is_hidden("#confirm")
    # a double tap on a phone: the flip picker is drawn under the finger; a card there would
    # be asked about, and the slot of the card played stays empty
    card = lines[0].split()[1]
    target = page.locator(f"#picker button[data-verb='play'][data-code='{card}']")
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.touchscreen.tap(x, y)
    under = page.evaluate(
        "([x, y]) => { const b = document.elementFromPoint(x, y);"
        " const p = b && b.closest('button'); return p ? p.dataset.verb || '' : ''; }",
        [x, y],
    )
    page.touchscreen.tap(x, y)
    if under == "flip":
        page.wait_for_selector("#confirm:not([hidden])")
        assert "right after the last one" in page.inner_text("#confirm")
        page.click("#confirm-no")
    settled(page, v)
    assert inputs_of(server, gid) == [*before, lines[0]]
    assert page.get_attribute("body", "data-waiting") == "flip"
    # the card played left its slot empty: the second tap falls on no card at all
    assert under == ""
    # had it fallen on a card (the second click of a double click), it is asked about
    flip = lines[1].split()[1]
    page.dispatch_event(
        f"#picker button[data-verb='flip'][data-code='{flip}']", "click", {"detail": 2}
    )
    page.wait_for_selector("#confirm:not([hidden])")
    assert f"flip {flip}" in page.inner_text("#confirm")
    page.click("#confirm-no")
    assert inputs_of(server, gid) == [*before, lines[0]]


def test_a_question_opens_as_a_sheet_at_the_thumb(contexts: Any, server: Server) -> None:
    page, _gid, lines = recorder_at_play(contexts, server)
    # seed 5's first play takes one of two layout cards: the choice opens at the bottom
    play = lines[0].split()
    assert len(play) == 3
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.click(f"#picker button[data-verb='play'][data-code='{play[1]}']")
    page.wait_for_selector("#choice")
    box = page.locator("#choice").bounding_box()
    assert box["y"] + box["height"] <= PHONE["height"] + 1
    assert box["y"] >= PHONE["height"] / 3, "the question opens in the lower part of the screen"
    shot(page, "recorder-choice-sheet-phone")
    page.click(f"#choice button[data-choose='{play[2]}']")
    page.wait_for_function("() => !document.querySelector('#choice')")


def test_the_unseen_cards_fit_a_phone_in_fixed_slots(contexts: Any, server: Server) -> None:
    page, _gid, lines = recorder_at_play(contexts, server, seed=2)
    v = version(page)
    card = lines[0].split()[1]
    page.click(f"#picker button[data-verb='play'][data-code='{card}']")
    settled(page, v)
    page.locator("#picker-box").scroll_into_view_if_needed()
    fit = page.evaluate(
        """() => {
        const pick = document.getElementById('picker');
        const buttons = [...pick.querySelectorAll('button.pick')];
        const r = pick.getBoundingClientRect();
        return {
          page: document.documentElement.scrollWidth,
          right: Math.max(...buttons.map((b) => b.getBoundingClientRect().right)),
          height: r.height,
          narrowest: Math.min(...buttons.map((b) => b.getBoundingClientRect().width)),
          shortest: Math.min(...buttons.map((b) => b.getBoundingClientRect().height)),
          slots: pick.querySelectorAll('.slot').length,
        };
    }"""
    )
    assert fit["page"] <= PHONE["width"] and fit["right"] <= PHONE["width"]
    # every unseen card on one screen's height, each big enough for a finger
    assert fit["height"] <= PHONE["height"] - 60, fit
    assert fit["narrowest"] >= 36 and fit["shortest"] >= 44, fit
    # the cards seen (the layout, the card played) leave their slots empty: nothing moves
    assert fit["slots"] >= 9
    shot(page, "recorder-unseen-grid-phone")


def test_the_payment_opens_in_view_after_the_stop(contexts: Any, server: Server) -> None:
    page, gid, lines = recorder_at_play(contexts, server)
    token = page.evaluate(f"() => localStorage.getItem('gostop.token.{gid}')")
    stop = lines.index("stop")
    for line in lines[:stop]:
        v = server.http.get(f"/api/games/{gid}/now").json()["version"]
        r = server.http.post(
            f"/api/games/{gid}/entries",
            json={"entry": line, "expected_version": v},
            headers=auth(token),
        )
        assert r.status_code == 201, r.text
    page.reload()
    page.wait_for_selector("body.ready")
    v = version(page)
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    # Go or Stop is a sheet at the bottom, under the thumb
    box = page.locator("#decide").bounding_box()
    assert box["y"] + box["height"] <= PHONE["height"] + 1
    shot(page, "recorder-decide-sheet-phone")
    page.click("#controls button.stop")
    settled(page, v)
    assert page.get_attribute("body", "data-step") == "pay"
    page.wait_for_function(
        "() => { const r = document.getElementById('pay').getBoundingClientRect();"
        " return r.top >= 0 && r.top < innerHeight; }"
    )
    shot(page, "recorder-pay-in-view-phone")


def test_the_toast_drops_an_entry_not_sent_yet(contexts: Any, server: Server) -> None:
    page, gid, lines = recorder_at_play(contexts, server, seed=2)
    before = inputs_of(server, gid)
    page.context.set_offline(True)
    card = lines[0].split()[1]
    page.click(f"#picker button[data-verb='play'][data-code='{card}']")
    page.wait_for_selector("#pending li")
    page.click("#toast-undo")
    assert page.locator("#pending li").count() == 0
    assert f"Not sent, undone: play {card}" in page.inner_text("#message")
    page.context.set_offline(False)
    page.wait_for_timeout(500)
    assert inputs_of(server, gid) == before
    assert page.get_attribute("body", "data-step") == "play"
