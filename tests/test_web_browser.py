"""The replayer in a real browser (headless Chromium through Playwright): the table it draws
at each seq is the projector's (``gostop replay --json --at SEQ``), it steps by event and by
turn, opens at a deep link, and the ``--html`` file works from the disk with every network
request refused. Screenshots are kept in tests/artifacts/ for a person to look at."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, Guarded
from gostop_cli.app import app
from typer.testing import CliRunner

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.replay import timeline
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_game
from gostop_records.web import cards as W
from gostop_records.web import replay_data as R

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

# what the page shows, read back from its DOM
TABLE_JS = """() => {
  const codes = (el, sel) => [...el.querySelectorAll(sel)].map((c) => c.dataset.code);
  const stock = document.querySelector('.stock-count');
  return {
    seq: +document.body.dataset.seq,
    layout: [...document.querySelectorAll('#layout .month')].map(
      (m) => [+m.dataset.month, codes(m, '.card[data-code]').sort()]),
    stock: stock ? +stock.dataset.count : null,
    seats: [...document.querySelectorAll('.seat')]
      .map((s) => ({
        seat: +s.dataset.seat,
        hand: codes(s, '.hand .card[data-code]'),
        unknown: +((s.querySelector('.hand [data-unknown]') || {dataset: {unknown: 0}})
          .dataset.unknown),
        piles: Object.fromEntries([...s.querySelectorAll('.pile')].map(
          (p) => [p.dataset.kind, codes(p, '.card[data-code]')])),
        score: +s.querySelector('.score-total').textContent,
      }))
      .sort((a, b) => a.seat - b.seat),
  };
}"""


def expected(state: dict[str, Any]) -> dict[str, Any]:
    """The same reading of a ``replay --json`` table."""
    h = state["hand"]
    return {
        "seq": state["seq"],
        "layout": [[m["month"], sorted(m["cards"])] for m in h["layout"]],
        "stock": h["stock_count"],
        "seats": [
            {
                "seat": s["seat"],
                "hand": s["hand_known"],
                "unknown": s["hand_unknown"],
                "piles": s["pile"],
                "score": s["score"],
            }
            for s in h["seats"]
        ],
    }


# the browser: one Chromium for the run, conftest.browser


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A two-hand matgo game (bonus cards, shakes, Go) written as a log and as --html."""
    folder = tmp_path_factory.mktemp("replay")
    envs = play_game(GameSpec(PRESETS["matgo"], 2, 2, seed=3))
    log = folder / "game.jsonl"
    with open(log, "wb") as f:
        L.write_jsonl(f, envs)
    html = folder / "game.html"
    result = CliRunner().invoke(app, ["replay", str(log), "--html", str(html)])
    assert result.exit_code == 0, result.output
    gid = envs[0].game_id
    return {
        "log": log,
        "html": html,
        "envs": envs,
        "timeline": timeline(gid, envs),
        "data": R.build(gid, envs),
    }


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    """A page that may read only file: and data: URLs; anything else is refused and kept."""
    g = Guarded(browser, ("file:", "data:"), viewport={"width": 1280, "height": 800})
    yield g.page()
    g.close()


def _open(page: Any, html: Path, seq: int | None = None) -> None:
    page.goto(html.as_uri() + (f"#seq={seq}" if seq is not None else ""))
    page.wait_for_selector("body.ready")


def _state_at(game: dict[str, Any], seq: int) -> dict[str, Any]:
    tl = game["timeline"]
    return tl.state_dict(tl.index_of_seq(seq))


def _seq(page: Any) -> int:
    return int(page.evaluate("() => document.body.dataset.seq"))


def test_the_drawn_table_is_the_replay_json_at_several_seqs(
    page: Any, game: dict[str, Any]
) -> None:
    runner = CliRunner()
    last = game["envs"][-1].seq
    for seq in (5, 17, 40, 64, last):
        out = runner.invoke(app, ["replay", str(game["log"]), "--json", "--at", str(seq)])
        assert out.exit_code == 0, out.output
        state = json.loads(out.stdout)
        if state.get("hand") is None:
            continue
        _open(page, game["html"], seq)
        assert page.evaluate(TABLE_JS) == expected(state), f"seq {seq}"


def test_the_file_opens_at_its_end_and_at_a_deep_link(page: Any, game: dict[str, Any]) -> None:
    _open(page, game["html"])
    assert _seq(page) == game["envs"][-1].seq
    _open(page, game["html"], 33)
    assert _seq(page) == 33
    assert page.evaluate(TABLE_JS) == expected(_state_at(game, 33))
    # a link followed inside the page moves it too
    page.evaluate("() => { location.hash = '#seq=12'; }")
    page.wait_for_function("() => document.body.dataset.seq === '12'")
    assert page.evaluate(TABLE_JS) == expected(_state_at(game, 12))


def test_keys_step_by_event_and_turn_and_the_url_follows(page: Any, game: dict[str, Any]) -> None:
    data = game["data"]
    events = data["events"]
    index = {e[0]: i for i, e in enumerate(events)}
    _open(page, game["html"], 20)
    page.keyboard.press("ArrowRight")
    assert _seq(page) == 21
    assert page.evaluate("() => location.hash") == "#seq=21"
    assert page.evaluate(TABLE_JS) == expected(_state_at(game, 21))
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert _seq(page) == 19
    assert page.evaluate(TABLE_JS) == expected(_state_at(game, 19))
    # a turn: to the end of the next turn, and back to the end of the one before
    ends = data["turn_ends"]
    nxt = next(i for i in ends if i > index[19])
    page.keyboard.press("Shift+ArrowRight")
    assert _seq(page) == events[nxt][0]
    page.keyboard.press("Shift+ArrowRight")
    nxt2 = next(i for i in ends if i > nxt)
    assert _seq(page) == events[nxt2][0]
    page.keyboard.press("Shift+ArrowLeft")
    assert _seq(page) == events[nxt][0]
    # the turn's events: one input by one seat, then its flip and consequences
    turn = events[nxt][4]
    assert all(e[4] == turn for e in events[ends[ends.index(nxt) - 1] + 1 : nxt + 1])
    # Home and End: the start and the end of the hand
    hand1, hand2 = data["hands"]
    page.keyboard.press("End")
    assert _seq(page) == events[hand1["end"]][0]
    page.keyboard.press("End")
    assert _seq(page) == events[hand2["end"]][0]
    page.keyboard.press("Home")
    assert _seq(page) == events[hand2["start"]][0]
    page.keyboard.press("Home")
    assert _seq(page) == events[hand1["start"]][0]
    # a hand's chip goes to its start; the buttons do what the keys do
    page.click("#hand-chips button[data-hand='2']")
    assert _seq(page) == events[hand2["start"]][0]
    assert page.get_attribute("#hand-chips button.current", "data-hand") == "2"
    page.keyboard.press("Home")
    assert _seq(page) == events[hand1["start"]][0]
    page.click("[data-action=forward]")
    assert _seq(page) == events[hand1["start"] + 1][0]
    page.click("[data-action=hand-end]")
    assert _seq(page) == events[hand1["end"]][0]


def test_the_slider_spans_the_game(page: Any, game: dict[str, Any]) -> None:
    _open(page, game["html"], 1)
    assert _seq(page) == 1
    n = len(game["envs"])
    assert page.get_attribute("#slider", "max") == str(n - 1)
    page.eval_on_selector(
        "#slider", "(el) => { el.value = '50'; el.dispatchEvent(new Event('input')); }"
    )
    seq = game["envs"][50].seq
    assert _seq(page) == seq
    assert page.evaluate(TABLE_JS) == expected(_state_at(game, seq))


def test_the_end_of_a_hand_shows_its_payout_proof(page: Any, game: dict[str, Any]) -> None:
    hand1 = game["data"]["hands"][0]
    end_seq = game["envs"][hand1["end"]].seq
    _open(page, game["html"], end_seq - 6)
    assert page.is_hidden("#proof")
    _open(page, game["html"], end_seq)
    assert page.is_visible("#proof")
    proof = page.inner_text("#proof")
    assert f"Hand {hand1['hand']}" in proof
    loser = hand1["proof"]["losers"][0]
    assert f"= {loser['chips']} chips" in proof
    rows = page.eval_on_selector_all("#proof .payments tr[data-status]", "rs => rs.length")
    assert rows == len(hand1["payments"])


def test_a_disputed_payment_is_marked_in_the_proof(page: Any, tmp_path: Path) -> None:
    html = tmp_path / "dispute.html"
    log = ROOT / "samples" / "disputed-payment.jsonl"
    out = CliRunner().invoke(app, ["replay", str(log), "--html", str(html)])
    assert out.exit_code == 0, out.output
    _open(page, html)
    row = page.locator("#proof .payments tr[data-status=differs]")
    assert row.count() == 1
    cells = row.locator("td").all_inner_texts()
    assert cells[1].startswith("800") and cells[2] == "1600" and cells[3] == "✗"
    assert "shake" in page.inner_text("#proof .finding")
    assert page.inner_text("#seal") == R.seal_text(list(L.read_log(log))[-1].hash)


def test_screenshots_at_phone_and_desktop_size(browser: Any, game: dict[str, Any]) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    hand1 = game["data"]["hands"][0]
    end_seq = game["envs"][hand1["end"]].seq
    ctx = browser.new_context(viewport={"width": 360, "height": 640})
    pg = ctx.new_page()
    for (w, h), seq, name in (
        ((360, 640), 40, "replay-360x640"),
        ((360, 640), end_seq, "replay-360x640-proof"),
        ((1280, 800), 40, "replay-1280x800"),
        ((1280, 800), end_seq, "replay-1280x800-proof"),
    ):
        pg.set_viewport_size({"width": w, "height": h})
        _open(pg, game["html"], seq)
        if "proof" in name:
            pg.locator("#proof").scroll_into_view_if_needed()
        path = ARTIFACTS / f"{name}.png"
        pg.screenshot(path=str(path), animations="disabled")
        assert path.stat().st_size > 10_000
        # nothing is wider than the screen
        assert pg.evaluate("() => document.documentElement.scrollWidth") <= w
    ctx.close()


def test_cards_are_drawn_at_40_px(browser: Any) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    codes = [*W.labels()]
    cells = "".join(
        f'<span style="display:inline-block;margin:2px">{W.use_svg(c)}</span>' for c in codes
    )
    html = (
        "<!doctype html><body style='margin:4px;background:#1f5b3c'>"
        f"<style>.card{{width:40px;height:64px;display:block}}</style>{W.sprite()}{cells}</body>"
    )
    ctx = browser.new_context(viewport={"width": 560, "height": 400}, device_scale_factor=2)
    pg = ctx.new_page()
    pg.set_content(html)
    pg.screenshot(path=str(ARTIFACTS / "cards-40px.png"), full_page=True)
    boxes = pg.eval_on_selector_all(
        "svg.card",
        "els => els.map((e) => [e.getBoundingClientRect().width, e.getAttribute('aria-label')])",
    )
    assert [b[0] for b in boxes] == [40] * len(codes)
    assert [b[1] for b in boxes] == [W.label(c) for c in codes]
    # each standalone drawing, rasterised at 40 px: none blank, none drawn like another
    sums = pg.evaluate(
        """async (svgs) => {
          const out = [];
          for (const svg of svgs) {
            const img = new Image();
            img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg);
            await img.decode();
            const cv = document.createElement('canvas');
            cv.width = 40; cv.height = 64;
            const g = cv.getContext('2d');
            g.drawImage(img, 0, 0, 40, 64);
            const px = g.getImageData(0, 0, 40, 64).data;
            let h = 0, inked = 0;
            for (let i = 0; i < px.length; i += 4) {
              h = (h * 31 + px[i] * 7 + px[i + 1] * 3 + px[i + 2]) >>> 0;
              if (px[i + 3] > 0 && px[i] + px[i + 1] + px[i + 2] < 500) inked++;
            }
            out.push([h, inked]);
          }
          return out;
        }""",
        [W.card_svg(c, width=40) for c in codes],
    )
    assert len({h for h, _ in sums}) == len(codes)
    assert all(inked > 150 for _, inked in sums), sums
    ctx.close()


def test_the_served_page_draws_the_same_table(
    browser: Any, game: dict[str, Any], tmp_path: Path
) -> None:
    """The page as the route serves it, loaded by the browser from a served address."""
    from litestar.testing import TestClient
    from test_web_routes import pages_app

    from gostop_records.store import Store

    db = tmp_path / "served.duckdb"
    with Store(db) as store:
        store.import_paths([game["log"]])
    gid = game["envs"][0].game_id
    origin = "http://gostop.test"
    served: list[str] = []
    with TestClient(pages_app(db)) as client:

        def serve(route: Any) -> None:
            url = route.request.url
            if not url.startswith(origin):
                served.append("refused " + url)
                route.abort()
                return
            r = client.get(url.removeprefix(origin).split("#")[0])
            served.append(url)
            route.fulfill(
                status=r.status_code, body=r.content, content_type=r.headers["content-type"]
            )

        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        ctx.route("**/*", serve)
        pg = ctx.new_page()
        for seq in (33, 90):
            pg.goto(f"{origin}/games/{gid}/replay#seq={seq}")
            pg.wait_for_selector("body.ready")
            assert pg.evaluate(TABLE_JS) == expected(_state_at(game, seq))
        asked = len(served)
        pg.keyboard.press("ArrowRight")
        assert _seq(pg) == 91
        ctx.close()
    # one request, the page: a new #seq moves within it, stepping draws from its data
    assert served == [f"{origin}/games/{gid}/replay"] and asked == 1


#: samples of the situations a table can be in that the game above does not show
SITUATIONS = (
    "void-deal",
    "hand-four",
    "nagari-carry",
    "three-players",
    "three-ppuk",
    "jokers",
    "bomb",
    "lenient-card-not-held",
    "live-record",
)


def test_the_page_draws_each_situation_without_an_error(browser: Any, tmp_path: Path) -> None:
    """Void deals, instant wins, nagari, three players, jokers, bombs, a lenient record, a
    record with unknown hands: the page draws the projector's table at the start and the
    end of each."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    from gostop_records.games import log_games
    from gostop_records.web.pages import write_replay_html

    for name in SITUATIONS:
        log = ROOT / "samples" / f"{name}.jsonl"
        games = log_games(log)
        gid, envs = next(iter(games.items()))
        html = tmp_path / f"{log.stem}.html"
        write_replay_html(html, gid, envs)
        tl = timeline(gid, envs)
        pg.goto(html.as_uri())
        pg.wait_for_selector("body.ready")
        # the events the rules disagree with are marked, with the reason
        faults = {x.seq for x in tl.issues if x.seq is not None}
        assert pg.locator("#events .ev.fault").count() == len(faults)
        if name == "lenient-card-not-held":
            assert faults and pg.is_visible("#problems")
        if name == "live-record":  # an entry taken back by an undo is struck through
            undone = [e.event.seq for e in envs if isinstance(e.event, E.EntryRetracted)]
            assert undone
            marked = pg.eval_on_selector_all(
                "#events .ev.retracted", "els => els.map(e => +e.dataset.seq)"
            )
            assert marked == undone
        for i in (1, len(tl.envelopes) - 1):
            seq = tl.envelopes[i].seq
            pg.evaluate(f"() => {{ location.hash = '#seq={seq}'; }}")
            pg.wait_for_function(f"() => document.body.dataset.seq === '{seq}'")
            state = tl.state_dict(i)
            if state.get("hand") is not None:
                assert pg.evaluate(TABLE_JS) == expected(state), f"{log.name} seq {seq}"
        assert not errors, f"{log.name}: {errors}"
    ctx.close()


def test_html_at_a_seq_or_a_hand_opens_there(
    page: Any, game: dict[str, Any], tmp_path: Path
) -> None:
    runner = CliRunner()
    at = tmp_path / "at.html"
    out = runner.invoke(app, ["replay", str(game["log"]), "--html", str(at), "--at", "44"])
    assert out.exit_code == 0, out.output
    _open(page, at)
    assert _seq(page) == 44
    assert page.evaluate(TABLE_JS) == expected(_state_at(game, 44))
    # the address still wins
    _open(page, at, 12)
    assert _seq(page) == 12
    hand = tmp_path / "hand.html"
    out = runner.invoke(app, ["replay", str(game["log"]), "--html", str(hand), "--hand", "1"])
    assert out.exit_code == 0, out.output
    _open(page, hand)
    assert _seq(page) == game["envs"][game["data"]["hands"][0]["end"]].seq
    # a seq the game does not have is refused with the seqs it has
    out = runner.invoke(app, ["replay", str(game["log"]), "--html", str(hand), "--at", "999"])
    assert out.exit_code == 1 and "no seq 999" in out.output
