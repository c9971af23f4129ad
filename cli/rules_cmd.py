"""``gostop rules``: the presets, every rule of a ruleset with its meaning, and differences.

A payout dispute is usually one house rule; ``rules show A --diff B`` names exactly the rules
on which two tables disagree.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from gostop_records import rules
from gostop_records.engine import rulebook as RB
from gostop_records.rules import Ruleset

from . import common

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Rulesets: the presets, every rule and its meaning, differences between two.",
    epilog="Example: gostop rules show matgo --diff gostop3",
)


def go_formula(rs: Ruleset) -> str:
    """The Go payout of a score S after n Gos, as one short formula."""
    return RB.formula_of(rs).short(rs)


def targets(rs: Ruleset) -> dict[str, int]:
    """Points to Stop, by player count ("2", "3")."""
    return {str(n): rs.target(n) for n in rs.players}


def _targets_text(rs: Ruleset) -> str:
    t = targets(rs)
    if len(t) == 1:
        return str(next(iter(t.values())))
    return " / ".join(f"{n}p {v}" for n, v in t.items())


def fmt_value(value: Any) -> str:
    """A rule value as a user would write it in a ruleset file."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(fmt_value(v) for v in value) + "]"
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _table(rows: list[tuple[str, ...]], indent: str = "  ") -> list[str]:
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for r in rows:
        cells = [c.ljust(w) for c, w in zip(r[:-1], widths, strict=False)]
        lines.append((indent + "  ".join([*cells, r[-1]])).rstrip())
    return lines


@app.command("list", epilog="Example: gostop rules list --json")
def list_(
    as_json: Annotated[bool, typer.Option("--json", help="Machine output on stdout.")] = False,
) -> None:
    """List the preset rulesets: players, points to Stop, Go payout, what each one is."""
    presets = list(rules.PRESETS.values())
    if as_json:
        common.print_json(
            [
                {
                    "name": rs.name,
                    "players": list(rs.players),
                    "targets": targets(rs),
                    "go_payout": rs.go_payout.value,
                    "go_payout_formula": go_formula(rs),
                    "description": rs.description,
                    "hash": rs.content_hash,
                }
                for rs in presets
            ]
        )
        return
    rows = [("name", "players", "target", "go payout (score S, n Gos)", "description")]
    rows += [
        (rs.name, ",".join(map(str, rs.players)), _targets_text(rs), go_formula(rs), rs.description)
        for rs in presets
    ]
    lines = _table(rows, indent="")
    lines[0] = common.style(lines[0], bold=True)
    for line in lines:
        common.echo(line)


@app.command(
    "show",
    epilog="Examples: gostop rules show matgo; gostop rules show house.toml --diff matgo --json",
)
def show(
    name: Annotated[
        str, typer.Argument(metavar="NAME|FILE", help="A preset name or a .toml/.json ruleset.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Machine output on stdout.")] = False,
    diff: Annotated[
        str | None,
        typer.Option(
            "--diff",
            metavar="OTHER",
            help="Only the rules that differ from OTHER (a preset or a file).",
        ),
    ] = None,
) -> None:
    """Show every rule of a ruleset with its value and meaning, and its content hash.

    With --json, print the pinned form stored in a game's first event, and under
    "rulebook" every combination, factor and instant payment by id with its settings.
    """
    rs = rules.resolve(name)
    if diff is not None:
        _show_diff(rs, rules.resolve(diff), as_json)
        return
    if as_json:
        common.print_json({**rs.pinned(), "rulebook": RB.describe(rs)})
        return
    docs = Ruleset.field_docs()
    content = rs.content()
    title = common.style(rs.name, bold=True)
    common.echo(f"{title}: {rs.description}" if rs.description else title)
    common.echo(f"hash: {rs.content_hash}")
    for title, names in RB.grouped_settings(rs):
        common.echo()
        common.echo(common.style(title, bold=True))
        rows = [(n, fmt_value(content[n]), docs.get(n, "")) for n in names]
        for line in _table(rows):
            common.echo(line)
    common.echo()
    common.echo(
        common.style("Rulebook (what each rule does, by id, and the settings it reads)", bold=True)
    )
    book = [
        (r.kind, r.id, r.text + (f" [{', '.join(r.settings)}]" if r.settings else ""))
        for r in RB.RULES
    ]
    for line in _table(book):
        common.echo(line)


def _show_diff(a: Ruleset, b: Ruleset, as_json: bool) -> None:
    docs = Ruleset.field_docs()
    differences = rules.diff(a, b)
    if as_json:
        common.print_json(
            {
                "a": {"name": a.name, "hash": a.content_hash},
                "b": {"name": b.name, "hash": b.content_hash},
                "differences": [
                    {"field": f, "a": va, "b": vb, "description": docs.get(f, "")}
                    for f, va, vb in differences
                ],
            }
        )
        return
    if not differences:
        common.echo(f"{a.name} and {b.name}: the same rules ({a.content_hash})")
        return
    common.echo(f"{a.name} -> {b.name}: {len(differences)} rule(s) differ")
    rows = [(f, fmt_value(va), "->", fmt_value(vb), docs.get(f, "")) for f, va, vb in differences]
    for line in _table(rows):
        common.echo(line)
