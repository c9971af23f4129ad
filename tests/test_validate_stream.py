"""``validate_files`` streams a file game by game, with the same findings as checking every
game with all of its lines at once, also when a game's lines are interleaved with another's."""

from __future__ import annotations

from pathlib import Path

from store_support import break_a_rule, games

from gostop_records import log as L
from gostop_records.validate import validate_envelopes, validate_files


def _interleave(a: list, b: list) -> list:
    out = []
    for k in range(max(len(a), len(b))):
        out.extend(x[k] for x in (a, b) if k < len(x))
    return out


def test_interleaved_games_give_the_findings_of_whole_games(tmp_path: Path) -> None:
    one, two, three = games("matgo", 2, count=3, hands=1, seed=40)
    broken, seq = break_a_rule(two)
    lines = [*one, *_interleave(broken, three)]
    path = tmp_path / "mixed.jsonl"
    L.write_log(path, lines)
    streamed = validate_files([path])
    whole = validate_envelopes(lines, file=str(path))
    assert streamed.games == 3 and streamed.events == len(lines)
    assert [f.to_dict() for f in streamed.errors] == [f.to_dict() for f in whole.errors]
    [error] = streamed.errors
    assert (error.game_id, error.seq) == (two[0].game_id, seq)
    assert error.line == 1 + next(k for k, e in enumerate(lines) if e is broken[seq - 1])


def test_a_game_continued_further_down_is_checked_whole(tmp_path: Path) -> None:
    one, two = games("matgo", 2, count=2, hands=2, seed=60)
    cut = len(one) // 2
    path = tmp_path / "continued.jsonl"
    L.write_log(path, [*one[:cut], *two, *one[cut:]])
    report = validate_files([path])
    assert report.valid, report.errors
    assert report.games == 2
