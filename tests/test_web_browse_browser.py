"""The reading pages in headless Chromium: the audit page of the disputed sample shows the
payment and its first explanation, and the table's note beside the explanation it names;
the game browser filters by its form and pages; the player page shows the figures of the
SQL views; the club report opens from the disk with every request refused. Screenshots go
to tests/artifacts/ for a person to look at."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browse_support import DISPUTED, NOTED, SAMPLES, build_store, query
from browser_support import CHROMIUM, Guarded
from litestar.testing import TestClient

from gostop_records import log as L
from gostop_records.audit import audit_game
from gostop_records.audit.render import AS_NOTED, TABLE_NOTED
from gostop_records.service.app import ServiceConfig, create_app
from gostop_records.store import Store
from gostop_records.web.browse_pages import write_report_html

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
ORIGIN = "http://gostop.test"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("browse-ui") / "club.duckdb")


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient[Any]]:
    with TestClient(create_app(ServiceConfig(db=str(db)))) as c:
        yield c


@pytest.fixture()
def page(browser: Any, client: TestClient[Any]) -> Iterator[Any]:
    """A page served by the app; a request anywhere else is refused and fails the test."""

    def serve(route: Any) -> bool:
        url = route.request.url
        if not url.startswith(ORIGIN):
            return False
        r = client.get(url.removeprefix(ORIGIN).split("#")[0])
        route.fulfill(status=r.status_code, body=r.content, content_type=r.headers["content-type"])
        return True

    g = Guarded(browser, serve=serve, viewport={"width": 1280, "height": 900})
    yield g.page()
    g.close()


def _shot(pg: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / name), full_page=True)


def test_the_audit_page_shows_the_disputed_payment_and_its_first_explanation(page: Any) -> None:
    envs = list(L.read_log(SAMPLES / "disputed-payment.jsonl"))
    (payment,) = audit_game(envs, lenient=True).disagreements
    page.goto(f"{ORIGIN}/games/{DISPUTED}/audit")
    row = page.locator("tr.payment.differs")
    assert row.count() == 1
    assert row.locator("td.recorded").inner_text() == str(payment.chips)
    assert row.locator("td.computed").inner_text() == str(payment.computed)
    first = page.locator("ol.explanations li").first
    assert first.inner_text().startswith(payment.explanations[0].text)
    assert first.is_visible()
    assert "the shake does not double the payment" in page.locator("p.note").inner_text()
    assert page.locator("#verdict").inner_text().startswith("1 payment(s) differ")
    _shot(page, "audit-disputed-payment.png")
    # the payment's seq opens the replayer there
    page.locator("tr.payment.differs a.seq").first.click()
    page.wait_for_selector("body.ready")
    assert page.evaluate("+document.body.dataset.seq") == payment.seqs[0]


def test_the_audit_page_marks_the_explanation_the_table_noted(page: Any) -> None:
    envs = list(L.read_log(SAMPLES / "disputes" / "gwang_bak.jsonl"))
    (payment,) = audit_game(envs, lenient=True).disagreements
    page.goto(f"{ORIGIN}/games/{NOTED}/audit")
    assert page.locator("p.note").inner_text() == f"{TABLE_NOTED}: {payment.notes[0]}"
    items = page.locator("ol.explanations li")
    assert items.count() == len(payment.explanations)
    first = items.first
    assert first.get_attribute("class") == "matches-note"
    assert first.locator(".as-noted").inner_text() == f"({AS_NOTED})"
    assert first.locator(".as-noted").is_visible()
    assert page.locator("ol.explanations li.matches-note").count() == 1
    _shot(page, "audit-noted-payment.png")


def _listed(pg: Any) -> list[tuple[str, int]]:
    return [
        (r.get_attribute("data-game"), int(r.get_attribute("data-hand")))
        for r in pg.locator("#hands tbody tr").all()
    ]


def test_the_game_browser_filters_and_pages(page: Any, client: Any) -> None:
    page.goto(f"{ORIGIN}/games")
    total = query(client, "SELECT count(*) FROM hands")[0][0]
    matgo_stops = query(
        client,
        "SELECT h.game_id, h.hand FROM hands h JOIN games g USING (game_id) "
        "WHERE list_contains(g.player_ids, 'p1') AND h.ruleset = 'matgo' "
        "AND h.outcome = 'stop' "
        "ORDER BY h.date DESC NULLS LAST, h.started_at DESC NULLS LAST, h.game_id, h.hand",
    )
    assert page.locator("#count").get_attribute("data-total") == str(total)
    _shot(page, "games-all.png")
    page.fill("input[name=player]", "p1")
    page.select_option("select[name=ruleset]", "matgo")
    page.select_option("select[name=outcome]", "stop")
    page.click("button[type=submit]")
    page.wait_for_load_state()
    assert page.locator("#count").get_attribute("data-total") == str(len(matgo_stops))
    assert _listed(page) == [tuple(r) for r in matgo_stops[:50]]
    # disputed only, on top of the rest: the two disputed hands
    page.check("input[name=disputed]")
    page.click("button[type=submit]")
    page.wait_for_load_state()
    assert sorted(_listed(page)) == sorted([(DISPUTED, 1), (NOTED, 1)])
    assert page.locator("tr.disputed a.flag").all_inner_texts() == ["disputed", "disputed"]
    _shot(page, "games-disputed.png")
    # paging: 5 a page, next and back
    page.goto(f"{ORIGIN}/games?per_page=5")
    first = _listed(page)
    page.click("a[rel=next]")
    page.wait_for_load_state()
    second = _listed(page)
    assert len(first) == len(second) == 5 and not set(first) & set(second)
    page.click("a[rel=prev]")
    page.wait_for_load_state()
    assert _listed(page) == first
    # a bad date typed into the address: the reason on the page
    page.goto(f"{ORIGIN}/games?from=2026-02-30")
    assert "is not a date" in page.locator("#error").inner_text()
    _shot(page, "games-bad-filter.png")


def test_the_player_page_shows_the_views_figures(page: Any, client: Any) -> None:
    cols = ["hands", "games", "wins", "chips", "avg_chips", "recorded_chips", "gos", "gos_paid_off"]
    (row,) = query(client, f"SELECT {', '.join(cols)} FROM v_player_stats WHERE player_id = 'p1'")
    (specials,) = query(
        client,
        "SELECT ppuk_made, ppuk_suffered, jjok_made, jjok_suffered FROM v_player_stats "
        "WHERE player_id = 'p1'",
    )
    (gos,) = query(client, "SELECT count(DISTINCT score) FROM v_player_gos WHERE player_id = 'p1'")
    page.goto(f"{ORIGIN}/players")
    page.click("#players a[href='/players/p1']")
    page.wait_for_load_state()
    shown = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('[data-figure]')]"
        ".map((d) => [d.dataset.figure, d.textContent]))"
    )
    assert shown == {c: str(v) for c, v in zip(cols, row, strict=True)}
    kinds = page.evaluate(
        "() => ['ppuk', 'jjok'].flatMap((k) => {"
        "  const r = document.querySelector(`#specials tr[data-kind=${k}]`);"
        "  return [+r.querySelector('[data-made]').textContent,"
        "          +r.querySelector('[data-suffered]').textContent]; })"
    )
    assert tuple(kinds) == tuple(specials)
    charts = page.locator("svg.chart")
    assert charts.count() == 3
    assert page.locator("svg[data-chart=bars] rect[data-series=called]").count() == gos[0]
    box = charts.first.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 100
    _shot(page, "player-p1.png")
    ctx = page.context
    phone = ctx.browser.new_context(viewport={"width": 360, "height": 740})
    phone.route("**/*", lambda route: route.abort())
    phone_page = phone.new_page()
    phone_page.set_content(page.content())
    _shot(phone_page, "player-p1-phone.png")
    phone.close()


def test_the_report_opens_from_the_disk_with_no_request(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "club.html"
    with Store(build_store(tmp_path / "report.duckdb"), read_only=True) as store:
        write_report_html(store, out)
        names = [
            r[0] for r in store.conn.execute("SELECT player_name FROM v_player_stats").fetchall()
        ]
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    asked: list[str] = []

    def guard(route: Any) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    ctx.route("**/*", guard)
    pg = ctx.new_page()
    pg.goto(out.as_uri())
    headings = pg.locator("h2.player-heading").all_inner_texts()
    assert sorted(h.split(" ")[0:2] for h in headings) == sorted(n.split(" ")[0:2] for n in names)
    assert pg.locator("svg.chart").count() == 3 * len(names)
    _shot(pg, "club-report.png")
    ctx.close()
    assert not asked, asked
