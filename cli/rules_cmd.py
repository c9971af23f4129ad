"""``gostop rules``: the presets, every rule of a ruleset with its meaning, and differences.

A payout dispute is usually one house rule; ``rules show A --diff B`` names exactly the rules
on which two tables disagree.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from gostop_records import rules
from gostop_records.rules import GoPayout, Ruleset

from . import common

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Rulesets: the presets, every rule and its meaning, differences between two.",
    epilog="Example: gostop rules show matgo --diff gostop3",
)

#: How ``rules show`` groups the fields; a field not listed here shows under "Other".
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Players and deck",
        (
            "players",
            "hand_size_2p",
            "layout_size_2p",
            "hand_size_3p",
            "layout_size_3p",
            "bonus_cards",
            "double_junk",
            "december_ribbon_counts",
        ),
    ),
    (
        "The deal",
        (
            "layout_four",
            "hand_four_points",
            "all_hand_fours",
            "some_hand_fours",
            "single_hand",
        ),
    ),
    (
        "Shaking, bombs and bonus cards",
        (
            "shaking",
            "shake_multiplier",
            "bombs",
            "two_card_bomb",
            "bomb_steal",
            "bomb_multiplier",
            "bonus_play",
            "bonus_steal",
        ),
    ),
    (
        "Junk steals",
        (
            "jjok_steal",
            "ttadak_steal",
            "sseul_steal",
            "sseul_rule",
            "natural_stack_steal",
            "ppuk_taken_steal",
            "own_ppuk_steal",
            "steal_count",
            "transfer_order",
        ),
    ),
    ("September cup", ("cup_mode", "cup_transferable")),
    ("Last turn", ("last_turn_exceptions", "last_turn_auto_stop")),
    (
        "Instant payments",
        (
            "three_ppuk_points",
            "first_ppuk_points",
            "first_ttadak_points",
            "instant_win_multipliers",
        ),
    ),
    ("Go / Stop", ("target_2p", "target_3p", "go_payout", "go_double_from")),
    (
        "Settlement",
        (
            "gwang_bak",
            "pi_bak",
            "pi_bak_max_units",
            "pi_bak_zero_exempt",
            "loser_cup_protects",
            "meong_tta",
            "meong_tta_min_animals",
            "meong_tta_loser_zero",
            "go_bak",
            "nagari_carry",
            "nagari_carry_cap",
        ),
    ),
)


def go_formula(rs: Ruleset) -> str:
    """The Go payout of a score S after n Gos, as one short formula."""
    if rs.go_payout is GoPayout.GENERAL_PAGE:
        return f"S+n, x2 from {rs.go_double_from} Gos"
    if rs.go_payout is GoPayout.DOUBLE_FROM_THIRD:
        return "S, S+1, S+2, then S*2^(n-2)"
    return "S+n, from 3 Gos (S+n)*2^(n-2)"


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


def grouped_fields(rs: Ruleset) -> list[tuple[str, list[str]]]:
    """The rule fields of ``rs`` by group, every field exactly once."""
    content = rs.content()
    seen: set[str] = set()
    out: list[tuple[str, list[str]]] = []
    for title, names in GROUPS:
        present = [n for n in names if n in content]
        seen.update(present)
        if present:
            out.append((title, present))
    rest = [n for n in content if n not in seen]
    if rest:
        out.append(("Other", rest))
    return out


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

    With --json, print the pinned form stored in a game's first event.
    """
    rs = rules.resolve(name)
    if diff is not None:
        _show_diff(rs, rules.resolve(diff), as_json)
        return
    if as_json:
        common.print_json(rs.pinned())
        return
    docs = Ruleset.field_docs()
    content = rs.content()
    title = common.style(rs.name, bold=True)
    common.echo(f"{title}: {rs.description}" if rs.description else title)
    common.echo(f"hash: {rs.content_hash}")
    for title, names in grouped_fields(rs):
        common.echo()
        common.echo(common.style(title, bold=True))
        rows = [(n, fmt_value(content[n]), docs.get(n, "")) for n in names]
        for line in _table(rows):
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
