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

The package holds one job per module, and every public name is re-exported here:

- :mod:`.chain`: canonical bytes, the stored form, :class:`Chain` and :func:`seal`, the
  runs of one game's envelopes (:func:`iter_games`), and the one check of seq order and links
  (:func:`link_break`, :func:`chain_break`, :func:`verify`);
- :mod:`.codec`: envelopes to JSON and msgpack and back, the wording of validation errors,
  upcasting;
- :mod:`.files`: finding, reading (streamed, typed, or on past bad lines), writing (whole,
  atomic, :class:`LogWriter`), tail repair and the check of a file from its raw records;
- :mod:`.reading`: the reading loops every replay, validation and import runs first (a
  file's records, its typed envelopes, the checked read), part of the compiled kernel;
- :mod:`.sink`: :class:`JsonlSink`, a log file as a recording session's sink.

Nothing here knows the rules of the game: it imports only ``cards``, ``events`` and
``errors``.
"""

from __future__ import annotations

from .chain import (
    GENESIS,
    HASH_MISMATCH,
    Chain,
    StoredEnvelope,
    VerifyResult,
    canonical_bytes,
    chain_break,
    compute_hash,
    digest_after,
    iter_games,
    link_break,
    seal,
    stored_bytes,
    verify,
    verify_games,
    with_stored,
)
from .codec import (
    UPCASTERS,
    ReadReport,
    decode_json_line,
    encode_json,
    encode_msgpack,
    envelope,
    envelope_to_dict,
    now,
    timestamp,
)
from .files import (
    FOLDER_SUFFIXES,
    JSONL_SUFFIXES,
    MSGPACK_SUFFIXES,
    LogWriter,
    find_logs,
    iter_jsonl,
    iter_msgpack,
    iter_records,
    json_records,
    log_format,
    read_checked,
    read_log,
    repair_tail,
    verify_file,
    write_atomic,
    write_jsonl,
    write_log,
    write_msgpack,
)
from .sink import (
    JsonlSink,
)

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
    "digest_after",
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
    "with_stored",
    "write_atomic",
    "write_jsonl",
    "write_log",
    "write_msgpack",
]
