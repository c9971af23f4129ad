"""``Store.append_group``: several games' appends in one transaction, all or none, and the
projection tables exactly as appends one by one (and a rebuild) leave them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gostop_records import events as E
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_payloads
from gostop_records.store import ConcurrencyError, Store
from gostop_records.store.append import Append

AT = "2026-11-30T20:00:00.000Z"


def entries(preset: str, players: int, seed: int, hands: int) -> tuple[str, list[list[Any]]]:
    """A simulated game cut into entries: each input with the consequences after it."""
    spec = GameSpec(PRESETS[preset], players, hands, seed, game_id=f"g-{preset}-{seed}")
    out: list[list[Any]] = []
    for _h, p in play_payloads(spec):
        if E.is_input(p) or not out:
            out.append([p])
        else:
            out[-1].append(p)
    return spec.id(), out


def test_grouped_appends_leave_the_tables_as_a_rebuild(tmp_path: Path) -> None:
    games = [
        entries("matgo", 2, 1, 2),
        entries("gostop3", 3, 2, 2),
        entries("gamerules", 3, 3, 1),
        entries("cardavia", 2, 4, 1),
    ]
    with Store(tmp_path / "g.duckdb") as store:
        version = {gid: 0 for gid, _ in games}
        for k in range(max(len(e) for _, e in games)):
            group = [Append(gid, es[k], version[gid], at=AT) for gid, es in games if k < len(es)]
            results = store.append_group(group)
            for r in results:
                version[r.game_id] = r.version
        report = store.verify()
        assert report.ok, report.problems()
        for gid, es in games:
            assert store.version(gid) == sum(len(e) for e in es)
        # the same games appended one by one give the same rows
        with Store(tmp_path / "one.duckdb") as one:
            for gid, es in games:
                v = 0
                for e in es:
                    v = one.append(gid, e, v, at=AT).version
            for table in ("games", "hands", "turns", "captures", "scores", "payouts"):
                q = f"SELECT * EXCLUDE (game_id) FROM {table} ORDER BY ALL"
                a = store.conn.execute(q).fetchall()
                b = one.conn.execute(q).fetchall()
                assert a == b, table


def test_a_refused_append_writes_nothing_of_the_group(tmp_path: Path) -> None:
    (g1, e1), (g2, e2) = entries("matgo", 2, 1, 1), entries("matgo", 2, 2, 1)
    with Store(tmp_path / "g.duckdb") as store:
        store.append_group([Append(g1, e1[0], 0), Append(g2, e2[0], 0)])
        with pytest.raises(ConcurrencyError):
            store.append_group([Append(g1, e1[1], 1), Append(g2, e2[1], 5)])
        assert store.version(g1) == 1 and store.version(g2) == 1
        with pytest.raises(Exception, match="once"):
            store.append_group([Append(g1, e1[1], 1), Append(g1, e1[2], 1)])
        done = store.append_group([Append(g1, e1[1], 1), Append(g2, e2[1], 1)])
        assert [r.version for r in done] == [1 + len(e1[1]), 1 + len(e2[1])]
        assert store.verify().ok
