"""Event-sourced records of Go-Stop and matgo games.

``make native`` compiles the replay's hot modules with mypyc (``build_native.py``), each
extension beside its source; the source stays the reference and the fallback. This package
imports its modules from source only when ``GOSTOP_PURE_PYTHON=1`` is set (to run and compare
both builds) and when any extension is older than its source (an edit not yet rebuilt: the
compiled modules call each other directly, so they are used all together or not at all).
"""

from __future__ import annotations

import os
import sys
from importlib.abc import MetaPathFinder
from importlib.machinery import (
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    FileFinder,
    ModuleSpec,
    SourceFileLoader,
)
from pathlib import Path
from types import ModuleType
from typing import Any

#: The modules ``build_native.py`` compiles, relative to this package.
NATIVE_MODULES = (
    "cards",
    "engine/table",
    "engine/moves",
    "engine/ending",
    "engine/deal",
    "engine/capture",
    "engine/turn",
    "engine/state",
    "engine/sitting",
    "engine/game",
    "engine/scoring",
    "engine/settlement",
    "engine/rulebook/base",
    "engine/rulebook/combinations",
    "engine/rulebook/go",
    "engine/rulebook/instants",
    "engine/rulebook/multipliers",
    "engine/rulebook/seats",
    "projector",
    "log/lead",
    "log/links",
    "log/lines",
    "store/projections",
    "store/hand_rows",
    "log/checked",
)


class _SourceOnly(MetaPathFinder):
    """Finds this package's modules as source files, never as compiled extensions."""

    def find_spec(
        self, name: str, path: Any = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not name.startswith(__name__ + ".") or not path:
            return None
        for entry in path:
            spec = FileFinder(entry, (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(name, target)
            if spec is not None:
                return spec
        return None


def _stale() -> bool:
    """Whether the compiled build (its one library of native code) is older than a source."""
    here = Path(__file__).parent
    built = [here / f"_native__mypyc{suffix}" for suffix in EXTENSION_SUFFIXES]
    times = [p.stat().st_mtime for p in built if p.exists()]
    if not times:
        return False
    return any((here / f"{mod}.py").stat().st_mtime > min(times) for mod in NATIVE_MODULES)


def compiled() -> bool:
    """True when the replay's hot modules run compiled (see ``build_native.py``)."""
    from .engine import turn

    return not (turn.__file__ or "").endswith(".py")


if (os.environ.get("GOSTOP_PURE_PYTHON") == "1" or _stale()) and not any(
    isinstance(f, _SourceOnly) for f in sys.meta_path
):
    sys.meta_path.insert(0, _SourceOnly())
