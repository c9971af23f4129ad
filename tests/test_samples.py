"""The sample logs: the index is complete, every stated outcome holds, every log validates
strictly (or fails in exactly the stated way), and the generator reproduces every file."""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.errors import ProjectionError
from gostop_records.projector import project

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
INDEX = json.loads((SAMPLES / "index.json").read_text(encoding="utf-8"))
ENTRIES: list[dict[str, Any]] = INDEX["samples"]
CORPUS: dict[str, Any] = INDEX["corpus"]
BY_FILE = {e["file"]: e for e in ENTRIES}


def _ids(entries: list[dict[str, Any]]) -> list[str]:
    return [e["file"] for e in entries]


def test_the_index_lists_every_log_and_every_listed_log_exists() -> None:
    on_disk = {p.name for p in SAMPLES.glob("*.jsonl")}
    listed = [e["file"] for e in ENTRIES] + [CORPUS["file"]]
    assert len(listed) == len(set(listed))
    assert set(listed) == on_disk
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    for name in listed:
        assert f"[{name}]({name})" in readme


def test_the_index_covers_every_situation_of_the_brief() -> None:
    """Each situation is shown by at least one sample (by the events it contains)."""
    have: Counter[str] = Counter()
    for e in ENTRIES:
        have.update(k for k, n in e["features"].items() if n)
    for key in (
        "ppuk_made",
        "cards_captured:ppuk_taken",
        "cards_captured:own_ppuk",
        "cards_captured:ttadak",
        "cards_captured:jjok",
        "junk_transferred:sseul",
        "bomb_played",
        "flip_only_played",
        "shaken",
        "four_of_a_month_shown",
        "deal_voided",
        "bonus_card_taken",
        "cup_assigned",
        "go_called",
        "entry_retracted",
    ):
        assert have[key], key
    rulesets = {(e["ruleset"], e["players"]) for e in ENTRIES}
    assert {
        ("matgo", 2),
        ("gamerules", 2),
        ("gamerules", 3),
        ("cardavia", 2),
        ("gostop3", 3),
    } <= rulesets
    assert {e["validation"] for e in ENTRIES} == {"strict", "lenient", "tampered"}
    gos = {h["go"] for e in ENTRIES for h in e["hands"]}
    assert {1, 2, 3, 4} <= gos


def _read(name: str) -> list[E.Envelope]:
    return list(L.read_log(SAMPLES / name))


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_each_sample_has_its_stated_outcome(entry: dict[str, Any]) -> None:
    envs = _read(entry["file"])
    p = project(envs, strict=entry["validation"] != "lenient")
    assert p.game is not None
    assert all(r.state is not None for r in p.game.results if r.outcome != "unchecked")
    gen = _generator()  # the index's form of outcomes and features, defined once there
    assert gen.outcomes(p) == entry["hands"]
    started = envs[0].event
    assert isinstance(started, E.GameStarted)
    assert started.ruleset["name"] == entry["ruleset"]
    assert len(started.players) == entry["players"] and started.stake == entry["stake"]
    assert envs[0].game_id == entry["game_id"]
    seen = gen.features(envs)
    for key, n in entry["features"].items():
        assert seen[key] == n, key


STRICT = [e for e in ENTRIES if e["validation"] == "strict"]


@pytest.mark.parametrize("entry", STRICT, ids=_ids(STRICT))
def test_each_sample_validates_strictly(entry: dict[str, Any]) -> None:
    path = SAMPLES / entry["file"]
    assert L.verify_file(path).ok
    p = project(_read(entry["file"]))
    assert p.ok and not p.issues


def test_the_lenient_sample_fails_strictly_in_the_stated_way() -> None:
    (entry,) = [e for e in ENTRIES if e["validation"] == "lenient"]
    want = entry["failure"]
    envs = _read(entry["file"])
    assert L.verify_file(SAMPLES / entry["file"]).ok  # sealed: only the rules object
    with pytest.raises(ProjectionError) as exc:
        project(envs)
    assert (exc.value.seq, exc.value.rule) == (want["seq"], want["rule"])
    p = project(envs, strict=False)
    assert [(i.seq, i.rule) for i in p.issues if i.severity == "violation"] == [
        (want["seq"], want["rule"])
    ]


def test_the_tampered_sample_breaks_its_chain_at_the_stated_seq() -> None:
    (entry,) = [e for e in ENTRIES if e["validation"] == "tampered"]
    result = L.verify_file(SAMPLES / entry["file"])
    assert not result.ok
    assert result.first_bad_seq == entry["failure"]["seq"]
    assert "changed after it was sealed" in result.reason


def test_the_corpus_validates_and_matches_its_index() -> None:
    path = SAMPLES / CORPUS["file"]
    chain = L.verify_file(path)
    assert chain.ok and chain.games == CORPUS["stats"]["games"]
    outcomes: Counter[str] = Counter()
    presets = set()
    envs = _read(CORPUS["file"])
    for _, game in L.iter_games(envs):
        p = project(game)
        assert p.ok and p.game is not None
        outcomes.update(r.outcome for r in p.game.results)
        presets.add((p.game.rules.name, p.game.table.players))
    assert dict(sorted(outcomes.items())) == CORPUS["stats"]["outcomes"]
    assert len(envs) == CORPUS["stats"]["events"]
    assert presets == {
        ("matgo", 2),
        ("gamerules", 2),
        ("gamerules", 3),
        ("cardavia", 2),
        ("gostop3", 3),
    }


@functools.cache
def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_samples", SAMPLES / "make_samples.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["make_samples"] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules["make_samples"]
    return mod


def test_the_generator_reproduces_every_file() -> None:
    files = _generator().generate()
    assert set(files) == {p.name for p in SAMPLES.glob("*.jsonl")} | {"index.json", "README.md"}
    for name, data in files.items():
        assert (SAMPLES / name).read_bytes() == data, f"samples/{name} is out of date"
