"""A benchmark figure, and its rendering as a terminal table and as Markdown."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True, slots=True)
class Figure:
    """One measured figure, beside its floor or peer when it has one."""

    name: str
    value: float
    unit: str
    beside: str = "-"  # the floor or peer, with its value
    ratio: str = "-"  # ours / floor, or ours / peer
    target: str = ""  # the speed asked for, and whether it is met

    def shown(self) -> str:
        v = self.value
        if v >= 100:
            return f"{v:,.0f} {self.unit}"
        return f"{v:,.2f} {self.unit}"


def render_table(figures: list[Figure]) -> str:
    rows = [("figure", "value", "floor or peer", "ratio", "target")]
    rows += [(f.name, f.shown(), f.beside, f.ratio, f.target) for f in figures]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = []
    for k, r in enumerate(rows):
        lines.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render_markdown(figures: list[Figure], machine: str, hands: int, args: str) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    out = [
        "# Benchmark results",
        "",
        f"Measured {when} with `python -m bench {args}`".rstrip() + f" on a corpus of {hands:,}"
        " simulated hands (every preset, both player counts where allowed).",
        "",
        f"Machine: {machine}.",
        "",
        "Every figure is measured in the same run as the floor or peer beside it; ratios, not",
        "absolute numbers, are what carries over to another machine. Reproduce with",
        "`make bench` (add `--million` through `python -m bench --million` for the",
        "1,000,000-hand query timings).",
        "",
        "| figure | value | floor or peer | ratio | target |",
        "|---|---|---|---|---|",
    ]
    for f in figures:
        out.append(f"| {f.name} | {f.shown()} | {f.beside} | {f.ratio} | {f.target} |")
    out.append("")
    return "\n".join(out)
