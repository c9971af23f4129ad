"""The 33 tampering cases a valid hash chain cannot show (``stress/tamper_seals.py``): each
is caught by the signatures, the seal written down, the store's heads chain or its seal."""

from __future__ import annotations

from pathlib import Path

from stress import tamper
from stress.tamper_seals import CASES, seal_tampering


def test_every_tampering_case_is_caught(tmp_path: Path) -> None:
    assert len(CASES) == 33
    assert {c.by for c in CASES} == {"signatures", "seal", "heads", "store seal", "import"}
    fig = seal_tampering(tmp_path, rounds=1)
    assert fig.failures == [] and fig.ok, fig.failures
    assert (fig.trials, fig.survived, fig.lost, fig.tracebacks) == (33, 33, 0, 0)


def test_make_stress_loads_the_probe() -> None:
    tamper.load_plugins()
    assert any(p.__name__ == "seals_signatures_heads" for p in tamper.PROBES)
