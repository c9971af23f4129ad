"""``gostop review``: was that Go a mistake? Every decision of a hand, judged on what its
seat knew then.

The library (:mod:`gostop_records.review`) finds the decisions and plays every legal option
out in the same deals of the unseen cards; this command picks the game and the hand, shows
progress on stderr (the rollouts take seconds), and prints the review as text, as JSON
(``--json``, the :class:`~gostop_records.review.GameReview` struct) or drawn in the replayer
as one self-contained HTML page (``--html FILE``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gostop_records.review import DEFAULT_BUDGET, DEFAULT_KINDS, KINDS, POLICIES
from gostop_records.review.rollouts import MIN_BUDGET

from . import common
from .progress import Progress

__all__ = ["DEFAULT_KINDS", "review"]


# Long: a typer command: its options are its signature, over half of its lines.
def review(
    log: common.GameLogArgument = None,
    db: common.GameDbOption = None,
    game: common.GameOption = None,
    hand: Annotated[
        int | None,
        typer.Option(
            "--hand", metavar="N", min=1, help="The hand to review (default: every hand)."
        ),
    ] = None,
    seat: Annotated[
        int | None,
        typer.Option(
            "--seat", metavar="S", min=0, help="The seat to review (default: every seat)."
        ),
    ] = None,
    budget: Annotated[
        int,
        typer.Option(
            "--budget",
            metavar="N",
            min=MIN_BUDGET,
            help="Deals of the unseen cards a decision; every option is played out in each.",
        ),
    ] = DEFAULT_BUDGET,
    seed: Annotated[
        int,
        typer.Option("--seed", metavar="N", help="The seed of the deals (same seed, same review)."),
    ] = 0,
    policy: Annotated[
        str,
        typer.Option(
            "--policy",
            metavar="NAME",
            help=f"The rollout policy at every seat: {', '.join(POLICIES)} (strong is far slower).",
        ),
    ] = "greedy",
    kind: Annotated[
        list[str] | None,
        typer.Option(
            "--kind",
            metavar="KIND",
            help=f"Review only these kinds (repeat; 'all' for every kind): {', '.join(KINDS)}. "
            "Default: all but play.",
        ),
    ] = None,
    luck: Annotated[
        bool,
        typer.Option("--luck/--no-luck", help="What each deal was worth, against what was won."),
    ] = True,
    json_out: Annotated[bool, typer.Option("--json", help="The review as JSON on stdout.")] = False,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            metavar="FILE",
            help="Write the review drawn in the replayer as one self-contained HTML file "
            "(no network request).",
        ),
    ] = None,
    server: common.ServerOption = None,
    store: Annotated[
        bool,
        typer.Option(
            "--store",
            help="Keep the review in the --db store (tables reviews and review_luck), for SQL "
            "and the /games/{id}/review page of gostop serve.",
        ),
    ] = False,
) -> None:
    """Judge every decision of a hand on what its seat knew then: Go or Stop, captures,
    shakes, bombs, the cup, fours, sales (and with --kind play, every card played).

    Each option's expected chips come from rollouts in deals of the cards the seat could not
    see; a loss against the best option is graded (inaccuracy, mistake, blunder) only when
    its 95% interval excludes zero. See docs/review.md.

    Example: gostop review samples/go-bak.jsonl --hand 1 --seat 0

    Example: gostop review friday.jsonl --hand 2 --json --html review.html
    """
    if policy not in POLICIES:
        raise typer.BadParameter(
            f"unknown policy {policy!r}: {', '.join(POLICIES)}", param_hint="--policy"
        )
    kinds = _kinds(kind)
    if store and db is None:
        raise typer.BadParameter("--store keeps the review in the --db store: give --db FILE")
    if server is not None:
        if log is not None or db is not None:
            common.fail("give one of LOG, --db FILE or --server URL", common.EXIT_USAGE)
        from gostop_records.service.client import load_remote_game

        gid, envs = load_remote_game(server, game, common.server_token(game=True))
    else:
        gid, envs = common.load_game(log, db, game, exact=False)
    from gostop_records.review import review_game

    if hand is not None and not any(e.hand == hand for e in envs):
        common.fail(f"game {gid} has no hand {hand}")
    with Progress("review", None, "decision") as bar:
        result = review_game(
            gid,
            envs,
            hand=hand,
            seat=seat,
            budget=budget,
            seed=seed,
            policy=policy,
            kinds=kinds,
            luck=luck,
            progress=lambda done, total: bar.update(done, total),
        )
    if store:
        from gostop_records.review.store import store_review
        from gostop_records.store import Store

        with Store(db) as st:
            n = store_review(st.conn, result)
        typer.echo(f"stored the review of game {gid} in {db}: {n} decision(s)", err=True)
    if html is not None:
        from gostop_records.web.pages import write_page
        from gostop_records.web.review_page import review_page

        size = write_page(html, review_page(result, envs))
        typer.echo(f"wrote {html} ({size:,} bytes): the review of game {gid}", err=True)
    if json_out:
        import msgspec

        typer.echo(msgspec.json.format(msgspec.json.encode(result), indent=2).decode())
        return
    if html is None:
        from gostop_records.review.render import text

        common.echo(text(result))


def _kinds(given: list[str] | None) -> tuple[str, ...]:
    if not given:
        return DEFAULT_KINDS
    out: list[str] = []
    for k in given:
        for part in k.replace(",", " ").split():
            name = part.strip().lower().replace("-", "_").replace("/", "_")
            if name == "all":
                return KINDS
            if name not in KINDS:
                raise typer.BadParameter(
                    f"unknown kind {part!r}: {', '.join(KINDS)} or all", param_hint="--kind"
                )
            out.append(name)
    return tuple(out)
