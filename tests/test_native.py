"""The compiled kernel (``make native``) and its pure-Python source give the same results.

The source is the reference: its twin is loaded here from the package's own files under
another name (``gostop_twin``, every module from source), so the property test replays each
generated game through both in one process, the compiled package and its twin, and asserts
the same checked read (envelopes, hashes, errors) and the same replay (scores, proofs,
payouts, issues, refusals), on the games as played and on copies with one fact changed.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gostop_records
from gostop_records import _native
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import simulate

_PACKAGE_DIR = Path(gostop_records.__file__).parent
_TWIN = "gostop_twin"


def _twin() -> ModuleType:
    """The package loaded a second time from its sources alone, as ``gostop_twin``."""
    if _TWIN in sys.modules:
        return sys.modules[_TWIN]
    finder = _native._SourceOnly(_TWIN)
    sys.meta_path.insert(0, finder)
    spec = importlib.util.spec_from_file_location(
        _TWIN, _PACKAGE_DIR / "__init__.py", submodule_search_locations=[str(_PACKAGE_DIR)]
    )
    assert spec is not None and spec.loader is not None
    twin = importlib.util.module_from_spec(spec)
    sys.modules[_TWIN] = twin
    spec.loader.exec_module(twin)
    return twin


def _kernel_of(pkg: ModuleType) -> tuple[Any, Any, Any, Any]:
    """The kernel's entries in one package: the checked read, the game runs, the replay and
    the rules' refusal."""
    name = pkg.__name__
    reading = importlib.import_module(f"{name}.log.reading")
    chain = importlib.import_module(f"{name}.log.chain")
    projector = importlib.import_module(f"{name}.projector")
    errors = importlib.import_module(f"{name}.errors")
    return reading, chain, projector, errors


def _what_it_says(pkg: ModuleType, lines: list[bytes]) -> dict[str, Any]:
    """Everything the kernel reports of a log: each record of the checked read (line,
    envelope or error, hash ok), and each game's strict and lenient replay."""
    reading, chain, projector, errors = _kernel_of(pkg)
    read: list[Any] = []
    envs = []
    for lineno, env, ok in reading.checked_records(lines, "log.jsonl", True, True):
        if isinstance(env, errors.LogError):
            read.append([lineno, str(env), ok])
        else:
            read.append([lineno, msgspec.to_builtins(env), ok])
            envs.append(env)
    games = []
    for gid, game in chain.iter_games(envs):
        try:
            strict = projector.project(game, strict=True).events
            refused = None
        except errors.GostopError as exc:
            strict, refused = None, str(exc)
        try:
            p = projector.project(game, strict=False)
        except errors.GostopError as exc:  # a log even a lenient replay cannot follow
            games.append({"game": gid, "refused": refused, "unreadable": str(exc)})
            continue
        g = p.game
        hands = []
        for r in [] if g is None else g.results:
            proof = None if r.proof() is None else msgspec.to_builtins(r.proof())
            dues = [list(d) for d in r.dues]
            hands.append([r.hand, r.dealer, r.outcome, r.winner, r.reason, r.carry, dues, proof])
            hands[-1].append(r.next_carry)
        games.append(
            {
                "game": gid,
                "strict": strict,
                "refused": refused,
                "issues": [[i.seq, i.rule, i.reason, i.severity, i.hand] for i in p.issues],
                "hands": hands,
                "carry": None if g is None else g.carry,
                "payments": None if g is None else [list(x) for x in g.payments],
                "retracted": p.retracted,
            }
        )
    return {"read": read, "games": games}


#: A fact a copy of the game changes, on the first line that has it: (was, becomes).
_CHANGES = (
    (b'"kind":"pair"', b'"kind":"stack"'),
    (b'"points":', b'"points":9'),
    (b'"card":"', b'"card":"1'),
    (b'"seat":0', b'"seat":1'),
    (b'"count":1', b'"count":2'),
    (b'"outcome":"stop"', b'"outcome":"nagari"'),
)


def _lines(preset: str, seed: int, change: int | None, at: int) -> list[bytes]:
    """A simulated game of two hands as JSON Lines, with one fact changed (``change``, on
    the first line from ``at`` that has it) or none."""
    rules = PRESETS[preset]
    seats = rules.seats()[seed % len(rules.seats())]
    enc = msgspec.json.Encoder()
    (log,) = simulate(rules, seats, 1, 2, seed=seed)
    lines = [enc.encode(env) + b"\n" for env in log]
    if change is not None:
        was, becomes = _CHANGES[change]
        for i in range(at % len(lines), len(lines)):
            if was in lines[i]:
                lines[i] = lines[i].replace(was, becomes, 1)
                break
    return lines


@pytest.fixture(scope="module")
def twin() -> ModuleType:
    if not gostop_records.compiled():
        # CI builds with a compiler at hand: there a missing build is a failure, not a skip
        assert os.environ.get("GOSTOP_REQUIRE_NATIVE") != "1", "the native build failed"
        pytest.skip("no compiled build (make native): the package runs as pure Python")
    twin = _twin()
    assert not twin.compiled()
    return twin


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    seed=st.integers(0, 10_000),
    change=st.none() | st.integers(0, len(_CHANGES) - 1),
    at=st.integers(0, 1_000),
)
def test_the_compiled_kernel_says_what_its_source_says(
    twin: ModuleType, preset: str, seed: int, change: int | None, at: int
) -> None:
    lines = _lines(preset, seed, change, at)
    assert _what_it_says(gostop_records, lines) == _what_it_says(twin, lines)


def test_the_twin_is_the_source() -> None:
    """The reference the property test holds the build to runs every module from source,
    beside the installed package, which it leaves as it is."""
    twin = _twin()
    reading, _, projector, _ = _kernel_of(twin)
    assert reading.__file__.endswith(".py") and projector.__file__.endswith(".py")
    assert not twin.compiled()
    assert reading.checked_records is not _kernel_of(gostop_records)[0].checked_records
    # the generated games are games: each replays, and a changed fact is reported
    assert not _what_it_says(twin, _lines("matgo", 3, None, 0))["games"][0]["issues"]
    changed = _what_it_says(twin, _lines("matgo", 3, 0, 0))["games"][0]
    assert changed["refused"] and changed["issues"]


def _build_of_a_fresh_process(env: dict[str, str]) -> bool:
    code = "import gostop_records; print(gostop_records.compiled())"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip() == "True"


def test_pure_python_switch_loads_source_only() -> None:
    env = {**os.environ, "GOSTOP_PURE_PYTHON": "1"}
    assert _build_of_a_fresh_process(env) is False


def test_this_process_runs_the_installed_build() -> None:
    """The suite runs on the compiled kernel when there is a fresh build, and a stale one
    (older than a kernel source) is not used."""
    from gostop_records.engine import turn

    built = list(_PACKAGE_DIR.glob("_kernel__mypyc*"))
    fresh = bool(built) and _native.built() and not _native.stale()
    pure = os.environ.get("GOSTOP_PURE_PYTHON") == "1"
    assert gostop_records.compiled() is (fresh and not pure)
    assert turn.__file__ is not None
    env = {k: v for k, v in os.environ.items() if k != "GOSTOP_PURE_PYTHON"}
    assert _build_of_a_fresh_process(env) is fresh


def test_a_build_older_than_a_kernel_source_is_stale(tmp_path: Path) -> None:
    """An edit not yet rebuilt makes the whole build stale (the package then imports its
    sources); no library at all is no build, whatever extensions an earlier one left."""
    for mod in _native.KERNEL:
        (tmp_path / f"{mod}.py").parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f"{mod}.py").write_text("")
        os.utime(tmp_path / f"{mod}.py", (1000, 1000))
    assert not _native.stale(tmp_path) and not _native.built(tmp_path)
    library = tmp_path / f"_kernel__mypyc{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    library.write_bytes(b"")
    os.utime(library, (2000, 2000))
    assert not _native.stale(tmp_path) and _native.built(tmp_path)
    os.utime(tmp_path / f"{_native.KERNEL[-1]}.py", (3000, 3000))
    assert _native.stale(tmp_path)


def test_only_the_kernel_may_load_compiled(tmp_path: Path) -> None:
    """An extension left beside a module outside the kernel (by an earlier build with a
    longer list) is never imported: the module comes from its source; a kernel module is
    left to the usual finders, which take its extension."""
    for name in ("inside", "outside"):
        (tmp_path / f"{name}.py").write_text("")
        (tmp_path / f"{name}{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    finder = _native._SourceOnly("pkgx", frozenset({"pkgx.inside"}))
    assert finder.find_spec("pkgx.inside", [str(tmp_path)]) is None
    spec = finder.find_spec("pkgx.outside", [str(tmp_path)])
    assert spec is not None and spec.origin == str(tmp_path / "outside.py")
    assert finder.find_spec("other.outside", [str(tmp_path)]) is None


def test_the_public_names_are_there() -> None:
    """``gostop_records`` names its front door, each name loaded when first used."""
    for name in gostop_records.__all__:
        assert getattr(gostop_records, name) is not None, name
    with pytest.raises(AttributeError):
        _ = gostop_records.no_such_name  # type: ignore[attr-defined]
