"""A store for the reading pages' tests: the mixed corpus and a few samples (a disputed
payment, three players, a nagari, a record kept leniently with a rule broken), served by
the table service's own app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gostop_records.store import Store

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
STRICT = (
    "corpus-mixed",
    "disputed-payment",
    "three-players",
    "nagari-carry",
    "bomb",
    "live-record",
)
LENIENT = ("lenient-card-not-held",)
DISPUTED = "sample-disputed-payment"


def build_store(db: Path) -> Path:
    """Import the samples into ``db``; the path back."""
    with Store(db) as store:
        report = store.import_paths([SAMPLES / f"{n}.jsonl" for n in STRICT])
        assert report.ok, report.summary()
        report = store.import_paths([SAMPLES / f"{n}.jsonl" for n in LENIENT], strict=False)
        assert report.ok, report.summary()
    return db


def query(client: Any, sql: str) -> list[list[Any]]:
    """SQL on the store an app holds, through its read-only query route."""
    r = client.post("/api/query", json={"sql": sql, "limit": 100000})
    assert r.status_code == 200, r.text
    return r.json()["rows"]  # type: ignore[no-any-return]
