"""The table service without HTTP: one store, the games being recorded, every write.

:class:`TableService` is the writer thread's object (:mod:`.worker` runs its methods one at
a time), made of the parts a newcomer can read apart: :mod:`.sessions` (the store, the
settler, the games in memory and the one write path), :mod:`.entries` (new games and
entries), :mod:`.signatures` (checkpoints and countersignatures) and :mod:`.imports`
(uploads). Reads are not here: :mod:`.reads` runs them on connections of their own.
"""

from __future__ import annotations

from .entries import Entries, fingerprint
from .imports import Imports
from .sessions import Answer, EntryRequest, server_key
from .signatures import Signatures

__all__ = ["Answer", "EntryRequest", "TableService", "fingerprint", "server_key"]


class TableService(Entries, Signatures, Imports):
    """The service on one store file: see the module docstring and :class:`.sessions.Sessions`."""
