"""Reading a JSON Lines log, once per event before anything else: the records of a file
(:func:`json_records`), the typed read a replay takes (:func:`typed_lines`) and the checked
read (:func:`checked_records`, behind :func:`gostop_records.log.read_checked` and
:func:`gostop_records.log.iter_records`), which decodes a line, keeps its stored form and
checks its own hash, with the runs of one game's envelopes an import takes from it
(:func:`checked_runs`).

Part of the compiled kernel (``make native``, docs/performance.md): the usual line, in the
form this package writes, is read in one pass; any other takes the general path of
``codec._decode_json``, with the same result.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import IO, Final

import msgspec

from ..errors import LogError
from ..events import Envelope
from .chain import (
    _HASH_KEY,
    _RECORDED_KEY,
    _around_chain,
    _sorted_enc,
    compute_hash,
    digest_after,
)
from .codec import (
    _UNREADABLE,
    _VERSION_OF,
    LEAD,
    ReadReport,
    _decode_json,
    _json_env_dec,
    lead_of,
)

__all__ = [
    "checked_line",
    "checked_lines",
    "checked_records",
    "checked_runs",
    "json_records",
    "open_read",
    "typed_lines",
]

# Final: compiled, each is a C static (any other module-level name is a dictionary lookup
# at every use)
_DECODE: Final = _json_env_dec.decode
_SORTED: Final = _sorted_enc.encode
_VERSIONS: Final = _VERSION_OF
_HASH_AT: Final = _HASH_KEY
_RECORDED_AT: Final = _RECORDED_KEY
_LEAD: Final = LEAD


class LeadCheck:
    """:func:`.codec.own_lead` over consecutive lines, keeping the last game's leading bytes: a
    line of the same game as the one before costs one ``startswith``."""

    def __init__(self) -> None:
        self.game_id = ""
        self.lead = lead_of("")

    def own(self, line: bytes, game_id: str) -> bool:
        if game_id != self.game_id:
            self.game_id = game_id
            self.lead = lead_of(game_id)
        return line.startswith(self.lead) or not line.startswith(_LEAD)


def json_records(lines: Iterable[bytes], at_start: bool = True) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of each record: a byte-order mark at the start of the file, blank
    lines and Windows line ends are taken care of here, once for every reader."""
    for lineno, line in enumerate(lines, 1):
        if lineno == 1 and at_start and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if not line or line.isspace():
            continue
        if line.endswith(b"\r\n"):
            line = line[:-2] + b"\n"
        yield lineno, line


def open_read(path: str | os.PathLike[str]) -> IO[bytes]:
    """A log opened for reading; a file that cannot be read is a :class:`LogError`."""
    try:
        return open(path, "rb")
    except OSError as exc:
        raise LogError(f"cannot read: {exc.strerror}", file=os.fspath(path)) from None


def typed_lines(path: str | os.PathLike[str]) -> Iterator[Envelope]:
    """The envelopes of a log read without keeping stored forms, in one tight loop.

    A line in the current typed form decodes here in one call; any other line (a byte-order
    mark, a blank line, an older version, an unknown type, an error) takes the general path
    of :func:`json_records` and ``codec._decode_json``, with the same result. The file is
    opened here, so that no other generator stands between this loop and its reader.
    """
    name = os.fspath(path)
    leads = LeadCheck()
    with open_read(path) as f:
        lineno = 0
        for line in f:
            lineno += 1
            try:
                env = _DECODE(line)
            except _UNREADABLE:  # the general path below names the fault
                pass
            else:
                if env.v == _VERSIONS[type(env.event)] and leads.own(line, env.game_id):
                    yield env
                    continue
            for at, clean in json_records((line,), at_start=lineno == 1):
                yield _decode_json(clean, name, lineno + at - 1, None, False)[0]


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
    return env, digest_after(env.prev, head, full[full.rfind(_RECORDED_AT) :]) == env.hash


def checked_line(
    line: bytes, name: str, lineno: int, report: ReadReport | None
) -> tuple[Envelope, bool]:
    """One record of :func:`checked_lines` by the general path."""
    env, full = _decode_json(line, name, lineno, report, True)
    if full is None:
        return env, bool(env.hash) and compute_hash(env.prev, env) == env.hash
    head, tail = _around_chain(full)
    return env, digest_after(env.prev, head, tail) == env.hash


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
