"""``gostop audit``: the payout proof of a game's hands, payments and claims beside it.

Exit codes: 0 when the record is sound and every payment and claim agrees with the rules;
1 when a payment, a claim or the record disagrees (or the log cannot be read); 2 for a usage
error, which includes a claim that cannot be read or names no player of the game and a
hand the game does not have.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from gostop_records.audit import AuditArgumentError, ClaimError, audit_game, parse_claim
from gostop_records.audit.render import render_audit

from . import common

__all__ = ["audit"]


def _unicode_ok() -> bool:
    enc = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    return enc.startswith("utf")


# Long: a typer command: its options are its signature, over half of its lines.
def audit(
    log: Annotated[
        Path | None,
        typer.Argument(metavar="LOG", help="A game log (.jsonl or .msgpack).", show_default=False),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option("--db", metavar="FILE", help="Read the game from this store instead."),
    ] = None,
    game: Annotated[
        str | None,
        typer.Option(
            "--game",
            metavar="ID",
            help="The game to audit (needed with --db, or when the log holds several games).",
        ),
    ] = None,
    hand: Annotated[
        int | None, typer.Option("--hand", metavar="N", help="Audit only hand N.")
    ] = None,
    claim: Annotated[
        list[str] | None,
        typer.Option(
            "--claim",
            metavar="PAYER->PAYEE=CHIPS",
            help="A claimed payment to check (repeatable); payer and payee as seat numbers, "
            "player ids or names. Claims are about --hand, else the last hand.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine output on stdout.")] = False,
    lenient: Annotated[
        bool,
        typer.Option(
            "--lenient",
            help="Audit a log that breaks the rules: list every "
            "violation and audit every hand that can be checked.",
        ),
    ] = False,
    server: common.ServerOption = None,
) -> None:
    """Prove each hand's payout and check the recorded payments and claims against it.

    Score lines, Go bonus, every multiplier with its condition, carry, stake and chips;
    then each payment beside the computed amount, and for a difference the house rule
    (one or two settings) that would explain it.
    Exit 0 when everything agrees, 1 when a payment, claim or the record disagrees.

    Example: gostop audit game.jsonl --claim "1->0=2400"
    """
    claims = claim or []
    try:
        parsed = [parse_claim(c) for c in claims]
    except ClaimError as exc:
        common.fail(f"--claim: {exc}", common.EXIT_USAGE)
    if server is not None:
        from gostop_records.service.client import load_remote_game

        _gid, envs = load_remote_game(server, game, common.server_token(game=True))
    else:
        _gid, envs = common.load_game(log, db, game)
    try:
        result = audit_game(envs, hand=hand, claims=parsed, lenient=lenient)
    except ClaimError as exc:
        common.fail(f"--claim: {exc}", common.EXIT_USAGE)
    except AuditArgumentError as exc:
        common.fail(str(exc), common.EXIT_USAGE)
    if as_json:
        common.print_json(result.to_dict())
    else:
        common.echo(render_audit(result, unicode=_unicode_ok()))
    if not result.ok:
        n = len(result.disagreements)
        parts = []
        if n:
            parts.append(f"{n} payment(s) or claim(s) disagree")
        if not result.record.ok:
            parts.append("the record disagrees with the rules, its hash chain or its signatures")
        if result.conservation_problems:
            parts.append("cards are not conserved")
        if result.settlement is not None and result.settlement.disagreements:
            k = len(result.settlement.disagreements)
            parts.append(f"{k} paid transfer(s) of the night's settlement differ")
        typer.echo(f"{common.PROG}: audit: " + common.with_source("; ".join(parts)), err=True)
        raise typer.Exit(common.EXIT_REJECTED)
