"""Backups (``gostop db backup``, ``POST /api/backup``, ``gostop serve --backup-every
--keep``) and restores (``gostop db restore``), against real stores and a real server.

A backup taken over HTTP while four tables record is the store at one point: restored and
verified, every event it holds is in the final store with the same hash, its heads chain is
the final store's up to the tip the backup answered, and each game holds exactly the events
that chain counts for it then. A backup that does not verify is refused by restore and leaves
nothing behind; a request never chooses a path on the server.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest
from service_helpers import KEY, Server, auth, hand_lines, service_client

from gostop_records.store.backup import prune, stamped_names

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def _gostop(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "gostop_cli.app", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **(env or {})},
    )


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = duckdb.connect(str(db), read_only=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _events(db: Path) -> set[tuple[str, int, str]]:
    return set(_rows(db, "SELECT game_id, seq, hash FROM events"))  # type: ignore[arg-type]


def _heads(db: Path) -> list[tuple[Any, ...]]:
    return _rows(db, "SELECT entry, kind, game_id, seq, head, hash FROM heads ORDER BY entry")


def _no_leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


class _Recorder(threading.Thread):
    """One table recording hand after hand, as fast as the server answers, until told."""

    def __init__(self, url: str, seed: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.url, self.seed, self.stop = url, seed, stop
        self.entries = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with httpx.Client(base_url=self.url, timeout=30) as http:
                seed = self.seed
                while not self.stop.is_set():
                    self._one_hand(http, seed)
                    seed += 10
        except BaseException as exc:  # reported by the test
            self.error = exc

    def _one_hand(self, http: httpx.Client, seed: int) -> None:
        r = http.post("/api/games", json={"players": ["Ann", "Ben"]}, headers=auth(KEY))
        assert r.status_code == 201, r.text
        game = r.json()
        gid, version = game["game_id"], game["version"]
        _sim, lines = hand_lines("matgo", 2, seed)
        for line in lines:
            if self.stop.is_set():
                return
            r = http.post(
                f"/api/games/{gid}/entries",
                json={"entry": line, "expected_version": version},
                headers={**auth(game["recorder_token"]), "Idempotency-Key": f"{gid}-{version}"},
            )
            assert r.status_code == 201, r.text
            version = r.json()["version"]
            self.entries += 1


def test_a_backup_taken_while_four_tables_record_is_the_store_at_its_point(
    tmp_path: Path,
) -> None:
    db, folder = tmp_path / "club.duckdb", tmp_path / "kept"
    stop = threading.Event()
    with Server(db, None, "--backup-dir", str(folder)) as server:
        tables = [_Recorder(server.url, seed, stop) for seed in (1, 2, 3, 4)]
        for t in tables:
            t.start()
        deadline = time.monotonic() + 60
        while min(t.entries for t in tables) < 8 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(t.error is None for t in tables), [t.error for t in tables]
        r = server.http.post("/api/backup", headers=auth(KEY))
        assert r.status_code == 201, r.text
        taken = r.json()
        after = sum(t.entries for t in tables)
        while sum(t.entries for t in tables) < after + 40 and time.monotonic() < deadline:
            time.sleep(0.05)  # the tables go on recording after the backup
        stop.set()
        for t in tables:
            t.join(timeout=60)
        assert all(t.error is None for t in tables), [t.error for t in tables]
    backup = folder / taken["name"]
    assert backup.is_file() and backup.stat().st_size == taken["size"]
    assert taken["name"].startswith("club-") and taken["name"].endswith("Z.duckdb")
    assert _no_leftovers(folder) == []

    restored = tmp_path / "restored.duckdb"
    done = _gostop("db", "restore", str(backup), "--db", str(restored))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified" in done.stdout
    done = _gostop("db", "verify", "--db", str(restored))
    assert done.returncode == 0, done.stdout + done.stderr

    tip = taken["heads_tip"]
    then, final = _heads(restored), _heads(db)
    assert then[-1][0] == tip["entry"] and then[-1][-1] == tip["hash"]
    assert then == final[: len(then)]  # the backup's heads chain is a prefix of the store's
    assert len(final) > len(then)  # entries were recorded after it
    events = _events(restored)
    assert len(events) == taken["events"]
    assert events <= _events(db)  # every event, at its seq, with its hash
    # each game holds exactly the events the heads chain counted for it at the tip
    counted: dict[str, tuple[int, str]] = {}
    for _entry, _kind, gid, n, head, _hash in then:
        if gid is not None:
            counted[gid] = (n, head)
    held = dict.fromkeys(counted, (0, None))
    for gid, n, head in _rows(
        restored, "SELECT game_id, max(seq), arg_max(hash, seq) FROM events GROUP BY game_id"
    ):
        held[gid] = (n, head)
    assert held == counted
    assert len(counted) == taken["games"] >= 4


def test_db_backup_of_a_store_no_server_holds_applies_its_journal_first(tmp_path: Path) -> None:
    from test_store_journal import GAMES, _expected, _killed_after_sync

    from gostop_records.store.journal import segments

    db = tmp_path / "s.duckdb"
    _killed_after_sync(db, upto=5)  # acknowledged entries in the journal, none in DuckDB
    assert segments(db)
    copy = tmp_path / "copy.duckdb"
    done = _gostop("db", "backup", str(copy), "--db", str(db), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"heads_tip"' in done.stdout and not segments(db)
    versions = dict(_rows(copy, "SELECT game_id, max(seq) FROM events GROUP BY game_id"))
    assert versions == _expected(5) and len(versions) == len(GAMES)
    assert _events(copy) == _events(db) and _heads(copy) == _heads(db)
    done = _gostop("db", "verify", "--db", str(copy))
    assert done.returncode == 0, done.stdout + done.stderr
    # a second backup over the first is refused: a backup is never overwritten
    again = _gostop("db", "backup", str(copy), "--db", str(db))
    assert again.returncode != 0 and "exists already" in again.stderr


def test_restore_over_a_store_with_a_journal_left_behind_applies_none_of_it(
    tmp_path: Path,
) -> None:
    from test_store_journal import _killed_after_sync

    from gostop_records.store.journal import segments

    backup, db = tmp_path / "b.duckdb", tmp_path / "s.duckdb"
    other = tmp_path / "other.duckdb"
    assert _gostop("db", "import", str(SAMPLES / "go-1.jsonl"), "--db", str(other)).returncode == 0
    assert _gostop("db", "backup", str(backup), "--db", str(other)).returncode == 0
    _killed_after_sync(db, upto=3)  # a store a killed server left, its journal beside it
    done = _gostop("db", "restore", str(backup), "--db", str(db), "--force")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not segments(db) and _events(db) == _events(backup)
    done = _gostop("db", "verify", "--db", str(db))  # opened again: still the backup alone
    assert done.returncode == 0 and _events(db) == _events(backup), done.stderr


def test_db_backup_of_a_store_a_server_holds_asks_the_server(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with Server(db) as server:
        done = _gostop("db", "backup", "copy.duckdb", "--db", str(db))
        assert done.returncode != 0 and "--server" in done.stderr
        env = {"GOSTOP_SERVER_KEY": KEY}
        done = _gostop("db", "backup", "mine.duckdb", "--server", server.url, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert (tmp_path / "backups" / "mine.duckdb").is_file()  # beside the store
        done = _gostop("db", "backup", "../up.duckdb", "--server", server.url, env=env)
        assert done.returncode == 2 and "file name only" in done.stderr
        done = _gostop("db", "backup", "--server", server.url, env={"GOSTOP_SERVER_KEY": ""})
        assert done.returncode == 1 and "server key" in done.stderr


def test_a_tampered_backup_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    db, backup = tmp_path / "s.duckdb", tmp_path / "b.duckdb"
    assert _gostop("db", "import", str(SAMPLES / "go-1.jsonl"), "--db", str(db)).returncode == 0
    assert _gostop("db", "backup", str(backup), "--db", str(db)).returncode == 0
    conn = duckdb.connect(str(backup))
    conn.execute(  # a flip's seat changed in place: the chain breaks at that seq
        "UPDATE events SET payload = replace(payload::VARCHAR, '\"seat\":0', '\"seat\":1')::JSON "
        "WHERE seq = 5"
    )
    conn.close()
    target = tmp_path / "restored.duckdb"
    done = _gostop("db", "restore", str(backup), "--db", str(target))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "seq 5" in done.stderr and "does not verify" in done.stderr
    assert not target.exists() and _no_leftovers(tmp_path) == []
    # nor over an existing store, with --force: that store is left as it was
    before = _events(db)
    done = _gostop("db", "restore", str(backup), "--db", str(db), "--force")
    assert done.returncode == 1 and _events(db) == before
    # a file that is no store at all
    junk = tmp_path / "junk.duckdb"
    junk.write_bytes(b"not a database" * 100)
    done = _gostop("db", "restore", str(junk), "--db", str(target))
    assert done.returncode == 1 and not target.exists(), done.stderr


def test_restore_refuses_to_overwrite_without_force_and_never_a_held_store(
    tmp_path: Path,
) -> None:
    db, backup = tmp_path / "s.duckdb", tmp_path / "b.duckdb"
    assert _gostop("db", "import", str(SAMPLES / "go-2.jsonl"), "--db", str(db)).returncode == 0
    assert _gostop("db", "backup", str(backup), "--db", str(db)).returncode == 0
    other = tmp_path / "other.duckdb"
    assert _gostop("db", "import", str(SAMPLES / "go-1.jsonl"), "--db", str(other)).returncode == 0
    done = _gostop("db", "restore", str(backup), "--db", str(other))
    assert done.returncode == 1 and "--force" in done.stderr
    done = _gostop("db", "restore", str(backup), "--db", str(other), "--force")
    assert done.returncode == 0, done.stderr
    assert _events(other) == _events(db)
    with Server(other):
        done = _gostop("db", "restore", str(backup), "--db", str(other), "--force")
        assert done.returncode == 1 and "in use" in done.stderr


def test_a_request_never_chooses_a_path_and_needs_the_server_key(tmp_path: Path) -> None:
    folder = tmp_path / "kept"
    with service_client(tmp_path / "s.duckdb", backup_dir=str(folder), backup_keep=2) as client:
        assert client.post("/api/backup").status_code == 401
        assert client.post("/api/backup", headers=auth("not-the-key")).status_code == 403
        game = client.post("/api/games", json={"players": ["Ann", "Ben"]}, headers=auth(KEY))
        token = game.json()["recorder_token"]
        assert client.post("/api/backup", headers=auth(token)).status_code == 403
        for name in (
            "../up.duckdb",
            "/tmp/abs.duckdb",
            "sub/x.duckdb",
            ".hidden.duckdb",
            "x.txt",
            "a..b.duckdb",
            "x.duckdb\x00",
        ):
            r = client.post("/api/backup", json={"name": name}, headers=auth(KEY))
            assert r.status_code == 400, (name, r.text)
        r = client.post("/api/backup", json={"path": "/tmp/x.duckdb"}, headers=auth(KEY))
        assert r.status_code == 400, r.text
        assert not folder.exists() or not any(folder.iterdir())
        assert not (tmp_path / "up.duckdb").exists()

        # --keep 2: the two newest named by their time stay; a named one is never pruned
        r = client.post("/api/backup", json={"name": "mine.duckdb"}, headers=auth(KEY))
        assert r.status_code == 201, r.text
        r = client.post("/api/backup", json={"name": "mine.duckdb"}, headers=auth(KEY))
        assert r.status_code == 409, r.text
        names = []
        for _ in range(3):
            r = client.post("/api/backup", headers=auth(KEY))
            assert r.status_code == 201, r.text
            names.append(r.json()["name"])
        assert r.json()["removed"] == names[:1]
        assert sorted(p.name for p in folder.iterdir()) == sorted(["mine.duckdb", *names[1:]])
        assert "/" not in r.text and str(tmp_path) not in r.text


def test_prune_keeps_the_newest_by_their_time(tmp_path: Path) -> None:
    names = [
        "club-20261205T120000Z.duckdb",
        "club-20261206T000000Z.duckdb",
        "club-20261206T000000Z-2.duckdb",
        "club-20261206T060000Z.duckdb",
        "before-the-final.duckdb",
        ".club-20261206T070000Z.duckdb.partial",
    ]
    for n in names:
        (tmp_path / n).write_bytes(b"")
    assert [p.name for p in stamped_names(tmp_path)] == names[:4]
    removed = prune(tmp_path, 2)
    assert [p.name for p in removed] == names[:2]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[2:])


def test_serve_backs_up_on_its_own_and_keeps_the_newest(tmp_path: Path) -> None:
    db, folder = tmp_path / "s.duckdb", tmp_path / "kept"
    seen: set[str] = set()
    args = ("--backup-every", "1s", "--keep", "2", "--backup-dir", str(folder))
    with Server(db, None, *args) as server:
        deadline = time.monotonic() + 30
        while len(seen) < 4 and time.monotonic() < deadline:
            now = {p.name for p in stamped_names(folder)}
            assert len(now) <= 3  # a new one, for a moment, before the oldest goes
            seen |= now
            time.sleep(0.1)
    assert len(seen) >= 4, seen
    out, err = server.proc.communicate(timeout=30)
    assert "every 1s into" in out and "the 2 newest kept" in out  # the banner
    assert "gostop serve:" in err and " backup " in err and "removed (--keep 2)" in err, err
    left = [p.name for p in stamped_names(folder)]
    assert 2 <= len(left) <= 3 and set(left) <= seen | set(left)
    done = _gostop("db", "restore", str(folder / left[-1]), "--db", str(tmp_path / "r.duckdb"))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("every", ["0s", "soon", "1x"])
def test_backup_every_needs_a_duration(tmp_path: Path, every: str) -> None:
    done = _gostop("serve", "--db", str(tmp_path / "s.duckdb"), "--backup-every", every)
    assert done.returncode == 2 and "--backup-every" in done.stderr


def test_a_checkpoint_refused_copies_duckdbs_log_along(tmp_path: Path) -> None:
    """When DuckDB will not checkpoint (a reader holds it back), its write-ahead log is
    copied with the file, and the copy, opened, holds every event."""
    from gostop_records.store import Store
    from gostop_records.store.backup import backup

    class _NoCheckpoint:
        def __init__(self, conn: Any) -> None:
            self._conn = conn

        def execute(self, sql: str, *args: Any) -> Any:
            if sql.strip().upper() == "CHECKPOINT":
                raise duckdb.TransactionException("Cannot CHECKPOINT: other transactions")
            return self._conn.execute(sql, *args)

        def __getattr__(self, name: str) -> Any:
            return getattr(self._conn, name)

    db = tmp_path / "s.duckdb"
    with Store(db) as store:
        store.import_paths([SAMPLES / "go-1.jsonl"], workers=0)
        wal = db.with_name(db.name + ".wal")
        assert wal.exists() and wal.stat().st_size > 0  # the import is in DuckDB's log
        real = store._conn
        store._conn = _NoCheckpoint(real)  # type: ignore[assignment]
        try:
            info = backup(store, tmp_path / "b.duckdb")
        finally:
            store._conn = real
        expected = _events_of(store)
    assert not (tmp_path / "b.duckdb.wal").exists() and _no_leftovers(tmp_path) == []
    assert _events(tmp_path / "b.duckdb") == expected and info.events == len(expected)


def _events_of(store: Any) -> set[tuple[str, int, str]]:
    return set(store.conn.execute("SELECT game_id, seq, hash FROM events").fetchall())


def test_a_restarted_server_backs_up_at_once_when_the_newest_backup_is_old(
    tmp_path: Path,
) -> None:
    import os

    db, folder = tmp_path / "s.duckdb", tmp_path / "kept"
    folder.mkdir()
    old = folder / "s-20200101T000000Z.duckdb"
    old.write_bytes(b"")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    (folder / ".s-20200101T000001Z.duckdb.partial").write_bytes(b"")  # a stop cut it short
    args = ("--backup-every", "1h", "--keep", "1", "--backup-dir", str(folder))
    with Server(db, None, *args):
        deadline = time.monotonic() + 30
        while old.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
    left = [p.name for p in stamped_names(folder)]
    assert not old.exists() and len(left) == 1 and left[0] != old.name
    assert _no_leftovers(folder) == []
