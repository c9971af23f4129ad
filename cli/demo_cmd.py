"""``gostop demo``: the main job on an embedded default, shown step by step."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from gostop_records.games import load_game
from gostop_records.replay import timeline

from . import common
from .progress import Progress
from .render import Painter, render_game, settlement_lines

#: The steps :func:`~gostop_records.demo.run_demo` announces, which the progress bar counts.
DEMO_STEPS = 5

DirOption = Annotated[
    Path,
    typer.Option(
        "--dir",
        help="Folder for the demo's files; made fresh (an earlier demo there is replaced, "
        "any other content is left alone and a new folder name is used).",
    ),
]


def demo(folder: DirOption = Path("gostop-demo")) -> None:
    """Simulate a corpus of every preset into DuckDB, replay a hand, audit a disputed payment,
    answer a few SQL questions, and say what to try next.

    Example: gostop demo --dir /tmp/gostop-demo
    """
    from gostop_records.audit.render import render_audit
    from gostop_records.demo import run_demo

    with Progress("demo", DEMO_STEPS, "step", plain=False) as bar:
        r = run_demo(folder, progress=bar.step)
        bar.update(DEMO_STEPS, detail="done")
    paint = Painter(common.color_enabled())
    echo = common.echo

    def title(text: str) -> None:
        echo()
        echo(common.style(f"== {text} ==", bold=True))

    title("1. a corpus of simulated games in a DuckDB store")
    echo(
        f"{r.games} games, {r.hands} hands, {r.events} events of every preset "
        f"(cardavia, gamerules with 2 and 3 players, matgo, gostop3)"
    )
    echo(f"  store:  {r.db}")
    echo(f"  log:    {r.corpus}")

    title(f"2. replay: the end of hand {r.replay.hand} of {r.replay.game}")
    gid, envs = load_game(r.replay.log, game=r.replay.game)
    tl = timeline(gid, envs)
    i = tl.index_of_seq(r.replay.seq)
    game = tl.states[i]
    assert game is not None
    echo(render_game(game, paint=paint, last=tl.envelopes[i]))
    result = game.results[-1] if game.results else None
    lines = (
        settlement_lines(result, game.players, paint, game.shortfalls) if result is not None else []
    )
    if lines:
        echo()
        for line in lines:
            echo(line)

    title("3. a disputed payment, audited")
    echo(r.dispute.story)
    unicode = (getattr(sys.stdout, "encoding", "") or "").lower().startswith("utf")
    echo(render_audit(r.dispute.audit, unicode=unicode))

    title("4. questions answered in SQL")
    for a in r.answers:
        echo(common.style(a.question, bold=True))
        common.print_table(a.columns, a.rows)
        echo()

    title("what to try next")
    db, log = r.db, r.replay.log
    tries = (
        (f"gostop replay {log} --hand 2 --step", "step through a hand, event by event"),
        (f"gostop audit {r.dispute.log} --json", "the dispute as JSON"),
        (f"gostop validate {r.corpus}", "check every game against the rules"),
        (f'gostop db query --db {db} "SELECT * FROM v_hand_summary LIMIT 5"', "SQL"),
        (f"gostop db stats --db {db}", "games, outcomes, payouts, specials"),
        (
            f"gostop serve --db {db}",
            "the store in a browser at http://127.0.0.1:8765/: record a table from a phone",
        ),
        ("gostop play", "play a hand against the computer"),
        ("gostop record --log table.jsonl --players Ann,Ben", "record a real table"),
        ("gostop rules show matgo --diff cardavia", "what two rulesets disagree on"),
    )
    width = max(len(cmd) for cmd, _ in tries)
    for cmd, what in tries:
        echo(f"  {cmd.ljust(width)}  {what}")
