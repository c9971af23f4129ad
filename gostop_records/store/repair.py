"""Mending the heads chain a stale tip damaged, visibly: ``gostop db repair``.

Earlier versions chained the journal's heads entries after a tip remembered in memory, which
an import (or a rebuild) in between left stale. Every acknowledged event went in and every
game's own hash chain holds, but the heads chain (:mod:`.heads`) was damaged two ways, and
``gostop db verify`` failed from then on, after a rebuild too:

- an entry numbered like one the import had written was ignored at recovery while its
  events went in: they are past their game's latest entry ("seq 6..8 are not in the heads
  chain ... written outside gostop"), or the game has no entry at all;
- the entry after it was chained to the ignored one: "entry 5 does not follow the entry
  before it".

The repair mends exactly that, in one transaction:

- from the first broken link on, every entry is chained again: its ``prev`` and ``hash``
  recomputed, its number and other fields kept;
- every game whose events go on past its latest entry, from the head that entry recorded
  (from seq 1 for a game without one), gets a ``repaired`` entry counting them;
- a last ``repaired`` entry (no game) records what was done in its ``detail``: the games
  adopted with their seq ranges, the broken links, and each re-linked entry with its old
  ``prev`` and ``hash``, so the repair shows and can be audited.

It refuses, changing nothing (:class:`RepairError`), over any other damage, which a repair
would hide: a game's own event chain broken, events the chain recorded missing or replaced
(a loss: ``gostop db rebuild --accept-loss`` is the tool, and records it), an entry removed
(a gap in the numbers) or changed (its hash does not follow from its own ``prev``). What it
cannot tell apart from the journal's events are events a program added behind the chain's
back: the ``repaired`` entries name every game and seq adopted, for an audit to judge.

A store seal (``gostop seal --db``) taken before the repair, of an entry after the first
broken link, no longer matches: that entry's hash changed. The repair's record keeps the old
hashes, and ``gostop verify --db --seal`` finds such a seal there and says it was held
before the repair of that date (:func:`.heads.check_seal`). It does not say the seal holds:
the old hashes are the repair's word, which whoever holds the file could write as well.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from .. import log as L
from ..errors import GostopError, LogError
from .bulk import insert_rows
from .connection import bounded_memory
from .heads import ENTRY_SELECT, chain_rows, entry_digest, losses, tip, writing
from .rebuild import games_behind
from .schema import HEADS_COLUMNS
from .stored_events import decode_game, game_groups
from .verify import chain_break, type_mismatch
from .writer import transaction

if TYPE_CHECKING:
    import duckdb

    from .handle import StoreHandle

__all__ = ["Adopted", "Relinked", "RepairError", "RepairReport", "repair"]

_LINKS = (("entry", "BIGINT"), ("prev", "VARCHAR"), ("hash", "VARCHAR"))


@dataclass(frozen=True, slots=True)
class Relinked:
    """An entry chained again: its old link and hash, and the new ones."""

    entry: int
    old_prev: str
    old_hash: str
    prev: str
    hash: str


@dataclass(frozen=True, slots=True)
class Adopted:
    """A game's events past its latest entry, counted by a new ``repaired`` entry."""

    game_id: str
    after_entry: int | None  # the game's latest entry before; None when it had none
    first: int  # the first seq adopted
    last: int  # the game's last seq, which the new entry counts
    head: str
    entry: int  # the new entry's number

    def describe(self) -> str:
        seqs = f"seq {self.first}" if self.first == self.last else f"seq {self.first}..{self.last}"
        after = (
            f"past its latest entry {self.after_entry}"
            if self.after_entry is not None
            else "no entry before"
        )
        return f"game {self.game_id}: {seqs} ({after}) counted by entry {self.entry}"


@dataclass(slots=True)
class RepairReport:
    dry_run: bool = False
    #: Entries that did not follow the entry before them.
    broken_links: list[int] = field(default_factory=list)
    #: Every entry from the first broken link on.
    relinked: list[Relinked] = field(default_factory=list)
    adopted: list[Adopted] = field(default_factory=list)
    #: The record's entry (written, or the number it would have in a dry run).
    entry: int | None = None
    at: str | None = None
    #: Games whose projection rows are behind their events: ``gostop db rebuild`` is next.
    behind: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.relinked or self.adopted)

    def record(self) -> dict[str, Any]:
        """The ``detail`` of the repair's own entry."""
        return {
            "adopted": [
                {
                    "game_id": a.game_id,
                    "entry": a.entry,
                    "after_entry": a.after_entry,
                    "seq": [a.first, a.last],
                }
                for a in self.adopted
            ],
            "broken_links": self.broken_links,
            "relinked": [
                {"entry": r.entry, "prev": r.old_prev, "hash": r.old_hash} for r in self.relinked
            ],
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "changed": self.changed,
            "entry": self.entry if self.changed else None,
            "recorded_at": self.at if self.changed else None,
            "broken_links": self.broken_links,
            "relinked": [asdict(r) for r in self.relinked],
            "adopted": [asdict(a) for a in self.adopted],
            "projections_behind": self.behind,
        }

    def lines(self) -> list[str]:
        """What was done (or would be, in a dry run), for people."""
        if not self.changed:
            return ["nothing to repair: the heads chain is whole and counts every event"]
        dry = self.dry_run
        out = []
        if self.relinked:
            first, last = self.relinked[0].entry, self.relinked[-1].entry
            which = f"entry {first}" if first == last else f"entries {first}..{last}"
            links = ", ".join(str(n) for n in self.broken_links)
            out.append(
                f"{'would re-link' if dry else 're-linked'} {which} of the heads "
                f"chain (broken link(s) at entry {links}); their old prev and hash kept in the "
                "repair's record"
            )
        out += [f"{'would adopt' if dry else 'adopted'} {a.describe()}" for a in self.adopted]
        out.append(
            f"{'would record' if dry else 'recorded'} the repair as entry {self.entry} (kind "
            "repaired)" + ("" if dry else f" at {self.at}")
        )
        if self.behind:
            out.append(
                f"the projection rows of {len(self.behind)} game(s) are behind their events: "
                "run gostop db rebuild next"
            )
        return out


class RepairError(GostopError):
    """``db repair`` refuses: the store's damage is not the stale tip's; nothing changed."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        shown = "; ".join(problems[:5])
        more = f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
        super().__init__(
            f"refusing to repair: {shown}{more}. Nothing was changed. The repair mends only "
            "a heads chain a stale tip damaged (entries that do not follow, events past a "
            "game's latest entry); events missing or replaced are a loss, which gostop db "
            "rebuild --accept-loss records; a broken event chain or a changed or removed "
            "entry is for gostop db verify to show, not for a repair to cover"
        )


def repair(store: StoreHandle, *, dry_run: bool = False) -> RepairReport:
    """Mend the heads chain (see the module docstring); with ``dry_run`` only say how.
    Raises :class:`RepairError` over damage it does not mend."""
    conn = store.conn
    with bounded_memory(conn, store.path), writing(store.path):
        report = _plan(store)
        report.dry_run = dry_run
        if report.changed and not dry_run:
            with transaction(conn):
                _write(conn, report)
    return report


def _plan(store: StoreHandle) -> RepairReport:
    conn = store.conn
    refused = _event_breaks(store)
    refused += [f"game {x.game_id}: {x.reason}" for x in losses(conn)]
    report = RepairReport(at=L.now())
    rows = conn.execute(f"SELECT {ENTRY_SELECT} FROM heads ORDER BY entry").fetchall()
    refused += _relink(rows, report)
    if refused:
        raise RepairError(refused)
    n = int(rows[-1][0]) if rows else 0
    tails = conn.execute(
        """
        WITH last AS (SELECT game_id, max(entry) AS entry, arg_max(seq, entry) AS seq
                      FROM heads WHERE game_id IS NOT NULL GROUP BY game_id),
        held AS (SELECT game_id, max(seq) AS n, arg_max(hash, seq) AS h
                 FROM events GROUP BY game_id)
        SELECT h.game_id, l.entry, coalesce(l.seq, 0), h.n, h.h
        FROM held h LEFT JOIN last l USING (game_id)
        WHERE h.n > coalesce(l.seq, 0) ORDER BY h.game_id
        """
    ).fetchall()
    for gid, after, seq, last, head in tails:
        n += 1
        report.adopted.append(
            Adopted(
                str(gid), None if after is None else int(after), int(seq) + 1, int(last), head, n
            )
        )
    report.entry = n + 1
    report.behind = games_behind(conn)
    return report


def _event_breaks(store: StoreHandle) -> list[str]:
    """Every game's own chain, as ``db verify`` checks it, and the type column."""
    out: list[str] = []
    for group in game_groups(store):
        for gid, stored in store.games_events(group).items():
            try:
                envs = decode_game(store, stored)
            except LogError as exc:
                out.append(str(chain_break(gid, exc.seq, exc.reason)))
                continue
            result = L.verify(envs)
            if not result.ok:
                out.append(str(chain_break(gid, result.first_bad_seq, result.reason)))
    for gid, seq, column, payload in store.conn.execute(
        "SELECT game_id, seq, type, payload ->> 'type' FROM events "
        "WHERE type IS DISTINCT FROM payload ->> 'type' ORDER BY game_id, seq"
    ).fetchall():
        out.append(str(type_mismatch(gid, seq, column, payload)))
    return out


def _relink(rows: list[tuple[Any, ...]], report: RepairReport) -> list[str]:
    """The new links from the first broken one on, into ``report``; what it refuses."""
    expected, old, new = 1, L.GENESIS, L.GENESIS
    for row in rows:
        entry, fields, prev, digest = int(row[0]), row[:7], row[7], row[8]
        if entry != expected:
            gap = (
                f"entry {expected}" if entry == expected + 1 else f"entries {expected}..{entry - 1}"
            )
            return [f"heads chain: {gap} missing (removed?): the numbers are not dense"]
        if entry_digest(prev, fields) != digest:
            return [f"heads chain: entry {entry} ({row[1]}) was changed after it was written"]
        if prev != old:
            report.broken_links.append(entry)
        if report.broken_links:
            relinked = entry_digest(new, fields)
            report.relinked.append(Relinked(entry, prev, digest, new, relinked))
        else:
            relinked = digest
        old, new, expected = digest, relinked, entry + 1
    return []


def _write(conn: duckdb.DuckDBPyConnection, report: RepairReport) -> None:
    if report.relinked:
        temp = "temp.repair_links"
        conn.execute(
            f"CREATE OR REPLACE TEMP TABLE {temp} (entry BIGINT, prev VARCHAR, hash VARCHAR)"
        )
        insert_rows(conn, temp, _LINKS, [(r.entry, r.prev, r.hash) for r in report.relinked])
        conn.execute(
            f"UPDATE heads SET prev = l.prev, hash = l.hash FROM {temp} l "
            "WHERE heads.entry = l.entry"
        )
        conn.execute(f"DROP TABLE {temp}")
    after = tip(conn)  # the last entry, re-linked or not
    rows: list[tuple[Any, ...]] = []
    for a in report.adopted:
        detail = json.dumps({"after_entry": a.after_entry, "seq": [a.first, a.last]})
        new, after = chain_rows(
            [("repaired", a.game_id, a.last, a.head)], after, detail, at=report.at
        )
        rows += new
    detail = json.dumps(report.record(), sort_keys=True, ensure_ascii=False)
    new, after = chain_rows([("repaired", None, 0, None)], after, detail, at=report.at)
    rows += new
    assert after[0] == report.entry, (after, report.entry)
    insert_rows(conn, "heads", HEADS_COLUMNS, rows)
