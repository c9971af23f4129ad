"""``gostop simulate``: seeded self-play into log files or a DuckDB store.

``--out DIR`` writes one JSONL log per game, ``DIR/<game_id>.jsonl``; ``--out FILE`` named
``.jsonl`` or ``.msgpack`` writes every game into that one new log. A game id names the
ruleset, player count, non-greedy bots, stake and seed, which fix the game: running the same
command again rewrites identical files, and a game of fewer hands is a prefix of the same
game with more (a store extends it). Each file is written
under a temporary name and renamed when the game is complete, so an interrupted run never
leaves half a log under a game's name. ``--db FILE`` imports the games into a store instead,
validated per game and idempotent, as ``gostop db import`` does.

Progress goes to stderr: a bar redrawn in place on a terminal, a plain line every tenth of
the run otherwise. The summary goes to stdout, as text or with ``--json`` as JSON.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gostop_records import events as E
from gostop_records import log as L
from gostop_records import words
from gostop_records.errors import RulesetError
from gostop_records.rules import PRESETS, Ruleset, load_ruleset_file
from gostop_records.sim.roster import BOTS
from gostop_records.sim.selfplay import GameSpec, game_start, iter_game
from gostop_records.sim.summary import RunSummary

from . import common
from .progress import Progress

if TYPE_CHECKING:
    from gostop_records.store import ImportReport

__all__ = ["simulate"]

#: Characters kept in a file name; others (a custom ruleset may be named anything) become _.
_SAFE = re.compile(r"[^A-Za-z0-9._+-]")


def _usage(message: str, param: str) -> typer.BadParameter:
    return typer.BadParameter(message, param_hint=f"'{param}'")


def _ruleset(value: str) -> Ruleset:
    """A preset by name (an unknown name is a usage error) or a ruleset file (rejected: 1)."""
    name = value.strip().lower()
    if name in PRESETS:
        return PRESETS[name]
    path = Path(value)
    if path.suffix.lower() in (".toml", ".json") or path.is_file():
        if not path.is_file():
            raise _usage(f"no ruleset file {value}", "--ruleset")
        return load_ruleset_file(path)  # a bad file is rejected input: exit 1
    raise _usage(
        f"unknown ruleset {value!r}: presets are {', '.join(PRESETS)}, "
        "or give a .toml/.json ruleset file",
        "--ruleset",
    )


def _stream(
    specs: list[GameSpec], summary: RunSummary, progress: Progress, per_game: int
) -> Iterator[tuple[int, Iterator[E.Envelope]]]:
    """(game index, its envelopes) of each game; counting hands and events on the way."""
    for k, spec in enumerate(specs):
        before = k * per_game

        def events(spec: GameSpec = spec, before: int = before) -> Iterator[E.Envelope]:
            played = 0
            for env in iter_game(spec, game_start(spec.seed)):
                summary.add(env)
                if type(env.event) is E.HandEnded:
                    played += 1
                    progress.update(before + min(played, per_game))
                yield env
            progress.update(before + per_game)

        yield k, events()


def _log_file(out: Path) -> bool:
    """Whether ``--out`` names one log file rather than a folder: a log's suffix, and no
    folder of that name already there."""
    return out.suffix in (".jsonl", ".msgpack") and not out.is_dir()


def _all_events(games: Iterator[tuple[int, Iterator[E.Envelope]]]) -> Iterator[E.Envelope]:
    """The events of every game, one game after another."""
    for _, envs in games:
        yield from envs


def _write_file(out: Path, games: Iterator[tuple[int, Iterator[E.Envelope]]]) -> list[str]:
    """Every game into one new log, written whole or not at all."""
    L.write_atomic(out, _all_events(games))
    return [str(out)]


def _write_dir(
    out: Path, games: Iterator[tuple[int, Iterator[E.Envelope]]], specs: list[GameSpec]
) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for k, envs in games:
        final = out / f"{_SAFE.sub('_', specs[k].id())}.jsonl"
        L.write_atomic(final, envs)  # an interrupted game leaves no partial file
        written.append(str(final))
    return written


def _write_db(db: Path, games: Iterator[tuple[int, Iterator[E.Envelope]]]) -> ImportReport:
    """Import the games into the store at ``db`` (validated per game, idempotent)."""
    from gostop_records.store import Store

    with Store(db) as store:
        return store.import_envelopes(_all_events(games), source="simulate", strict=True)


def _text_summary(s: dict[str, Any]) -> str:
    o = s["outcomes"]
    secs = s["seconds"]
    lines = [
        f"simulated {s['games']} game(s), {s['hands']} hand(s), {s['events']} event(s) "
        f"{words.rate_words(s['hands'], 'hand', secs)}: {s['ruleset']}, {s['players']} "
        f"players, seed {s['seed']}",
        f"outcomes: {o['stop']} stop, {o['instant']} instant, {o['nagari']} nagari, "
        f"{o['void']} void; nagari rate {s['nagari_rate'] * 100:.1f}%",
        f"payouts: {s['chips_due']} chips due, {s['avg_chips_per_hand']:.2f} per hand "
        f"(stake {s['stake']})",
    ]
    for b in s["bots"]:
        seats = ", ".join(str(x) for x in b["seats"])
        lines.append(
            f"bot {b['bot']} (seat {seats}): {b['wins']} win(s), {b['net_chips']:+d} chips"
        )
    if "out" in s and s["files"] == [s["out"]]:
        lines.append(f"wrote {s['games']} game(s) into one log, {s['out']}")
    elif "out" in s:
        lines.append(f"wrote {len(s['files'])} log(s) to {s['out']}")
    else:
        imp = s["import"]
        lines.append(
            f"store {s['db']}: {imp['imported']} imported, {imp['extended']} extended, "
            f"{imp['skipped']} already stored, {imp['events']} event(s) written"
        )
    return "\n".join(lines)


# Long: a typer command: its options are its signature, over half of its lines.
def simulate(
    ruleset: Annotated[
        str,
        typer.Option(
            "--ruleset",
            "-r",
            metavar="NAME|FILE",
            help=f"A preset ({', '.join(PRESETS)}) or a .toml/.json ruleset file.",
        ),
    ] = "matgo",
    players: Annotated[
        int | None,
        typer.Option(
            "--players",
            "-p",
            metavar="N",
            min=2,
            max=5,
            help="Players, 2 or 3 as the ruleset allows, or 4 or 5 at a 3-player ruleset "
            "(three play each hand, the others sit out; default: the ruleset's first "
            "player count).",
        ),
    ] = None,
    games: Annotated[
        int, typer.Option("--games", "-g", metavar="G", min=1, help="Games to simulate.")
    ] = 1,
    hands: Annotated[
        int,
        typer.Option(
            "--hands", metavar="H", min=1, help="Hands per game (a single-hand ruleset plays one)."
        ),
    ] = 1,
    seed: Annotated[
        int,
        typer.Option(
            "--seed", "-s", metavar="S", min=0, help="Seed of the first game; game k uses S + k."
        ),
    ] = 0,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            "--bot",
            "-b",
            metavar="NAME",
            help=f"Bot of the next seat ({', '.join(BOTS)}); repeat for seat 1, 2; "
            "seats without one take the list from the start (default: greedy).",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR|FILE",
            help="Write one JSONL log per game into DIR (created if missing), or every game "
            "into one new log FILE named .jsonl or .msgpack.",
        ),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option("--db", metavar="FILE", help="Import the games into this DuckDB store."),
    ] = None,
    stake: Annotated[int, typer.Option("--stake", metavar="N", min=1, help="Chips per point.")] = 1,
    chips: Annotated[
        int | None,
        typer.Option(
            "--chips",
            metavar="N",
            min=0,
            help="Chips each player brings, counted before the first hand (default: none, "
            "or 50 points' worth when the ruleset limits payments by chips).",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON on stdout.")
    ] = False,
    progress: Annotated[
        bool,
        typer.Option("--progress/--no-progress", help="Show progress on stderr."),
    ] = True,
) -> None:
    """Simulate seeded games between bots and write their logs, or store them.

    The same arguments give the same logs, byte for byte, on every machine.

    Every log validates strictly: deck, deal, every input and consequence, the payments.

    The summary: games, hands, events, outcomes, nagari rate, chips per hand, bot results.

    Example: gostop simulate -r matgo -g 100 --hands 5 --bot greedy --bot random --out sims/
    """
    if (out is None) == (db is None):
        raise typer.BadParameter(
            "give exactly one of --out DIR or --db FILE", param_hint="'--out' / '--db'"
        )
    one_log = out is not None and _log_file(out)
    if out is not None and out.exists() and not out.is_dir():
        raise _usage(
            f"{out} exists: a simulation writes a new log (give another name, or a folder)"
            if one_log
            else f"{out} exists and is not a folder",
            "--out",
        )
    try:
        rules = _ruleset(ruleset)
    except RulesetError as exc:
        common.fail(str(exc))
    n = players if players is not None else rules.players[0]
    if n not in rules.seats():
        allowed = " or ".join(str(p) for p in rules.players)
        seats = " (or at 4-5 seats, three playing each hand)" if 4 in rules.seats() else ""
        raise _usage(
            f"ruleset {rules.name!r} is played by {allowed} players, not {n}{seats}", "--players"
        )
    bots = tuple(b.strip().lower() for b in (bot or ["greedy"]))
    for b in bots:
        if b not in BOTS:
            raise _usage(f"unknown bot {b!r}: bots are {', '.join(BOTS)}", "--bot")
    if len(bots) > n:
        raise _usage(f"{len(bots)} bots for {n} players: give at most one per seat", "--bot")

    specs = list(GameSpec(rules, n, hands, seed, bots, stake, chips=chips).run(games))
    per_game = 1 if rules.single_hand else hands
    summary = RunSummary(specs[0].seat_bots())
    bar = Progress("simulate", games * per_game, "hand", enabled=progress)
    started = time.monotonic()
    stream = _stream(specs, summary, bar, per_game)
    result: dict[str, Any] = {}
    try:
        if out is not None:
            result["files"] = (
                _write_file(out, stream) if one_log else _write_dir(out, stream, specs)
            )
        else:
            assert db is not None
            report = _write_db(db, stream)
    finally:
        bar.close()
    data: dict[str, Any] = {
        "ruleset": rules.name,
        "ruleset_hash": rules.content_hash,
        "players": n,
        "seed": seed,
        "seat_bots": specs[0].seat_bots(),
        "stake": stake,
        **summary.to_dict(),
        "seconds": round(time.monotonic() - started, 3),
    }
    if out is not None:
        data["out"] = str(out)
        data["files"] = result["files"]
    else:
        data["db"] = str(db)
        data["import"] = report.to_dict()
    if as_json:
        common.print_json(data)
    else:
        common.echo(_text_summary(data))
    if db is not None and not report.ok:
        for p in [*report.rejected, *report.conflicts]:
            common.error_message(str(p))
        raise typer.Exit(common.EXIT_REJECTED)
