"""JSON Schema (2020-12) of the log envelope and of every event payload, from the Structs.

The schemas are generated from the msgspec types in :mod:`gostop_records.events`, so they can
never drift from what the reader accepts; the checked-in copies in ``schemas/`` are for other
programs, and a test fails when they differ from what this module generates (regenerate them
with ``gostop schema``). Output is byte-stable: keys sorted, 2-space indent, a final newline.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from .cards import CODE_FORMS, CODES
from .events import EVENT_TYPES, EVENT_VERSIONS, Envelope

__all__ = [
    "BASE_URI",
    "DIALECT",
    "ENVELOPE_FILE",
    "check",
    "dumps",
    "event_file",
    "generate",
    "write",
]

DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: Stable base of every ``$id``; a schema's ``$id`` is this base plus its path in ``schemas/``.
BASE_URI = "https://gostop-records.example/schemas/"
ENVELOPE_FILE = "envelope.schema.json"

_REF = "#/$defs/{name}"
_CARD_CODES = list(CODES)
_CARD_DEF = {
    "title": "CardCode",
    "description": f"A card in canonical upper case: {CODE_FORMS}.",
    "enum": _CARD_CODES,
}


def event_file(etype: str) -> str:
    """The path of an event type's schema inside ``schemas/``."""
    return f"events/{etype}.schema.json"


def _use_card_def(node: Any) -> Any:
    """Replace every inline enum of the card codes with a reference to ``CardCode``."""
    if isinstance(node, dict):
        if sorted(node.get("enum", ())) == sorted(_CARD_CODES) and len(node) == 1:
            return {"$ref": _REF.format(name="CardCode")}
        return {k: _use_card_def(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_use_card_def(v) for v in node]
    return node


def _refs(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            found.add(ref.removeprefix("#/$defs/"))
        for v in node.values():
            found |= _refs(v)
    elif isinstance(node, list):
        for v in node:
            found |= _refs(v)
    return found


def _document(root: str, comps: dict[str, Any], path: str) -> dict[str, Any]:
    """A self-contained schema: ``root`` at the top, the components it uses under ``$defs``."""
    comps = _use_card_def(comps)
    comps["CardCode"] = _CARD_DEF
    body = dict(comps[root])
    needed: set[str] = set()
    todo = _refs(body)
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo |= _refs(comps[name])
    doc: dict[str, Any] = {"$schema": DIALECT, "$id": BASE_URI + path, **body}
    if needed:
        doc["$defs"] = {name: comps[name] for name in sorted(needed)}
    return doc


def generate() -> dict[str, dict[str, Any]]:
    """Every schema document by its path inside ``schemas/``."""
    out: dict[str, dict[str, Any]] = {}
    (_,), comps = msgspec.json.schema_components([Envelope], ref_template=_REF)
    out[ENVELOPE_FILE] = _document("Envelope", comps, ENVELOPE_FILE)
    for etype, cls in EVENT_TYPES.items():
        (_,), comps = msgspec.json.schema_components([cls], ref_template=_REF)
        doc = _document(cls.__name__, comps, event_file(etype))
        doc["x-version"] = EVENT_VERSIONS[etype]
        out[event_file(etype)] = doc
    return out


def dumps(doc: dict[str, Any]) -> str:
    """The byte-stable text of a schema document."""
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write(out_dir: str | Path) -> list[Path]:
    """Write every schema under ``out_dir``; returns the files written."""
    root = Path(out_dir)
    written = []
    for rel, doc in generate().items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(dumps(doc), encoding="utf-8", newline="\n")
        written.append(p)
    return written


def check(out_dir: str | Path) -> list[str]:
    """How the schemas in ``out_dir`` differ from the generated ones (empty = identical)."""
    root = Path(out_dir)
    expected = generate()
    problems = []
    for rel, doc in expected.items():
        p = root / rel
        if not p.is_file():
            problems.append(f"{rel}: missing")
        elif p.read_text(encoding="utf-8") != dumps(doc):
            problems.append(f"{rel}: differs from the generated schema")
    if root.is_dir():
        for p in sorted(root.rglob("*.schema.json")):
            rel = p.relative_to(root).as_posix()
            if rel not in expected:
                problems.append(f"{rel}: not generated (an event type that no longer exists?)")
    return problems
