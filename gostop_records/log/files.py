"""Log files: finding them, reading them (streamed, typed, or on past bad lines), writing
them (whole, atomically, or one record at a time with :class:`LogWriter`), cutting an
interrupted last record, and checking a file's chain from its raw records.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import msgspec

from ..atomic import written_whole
from ..errors import LogError
from ..events import Envelope
from .chain import (
    VerifyResult,
    _canonical_of_raw,
    _Checker,
    compute_hash,
)
from .codec import (
    _FRAME_HEAD,
    _FRAME_TAG,
    _UNREADABLE,
    _VERSION_OF,
    Format,
    ReadReport,
    _decode_json,
    _decode_raw_msgpack,
    _encode_jsonl_line,
    _from_raw,
    _json_raw_dec,
    _mp_enc,
    _mp_env_dec,
    _mp_raw_dec,
    _raw_seq,
    _why,
    encode_json,
    encode_msgpack,
)
from .reading import checked_lines, checked_records, json_records, typed_lines
from .reading import open_read as _open_read

__all__ = [
    "FOLDER_SUFFIXES",
    "JSONL_SUFFIXES",
    "MSGPACK_SUFFIXES",
    "LogWriter",
    "find_logs",
    "iter_jsonl",
    "iter_msgpack",
    "iter_records",
    "json_records",
    "log_format",
    "read_checked",
    "read_log",
    "repair_tail",
    "verify_file",
    "write_atomic",
    "write_jsonl",
    "write_log",
    "write_msgpack",
]


JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")


MSGPACK_SUFFIXES = (".msgpack", ".mpk")


PathLike = str | os.PathLike[str]


_READ_CHUNK = 1 << 16


def iter_jsonl(
    path: PathLike, *, report: ReadReport | None = None, exact: bool = True
) -> Iterator[Envelope]:
    """Every envelope of a JSONL log, streamed in constant memory.

    A blank line is skipped. A bad line raises :class:`LogError` naming the file, the line,
    the seq when known and the field (``event.card``), with the reason. Unknown event types
    and upcast payloads are counted in ``report`` when one is given.

    ``exact`` checks that each line is in the form this module writes (one extra encode per
    line, about a fifth of the read time) and otherwise keeps its stored form, so that logs
    from other producers (fields with defaults left out, fields from a newer version) still
    verify and copy byte-exactly. Turn it off only for logs written by this module.
    """
    if exact or report is not None:
        return _iter_checked_jsonl(path, report, exact)
    return typed_lines(path)  # the replay's reader: no generator around it


def _iter_checked_jsonl(
    path: PathLike, report: ReadReport | None, exact: bool
) -> Iterator[Envelope]:
    name = os.fspath(path)
    with _open_read(path) as f:
        for lineno, line in json_records(f):
            env = _decode_json(line, name, lineno, report, exact)[0]
            if report is not None:
                report.count += 1
            yield env


def _span_lines(f: IO[bytes], span: tuple[int, int] | None) -> Iterable[bytes]:
    """The lines of an open log, or of the bytes ``[start, end)`` of it."""
    if span is None:
        return f
    f.seek(span[0])
    return f.read(span[1] - span[0]).splitlines(keepends=True)


def iter_records(path: PathLike) -> Iterator[tuple[int, Envelope | LogError, bool]]:
    """(line, envelope, whether its hash matches its content after its own ``prev``) of
    each record, as :func:`read_checked` reads them, or (line, the :class:`LogError` of that
    line, False): a JSONL log is read on past bad lines, so that one report can name all of
    them (a msgpack log cannot be resynchronised after a bad frame, and stops there). A file
    that cannot be opened yields one error at line 0; an unknown suffix raises
    :class:`LogError`."""
    name = os.fspath(path)
    if log_format(path) == "msgpack":
        n = 0
        try:
            for env, ok in read_checked(path):
                n += 1
                yield n, env, ok
        except LogError as exc:
            yield exc.line or n + 1, exc, False
        return
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        yield 0, LogError(f"cannot read: {exc.strerror}", file=name), False
        return
    with f:
        yield from checked_records(f, name, True, True)


def _iter_frames(f: IO[bytes], name: str) -> Iterator[tuple[int, bytes]]:
    """(record number, body) of each msgpack frame, reading in chunks."""
    reader = f if isinstance(f, io.BufferedReader) else io.BufferedReader(f, _READ_CHUNK)  # type: ignore[arg-type]
    n = 0
    while True:
        head = reader.read(_FRAME_HEAD)
        if not head:
            return
        n += 1
        if head[0] != _FRAME_TAG:
            raise LogError(
                "not a msgpack log frame: each record starts with its length as a msgpack "
                "uint 32 (0xce)",
                file=name,
                line=n,
            )
        if len(head) < _FRAME_HEAD:
            raise LogError("truncated record header (an interrupted write?)", file=name, line=n)
        size = int.from_bytes(head[1:], "big")
        body = reader.read(size)
        if len(body) < size:
            raise LogError(
                f"truncated record: {len(body)} of {size} bytes (an interrupted write?)",
                file=name,
                line=n,
            )
        yield n, body


def iter_msgpack(
    path: PathLike, *, report: ReadReport | None = None, exact: bool = True
) -> Iterator[Envelope]:
    """Every envelope of a msgpack log, streamed; errors name the record number as the line.

    ``exact`` as for :func:`iter_jsonl`.
    """
    name = os.fspath(path)
    with _open_read(path) as f:
        for n, body in _iter_frames(f, name):
            try:
                env = _mp_env_dec.decode(body)
            except msgspec.ValidationError as exc:
                raw = _decode_raw_msgpack(body, name, n)
                env = _from_raw(raw, file=name, line=n, report=report, typed=None, error=exc)
            except _UNREADABLE as exc:
                raise LogError(f"not valid msgpack: {_why(exc)}", file=name, line=n) from None
            else:
                if env.v != _VERSION_OF[type(env.event)] or (
                    exact and len(body) != len(_mp_enc.encode(env))
                ):
                    raw = _decode_raw_msgpack(body, name, n)
                    env = _from_raw(raw, file=name, line=n, report=report, typed=env, error=None)
            if report is not None:
                report.count += 1
            yield env


def log_format(path: PathLike) -> Format:
    """``jsonl`` or ``msgpack``, from the file suffix."""
    suffix = Path(path).suffix.lower()
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    if suffix in MSGPACK_SUFFIXES:
        return "msgpack"
    raise LogError(
        f"unknown log format {suffix or '(no suffix)'!r}: use "
        f"{', '.join(JSONL_SUFFIXES)} (JSON Lines) or {', '.join(MSGPACK_SUFFIXES)} (msgpack)",
        file=os.fspath(path),
    )


#: Suffixes of the files taken from a folder (a ``.json`` file is read only when named).
FOLDER_SUFFIXES = (".jsonl", ".ndjson", *MSGPACK_SUFFIXES)


def find_logs(paths: Iterable[PathLike]) -> tuple[list[Path], list[Path]]:
    """The log files named, or found (recursively, sorted) in the folders named; and the
    paths that are neither a file nor a folder."""
    files: list[Path] = []
    missing: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            files.extend(
                sorted(
                    f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in FOLDER_SUFFIXES
                )
            )
        elif p.is_file():
            files.append(p)
        else:
            missing.append(p)
    return files, missing


def read_log(
    path: PathLike, *, report: ReadReport | None = None, exact: bool = True
) -> Iterator[Envelope]:
    """Every envelope of a log file, JSONL or msgpack by suffix, streamed."""
    if log_format(path) == "msgpack":
        return iter_msgpack(path, report=report, exact=exact)
    return iter_jsonl(path, report=report, exact=exact)


def read_checked(
    path: PathLike, *, report: ReadReport | None = None, span: tuple[int, int] | None = None
) -> Iterator[tuple[Envelope, bool]]:
    """Every envelope of a log file (as :func:`read_log` reads it, stored forms kept) and
    whether its ``hash`` matches its content after its own ``prev``.

    The links between envelopes (seq order, each ``prev`` the hash before it) are left to
    the caller, which knows where a game's events start. From JSONL, the check reuses the
    encoding the exact check made: a bulk import's cheapest way to check every hash.

    ``span`` reads only the bytes ``[start, end)`` of a JSONL log, which must start and
    end at line boundaries; line numbers in errors then count from the span's first line.
    """
    if log_format(path) == "msgpack":
        if span is not None:
            raise LogError("a span can only be read from a JSON Lines log", file=os.fspath(path))
        for env in iter_msgpack(path, report=report):
            yield env, bool(env.hash) and compute_hash(env.prev, env) == env.hash
        return
    name = os.fspath(path)
    with _open_read(path) as f:
        yield from checked_lines(_span_lines(f, span), name, report, span is None or span[0] == 0)


# --- writing -------------------------------------------------------------------------------


def write_jsonl(path_or_file: PathLike | IO[Any], envelopes: Iterable[Envelope]) -> int:
    """Write envelopes as JSON Lines (UTF-8, one per line); returns how many."""
    if isinstance(path_or_file, str | os.PathLike):
        with open(path_or_file, "wb") as f:
            return write_jsonl(f, envelopes)
    f = path_or_file
    text = isinstance(f, io.TextIOBase)
    n = 0
    for env in envelopes:
        data = encode_json(env) + b"\n"
        f.write(data.decode() if text else data)
        n += 1
    return n


def write_msgpack(path_or_file: PathLike | IO[bytes], envelopes: Iterable[Envelope]) -> int:
    """Write envelopes as a msgpack frame stream; returns how many."""
    if isinstance(path_or_file, str | os.PathLike):
        with open(path_or_file, "wb") as f:
            return write_msgpack(f, envelopes)
    n = 0
    for env in envelopes:
        path_or_file.write(encode_msgpack(env))
        n += 1
    return n


def write_log(path: PathLike, envelopes: Iterable[Envelope]) -> int:
    """Write a log file, JSONL or msgpack by suffix; returns how many envelopes."""
    if log_format(path) == "msgpack":
        return write_msgpack(path, envelopes)
    return write_jsonl(path, envelopes)


def write_atomic(path: PathLike, envelopes: Iterable[Envelope]) -> int:
    """Write a log file whole or not at all: into ``PATH.part`` first, renamed over ``path``
    once every envelope is written, so that an interrupted writer (an error in the envelopes'
    producer, a kill) leaves no partial log behind. JSONL or msgpack by suffix."""
    with written_whole(path) as tmp, open(tmp, "wb") as f:
        return (
            write_msgpack(f, envelopes)
            if log_format(path) == "msgpack"
            else write_jsonl(f, envelopes)
        )


def repair_tail(path: PathLike, fmt: Format | None = None) -> int:
    """Cut an incomplete last record (a crash during a write) off a log; returns bytes cut.

    Only a final record without its end is cut: every complete record stays, and a damaged
    record in the middle is left for the reader to report.
    """
    p = Path(path)
    if not p.exists():
        return 0
    size = p.stat().st_size
    keep = size
    if (fmt or log_format(p)) == "jsonl":
        with open(p, "rb") as f:
            pos = size
            while pos > 0:
                step = min(_READ_CHUNK, pos)
                f.seek(pos - step)
                chunk = f.read(step)
                k = chunk.rfind(b"\n")
                if k >= 0:
                    keep = pos - step + k + 1
                    break
                pos -= step
            else:
                keep = 0
    else:
        with open(p, "rb") as f:
            pos = 0
            while pos < size:
                head = f.read(_FRAME_HEAD)
                if len(head) < _FRAME_HEAD or head[0] != _FRAME_TAG:
                    break
                end = pos + _FRAME_HEAD + int.from_bytes(head[1:], "big")
                if end > size:
                    break
                f.seek(end)
                pos = end
            keep = pos
    if keep < size:
        with open(p, "r+b") as f:
            f.truncate(keep)
            f.flush()
            os.fsync(f.fileno())
    return size - keep


class LogWriter:
    """Appends envelopes to a log file one at a time (JSONL or msgpack by suffix).

    The file is opened once. With ``flush_each`` every record reaches the operating system as
    soon as it is written, and with ``fsync`` also the disk, so that an acknowledged entry
    survives a crash or a power loss (at the cost of one sync per record: a live table wants
    it, a simulator does not). A file that ends in an incomplete record is refused unless
    ``repair`` cuts that record off (see :func:`repair_tail`).
    """

    def __init__(
        self,
        path: PathLike,
        *,
        fmt: Format | None = None,
        flush_each: bool = True,
        fsync: bool = False,
        append: bool = True,
        repair: bool = False,
    ) -> None:
        self.path = Path(path)
        self.fmt: Format = fmt or log_format(path)
        self.flush_each = flush_each
        self.fsync = fsync
        self.count = 0
        self.repaired = 0
        if append and self.path.exists() and self.path.stat().st_size:
            self._check_tail(repair)
        self._encode = encode_msgpack if self.fmt == "msgpack" else _encode_jsonl_line
        try:
            self._f: IO[bytes] = open(self.path, "ab" if append else "wb")  # noqa: SIM115
        except OSError as exc:
            raise LogError(f"cannot write: {exc.strerror}", file=str(self.path)) from None

    def _check_tail(self, repair: bool) -> None:
        if self.fmt == "jsonl":
            with open(self.path, "rb") as f:
                f.seek(-1, os.SEEK_END)
                complete = f.read(1) == b"\n"
            if complete:
                return
        if repair:
            self.repaired = repair_tail(self.path, self.fmt)
            return
        if self.fmt == "msgpack":
            # Walking the frames is the only way to know; do it only when asked to repair.
            return
        raise LogError(
            "the log ends in an incomplete line (an interrupted write?); "
            "open it with repair=True to cut that line off",
            file=str(self.path),
        )

    def write(self, env: Envelope) -> None:
        self._f.write(self._encode(env))
        self.count += 1
        if self.flush_each:
            self.flush()

    def write_many(self, envelopes: Iterable[Envelope]) -> int:
        n = 0
        for env in envelopes:
            self._f.write(self._encode(env))
            n += 1
        self.count += n
        if self.flush_each:
            self.flush()
        return n

    def flush(self) -> None:
        self._f.flush()
        if self.fsync:
            os.fsync(self._f.fileno())

    def close(self) -> None:
        if not self._f.closed:
            self.flush()
            self._f.close()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _iter_raw(path: PathLike) -> Iterator[tuple[int, Any]]:
    """(line, decoded value) of each record, untyped, or (line, LogError) for a bad one."""
    name = os.fspath(path)
    with _open_read(path) as f:
        if log_format(path) == "msgpack":
            frames = _iter_frames(f, name)
            while True:
                try:
                    n, body = next(frames)
                except StopIteration:
                    return
                except LogError as exc:
                    yield exc.line or 0, exc
                    return
                try:
                    yield n, _mp_raw_dec.decode(body)
                except _UNREADABLE as exc:
                    yield n, LogError(f"not valid msgpack: {_why(exc)}", file=name, line=n)
            return
        for lineno, line in json_records(f):
            try:
                yield lineno, _json_raw_dec.decode(line)
            except _UNREADABLE as exc:
                yield lineno, LogError(f"not valid JSON: {_why(exc)}", file=name, line=lineno)


def verify_file(path: PathLike) -> VerifyResult:
    """Check a log file from its raw records, without the typed decode.

    Every byte of a record counts (a change the typed decode would let through, such as an
    added field, still breaks the hash), and the result names the line (the record number in
    a msgpack log) as well as the seq.
    """
    checker = _Checker()
    for lineno, raw in _iter_raw(path):
        if isinstance(raw, LogError):
            return checker.bad(None, None, raw.reason, lineno)
        if not isinstance(raw, dict):
            return checker.bad(None, None, "a log line must be a JSON object", lineno)
        game_id, seq = raw.get("game_id"), _raw_seq(raw)
        prev, digest = raw.get("prev"), raw.get("hash")
        if not isinstance(game_id, str) or seq is None:
            return checker.bad(
                game_id if isinstance(game_id, str) else None,
                seq,
                "game_id (a string) and seq (an integer) are required",
                lineno,
            )
        if not isinstance(prev, str) or not isinstance(digest, str) or not digest:
            return checker.bad(game_id, seq, f"seq {seq}: not sealed (no prev or hash)", lineno)
        reason = checker.check(game_id, seq, prev, digest, _canonical_of_raw(raw))
        if reason is not None:
            return checker.bad(game_id, seq, reason, lineno)
    return checker.ok()
