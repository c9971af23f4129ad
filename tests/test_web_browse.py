"""The reading pages over HTTP (the service's app, no browser): the game browser's filters
and paging against SQL on the same store, bad filters refused with the reason, the player
views against the tables they summarise, a player's page, the audit page, the club report."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from browse_support import DISPUTED, NOTED, SAMPLES, build_store, query
from gostop_cli.app import app as cli
from litestar.testing import TestClient
from typer.testing import CliRunner

from gostop_records import log as L
from gostop_records.audit import audit_game
from gostop_records.audit.render import AS_NOTED, TABLE_NOTED
from gostop_records.service.app import ServiceConfig, create_app
from gostop_records.store import Store
from gostop_records.store.browse import BrowseError, HandFilter
from gostop_records.store.schema import FLAG_IDS, SPECIAL_KINDS

ROW = re.compile(r'<tr data-game="([^"]+)" data-hand="(\d+)"')


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("browse") / "club.duckdb")


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient[Any]]:
    with TestClient(create_app(ServiceConfig(db=str(db)))) as c:
        yield c


@pytest.fixture(scope="module")
def sql(client: TestClient[Any]) -> Any:
    """SQL on the store the app holds (through its read-only query route)."""

    return lambda text: query(client, text)


def rows(html: str) -> list[tuple[str, int]]:
    return [(g, int(h)) for g, h in ROW.findall(html)]


ORDER = "ORDER BY h.date DESC NULLS LAST, h.started_at DESC NULLS LAST, h.game_id, h.hand"


@pytest.mark.parametrize("per_page", [1, 3, 7])
def test_the_browser_lists_every_hand_newest_first_in_pages(
    client: Any, sql: Any, per_page: int
) -> None:
    every = [(g, h) for g, h in sql(f"SELECT h.game_id, h.hand FROM hands h {ORDER}")]
    r = client.get("/games?per_page=200")
    assert r.status_code == 200
    assert rows(r.text) == every
    assert f'data-total="{len(every)}"' in r.text
    seen = []
    page = 1
    while True:
        r = client.get(f"/games?per_page={per_page}&page={page}")
        assert r.status_code == 200
        seen += rows(r.text)
        if 'rel="next"' not in r.text:
            break
        nxt = re.search(r'rel="next" href="/games\?([^"]+)"', r.text)
        assert nxt is not None and f"page={page + 1}" in nxt.group(1)
        page += 1
    assert seen == every and page == -(-len(every) // per_page)
    # past the last page: no hands, still a page
    assert rows(client.get("/games?page=999").text) == []


@pytest.mark.parametrize(
    ("query", "where"),
    [
        ("player=p3", "list_contains(g.player_ids, 'p3')"),
        ("player=NORTH", "list_contains(g.player_names, 'North')"),
        ("ruleset=gostop3", "h.ruleset = 'gostop3'"),
        ("outcome=nagari", "h.outcome = 'nagari'"),
        ("from=2026-01-12&to=2026-01-14", "h.date BETWEEN '2026-01-12' AND '2026-01-14'"),
        (
            "disputed=true",
            "EXISTS (SELECT 1 FROM payouts p WHERE p.game_id = h.game_id AND p.hand = h.hand "
            "AND p.hand_recorded AND coalesce(p.recorded_chips, 0) <> p.chips)",
        ),
        (
            "player=p1&outcome=stop&ruleset=matgo",
            "list_contains(g.player_ids, 'p1') AND h.outcome = 'stop' AND h.ruleset = 'matgo'",
        ),
    ],
)
def test_each_filter_selects_what_sql_selects(
    client: Any, sql: Any, query: str, where: str
) -> None:
    want = [
        (g, h)
        for g, h in sql(
            f"SELECT h.game_id, h.hand FROM hands h JOIN games g USING (game_id) "
            f"WHERE {where} {ORDER}"
        )
    ]
    assert want, f"the test store has no hand for {query}"
    r = client.get(f"/games?{query}&per_page=200")
    assert r.status_code == 200
    assert rows(r.text) == want
    everything = sql("SELECT count(*) FROM hands")[0][0]
    assert len(want) < everything


def test_the_disputed_hands_link_to_their_audit(client: Any) -> None:
    r = client.get("/games?disputed=true")
    assert sorted(rows(r.text)) == sorted([(DISPUTED, 1), (NOTED, 1)])
    for game in (DISPUTED, NOTED):
        assert f'href="/games/{game}/audit#hand-1">disputed</a>' in r.text


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("from=2026-02-30", "from: '2026-02-30' is not a date: give YYYY-MM-DD"),
        ("to=yesterday", "to: 'yesterday' is not a date"),
        ("from=2026-03-01&to=2026-01-01", "to: 2026-01-01 is before from (2026-03-01)"),
        ("outcome=won", "outcome: 'won' is not an outcome: stop, instant, nagari, void"),
        ("page=0", "page: 0 is out of range: give 1 or more"),
        ("page=two", "page: 'two' is not a whole number"),
        ("per_page=1000", "per_page: 1000 is out of range: give from 1 to 200"),
        ("disputed=maybe", "disputed: 'maybe': give true or false"),
        ("colour=red", "colour: unknown filter"),
    ],
)
def test_a_bad_filter_is_a_400_naming_it(client: Any, query: str, reason: str) -> None:
    r = client.get(f"/games?{query}")
    assert r.status_code == 400
    assert r.headers["content-type"].startswith("text/html")
    shown = re.search(r'id="error">([^<]*)<', r.text)
    assert shown is not None
    assert reason.replace("'", "&#39;") in shown.group(1)
    assert "<form" in r.text  # the form is there to mend it
    with pytest.raises(BrowseError):
        HandFilter.parse(dict(p.split("=") for p in query.split("&")))


def test_a_refused_filter_keeps_what_was_sent(client: Any) -> None:
    r = client.get("/games?player=ann&outcome=won&ruleset=matgo&disputed=true&per_page=20")
    assert r.status_code == 400
    assert 'name="player" value="ann"' in r.text
    assert "<option selected>matgo</option>" in r.text and "<option>gostop3</option>" in r.text
    assert 'value="true" checked' in r.text and 'name="per_page" value="20"' in r.text


def test_the_player_views_agree_with_the_tables(sql: Any) -> None:
    stats = {r[0]: r for r in sql("SELECT player_id, hands, wins, chips, gos FROM v_player_stats")}
    # hands: each ended hand counts once for each seat's player
    hands = dict(
        sql(
            "SELECT g.player_ids[s.seat + 1], count(*) FROM hands h JOIN games g USING (game_id), "
            "range(h.players::BIGINT) s(seat) WHERE h.ended GROUP BY 1"
        )
    )
    wins = dict(
        sql(
            "SELECT g.player_ids[h.winner + 1], count(*) FROM hands h JOIN games g "
            "USING (game_id) WHERE h.ended AND h.winner IS NOT NULL GROUP BY 1"
        )
    )
    ledger = dict(sql("SELECT player_id, sum(computed_chips) FROM v_player_ledger GROUP BY 1"))
    gos = dict(
        sql(
            "SELECT g.player_ids[d.seat + 1], count(*) FROM decisions d JOIN games g "
            "USING (game_id) JOIN hands h USING (game_id, hand) "
            "WHERE d.kind = 'go' AND h.ended GROUP BY 1"
        )
    )
    assert set(stats) == set(hands)
    for pid, (_, n, w, chips, g) in stats.items():
        assert n == hands[pid] and w == wins.get(pid, 0)
        assert chips == ledger.get(pid, 0)
        assert g == gos.get(pid, 0)
    assert sum(r[3] for r in stats.values()) == 0  # chips go from one player to another
    # specials: what a seat makes, the others in its hand suffer
    for k in SPECIAL_KINDS:
        made, suffered = sql(f"SELECT sum({k}_made), sum({k}_suffered) FROM v_player_hands")[0]
        by_seat = sql(
            f"SELECT coalesce(sum({k} * (h.players - 1)), 0) FROM v_specials_by_seat v "
            "JOIN hands h USING (game_id, hand) WHERE h.ended"
        )[0][0]
        assert suffered == by_seat, k
        assert (
            made
            == sql(
                f"SELECT coalesce(sum({k}), 0) FROM v_specials_by_seat v JOIN hands h "
                "USING (game_id, hand) WHERE h.ended"
            )[0][0]
        )
    for b in FLAG_IDS:
        paid, received = sql(f"SELECT sum({b}_paid), sum({b}_received) FROM v_player_stats")[0]
        assert paid == received == sql(f"SELECT count(*) FILTER (WHERE {b}) FROM payouts")[0][0]


def _figures(html: str) -> dict[str, str]:
    return dict(re.findall(r'data-figure="(\w+)">([^<]*)<', html))


def test_the_player_page_shows_the_views_figures(client: Any, sql: Any) -> None:
    cols = ["hands", "games", "wins", "chips", "avg_chips", "recorded_chips", "gos", "gos_paid_off"]
    for pid, *values in sql(f"SELECT player_id, {', '.join(cols)} FROM v_player_stats"):
        r = client.get(f"/players/{pid}")
        assert r.status_code == 200
        shown = _figures(r.text)
        assert shown == {c: str(v) for c, v in zip(cols, values, strict=True)}, pid
        # Gos by score: the table and the chart's bars are v_player_gos grouped
        by_score = sql(
            "SELECT score, count(*), count(*) FILTER (WHERE paid_off) FROM v_player_gos "
            f"WHERE player_id = '{pid}' GROUP BY score ORDER BY score"
        )
        table = re.findall(
            r'<tr data-score="(\d+)"><td class="num">\d+</td><td class="num">(\d+)</td>'
            r'<td class="num">(\d+)</td>',
            r.text,
        )
        assert [(int(s), int(a), int(b)) for s, a, b in table] == [tuple(x) for x in by_score]
        assert r.text.count('data-series="called"') == len(by_score)
        assert r.text.count('<svg class="chart"') == 3
        # the running total ends at the net chips; the histogram counts every hand
        hands, chips = values[0], values[3]
        assert f'data-last="{chips}"' in r.text
        hist = r.text.split('data-chart="histogram"', 1)[1].split("</svg>", 1)[0]
        assert sum(map(int, re.findall(r'data-bin="[^"]*" data-value="(\d+)"', hist))) == hands
        assert "http://" not in r.text.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_the_players_list_and_an_unknown_player(client: Any, sql: Any) -> None:
    r = client.get("/players")
    assert r.status_code == 200
    listed = re.findall(r'<tr data-player="([^"]+)">', r.text)
    assert sorted(listed) == sorted(x[0] for x in sql("SELECT player_id FROM v_player_stats"))
    missing = client.get("/players/nobody-here")
    assert missing.status_code == 404
    assert "no ended hand has a player with id &#x27;nobody-here&#x27;" in missing.text


def test_the_audit_page_of_a_disputed_payment(client: Any) -> None:
    envs = list(L.read_log(SAMPLES / "disputed-payment.jsonl"))
    audit = audit_game(envs, lenient=True)
    (payment,) = audit.disagreements
    r = client.get(f"/games/{DISPUTED}/audit")
    assert r.status_code == 200
    html = r.text
    row = re.search(r'<tr class="payment differs"[^>]*>(.*?)</tr>', html, re.S)
    assert row is not None
    assert f'<td class="num recorded">{payment.chips}</td>' in row.group(1)
    assert f'<td class="num computed">{payment.computed}</td>' in row.group(1)
    assert f'href="/games/{DISPUTED}/replay#seq={payment.seqs[0]}"' in row.group(1)
    first = re.search(r'<ol class="explanations">\s*<li[^>]*>([^<]*)', html)
    assert first is not None
    assert first.group(1).replace("&#39;", "'") == payment.explanations[0].text
    assert "the shake does not double the payment" in html  # the table's note
    assert "chain intact" in html and envs[-1].hash in html
    (end,) = [e.seq for e in envs if e.type == "hand_ended"]
    assert f'href="/games/{DISPUTED}/replay#seq={end}">see its end' in html


def test_the_audit_page_shows_the_notes_the_audit_read_and_marks_the_noted_explanation(
    client: Any,
) -> None:
    envs = list(L.read_log(SAMPLES / "disputes" / "gwang_bak.jsonl"))
    (payment,) = audit_game(envs, lenient=True).disagreements
    assert payment.notes and len(payment.explanations) > 1
    marked = [e for e in payment.explanations if e.matches_note]
    assert marked == [payment.explanations[0]]  # the audit ranks what the note names first
    html = client.get(f"/games/{NOTED}/audit").text.replace("&#39;", "'")
    for n in payment.notes:
        assert f'<p class="note">{TABLE_NOTED}: <q>{n}</q></p>' in html
    listed = html.split('<ol class="explanations">')[1].split("</ol>")[0]
    items = re.findall(r"<li ([^>]*)>(.*?)</li>", listed)
    assert len(items) == len(payment.explanations)
    for (attrs, text), e in zip(items, payment.explanations, strict=False):
        assert text.startswith(e.text)
        assert ('class="matches-note"' in attrs) == e.matches_note
        assert (f"({AS_NOTED})" in text) == e.matches_note
    # a note that names no explanation is shown, and marks none
    plain = client.get(f"/games/{DISPUTED}/audit").text
    assert f"{TABLE_NOTED}: <q>South: the shake does not double the payment</q>" in plain
    assert 'class="matches-note"' not in plain and f"({AS_NOTED})" not in plain


def test_the_audit_page_of_a_record_breaking_a_rule(client: Any) -> None:
    r = client.get("/games/sample-lenient-card-not-held/audit")
    assert r.status_code == 200
    assert "1 violation(s)" in r.text
    assert 'href="/games/sample-lenient-card-not-held/replay#seq=16">seq 16</a>' in r.text
    assert client.get("/games/no-such-game/audit").status_code == 404


def test_the_index_links_the_browser_and_the_players(client: Any) -> None:
    html = client.get("/").text
    assert 'href="/games"' in html and 'href="/players"' in html


def test_db_report_writes_one_self_contained_file(tmp_path: Path) -> None:
    db = build_store(tmp_path / "club.duckdb")  # the app holds the module's store
    out = tmp_path / "club.html"
    runner = CliRunner()
    result = runner.invoke(cli, ["db", "report", "--html", str(out), "--db", str(db)])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert "<script" not in html and "<link" not in html
    assert not re.search(r'(src|href)="(https?:)?//', html)
    with duckdb.connect(str(db), read_only=True) as conn:
        stats = conn.execute("SELECT player_id, player_name, hands, chips FROM v_player_stats")
        for pid, name, hands, _chips in stats.fetchall():
            section = html.split(f'id="player-{pid}"', 1)[1]
            assert name in section.split("</h2>", 1)[0]
            assert f'data-figure="hands">{hands}<' in section
    bad = runner.invoke(
        cli, ["db", "report", "--html", str(tmp_path / "no" / "r.html"), "--db", str(db)]
    )
    assert bad.exit_code == 1
    assert "r.html: cannot write: no folder" in bad.output


def test_a_store_made_before_the_player_views_gets_them_from_a_writer(tmp_path: Path) -> None:
    db = build_store(tmp_path / "old.duckdb")
    with duckdb.connect(str(db)) as conn:  # as a file of this schema made before them
        for view in ("v_player_stats", "v_player_gos", "v_player_hands"):
            conn.execute(f"DROP VIEW {view}")
    runner = CliRunner()
    out = tmp_path / "r.html"
    refused = runner.invoke(cli, ["db", "report", "--html", str(out), "--db", str(db)])
    assert refused.exit_code == 1 and not out.exists()
    assert "open it for writing once (gostop db rebuild, or gostop serve)" in refused.output
    with Store(db) as store:  # a writer's open adds what is missing, nothing else changes
        assert store.conn.execute("SELECT count(*) FROM v_player_stats").fetchone()[0] > 0
    assert runner.invoke(cli, ["db", "report", "--html", str(out), "--db", str(db)]).exit_code == 0


def test_a_private_server_asks_for_the_key_on_every_reading_page(db: Path, tmp_path: Path) -> None:
    private = build_store(tmp_path / "private.duckdb")
    with TestClient(create_app(ServiceConfig(db=str(private), key="k", private=True))) as c:
        for url in ("/games", "/players", "/players/p1", f"/games/{DISPUTED}/audit"):
            r = c.get(url)
            assert r.status_code == 401, url
            # a page asked for is refused with a page that says why
            assert r.headers["content-type"].startswith("text/html")
            assert "this server is private" in html.unescape(r.text)
            ok = c.get(url, headers={"Authorization": "Bearer k"})
            assert ok.status_code == 200, url
