"""Which build of the kernel this process runs: compiled (``make native``) or its source.

``build_native.py`` compiles the modules of :data:`KERNEL` with mypyc into one library beside
the package, each module's extension beside its source; Python imports an extension before a
source. The source stays the reference (a property test holds the compiled kernel to it) and
the fallback: :func:`install` makes the package import its sources only when
``GOSTOP_PURE_PYTHON=1`` is set (to run and compare both builds) or when the library is older
than a kernel source (an edit not yet rebuilt: the compiled modules call each other
directly, so they are used all together or not at all).
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

__all__ = ["KERNEL", "built", "compiled", "install", "stale"]

_PACKAGE = __name__.rpartition(".")[0]
_HERE = Path(__file__).parent

#: The modules ``make native`` compiles, relative to the package: the work done once per
#: event (or hand) of a replay, a validation or an import; how they were chosen is in
#: docs/performance.md, "The compiled kernel".
KERNEL = (
    "cards",
    "engine/table",
    "engine/state",
    "engine/moves",
    "engine/capture",
    "engine/ending",
    "engine/deal",
    "engine/scoring",
    "engine/turn",
    "engine/settlement",
    "engine/sitting",
    "engine/game",
    "projector",
    "log/reading",
)


class _SourceOnly(MetaPathFinder):
    """Finds a package's modules as source files, never as compiled extensions, except the
    modules named in ``compiled``, left to the usual finders (this package's, or those of
    its source twin, which the tests load under another name)."""

    def __init__(self, package: str = _PACKAGE, compiled: frozenset[str] = frozenset()) -> None:
        self.prefix = package + "."
        self.compiled = compiled
        self._finders: dict[str, FileFinder] = {}

    def find_spec(
        self, name: str, path: Any = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not name.startswith(self.prefix) or not path or name in self.compiled:
            return None
        for entry in path:
            finder = self._finders.get(entry)
            if finder is None:
                finder = self._finders[entry] = FileFinder(
                    entry, (SourceFileLoader, SOURCE_SUFFIXES)
                )
            spec = finder.find_spec(name, target)
            if spec is not None:
                return spec
        return None


def _library(here: Path) -> list[Path]:
    """The compiled kernel's one library in the package's folder (none before a build)."""
    return [p for p in (here / f"_kernel__mypyc{s}" for s in EXTENSION_SUFFIXES) if p.exists()]


def built(here: Path = _HERE) -> bool:
    """Whether the kernel has been compiled: without its library, an extension beside a
    kernel module is an earlier build's, never imported."""
    return bool(_library(here))


def stale(here: Path = _HERE) -> bool:
    """Whether the compiled library in the package's folder is older than a kernel source."""
    times = [p.stat().st_mtime for p in _library(here)]
    if not times:
        return False
    return any((here / f"{mod}.py").stat().st_mtime > min(times) for mod in KERNEL)


def install() -> None:
    """Make the package import its sources, but for the kernel's fresh extensions: only
    sources when asked to, before a build or when the build is stale, and never an
    extension of a module outside the kernel (one left by an earlier build). Called by the
    package's ``__init__`` before any other of its modules is imported."""
    if any(isinstance(f, _SourceOnly) and f.prefix == _PACKAGE + "." for f in sys.meta_path):
        return
    kernel = frozenset(f"{_PACKAGE}.{mod.replace('/', '.')}" for mod in KERNEL)
    if os.environ.get("GOSTOP_PURE_PYTHON") == "1" or not built() or stale():
        kernel = frozenset()
    sys.meta_path.insert(0, _SourceOnly(_PACKAGE, kernel))


def compiled() -> bool:
    """True when the kernel runs compiled (``make native``), False when it runs as source."""
    from .engine import turn

    return not (turn.__file__ or "").endswith(".py")
