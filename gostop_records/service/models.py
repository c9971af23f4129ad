"""The request and answer types of the HTTP API (msgspec Structs, as the events are).

Requests refuse fields they do not know, so a misspelt field is an error with its name
rather than a setting silently ignored. A typed entry is one of the event payloads of
:mod:`gostop_records.events` itself: the API has no second model of an event.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta, Struct

from .. import events as E

__all__ = [
    "CountersignIn",
    "EntryAnswer",
    "EntryIn",
    "ErrorAnswer",
    "GameCreated",
    "GameSummary",
    "GamesPage",
    "NewGame",
    "QueryIn",
    "Waiting",
]


class NewGame(Struct, forbid_unknown_fields=True, kw_only=True):
    """``POST /api/games``: the players in seat order, the ruleset and the stake.

    ``ruleset`` is a preset name (``matgo``, ``gostop3``, ``gamerules``, ``cardavia``;
    default ``matgo`` for 2 players, ``gostop3`` for 3 to 5) or an object with ``base`` (a
    preset) and rule fields to override, as a ruleset file holds them.
    """

    players: Annotated[list[str | E.Player], Meta(min_length=2, max_length=5)]
    ruleset: str | dict[str, Any] | None = None
    stake: Annotated[int, Meta(ge=0)] = 1
    venue: str | None = None
    notes: str | None = None
    game_id: Annotated[str, Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")] | None = None
    by: Annotated[str, Meta(min_length=1, max_length=64)] = "recorder"


class QueryIn(Struct, forbid_unknown_fields=True, kw_only=True):
    """``POST /api/query``: one read-only statement (statements that write, and reading
    files, are refused); its rows, at most ``limit``, within the server's query limits
    (408 past the time, 413 past the rows or bytes: docs/queries.md)."""

    sql: Annotated[str, Meta(min_length=1, max_length=20_000)]
    limit: Annotated[int, Meta(ge=0, le=100_000)] = 1000


class Waiting(Struct):
    """What the table waits for next: ``deal``, ``play``, ``flip``, ``cup``, ``decide``
    (Go or Stop), ``pay`` or ``over``; the seat that acts and the hand."""

    kind: str
    seat: int | None
    hand: int
    options: list[str]


class GameCreated(Struct):
    """The new game: its id, version (events stored) and the recorder token, shown once."""

    game_id: str
    version: int
    recorder_token: str
    ruleset: str
    players: list[E.Player]
    waiting: Waiting
    #: The fingerprint of the server's key that signs the game's checkpoints (None: the
    #: server does not sign).
    signed_by: str | None = None


class EntryIn(Struct, forbid_unknown_fields=True, kw_only=True):
    """``POST /api/games/{id}/entries``: one line of the recorder's grammar as ``entry``,
    or one typed input payload as ``event``; ``expected_version`` is the version the
    device last saw (the game's number of stored events)."""

    expected_version: Annotated[int, Meta(ge=0)]
    entry: Annotated[str, Meta(max_length=2000)] | None = None
    event: E.Event | None = None


class CountersignIn(Struct, forbid_unknown_fields=True, kw_only=True):
    """``POST /api/games/{id}/countersign``: a player's Ed25519 signature (base64) of the
    bytes ``GET /api/games/{id}/checkpoint`` gives for the seat, made with ``public_key``
    (the raw 32-byte key, base64): the head the recorder signed at ``head_seq``."""

    seat: Annotated[int, Meta(ge=0, le=4)]
    head_seq: Annotated[int, Meta(ge=1)]
    head: Annotated[str, Meta(pattern=r"^[0-9a-f]{64}$")]
    public_key: Annotated[str, Meta(max_length=100)]
    signature: Annotated[str, Meta(max_length=200)]


class EntryAnswer(Struct):
    """What an accepted entry wrote (the input and every consequence), the new version."""

    game_id: str
    version: int
    events: list[E.Envelope]
    waiting: Waiting


class ErrorAnswer(Struct):
    """A refusal: the kind, the reason, and for a conflict the current ``version``, for a
    rule the ``rule`` it breaks."""

    error: str
    reason: str
    version: int | None = None
    rule: str | None = None


class GameSummary(Struct):
    game_id: str
    ruleset: str
    players: list[str]
    stake: int
    venue: str | None
    started_at: str | None
    last_at: str | None
    version: int
    hands: int
    hands_ended: int
    disputes: int
    violations: int


class GamesPage(Struct):
    games: list[GameSummary]
    total: int
    limit: int
    offset: int


def encode(obj: Any) -> bytes:
    return msgspec.json.encode(obj)
