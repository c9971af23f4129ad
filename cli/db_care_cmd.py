"""``gostop db`` commands that keep the store sound: verify, rebuild, repair, back up,
restore."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from . import common
from .db_app import DEFAULT_DB, DbOption, JsonOption, app
from .progress import Progress

if TYPE_CHECKING:
    pass


@app.command("verify", epilog="Example: gostop db verify --json")
def verify(db: DbOption = DEFAULT_DB, as_json: JsonOption = False) -> None:
    """Recompute every hash chain and check the projection tables equal a fresh rebuild.

    Names the first broken seq of each game, every signature that does not hold, and every
    game the store's heads chain says was deleted, replaced or cut short.
    Exit code 1 when anything is wrong.
    """
    from gostop_records.store import Store

    with Store(db, read_only=True) as store:
        report = store.verify()
    if as_json:
        common.print_json(report.to_dict())
    elif report.ok:
        common.echo(
            f"{report.games} game(s), {report.events} event(s): every hash chain "
            "intact, projection tables equal a fresh rebuild, the heads chain holds every "
            f"game; {report.signed_games} signed game(s), {report.valid_signatures} valid "
            f"signature(s); the people record's {report.person_events} event(s) chained and "
            "held"
        )
    if not report.ok:
        for line in report.problems():
            common.error_message(line)
        raise typer.Exit(common.EXIT_REJECTED)


@app.command("rebuild", epilog="Example: gostop db rebuild")
def rebuild(
    db: DbOption = DEFAULT_DB,
    accept_loss: Annotated[
        bool,
        typer.Option(
            "--accept-loss",
            help="Rebuild even though events are missing, and record the loss in the "
            "store's heads chain.",
        ),
    ] = False,
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            metavar="URL",
            help="Ask the gostop serve holding the store to rebuild beside its live tables "
            "while it records, and follow it to its swap.",
        ),
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            envvar="GOSTOP_SERVER_KEY",
            help="With --server: the server key (default: $GOSTOP_SERVER_KEY).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Derive every projection table again from the events, into new tables swapped in in
    one transaction.

    Refuses when the store's heads chain says events are missing (a game deleted, replaced
    or cut short), naming them, unless --accept-loss; the rebuild is recorded either way.
    A store a server holds is rebuilt by the server (--server URL), which goes on
    answering from the old tables meanwhile.
    """
    if server is not None:
        from .remote_rebuild import server_rebuild

        server_rebuild(server, key, accept_loss=accept_loss, as_json=as_json)
        return
    from gostop_records.store import Store

    with Store(db) as store, Progress("rebuild", None, "game") as bar:
        report = store.rebuild(accept_loss=accept_loss, progress=bar.update)
    if as_json:
        common.print_json(report.to_dict())
    else:
        rows = ", ".join(f"{k} {v}" for k, v in report.rows.items())
        common.echo(f"rebuilt the projections of {report.games} game(s): {rows}")
    for f in report.failed:
        common.warn(f"not projected: {f}")
    for loss in report.accepted:
        common.warn(f"loss accepted and recorded: game {loss.game_id}: {loss.reason}")


@app.command("repair", epilog="Example: gostop db repair --dry-run")
def repair(
    db: DbOption = DEFAULT_DB,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what the repair would do; change nothing.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Mend the heads chain earlier versions damaged (a stale tip), and record the repair.

    Re-links the entries from the first that does not follow the entry before it, and
    counts, in a 'repaired' entry, the events a game has past its latest entry; a last
    'repaired' entry records what was done, with the old hashes.
    Refuses, changing nothing, when a game's event chain is broken, events the heads chain
    recorded are missing or replaced (see db rebuild --accept-loss), or an entry was removed
    or changed. Exit code 1 when it refuses.
    """
    from gostop_records.store import Store

    with Store(db) as store:
        report = store.repair(dry_run=dry_run)
    if as_json:
        common.print_json(report.to_dict())
        return
    for line in report.lines():
        common.echo(line)
    if report.changed and not dry_run:
        common.echo(f"next: gostop db verify --db {db}")


@app.command(
    "backup",
    epilog="Examples: gostop db backup club-copy.duckdb --db club.duckdb; "
    "GOSTOP_SERVER_KEY=... gostop db backup --server http://127.0.0.1:8765",
)
def backup(
    dest: Annotated[
        Path | None,
        typer.Argument(
            metavar="DEST",
            help="The backup to write (a new file). With --server: a name for it in the "
            "server's backup folder (optional; by default the UTC time).",
            show_default=False,
        ),
    ] = None,
    db: DbOption = DEFAULT_DB,
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            metavar="URL",
            help="Ask the gostop serve holding the store to back it up (with the server key, "
            "$GOSTOP_SERVER_KEY), into its backup folder.",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """A consistent copy of the store, taken while it may be in use.

    Every journaled entry is written into the store first, so nothing acknowledged is left
    out; the copy is checked (it holds the heads chain tip the store held) before it gets
    its name. A store a server holds is backed up by the server (--server URL).
    Restore with gostop db restore, which verifies the backup first.
    """
    if server is not None:
        out = _remote_backup(server, dest)
    else:
        if dest is None:
            raise typer.BadParameter("give the file to write the backup to", param_hint="DEST")
        from gostop_records.store import Store, StoreLockedError
        from gostop_records.store.backup import backup as write_backup

        if not db.exists():
            common.fail(f"{db}: no store here")
        try:
            with Store(db) as store:
                out = write_backup(store, dest).to_dict()
        except StoreLockedError as exc:
            common.fail(
                f"{exc}\nif a gostop serve holds it, ask it for the backup: "
                "gostop db backup --server URL (with $GOSTOP_SERVER_KEY)"
            )
        except OSError as exc:
            common.fail(f"{exc.filename or dest}: the backup was not written: {exc.strerror}")
        out["name"] = str(dest)
    if as_json:
        common.print_json(out)
        return
    tip = out["heads_tip"]
    common.echo(
        f"backed up {out['games']} game(s), {out['events']} event(s) to {out['name']} "
        f"({out['size']:,} bytes); heads chain entry {tip['entry']} {tip['hash']}"
    )
    for name in out.get("removed", []):
        common.echo(f"removed the older backup {name}")


def _remote_backup(server: str, dest: Path | None) -> dict[str, Any]:
    import os

    from gostop_records.service.client import ServerRefused, ServiceClient

    if dest is not None and dest.name != str(dest):
        raise typer.BadParameter(
            "with --server, give a file name only: the server writes into its backup folder",
            param_hint="DEST",
        )
    client = ServiceClient(server, os.environ.get("GOSTOP_SERVER_KEY") or None, timeout=600)
    try:
        out = client.backup(dest.name if dest is not None else None)
    except ServerRefused as exc:
        common.fail(f"{client.url}: {exc.reason}")
    out["name"] = f"{out['name']} (in the server's backup folder)"
    return out  # type: ignore[no-any-return]


@app.command(
    "restore",
    epilog="Example: gostop db restore backups/club-20261206T0600Z.duckdb --db club.duckdb",
)
def restore(
    source: Annotated[Path, typer.Argument(metavar="SRC", help="The backup to restore.")],
    db: DbOption = DEFAULT_DB,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Replace the store at --db (never one a running process holds).",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Restore a backup into a store file, verified before it is used.

    The backup is copied beside FILE and checked as gostop db verify checks a store (every
    hash chain and signature, the heads chain against the events, the projection tables);
    only a backup that verifies becomes FILE. One that does not is refused with the
    reasons, and nothing is left at FILE. An existing FILE is replaced only with --force.
    Exit code 1 when the backup is refused.
    """
    from gostop_records.store.backup import restore as run_restore

    try:
        report = run_restore(source, db, force=force)
    except OSError as exc:
        common.fail(f"{exc.filename or db}: nothing was restored: {exc.strerror}")
    if as_json:
        common.print_json({**report.to_dict(), "problems": report.problems})
    if not report.written:
        for line in report.problems:
            common.error_message(line)
        common.fail(f"{source}: refused: the backup does not verify; nothing was written to {db}")
    if not as_json:
        v = report.verify
        common.echo(
            f"restored {source} into {db}: {v.games} game(s), {v.events} event(s), verified "
            f"(every hash chain, the heads chain, {v.valid_signatures} signature(s), the "
            f"projection tables); heads chain entry {report.entry} {report.hash}"
        )
