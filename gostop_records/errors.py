"""The project's typed errors: every user-facing failure is one of these, never a traceback.

Each error carries where it happened (file, line, seq, field) and which rule it broke, so the
command line can print one clear sentence and programs can act on the parts.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, replace
from typing import Any

__all__ = [
    "CardCodeError",
    "Finding",
    "GameChoiceError",
    "GameNotFound",
    "GostopError",
    "IllegalAction",
    "LogError",
    "NoSpaceError",
    "ProjectionError",
    "RulesetError",
    "is_no_space",
    "reason_at",
]


def reason_at(reason: str, seq: int | None) -> str:
    """A reason shown after its place: without a leading ``seq N: `` that names the same seq
    (reasons that stand alone, such as the hash chain's, name their seq themselves)."""
    if seq is not None and reason.startswith(f"seq {seq}: "):
        return reason[len(f"seq {seq}: ") :]
    return reason


#: The severities of a finding: a fact the rules refuse (``violation``: a replay's word, kept
#: in its tables and pages), a place that cannot be read or checked (``error``), something
#: kept but worth a look (``warning``), and a signature that holds (``signed``).
SEVERITIES = ("violation", "error", "warning", "signed")


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """Something wrong (or worth a look) at one place in a log: the one report type of the
    replay, validation, imports, audits, signatures and the store's checks, with everything
    needed to find and understand it, and one way of saying it (``str``):

    >>> print(Finding(file="a.jsonl", line=9, game_id="g1", seq=7, rule="hash_chain",
    ...               reason="prev is not the hash of seq 6"))
    a.jsonl:9: game g1 seq 7: prev is not the hash of seq 6 [rule: hash_chain]

    ``rule`` names the rule broken; it is empty for a place that breaks none (a file that is
    not there). ``file`` is the log it was found in: a file's path, or ``heads chain`` for the
    store's own chain of entries (``entry`` then numbers the entry). ``expected`` and
    ``recorded`` are what the rules derive and what the log says, when a fact disagrees.
    """

    reason: str
    rule: str = ""
    file: str | None = None
    line: int | None = None
    game_id: str | None = None
    seq: int | None = None
    hand: int | None = None
    entry: int | None = None
    severity: str = "error"
    expected: Any = None
    recorded: Any = None

    @property
    def is_error(self) -> bool:
        """Whether it makes the log (or the store) fail its check."""
        return self.severity in ("error", "violation")

    @property
    def where(self) -> str:
        """Its place: ``a.jsonl:9: game g1 seq 7`` (a file's line as editors read it), the
        parts that are known."""
        return ": ".join(p for p in (self._file_line(), self._game_seq()) if p)

    def _file_line(self) -> str:
        if self.line is None:
            return self.file or ""
        return f"{self.file}:{self.line}" if self.file else f"line {self.line}"

    def _game_seq(self) -> str:
        game = f"game {self.game_id}" if self.game_id is not None else ""
        seq = f"seq {self.seq}" if self.seq is not None else ""
        return " ".join(p for p in (game, seq) if p)

    def __str__(self) -> str:
        label = "" if self.is_error else self.severity
        tag = f" [rule: {self.rule}]" if self.rule else ""
        head = (self._file_line(), label, self._game_seq(), reason_at(self.reason, self.seq))
        return ": ".join(p for p in head if p) + tag

    def at(
        self, file: str | None = None, line: int | None = None, game_id: str | None = None
    ) -> Finding:
        """The finding placed in a log (a violation, in a validation, is an error)."""
        severity = "error" if self.severity == "violation" else self.severity
        return replace(
            self,
            file=file if file is not None else self.file,
            line=line if line is not None else self.line,
            game_id=game_id if game_id is not None else self.game_id,
            severity=severity,
        )

    def to_dict(self) -> dict[str, Any]:
        """Its place, rule, reason and severity, and the hand and entry when known (the facts
        are events: their readers render them, as the audit does)."""
        out: dict[str, Any] = {
            "file": self.file,
            "line": self.line,
            "game_id": self.game_id,
            "seq": self.seq,
            "rule": self.rule or None,
            "reason": self.reason,
            "severity": self.severity,
        }
        if self.hand is not None:
            out["hand"] = self.hand
        if self.entry is not None:
            out["entry"] = self.entry
        return out


class GostopError(Exception):
    """Base of every error this library raises on purpose."""


class NoSpaceError(GostopError):
    """A write failed because the disk (or the quota) is full.

    Not a refusal of the entry: nothing more is appended, everything written before stays
    as it was, and the work continues where it stopped once there is space again.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(
            f"no space left on {path}: nothing more is written, everything before is kept; "
            "free some space, then continue where it stopped (gostop record --resume "
            "GAME_ID; an import run again completes it)"
        )


def is_no_space(exc: BaseException) -> bool:
    """Whether an error (an OSError, or DuckDB's message of one) says the disk is full."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc)
    return "No space left on device" in text or "Disk quota exceeded" in text


class CardCodeError(GostopError, ValueError):
    """An input string is not a card code; the message names it and the valid forms (in the
    words of :data:`gostop_records.cards.CODE_FORMS`, given by the deck's module, which raises
    it)."""

    def __init__(self, code: object, forms: str, where: str | None = None) -> None:
        self.code = code
        self.forms = forms
        self.where = where
        place = f"{where}: " if where else ""
        super().__init__(f"{place}unknown card code {code!r}: {forms}")

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.code, self.forms, self.where)


class RulesetError(GostopError, ValueError):
    """A ruleset name, file or value is not acceptable; the message names the field."""


class LogError(GostopError, ValueError):
    """A log cannot be read: malformed line, wrong field type, unknown card, broken chain."""

    def __init__(
        self,
        reason: str,
        *,
        file: str | None = None,
        line: int | None = None,
        seq: int | None = None,
        field: str | None = None,
    ) -> None:
        self.reason = reason
        self.file = file
        self.line = line
        self.seq = seq
        self.field = field
        super().__init__(self.describe())

    @property
    def what(self) -> str:
        """The fault without its place in the file: the reason, after the field it is
        about when one is (``field event: missing or not an object``)."""
        return f"field {self.field}: {self.reason}" if self.field else self.reason

    def describe(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.seq is not None:
            parts.append(f"seq {self.seq}")
        if self.field:
            parts.append(f"field {self.field}")
        where = ", ".join(parts)
        return f"{where}: {self.reason}" if where else self.reason


class IllegalAction(GostopError, ValueError):
    """An input the rules do not allow in this state; ``rule`` names the rule it breaks."""

    def __init__(self, rule: str, reason: str) -> None:
        self.rule = rule
        self.reason = reason
        super().__init__(str(Finding(rule=rule, reason=reason)))


class ProjectionError(GostopError, ValueError):
    """A log that does not replay: the first fact that breaks the rules, with its seq."""

    def __init__(
        self,
        seq: int | None,
        rule: str,
        reason: str,
        *,
        expected: object = None,
        recorded: object = None,
        game_id: str | None = None,
    ) -> None:
        self.seq = seq
        self.rule = rule
        self.reason = reason
        self.expected = expected
        self.recorded = recorded
        self.game_id = game_id
        super().__init__(str(self.finding))

    @property
    def finding(self) -> Finding:
        """The error as a report: the first fact that breaks the rules, at its seq."""
        return Finding(
            rule=self.rule,
            reason=self.reason,
            seq=self.seq,
            expected=self.expected,
            recorded=self.recorded,
        )


class GameNotFound(GostopError, LookupError):
    """There is no such game in the log or the store (or the log holds no events)."""


class GameChoiceError(GostopError, ValueError):
    """Which game to read is not said: a log of several games, or a store, without a game id.
    ``games`` lists the ids to choose from (empty for a store)."""

    def __init__(self, message: str, games: tuple[str, ...] = ()) -> None:
        self.games = games
        super().__init__(message)
