"""``gostop people``: the store's players as persons; rename or merge them, by events.

A person is an id apart from the name shown (see ``gostop_records.people``): ``list`` shows
every person a game seated, with the name shown now and the person their games count for;
``rename``, ``merge`` and ``forget`` append an event to the store's people record
(hash-chained and verified like a game's), never an edit of a game.
"""

from __future__ import annotations

from typing import Annotated

import typer

from gostop_records import events as E

from . import common
from .db_cmd import DEFAULT_DB, DbOption, JsonOption

__all__ = ["app"]

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Players as persons: list them, rename one, merge two, forget one (events, never "
    "edits); upgrade seals the names older games hold in the clear and gives a minted id to "
    "each person whose id is made from the name, so they can be forgotten.",
    epilog="Example: gostop people rename p_3fa2c1d04e5b 'Ann Lee' --db club.duckdb",
)

ByOption = Annotated[
    str, typer.Option("--by", metavar="WHO", help="Who makes the change (kept in the record).")
]


@app.command("list", epilog="Example: gostop people list --db club.duckdb")
def list_people(db: DbOption = DEFAULT_DB, as_json: JsonOption = False) -> None:
    """Every person: id, the name shown, the name at their latest table, games, and the
    person their games count for (another's after a merge)."""
    from gostop_records.store import Store
    from gostop_records.store.people import persons

    with Store(db, read_only=True) as store:
        rows = persons(store.conn)
    if as_json:
        common.print_json(rows)
        return
    cols = ["person_id", "name", "name_at_table", "games", "counts_for"]
    common.print_table(cols, [[r[c] for c in cols] for r in rows])


def _append(db: DbOption, event: E.PersonRenamed | E.PersonsMerged, by: str) -> E.Envelope:
    from gostop_records.store import Store
    from gostop_records.store.people import append_person_event

    with Store(db) as store:
        return append_person_event(store, event, by=by)


@app.command("rename", epilog="Example: gostop people rename ann-lee 'Ann Lee' --db club.duckdb")
def rename(
    person: Annotated[str, typer.Argument(metavar="ID", help="The person's id.")],
    name: Annotated[str, typer.Argument(metavar="NAME", help="The name to show from now on.")],
    db: DbOption = DEFAULT_DB,
    by: ByOption = "people",
) -> None:
    """Show a person by another name from now on (a person_renamed event); each game keeps
    the name its table gave."""
    env = _append(db, E.PersonRenamed(person=person, name=name.strip()), by)
    common.echo(f"people record seq {env.seq}: {person} is shown as {name.strip()!r}")


@app.command("merge", epilog="Example: gostop people merge ann ann-lee --db club.duckdb")
def merge(
    person: Annotated[str, typer.Argument(metavar="ID", help="The id whose games move.")],
    into: Annotated[str, typer.Argument(metavar="INTO", help="The person they count for.")],
    db: DbOption = DEFAULT_DB,
    by: ByOption = "people",
) -> None:
    """Count one id's games for another person from now on (a persons_merged event)."""
    env = _append(db, E.PersonsMerged(person=person, into=into), by)
    common.echo(f"people record seq {env.seq}: {person}'s games count for {into}")


@app.command("forget", epilog="Example: gostop people forget p_3fa2c1d04e5b --db club.duckdb")
def forget(
    person: Annotated[str, typer.Argument(metavar="ID", help="The person's id.")],
    db: DbOption = DEFAULT_DB,
    by: ByOption = "people",
) -> None:
    """Forget a person: delete the key of their names (a person_forgotten event that names
    no one), derive their games' rows again without them, then rewrite the store into a
    fresh file so that no free block keeps them. Every chain, seal and signature still
    verifies. Stop the server first (or use its API, then compact when it is stopped)."""
    from gostop_records.store import Store
    from gostop_records.store.compact import compact
    from gostop_records.store.people import forget_person

    with Store(db) as store:
        done = forget_person(store, person, by=by)
    size = compact(db)
    common.echo(
        f"people record seq {done.envelope.seq}: {', '.join(done.ids)} forgotten; "
        f"{len(done.games)} game(s) derived again without the name; {db} rewritten "
        f"({size} bytes). Backups and exports made before still hold the name: remove them."
    )


@app.command(
    "upgrade",
    short_help="Seal the names older games hold in the clear, and seat each person whose id "
    "is made from the name under a minted id (re-chaining only those games), so that those "
    "persons can be forgotten; --dry-run lists what would change.",
    epilog="Example: gostop people upgrade --db club.duckdb --dry-run",
)
def upgrade(
    db: DbOption = DEFAULT_DB,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List what would change; write nothing.")
    ] = False,
) -> None:
    """Seal the names games hold in the clear (recorded before names were sealed, imported,
    played on /play), so that those persons can be forgotten. A person whose id is made from
    the name (recorded before persons had ids: 'Ann Lee' is ann-lee) is seated, in every
    game, under a minted id (p_ and 12 hex digits; the one an earlier upgrade gave, if any);
    the old id is kept only sealed in the upgrade's record; forget them by the new id. One
    who must keep the old id (a game seating them is refused, or the people record names
    it) is named on stderr. The computer's seats keep their names. Sealing a name changes
    every hash of its game: only those games are re-chained, each recorded in the heads
    chain (game_resealed, old and new head); checkpoints signed with the server's key beside
    the store are signed again; a game a player countersigned, or another key signed, is
    refused and left as it is. One transaction. Exit code 1 when a game is refused."""
    from gostop_records.integrity.signing import read_key_file, server_key_path
    from gostop_records.store import Store
    from gostop_records.store.reseal import upgrade as run

    if not db.exists():
        common.fail(f"{db}: no store here (nothing to upgrade)")
    key_path = server_key_path(db)
    signer = read_key_file(key_path) if key_path.exists() else None
    with Store(db, read_only=dry_run) as store:
        done = run(store, signer, dry_run=dry_run)
    verb = "would re-chain" if dry_run else "re-chained"
    for d in done.resealed:
        seqs = ", ".join(map(str, d.resigned))
        resigned = f", checkpoint(s) at seq {seqs} signed again" if seqs else ""
        seats = ", ".join(map(str, d.kept))
        kept = f", seat(s) {seats} kept in the clear" * bool(seats)
        moved = "".join(f", {old} seated as {new}" for old, new in d.reseated)
        common.echo(
            f"{verb} game {d.game_id}: {d.events} event(s), names of {', '.join(d.sealed)} "
            f"sealed{moved}{resigned}{kept}; head {d.old_head[:12]} -> {d.new_head[:12]}"
        )
    for old, new in sorted(done.ids.items()):
        given = (
            "a new id" + (" (the run mints its own)" if dry_run else "")
            if new in done.minted
            else "the id an earlier upgrade gave"
        )
        common.echo(
            f"person {old} (an id made from the name) {'would be' if dry_run else 'is'} "
            f"seated as {new} in every game: {given}"
        )
    for old, why in sorted(done.kept.items()):
        common.warn(f"person {old} keeps an id made from the name, so cannot be forgotten: {why}")
    for r in done.refused:
        common.error_message(f"refused game {r.game_id}: {r.reason}; left as it is")
    what = "to re-chain" if dry_run else "re-chained"
    common.echo(
        f"{len(done.resealed)} game(s) {what} (every hash of each changes; the heads chain "
        f"records the old head and the new: kind game_resealed), {len(done.refused)} "
        f"refused, {done.untouched} holding nothing to seal left as they are"
        + (". Nothing written (--dry-run)." if dry_run else ".")
    )
    if done.refused:
        raise typer.Exit(common.EXIT_REJECTED)
