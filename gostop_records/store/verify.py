"""Checking a store: every hash chain, and every projection table against a fresh rebuild.

An event changed in place (``UPDATE events SET payload = ...``), removed or inserted breaks
its game's hash chain at that seq, and the report names the game and the first broken seq.
The projection tables are compared row for row (as multisets) with the rows a rebuild would
derive now, so a table edited by hand, or left behind by an older version, shows up too.

What a valid chain cannot show is found too: every signed checkpoint and countersignature is
checked (:mod:`gostop_records.integrity.checkpoints`), and the store's heads chain (:mod:`.heads`)
names a game deleted, replaced or cut short. A game with such a loss is never told to run
``gostop db rebuild``, which would derive the tables from what is left.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from .. import log as L
from ..errors import Finding
from ..integrity import checkpoints as CP
from .bulk import row_source
from .connection import bounded_memory
from .heads import check as check_heads
from .people import check_people
from .reseal import check as check_resealed
from .schema import TABLES, quote
from .stored_events import Failure, fresh_rows, game_groups

if TYPE_CHECKING:
    from .handle import StoreHandle

__all__ = ["TableDiff", "VerifyReport", "chain_break", "type_mismatch", "verify"]


def chain_break(game_id: str, seq: int | None, reason: str) -> Finding:
    """A game's events that no longer chain from its first: changed, removed or inserted."""
    return Finding(game_id=game_id, seq=seq, rule="hash_chain", reason=reason)


def type_mismatch(game_id: str, seq: int, column: str, payload: str) -> Finding:
    """An event whose ``type`` column (outside the hash) disagrees with its payload."""
    reason = f"the type column says {column!r}, the payload is {payload!r}"
    return Finding(game_id=game_id, seq=seq, rule="type_column", reason=reason)


@dataclass(frozen=True, slots=True)
class TableDiff:
    """Rows of a table that a rebuild would not write (extra) or that are missing."""

    table: str
    game_id: str
    extra: int
    missing: int
    #: The game's events were changed too: its rows follow from that, a rebuild won't help.
    events_changed: bool = False

    def describe(self) -> str:
        hint = (
            "its events were changed or lost (see above): a rebuild would hide it"
            if self.events_changed
            else "run gostop db rebuild"
        )
        return (
            f"table {self.table}, game {self.game_id}: {self.extra} row(s) a rebuild would "
            f"not write, {self.missing} row(s) missing ({hint})"
        )


@dataclass(slots=True)
class VerifyReport:
    games: int = 0
    events: int = 0
    breaks: list[Finding] = field(default_factory=list)
    diffs: list[TableDiff] = field(default_factory=list)
    #: Games whose events decode and chain but do not replay (no projection to check).
    failed: list[Failure] = field(default_factory=list)
    #: What the store's heads chain recorded and the store no longer holds.
    heads: list[Finding] = field(default_factory=list)
    #: Every signature or checkpoint that does not hold.
    signatures: list[Finding] = field(default_factory=list)
    #: Games whose recorder signs, and their valid signatures.
    signed_games: int = 0
    valid_signatures: int = 0
    #: The people record's events and what is wrong with it (:mod:`.people`).
    person_events: int = 0
    people: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            not self.people
            and not self.breaks
            and not self.diffs
            and not self.failed
            and not self.heads
            and not self.signatures
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "games": self.games,
            "events": self.events,
            "chain_breaks": [b.to_dict() for b in self.breaks],
            "projection_diffs": [asdict(d) for d in self.diffs],
            "failed": [
                {"game_id": f.game_id, "seq": f.seq, "reason": f.reason, "rule": f.rule}
                for f in self.failed
            ],
            "heads": [h.to_dict() for h in self.heads],
            "signatures": [p.to_dict() for p in self.signatures],
            "signed_games": self.signed_games,
            "valid_signatures": self.valid_signatures,
            "person_events": self.person_events,
            "people": list(self.people),
        }

    def problems(self) -> list[str]:
        out = [str(f) for f in (*self.heads, *self.breaks, *self.signatures)]
        out += [str(f) for f in self.failed]
        out += [d.describe() for d in self.diffs]
        out += self.people
        return out


def verify(store: StoreHandle) -> VerifyReport:
    """Every game checked one group at a time, so memory does not grow with the store."""
    with bounded_memory(store.conn, store.path):
        return _verify(store)


def _verify(store: StoreHandle) -> VerifyReport:
    report = VerifyReport()
    conn = store.conn
    report.heads = check_heads(conn) + check_resealed(store)
    lost = {h.game_id for h in report.heads if h.game_id is not None}
    for group in game_groups(store):
        failed: list[Failure] = []
        rows, decoded = fresh_rows(store, group, failed)
        report.games += len(group)
        broken: set[str] = set()
        for gid in group:
            envs = decoded.get(gid)
            if envs is None:
                continue
            report.events += len(envs)
            result = L.verify(envs)
            if not result.ok:
                broken.add(gid)
                report.breaks.append(chain_break(gid, result.first_bad_seq, result.reason))
            signed = CP.check(envs)
            report.signed_games += signed.signed
            report.valid_signatures += sum(s.valid for s in signed.signatures)
            report.signatures.extend(p.at(game_id=gid) for p in signed.problems)
        for f in failed:
            if f.rule == "decode":
                # an unreadable payload was changed after it was sealed: a broken chain
                report.breaks.append(chain_break(f.game_id, f.seq, f.reason))
            elif f.game_id not in broken:
                report.failed.append(f)
        _compare(conn, group, rows, report, broken | {f.game_id for f in failed}, lost)
    _types(conn, report)
    _orphans(conn, report, lost)
    people = check_people(conn)
    report.person_events, report.people = people.events, list(people.problems)
    report.breaks.sort(key=lambda b: (b.game_id, b.seq or 0))
    return report


def _compare(
    conn: Any,
    group: list[str],
    rows: dict[str, list[tuple[Any, ...]]],
    report: VerifyReport,
    changed: set[str],
    lost: set[str],
) -> None:
    """Projection rows against fresh ones; a game with a loss is named by the heads check
    alone (its rows follow from what is left)."""
    for name, cols in TABLES.items():
        names = ", ".join(quote(c) for c, _ in cols)
        stored = f"SELECT {names} FROM {name} WHERE game_id IN (SELECT unnest($ids::VARCHAR[]))"
        with row_source(conn, cols, rows[name]) as fresh:
            found = conn.execute(
                f"""
                WITH s AS ({stored}), f AS ({fresh}),
                extra AS (SELECT game_id FROM (SELECT * FROM s EXCEPT ALL SELECT * FROM f)),
                missing AS (SELECT game_id FROM (SELECT * FROM f EXCEPT ALL SELECT * FROM s))
                SELECT game_id, sum(e), sum(m) FROM (
                    SELECT game_id, 1 AS e, 0 AS m FROM extra
                    UNION ALL SELECT game_id, 0, 1 FROM missing)
                GROUP BY game_id ORDER BY game_id
                """,
                {"ids": group},
            ).fetchall()
        for gid, extra, missing in found:
            if gid in lost:
                continue
            report.diffs.append(TableDiff(name, gid, int(extra), int(missing), gid in changed))


def _types(conn: Any, report: VerifyReport) -> None:
    """The ``type`` column is outside the hash: it must say what the payload is."""
    found = conn.execute(
        "SELECT game_id, seq, type, payload ->> 'type' FROM events "
        "WHERE type IS DISTINCT FROM payload ->> 'type' ORDER BY game_id, seq"
    ).fetchall()
    known = {(b.game_id, b.seq) for b in report.breaks}
    for gid, seq, column, payload in found:
        if (gid, seq) in known:
            continue  # the payload itself was changed: already named at this seq
        report.breaks.append(type_mismatch(gid, seq, column, payload))


def _orphans(conn: Any, report: VerifyReport, lost: set[str]) -> None:
    """Projection rows of games that have no events at all."""
    for name in TABLES:
        found = conn.execute(
            f"SELECT game_id, count(*) FROM {name} WHERE game_id NOT IN "
            "(SELECT DISTINCT game_id FROM events) GROUP BY game_id ORDER BY game_id"
        ).fetchall()
        for gid, n in found:
            if gid not in lost:
                report.diffs.append(TableDiff(name, gid, int(n), 0))
