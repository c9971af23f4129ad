"""Who may do what on ``gostop serve`` (``gostop_records/service/access.py``,
``docs/access.md``), each case over HTTP against a real server: ``--open`` opens starting
games and never token reissue or import; a stranger cannot take a seat by countersigning;
no CORS unless ``--allow-origin``; security headers on every answer and a CSP the
project's own pages pass in Chromium; no path, exception text or traceback in an answer."""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_support import CHROMIUM, guarded_contexts
from litestar.testing import TestClient
from service_helpers import KEY, Server, auth, hand_lines

from gostop_records.integrity.signing import SigningKey
from gostop_records.service import ServiceConfig, create_app
from gostop_records.service import access as A
from gostop_records.service import reads as R
from gostop_records.service.headers import MAX_DEPTH

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "disputed-payment.jsonl"
HEADERS = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


def _start(http: httpx.Client, key: str | None = KEY) -> dict[str, Any]:
    r = http.post("/api/games", json={"players": ["Ann", "Ben"]}, headers=auth(key))
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def _record(http: httpx.Client, game: dict[str, Any], lines: list[str]) -> int:
    version = game["version"]
    for line in lines:
        r = http.post(
            f"/api/games/{game['game_id']}/entries",
            json={"entry": line, "expected_version": version},
            headers=auth(game["recorder_token"]),
        )
        assert r.status_code == 201, r.text
        version = r.json()["version"]
    return version


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server started plainly (with the server key), one recorded hand in its store."""
    with Server(tmp_path_factory.mktemp("access") / "store.duckdb") as s:
        yield s


@pytest.fixture(scope="module")
def played(server: Server) -> dict[str, Any]:
    """A matgo hand recorded up to its payment: the game and its first checkpoint."""
    _sim, lines = hand_lines("matgo", 2, 3)
    game = _start(server.http)
    _record(server.http, game, lines[:-1])
    cp = server.http.get(f"/api/games/{game['game_id']}/checkpoint").json()
    return {"game": game, "lines": lines, "cp": cp}


# --- --open ---------------------------------------------------------------------------------


def test_open_starts_games_for_anyone_never_reissue_or_import(tmp_path: Path) -> None:
    with Server(tmp_path / "open.duckdb", None, "--open") as s:
        assert s.http.get("/api/health").json()["open"] is True
        game = _start(s.http, key=None)  # anyone starts a game
        gid = game["game_id"]
        # nobody takes the game: a token reissue without the key is refused ...
        r = s.http.post(f"/api/games/{gid}/token")
        assert r.status_code == 401 and "server key" in r.json()["reason"], r.text
        r = s.http.post(f"/api/games/{gid}/token", headers=auth("guess"))
        assert r.status_code == 403
        r = s.http.post(f"/api/games/{gid}/token", headers=auth(game["recorder_token"]))
        assert r.status_code == 403  # a recorder token is no server key
        # ... so the real recorder goes on
        r = s.http.post(
            f"/api/games/{gid}/entries",
            json={"entry": "note still mine", "expected_version": game["version"]},
            headers=auth(game["recorder_token"]),
        )
        assert r.status_code == 201, r.text
        # and no log is imported without the key
        r = s.http.post("/api/import", content=SAMPLE.read_bytes())
        assert r.status_code == 401 and "importing" in r.json()["reason"]
        assert s.http.get("/api/games").json()["total"] == 1
        # the server key, made all the same under --open, administers
        assert s.http.post("/api/import", content=SAMPLE.read_bytes(), headers=auth(KEY)).is_success
        r = s.http.post(f"/api/games/{gid}/token", headers=auth(KEY))
        assert r.status_code == 201 and r.json()["recorder_token"] != game["recorder_token"]


def test_open_without_any_key_refuses_reissue_and_import_with_the_reason(tmp_path: Path) -> None:
    app = create_app(ServiceConfig(db=str(tmp_path / "s.duckdb"), key=None, open=True))
    with TestClient(app) as c:
        gid = _start(c, key=None)["game_id"]  # type: ignore[arg-type]
        for r in (c.post(f"/api/games/{gid}/token"), c.post("/api/import", content=b"{}\n")):
            assert r.status_code == 403, r.text
            assert "needs the server key; this server was started without one" in r.json()["reason"]


# --- seats ----------------------------------------------------------------------------------


def _countersign(gid: str, seat: int, cp: dict[str, Any], key: SigningKey) -> dict[str, Any]:
    return {
        "seat": seat,
        "head_seq": cp["head_seq"],
        "head": cp["head"],
        "public_key": key.public.text,
        "signature": key.sign(base64.b64decode(cp["messages"][seat])),
    }


def test_a_stranger_cannot_take_a_seat_the_bound_key_countersigns(
    server: Server, played: dict[str, Any]
) -> None:
    http, game, cp = server.http, played["game"], played["cp"]
    gid = game["game_id"]
    url = f"/api/games/{gid}/countersign"
    ben, eve = SigningKey.generate("Ben"), SigningKey.generate("Eve")
    recorder = auth(game["recorder_token"])
    # a stranger's own key, without the recorder token, takes no seat
    r = http.post(url, json=_countersign(gid, 1, cp, eve))
    assert r.status_code == 403 and r.json()["error"] == "seat_unbound", r.text
    assert "recorder token" in r.json()["reason"]
    # nor with a token of another game
    other = _start(http)
    r = http.post(url, json=_countersign(gid, 1, cp, eve), headers=auth(other["recorder_token"]))
    assert r.status_code == 403
    # the recorder confirms Ben's key: it is bound to seat 1
    r = http.post(url, json=_countersign(gid, 1, cp, ben), headers=recorder)
    assert r.status_code == 201, r.text
    # the next checkpoint (the payment): Ben countersigns from his phone alone ...
    _record(http, {**game, "version": r.json()["version"]}, played["lines"][-1:])
    cp2 = http.get(f"/api/games/{gid}/checkpoint").json()
    assert cp2["head_seq"] > cp["head_seq"]
    r = http.post(url, json=_countersign(gid, 1, cp2, ben))
    assert r.status_code == 201, r.text
    # ... and the stranger is refused there, with or without the recorder token
    for headers in ({}, recorder):
        r = http.post(url, json=_countersign(gid, 1, cp2, eve), headers=headers)
        assert r.status_code == 422 and r.json()["error"] == "wrong_key", r.text
    signatures = http.get(f"/api/games/{gid}/audit").json()["record"]["signatures"]
    assert signatures["ok"], signatures["problems"]
    assert any("seat 1 (Ben)" in line for line in signatures["who_signed"])


# --- CORS and headers -----------------------------------------------------------------------


def _preflight(http: httpx.Client, origin: str) -> httpx.Response:
    return http.options(
        "/api/games",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )


def test_no_cors_by_default(server: Server) -> None:
    r = server.http.get("/api/games", headers={"Origin": "https://evil.example"})
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers
    r = _preflight(server.http, "https://evil.example")
    assert "access-control-allow-origin" not in r.headers


def test_allow_origin_names_the_origins_that_may_call(tmp_path: Path) -> None:
    club = "https://club.example"
    with Server(tmp_path / "cors.duckdb", None, "--allow-origin", club) as s:
        r = _preflight(s.http, club)
        assert r.status_code in (200, 204), r.text
        assert r.headers["access-control-allow-origin"] == club
        assert "authorization" in r.headers["access-control-allow-headers"].lower()
        r = s.http.get("/api/games", headers={"Origin": club})
        assert r.headers["access-control-allow-origin"] == club
        r = s.http.get("/api/games", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in r.headers
        assert (
            "access-control-allow-origin" not in _preflight(s.http, "https://evil.example").headers
        )


def test_security_headers_on_pages_answers_refusals_and_drawings(
    server: Server, played: dict[str, Any]
) -> None:
    gid = played["game"]["game_id"]
    for path in (
        "/",
        f"/games/{gid}/replay",
        "/api/health",
        f"/api/games/{gid}",
        "/api/games/no-such-game",
        "/no/such/page",
        "/cards/01G.svg",
    ):
        r = server.http.get(path)
        assert r.status_code in (200, 404), (path, r.status_code)
        for name, value in HEADERS.items():
            assert r.headers.get(name) == value, (path, name, r.headers)
        policy = r.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy, path
        assert "'unsafe-inline'" not in policy and "*" not in policy, policy
    r = server.http.post(f"/api/games/{gid}/token")  # a refusal
    assert r.status_code == 401 and r.headers["x-frame-options"] == "DENY"


# --- what an answer never holds -------------------------------------------------------------


def test_a_deeply_nested_body_is_a_400_naming_the_limit(server: Server) -> None:
    gid = "whatever"
    for deep in ("[" * 1000 + "]" * 1000, '{"a":' * 1000 + "1" + "}" * 1000):
        for path in ("/api/games", f"/api/games/{gid}/entries", "/api/query", "/api/play"):
            r = server.http.post(
                path, content=deep, headers={**auth(KEY), "Content-Type": "application/json"}
            )
            assert r.status_code == 400, (path, r.text)
            assert r.json()["error"] == "too_deep" and str(MAX_DEPTH) in r.json()["reason"]
    # a body that nests as deep as the service's own goes through to its checks
    ok = {"players": [{"id": "a", "name": "Ann"}, "Ben"], "ruleset": {"base": "matgo"}}
    assert server.http.post("/api/games", json=ok, headers=auth(KEY)).status_code == 201


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_a_failure_answers_an_error_id_and_logs_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(conn: Any) -> dict[str, Any]:
        raise RuntimeError(f"disk on fire at {tmp_path}/secret.duckdb")

    monkeypatch.setattr(R, "health", broken)
    kept = _Kept()
    logger = logging.getLogger("gostop.service")
    logger.addHandler(kept)
    try:
        with TestClient(create_app(ServiceConfig(db=str(tmp_path / "s.duckdb"), key=KEY))) as c:
            r = c.get("/api/health")
    finally:
        logger.removeHandler(kept)
    caplog = kept
    assert r.status_code == 500
    body = r.json()
    assert body["error"] == "internal" and body["error_id"] in body["reason"]
    for leak in ("RuntimeError", "disk on fire", str(tmp_path), "Traceback"):
        assert leak not in r.text
    logged = [rec for rec in caplog.records if body["error_id"] in rec.getMessage()]
    assert logged and "disk on fire" in str(logged[0].exc_info[1])  # type: ignore[index]


def test_health_and_sql_name_no_folder(server: Server) -> None:
    folder = str(server.db.parent)
    r = server.http.get("/api/health")
    assert r.status_code == 200 and "store" not in r.json() and folder not in r.text
    r = server.http.get("/api/health", headers=auth(KEY))
    assert r.json()["store"] == server.db.name and folder not in r.text
    for sql in (
        "SELECT * FROM duckdb_databases()",
        "PRAGMA database_list",
        "SELECT name, value FROM duckdb_settings()",
        "SELECT current_setting('temp_directory')",
    ):
        r = server.http.post("/api/query", json={"sql": sql})
        assert r.status_code in (200, 400), (sql, r.text)
        assert folder not in r.text and str(Path.home()) + "/" not in r.text, (sql, r.text)
    rows = server.http.post("/api/query", json={"sql": "PRAGMA database_list"}).json()["rows"]
    assert any(server.db.name in str(row) for row in rows)  # the name, not where it lives


def test_private_asks_for_a_credential_to_read_and_to_play(tmp_path: Path) -> None:
    with Server(tmp_path / "private.duckdb", None, "--private") as s:
        game = _start(s.http)
        gid = game["game_id"]
        assert s.http.get(f"/api/games/{gid}").status_code == 401
        assert s.http.get(f"/api/games/{gid}", headers=auth(game["recorder_token"])).is_success
        assert s.http.get("/api/games").status_code == 401
        assert s.http.get(f"/games/{gid}/replay").status_code == 401
        assert s.http.post("/api/play", json={"seed": 1}).status_code == 401
        assert s.http.post("/api/play", json={"seed": 1}, headers=auth(KEY)).status_code == 201
        assert s.http.get("/play").status_code == 200  # the page: its hands need the key


def test_every_route_declares_what_it_does(tmp_path: Path) -> None:
    app = create_app(ServiceConfig(db=str(tmp_path / "s.duckdb"), key=KEY))
    undeclared = []
    for route in app.routes:
        for handler in getattr(route, "route_handlers", []):
            if route.path.startswith("/schema") or handler.http_methods == {"OPTIONS"}:
                continue  # Litestar's own: the OpenAPI pages, the methods of a path
            declared = handler.opt.get("access")
            if declared is None or A.Action(declared) not in A.TABLE:
                undeclared.append(route.path)
    assert not undeclared, undeclared


def test_the_table_in_docs_names_every_action() -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "access.md").read_text()
    for action, rule in A.TABLE.items():
        assert f"`{action.value}`" in doc, action
        for route in rule.routes:
            assert route in doc, route


# --- the pages pass their CSP ---------------------------------------------------------------


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_the_pages_load_with_no_csp_violation(
    browser: Any, server: Server, played: dict[str, Any]
) -> None:
    game = played["game"]
    gid = game["game_id"]
    pages = {
        "/": "#games li",
        f"/games/{gid}/record#token={game['recorder_token']}": "#prompt:not(:empty)",
        f"/games/{gid}": "#recent li",
        f"/games/{gid}/replay": "body.ready",
        f"/games/{gid}/audit": "main",
        "/games": "main",
        "/players": "main",
        "/report": "main",
        "/play?ruleset=matgo": "#hand .card",
    }
    for make in guarded_contexts(browser, server.url):
        ctx = make(viewport={"width": 360, "height": 640})
        for path, ready in pages.items():
            page = ctx.page()
            violations: list[str] = []
            page.on(
                "console",
                lambda m, found=violations: (
                    found.append(m.text)
                    if "Content Security Policy" in m.text or "Refused to" in m.text
                    else None
                ),
            )
            response = page.goto(server.url + path)
            assert response is not None and response.ok, path
            assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
            page.wait_for_selector(ready, state="attached", timeout=15_000)
            page.wait_for_timeout(300)
            assert not violations, (path, violations)
            page.close()


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_the_self_contained_files_pass_their_own_policy(
    browser: Any, server: Server, played: dict[str, Any], tmp_path: Path
) -> None:
    """A replay written by ``gostop replay --html`` and the club's report hold their policy
    in a ``<meta>`` (scripts and styles by hash, no 'unsafe-inline'): opened from the disk,
    they run and draw with nothing refused."""
    from browse_support import build_store

    from gostop_records import log as L
    from gostop_records.store import Store
    from gostop_records.web.browse_pages import write_report_html
    from gostop_records.web.pages import write_replay_html

    lines = server.http.get(f"/api/games/{played['game']['game_id']}/events").text.splitlines()
    envs = [L.decode_json_line(x) for x in lines]
    replay = tmp_path / "replay.html"
    write_replay_html(replay, envs[0].game_id, envs)
    report = tmp_path / "report.html"
    with Store(build_store(tmp_path / "report.duckdb"), read_only=True) as store:
        write_report_html(store, report)
    for path, ready in ((replay, "body.ready"), (report, "#summary")):
        text = path.read_text()
        assert "unsafe-inline" not in text and "Content-Security-Policy" in text
        for make in guarded_contexts(browser, "file:"):
            page = make().page()
            found: list[str] = []
            page.on("console", lambda m, f=found: f.append(m.text))
            page.goto(path.as_uri())
            page.wait_for_selector(ready, state="attached", timeout=15_000)
            page.wait_for_timeout(200)
            assert not [m for m in found if "Content Security Policy" in m], (path, found)
            # its styles apply (a style the policy refused would leave the browser's own)
            ink = page.evaluate(
                "getComputedStyle(document.documentElement).getPropertyValue('--ink')"
            )
            assert ink.strip(), path
