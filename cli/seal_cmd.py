"""``gostop seal``, ``verify`` and ``countersign``: a record's seal, whether a record still
holds one, and a player's countersignature of a hand's result.

A seal is the head of a game (the hash of its latest event), short enough to write on the
score sheet (``K7Q2-M9XA-3F``) and, where a terminal can show one, a QR code of the whole
head. ``seal`` prints each game's current seal (and, for a store, the seal of its heads
chain); ``verify --seal`` says whether the record still holds that head: at which seq, and
how many events follow it, or where the record departs from it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from gostop_records.errors import GostopError
from gostop_records.games import log_games
from gostop_records.integrity import checkpoints as CP
from gostop_records.integrity.seals import (
    Seal,
    SealCheck,
    check_seal,
    parse_seal,
    qr_text,
    seal_text,
)

from . import common

__all__ = ["countersign", "seal", "seal_lines", "verify"]

LogArg = Annotated[
    Path | None,
    typer.Argument(metavar="LOG", help="A log file (.jsonl or .msgpack).", show_default=False),
]
DbOpt = Annotated[
    Path | None,
    typer.Option("--db", metavar="FILE", help="Read the store instead of a log file."),
]
GameOpt = Annotated[
    str | None,
    typer.Option("--game", metavar="ID", help="The game (default: every game of the log)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine output on stdout.")]


def seal_lines(s: Seal, *, qr: bool) -> list[str]:
    """The seal as the recorder and ``gostop seal`` print it, with its QR code."""
    out = [s.describe()]
    if qr:
        out += qr_text(s).rstrip("\n").split("\n")
    return out


def _games(log: Path | None, db: Path | None, game: str | None) -> dict[str, list[Any]]:
    """game id -> envelopes, from a log (every game, or ``game``) or the store (``game``)."""
    if (log is None) == (db is None):
        common.fail("give a LOG file or --db FILE (one of them)", common.EXIT_USAGE)
    if log is not None:
        games: dict[str, list[Any]] = dict(log_games(log))
        if not games:
            raise GostopError(f"{log}: the log holds no events")
        if game is not None:
            if game not in games:
                raise GostopError(f"{log}: there is no game {game!r} (games: {', '.join(games)})")
            return {game: games[game]}
        return games
    assert game is not None
    _, envs = common.load_game(None, db, game)
    return {game: envs}


def seal(
    log: LogArg = None,
    db: DbOpt = None,
    game: GameOpt = None,
    qr: Annotated[
        bool | None,
        typer.Option("--qr/--no-qr", help="Show the QR code (default: on a terminal)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Print each game's current seal: its head, short enough for the score sheet.

    With --db and no --game: every game's seal and the seal of the store's heads chain.

    Example: gostop seal friday.jsonl
    """
    show_qr = sys.stdout.isatty() if qr is None else qr
    if db is not None and log is None and game is None:
        from gostop_records.store import Store

        with Store(db, read_only=True) as store:
            seals = store.seals()
            entry, tip = store.heads_tip()
        if as_json:
            common.print_json(
                {
                    "games": [_seal_dict(s) for s in seals],
                    "store": {"entry": entry, "head": tip, "seal": seal_text(tip)},
                }
            )
            return
        for s in seals:
            common.echo(s.describe())
        common.echo(f"store seal {seal_text(tip)}  (heads chain of {db}, entry {entry})")
        return
    games = _games(log, db, game)
    out = []
    for gid, envs in games.items():
        s = Seal(gid, envs[-1].seq, envs[-1].hand, envs[-1].hash)
        signed = CP.check(envs)
        out.append((s, signed))
    if as_json:
        common.print_json([{**_seal_dict(s), "signatures": sig.summary()} for s, sig in out])
        return
    for s, sig in out:
        for line in seal_lines(s, qr=show_qr):
            common.echo(line)
        common.echo(f"  signatures: {sig.summary()}")


def _seal_dict(s: Seal) -> dict[str, Any]:
    return {"game_id": s.game_id, "seq": s.seq, "hand": s.hand, "head": s.head, "seal": s.text}


def verify(
    log: LogArg = None,
    db: DbOpt = None,
    game: GameOpt = None,
    seal_: Annotated[
        str,
        typer.Option(
            "--seal",
            metavar="SEAL",
            help="The seal as written (K7Q2-M9XA-3F), a whole head (64 hex digits) or a QR "
            "code's text.",
        ),
    ] = "",
    seq: Annotated[
        int | None,
        typer.Option("--seq", min=1, metavar="N", help="The seq the seal was taken at."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Say whether a record still holds a seal: at which seq, and what follows it, or where
    the record departs from it.

    With --db and no --game the seal is the store's (gostop seal --db).

    Exit code 0 when the record holds the seal, 1 when it does not.

    Example: gostop verify friday.jsonl --seal K7Q2-M9XA-3F
    """
    if not seal_:
        common.fail("give the seal to check: --seal K7Q2-M9XA-3F", common.EXIT_USAGE)
    query = parse_seal(seal_, seq)
    if db is not None and log is None and game is None and query.game_id is None:
        from gostop_records.store import Store
        from gostop_records.store.heads import check_seal as check_store_seal

        with Store(db, read_only=True) as store:
            result = check_store_seal(store.conn, query)
        _report([("store", result)], as_json)
        return
    games = _games(log, db, game or query.game_id)
    results: list[tuple[str, SealCheck]] = []
    for gid, envs in games.items():
        signed = CP.check(envs)
        results.append((gid, check_seal(envs, query, signed.vouched_until)))
    if db is not None and log is None and not any(r.holds for _, r in results):
        from gostop_records.store import Store
        from gostop_records.store.reseal import trace_seal

        with Store(db, read_only=True) as store:
            traced = [(g, t) for g in games if (t := trace_seal(store, g, query)) is not None]
        results = traced or results
    held = [r for r in results if r[1].holds]
    _report(held or results, as_json)


def _report(results: list[tuple[str, SealCheck]], as_json: bool) -> None:
    ok = any(r.holds for _, r in results)
    if as_json:
        common.print_json(
            {"holds": ok, "games": [{"game_id": g, **r.to_dict()} for g, r in results]}
        )
    else:
        for gid, r in results:
            line = f"game {gid}: {r.text}" if gid != "store" else r.text
            if r.holds:
                common.echo(line)
            else:
                common.error_message(line)
    if not ok:
        raise typer.Exit(common.EXIT_REJECTED)


def countersign(
    log: LogArg = None,
    db: DbOpt = None,
    game: GameOpt = None,
    seat: Annotated[
        str, typer.Option("--seat", metavar="SEAT", help="Your seat: its number or your name.")
    ] = "",
    key: Annotated[
        Path | None,
        typer.Option("--key", metavar="FILE", help="Your key file (gostop keys new)."),
    ] = None,
) -> None:
    """Countersign the latest signed checkpoint of a game with your own key.

    Appends a result_countersigned event: your seat, your public key and your signature of
    the checkpoint's head (the hand's result).

    Example: gostop countersign friday.jsonl --seat Ben --key ben.key
    """
    from gostop_records.integrity.signing import read_key_file
    from gostop_records.recorder import JsonlSink, RecordingSession, StoreSink

    if key is None or not seat:
        common.fail("give --seat and --key: who countersigns, with which key", common.EXIT_USAGE)
    if (log is None) == (db is None):
        common.fail("give a LOG file or --db FILE (one of them)", common.EXIT_USAGE)
    signer = read_key_file(key)
    if game is None:
        if log is None:
            common.fail("--db needs --game ID", common.EXIT_USAGE)
        game = next(iter(_games(log, None, None)))
    sink = JsonlSink(log, create=False) if log is not None else StoreSink(db, create=False)
    with RecordingSession.resume(sink, game) as rec:
        players = rec.players
        t = seat.strip().lower()
        seats = [i for i, p in enumerate(players) if t in (str(i), p.id.lower(), p.name.lower())]
        if len(seats) != 1:
            names = ", ".join(f"{i} {p.name}" for i, p in enumerate(players))
            common.fail(f"{seat!r} is not a seat of game {game} ({names})", common.EXIT_USAGE)
        env = rec.countersign(seats[0], signer)
        s = Seal(rec.game_id, env.seq, env.hand, env.hash)
    ev = env.event
    common.echo(
        f"seq {env.seq}: {players[seats[0]].name} (seat {seats[0]}) countersigned head seq "
        f"{ev.head_seq} with key {signer.fingerprint}"  # type: ignore[union-attr]
    )
    common.echo(s.describe())
