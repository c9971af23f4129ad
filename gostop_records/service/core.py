"""The table service without HTTP: one store, the games being recorded, every write.

:class:`TableService` is the writer thread's object (:mod:`.worker` runs its methods one at
a time), made of the parts a newcomer can read apart: :mod:`.sessions` (the store, the
settler, the games in memory and the one write path), :mod:`.entries` (new games and
entries), :mod:`.signatures` (checkpoints and countersignatures), :mod:`.imports`
(uploads), :mod:`.backups` (copies of the store, as write jobs), :mod:`.rebuilds`
(the end of a projection rebuild) and :mod:`.persons` (renames, merges and forgetting
of persons). Reads are not here:
:mod:`.reads` runs them on connections of their own.
"""

from __future__ import annotations

from .backups import Backups
from .entries import Entries, fingerprint
from .imports import Imports
from .persons import Persons
from .rebuilds import Rebuilds
from .sessions import Answer, EntryRequest, server_key
from .signatures import Signatures

__all__ = ["Answer", "EntryRequest", "TableService", "fingerprint", "server_key"]


class TableService(Entries, Signatures, Imports, Backups, Rebuilds, Persons):
    """The service on one store file: see the module docstring and :class:`.sessions.Sessions`."""
