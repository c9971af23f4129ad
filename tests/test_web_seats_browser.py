"""The web recorder at a table of four, in a real browser against ``gostop serve``:
the chips each player brings, the draw for the first dealer, who sits out and a sale of
brights are tapped, sent as the table grammar's lines to the entries API, and the hand then
recorded by taps equals the simulated one; a refusal shows the service's reason. The live
table and the replayer say who sits out and what was sold. Screenshots go to tests/artifacts/
at phone and desktop size."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, Guarded, guarded_contexts
from record_helpers import command_of
from service_helpers import KEY, Server, auth

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.rules import PRESETS, apply_overrides
from gostop_records.sim.selfplay import GameSpec, play_payloads

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 360, "height": 640}
DESKTOP = {"width": 1280, "height": 800}
NAMES = ["Ann", "Ben", "Cho", "Dan"]
FIELDS = {"sit_out": "choice", "gwang_price": 5, "chip_limit": "holdings", "first_dealer": "draw"}
RULES = apply_overrides(PRESETS["gostop3"], {"name": "four-choice", **FIELDS}, "test")
#: A simulated hand of four (seed 10): Ann sits out and sells 01G, no shake or bomb.
SEED = 10


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("webseats") / "store.duckdb") as s:
        yield s


@pytest.fixture()
def contexts(browser: Any, server: Server) -> Iterator[Any]:
    yield from guarded_contexts(browser, server.url)


def sim() -> list[Any]:
    return [p for _, p in play_payloads(GameSpec(RULES, 4, hands=1, seed=SEED))]


def phone_shot(page: Any, name: str) -> None:
    """A screenshot of a step on the phone, once the page is checked to fit its width."""
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name}: the page is {width} px wide on a 360 px phone"
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def settled(page: Any, after: int) -> int:
    page.wait_for_function(
        "(v) => +document.body.dataset.version > v && !document.querySelector('#pending li')",
        arg=after,
        timeout=10_000,
    )
    return int(page.evaluate("() => +document.body.dataset.version"))


def words(locator: Any) -> str:
    """A block's text on one line, however the layout breaks it."""
    return " ".join(locator.inner_text().split())


def version(page: Any) -> int:
    return int(page.evaluate("() => +document.body.dataset.version || 0"))


def tap(page: Any, ev: Any, started: E.HandStarted | None) -> None:
    """Enter one input of the simulated hand by tapping, as a live table sees it."""
    t = type(ev)
    if t is E.ChipsCounted:
        for s, n in enumerate(ev.chips):
            page.fill(f"#chips-{s}", str(n))
        page.click("#chips-record")
    elif t is E.DealerDrawn:
        for d in ev.draws:
            page.click(f"#picker button[data-draw][data-code='{d.card}']")
        page.click(f"#draw button[data-draw-when='{'night' if ev.night else 'day'}']")
    elif t is E.CardsDealt:
        assert started is not None
        for s in range(4):
            if s not in started.order:
                page.click(f"#sit-out button[data-out-seat='{s}']")
        for code in [*ev.bonus_to_pile, *ev.layout]:
            page.click(f"#picker button[data-deal][data-code='{code}']")
        page.click("#deal-record")
    elif t is E.BrightsSold:
        for code in ev.cards:
            page.click(f".sale[data-seller='{ev.seat}'] button[data-sell][data-code='{code}']")
        page.click(f"button[data-sell-record='{ev.seat}']")
    elif t is E.CardPlayed or t is E.CardFlipped:
        verb = "play" if t is E.CardPlayed else "flip"
        page.click(f"#picker button[data-verb='{verb}'][data-code='{ev.card}']")
        if page.locator("#choice").count():
            page.click(f"#choice button[data-choose='{ev.chosen}']")
    elif t is E.GoCalled:
        page.click("#controls button.go")
    elif t is E.StopCalled:
        page.click("#controls button.stop")
    elif t is E.PaymentRecorded:
        if page.locator("#pay-record").count():
            page.click("#pay-record")  # every due at once, as due
    else:
        raise AssertionError(f"no taps for {command_of(ev)!r}")


def inputs(events: list[Any]) -> list[Any]:
    """The input payloads as a live table records them: no deck, the hands unseen."""
    out = []
    for ev in events:
        if not E.is_input(ev) or type(ev) in (E.GameStarted, E.KeyAdded, E.CheckpointSigned):
            continue
        if type(ev) is E.HandStarted:
            ev = E.HandStarted(hand=ev.hand, dealer=ev.dealer, order=ev.order)
        if type(ev) is E.CardsDealt:
            ev = E.CardsDealt(
                hands=[None] * 4, layout=ev.layout, stock=None, bonus_to_pile=ev.bonus_to_pile
            )
        out.append(ev)
    return out


def test_a_hand_of_four_with_a_sale_recorded_by_taps(contexts: Any, server: Server) -> None:
    payloads = sim()
    r = server.http.post(
        "/api/games",
        json={"players": NAMES, "ruleset": {"base": "gostop3", **FIELDS}},
        headers=auth(KEY),
    )
    assert r.status_code == 201, r.text
    gid, token = r.json()["game_id"], r.json()["recorder_token"]
    ARTIFACTS.mkdir(exist_ok=True)
    rec_ctx = contexts(viewport=PHONE, has_touch=True, is_mobile=True)
    rec = rec_ctx.page()
    rec.goto(f"{server.url}/games/{gid}/record#token={token}")
    rec.wait_for_selector("body.ready")
    rec.wait_for_selector("#chips")
    phone_shot(rec, "seats-chips-phone")

    # a count the service refuses: its reason is shown, nothing is recorded
    v = version(rec)
    for s in range(4):
        rec.fill(f"#chips-{s}", "-5" if s == 3 else "50")
    rec.click("#chips-record")
    rec.wait_for_selector("#message.refusal")
    assert "'-5': a number of chips is 0 or more" in rec.inner_text("#message")
    assert version(rec) == v
    rec.click("#dismiss")

    started: E.HandStarted | None = None
    shown: set[str] = set()  # a screenshot of each kind of step, the first time it comes
    for ev in payloads:
        if not E.is_input(ev) or type(ev) is E.GameStarted:
            continue
        if type(ev) is E.HandStarted:
            started = ev
            continue  # the deal starts the hand, with who sits out
        before = version(rec)
        if type(ev) is E.CardsDealt:
            assert rec.inner_text("#sit-out").startswith("Who sits out this hand? Tap 1")
            phone_shot(rec, "seats-deal-phone")
        if type(ev) is E.BrightsSold:
            rec.wait_for_selector(".sale")
            phone_shot(rec, "seats-sale-phone")
            desk = contexts(viewport=DESKTOP).page()  # the same recorder on a laptop
            desk.goto(f"{server.url}/games/{gid}/record#token={token}")
            desk.wait_for_selector(".sale")
            desk.screenshot(path=str(ARTIFACTS / "seats-sale-desktop.png"))
            desk.close()
        if type(ev) is E.PaymentRecorded and not rec.locator("#pay-record").count():
            continue  # the one tap recorded every due
        step = f"seats-step-{type(ev).__name__}-phone"
        if step not in shown:
            shown.add(step)
            phone_shot(rec, step)
        tap(rec, ev, started)
        settled(rec, before)
        if type(ev) is E.DealerDrawn:
            assert "Hand 1: the deal (dealer Cho)" in rec.inner_text("#prompt")
        if type(ev) is E.BrightsSold:
            seat = rec.locator("#seats section.seat[data-seat='0']")
            assert words(seat) == (
                "Ann sits out this hand 65 chips sold 1 bright: 5 chips from each player (5 pt)"
            )
            phone_shot(rec, "seats-sold-phone")

    lines = server.http.get(f"/api/games/{gid}/events").text.splitlines()
    assert inputs([L.decode_json_line(x).event for x in lines]) == inputs(payloads)

    # the live table and the replayer say who sits out and what was sold
    for size, view in (("phone", PHONE), ("desktop", DESKTOP)):
        live = contexts(viewport=view).page()
        live.goto(f"{server.url}/games/{gid}")
        live.wait_for_selector("body.ready")
        sitter = live.locator("section.seat[data-seat='0']")
        assert words(sitter).startswith("Ann sits out this hand")
        assert "sold 1 bright: 5 chips from each player" in words(sitter)
        if view is PHONE:
            phone_shot(live, "seats-live-phone")
        else:
            live.screenshot(path=str(ARTIFACTS / f"seats-live-{size}.png"), full_page=True)
        rp = contexts(viewport=view).page()
        rp.goto(f"{server.url}/games/{gid}/replay")
        rp.wait_for_selector("#table section.seat")
        out = rp.locator("#table section.seat[data-out='true']")
        assert out.count() == 1
        assert words(out).startswith("Ann sits out")
        assert "sold 1 bright: 5 chips from each player (5 pts)" in words(out)
        rp.screenshot(path=str(ARTIFACTS / f"seats-replay-{size}.png"))


def test_the_replay_file_of_the_sample_shows_who_sits_out(browser: Any, tmp_path: Path) -> None:
    """The self-contained replay file of samples/four-seats.jsonl, opened from the disk."""
    from gostop_cli.app import app
    from typer.testing import CliRunner

    html = tmp_path / "four.html"
    sample = Path(__file__).resolve().parents[1] / "samples" / "four-seats.jsonl"
    result = CliRunner().invoke(app, ["replay", str(sample), "--html", str(html)])
    assert result.exit_code == 0, result.output
    g = Guarded(browser, ("file:", "data:"), viewport=PHONE)
    page = g.page()
    try:
        page.goto(html.as_uri())
        out = page.locator("#table section.seat[data-out='true']")
        out.wait_for()
        assert words(out) == (
            "Ann sits out sold 1 bright: 50 chips from each player (5 pts) 350 chips held"
        )
        # the three players of the hand are drawn as players, Ann only in the strip
        assert page.locator("#table section.seat:not([data-out])").count() == 3
        page.screenshot(path=str(ARTIFACTS / "seats-replay-file-phone.png"))
    finally:
        g.close()
