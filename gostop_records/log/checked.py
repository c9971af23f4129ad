"""The checked read of a JSON Lines log (:func:`checked_records`, behind
:func:`gostop_records.log.read_checked` and :func:`gostop_records.log.iter_records`) and the
runs of one game's envelopes an import takes from it.

A bulk import and ``gostop validate`` run it once per event before anything else (the one
read that decodes a line, keeps its stored form and checks its own hash), so it is
compiled in the native build (``make native``; see ``NATIVE_MODULES``): as Python, the calls
and generators around the decode, the sorted encode and the hash of each line cost about a
third as much as those three.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

import msgspec

from ..errors import LogError
from ..events import Envelope
from .chain import (
    _HASH_KEY,
    _RECORDED_KEY,
    _SHA256_EMPTY,
    _around_chain,
    _sorted_enc,
    compute_hash,
)
from .codec import _VERSION_OF, ReadReport, _decode_json, _json_env_dec
from .lead import LeadCheck
from .lines import json_records

__all__ = ["checked_line", "checked_lines", "checked_records", "checked_runs"]

# Final: the compiled build keeps each in a C static (an imported name is a dictionary
# lookup at every use)
_DECODE: Final = _json_env_dec.decode
_SORTED: Final = _sorted_enc.encode
_VERSIONS: Final = _VERSION_OF
_HASH_AT: Final = _HASH_KEY
_RECORDED_AT: Final = _RECORDED_KEY
_EMPTY: Final = _SHA256_EMPTY


def _digest(prev: str, head: bytes, tail: bytes) -> str:
    """:func:`.chain.digest_after` of the canonical bytes in their two parts (see
    chain._around_chain), written out here: in the compiled build a call within this module
    is a C call, one into the interpreted chain module is not."""
    h = _EMPTY.copy()
    h.update(prev.encode())
    h.update(head)
    h.update(tail)
    return h.hexdigest()


def _usual(line: bytes) -> tuple[Envelope, bool] | None:
    """A line in the form this package writes (typed, current version, its sorted encoding
    as long as the line, a plain ``\\n`` at its end), decoded, checked and hashed in one
    pass; None for any other line, which the general path reads."""
    try:
        env = _DECODE(line)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # the general path names the fault
    size = len(line) - 1
    if env.v != _VERSIONS[type(env.event)] or line[size] != 10 or line[size - 1] == 13:
        return None
    full = _SORTED(env)
    if len(full) != size:
        return None
    # compute_hash from the encoding the exact check made: the canonical bytes are the two
    # parts around prev and hash (see chain._around_chain)
    head = full[: full.rfind(_HASH_AT)]
    return env, _digest(env.prev, head, full[full.rfind(_RECORDED_AT) :]) == env.hash


def checked_line(
    line: bytes, name: str, lineno: int, report: ReadReport | None
) -> tuple[Envelope, bool]:
    """One record of :func:`checked_lines` by the general path."""
    env, full = _decode_json(line, name, lineno, report, True)
    if full is None:
        return env, bool(env.hash) and compute_hash(env.prev, env) == env.hash
    head, tail = _around_chain(full)
    return env, _digest(env.prev, head, tail) == env.hash


def _general(
    line: bytes, name: str, lineno: int, at_start: bool, past_bad: bool
) -> tuple[Envelope, bool] | None:
    """A line the one pass does not take (a byte-order mark, a blank line, a Windows line
    end, an older version, a stored form, an error), by the general path; None for a blank
    line. ``past_bad``: a last line without its line end is an error (an interrupted
    write), not a record."""
    for at, clean in json_records((line,), at_start=at_start and lineno == 1):
        if past_bad and not clean.endswith(b"\n"):
            raise LogError(
                "the last line is incomplete (no line end): an interrupted write?",
                file=name,
                line=lineno,
            )
        return checked_line(clean, name, lineno + at - 1, None)
    return None


def checked_records(
    lines: Iterable[bytes], name: str, at_start: bool, past_bad: bool
) -> Iterator[tuple[int, Envelope | LogError, bool]]:
    """(line number, envelope, whether its hash matches its content after its own
    ``prev``) of each record of JSON Lines, in one loop: the one checked read.

    ``past_bad``: a bad line is given as (line number, its :class:`LogError`, False) and the
    reading goes on, so that one report names every bad line (``gostop validate``);
    otherwise the first bad line raises its error (an import stops there). ``at_start``:
    the lines start the file (a byte-order mark may open them).
    """
    lineno = 0
    leads = LeadCheck()
    for line in lines:
        lineno += 1
        got = _usual(line) if lineno > 1 or not at_start else None
        if got is not None and not leads.own(line, got[0].game_id):
            got = None  # the general path refuses a line that names two games
        if got is None:
            try:
                got = _general(line, name, lineno, at_start, past_bad)
            except LogError as exc:
                if not past_bad:
                    raise
                yield lineno, exc, False
                continue
            if got is None:
                continue
        yield lineno, got[0], got[1]


def checked_lines(
    lines: Iterable[bytes], name: str, report: ReadReport | None, at_start: bool
) -> Iterator[tuple[Envelope, bool]]:
    """(envelope, whether its hash matches its content after its own ``prev``) of each
    record of JSON Lines (:func:`checked_records`, stopping at the first bad line); every
    line by the general path when a report is kept."""
    if report is not None:
        for lineno, line in json_records(lines, at_start):
            checked = checked_line(line, name, lineno, report)
            report.count += 1
            yield checked
        return
    for _, env, ok in checked_records(lines, name, at_start, False):
        if isinstance(env, LogError):  # not given when past_bad is False: raised
            raise env
        yield env, ok


def checked_runs(
    records: Iterable[tuple[Envelope, bool]],
) -> Iterator[tuple[list[Envelope], int | None, LogError | None]]:
    """The runs of consecutive envelopes of one game among checked records, each with the
    index of its first envelope whose own hash is wrong (None: every hash holds).

    A read error ends the runs: the run it cut short comes last, with the error.
    """
    run: list[Envelope] = []
    game = ""
    bad: int | None = None
    try:
        for env, hash_ok in records:
            if env.game_id != game or not run:
                if run:
                    yield run, bad, None
                    run, bad = [], None
                game = env.game_id
            if not hash_ok and bad is None:
                bad = len(run)
            run.append(env)
    except LogError as exc:
        yield run, bad, exc
        return
    if run:
        yield run, bad, None
