"""``gostop validate``: exit codes and messages on good and bad logs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from gostop_cli.app import app
from typer.testing import CliRunner, Result

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log as L
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_game

runner = CliRunner()


def validate(*args: str) -> Result:
    return runner.invoke(app, ["validate", *args])


@pytest.fixture
def envs() -> list[E.Envelope]:
    return play_game(GameSpec(PRESETS["matgo"], 2, 1, 3))


def _write(path: Path, envs: list[E.Envelope]) -> Path:
    L.write_log(path, envs)
    return path


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _first(envs: list[E.Envelope], cls: type) -> int:
    return next(i for i, e in enumerate(envs) if type(e.event) is cls)


def _tamper(envs: list[E.Envelope], i: int, **changes: Any) -> list[E.Envelope]:
    """The log with one payload changed and the chain sealed again (a rules problem only)."""
    out = list(envs)
    out[i] = msgspec.structs.replace(out[i], event=msgspec.structs.replace(out[i].event, **changes))
    return L.seal(out)


def test_a_valid_log(tmp_path: Path, envs: list[E.Envelope]) -> None:
    path = _write(tmp_path / "ok.jsonl", envs)
    res = validate(str(path))
    assert res.exit_code == 0
    assert res.stdout.strip() == (f"1 file(s), 1 game(s), {len(envs)} event(s): 0 error(s): valid")
    res = validate(str(path), "--json")
    data = json.loads(res.stdout)
    assert data == {
        "valid": True,
        "files": 1,
        "games": 1,
        "events": len(envs),
        "errors": [],
        "warnings": [],
        "signed": [],
    }


def test_malformed_line(tmp_path: Path, envs: list[E.Envelope]) -> None:
    path = _write(tmp_path / "bad.jsonl", envs)
    lines = _lines(path)
    lines[4] = b'{"game_id": "x", "seq": \n'
    path.write_bytes(b"".join(lines))
    res = validate(str(path))
    assert res.exit_code == 1
    out = res.stdout.splitlines()
    assert out[0].startswith(f"{path}:5: not valid JSON")
    assert out[0].endswith("[rule: decode]")
    # the gap it leaves is named by the chain and the rules checks
    assert any("seq 6 follows seq 4: 5 is missing [rule: hash_chain]" in ln for ln in out)
    assert out[-1].endswith("INVALID")
    assert "error(s) found" in res.stderr


def test_unknown_card(tmp_path: Path, envs: list[E.Envelope]) -> None:
    path = _write(tmp_path / "bad.jsonl", envs)
    i = _first(envs, E.CardPlayed)
    lines = _lines(path)
    card = envs[i].event.card
    lines[i] = lines[i].replace(f'"card":"{card}"'.encode(), b'"card":"13X"')
    path.write_bytes(b"".join(lines))
    res = validate(str(path))
    assert res.exit_code == 1
    assert (
        f"{path}:{i + 1}: seq {envs[i].seq}: field event.card: unknown card code '13X' "
        "[rule: decode]"
    ) in res.stdout


def test_broken_hash_chain(tmp_path: Path, envs: list[E.Envelope]) -> None:
    path = _write(tmp_path / "bad.jsonl", envs)
    i = _first(envs, E.PaymentRecorded)
    chips = envs[i].event.chips
    lines = _lines(path)
    lines[i] = lines[i].replace(f'"chips":{chips}'.encode(), f'"chips":{chips // 2}'.encode())
    path.write_bytes(b"".join(lines))
    res = validate(str(path))
    assert res.exit_code == 1
    gid = envs[0].game_id
    assert (
        f"{path}:{i + 1}: game {gid} seq {envs[i].seq}: hash does not "
        "match the content (changed after it was sealed) [rule: hash_chain]"
    ) in res.stdout
    # the payment itself is legal: the chain is the only error
    assert "1 error(s)" in res.stdout


def test_rules_violation_strict_and_lenient(tmp_path: Path, envs: list[E.Envelope]) -> None:
    caps = [i for i, e in enumerate(envs) if type(e.event) is E.CardsCaptured]
    a, b = caps[0], caps[-1]
    ev = envs[a].event
    other = next(c for c in C.codes(C.MONTH_MASKS[12]) if c not in ev.cards)
    bad = _tamper(envs, a, cards=[ev.cards[0], other])
    bad = _tamper(bad, b, kind="ttadak")
    path = _write(tmp_path / "bad.jsonl", bad)
    gid = envs[0].game_id

    res = validate(str(path))
    assert res.exit_code == 1
    errors = [ln for ln in res.stdout.splitlines() if "[rule:" in ln]
    assert len(errors) == 1  # strict: the first error of the game
    assert errors[0].startswith(
        f"{path}:{a + 1}: game {gid} seq {envs[a].seq}: the log records cards_captured"
    )
    assert errors[0].endswith("[rule: derive_cards_captured]")

    res = validate(str(path), "--lenient", "--json")
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    assert not data["valid"]
    where = [(e["line"], e["seq"], e["rule"]) for e in data["errors"]]
    assert (a + 1, envs[a].seq, "derive_cards_captured") in where
    assert (b + 1, envs[b].seq, "derive_cards_captured") in where
    assert all(e["file"] == str(path) and e["game_id"] == gid for e in data["errors"])


def test_an_impossible_input(tmp_path: Path, envs: list[E.Envelope]) -> None:
    i = _first(envs, E.CardFlipped)
    deal = envs[_first(envs, E.CardsDealt)].event
    wrong = next(c for c in deal.stock if c != envs[i].event.card)
    path = _write(tmp_path / "bad.jsonl", _tamper(envs, i, card=wrong))
    res = validate(str(path))
    assert res.exit_code == 1
    assert f":{i + 1}: game {envs[0].game_id} seq {envs[i].seq}: the next stock card is" in (
        res.stdout
    )
    assert "[rule: flip_is_stock_top]" in res.stdout


def test_several_files_and_unreadable_ones(tmp_path: Path, envs: list[E.Envelope]) -> None:
    good = _write(tmp_path / "good.jsonl", envs)
    torn = _write(tmp_path / "torn.jsonl", envs)
    torn.write_bytes(torn.read_bytes()[:-30])
    res = validate(str(good), str(torn), str(tmp_path / "missing.jsonl"), str(tmp_path / "x.txt"))
    assert res.exit_code == 1
    out = res.stdout
    assert f"{torn}:{len(envs)}: the last line is incomplete" in out
    assert f"{tmp_path / 'missing.jsonl'}: cannot read" in out
    assert "unknown log format '.txt'" in out
    assert str(good) not in out.replace(str(tmp_path / "good.jsonl") + ":", "!")  # no findings
    assert out.splitlines()[-1].startswith("4 file(s), 2 game(s)")
    res = validate(str(good), str(good))
    assert res.exit_code == 0 and "2 file(s), 2 game(s)" in res.stdout


def test_unknown_event_types_are_warnings(tmp_path: Path, envs: list[E.Envelope]) -> None:
    path = _write(tmp_path / "newer.jsonl", envs)
    extra = L.Chain(envs[-1].hash).seal(
        L.envelope(
            envs[0].game_id,
            len(envs) + 1,
            1,
            E.UnknownEvent("table_photo", {"type": "table_photo", "url": "x"}),
            by="t",
            at="2026-01-01T00:00:00.000Z",
            recorded_at="2026-01-01T00:00:00.000Z",
        )
    )
    with open(path, "ab") as f:
        f.write(L.encode_json(extra) + b"\n")
    res = validate(str(path))
    assert res.exit_code == 0, res.stdout
    assert "warning:" in res.stdout and "table_photo" in res.stdout
    assert "1 warning(s): valid" in res.stdout


def test_a_folder_is_searched_for_logs(tmp_path: Path) -> None:
    from gostop_records import log as L
    from gostop_records.rules import PRESETS
    from gostop_records.sim.selfplay import GameSpec, play_game
    from gostop_records.validate import validate_files

    sub = tmp_path / "logs" / "june"
    sub.mkdir(parents=True)
    for seed in (1, 2):
        L.write_jsonl(sub / f"g{seed}.jsonl", play_game(GameSpec(PRESETS["matgo"], 2, 1, seed)))
    (sub / "notes.txt").write_text("not a log")
    report = validate_files([tmp_path / "logs"])
    assert report.valid and report.files == 2 and report.games == 2
