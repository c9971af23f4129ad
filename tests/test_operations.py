"""What docs/operations.md tells a club that runs ``gostop serve`` for years: the systemd
unit in docs/gostop.service, and a store moved to another machine with its key file."""

from __future__ import annotations

import configparser
import shlex
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest
import typer
from gostop_cli.app import app
from service_helpers import hand_lines, new_game, service_client
from store_support import ROOT

from gostop_records.service.serve import GRACE_S
from gostop_records.service.sessions import server_key
from gostop_records.store import Store
from gostop_records.store.journal import segments

UNIT = ROOT / "docs" / "gostop.service"


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    parser.read_string(UNIT.read_text(encoding="utf-8"))
    return parser


def test_the_unit_file_runs_gostop_serve_as_documented() -> None:
    unit = _unit()
    assert unit.sections() == ["Unit", "Service", "Install"]
    s = unit["Service"]
    assert s["User"] and s["User"] != "root" and s["WorkingDirectory"].startswith("/")
    # the server key comes from a file root alone reads, never from the unit itself
    assert s["EnvironmentFile"].startswith("/etc/")
    assert "GOSTOP_SERVER_KEY" not in "".join(v for k, v in s.items() if k != "EnvironmentFile")
    assert s["Restart"] == "on-failure"
    assert s["KillSignal"] == "SIGTERM"
    assert int(s["TimeoutStopSec"]) > GRACE_S  # the grace, then the journal settled
    assert s["NoNewPrivileges"] == "yes" and s["ProtectSystem"] == "strict"
    writable = [PurePosixPath(p) for p in s["ReadWritePaths"].split()]

    argv = shlex.split(s["ExecStart"])
    assert PurePosixPath(argv[0]).name == "gostop" and argv[1] == "serve"
    # the options parse with the command line as it is: each one gostop serve accepts
    group = typer.main.get_command(app)
    serve = group.get_command(typer.Context(group), "serve")  # type: ignore[attr-defined]
    assert serve is not None
    ctx = serve.make_context("serve", argv[2:])
    db = PurePosixPath(ctx.params["db"])
    assert db.is_absolute() and ctx.params["host"] == "0.0.0.0"
    # the store, its key file and its journal are beside each other, in a writable folder
    assert db.parent in writable
    assert PurePosixPath(s["WorkingDirectory"]) in writable
    for beside in (f"{db.name}.key", f"{db.name}.journal"):
        assert (db.parent / beside).parent in writable
    options = {a.split("=")[0] for a in argv[2:] if a.startswith("--")}
    assert options <= {o for p in serve.params for o in p.opts}
    assert options == {"--host", "--port", "--db"}


def test_gostop_serve_help_names_each_option_of_the_unit() -> None:
    from typer.testing import CliRunner

    argv = shlex.split(_unit()["Service"]["ExecStart"])
    done = CliRunner().invoke(app, ["serve", "--help"], env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert done.exit_code == 0
    for option in (a for a in argv[2:] if a.startswith("--")):
        assert option in done.output


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_reads_every_line_of_the_unit(tmp_path: Path) -> None:
    copy = tmp_path / "gostop.service"
    copy.write_text(UNIT.read_text(encoding="utf-8"), encoding="utf-8")
    done = subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=60
    )
    # the one complaint allowed: gostop is not installed in /opt/gostop on this machine
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert all("is not executable" in ln for ln in lines), done.stderr


def test_a_store_moved_with_its_key_file_opens_verifies_and_signs_alike(tmp_path: Path) -> None:
    """Moving to a new machine: stop, copy the store and ``STORE.key``, start, verify."""
    old = tmp_path / "old" / "club.duckdb"
    old.parent.mkdir()
    _sim, lines = hand_lines("matgo", 2, 3)
    with service_client(old) as c:
        game = new_game(c)
        version = game["version"]
        for line in lines:
            r = c.post(
                f"/api/games/{game['game_id']}/entries",
                json={"entry": line, "expected_version": version},
                headers={"Authorization": f"Bearer {game['recorder_token']}"},
            )
            assert r.status_code == 201, r.text
            version = r.json()["version"]
    fingerprint = server_key(old).fingerprint
    assert game["signed_by"] == fingerprint
    assert segments(old) == []  # a stopped server leaves no journal behind
    with Store(old, read_only=True) as st:
        events = {g: st.events(g) for g in st.game_ids()}

    new = tmp_path / "new" / "club.duckdb"
    new.parent.mkdir()
    for name in ("club.duckdb", "club.duckdb.key"):
        shutil.copy2(old.parent / name, new.parent / name)
    shutil.rmtree(old.parent)  # the old machine is gone
    with Store(new, read_only=True) as st:
        assert {g: st.events(g) for g in st.game_ids()} == events
        report = st.verify()
        assert report.ok, report.problems()
        assert report.signed_games == 1 and report.valid_signatures > 0
    assert server_key(new).fingerprint == fingerprint
    with service_client(new) as c:  # the server started on the new machine
        assert new_game(c)["signed_by"] == fingerprint


def test_a_store_moved_without_its_key_file_signs_with_a_new_key(tmp_path: Path) -> None:
    """Why the key file goes with the store: without it the first start makes a new key, and
    the games signed before are vouched for by a key the server no longer holds."""
    old = tmp_path / "old" / "club.duckdb"
    old.parent.mkdir()
    with service_client(old) as c:
        before = new_game(c)["signed_by"]
    new = tmp_path / "new" / "club.duckdb"
    new.parent.mkdir()
    shutil.copy2(old, new)
    with service_client(new) as c:
        after = new_game(c)["signed_by"]
    assert after != before and server_key(new).fingerprint == after
    with Store(new, read_only=True) as st:
        assert st.verify().ok  # both games still verify: their keys are in their records
