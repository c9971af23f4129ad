"""How a row type says its columns: Python types with the SQL type where it is more specific,
a description per field, and the columns the rulebook makes.

A field is ``Annotated[T, about("...")]``. ``T`` gives the DuckDB type (:data:`SQL_TYPES`:
``str`` is VARCHAR, ``int`` INTEGER, ``bool`` BOOLEAN, ``bytes`` BLOB, ``datetime.date``
DATE, ``list[str]`` VARCHAR[]); :data:`Tiny`, :data:`Small`, :data:`Big`, :data:`Date` and
:data:`Json` carry a narrower type as an :class:`SqlType` in their ``Annotated`` extras.
``T | None`` is the column of type ``T``, NULL where the row leaves it empty. In SQL every
column but those ``events`` declares ``NOT NULL`` may be NULL; the row types built by name
(``hands``, ``payouts``) mark each such field ``| None``, the others say in their
descriptions when a value is NULL.
"""

from __future__ import annotations

import datetime as _dt
import inspect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

import msgspec

from ...engine import rulebook as RB

__all__ = [
    "COMBO_IDS",
    "DOKBAK_ID",
    "FLAG_IDS",
    "SPECIAL_KINDS",
    "SQL_TYPES",
    "Big",
    "Columns",
    "Date",
    "Json",
    "Small",
    "SqlType",
    "Tiny",
    "about",
    "column_docs",
    "rule_fields",
    "sql_columns",
    "stop_only",
    "table_doc",
    "table_row",
]

Columns = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class SqlType:
    """The DuckDB type of a column where the Python type alone says too little."""

    name: str


Tiny = Annotated[int, SqlType("TINYINT")]
Small = Annotated[int, SqlType("SMALLINT")]
Big = Annotated[int, SqlType("BIGINT")]
#: JSON text (the payload, exactly as it was hashed).
Json = Annotated[str, SqlType("JSON")]
#: A date as ISO text (``YYYY-MM-DD``), as the rows give it; the column casts it (a bad one
#: becomes NULL).
Date = Annotated[str, SqlType("DATE")]

#: The DuckDB type of each plain Python type of a field.
SQL_TYPES: dict[Any, str] = {
    str: "VARCHAR",
    int: "INTEGER",
    bool: "BOOLEAN",
    bytes: "BLOB",
    _dt.date: "DATE",
    list[str]: "VARCHAR[]",
}

#: ``scores`` has a ``<id>_points`` column per combination of the rulebook, in its order.
COMBO_IDS: tuple[str, ...] = tuple(c.id for c in RB.COMBINATIONS)
#: ``payouts`` has a BOOLEAN column per multiplier that has one (``column = True``), after
#: ``multiplier``, and one for dokbak at the end.
FLAG_IDS: tuple[str, ...] = tuple(m.id for m in RB.MULTIPLIERS if m.column)
DOKBAK_ID = RB.DOKBAK.id
#: The special plays counted per seat (columns of ``v_specials_by_seat`` and ``hand_seats``);
#: the payout flags (:data:`FLAG_IDS`) are counted as bak paid and received.
SPECIAL_KINDS = ("ppuk", "jjok", "ttadak", "sseul", "bomb", "shake")

_STOP_ONLY = "NULL except on a loser's row of a hand won by a Stop"


def about(text: str) -> msgspec.Meta:
    """A column's description (the SQL reference's text and the Arrow field's metadata)."""
    return msgspec.Meta(description=text)


#: The key columns most tables share, each said once.
GameId = Annotated[str, about("the game")]
HandNo = Annotated[int, about("the hand")]
SeatNo = Annotated[Tiny, about("0-based seat")]


def stop_only(text: str) -> msgspec.Meta:
    """The description of a ``payouts`` column that only a loser's row of a Stop fills."""
    return about(f"{text}; {_STOP_ONLY}")


def rule_fields(
    pairs: Iterable[tuple[str, str]], kind: Any, describe: Any = about
) -> list[tuple[str, Any]]:
    """Fields made per rule: ``(column, description)`` pairs, all of type ``kind``."""
    return [(name, Annotated[kind, describe(text)]) for name, text in pairs]


def _fields_of(part: type[msgspec.Struct] | Sequence[tuple[str, Any]]) -> list[tuple[str, Any]]:
    if isinstance(part, type):
        return [(f.name, f.type) for f in msgspec.structs.fields(part)]
    return list(part)


def table_row(
    name: str, doc: str, *parts: type[msgspec.Struct] | Sequence[tuple[str, Any]]
) -> type[msgspec.Struct]:
    """A row type whose fields are those of ``parts`` in order.

    For tables whose columns are partly made by the rulebook (a column per combination,
    per multiplier flag): the fixed columns are declared in classes as usual, the rule's
    columns come from :func:`rule_fields`, and this joins them in column order.
    """
    fields: list[tuple[str, Any]] = [f for part in parts for f in _fields_of(part)]
    return msgspec.defstruct(name, fields, namespace={"__doc__": doc}, module=__name__)


def _sql_type(annotation: Any) -> str:
    if get_origin(annotation) in (Union, UnionType):
        kinds = [a for a in get_args(annotation) if a is not type(None)]
        if len(kinds) == 1:  # ``T | None``: a column of T
            return _sql_type(kinds[0])
    if get_origin(annotation) is Annotated:
        base, *extras = get_args(annotation)
        for extra in extras:
            if isinstance(extra, SqlType):
                return extra.name
        return _sql_type(base)
    try:
        return SQL_TYPES[annotation]
    except KeyError:
        raise TypeError(f"no SQL type for the annotation {annotation!r}") from None


def sql_columns(row: type[msgspec.Struct]) -> Columns:
    """``(column, DuckDB type)`` of a row type, in column order."""
    return tuple((f.name, _sql_type(f.type)) for f in msgspec.structs.fields(row))


def _description(annotation: Any) -> str:
    if get_origin(annotation) is Annotated:
        for extra in get_args(annotation)[1:]:
            if isinstance(extra, msgspec.Meta) and extra.description:
                return extra.description
    return ""


def column_docs(row: type[msgspec.Struct]) -> dict[str, str]:
    """Each column's description, in column order."""
    return {f.name: _description(f.type) for f in msgspec.structs.fields(row)}


def table_doc(row: type[msgspec.Struct]) -> str:
    """The table's description: the row type's docstring as one paragraph."""
    return " ".join(inspect.cleandoc(row.__doc__ or "").split())
