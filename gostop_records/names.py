"""A person's name sealed under a key of their own, so that it can be forgotten.

The hash chain, the seals and the signatures cover every byte of an event, so a name written
into ``game_started`` in the clear could never be removed without breaking them. A game
recorded into the store therefore writes each seat's name encrypted (AES-256-GCM) under a
key of that person's own, before the event is hashed: the event holds
``sealed:v1:<base64 of nonce and ciphertext>``, bound to the person's id. The keys live in
the store (``person_keys``), outside every hashed record. Forgetting a person deletes their
key: what the events hold stays, byte for byte, and every chain, seal and signature still
verifies, but nobody can read the name any more (see ``gostop people forget``).

Reading a game (:func:`reveal`) puts the names back into the typed events when the keys are
at hand, and :data:`FORGOTTEN` when a key is gone; the envelope keeps the bytes it was
hashed with, so it verifies and is written back exactly as stored.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Mapping

import msgspec
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from . import events as E
from . import log as L

__all__ = [
    "FORGOTTEN",
    "PREFIX",
    "is_sealed",
    "named",
    "new_key",
    "open_name",
    "reveal",
    "seal_name",
    "seal_players",
    "sealed_ids",
]

PREFIX = "sealed:v1:"
#: What is shown for a person whose key was deleted.
FORGOTTEN = "(forgotten)"
_NONCE = 12


def new_key() -> bytes:
    """A person's key: 32 random bytes."""
    return os.urandom(32)


def is_sealed(text: str) -> bool:
    return text.startswith(PREFIX)


def seal_name(name: str, key: bytes, person: str) -> str:
    """``name`` encrypted under ``key``, bound to the person's id (a sealed name copied to
    another seat does not open)."""
    nonce = os.urandom(_NONCE)
    box = AESGCM(key).encrypt(nonce, name.encode(), person.encode())
    return PREFIX + base64.b64encode(nonce + box).decode()


def open_name(text: str, key: bytes | None, person: str) -> str:
    """The name a sealed text holds; :data:`FORGOTTEN` without its key (or with a key it was
    not sealed under). Text that is not sealed is returned as it is."""
    if not is_sealed(text):
        return text
    if key is None:
        return FORGOTTEN
    try:
        raw = base64.b64decode(text[len(PREFIX) :], validate=True)
        return AESGCM(key).decrypt(raw[:_NONCE], raw[_NONCE:], person.encode()).decode()
    except (InvalidTag, ValueError):
        return FORGOTTEN


def seal_players(ev: E.GameStarted, key_of: Callable[[str], bytes]) -> E.GameStarted:
    """``game_started`` with every seat's name sealed under its person's key."""
    players = [
        E.Player(
            id=p.id, name=p.name if is_sealed(p.name) else seal_name(p.name, key_of(p.id), p.id)
        )
        for p in ev.players
    ]
    return msgspec.structs.replace(ev, players=players)


def sealed_ids(ev: object) -> list[str]:
    """The persons whose names an event holds sealed."""
    if isinstance(ev, E.GameStarted):
        return [p.id for p in ev.players if is_sealed(p.name)]
    return []


def reveal(env: E.Envelope, keys: Mapping[str, bytes]) -> E.Envelope:
    """An envelope whose ``game_started`` shows the names its keys open (the others as
    :data:`FORGOTTEN`), keeping the bytes it was hashed with; any other envelope as it is."""
    return _shown(env, lambda p: open_name(p.name, keys.get(p.id), p.id))


def named(env: E.Envelope, names: Mapping[str, str]) -> E.Envelope:
    """An envelope whose ``game_started`` shows the names given by person id (as a server
    that holds the keys shows them: ``GET /api/games/{id}``), keeping the bytes it was
    hashed with; a sealed name not given stays sealed."""
    return _shown(env, lambda p: names.get(p.id, p.name))


def _shown(env: E.Envelope, name_of: Callable[[E.Player], str]) -> E.Envelope:
    ev = env.event
    if not sealed_ids(ev):
        return env
    assert isinstance(ev, E.GameStarted)
    players = [
        p if not is_sealed(p.name) else E.Player(id=p.id, name=name_of(p)) for p in ev.players
    ]
    stored = L.canonical_bytes(env)
    shown = msgspec.structs.replace(env, event=msgspec.structs.replace(ev, players=players))
    return L.with_stored(shown, stored)
