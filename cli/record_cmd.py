"""``gostop record``: the command that starts a recording, or resumes one, into a log, a
store or a server. The session itself, its commands and their grammar are
:mod:`.record_session`'s; a server's recording is :mod:`.server_record`'s.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Annotated

import typer

from gostop_records import notation
from gostop_records.errors import NoSpaceError
from gostop_records.integrity.signing import SigningKey, game_key, read_key_file
from gostop_records.recorder import RecordingSession, new_game_id, open_sink

from . import common
from .record_session import CARD_HELP, COMMANDS, GRAMMAR, Session
from .render import Painter

__all__ = ["record"]


def _signer(key: Path | None, game_id: str, by: str) -> SigningKey:
    """The key that signs: ``--key``, else the game's key in the key folder (made now)."""
    if key is not None:
        signer = read_key_file(key)
        where = str(key)
    else:
        signer, made = game_key(game_id, by)
        where = f"{signer.path} ({'new' if made else 'kept'} key of this game)"
    typer.echo(f"signing each hand's end with key {signer.fingerprint}: {where}", err=True)
    return signer


def _the_unfinished(db: Path | None, log: Path | None) -> str:
    """The game a bare ``--resume`` continues (:func:`gostop_records.games.resumable`); when
    there are several, they are listed and the command stops (exit 2)."""
    from gostop_records import games as G
    from gostop_records.errors import GameChoiceError

    if log is not None:
        if not log.exists():
            common.fail(f"{log}: no such log to resume a game from")
        found = list(G.summaries([log]))
        where = f"--log {log}"
    else:
        from gostop_records.store import Store
        from gostop_records.store.connection import default_path

        path = db if db is not None else default_path()
        if not Path(path).exists():
            common.fail(f"{path}: no such store to resume a game from")
        with Store(path, read_only=True) as store:
            found = list(G.store_summaries(store))
        where = f"--db {path}"
    try:
        chosen = G.resumable(found)
    except GameChoiceError as exc:
        common.error_message(str(exc))
        common.fail(f"name one: gostop record --resume GAME_ID {where}", common.EXIT_USAGE)
    common.echo(f"resuming the unfinished game {chosen.game_id} ({chosen.state})")
    return chosen.game_id


# Long: a typer command: its options are its signature, over half of its lines.
def record(
    players: Annotated[
        str | None,
        typer.Option(
            "--players",
            metavar="NAMES",
            help='Player names in seat order, comma-separated: "Ann,Ben" (each a new '
            'person); NAME=ID seats a known person (gostop people list): "Ann=p_3fa2c1d04e5b".',
        ),
    ] = None,
    ruleset: Annotated[
        str | None,
        typer.Option(
            "--ruleset",
            "-r",
            metavar="NAME|FILE",
            help="A preset (cardavia, gamerules, matgo, gostop3) or a ruleset file; "
            "default matgo for 2 players, gostop3 for 3 to 5.",
        ),
    ] = None,
    stake: Annotated[int, typer.Option("--stake", min=0, help="Chips per point.")] = 1,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            metavar="FILE",
            help="The DuckDB store to append to (default $GOSTOP_DB or gostop.duckdb here).",
        ),
    ] = None,
    log: Annotated[
        Path | None,
        typer.Option(
            "--log",
            metavar="FILE.jsonl",
            help="Append to a JSON Lines log instead of the store. The file is yours: it holds "
            "the names in the clear (a store seals them under each person's key, so that a "
            "person can be forgotten; gostop people forget cannot reach this file).",
        ),
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            metavar="[GAME_ID]",
            help="Continue a game at the exact point it stopped; without an id, the only "
            "game of the log or store left unfinished (gostop games lists them).",
        ),
    ] = None,
    game_id: Annotated[
        str | None,
        typer.Option("--game-id", metavar="ID", help="Id of the new game (default: generated)."),
    ] = None,
    script: Annotated[
        Path | None,
        typer.Option(
            "--script",
            metavar="FILE",
            help="Read the commands from a file ('-' = stdin) instead of prompting.",
        ),
    ] = None,
    by: Annotated[
        str, typer.Option("--by", metavar="WHO", help="Who records (stored with each event).")
    ] = "recorder",
    venue: Annotated[str | None, typer.Option("--venue", help="Where the game is played.")] = None,
    server: Annotated[
        str | None,
        typer.Option("--server", metavar="URL", help="Record into a running gostop serve."),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token", envvar="GOSTOP_TOKEN", help="With --server: the game's recorder token."
        ),
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option(
            "--key",
            metavar="FILE",
            help="Sign each hand's end with this key file (gostop keys new); default: a key "
            "made for the game in the key folder ($GOSTOP_KEYS, else ~/.local/share/gostop/keys).",
        ),
    ] = None,
    no_sign: Annotated[
        bool, typer.Option("--no-sign", help="Record without signed checkpoints.")
    ] = False,
) -> None:
    """Record a game at a real table: each entry is checked by the rules and saved at once.

    The commands, one per line, at the prompt, in --script FILE or piped on stdin:

    \b
    {grammar}

    A refused line is reported with its reason and nothing is written; the recording goes on.

    A script exits 1 at the end when a line was refused.

    Resume a stopped game at the exact point it stopped with --resume GAME_ID, or with a
    bare --resume when the log or store holds one unfinished game (gostop games lists them).

    Example: gostop record --players "Ann,Ben" --ruleset matgo --log friday.jsonl
    """
    common.not_both("--db", db, "--log", log)
    if server is not None:  # the same loop, writing into a server (cli/server_record.py); a
        # bare --resume there continues the game the recorder token is for
        from .server_record import record_remote

        return record_remote(
            server,
            token=token,
            key=None,
            players=players,
            ruleset=ruleset,
            stake=stake,
            venue=venue,
            by=by,
            game_id=game_id,
            resume=resume,
            script=script,
        )
    if resume is not None and game_id is not None and resume and game_id != resume:
        raise typer.BadParameter(
            "--resume names the game; leave --game-id out", param_hint="--game-id"
        )
    if resume is None and not players:
        raise typer.BadParameter(
            'name the players in seat order: --players "Ann,Ben"', param_hint="--players"
        )
    if resume is not None and (players or ruleset):
        common.warn("--players and --ruleset are taken from the stored game when resuming")
    common.not_both("--key", key, "--no-sign", no_sign)
    if resume == "":
        resume = _the_unfinished(db, log)
    gid = resume or game_id or new_game_id()
    names = [n.strip() for n in (players or "").split(",") if n.strip()]
    rules = ruleset or ("gostop3" if len(names) >= 3 else "matgo")
    if resume is None:  # a game refused here makes no key and no file
        RecordingSession.opening(gid.strip(), names, rules, stake=stake, venue=venue)
    signer = None if no_sign else _signer(key, gid, by)

    with contextlib.ExitStack() as stack:
        stream, interactive = common.script_or_stdin(stack, script)
        if interactive:
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401 - line editing and history at the prompt
        sink = open_sink(db=db, log=log, create=resume is None)
        stack.callback(sink.close)
        if getattr(sink, "repaired", 0):
            common.warn(
                f"{sink.location}: cut off an incomplete last record "
                f"({sink.repaired} bytes) left by an interrupted write"
            )
        if resume is not None:
            rec = RecordingSession.resume(sink, resume, by=by, signer=signer)
        else:
            rec = RecordingSession.start(
                sink, names, rules, stake=stake, game_id=gid, by=by, venue=venue, signer=signer
            )
        loop = Session(
            rec,
            common.LineReader(
                stream, interactive, lines=lambda: [*notation.lines_now(rec.game), *COMMANDS]
            ),
            out=common.echo,
            err=lambda s: typer.echo(s, err=True),
            paint=Painter(common.color_enabled(sys.stdout)),
            err_paint=Painter(common.color_enabled(sys.stderr)),
        )
        loop.greet(resumed=resume is not None)
        fault: NoSpaceError | None = None
        try:
            loop.run()
        except KeyboardInterrupt:
            typer.echo("", err=True)
        except NoSpaceError as exc:
            fault = exc
        if fault is None and rec.owes_seal():
            try:
                rec.seal()  # what followed the last seal (a payment, a note) gets one too
                loop.show_seals()
            except NoSpaceError as exc:
                fault = exc
        where = f"--log {log}" if log is not None else f"--db {sink.location}"
        typer.echo(
            f"game {rec.game_id}: {rec.last_seq} events saved in {sink.location}; continue "
            f"with: gostop record --resume {rec.game_id} {where}",
            err=True,
        )
    if fault is not None:
        common.fail(str(fault))
    if loop.refused and not interactive:
        common.error_message(f"{loop.refused} line(s) refused")
        raise typer.Exit(common.EXIT_REJECTED)


record.__doc__ = (record.__doc__ or "").replace(
    "{grammar}", (GRAMMAR + "\n" + CARD_HELP).replace("[", "\\[").replace("\n", "\n    ")
)
