"""Event-sourced records of Go-Stop and matgo games: typed events in a hash-chained log, a
rules engine that replays them, and a store of tables for queries.

The names below are the library's front door (each loaded when first used, so that
``import gostop_records`` stays cheap); the rest lives in the modules named in
docs/reference.md. ``compiled()`` tells whether the kernel runs compiled (``make native``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from . import _native

# before any other module of the package is imported: GOSTOP_PURE_PYTHON=1 or a stale
# compiled build makes the package import its sources only
_native.install()

if TYPE_CHECKING:
    from . import events, log
    from .events import Envelope
    from .games import load_game
    from .projector import Projection, project
    from .replay import Timeline, timeline
    from .validate import Report, validate_files

__all__ = [
    "Envelope",
    "Projection",
    "Report",
    "Timeline",
    "compiled",
    "events",
    "load_game",
    "log",
    "project",
    "timeline",
    "validate_files",
]

compiled = _native.compiled

#: Where each public name is defined: a module (None: the module itself).
_HOMES: dict[str, tuple[str, str | None]] = {
    "events": ("events", None),
    "log": ("log", None),
    "Envelope": ("events", "Envelope"),
    "load_game": ("games", "load_game"),
    "Projection": ("projector", "Projection"),
    "project": ("projector", "project"),
    "Timeline": ("replay", "Timeline"),
    "timeline": ("replay", "timeline"),
    "Report": ("validate", "Report"),
    "validate_files": ("validate", "validate_files"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attr = _HOMES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    found = import_module(f".{module}", __name__)
    value = found if attr is None else getattr(found, attr)
    globals()[name] = value
    return value
