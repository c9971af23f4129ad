"""The club's report of a store a running server holds: ``GET /report`` and ``gostop db report
--server URL``, the same page ``gostop db report --html`` writes from the file (which the
server keeps locked while it runs). Against a real ``gostop serve``."""

from __future__ import annotations

import re
from pathlib import Path

from gostop_cli.app import app
from service_helpers import KEY, Server, auth
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = [ROOT / "samples" / n for n in ("disputed-payment.jsonl", "three-players.jsonl")]


def _unstamped(page: str) -> str:
    """The page without the minute it was made (the one part that differs by the clock)."""
    return re.sub(r"made \d{4}-\d\d-\d\d \d\d:\d\d UTC", "made -", page)


def test_the_report_over_http_is_the_report_of_the_file(tmp_path: Path) -> None:
    db = tmp_path / "club.duckdb"
    runner = CliRunner()
    with Server(db) as server:
        for sample in SAMPLES:
            r = server.http.post("/api/import", content=sample.read_bytes(), headers=auth(KEY))
            assert r.status_code == 200, r.text
        r = server.http.get("/report")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert "2 game(s)" in r.text and "Disputed payments" in r.text
        # the store is the server's: a command cannot open the file meanwhile
        held = runner.invoke(app, ["db", "report", "--db", str(db), "--html", str(tmp_path / "x")])
        assert held.exit_code != 0
        out = tmp_path / "served.html"
        res = runner.invoke(app, ["db", "report", "--server", server.url, "--html", str(out)])
        assert res.exit_code == 0, res.output
        assert f"the club's report of {server.url}" in res.stderr
    served = out.read_text("utf-8")
    assert served == r.text
    local = tmp_path / "local.html"
    res = runner.invoke(app, ["db", "report", "--db", str(db), "--html", str(local)])
    assert res.exit_code == 0, res.output
    assert _unstamped(served) == _unstamped(local.read_text("utf-8"))


def test_a_private_server_reads_its_report_with_the_key_only(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "r.html"
    with Server(tmp_path / "p.duckdb", None, "--private") as server:
        r = server.http.get("/report")
        assert r.status_code == 401, r.text
        assert server.http.get("/report", headers=auth(KEY)).status_code == 200
        args = ["db", "report", "--server", server.url, "--html", str(out)]
        res = runner.invoke(app, args, env={"GOSTOP_SERVER_KEY": ""})
        assert res.exit_code != 0 and not out.exists()
        assert "Traceback" not in res.output and "reading the store" in res.output, res.output
        res = runner.invoke(app, args, env={"GOSTOP_SERVER_KEY": KEY})
        assert res.exit_code == 0, res.output
        assert "Club report" in out.read_text("utf-8")


def test_a_server_that_is_not_there_is_said_in_one_line(tmp_path: Path) -> None:
    from service_helpers import free_port

    url = f"http://127.0.0.1:{free_port()}"
    out = tmp_path / "r.html"
    res = CliRunner().invoke(app, ["db", "report", "--server", url, "--html", str(out)])
    assert res.exit_code != 0 and not out.exists()
    assert f"cannot reach the server at {url}" in res.output
    assert "Traceback" not in res.output
