"""Recording a simulated game through a session, as a table would: the shared steps of the
crash and disk-full probes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gostop_records import events as E
from gostop_records import log
from gostop_records.log import JsonlSink
from gostop_records.recorder import RecordingSession
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_payloads
from gostop_records.store.sink import StoreSink

__all__ = ["inputs", "inputs_before", "open_sink", "payloads", "record", "stored"]

NAMES = ["Ann", "Ben", "Cho"]


def inputs(preset: str = "matgo", players: int = 2, seed: int = 3, hands: int = 2) -> list[Any]:
    """The inputs of a simulated game, as a recorder enters them (game_started left out)."""
    spec = GameSpec(PRESETS[preset], players, hands, seed)
    return [p for _, p in play_payloads(spec) if E.is_input(p) and type(p) is not E.GameStarted]


def open_sink(path: Path, *, create: bool = True) -> JsonlSink | StoreSink:
    return StoreSink(path, create=create) if path.suffix == ".duckdb" else JsonlSink(path)


def record(session: RecordingSession, entries: list[Any]) -> None:
    for ev in entries:
        if type(ev) is E.HandStarted:
            session.start_hand(ev.dealer)
        else:
            session.record(ev)


def start(path: Path, preset: str, players: int, game_id: str) -> RecordingSession:
    sink = open_sink(path)
    try:
        # each seat a known person: two recordings of one game hold the same ids
        seats = [f"{name}=p_{k:012x}" for k, name in enumerate(NAMES[:players])]
        return RecordingSession.start(sink, seats, preset, game_id=game_id)
    except BaseException:
        sink.close()
        raise


def stored(path: Path, game_id: str) -> list[E.Envelope]:
    """The game's events as they are on disk now."""
    if path.suffix == ".duckdb":
        from gostop_records.store import Store

        with Store(path, read_only=True) as st:
            return st.events(game_id)
    if not path.exists():
        return []
    return [e for e in log.read_log(path) if e.game_id == game_id]


def payloads(envs: list[E.Envelope]) -> list[dict[str, Any]]:
    """What two recordings of one game must agree on: the payloads (times aside)."""
    out = []
    for env in envs:
        d = E.payload_to_dict(env.event)
        if d["type"] == "game_started":
            d = {"type": "game_started", "players": d["players"]}
        out.append(d)
    return out


def inputs_before(envs: list[E.Envelope]) -> int:
    """How many of the recorder's entries (inputs but game_started) the events hold."""
    return sum(E.is_input(e.event) and type(e.event) is not E.GameStarted for e in envs)
