"""Validate logs line by line, chain by chain, rule by rule, into one report.

Four checks, each :class:`~gostop_records.errors.Finding` naming the file, the line, the
game, the seq, the rule and the reason:

- reading: every line must decode into a typed envelope (malformed JSON, a missing field, an
  unknown card, a value out of range); a bad line is reported and the rest is still read
  (:func:`gostop_records.log.iter_records`, the checked read an import runs, which also
  checks each line's hash against its content);
- the hash chain of each game (:func:`gostop_records.log.chain_break`): the first event that
  was changed, removed, inserted or reordered;
- the rules (the projector): strict mode stops at a game's first violation, lenient mode
  reports every disagreement between the record and the rules;
- the signatures (:mod:`gostop_records.integrity.checkpoints`): every checkpoint and
  countersignature, and a hand that ended without a checkpoint where the recorder signs;
  who signed what is listed in ``signed``.

``gostop validate`` prints the report; any other front end gets the same one from
:func:`validate_files` (or :func:`validate_envelopes` for envelopes already in memory).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import events as E
from . import log as L
from .errors import Finding, LogError, ProjectionError
from .integrity import checkpoints as CP
from .plain import fields_dict
from .projector import Projector

__all__ = ["Finding", "Report", "validate_envelopes", "validate_files"]


@dataclass(slots=True)
class Report:
    """What a validation found: counts, errors (the log is invalid) and warnings."""

    files: int = 0
    games: int = 0
    events: int = 0
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    #: Who signed what in each signed game (severity ``"signed"``, rule ``signatures``).
    signed: list[Finding] = field(default_factory=list)

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

    def to_dict(self) -> dict[str, Any]:
        return {"valid": self.valid, **fields_dict(self)}


def _check_file(path: Path, lenient: bool, report: Report) -> None:
    """Check a file game by game as it streams: a game is checked when its run of lines
    ends, so memory holds one game, whatever the file's size. A game whose lines are not
    in one run (interleaved with another, or continued further down) is checked again
    at the end with all of its lines, in place of its partial checks."""
    name = os.fspath(path)
    try:
        L.log_format(path)
    except LogError as exc:  # an unknown suffix
        report.errors.append(
            Finding(file=name, line=exc.line, seq=exc.seq, rule="read", reason=exc.reason)
        )
        return
    first_error, first_warning = len(report.errors), len(report.warnings)
    seen: set[str] = set()
    again: set[str] = set()
    gid: str | None = None
    run = _Run()
    envs, lines = run.envs, run.lines
    # the loop every event of the file goes through: local names, no call but the appends
    for lineno, rec, ok in L.iter_records(path):
        if isinstance(rec, LogError):
            rule = "decode" if lineno else "read"
            what = rec.what
            line = rec.line or (lineno or None)
            report.errors.append(Finding(file=name, line=line, seq=rec.seq, rule=rule, reason=what))
            continue
        if rec.game_id != gid:
            if gid is not None:
                report.events += len(envs)
                _check_game(name, gid, run, lenient, report)
            gid, run = rec.game_id, _Run()
            envs, lines = run.envs, run.lines
            if gid in seen:
                again.add(gid)
            seen.add(gid)
        if not ok and run.bad_hash is None:
            run.bad_hash = len(envs)
        envs.append(rec)
        lines.append(lineno)
    if gid is not None:
        report.events += len(envs)
        _check_game(name, gid, run, lenient, report)
    report.games += len(seen)
    if again:
        for found, start in ((report.errors, first_error), (report.warnings, first_warning)):
            found[start:] = [f for f in found[start:] if f.game_id not in again]
        whole = {g: _Run() for g in sorted(again)}
        for lineno, rec, ok in L.iter_records(path):
            if not isinstance(rec, LogError) and rec.game_id in whole:
                whole[rec.game_id].add(lineno, rec, ok)
        for g, items in whole.items():
            _check_game(name, g, items, lenient, report)
    for found in (report.errors, report.warnings):
        mine = [f for f in found if f.file == name]
        if mine:
            found[len(found) - len(mine) :] = sorted(
                mine, key=lambda f: (f.line is None, f.line or 0)
            )


@dataclass(slots=True)
class _Run:
    """One game's envelopes with their lines and, when read from a file, the index of the
    first whose own hash failed as it was read (``hashes_checked``)."""

    envs: list[E.Envelope] = field(default_factory=list)
    lines: list[int | None] = field(default_factory=list)
    hashes_checked: bool = True
    bad_hash: int | None = None
    #: the line of each seq (its first), made when a finding first needs one
    _line_of: dict[int, int | None] | None = None

    def add(self, line: int | None, env: E.Envelope, hash_ok: bool) -> None:
        if not hash_ok and self.bad_hash is None:
            self.bad_hash = len(self.envs)
        self.envs.append(env)
        self.lines.append(line)

    def line_of(self, seq: int | None) -> int | None:
        """The line of a seq; the game's last line for a finding without one."""
        if seq is None:
            return self.lines[-1] if self.lines else None
        if self._line_of is None:
            self._line_of = {}
            for line, env in zip(self.lines, self.envs, strict=True):
                self._line_of.setdefault(env.seq, line)
        return self._line_of.get(seq)


def _check_game(name: str | None, gid: str, run: _Run, lenient: bool, report: Report) -> None:
    envs = run.envs
    broken = L.chain_break(envs, hashes_checked=run.hashes_checked, bad_hash=run.bad_hash)
    if broken is not None:
        seq, reason = broken
        report.errors.append(
            Finding(
                file=name,
                line=run.line_of(seq),
                game_id=gid,
                seq=seq,
                rule="hash_chain",
                reason=reason,
            )
        )
    signatures = CP.check(envs)
    for p in signatures.problems:
        report.errors.append(p.at(name, run.line_of(p.seq), gid))
    for who in signatures.who_signed():
        signed = Finding(file=name, game_id=gid, rule="signatures", reason=who, severity="signed")
        report.signed.append(signed)
    # the in-place fold, as a replay folds (it agrees with the copying one: see
    # tests/test_projector_modes.py)
    proj = Projector(strict=not lenient, inplace=True)
    try:
        for env in envs:
            proj.feed(env)
        proj.finish()
    except ProjectionError as exc:
        line = run.line_of(exc.seq)
        same = any(f.line == line and f.reason == exc.reason for f in report.errors)
        if not same:  # a seq gap is already named by the chain check
            report.errors.append(exc.finding.at(name, line, gid))
        if lenient:
            report.warnings.append(
                Finding(
                    file=name,
                    line=line,
                    game_id=gid,
                    seq=exc.seq,
                    rule=exc.rule,
                    reason="the rest of this game cannot be checked against the rules",
                    severity="warning",
                )
            )
    for issue in proj.issues:
        f = issue.at(name, run.line_of(issue.seq), gid)
        (report.errors if f.severity == "error" else report.warnings).append(f)


def validate_files(
    paths: Iterable[str | os.PathLike[str]],
    lenient: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Check every file (folders are searched for logs); a problem in one file never stops
    the others. A path that does not exist is reported as an error of its own.
    ``progress(done, total)`` is called after each file."""
    report = Report()
    files, missing = L.find_logs(paths)
    todo = files + missing
    for k, p in enumerate(todo, 1):
        report.files += 1
        _check_file(p, lenient, report)
        if progress is not None:
            progress(k, len(todo))
    return report


def validate_envelopes(
    envelopes: Iterable[E.Envelope], lenient: bool = False, *, file: str | None = None
) -> Report:
    """Check envelopes already decoded (an upload, a store's events): the chain and the rules
    of each game, in the order given. ``line`` in a finding is the envelope's place, from 1."""
    report = Report(files=0 if file is None else 1)
    games: dict[str, _Run] = {}
    for n, env in enumerate(envelopes, 1):
        run = games.get(env.game_id)
        if run is None:
            run = games[env.game_id] = _Run(hashes_checked=False)
        run.add(n, env, True)
        report.events += 1
    report.games = len(games)
    for gid, items in games.items():
        _check_game(file, gid, items, lenient, report)
    return report
