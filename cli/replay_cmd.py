"""``gostop replay``: the table at any point of a game, or a hand stepped through event by event.

The game is folded by the library (:func:`gostop_records.replay.timeline`, lenient, so a
record of a table that played wrongly can still be looked at); this command shows a point of
it, steps through it, and lists its disagreements with the rules on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from gostop_records.engine.state import Phase
from gostop_records.errors import GostopError
from gostop_records.replay import Timeline, timeline

from . import common
from .render import Painter, describe_event, proof_lines, render_game

__all__ = ["replay", "step_through"]


def _show(tl: Timeline, i: int, paint: Painter) -> str:
    state = tl.states[i]
    env = tl.envelopes[i]
    if state is None:
        return f"seq {env.seq}: {describe_event(env.event, [], paint)}"
    head = paint(
        f"-- seq {env.seq} of {tl.envelopes[-1].seq}"
        + (f", hand {env.hand}" if env.hand else "")
        + " --",
        bold=True,
    )
    text = head + "\n" + render_game(state, paint=paint, last=env)
    h = state.hand
    if h is not None and h.phase is Phase.ENDED:
        result = next((r for r in state.results if r.hand == h.hand_no), None)
        proof = result.proof() if result is not None else None
        if proof is not None:
            text += "\n" + "\n".join(proof_lines(proof, state.players, paint))
    return text


def _read_key() -> str:
    """One key press from a terminal: n/p/q, arrows as n/p, enter as n."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        ch = sys.stdin.read(1)
        if ch == "\x1b":
            seq = sys.stdin.read(2)
            ch = {"[C": "n", "[B": "n", "[D": "p", "[A": "p"}.get(seq, "")
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
    return "n" if ch in ("\n", "\r", " ") else ch


def step_through(
    tl: Timeline,
    span: range,
    start: int,
    read: Callable[[], str | None],
    paint: Painter,
) -> None:
    """Show one event at a time: n (or enter) next, p previous, a number goes to that seq,
    q quits; the end of input quits."""
    i = start
    common.echo(_show(tl, i, paint))
    while True:
        cmd = read()
        if cmd is None:
            return
        cmd = cmd.strip().lower()
        if cmd in ("q", "quit", "exit"):
            return
        if cmd in ("", "n", "next", "j"):
            if i + 1 >= span.stop:
                common.echo("(at the last event; p goes back, q quits)")
                continue
            i += 1
        elif cmd in ("p", "prev", "previous", "b", "k"):
            if i <= span.start:
                common.echo("(at the first event; n goes on, q quits)")
                continue
            i -= 1
        elif cmd.isdigit():
            try:
                j = tl.index_of_seq(int(cmd))
            except GostopError as exc:
                common.echo(f"({exc})")
                continue
            if j not in span:
                common.echo(f"(seq {cmd} is outside the events being stepped through)")
                continue
            i = j
        else:
            common.echo("(n or enter: next, p: previous, a number: that seq, q: quit)")
            continue
        common.echo(_show(tl, i, paint))


def _line_reader() -> Callable[[], str | None]:
    def read() -> str | None:
        line = sys.stdin.readline()
        return None if not line else line.rstrip("\r\n")

    return read


def replay(
    log: Annotated[
        Path | None, typer.Argument(metavar="LOG", help="A log file (.jsonl or .msgpack).")
    ] = None,
    db: Annotated[
        Path | None, typer.Option("--db", metavar="FILE", help="Read the game from the store.")
    ] = None,
    game: Annotated[
        str | None,
        typer.Option(
            "--game",
            metavar="ID",
            help="The game (needed with --db, or when the log holds several).",
        ),
    ] = None,
    hand: Annotated[
        int | None,
        typer.Option(
            "--hand",
            metavar="N",
            min=1,
            help="The hand: alone, the table at its end; with --step, step through it.",
        ),
    ] = None,
    at: Annotated[
        int | None,
        typer.Option("--at", metavar="SEQ", min=1, help="The table right after this seq."),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="The table as JSON on stdout.")] = False,
    step: Annotated[
        bool,
        typer.Option(
            "--step",
            help="Step through the hand (or the game) one event at a time: "
            "n or enter next, p previous, q quit; reads lines when piped.",
        ),
    ] = False,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            metavar="FILE",
            help="Write the visual replayer of the game as one self-contained HTML file "
            "(opens from the disk, makes no network request).",
        ),
    ] = None,
    server: Annotated[
        str | None,
        typer.Option("--server", metavar="URL", help="Read the game from a gostop serve."),
    ] = None,
) -> None:
    """The table at a point of a game: layout, hands, stock, piles, itemised scores, Go counts.

    Without --hand or --at: the table at the end of the log.

    Rule disagreements are listed on stderr; the replay goes on past them.

    Example: gostop replay friday.jsonl --hand 2 --at 40

    Example: gostop replay friday.jsonl --html friday.html
    """
    if server is None and (log is None) == (db is None):
        raise typer.BadParameter("give a LOG file or --db FILE --game ID", param_hint="LOG")
    if step and json_out:
        raise typer.BadParameter(
            "--step shows the table for people; leave out --json", param_hint="--step"
        )
    if html is not None and (step or json_out):
        raise typer.BadParameter("--html writes a page; leave out --step and --json")
    if server is not None:
        from gostop_records.service.client import load_remote_game

        gid, envs = load_remote_game(server, game)
    else:
        gid, envs = common.load_game(log, db, game, exact=False)  # no hash checks here
    tl = timeline(gid, envs)
    if not tl.envelopes:
        raise GostopError(f"game {gid}: its first event does not replay")
    for issue in tl.issues:
        if issue.severity == "violation" or issue.rule != "unknown_event_type":
            common.warn(common.with_source(f"game {gid}: {issue}"))
    span = tl.hand_range(hand) if hand is not None else range(len(tl.envelopes))
    if at is not None:
        i = tl.index_of_seq(at)
        if i not in span:
            raise GostopError(f"seq {at} is not in hand {hand}")
    else:
        i = span.start if step else span.stop - 1
    if html is not None:  # opened at --at or the end of --hand, when given
        from gostop_records.web.pages import write_replay_html

        size = write_replay_html(html, gid, envs, start=tl.envelopes[i].seq)
        typer.echo(f"wrote {html} ({size:,} bytes): the replayer of game {gid}", err=True)
        return
    paint = Painter(common.color_enabled(sys.stdout))
    if step:
        read = _line_reader()
        if sys.stdin.isatty():

            def read() -> str | None:
                return _read_key()

        step_through(tl, span, i, read, paint)
        return
    if json_out:
        common.print_json(tl.state_dict(i))
        return
    common.echo(_show(tl, i, paint))
