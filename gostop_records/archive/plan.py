"""What a build has to do: the logs scanned for their games, each game given to one unit.

The first pass over the logs (on the workers, a piece of a file each) reads only the
envelope's ``game_id``, ``seq``, ``at`` and ``hash`` of every line and returns the runs of
consecutive lines of one game, with their byte spans. From the runs the client knows every
game before any is checked: a game already archived with the same head is skipped, one
archived with other events is reported as changed, a game whose events lie in several runs
(a file cut into pieces, a game continued in another file) is read from all of them, and the
games to build are gathered by month into units of about :data:`UNIT_EVENTS` events: a unit
writes one file per table, in its month's partition.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from .. import log as L
from ..errors import Finding, LogError
from ..store.layout import month_of

__all__ = [
    "FILE_BYTES",
    "MIN_UNIT_EVENTS",
    "PIECE_BYTES",
    "UNIT_EVENTS",
    "Game",
    "Piece",
    "Plan",
    "RunInfo",
    "Scan",
    "Span",
    "Unit",
    "plan",
    "scan_piece",
]

#: Bytes of a log scanned as one task of the first pass.
PIECE_BYTES = 64 << 20
#: Events a unit of the second pass checks and writes: about 50 MB of event Parquet.
UNIT_EVENTS = 400_000
#: The units' files of one table and month are merged up to about this size.
FILE_BYTES = 128 << 20
#: A month is split into more units than its size asks, to keep every worker busy, only
#: down to this many events a unit: smaller files would cost readers more than it saves.
MIN_UNIT_EVENTS = 50_000


@dataclass(frozen=True, slots=True)
class Piece:
    path: str  # a local path or an fsspec URL
    index: int  # its place in the file
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class RunInfo:
    game_id: str
    first_seq: int
    last_seq: int
    head: str  # the hash of its last line
    at: str  # ``at`` of its first line
    start: int  # byte span of its lines in the file
    end: int
    line: int  # line of its first event, counted in the piece from 1
    events: int


@dataclass(slots=True)
class Scan:
    piece: Piece
    runs: list[RunInfo]
    lines: int  # lines that start in the piece
    error: tuple[int, str] | None = None  # (line in the piece, reason): the file stops there


class _Head(msgspec.Struct):
    game_id: str
    seq: int
    at: str = ""
    hash: str = ""


_head = msgspec.json.Decoder(_Head)


def _open(path: str) -> Any:
    from .target import open_fs

    fs, p = open_fs(path)
    return fs.open(p, "rb")


def scan_piece(piece: Piece) -> Scan:
    """The runs of the lines that start in ``[piece.start, piece.end)`` (on a worker)."""
    runs: list[RunInfo] = []
    cur: list[Any] = []  # game_id, first_seq, last_seq, head, at, start, end, line, events
    lines = 0
    error: tuple[int, str] | None = None
    with _open(piece.path) as f:
        pos = piece.start
        if pos > 0:
            f.seek(pos - 1)
            if f.read(1) != b"\n":
                pos += len(f.readline())  # the line that began in the piece before
        f.seek(pos)
        data = f.read(max(0, piece.end - pos))
        if data and not data.endswith(b"\n"):
            data += f.readline()  # the last line that starts in the piece, whole
    decode = _head.decode
    i, n = 0, len(data)
    while i < n:
        j = data.find(b"\n", i)
        j = n if j < 0 else j + 1
        line, start, end = data[i:j], pos + i, pos + j
        i = j
        lines += 1
        if start == 0 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if line.isspace() or not line:
            continue  # a blank line
        try:
            h = decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            try:
                L.decode_json_line(line, file=piece.path, lineno=lines)
                reason = "not an event envelope"
            except LogError as exc:
                reason = exc.what
            error = (lines, reason)
            break
        if cur and cur[0] == h.game_id and h.seq == cur[2] + 1:
            cur[2], cur[3], cur[6] = h.seq, h.hash, end
            cur[8] += 1
            continue
        if cur:
            runs.append(RunInfo(*cur))
        cur = [h.game_id, h.seq, h.seq, h.hash, h.at, start, end, lines, 1]
    if cur:
        runs.append(RunInfo(*cur))
    return Scan(piece, runs, lines, error)


@dataclass(frozen=True, slots=True)
class Span:
    """Lines of one game in a log: bytes ``[start, end)``, the first at ``line``."""

    path: str
    start: int
    end: int
    line: int
    first_seq: int


@dataclass(slots=True)
class Game:
    game_id: str
    month: str
    spans: list[Span]
    events: int
    head: str
    cut: Finding | None = None  # the file's read error that cut the game short


@dataclass(slots=True)
class Unit:
    number: int
    month: str
    games: list[Game]

    @property
    def events(self) -> int:
        return sum(g.events for g in self.games)


@dataclass(slots=True)
class Plan:
    units: list[Unit] = field(default_factory=list)
    skipped: int = 0  # games archived before with the same head
    duplicates: int = 0  # further copies of a game in this build, identical to the first
    changed: list[Finding] = field(default_factory=list)
    rejected: list[Finding] = field(default_factory=list)

    @property
    def games(self) -> int:
        return sum(len(u.games) for u in self.units)


def pieces(path: str, size: int, fs_size: int) -> list[Piece]:
    return [
        Piece(path, k, start, min(start + size, fs_size))
        for k, start in enumerate(range(0, max(fs_size, 1), size))
    ]


@dataclass(slots=True)
class _Copy:
    spans: list[Span]
    first_seq: int
    last_seq: int
    head: str
    at: str
    events: int
    source: str
    line: int
    cut: Finding | None = None

    def finding(self, game_id: str, seq: int | None, reason: str, rule: str = "") -> Finding:
        """Something found about this copy of a game, at its first line."""
        return Finding(
            file=self.source, line=self.line, game_id=game_id, seq=seq, rule=rule, reason=reason
        )


# Long: one pass over the scans in file order; the state it carries decides each game's fate.
def plan(
    scans: Sequence[Scan],
    archived: Mapping[str, tuple[str, int]],
    *,
    unit_events: int = UNIT_EVENTS,
    min_units: int = 1,
    min_unit_events: int = MIN_UNIT_EVENTS,
) -> Plan:
    """Every game of the scans given to a unit, or skipped, or reported (on the client).

    ``scans`` come in file order, each file's pieces in order; ``archived`` maps the game
    ids already in the archive to their head and number of events.
    """
    out = Plan()
    copies: dict[str, list[_Copy]] = {}
    order: list[str] = []
    stopped: set[str] = set()  # files whose read error was met
    base: dict[str, int] = {}  # lines of a file in the pieces before
    last_copy: _Copy | None = None
    for s in scans:
        path = s.piece.path
        if path in stopped:
            continue
        offset = base.get(path, 0)
        base[path] = offset + s.lines
        for r in s.runs:
            span = Span(path, r.start, r.end, offset + r.line, r.first_seq)
            have = copies.get(r.game_id)
            if have and have[-1].last_seq + 1 == r.first_seq and have[-1].cut is None:
                c = have[-1]  # the game goes on: a piece cut it, or a later file continues it
                c.spans.append(span)
                c.last_seq, c.head, c.events = r.last_seq, r.head, c.events + r.events
            else:
                c = _Copy([span], r.first_seq, r.last_seq, r.head, r.at, r.events, path, span.line)
                if have is None:
                    copies[r.game_id] = [c]
                    order.append(r.game_id)
                else:
                    have.append(c)
            last_copy = c
        if s.error is not None:
            line, reason = s.error
            stopped.add(path)
            problem = Finding(
                file=path, reason=f"{reason}; the rest of the file was not read", line=offset + line
            )
            out.rejected.append(problem)
            if last_copy is not None and last_copy.spans[-1].path == path:
                last_copy.cut = problem

    todo: list[Game] = []
    for gid in order:
        first, *others = copies[gid]
        for o in others:
            if (o.first_seq, o.last_seq, o.head) == (first.first_seq, first.last_seq, first.head):
                out.duplicates += 1
                continue
            out.rejected.append(
                o.finding(
                    gid,
                    o.first_seq,
                    f"seqs {o.first_seq}..{o.last_seq} of the game do not continue the game "
                    f"read from {first.source} line {first.line} (seqs {first.first_seq}.."
                    f"{first.last_seq}); that one is archived",
                    "game_conflict",
                )
            )
        if first.cut is not None:
            out.rejected.append(
                first.finding(
                    gid,
                    first.last_seq + 1,
                    "the game's log ends at a line that cannot be read; not archived",
                )
            )
            continue
        if gid in archived:
            head, events = archived[gid]
            if (head, events) == (first.head, first.last_seq):
                out.skipped += 1
            else:
                out.changed.append(
                    first.finding(
                        gid,
                        None,
                        f"differs from the archived game ({events} events, head {head[:12]}); "
                        f"this log has {first.last_seq} events, head {first.head[:12]}: the "
                        "archive keeps what it holds",
                        "game_changed",
                    )
                )
            continue
        if first.first_seq != 1:
            out.rejected.append(
                first.finding(
                    gid,
                    first.first_seq,
                    f"the game starts at seq {first.first_seq}: its earlier events are in no "
                    "log given; the archive holds whole games from seq 1",
                    "game_start",
                )
            )
            continue
        todo.append(Game(gid, month_of(first.at), first.spans, first.events, first.head))
    out.units = _units(todo, unit_events, min_units, min_unit_events)
    return out


def _units(
    games: Iterable[Game], unit_events: int, min_units: int, min_unit_events: int
) -> list[Unit]:
    by_month: dict[str, list[Game]] = {}
    for g in games:
        by_month.setdefault(g.month, []).append(g)
    total = sum(g.events for gs in by_month.values() for g in gs)
    # enough units to keep every worker busy, never more events in one than unit_events
    size = max(1, min(unit_events, max(min_unit_events, -(-total // max(1, min_units)))))
    units: list[Unit] = []
    for month in sorted(by_month):
        cur: list[Game] = []
        held = 0
        for g in by_month[month]:
            if cur and held + g.events > size:
                units.append(Unit(len(units), month, cur))
                cur, held = [], 0
            cur.append(g)
            held += g.events
        if cur:
            units.append(Unit(len(units), month, cur))
    return units


def log_files(paths: Iterable[str]) -> tuple[list[tuple[str, int]], list[Finding]]:
    """The JSON Lines logs named, or found (recursively, sorted) in folders, with their
    sizes; and the paths that are not such logs."""
    from .target import open_fs

    out: list[tuple[str, int]] = []
    problems: list[Finding] = []
    for raw in paths:
        fs, p = open_fs(os.fspath(raw))
        local = "://" not in os.fspath(raw)

        def name(x: str, fs: object = fs, local: bool = local) -> str:
            return x if local else fs.unstrip_protocol(x)  # type: ignore[attr-defined]

        if fs.isdir(p):
            found = sorted(
                f for f in fs.find(p) if os.path.splitext(f)[1].lower() in (".jsonl", ".ndjson")
            )
            out.extend((name(f), fs.size(f)) for f in found)
        elif fs.isfile(p):
            suffix = os.path.splitext(p)[1].lower()
            if suffix in L.JSONL_SUFFIXES:
                out.append((name(p), fs.size(p)))
            else:
                problems.append(
                    Finding(
                        file=os.fspath(raw),
                        reason="the archive reads JSON Lines logs (.jsonl, .ndjson); store a "
                        "msgpack log with gostop db import",
                    )
                )
        else:
            problems.append(Finding(file=os.fspath(raw), reason="no such file or folder"))
    return out, problems
