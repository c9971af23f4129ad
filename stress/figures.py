"""What a probe reports: trials, how many survived, what was lost, the tracebacks seen."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Figures", "render"]


@dataclass(slots=True)
class Figures:
    """One probe's outcome. ``survived``: trials where the tool did exactly what it should;
    ``lost``: acknowledged data that went missing (or data stored that should not be);
    ``tracebacks``: crashes instead of a message; ``failures``: what went wrong, in words."""

    probe: str
    trials: int = 0
    survived: int = 0
    lost: int = 0
    tracebacks: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # findings that are not failures
    skipped: str | None = None  # why the probe could not run here

    @property
    def ok(self) -> bool:
        return self.skipped is not None or (
            self.survived == self.trials and not self.lost and not self.tracebacks
        )

    def fail(self, what: str) -> None:
        if len(self.failures) < 20:
            self.failures.append(what)


def render(figures: list[Figures]) -> str:
    """The figures as a Markdown table (what docs/operations.md's reliability section records)."""
    head = (
        "| probe | trials | survived | lost | tracebacks | seconds |\n"
        "|---|---:|---:|---:|---:|---:|"
    )
    rows = []
    for f in figures:
        if f.skipped is not None:
            rows.append(f"| {f.probe} | skipped: {f.skipped} | | | | |")
            continue
        rows.append(
            f"| {f.probe} | {f.trials} | {f.survived} | {f.lost} | {f.tracebacks} "
            f"| {f.seconds:.1f} |"
        )
    total = [f for f in figures if f.skipped is None]
    rows.append(
        f"| **all** | {sum(f.trials for f in total)} | {sum(f.survived for f in total)} "
        f"| {sum(f.lost for f in total)} | {sum(f.tracebacks for f in total)} "
        f"| {sum(f.seconds for f in total):.1f} |"
    )
    return "\n".join([head, *rows])
