"""A ruleset from a name, a preset with overrides or a TOML or JSON file; the difference of
two rulesets."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import RulesetError
from .presets import PRESETS, get_preset
from .ruleset import Ruleset, describe_validation


def apply_overrides(base: Ruleset, overrides: dict[str, Any], where: str) -> Ruleset:
    """A preset with some fields replaced; every bad field is named with its allowed values."""
    data = base.model_dump()
    data.update(overrides)
    try:
        return Ruleset.model_validate(data)
    except ValidationError as exc:
        raise RulesetError(describe_validation(where, exc)) from None


def load_ruleset_file(path: str | Path) -> Ruleset:
    """A custom ruleset: ``base = "matgo"`` plus field overrides, in TOML or JSON.

    ``name`` defaults to the file's stem. Rule fields may sit at the top level or under a
    ``[rules]`` table.
    """
    p = Path(path)
    where = str(p)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesetError(f"{where}: cannot read ruleset file: {exc.strerror}") from None
    try:
        data = json.loads(text) if p.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RulesetError(f"{where}: not valid {p.suffix.lstrip('.') or 'TOML'}: {exc}") from None
    if not isinstance(data, dict):
        raise RulesetError(f"{where}: a ruleset file holds a table of fields")
    data = dict(data)
    base_name = data.pop("base", None)
    if base_name is None:
        raise RulesetError(
            f"{where}: field base: missing; name the preset to start from ({', '.join(PRESETS)})"
        )
    if not isinstance(base_name, str) or base_name.lower() not in PRESETS:
        raise RulesetError(
            f"{where}: field base: {base_name!r} is not a preset; presets are {', '.join(PRESETS)}"
        )
    rules = data.pop("rules", {})
    if not isinstance(rules, dict):
        raise RulesetError(f"{where}: field rules: must be a table of fields")
    overrides = {**data, **rules}
    overrides.setdefault("name", p.stem)
    base = PRESETS[base_name.lower()]
    overrides.setdefault("description", f"{base.name} with house overrides from {p.name}")
    return apply_overrides(base, overrides, where)


def resolve(name_or_path: str | Path) -> Ruleset:
    """A preset by name, or a custom ruleset from a file path."""
    s = str(name_or_path)
    if s.strip().lower() in PRESETS:
        return PRESETS[s.strip().lower()]
    if s.endswith((".toml", ".json")) or Path(s).is_file():
        return load_ruleset_file(s)
    return get_preset(s)


def diff(a: Ruleset, b: Ruleset) -> list[tuple[str, Any, Any]]:
    """(field, value in a, value in b) for every rule field that differs."""
    ca, cb = a.content(), b.content()
    return [(k, ca[k], cb[k]) for k in ca if ca[k] != cb[k]]
