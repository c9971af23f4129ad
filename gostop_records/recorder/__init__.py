"""A live recording session: table inputs in, validated events out, each durable on return.

A recorder at a real table enters what happens (the deal, each play and flip, choices, Go or
Stop, the payments). The session checks every entry against the rules engine *before*
anything is written: an impossible entry raises a typed error naming the rule and writes
nothing. A legal entry is written as its input event followed by the consequences the engine
derives (captures, ppuk, junk transfers, the end of the hand), hash-chained and durable
(flushed and synced, or committed) before the method returns, so a crash or a power loss
never loses an acknowledged entry.

The session's state is a strict :class:`~gostop_records.projector.Projector`. An entry runs
through the rules once: a fork of it is fed the input (the engine applies it and derives the
consequences) and then those consequences; only then is anything written, and the fork
becomes the session's state (the store takes it too, and does not run the rules again). So
what the recorder sees is exactly what a replay of the log shows, and
:meth:`RecordingSession.undo` is an ``entry_retracted`` event that the projector answers by
restoring the state before the latest input: compensating, never an edit.
:meth:`RecordingSession.resume` rebuilds the state from the stored log and, when a crash cut
an entry between its input and its consequences, writes the missing consequences (they are a
function of the log), so the game continues at the exact point it stopped.

Events go to a sink: any object with the :class:`EventSink` methods. The two the library
has live beside their storage: :class:`~gostop_records.log.JsonlSink` (a log file, locked
against a second writer) and :class:`~gostop_records.store.sink.StoreSink` (the DuckDB
store, one transaction per entry); :func:`open_sink` picks one.

No terminal I/O here: the ``gostop record`` command is the user interface.
"""

from __future__ import annotations

from ..engine.game import Waiting
from .answers import ChoiceRequired, Decision, Entry, PendingDue
from .players import Clock, make_players, new_game_id
from .session import RecordingSession, card_code
from .sinks import EventSink, JsonlSink, StoreSink, open_sink

__all__ = [
    "ChoiceRequired",
    "Clock",
    "Decision",
    "Entry",
    "EventSink",
    "JsonlSink",
    "PendingDue",
    "RecordingSession",
    "StoreSink",
    "Waiting",
    "card_code",
    "make_players",
    "new_game_id",
    "open_sink",
]
