"""Records as plain JSON values: one way for a report, a proof's factor or an audit's
finding to give its fields, so that a ``to_dict`` names only what differs from its fields."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, ClassVar

import msgspec

__all__ = ["Record", "fields_dict", "plain"]


def plain(value: Any) -> Any:
    """Plain JSON values for dataclasses, msgspec structs (an event with its type tag),
    enums, tuples and sets; a record with a ``to_dict`` gives its own."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        to_dict = getattr(value, "to_dict", None)
        return to_dict() if to_dict is not None else fields_dict(value)
    if isinstance(value, msgspec.Struct):
        to_dict = getattr(value, "to_dict", None)
        return to_dict() if to_dict is not None else plain(msgspec.to_builtins(value))
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(plain(v) for v in value)
    return value


def fields_dict(record: Any) -> dict[str, Any]:
    """A dataclass's or msgspec struct's fields by name, in their order, as plain values."""
    if isinstance(record, msgspec.Struct):
        names: tuple[str, ...] = record.__struct_fields__
    else:
        names = tuple(f.name for f in dataclasses.fields(record))
    return {name: plain(getattr(record, name)) for name in names}


class Record:
    """A dataclass or msgspec struct whose ``to_dict`` is its fields as plain values, then
    the properties named in ``DERIVED`` (``ok``, ``agreed``: what a reader would otherwise
    work out again)."""

    __slots__ = ()
    DERIVED: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        out = fields_dict(self)
        for name in self.DERIVED:
            out[name] = plain(getattr(self, name))
        return out
