"""Logs on disk: JSON Lines and msgpack, canonical bytes, the hash chain, upcasting.

A log is a sequence of :class:`~gostop_records.events.Envelope`, one per line (JSONL) or one
per frame (msgpack); a file may hold several games one after another. Each envelope is chained
to the previous one of its game::

    hash = sha256(prev.encode() + canonical_bytes(envelope)).hexdigest()

where the canonical bytes are the compact JSON, keys sorted at every depth, of every envelope
field except ``prev`` and ``hash``, and a game's first ``prev`` is :data:`GENESIS`. The hash is
a function of the *values* as stored, not of the formatting of a line, so any conforming writer
(whatever its key order or whitespace) produces verifiable logs, and a JSONL log converted to
msgpack keeps its hashes.

Reading is streaming and typed: one ``msgspec`` decoder straight into :class:`Envelope` per
line, in constant memory. Three slower paths keep a log readable across versions:

- an unknown event type (written by a newer version) becomes an
  :class:`~gostop_records.events.UnknownEvent` holding the payload as read, is counted in a
  :class:`ReadReport`, and is written back unchanged;
- a payload with an older ``v`` is upcast through :data:`UPCASTERS`, step by step, and the
  envelope keeps its stored form so that its hash still verifies and a copy reproduces it;
- a line whose stored form differs from the typed form (a producer that left out fields with
  default values, or added fields this version does not know) keeps its stored form too.

Nothing here knows the rules of the game: it imports only ``cards``, ``events`` and
``errors``.
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Literal

import msgspec
import msgspec.inspect

try:  # advisory file locks keep two recorders off one log (POSIX)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

from . import events as _events
from .cards import ALL_CARDS
from .errors import LogError
from .events import EVENT_TYPES, Envelope, UnknownEvent, event_type

__all__ = [
    "FOLDER_SUFFIXES",
    "GENESIS",
    "HASH_MISMATCH",
    "JSONL_SUFFIXES",
    "MSGPACK_SUFFIXES",
    "UPCASTERS",
    "Chain",
    "JsonlSink",
    "LogWriter",
    "ReadReport",
    "StoredEnvelope",
    "VerifyResult",
    "canonical_bytes",
    "chain_break",
    "compute_hash",
    "decode_json_line",
    "encode_json",
    "encode_msgpack",
    "envelope",
    "envelope_to_dict",
    "find_logs",
    "iter_games",
    "iter_jsonl",
    "iter_msgpack",
    "iter_records",
    "json_records",
    "link_break",
    "log_format",
    "now",
    "read_checked",
    "read_log",
    "repair_tail",
    "seal",
    "stored_bytes",
    "timestamp",
    "verify",
    "verify_file",
    "verify_games",
    "write_atomic",
    "write_jsonl",
    "write_log",
    "write_msgpack",
]

#: The ``prev`` of a game's first event.
GENESIS = "0" * 64
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
MSGPACK_SUFFIXES = (".msgpack", ".mpk")

#: ``(type, from_v) -> f(payload at from_v) -> payload at from_v + 1``. A payload type that
#: changes shape bumps ``events.EVENT_VERSIONS[type]`` and registers one function here per step.
UPCASTERS: dict[tuple[str, int], Callable[[dict[str, Any]], dict[str, Any]]] = {}

Format = Literal["jsonl", "msgpack"]
PathLike = str | os.PathLike[str]

# A msgpack log is a sequence of frames: the msgpack encoding of the body length as a uint 32
# (0xCE + 4 bytes, big-endian) followed by the msgpack map of the envelope. The whole file is
# a valid msgpack stream (an int, a map, an int, a map ...) and a reader finds each record's
# end without parsing it, which msgspec needs to decode one message at a time.
_FRAME_TAG = 0xCE
_FRAME_HEAD = 5
_READ_CHUNK = 1 << 16

_json_enc = msgspec.json.Encoder()
_sorted_enc = msgspec.json.Encoder(order="sorted")
_mp_enc = msgspec.msgpack.Encoder()
_json_env_dec = msgspec.json.Decoder(Envelope)
_json_raw_dec = msgspec.json.Decoder()
_mp_env_dec = msgspec.msgpack.Decoder(Envelope)
_mp_raw_dec = msgspec.msgpack.Decoder()

#: The payload version this module writes, by payload class.
_VERSION_OF: dict[type, int] = {
    cls: _events.EVENT_VERSIONS[tag] for tag, cls in EVENT_TYPES.items()
}
_CHAIN_KEYS = ("prev", "hash")
_HASH_KEY = b',"hash":'
_RECORDED_KEY = b',"recorded_at":'
_ENVELOPE_FIELDS = Envelope.__struct_fields__


class StoredEnvelope(Envelope, dict=True, gc=True):
    """An envelope whose stored form is not its typed form (upcast, or written sparsely).

    It carries the canonical bytes of the stored form, so that the hash verifies and a copy
    writes back exactly what was read. ``msgspec.structs.replace`` drops that, so use
    :meth:`Chain.seal` (which keeps it) rather than replacing fields by hand.
    """


def stored_bytes(env: Envelope) -> bytes | None:
    """The canonical bytes of the stored form, for an envelope read in a non-typed form."""
    d = getattr(env, "__dict__", None)
    return d.get("stored") if d else None


def _with_stored(env: Envelope, stored: bytes) -> StoredEnvelope:
    out = (
        env
        if type(env) is StoredEnvelope
        else StoredEnvelope(*(getattr(env, f) for f in _ENVELOPE_FIELDS))
    )
    out.__dict__["stored"] = stored
    return out  # type: ignore[return-value]


# --- canonical bytes and the chain -------------------------------------------------------


def _body_dict(env: Envelope) -> dict[str, Any]:
    ev = env.event
    if isinstance(ev, UnknownEvent):
        payload = ev.payload if "type" in ev.payload else {"type": ev.type, **ev.payload}
    else:
        payload = msgspec.to_builtins(ev)
    return {
        "game_id": env.game_id,
        "seq": env.seq,
        "hand": env.hand,
        "at": env.at,
        "recorded_at": env.recorded_at,
        "by": env.by,
        "v": env.v,
        "event": payload,
    }


def canonical_bytes(env: Envelope) -> bytes:
    """Compact JSON, keys sorted at every depth, of every field except ``prev`` and ``hash``.

    Typed envelopes take the fast path: encode sorted, then cut the ``hash`` and ``prev``
    members, which sort next to each other after ``event``, out of the bytes.
    """
    if type(env) is not Envelope:
        stored = stored_bytes(env)
        if stored is not None:
            return stored
    if type(env.event) is UnknownEvent:
        return _sorted_enc.encode(_body_dict(env))
    head, tail = _around_chain(_sorted_enc.encode(env))
    return head + tail


def _around_chain(data: bytes) -> tuple[bytes, bytes]:
    """The sorted encoding of a whole typed envelope, before and after its ``hash`` and
    ``prev`` members: the canonical bytes are the two joined."""
    # Sorted envelope keys: at, by, event, game_id, hand, hash, prev, recorded_at, seq, v.
    # Only string values (escaped quotes) and ints follow "hash", so the last occurrences
    # are the envelope's own members even if a payload holds keys with the same names.
    return data[: data.rfind(_HASH_KEY)], data[data.rfind(_RECORDED_KEY) :]


def _canonical_of_raw(raw: dict[str, Any]) -> bytes:
    if "prev" in raw or "hash" in raw:
        raw = {k: v for k, v in raw.items() if k not in _CHAIN_KEYS}
    return _sorted_enc.encode(raw)


def compute_hash(prev: str, env: Envelope) -> str:
    """The hash an envelope must carry after ``prev``."""
    h = hashlib.sha256(prev.encode())
    h.update(canonical_bytes(env))
    return h.hexdigest()


class Chain:
    """Seals the envelopes of one game as they are appended: fills ``prev`` and ``hash``.

    The live recorder and the simulator append one envelope at a time; ``prev`` is the hash
    of the last sealed envelope (:data:`GENESIS` for a new game, the stored last hash to
    continue an existing log).
    """

    __slots__ = ("count", "prev")

    def __init__(self, prev: str = GENESIS) -> None:
        self.prev = prev
        self.count = 0

    def seal(self, env: Envelope) -> Envelope:
        canon = canonical_bytes(env)
        h = hashlib.sha256(self.prev.encode())
        h.update(canon)
        digest = h.hexdigest()
        sealed = msgspec.structs.replace(env, prev=self.prev, hash=digest)
        if type(env) is StoredEnvelope:
            sealed = _with_stored(sealed, canon)
        self.prev = digest
        self.count += 1
        return sealed

    __call__ = seal


def seal(envelopes: Iterable[Envelope], prev: str = GENESIS) -> list[Envelope]:
    """Envelopes with ``prev`` and ``hash`` filled, one chain per game.

    ``prev`` starts the chain of the first game met (to continue a stored log); every other
    game starts from :data:`GENESIS`.
    """
    chains: dict[str, Chain] = {}
    out = []
    for env in envelopes:
        chain = chains.get(env.game_id)
        if chain is None:
            chain = chains[env.game_id] = Chain(prev if not chains else GENESIS)
        out.append(chain.seal(env))
    return out


def timestamp(t: datetime) -> str:
    """A UTC time as the logs write it: RFC 3339 with milliseconds, ``...T12:34:56.789Z``.

    A naive ``datetime`` is taken as UTC already."""
    if t.tzinfo is not None:
        t = t.astimezone(UTC)
    return f"{t:%Y-%m-%dT%H:%M:%S}.{t.microsecond // 1000:03d}Z"


def now() -> str:
    """The current time as the logs write it (see :func:`timestamp`)."""
    return timestamp(datetime.now(UTC))


def envelope(
    game_id: str,
    seq: int,
    hand: int | None,
    event: Any,
    *,
    by: str,
    at: str | None = None,
    recorded_at: str | None = None,
) -> Envelope:
    """An unsealed envelope at the current payload version; times default to now."""
    stamp = now() if at is None or recorded_at is None else ""
    return Envelope(
        game_id=game_id,
        seq=seq,
        hand=hand,
        at=at if at is not None else stamp,
        recorded_at=recorded_at if recorded_at is not None else stamp,
        by=by,
        v=_events.EVENT_VERSIONS.get(event_type(event), 1),
        event=event,
    )


# --- encoding ------------------------------------------------------------------------------


def envelope_to_dict(env: Envelope) -> dict[str, Any]:
    """The JSON-ready dict of an envelope as it is written (its stored form when it has one)."""
    stored = stored_bytes(env)
    if stored is not None:
        d: dict[str, Any] = _json_raw_dec.decode(stored)
    else:
        d = _body_dict(env)
    d["prev"] = env.prev
    d["hash"] = env.hash
    return d


def encode_json(env: Envelope) -> bytes:
    """One JSONL line without its newline: compact, fields in declaration order."""
    if type(env) is Envelope and type(env.event) is not UnknownEvent:
        return _json_enc.encode(env)
    return _json_enc.encode(envelope_to_dict(env))


def encode_msgpack(env: Envelope) -> bytes:
    """One msgpack frame: the uint 32 length header and the envelope map."""
    if type(env) is Envelope and type(env.event) is not UnknownEvent:
        body = _mp_enc.encode(env)
    else:
        body = _mp_enc.encode(envelope_to_dict(env))
    return bytes((_FRAME_TAG,)) + len(body).to_bytes(4, "big") + body


# --- decoding ------------------------------------------------------------------------------


@dataclass
class ReadReport:
    """What a read met besides ordinary events: unknown types (kept), upcast payloads."""

    count: int = 0
    unknown: dict[str, int] = field(default_factory=dict)
    #: (line or record number, seq, type) of the first unknown events met.
    unknown_at: list[tuple[int, int | None, str]] = field(default_factory=list)
    upcast: dict[str, int] = field(default_factory=dict)
    #: Lines whose stored form differs from the typed one (kept as stored for the hash).
    sparse: int = 0
    limit: int = 1000

    def add_unknown(self, line: int, seq: int | None, etype: str) -> None:
        self.unknown[etype] = self.unknown.get(etype, 0) + 1
        if len(self.unknown_at) < self.limit:
            self.unknown_at.append((line, seq, etype))

    def describe(self) -> list[str]:
        """One sentence per finding, for a command to print."""
        out = []
        for etype, n in sorted(self.unknown.items()):
            where = [str(ln) for ln, _, t in self.unknown_at if t == etype][:5]
            out.append(
                f"{n} event(s) of unknown type {etype!r} kept as read "
                f"(line {', '.join(where)}{' ...' if n > len(where) else ''})"
            )
        for etype, n in sorted(self.upcast.items()):
            out.append(f"{n} {etype} event(s) upcast to v{_events.EVENT_VERSIONS.get(etype)}")
        return out


def _literal_values(t: Any) -> tuple[Any, ...] | None:
    mi = msgspec.inspect
    if isinstance(t, mi.Metadata):
        return _literal_values(t.type)
    if isinstance(t, mi.LiteralType):
        return t.values
    if isinstance(t, mi.ListType):
        return _literal_values(t.item_type)
    if isinstance(t, mi.UnionType):
        for sub in t.types:
            vals = _literal_values(sub)
            if vals is not None:
                return vals
    return None


def _field_vocab() -> tuple[frozenset[str], dict[tuple[str, str], tuple[Any, ...]]]:
    """Which field names hold card codes, and the allowed values of the other literals."""
    card_codes = {c.code for c in ALL_CARDS}
    card_fields: set[str] = set()
    allowed: dict[tuple[str, str], tuple[Any, ...]] = {}
    infos = msgspec.inspect.multi_type_info(list(EVENT_TYPES.values()))
    for tag, info in zip(EVENT_TYPES, infos, strict=True):
        stack: list[Any] = [info]
        while stack:
            node = stack.pop()
            for f in node.fields:
                vals = _literal_values(f.type)
                if vals is not None and set(vals) == card_codes:
                    card_fields.add(f.name)
                elif vals is not None and f.name != "type":
                    allowed[(tag, f.name)] = vals
                sub = f.type
                while isinstance(sub, msgspec.inspect.ListType | msgspec.inspect.Metadata):
                    sub = sub.item_type if isinstance(sub, msgspec.inspect.ListType) else sub.type
                if isinstance(sub, msgspec.inspect.StructType):
                    stack.append(sub)
    return frozenset(card_fields), allowed


_CARD_FIELDS, _ALLOWED = _field_vocab()


def _leaf(path: str) -> str:
    leaf = path.rsplit(".", 1)[-1]
    return leaf.split("[", 1)[0]


def _validation_error(
    exc: msgspec.ValidationError,
    *,
    file: str | None,
    line: int | None,
    seq: int | None,
    etype: str | None,
) -> LogError:
    """msgspec's ``Expected ... - at `$.event.card``` as a LogError naming ``event.card``."""
    msg = str(exc)
    reason, sep, path = msg.rpartition(" - at `")
    if not sep:
        reason, path = msg, "$"
    path = path.rstrip("`")
    fld: str | None = path[2:] if path.startswith("$.") else (None if path == "$" else path)
    if reason.startswith("Object missing required field `"):
        name = reason.split("`")[1]
        fld = f"{fld}.{name}" if fld else name
        reason = "missing required field"
    elif reason.startswith("Invalid enum value ") and fld:
        value = reason[len("Invalid enum value ") :]
        leaf = _leaf(fld)
        if leaf in _CARD_FIELDS:
            reason = f"unknown card code {value}"
        elif etype is not None and (etype, leaf) in _ALLOWED:
            reason = f"invalid value {value}; allowed: {', '.join(map(str, _ALLOWED[etype, leaf]))}"
        else:
            reason = f"invalid value {value}"
    else:
        reason = reason.replace("`", "")
        reason = reason[:1].lower() + reason[1:]
    return LogError(reason, file=file, line=line, seq=seq, field=fld)


def _raw_seq(raw: Any) -> int | None:
    s = raw.get("seq") if isinstance(raw, dict) else None
    return s if isinstance(s, int) and not isinstance(s, bool) else None


def _from_raw(
    raw: Any,
    *,
    file: str | None,
    line: int | None,
    report: ReadReport | None,
    typed: Envelope | None,
    error: msgspec.ValidationError | None,
) -> Envelope:
    """The slow path: unknown types, upcasting, stored forms, and precise errors."""
    where = {"file": file, "line": line}
    if not isinstance(raw, dict):
        raise LogError("a log line must be a JSON object (one envelope)", **where)
    seq = _raw_seq(raw)
    ev = raw.get("event")
    if not isinstance(ev, dict):
        raise LogError("missing or not an object", **where, seq=seq, field="event")
    etype = ev.get("type")
    if not isinstance(etype, str):
        raise LogError("missing or not a string", **where, seq=seq, field="event.type")
    v = raw.get("v")

    def convert(data: dict[str, Any], into: type[Envelope]) -> Envelope:
        try:
            return msgspec.convert(data, into)
        except msgspec.ValidationError as exc:
            raise _validation_error(exc, **where, seq=seq, etype=etype) from None

    if etype not in EVENT_TYPES:
        # Validate the envelope fields with a stand-in payload, then keep the payload as read.
        head = convert({**raw, "event": {"type": "note_added", "text": ""}}, Envelope)
        if report is not None:
            report.add_unknown(line or 0, seq, etype)
        unknown = msgspec.structs.replace(head, event=UnknownEvent(etype, ev))
        stored = _canonical_of_raw(raw)
        return unknown if canonical_bytes(unknown) == stored else _with_stored(unknown, stored)

    current = _events.EVENT_VERSIONS[etype]
    if isinstance(v, int) and not isinstance(v, bool) and v > current:
        raise LogError(
            f"{etype} v{v} was written by a newer version (this one reads up to v{current})",
            **where,
            seq=seq,
            field="v",
        )
    stored = _canonical_of_raw(raw)
    if isinstance(v, int) and not isinstance(v, bool) and v < current:
        payload = ev
        for step in range(max(v, 1), current):
            up = UPCASTERS.get((etype, step))
            if up is None:
                raise LogError(
                    f"no upcaster for {etype} from v{step} to v{step + 1}",
                    **where,
                    seq=seq,
                    field="v",
                )
            payload = up(dict(payload))
        env = convert({**raw, "event": payload, "v": current}, Envelope)
        if report is not None:
            report.upcast[etype] = report.upcast.get(etype, 0) + 1
        return _with_stored(env, stored)

    if error is not None:
        raise _validation_error(error, **where, seq=seq, etype=etype)
    env = typed if typed is not None else convert(raw, Envelope)
    if canonical_bytes(env) != stored:
        if report is not None:
            report.sparse += 1
        return _with_stored(env, stored)
    return env


def decode_json_line(
    line: bytes | str,
    *,
    file: str | None = None,
    lineno: int | None = None,
    report: ReadReport | None = None,
    exact: bool = True,
) -> Envelope:
    """One JSONL line as an envelope (see :func:`iter_jsonl` for the rules)."""
    return _decode_json(line, file, lineno, report, exact)[0]


def _decode_json(
    line: bytes | str,
    file: str | None,
    lineno: int | None,
    report: ReadReport | None,
    exact: bool,
) -> tuple[Envelope, bytes | None]:
    """The envelope of a line and, when it is in its typed form, its sorted encoding.

    The exact check compares the line with the sorted encoding of the typed envelope, which
    has the same length as the line in any key order; that one encoding is then what the
    hash check needs (:func:`_around_chain`), so checking a chain costs no second encode.
    """
    try:
        env = _json_env_dec.decode(line)
    except msgspec.ValidationError as exc:
        raw = _decode_raw_json(line, file, lineno)
        return _from_raw(raw, file=file, line=lineno, report=report, typed=None, error=exc), None
    except msgspec.DecodeError as exc:
        raise LogError(f"not valid JSON: {exc}", file=file, line=lineno) from None
    full = None
    if env.v != _VERSION_OF[type(env.event)] or (
        exact and len(line) - (line[-1:] in (b"\n", "\n")) != len(full := _sorted_enc.encode(env))
    ):
        # Not in the form this module writes: check what was stored (slower, exact).
        raw = _decode_raw_json(line, file, lineno)
        return _from_raw(raw, file=file, line=lineno, report=report, typed=env, error=None), None
    return env, full


def _decode_raw_json(line: bytes | str, file: str | None, lineno: int | None) -> Any:
    try:
        return _json_raw_dec.decode(line)
    except msgspec.DecodeError as exc:
        raise LogError(f"not valid JSON: {exc}", file=file, line=lineno) from None


def _open_read(path: PathLike) -> IO[bytes]:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise LogError(f"cannot read: {exc.strerror}", file=os.fspath(path)) from None


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


def iter_records(path: PathLike) -> Iterator[tuple[int, Envelope | LogError]]:
    """(line, envelope) of each record, or (line, the :class:`LogError` of that line): a
    JSONL log is read on past bad lines, so that one report can name all of them (a msgpack
    log cannot be resynchronised after a bad frame, and stops there). A file that cannot be
    opened yields one error at line 0; an unknown suffix raises :class:`LogError`."""
    name = os.fspath(path)
    if log_format(path) == "msgpack":
        n = 0
        try:
            for env in iter_msgpack(path):
                n += 1
                yield n, env
        except LogError as exc:
            yield exc.line or n + 1, exc
        return
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        yield 0, LogError(f"cannot read: {exc.strerror}", file=name)
        return
    with f:
        for lineno, line in json_records(f):
            if not line.endswith(b"\n"):
                yield (
                    lineno,
                    LogError(
                        "the last line is incomplete (no line end): an interrupted write?",
                        file=name,
                        line=lineno,
                    ),
                )
                continue
            try:
                yield lineno, decode_json_line(line, file=name, lineno=lineno)
            except LogError as exc:
                yield lineno, exc


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
            except msgspec.DecodeError as exc:
                raise LogError(f"not valid msgpack: {exc}", file=name, line=n) from None
            else:
                if env.v != _VERSION_OF[type(env.event)] or (
                    exact and len(body) != len(_mp_enc.encode(env))
                ):
                    raw = _decode_raw_msgpack(body, name, n)
                    env = _from_raw(raw, file=name, line=n, report=report, typed=env, error=None)
            if report is not None:
                report.count += 1
            yield env


def _decode_raw_msgpack(body: bytes, file: str, n: int) -> Any:
    try:
        return _mp_raw_dec.decode(body)
    except msgspec.DecodeError as exc:
        raise LogError(f"not valid msgpack: {exc}", file=file, line=n) from None


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
    sha256 = hashlib.sha256
    with _open_read(path) as f:
        for lineno, line in json_records(_span_lines(f, span), span is None or span[0] == 0):
            env, full = _decode_json(line, name, lineno, report, True)
            if report is not None:
                report.count += 1
            if full is None:
                yield env, bool(env.hash) and compute_hash(env.prev, env) == env.hash
                continue
            # compute_hash, from the encoding the exact check made (two parts, not joined)
            head, tail = _around_chain(full)
            h = sha256(env.prev.encode())
            h.update(head)
            h.update(tail)
            yield env, h.hexdigest() == env.hash


def iter_games(envelopes: Iterable[Envelope]) -> Iterator[tuple[str, list[Envelope]]]:
    """(game_id, envelopes) for each run of consecutive envelopes of one game."""
    game: str | None = None
    batch: list[Envelope] = []
    for env in envelopes:
        if env.game_id != game:
            if batch:
                yield game, batch  # type: ignore[misc]
            game, batch = env.game_id, []
        batch.append(env)
    if batch:
        yield game, batch  # type: ignore[misc]


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
    final = Path(path)
    tmp = final.with_name(final.name + ".part")
    try:
        with open(tmp, "wb") as f:
            n = (
                write_msgpack(f, envelopes)
                if log_format(final) == "msgpack"
                else write_jsonl(f, envelopes)
            )
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    return n


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


class JsonlSink:
    """A log file (JSON Lines, or msgpack by suffix) as a recording session's sink
    (:class:`~gostop_records.recorder.EventSink`), appended one synced record at a time.

    The file is locked while the sink is open, so a second recorder on the same file is
    refused instead of interleaving. An incomplete last record (a crash during a write,
    which was never acknowledged) is cut off on opening; ``repaired`` says how many bytes.
    The file may hold other games: only the session's game is read back and appended to.
    """

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True, fsync: bool = True):
        self.path = Path(path)
        self.location = str(self.path)
        self.fsync = fsync
        log_format(self.path)  # refuse an unknown suffix before touching the file
        if not create and not self.path.exists():
            raise LogError("no such log file", file=self.location)
        self._lock: IO[bytes] | None = None
        self._writer: LogWriter | None = None
        self._take_lock()
        try:
            self.repaired = repair_tail(self.path)
            self._versions: dict[str, int] = {}
            if self.path.exists():
                for env in read_log(self.path):
                    self._versions[env.game_id] = env.seq
        except BaseException:
            self.close()
            raise

    def _take_lock(self) -> None:
        try:
            self._lock = open(self.path, "ab")  # noqa: SIM115 - held for the sink's life
        except OSError as exc:
            raise LogError(f"cannot open for writing: {exc.strerror}", file=self.location) from None
        if fcntl is None:
            return
        try:
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            self._lock = None
            raise LogError(
                "the log is being written by another recording (it is locked); "
                "close that one first",
                file=self.location,
            ) from None

    def version(self, game_id: str) -> int:
        return self._versions.get(game_id, 0)

    def game_events(self, game_id: str) -> list[Envelope]:
        if not self._versions.get(game_id):
            return []
        return [env for env in read_log(self.path) if env.game_id == game_id]

    def append(self, env: Envelope, expected_version: int) -> None:
        stored = self._versions.get(env.game_id, 0)
        if stored != expected_version or env.seq != expected_version + 1:
            raise LogError(
                f"stale expected version: the log holds game {env.game_id!r} up to seq "
                f"{stored}, this append of seq {env.seq} expected {expected_version}",
                file=self.location,
                seq=env.seq,
            )
        if self._writer is None:
            self._writer = LogWriter(self.path, fsync=self.fsync, repair=True)
        self._writer.write(env)
        self._versions[env.game_id] = env.seq

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> JsonlSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _encode_jsonl_line(env: Envelope) -> bytes:
    return encode_json(env) + b"\n"


# --- verification --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """The outcome of checking seq order and the hash chain: the first break, if any."""

    ok: bool
    game_id: str | None
    first_bad_seq: int | None
    reason: str
    count: int
    line: int | None = None
    games: int = 0

    def __bool__(self) -> bool:
        return self.ok


#: The reason given for an envelope whose hash is not that of its content.
HASH_MISMATCH = "hash does not match the content (changed after it was sealed)"


def link_break(last: tuple[int, str] | None, game_id: str, seq: int, prev: str) -> str | None:
    """Why an envelope (``seq``, ``prev``) does not follow ``last``, the (seq, hash) of the
    game's event before it (None: it must be the game's first); None when it follows.

    The one check of seq order and chain links, and its one wording, for every reader: the
    log's :func:`verify` and :func:`verify_file`, and the store's import of a run of a game.
    Each reason names the seq, so it stands alone.
    """
    if last is None:
        if seq != 1:
            return f"game {game_id!r} starts at seq {seq}: expected seq 1"
        if prev != GENESIS:
            return "seq 1: prev is not the genesis value (64 zeros)"
        return None
    last_seq, last_hash = last
    if seq != last_seq + 1:
        if seq == last_seq:
            return f"seq {seq} follows seq {last_seq}: duplicate"
        if seq < last_seq:
            return f"seq {seq} follows seq {last_seq}: out of order"
        gap = (
            f"{last_seq + 1} is missing"
            if seq == last_seq + 2
            else f"{last_seq + 1}..{seq - 1} are missing"
        )
        return f"seq {seq} follows seq {last_seq}: {gap}"
    if prev != last_hash:
        return (
            f"seq {seq}: prev is not the hash of seq {last_seq} "
            "(an event before it was changed, removed or inserted)"
        )
    return None


def chain_break(
    run: Sequence[Envelope],
    *,
    continues: bool = False,
    hashes_checked: bool = False,
    bad_hash: int | None = None,
) -> tuple[int, str] | None:
    """The first break in a run of one game's envelopes: (seq, reason), or None.

    ``continues``: the run may start after seq 1 (the rest of a game stored elsewhere, whose
    head the caller checks against the run's first ``prev``). ``hashes_checked``: each
    envelope's own hash was checked as the file was read (see :func:`read_checked`) and
    ``bad_hash`` is the index of the first wrong one, or None; otherwise each hash is
    computed here.
    """
    if not run:
        return None
    first = run[0]
    last = (first.seq - 1, first.prev) if continues and first.seq != 1 else None
    for i, env in enumerate(run):
        reason = link_break(last, env.game_id, env.seq, env.prev)
        if reason is not None:
            return env.seq, reason
        if hashes_checked:
            wrong = i == bad_hash
        else:
            wrong = not env.hash or compute_hash(env.prev, env) != env.hash
        if wrong:
            return env.seq, f"seq {env.seq}: {HASH_MISMATCH}"
        last = (env.seq, env.hash)
    return None


class _Checker:
    """Per-game seq and chain state: each game is checked on its own."""

    __slots__ = ("count", "state")

    def __init__(self) -> None:
        self.state: dict[str, tuple[int, str]] = {}
        self.count = 0

    def check(self, game_id: str, seq: int, prev: str, digest: str, canon: bytes) -> str | None:
        """The reason the event breaks the game's chain, or None."""
        reason = link_break(self.state.get(game_id), game_id, seq, prev)
        if reason is not None:
            return reason
        h = hashlib.sha256(prev.encode())
        h.update(canon)
        if h.hexdigest() != digest:
            return f"seq {seq}: {HASH_MISMATCH}"
        self.state[game_id] = (seq, digest)
        self.count += 1
        return None

    def ok(self) -> VerifyResult:
        games = len(self.state)
        only = next(iter(self.state)) if games == 1 else None
        return VerifyResult(
            True,
            only,
            None,
            f"{self.count} events in {games} game(s): chain intact",
            self.count,
            games=games,
        )

    def bad(
        self, game_id: str | None, seq: int | None, reason: str, line: int | None = None
    ) -> VerifyResult:
        return VerifyResult(False, game_id, seq, reason, self.count, line, len(self.state))


def verify_games(envelopes: Iterable[Envelope]) -> Iterator[VerifyResult]:
    """One result per run of consecutive envelopes of a game (see :func:`iter_games`)."""
    for _, batch in iter_games(envelopes):
        yield verify(batch)


def verify(envelopes: Iterable[Envelope]) -> VerifyResult:
    """Check seq (from 1, dense) and the hash chain of every game; the first break.

    Catches a changed payload, a removed, inserted or duplicated event, two events swapped
    and a seq gap, and names the seq where the log breaks. Envelopes read from a file keep
    their stored form, so upcast and sparsely written events verify as stored.
    """
    checker = _Checker()
    for env in envelopes:
        reason = checker.check(env.game_id, env.seq, env.prev, env.hash, canonical_bytes(env))
        if reason is not None:
            return checker.bad(env.game_id, env.seq, reason)
    return checker.ok()


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
                except msgspec.DecodeError as exc:
                    yield n, LogError(f"not valid msgpack: {exc}", file=name, line=n)
            return
        for lineno, line in enumerate(f, 1):
            if lineno == 1 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if not line or line.isspace():
                continue
            try:
                yield lineno, _json_raw_dec.decode(line)
            except msgspec.DecodeError as exc:
                yield lineno, LogError(f"not valid JSON: {exc}", file=name, line=lineno)


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
