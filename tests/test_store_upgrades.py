"""Stores written by every schema version the project shipped, upgraded by this one.

``tests/fixtures/stores/v<N>.duckdb.gz`` is a store written by the code of the last commit
of main at schema version N (1 to 8), gzipped (see the README there for the commit and the
commands): three sample games imported (one of them lenient, with a rule violation), a hand
recorded live entry by entry (signed at the hand's end from version 3 on) and, from version
2 on, the same hand recorded through that version's ``gostop serve`` (whose own tables are
in the store; the server signs from version 4 on). Each is opened here as a club's server
would open it after an upgrade: by a writer, which upgrades it in place.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from service_helpers import KEY, auth, service_client
from store_support import ROOT, gostop

from gostop_records import events as E
from gostop_records.store import Store, StoreError, migrations, schema

FIXTURES = ROOT / "tests" / "fixtures" / "stores"
VERSIONS = range(1, schema.SCHEMA_VERSION)
IMPORTED = ("sample-disputed-payment", "sample-lenient-card-not-held", "sample-three-players")


def _fixture(tmp_path: Path, version: int) -> Path:
    path = tmp_path / f"v{version}.duckdb"
    with gzip.open(FIXTURES / f"v{version}.duckdb.gz", "rb") as src, path.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return path


def _games(version: int) -> list[str]:
    served = [f"served-v{version}"] if version >= 2 else []
    return sorted([*IMPORTED, f"recorded-v{version}", *served])


def _service_rows(conn: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[Any, ...]]]:
    """The rows of the service's own tables (recorder tokens, answers kept for retries)."""
    names = [r[0] for r in conn.execute("SHOW TABLES").fetchall() if r[0].startswith("service_")]
    return {n: conn.execute(f"SELECT * FROM {n} ORDER BY ALL").fetchall() for n in names}


def _as_stored(path: Path) -> tuple[int, list[tuple[Any, ...]], int]:
    """The file's schema version, its events as stored (every version up to 7 stored
    ``prev``; 8 derives it) and its number of heads entries (0 before version 3)."""
    conn = duckdb.connect(str(path), read_only=True)
    try:
        version = schema.file_version(conn)
        assert version is not None
        columns = {r[0] for r in conn.execute("DESCRIBE events").fetchall()}
        prev = "prev" if "prev" in columns else schema.PREV_SQL
        rows = conn.execute(
            f"""SELECT game_id, seq, hand, type, "at", recorded_at, "by", v, payload::VARCHAR,
                       {prev}, hash
                FROM events ORDER BY game_id, seq"""
        ).fetchall()
        tables = {r[0] for r in conn.execute("SHOW TABLES").fetchall()}
        heads = conn.execute("SELECT count(*) FROM heads").fetchone() if "heads" in tables else None
        return version, rows, int(heads[0]) if heads else 0
    finally:
        conn.close()


@pytest.mark.parametrize("version", VERSIONS)
def test_a_store_of_every_earlier_version_upgrades_and_verifies(
    tmp_path: Path, version: int
) -> None:
    path = _fixture(tmp_path, version)
    was, before, heads = _as_stored(path)
    assert was == version
    assert sorted({r[0] for r in before}) == _games(version)
    assert (heads > 0) == (version >= 3)  # the heads chain came with version 3
    signed = {r[0] for r in before if r[3] == "key_added"}  # a recorder's or the server's
    assert len(signed) == (0 if version < 3 else 1 if version == 3 else 2)
    conn = duckdb.connect(str(path), read_only=True)
    service = _service_rows(conn)
    conn.close()
    assert bool(service) == (version >= 2)

    with Store(path) as st:
        assert schema.file_version(st.conn) == schema.SCHEMA_VERSION
        assert [r[0] for r in st.conn.execute("DESCRIBE events").fetchall()] == [
            c for c, _ in schema.EVENT_COLUMNS
        ]
        # the record is the same, column for column and byte for byte of the payloads
        after = st.conn.execute(
            f"""SELECT game_id, seq, hand, type, "at", recorded_at, "by", v, payload::VARCHAR,
                       {schema.PREV_SQL}, hash
                FROM events ORDER BY game_id, seq"""
        ).fetchall()
        assert after == before
        read_back = [
            (e.game_id, e.seq, e.prev, e.hash) for g in st.game_ids() for e in st.events(g)
        ]
        assert read_back == [(r[0], r[1], r[9], r[10]) for r in before]

        assert _service_rows(st.conn) == service  # kept as they were

        report = st.verify()
        assert report.games == len(_games(version)) and report.events == len(before)
        assert not report.breaks and not report.failed, report.problems()
        assert not report.heads and not report.signatures, report.problems()
        assert report.signed_games == len(signed)
        assert (report.valid_signatures > 0) == bool(signed)
        assert report.ok, report.problems()
        assert st.conn.execute(
            "SELECT rule FROM issues WHERE game_id = 'sample-lenient-card-not-held' ORDER BY seq"
        ).fetchall() == [("card_in_hand",)]

        # a live append after the upgrade continues the game and the store's heads chain
        gid = f"recorded-v{version}"
        n = st.version(gid)
        st.append(gid, [E.NoteAdded(text="after the upgrade")], n, by="test")
        assert st.version(gid) == n + 1
        assert st.verify().ok

    with Store(path) as st:  # upgraded once: a second open has nothing to do
        assert migrations.migrate(st.conn) == []
    # today's server serves it: the games recorded before, and a new one
    with service_client(path) as c:
        for gid in _games(version):
            events = c.get(f"/api/games/{gid}/events")
            assert events.status_code == 200, events.text
            assert len(events.text.splitlines()) == sum(r[0] == gid for r in before) + (
                gid == f"recorded-v{version}"
            )
        started = c.post(
            "/api/games",
            json={"players": ["Eun", "Fay"], "ruleset": "matgo"},
            headers=auth(KEY),
        )
        assert started.status_code == 201, started.text
    with Store(path, read_only=True) as st:
        report = st.verify()
        assert report.ok, report.problems()
        assert report.games == len(_games(version)) + 1


@pytest.mark.parametrize("version", VERSIONS)
def test_a_read_only_open_of_an_earlier_version_asks_for_a_writer(
    tmp_path: Path, version: int
) -> None:
    path = _fixture(tmp_path, version)
    _, before, _ = _as_stored(path)
    with pytest.raises(
        StoreError,
        match=f"schema version {version}, this version uses {schema.SCHEMA_VERSION}: "
        r"open it for writing once \(gostop db rebuild\) to upgrade it",
    ):
        Store(path, read_only=True)
    assert _as_stored(path)[:2] == (version, before)  # left as it was


def test_the_command_line_upgrades_a_store_then_verifies_it(tmp_path: Path) -> None:
    """What docs/operations.md tells a club: ``gostop db verify`` reads only, so an old
    store is upgraded by a writer first (the server's start, or ``gostop db rebuild``)."""
    path = _fixture(tmp_path, 7)
    done = gostop("db", "verify", "--db", str(path))
    assert done.returncode == 1
    want = f"schema version 7, this version uses {schema.SCHEMA_VERSION}: open it for writing once"
    assert want in done.stderr
    done = gostop("db", "rebuild", "--db", str(path))
    assert done.returncode == 0, done.stderr
    done = gostop("db", "verify", "--db", str(path))
    assert done.returncode == 0, done.stderr
    assert "5 game(s)" in done.stdout and "2 signed game(s)" in done.stdout


def test_every_version_before_this_one_has_a_fixture() -> None:
    """A new schema version: the last commit at the version before it writes the next
    fixture (tests/fixtures/stores/make_fixtures.sh)."""
    assert {p.name for p in FIXTURES.glob("v*.duckdb.gz")} == {f"v{n}.duckdb.gz" for n in VERSIONS}
    assert set(migrations.MIGRATIONS) == set(range(schema.SCHEMA_VERSION))
