"""The audit reads the note the table wrote with a payment: the explanation it names ranks
first and is marked, and the note is shown (text and JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
from pty_support import Terminal

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.audit import audit_game
from gostop_records.audit.explain import note_score

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "disputes" / "bomb.jsonl"


def _with_note(tmp_path: Path, note: str | None) -> Path:
    """The bomb dispute with another note on its payment (the chain sealed again)."""
    envs = []
    for env in L.read_log(SAMPLE):
        if isinstance(env.event, E.PaymentRecorded):
            env = msgspec.structs.replace(env, event=msgspec.structs.replace(env.event, note=note))
        envs.append(msgspec.structs.replace(env, prev=None, hash=None))
    out = tmp_path / "bomb.jsonl"
    L.write_log(out, L.seal(envs))
    return out


def _explained(path: Path) -> list[tuple[tuple[str, ...], bool]]:
    audit = audit_game(L.read_log(path))
    (pc,) = [p for h in audit.hands for p in h.payments if p.status == "differs"]
    return [(e.settings, e.matches_note) for e in pc.explanations]


def test_the_note_ranks_the_explanation_it_names_first(tmp_path: Path) -> None:
    plain = _explained(_with_note(tmp_path, None))
    assert [s for s, _ in plain][:2] == [("bomb_multiplier",), ("pi_bak_max_units",)]
    assert not any(m for _, m in plain)
    noted = _explained(_with_note(tmp_path, "we play pi-bak up to 8 junk units"))
    assert noted[0] == (("pi_bak_max_units",), True)
    assert [s for s, _ in noted][1:] == [s for s, _ in plain if s != ("pi_bak_max_units",)]
    assert not any(m for _, m in noted[1:])


def test_audit_at_a_terminal_shows_the_note(tmp_path: Path) -> None:
    path = _with_note(tmp_path, "we play pi-bak up to 8 junk units")
    term = Terminal("audit", str(path), cols=200)
    term.expect(r"the table noted: we play pi-bak up to 8 junk units")
    term.expect(r"1\. the table appears to have used pi-bak with a threshold of at most 8 junk")
    term.expect(r"\(as the table noted\)")
    assert term.wait() == 1  # the payment disagrees
    from gostop_cli.app import app
    from typer.testing import CliRunner

    res = CliRunner().invoke(app, ["audit", str(path), "--json"])
    pc = [p for h in json.loads(res.stdout)["hands"] for p in h["payments"] if p["notes"]]
    assert pc[0]["notes"] == ["we play pi-bak up to 8 junk units"]
    assert pc[0]["explanations"][0]["matches_note"] is True


def test_note_score() -> None:
    assert note_score(["we play no pi-bak"], ["no pi-bak"]) == 1.0
    assert note_score(["we play no pi-bak"], ["x2 per bomb", "bomb_multiplier"]) == 0.0
    assert note_score([], ["no pi-bak"]) == 0.0
    assert 0 < note_score(["pi-bak"], ["pi-bak with a threshold of at most 8 junk units"]) < 0.5
