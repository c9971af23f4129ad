"""``gostop validate``: check logs line by line, chain by chain, rule by rule.

Three checks, each naming the file, the line, the seq, the rule and the reason:

- reading: every line must decode into a typed envelope (malformed JSON, a missing field, an
  unknown card, a value out of range); a bad line is reported and the rest is still read;
- the hash chain of each game (``log.verify``): the first event that was changed, removed,
  inserted or reordered;
- the rules (the projector): strict mode stops at a game's first violation, ``--lenient``
  reports every disagreement between the record and the rules.

Exit code 0 when every file is valid, 1 otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated

import typer

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.errors import LogError, ProjectionError
from gostop_records.projector import Projector

from . import common

__all__ = ["Finding", "Report", "validate", "validate_files"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One error (or warning) in a log, with everything needed to find and understand it."""

    file: str
    line: int | None
    game_id: str | None
    seq: int | None
    rule: str
    reason: str
    severity: str = "error"

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line is not None else "")
        parts = []
        if self.game_id is not None:
            parts.append(f"game {self.game_id}")
        if self.seq is not None:
            parts.append(f"seq {self.seq}")
        ctx = (" " + " ".join(parts) + ":") if parts else ""
        label = "" if self.severity == "error" else f" {self.severity}:"
        reason = self.reason
        if self.seq is not None and reason.startswith(f"seq {self.seq}: "):
            reason = reason[len(f"seq {self.seq}: ") :]
        return f"{where}:{label}{ctx} {reason} [rule: {self.rule}]"


@dataclass(slots=True)
class Report:
    files: int = 0
    games: int = 0
    events: int = 0
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        warn = f", {len(self.warnings)} warning(s)" if self.warnings else ""
        verdict = "valid" if self.valid else "INVALID"
        return (
            f"{self.files} file(s), {self.games} game(s), {self.events} event(s): "
            f"{len(self.errors)} error(s){warn}: {verdict}"
        )


def _records(path: Path) -> Iterator[tuple[int, E.Envelope | LogError]]:
    """(line, envelope or the error of that line); a JSONL log is read past bad lines."""
    name = os.fspath(path)
    if L.log_format(path) == "msgpack":
        n = 0
        try:
            for env in L.iter_msgpack(path):
                n += 1
                yield n, env
        except LogError as exc:
            yield exc.line or n + 1, exc
        return
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        yield 0, LogError(f"cannot read: {exc.strerror}", file=name)
        return
    with f:
        for lineno, line in L.json_records(f):
            if not line.endswith(b"\n"):
                yield (
                    lineno,
                    LogError(
                        "the last line is incomplete (no line end): an interrupted write?",
                        file=name,
                        line=lineno,
                    ),
                )
                continue
            try:
                yield lineno, L.decode_json_line(line, file=name, lineno=lineno)
            except LogError as exc:
                yield lineno, exc


def _check_file(path: Path, lenient: bool, report: Report) -> None:
    name = os.fspath(path)
    games: dict[str, list[tuple[int, E.Envelope]]] = {}
    try:
        records = list(_records(path))
    except LogError as exc:  # an unknown suffix
        report.errors.append(Finding(name, exc.line, None, exc.seq, "read", exc.reason))
        return
    for lineno, rec in records:
        if isinstance(rec, LogError):
            rule = "decode" if lineno else "read"
            what = f"field {rec.field}: {rec.reason}" if rec.field else rec.reason
            report.errors.append(
                Finding(name, rec.line or (lineno or None), None, rec.seq, rule, what)
            )
            continue
        games.setdefault(rec.game_id, []).append((lineno, rec))
        report.events += 1
    report.games += len(games)
    for gid, items in games.items():
        _check_game(name, gid, items, lenient, report)
    for found in (report.errors, report.warnings):
        mine = [f for f in found if f.file == name]
        if mine:
            found[len(found) - len(mine) :] = sorted(
                mine, key=lambda f: (f.line is None, f.line or 0)
            )


def _check_game(
    name: str, gid: str, items: list[tuple[int, E.Envelope]], lenient: bool, report: Report
) -> None:
    envs = [env for _, env in items]
    line_of: dict[int, int] = {}
    for lineno, env in items:
        line_of.setdefault(env.seq, lineno)
    chain = L.verify(envs)
    if not chain.ok:
        report.errors.append(
            Finding(
                name,
                line_of.get(chain.first_bad_seq or -1),
                gid,
                chain.first_bad_seq,
                "hash_chain",
                chain.reason,
            )
        )
    proj = Projector(strict=not lenient)
    last_line = items[-1][0] if items else None
    try:
        for env in envs:
            proj.feed(env)
        proj.finish()
    except ProjectionError as exc:
        line = line_of.get(exc.seq) if exc.seq is not None else last_line
        same = any(f.line == line and f.reason == exc.reason for f in report.errors)
        if not same:  # a seq gap is already named by the chain check
            report.errors.append(Finding(name, line, gid, exc.seq, exc.rule, exc.reason))
        if lenient:
            report.warnings.append(
                Finding(
                    name,
                    line,
                    gid,
                    exc.seq,
                    exc.rule,
                    "the rest of this game cannot be checked against the rules",
                    "warning",
                )
            )
    for issue in proj.issues:
        line = line_of.get(issue.seq) if issue.seq is not None else last_line
        f = Finding(
            name,
            line,
            gid,
            issue.seq,
            issue.rule,
            issue.reason,
            "error" if issue.severity == "violation" else "warning",
        )
        (report.errors if f.severity == "error" else report.warnings).append(f)


def validate_files(paths: list[Path], lenient: bool = False) -> Report:
    """Check every file (folders are searched for logs); a problem in one file never stops
    the others."""
    report = Report()
    files, missing = L.find_logs(paths)
    for p in files + missing:
        report.files += 1
        _check_file(p, lenient, report)
    return report


def validate(
    logs: Annotated[
        list[Path],
        typer.Argument(
            metavar="LOG...",
            help="Log files (.jsonl or .msgpack), or folders searched for them.",
        ),
    ],
    lenient: Annotated[
        bool,
        typer.Option(
            "--lenient",
            help="Report every disagreement with the rules, not only the first of each game.",
        ),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="The report as JSON on stdout.")] = False,
) -> None:
    """Check logs: every line readable, the hash chain intact, every fact within the rules.

    Each error names the file, line, game, seq, rule and reason; a summary line follows.

    Exit code 0 when every file is valid, 1 otherwise.

    Example: gostop validate friday.jsonl samples/ --lenient
    """
    report = validate_files(logs, lenient)
    if json_out:
        common.print_json(
            {
                "valid": report.valid,
                "files": report.files,
                "games": report.games,
                "events": report.events,
                "errors": [asdict(f) for f in report.errors],
                "warnings": [asdict(f) for f in report.warnings],
            }
        )
    else:
        for f in report.errors + report.warnings:
            common.echo(str(f))
        common.echo(report.summary())
    if not report.valid:
        if not json_out:
            common.error_message(f"{len(report.errors)} error(s) found")
        raise typer.Exit(common.EXIT_REJECTED)
