"""What an import run tells: its counts and the games it rejected or found in conflict
(:class:`ImportReport`), and its progress as it goes (:class:`ImportProgress`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import Finding

if TYPE_CHECKING:
    pass

__all__ = ["ImportProgress", "ImportReport"]


@dataclass(slots=True)
class ImportReport:
    """Counts and problems of one import run."""

    files: int = 0
    games: int = 0  # games read from the files
    imported: int = 0  # new games
    extended: int = 0  # stored games that got new events
    skipped: int = 0  # games already stored in full
    events: int = 0  # events written
    violations: int = 0  # rule violations accepted in lenient mode
    rejected: list[Finding] = field(default_factory=list)
    conflicts: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.rejected and not self.conflicts

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["rejected"] = [p.to_dict() for p in self.rejected]
        d["conflicts"] = [p.to_dict() for p in self.conflicts]
        d["ok"] = self.ok
        return d

    def summary(self) -> str:
        return (
            f"{self.files} file(s), {self.games} game(s): {self.imported} imported, "
            f"{self.extended} extended, {self.skipped} already stored, "
            f"{len(self.rejected)} rejected, {len(self.conflicts)} in conflict; "
            f"{self.events} event(s) written"
            + (
                f"; {self.violations} rule violation(s) accepted (lenient)"
                if self.violations
                else ""
            )
        )


@dataclass(frozen=True, slots=True)
class ImportProgress:
    """Where an import is: after each file and after each committed batch."""

    files_done: int
    files_total: int
    games: int
    events: int
    committed: bool
    file: str | None
