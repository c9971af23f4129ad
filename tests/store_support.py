"""Helpers for the store tests: simulated games, log folders, a log that breaks a rule, the
records a journal holds."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import duckdb
import msgspec

from gostop_records import events as E
from gostop_records import log
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_game, simulate
from gostop_records.store import schema
from gostop_records.store.codec import event_row
from gostop_records.store.journal import read_records, segments
from gostop_records.store.schema import EVENT_COLUMNS

ROOT = Path(__file__).resolve().parent.parent


def games(
    preset: str = "matgo", players: int = 2, count: int = 3, hands: int = 2, seed: int = 1
) -> list[list[E.Envelope]]:
    return list(simulate(PRESETS[preset], players, count, hands, seed))


def every_preset(count: int = 2, hands: int = 2, seed: int = 11) -> list[list[E.Envelope]]:
    """Games of every preset at every player count it allows."""
    out = []
    for rules in PRESETS.values():
        for players in rules.players:
            out.extend(simulate(rules, players, count, hands, seed))
    return out


def one_game(
    preset: str = "gostop3",
    players: int = 3,
    hands: int = 2,
    seed: int = 5,
    game_id: str | None = None,
) -> list[E.Envelope]:
    return play_game(GameSpec(PRESETS[preset], players, hands, seed, game_id=game_id))


def write_games(
    folder: Path, logs: Sequence[list[E.Envelope]], per_file: int = 1, suffix: str = ".jsonl"
) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(0, len(logs), per_file):
        p = folder / f"games-{k:05d}{suffix}"
        log.write_log(p, [e for g in logs[k : k + per_file] for e in g])
        paths.append(p)
    return paths


def break_a_rule(game: list[E.Envelope]) -> tuple[list[E.Envelope], int]:
    """The game with its first played card swapped for one the seat does not hold.

    The hash chain is sealed again, so only the rules are broken. Returns the new log and
    the seq of the changed event.
    """
    dealt = next(e.event for e in game if type(e.event) is E.CardsDealt)
    out = list(game)
    for k, env in enumerate(out):
        ev = env.event
        if type(ev) is E.CardPlayed:
            other = next(
                c for c in dealt.hands[(ev.seat + 1) % len(dealt.hands)] if not c.startswith("B")
            )
            out[k] = msgspec.structs.replace(
                env,
                event=msgspec.structs.replace(ev, card=other, chosen=None),
                prev="",
                hash="",
            )
            return log.seal(out), env.seq
    raise AssertionError("no card_played in the game")


def gostop(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the command line in a fresh interpreter (what a user runs)."""
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "gostop_cli.app", *args],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        timeout=120,
    )


def journal_records(db: Path) -> tuple[list[dict[str, list[list[object]]]], int]:
    """The whole records of every segment of a store's journal, oldest first, and the
    bytes of torn tails."""
    out: list[dict[str, list[list[object]]]] = []
    torn = 0
    for path in segments(db):
        records, cut = read_records(path)
        out += records
        torn += cut
    return out, torn


#: ``events`` as schema versions 0 to 7 made it: ``prev`` stored before ``hash``.
V7_EVENT_COLUMNS = (*EVENT_COLUMNS[:-1], ("prev", "VARCHAR"), EVENT_COLUMNS[-1])


def v7_events_ddl() -> str:
    return schema._events_ddl(V7_EVENT_COLUMNS)


def v7_event_row(env: E.Envelope) -> tuple[object, ...]:
    """An ``events`` row as versions 0 to 7 wrote it (``prev`` before ``hash``)."""
    row = event_row(env)
    return (*row[:-1], env.prev, row[-1])


def as_version_7(conn: duckdb.DuckDBPyConnection) -> None:
    """Turn a store of this version back into the version 7 layout (``events.prev`` stored,
    in its place), as a store written before version 8 is."""
    before = ", ".join(schema.quote(c) for c, _ in EVENT_COLUMNS[:-1])
    conn.execute("BEGIN TRANSACTION")
    conn.execute(
        f"CREATE TABLE old AS SELECT {before}, {schema.PREV_SQL} AS prev, hash FROM events"
    )
    conn.execute("DROP TABLE events")
    conn.execute(v7_events_ddl())
    conn.execute("INSERT INTO events SELECT * FROM old")
    conn.execute("DROP TABLE old")
    conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    conn.execute("COMMIT")
