"""Tampering probes: a log edited by someone, then read by ``validate`` and ``db import``.

Each case is a function from a clean game's lines to tampered lines, with what must catch
it. The cases here are those an unbroken hash chain and whole-game imports catch; a forger
who holds the file can also cut its tail, re-seal a changed payment or replace a game,
which only seals and signed checkpoints catch: such probes plug in with :func:`register`,
in a module ``stress/tamper_*.py`` (``make stress`` imports every such module, then runs
the registered probes with the others).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gostop_cli.app import app
from typer.testing import CliRunner

from gostop_records import log

from .damage import DAMAGES, renamed
from .figures import Figures

__all__ = ["CASES", "PROBES", "Case", "load_plugins", "register", "tampering"]

Lines = list[bytes]


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    edit: Callable[[random.Random, Lines], Lines]
    #: whether ``gostop validate`` must flag the file (a whole-game import always rejects)
    validate: bool = True


def _payment(rng: random.Random, lines: Lines) -> Lines:
    """A recorded payment changed in place (the hash no longer matches)."""
    out = list(lines)
    for k, line in enumerate(out):
        d = json.loads(line)
        if d["event"]["type"] in ("payment_recorded", "hand_ended", "cards_captured"):
            if "chips" in d["event"]:
                d["event"]["chips"] += 100
            else:
                d["at"] = "2031-01-01T00:00:00.000Z"
            out[k] = json.dumps(d, separators=(",", ":")).encode()
            return out
    raise AssertionError("no line to change")


def _inner(rng: random.Random, lines: Lines) -> int:
    return rng.randrange(1, len(lines) - 1)


CASES: list[Case] = [
    Case("a payment or capture edited in place", _payment),
    Case(
        "one line under another game id",
        lambda r, ls: DAMAGES["other_game_id"](r, ls, _inner(r, ls)),
    ),
    Case(
        "one line under another game id, its hash recomputed",
        lambda r, ls: DAMAGES["forged_game_id"](r, ls, _inner(r, ls)),
    ),
    Case(
        "a line removed from the middle",
        lambda r, ls: DAMAGES["line_dropped"](r, ls, _inner(r, ls)),
    ),
    Case("two lines swapped", lambda r, ls: DAMAGES["lines_swapped"](r, ls, _inner(r, ls))),
    Case("a line repeated", lambda r, ls: DAMAGES["line_repeated"](r, ls, _inner(r, ls))),
    Case("the tail appended again", lambda r, ls: DAMAGES["tail_again"](r, ls, _inner(r, ls))),
]

#: Further probes (a function of the working folder returning its figures), e.g. seals.
PROBES: list[Callable[[Path], Figures]] = []


def register(probe: Callable[[Path], Figures]) -> Callable[[Path], Figures]:
    """Add a tampering probe to the stress run (usable as a decorator)."""
    PROBES.append(probe)
    return probe


def load_plugins() -> None:
    """Import every ``stress/tamper_*.py`` module, which registers its probes."""
    import importlib
    import pkgutil

    package = __name__.rpartition(".")[0]
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name.startswith("tamper_"):
            importlib.import_module(f"{package}.{info.name}")


def tampering(work: Path, games: list[list[object]], *, rounds: int, seed: int = 9) -> Figures:
    """Every case ``rounds`` times on fresh games: ``validate`` must flag the file (where
    the case says so) and ``db import`` must store nothing of the game."""
    fig = Figures("tampering (hash chain, whole games)")
    start = time.perf_counter()
    rng = random.Random(seed)
    folder = work / "tamper"
    folder.mkdir(parents=True, exist_ok=True)
    runner = CliRunner()
    db = folder / "tamper.duckdb"
    serial = 0
    for _ in range(rounds):
        for case in CASES:
            fig.trials += 1
            serial += 1
            game = renamed(rng.choice(games), f"tamper-{serial:04d}")  # type: ignore[arg-type]
            lines = case.edit(rng, [log.encode_json(e) for e in game])
            path = folder / f"t{serial:04d}.jsonl"
            path.write_bytes(b"\n".join(lines) + b"\n")
            checked = runner.invoke(app, ["validate", str(path)])
            imported = runner.invoke(app, ["db", "import", str(path), "--db", str(db), "--json"])
            crashed = [
                r
                for r in (checked, imported)
                if r.exception and not isinstance(r.exception, SystemExit)
            ]
            if crashed:
                fig.tracebacks += 1
                fig.fail(f"{case.name}: {crashed[0].exception!r}")
                continue
            if case.validate and checked.exit_code != 1:
                fig.fail(f"{case.name}: validate passed the file")
                continue
            report = json.loads(imported.stdout)
            if report["imported"] or report["extended"]:
                fig.lost += 1
                fig.fail(f"{case.name}: db import stored {report['imported']} game(s)")
                continue
            fig.survived += 1
    fig.seconds = time.perf_counter() - start
    return fig
