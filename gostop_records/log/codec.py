"""Envelopes to bytes and back: JSON and msgpack encoding, the typed decode, the wording of
validation errors, upcasting older payloads and keeping a record's stored form.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec
import msgspec.inspect

from .. import events as _events
from ..cards import ALL_CARDS
from ..errors import LogError
from ..events import EVENT_TYPES, Envelope, UnknownEvent, event_type
from .chain import (
    _body_dict,
    _canonical_of_raw,
    _sorted_enc,
    _with_stored,
    canonical_bytes,
    stored_bytes,
)

__all__ = [
    "LEAD",
    "UPCASTERS",
    "ReadReport",
    "decode_json_line",
    "encode_json",
    "encode_msgpack",
    "envelope",
    "envelope_to_dict",
    "lead_of",
    "now",
    "own_lead",
    "timestamp",
]


#: How a line in the form this package writes begins: its game's id comes first. The
#: import's scan places a run's lines by those leading bytes without decoding them
#: (``store.game_runs``); every reader refuses a line whose leading id is not the one it
#: decodes to (:func:`lead_conflict`).
LEAD = b'{"game_id":"'


def lead_of(game_id: str) -> bytes:
    """The bytes every line of the game written in the usual form begins with, up to the
    quote that closes its id."""
    return LEAD + game_id.encode() + b'"'


def own_lead(line: bytes, game_id: str) -> bool:
    """Whether a line either does not begin with a game id or begins with its own (a line
    that fails this goes to :func:`lead_conflict`, which refuses it when the two ids
    differ and lets pass an id written with escapes)."""
    return not line.startswith(LEAD) or line.startswith(lead_of(game_id))


#: ``(type, from_v) -> f(payload at from_v) -> payload at from_v + 1``. A payload type that
#: changes shape bumps ``events.EVENT_VERSIONS[type]`` and registers one function here per step.
UPCASTERS: dict[tuple[str, int], Callable[[dict[str, Any]], dict[str, Any]]] = {}


Format = Literal["jsonl", "msgpack"]


# A msgpack log is a sequence of frames: the msgpack encoding of the body length as a uint 32
# (0xCE + 4 bytes, big-endian) followed by the msgpack map of the envelope. The whole file is
# a valid msgpack stream (an int, a map, an int, a map ...) and a reader finds each record's
# end without parsing it, which msgspec needs to decode one message at a time.
_FRAME_TAG = 0xCE


_FRAME_HEAD = 5


_json_enc = msgspec.json.Encoder()


_mp_enc = msgspec.msgpack.Encoder()


_json_env_dec = msgspec.json.Decoder(Envelope)


_json_raw_dec = msgspec.json.Decoder()


_mp_env_dec = msgspec.msgpack.Decoder(Envelope)


_mp_raw_dec = msgspec.msgpack.Decoder()
#: What a record that cannot be decoded raises: bad bytes, or nesting deeper than the
#: decoder's stack allows (``[[[[...]]]]``), which is an error of the line, not a crash.
_UNREADABLE = (msgspec.DecodeError, RecursionError)


def _why(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply (no log record nests more than a few levels)"
    return str(exc)


#: The payload version this module writes, by payload class.
_VERSION_OF: dict[type, int] = {
    cls: _events.EVENT_VERSIONS[tag] for tag, cls in EVENT_TYPES.items()
}


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


def lead_conflict(line: bytes | str, game_id: str) -> str | None:
    """The game a line's leading bytes name when its decoded ``game_id`` is another.

    The decoder keeps the last of repeated members, so a line that begins
    ``{"game_id":"a"`` and says ``"game_id":"b"`` further on (or spells the key with
    escapes) is game b to a reader, and game a to anyone reading its first bytes, as the
    import's scan does (``store.game_runs``). Such a line belongs to no one game: every reader
    refuses it. None when the two agree, or when the line does not begin with an id
    written without escapes.
    """
    raw = line.encode() if isinstance(line, str) else line
    if not isinstance(game_id, str) or own_lead(raw, game_id):
        return None
    end = raw.find(b'"', len(LEAD))
    lead = raw[len(LEAD) : end]
    if end < 0 or b"\\" in lead:
        return None  # an id written with escapes: the scan decodes such a line
    return lead.decode(errors="replace")


def _decode_json(
    line: bytes | str,
    file: str | None,
    lineno: int | None,
    report: ReadReport | None,
    exact: bool,
) -> tuple[Envelope, bytes | None]:
    """The envelope of a line and, when it is in its typed form, its sorted encoding; a line
    that names two games is refused (:func:`lead_conflict`).

    The exact check compares the line with the sorted encoding of the typed envelope, which
    has the same length as the line in any key order; that one encoding is then what the
    hash check needs (:func:`_around_chain`), so checking a chain costs no second encode.
    """
    got: tuple[Envelope, bytes | None]
    try:
        env = _json_env_dec.decode(line)
    except msgspec.ValidationError as exc:
        raw = _decode_raw_json(line, file, lineno)
        got = _from_raw(raw, file=file, line=lineno, report=report, typed=None, error=exc), None
    except _UNREADABLE as exc:
        raise LogError(f"not valid JSON: {_why(exc)}", file=file, line=lineno) from None
    else:
        full = None
        if env.v != _VERSION_OF[type(env.event)] or (
            exact
            and len(line) - (line[-1:] in (b"\n", "\n")) != len(full := _sorted_enc.encode(env))
        ):
            # Not in the form this module writes: check what was stored (slower, exact).
            raw = _decode_raw_json(line, file, lineno)
            got = _from_raw(raw, file=file, line=lineno, report=report, typed=env, error=None), None
        else:
            got = env, full
    gid = got[0].game_id
    if type(line) is bytes and type(gid) is str and own_lead(line, gid):
        return got  # the usual line
    lead = lead_conflict(line, gid)
    if lead is not None:
        raise LogError(
            f"the line begins with game_id {lead!r} but names game_id {gid!r} "
            "further on: it belongs to no one game",
            file=file,
            line=lineno,
            seq=got[0].seq,
            field="game_id",
        )
    return got


def _decode_raw_json(line: bytes | str, file: str | None, lineno: int | None) -> Any:
    try:
        return _json_raw_dec.decode(line)
    except _UNREADABLE as exc:
        raise LogError(f"not valid JSON: {_why(exc)}", file=file, line=lineno) from None


def _decode_raw_msgpack(body: bytes, file: str, n: int) -> Any:
    try:
        return _mp_raw_dec.decode(body)
    except _UNREADABLE as exc:
        raise LogError(f"not valid msgpack: {_why(exc)}", file=file, line=n) from None


def _encode_jsonl_line(env: Envelope) -> bytes:
    return encode_json(env) + b"\n"
