"""Envelopes to ``events`` rows and back, keeping every byte the hash covers.

A row does not hold ``prev``: it is the ``hash`` of the row before it in its game (64 zeros
at ``seq`` 1), so storing it would say the same thing twice (and cost a quarter of the
store's size). A game's rows read from ``seq`` 1 in order give it back
(:func:`rows_to_envelopes`).

A row holds the payload as the JSON text of the ``event`` member, exactly as it was hashed:
an envelope read in a non-typed form (an upcast payload, a sparse or unknown one) is stored
in its stored form, so a row read back verifies and re-exports byte-exactly. Reading a row
goes through the same decoder as a JSONL line (:func:`gostop_records.log.decode_json_line`),
so old payloads are upcast and unknown types kept, as from a file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from .. import log as L
from ..errors import LogError
from ..events import EVENT_TYPES, Envelope
from .schema import EVENT_COLUMNS

__all__ = ["EventRow", "event_columns", "event_row", "row_to_envelope", "rows_to_envelopes"]

#: ``game_id, seq, type, hand, at, recorded_at, by, v, payload, hash``: :data:`.EVENT_COLUMNS`.
EventRow = tuple[str, int, str, int | None, str, str, str, int, str, str]

_enc = msgspec.json.Encoder()
#: The ``type`` tag of each typed payload class (an unknown payload is not in it).
_TAGS: dict[type, str] = {cls: tag for tag, cls in EVENT_TYPES.items()}


def event_row(env: Envelope) -> EventRow:
    """The ``events`` row of a sealed envelope.

    Raises :class:`LogError` for an envelope whose stored form has members a row cannot
    keep (envelope fields added by a newer producer), since its hash could not be checked
    from the store afterwards.
    """
    tag = _TAGS.get(type(env.event)) if type(env) is Envelope else None
    if tag is not None:  # the typed form is the stored form: encode it directly
        return (
            env.game_id,
            env.seq,
            tag,
            env.hand,
            env.at,
            env.recorded_at,
            env.by,
            env.v,
            _enc.encode(env.event).decode(),
            env.hash,
        )
    d = L.envelope_to_dict(env)
    event = d.get("event")
    row: EventRow = (
        env.game_id,
        env.seq,
        env.type,
        d.get("hand"),
        d["at"],
        d["recorded_at"],
        d["by"],
        d["v"],
        _enc.encode(event).decode(),
        env.hash,
    )
    extra = sorted(
        set(d) - {"game_id", "seq", "hand", "at", "recorded_at", "by", "v", "event", "prev", "hash"}
    )
    if extra:
        raise LogError(
            f"envelope fields {', '.join(extra)} are not known to this version and a store "
            "row cannot keep them (the hash would not verify)",
            seq=env.seq,
        )
    return row


def event_columns(envelopes: Sequence[Envelope]) -> list[list[Any]]:
    """The ``events`` rows of sealed envelopes as columns (see :func:`event_row`).

    The bulk import's form: a list per column, built column by column when every envelope
    is in its typed form (the usual case), which takes half the time of row tuples turned
    into columns afterwards. The payload may come as UTF-8 bytes rather than text, which
    Arrow reads ten times faster; :func:`.bulk.prepare_columns` makes it text where a
    statement needs it.
    """
    if not all(type(env) is Envelope and type(env.event) in _TAGS for env in envelopes):
        rows = [event_row(env) for env in envelopes]
        if not rows:
            return [[] for _ in EVENT_COLUMNS]
        return [list(col) for col in zip(*rows, strict=True)]
    enc, tags = _enc.encode, _TAGS
    return [
        [env.game_id for env in envelopes],
        [env.seq for env in envelopes],
        [tags[type(env.event)] for env in envelopes],
        [env.hand for env in envelopes],
        [env.at for env in envelopes],
        [env.recorded_at for env in envelopes],
        [env.by for env in envelopes],
        [env.v for env in envelopes],
        [enc(env.event) for env in envelopes],  # UTF-8 bytes: Arrow takes them as they are
        [env.hash for env in envelopes],
    ]


def row_to_envelope(
    row: EventRow | tuple[Any, ...], prev: str, *, source: str | None = None
) -> Envelope:
    """The envelope of a stored row, given the ``hash`` of the row before it in its game
    (:data:`~gostop_records.log.GENESIS` at ``seq`` 1); upcast and unknown payloads as from
    a log file."""
    game_id, seq, _t, hand, at, recorded_at, by, v, payload, digest = row
    head = _enc.encode(
        {
            "game_id": game_id,
            "seq": seq,
            "hand": hand,
            "at": at,
            "recorded_at": recorded_at,
            "by": by,
            "v": v,
        }
    )
    text = payload.encode() if isinstance(payload, str) else _enc.encode(payload)
    line = b"".join(
        (
            head[:-1],
            b',"event":',
            text,
            b',"prev":',
            _enc.encode(prev),
            b',"hash":',
            _enc.encode(digest),
            b"}",
        )
    )
    try:
        return L.decode_json_line(line, file=source)
    except LogError as exc:
        raise LogError(
            f"game {game_id!r}: stored event does not decode: {exc.reason}",
            file=source,
            seq=seq,
            field=exc.field,
        ) from None


def rows_to_envelopes(
    rows: Iterable[EventRow | tuple[Any, ...]], *, source: str | None = None
) -> list[Envelope]:
    """The envelopes of one game's rows read from its first in ``seq`` order, each
    ``prev`` the ``hash`` of the row before (what ``lag(hash)`` gives in SQL)."""
    out: list[Envelope] = []
    prev = L.GENESIS
    for r in rows:
        out.append(row_to_envelope(r, prev, source=source))
        prev = r[-1]  # the row's hash: the next one's prev
    return out
