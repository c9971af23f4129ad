"""Damaged logs: every way the lines of a game can stop forming one clean, complete run.

Each damaged log is a file of its own that holds one game (two, when they are interleaved)
under game ids no other file uses, so that an import of every file must store exactly what
an import of the undamaged files stores. A cut at a line boundary (the last lines missing)
is not among them: it leaves a valid shorter game, which only a seal can tell apart.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from gostop_records import log
from gostop_records.events import Envelope

__all__ = ["DAMAGES", "Damaged", "renamed", "write_corpus"]

Lines = list[bytes]


def renamed(game: Sequence[Envelope], game_id: str) -> list[Envelope]:
    """The game under another id, sealed again: a fresh game as far as a store can tell."""
    return log.seal([msgspec.structs.replace(e, game_id=game_id, prev="", hash="") for e in game])


def _lines(game: Sequence[Envelope]) -> Lines:
    return [log.encode_json(e) for e in game]


def _inner(rng: random.Random, lines: Lines) -> int:
    """A line that is neither the first nor the last."""
    return rng.randrange(1, len(lines) - 1)


def _other_id(rng: random.Random, lines: Lines, k: int) -> Lines:
    d = json.loads(lines[k])
    d["game_id"] = d["game_id"] + "-x"
    out = list(lines)
    out[k] = json.dumps(d, separators=(",", ":")).encode()
    return out


def _forged_id(rng: random.Random, lines: Lines, k: int) -> Lines:
    """Another game id on one line, its own hash computed again (the chain still links)."""
    env = log.decode_json_line(lines[k])
    other = msgspec.structs.replace(env, game_id=env.game_id + "-f")
    other = msgspec.structs.replace(other, hash=log.compute_hash(other.prev, other))
    out = list(lines)
    out[k] = log.encode_json(other)
    return out


def _flip(rng: random.Random, lines: Lines, k: int) -> Lines:
    line = lines[k]
    i = rng.randrange(len(line))
    new = line[i]
    while new == line[i]:
        new = rng.randrange(32, 127)
    out = list(lines)
    out[k] = line[:i] + bytes([new]) + line[i + 1 :]
    return out


def _drop(rng: random.Random, lines: Lines, k: int) -> Lines:
    return lines[:k] + lines[k + 1 :]


def _repeat(rng: random.Random, lines: Lines, k: int) -> Lines:
    return lines[: k + 1] + lines[k:]


def _swap(rng: random.Random, lines: Lines, k: int) -> Lines:
    out = list(lines)
    out[k], out[k + 1] = out[k + 1], out[k]
    return out


def _move(rng: random.Random, lines: Lines, k: int) -> Lines:
    out = list(lines)
    line = out.pop(k)
    out.insert(rng.choice([j for j in range(1, len(out)) if j != k]), line)
    return out


def _tail_again(rng: random.Random, lines: Lines, k: int) -> Lines:
    return lines + lines[k:]


def _truncated(rng: random.Random, lines: Lines, k: int) -> Lines:
    out = list(lines)
    out[k] = out[k][: rng.randrange(1, len(out[k]) - 1)]
    return out


def _deep(rng: random.Random, lines: Lines, k: int) -> Lines:
    out = list(lines)
    out[k] = b"[" * 1000 + b"]" * 1000
    return out


def _seq(rng: random.Random, lines: Lines, k: int) -> Lines:
    d = json.loads(lines[k])
    d["seq"] = d["seq"] + rng.choice([-1, 1, 7])
    out = list(lines)
    out[k] = json.dumps(d, separators=(",", ":")).encode()
    return out


#: name -> how to damage line k of a game's lines (k never the first line: see _inner)
DAMAGES: dict[str, Callable[[random.Random, Lines, int], Lines]] = {
    "other_game_id": _other_id,
    "forged_game_id": _forged_id,
    "byte_flipped": _flip,
    "line_dropped": _drop,
    "line_repeated": _repeat,
    "lines_swapped": _swap,
    "line_moved": _move,
    "tail_again": _tail_again,
    "line_truncated": _truncated,
    "line_nested_deep": _deep,
    "seq_changed": _seq,
}
#: damages that need a second game: a foreign line inside, two games interleaved
PAIRED = ("foreign_line", "interleaved")


@dataclass(frozen=True, slots=True)
class Damaged:
    path: Path
    kind: str
    game_ids: tuple[str, ...]
    #: the undamaged log, when the damage changes no envelope: a byte flipped in the name
    #: of a field whose value is its default (``"chosen":null`` to ``"chosej":null``) is
    #: read as the same event, so the game is stored as if undamaged
    twin: Path | None = None


def _same_meaning(before: Lines, after: Lines) -> bool:
    if len(before) != len(after):
        return False
    try:
        return all(
            a == b or log.decode_json_line(a) == log.decode_json_line(b)
            for a, b in zip(before, after, strict=True)
        )
    except Exception:
        return False


def write_corpus(
    folder: Path, base: Sequence[Sequence[Envelope]], trials: int, clean: int, seed: int
) -> tuple[list[Path], list[Damaged]]:
    """``clean`` undamaged logs and ``trials`` damaged ones in ``folder``, from ``base``
    games renamed; returns the clean files and the damaged ones."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    serial = iter(range(1_000_000))

    def fresh() -> list[Envelope]:
        return renamed(rng.choice(base), f"fz{seed}-{next(serial):05d}")

    clean_files: list[Path] = []
    clean_games: list[Lines] = []
    for n in range(clean):
        game = fresh()
        path = folder / f"clean-{n:04d}.jsonl"
        lines = _lines(game)
        path.write_bytes(b"\n".join(lines) + b"\n")
        clean_files.append(path)
        clean_games.append(lines)
    kinds = [*DAMAGES, *PAIRED]
    damaged: list[Damaged] = []
    for n in range(trials):
        kind = kinds[n % len(kinds)]
        a = fresh()
        lines = _lines(a)
        ids: tuple[str, ...] = (a[0].game_id,)
        if kind == "foreign_line":
            donor = rng.choice(clean_games)
            k = _inner(rng, lines)
            lines = [*lines[:k], rng.choice(donor), *lines[k:]]
        elif kind == "interleaved":
            b = fresh()
            ids += (b[0].game_id,)
            left, right = lines, _lines(b)
            merged: Lines = []
            while left or right:
                side = left if right == [] or (left and rng.random() < 0.5) else right
                merged.append(side.pop(0))
            lines = merged
        else:
            lines = DAMAGES[kind](rng, lines, _inner(rng, lines))
        path = folder / f"damaged-{n:04d}-{kind}.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        twin = None
        if _same_meaning(before := _lines(a), lines):
            twin = folder / f"twin-{n:04d}.jsonl"
            twin.write_bytes(b"\n".join(before) + b"\n")
        damaged.append(Damaged(path, kind, ids, twin))
    return clean_files, damaged
