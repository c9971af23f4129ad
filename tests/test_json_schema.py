"""JSON Schemas: the checked-in files are what the code generates, and they validate logs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from gostop_records import json_schema, log
from gostop_records.events import EVENT_TYPES, Envelope

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"


@pytest.fixture(scope="module")
def generated() -> dict[str, dict[str, Any]]:
    return json_schema.generate()


def _validator(doc: dict[str, Any]) -> Draft202012Validator:
    Draft202012Validator.check_schema(doc)
    return Draft202012Validator(doc)


def test_checked_in_schemas_are_up_to_date() -> None:
    problems = json_schema.check(SCHEMAS)
    assert not problems, (
        "schemas/ differs from the generated schemas; run `gostop schema` (or `make schemas`) "
        "and commit the result:\n" + "\n".join(problems)
    )


def test_one_schema_per_event_type_plus_the_envelope(generated: dict[str, Any]) -> None:
    expected = {json_schema.ENVELOPE_FILE} | {json_schema.event_file(t) for t in EVENT_TYPES}
    assert set(generated) == expected


def test_documents_are_2020_12_with_ids_and_titles(generated: dict[str, Any]) -> None:
    for rel, doc in generated.items():
        assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert doc["$id"] == json_schema.BASE_URI + rel
        assert doc["title"] and doc["description"]
        Draft202012Validator.check_schema(doc)
    assert generated[json_schema.ENVELOPE_FILE]["title"] == "Envelope"
    assert generated["events/card_played.schema.json"]["title"] == "CardPlayed"


def test_output_is_byte_stable(generated: dict[str, Any], tmp_path: Path) -> None:
    text = json_schema.dumps(generated[json_schema.ENVELOPE_FILE])
    assert text.endswith("}\n") and text.startswith('{\n  "$defs"')
    assert json_schema.dumps(json_schema.generate()[json_schema.ENVELOPE_FILE]) == text
    json_schema.write(tmp_path)
    first = {p: p.read_bytes() for p in tmp_path.rglob("*.json")}
    json_schema.write(tmp_path)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.json")} == first
    assert json_schema.check(tmp_path) == []


def test_check_names_stale_missing_and_extra_files(tmp_path: Path) -> None:
    json_schema.write(tmp_path)
    (tmp_path / "events" / "card_played.schema.json").write_text("{}\n")
    (tmp_path / "events" / "go_called.schema.json").unlink()
    (tmp_path / "events" / "tile_played.schema.json").write_text("{}\n")
    assert json_schema.check(tmp_path) == [
        "events/card_played.schema.json: differs from the generated schema",
        "events/go_called.schema.json: missing",
        "events/tile_played.schema.json: not generated (an event type that no longer exists?)",
    ]


def test_real_envelopes_validate(sample_log: list[Envelope], generated: dict[str, Any]) -> None:
    envelope = _validator(generated[json_schema.ENVELOPE_FILE])
    for env in sample_log:
        d = json.loads(log.encode_json(env))
        envelope.validate(d)
        _validator(generated[json_schema.event_file(env.type)]).validate(d["event"])


def _errors(validator: Draft202012Validator, doc: Any) -> list[str]:
    return [e.message for e in validator.iter_errors(doc)]


def test_wrong_envelopes_are_rejected(
    sample_log: list[Envelope], generated: dict[str, Any]
) -> None:
    envelope = _validator(generated[json_schema.ENVELOPE_FILE])
    played = _validator(generated["events/card_played.schema.json"])
    good = json.loads(log.encode_json(sample_log[7]))
    assert good["event"]["type"] == "card_played"

    bad_card = json.loads(json.dumps(good))
    bad_card["event"]["card"] = "13G"
    assert _errors(envelope, bad_card)
    assert any("'13G' is not one of" in m for m in _errors(played, bad_card["event"]))

    no_seq = dict(good)
    del no_seq["seq"]
    assert "'seq' is a required property" in _errors(envelope, no_seq)

    no_card = json.loads(json.dumps(good))
    del no_card["event"]["card"]
    assert _errors(envelope, no_card)
    assert "'card' is a required property" in _errors(played, no_card["event"])

    bad_seq = dict(good, seq=0)
    assert _errors(envelope, bad_seq)
    unknown_type = json.loads(json.dumps(good))
    unknown_type["event"]["type"] = "card_teleported"
    assert _errors(envelope, unknown_type)


def test_card_codes_are_one_shared_definition(generated: dict[str, Any]) -> None:
    env = generated[json_schema.ENVELOPE_FILE]
    assert "CardCode" in env["$defs"]
    assert len(env["$defs"]["CardCode"]["enum"]) == 53
    text = json.dumps(env)
    assert text.count('"12D"') == 1
    note = generated["events/note_added.schema.json"]
    assert "$defs" not in note  # nothing to share
    assert note["x-version"] == 1
