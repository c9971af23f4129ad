"""The import's scan of a JSON Lines log (``game_runs.scan``) places the lines that begin in the
usual form by their leading bytes; it must find the runs and broken games that decoding
every line finds, whatever the file's shape."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_support import games

from gostop_records import log
from gostop_records.errors import LogError
from gostop_records.log.reading import typed_lines
from gostop_records.store import Store, game_runs
from stress.fuzz import small_pieces

GAMES = games(count=3, hands=1, seed=61)
LINES = [[log.encode_json(e) for e in game[:12]] for game in GAMES]


def _every_line(name: str) -> game_runs.FileScan:
    """The scan as it reads when every line is decoded: the reference."""

    def records() -> Iterator[tuple[int, Any]]:
        with open(name, "rb") as f:
            for lineno, line in log.json_records(f):
                try:
                    yield lineno, game_runs._links_json.decode(line)
                except game_runs._UNREAD:
                    yield lineno, None
                    return

    return game_runs.scan_records(name, records())


def _variant(line: bytes, how: str) -> bytes:
    """A line as another writer may have left it: same content, other bytes."""
    if how == "sorted":  # another key order: not the usual form
        return json.dumps(json.loads(line), sort_keys=True, separators=(",", ":")).encode()
    if how == "spaced":
        return json.dumps(json.loads(line)).encode()
    if how == "crlf":
        return line + b"\r"
    return line


segment = st.tuples(
    st.integers(0, len(GAMES) - 1),  # which game
    st.integers(0, 11),  # from which of its lines
    st.integers(1, 12),  # how many
    st.sampled_from(["usual", "usual", "usual", "sorted", "spaced", "crlf"]),
    st.booleans(),  # a blank line after the segment
)


@st.composite
def files(draw: st.DrawFn) -> bytes:
    out: list[bytes] = []
    for g, start, n, how, blank in draw(st.lists(segment, min_size=1, max_size=8)):
        out += [_variant(x, how) for x in LINES[g][start : start + n]]
        if blank:
            out.append(b"")
    body = b"\n".join(out) + b"\n"
    return (b"\xef\xbb\xbf" + body) if draw(st.booleans()) else body


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=files())
def test_the_scan_finds_what_decoding_every_line_finds(tmp_path: Path, body: bytes) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(body)
    assert game_runs.scan(path) == _every_line(str(path))


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=files(), at=st.integers(0, 200), cut=st.integers(20, 300))
def test_a_damaged_line_changes_nothing_before_it(
    tmp_path: Path, body: bytes, at: int, cut: int
) -> None:
    """A line cut short: decoding every line stops there; the scan, which may count it into
    its run by its leading bytes, agrees on every run before it and on those runs' broken
    games."""
    lines = body.split(b"\n")
    k = at % len(lines)
    lines[k] = lines[k][:cut]
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\n".join(lines))
    fast, full = game_runs.scan(path), _every_line(str(path))
    whole = full.runs[:-1] if full.stop is not None else full.runs  # the last: cut short
    assert fast.runs[: len(whole)] == whole
    for gid, problem in full.broken.items():
        assert fast.broken.get(gid) == problem


def test_game_ids_with_escapes_are_decoded_line_by_line(tmp_path: Path) -> None:
    """Two games whose ids share their bytes up to an escaped quote are two runs."""
    a = json.loads(LINES[0][0])
    b = dict(a)
    a["game_id"], b["game_id"] = 'x\\"a', 'x\\"b'
    lines = [json.dumps(d, separators=(",", ":")).encode() for d in (a, b, a)]
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    scan = game_runs.scan(path)
    assert [r.game_id for r in scan.runs] == ['x\\"a', 'x\\"b', 'x\\"a']
    assert scan == _every_line(str(path))
    assert set(scan.broken) == {'x\\"a'}


def test_a_missing_file_scans_empty(tmp_path: Path) -> None:
    assert game_runs.scan(tmp_path / "gone.jsonl").runs == []


def _naming_two_games(line: bytes, other: str) -> bytes:
    """The line with a second ``game_id`` member at its end."""
    return line.rstrip(b"\n")[:-1] + b',"game_id":"' + other.encode() + b'"}'


def _log_with_line_11_naming_two_games(tmp_path: Path) -> tuple[Path, str, str]:
    game, other = games(count=2, hands=1, seed=31)
    lines = [log.encode_json(e) for e in [*game, *other]]
    lines[10] = _naming_two_games(lines[10], other[0].game_id)
    path = tmp_path / "two.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path, game[0].game_id, other[0].game_id


@pytest.mark.parametrize(
    "read",
    [
        lambda p: list(log.read_checked(p)),  # validate, audit, import
        lambda p: list(typed_lines(p)),  # replay
        lambda p: list(log.iter_jsonl(p)),
    ],
)
def test_every_reader_refuses_a_line_that_names_two_games(tmp_path: Path, read: Any) -> None:
    """The decoder keeps the last of repeated members; the scan places a line by its first
    bytes. A line that begins with one game and names another further on is refused."""
    path, first, second = _log_with_line_11_naming_two_games(tmp_path)
    with pytest.raises(LogError) as caught:
        read(path)
    assert (caught.value.line, caught.value.field) == (11, "game_id")
    assert first in caught.value.reason and second in caught.value.reason


@pytest.mark.parametrize("workers", [0, 2])
def test_an_import_stops_at_a_line_that_names_two_games(tmp_path: Path, workers: int) -> None:
    path, first, _ = _log_with_line_11_naming_two_games(tmp_path)
    with small_pieces(workers > 0), Store(tmp_path / "s.duckdb") as st:
        report = st.import_paths([path], workers=workers)
        assert st.game_ids() == []
    [problem] = report.rejected
    assert (problem.game_id, problem.line) == (first, 11)
    assert "belongs to no one game" in problem.reason
    assert "the rest of the file was not read" in problem.reason


def test_a_run_of_another_game_gives_no_line(tmp_path: Path) -> None:
    """The importer asks for a line by run number and game: a run the scan holds for
    another game answers None rather than a line of that other game."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\n".join([*LINES[0][:3], *LINES[1][:2]]) + b"\n")
    scan = game_runs.scan(path)
    first, second = GAMES[0][0].game_id, GAMES[1][0].game_id
    assert [r.game_id for r in scan.runs] == [first, second]
    assert scan.line_of(1, 1, second) == 5 and scan.line_of_seq(1, 2, second) == 5
    assert scan.line_of(1, 1, first) is None and scan.line_of_seq(1, 2, first) is None
    assert scan.line_of(1, 1) == 5
