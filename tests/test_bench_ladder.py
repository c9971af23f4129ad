"""bench/ladder.py at the smallest size: the rungs and matches it plays, a hand the same
twice, the seats swapped on the same deal, and the table it writes."""

from __future__ import annotations

from pathlib import Path

from bench.ladder import GoStopOnly, ReviewBot, _load, main, make, matches, play_hand, rungs
from gostop_records.sim.dealer import SplitMix64


def test_the_rungs_and_the_matches() -> None:
    ladder = rungs((4, 8))
    assert ladder == [
        "random", "greedy", "club", "strong", "expert", "review-4", "review-8", "master"
    ]  # fmt: skip
    ms = matches(ladder, "master")
    assert ms[0] == ("greedy", "random") and ms[-1] == ("master@gostop", "greedy")
    assert ("master", "strong") in ms and len(ms) == len(ladder) + 1
    assert type(make("master@gostop", SplitMix64(1))) is GoStopOnly
    assert type(make("review-4", SplitMix64(1))) is ReviewBot
    assert type(make("club@gostop", SplitMix64(1))) is GoStopOnly


def test_a_hand_is_the_same_twice_and_zero_sum() -> None:
    a = play_hand("matgo", 3, ("review-2", "greedy"))
    b = play_hand("matgo", 3, ("review-2", "greedy"))
    assert a.chips == b.chips and a.outcome == b.outcome
    assert sum(a.chips) == 0 and a.times[0] and not a.times[1]


def test_a_small_run_writes_its_table(tmp_path: Path) -> None:
    out = tmp_path / "LADDER.md"
    args = ["--deals", "1", "--ruleset", "cardavia", "--review", "2", "--top", "greedy"]
    # only the cheap rungs: --top greedy still adds greedy's search on Go/Stop (none)
    assert main([*args, "--out", str(out), "--only", "greedy,random"]) == 0
    text = out.read_text()
    assert "LOADED above 2" in text and "| cardavia | greedy | random | 1 |" in text
    row = next(line for line in text.splitlines() if line.startswith("| cardavia | greedy"))
    assert row.endswith(" |") and "–" in row.split("|")[-2]  # the load at the one deal


def test_a_go_then_a_loss_is_counted() -> None:
    hands = [play_hand("matgo", seed, ("random", "greedy")) for seed in range(40)]
    lost = [(h, q) for h in hands for q in (0, 1) if h.went_and_lost[q]]
    assert lost and all(h.chips[q] < 0 for h, q in lost)


def test_strong_as_the_top_plays_no_mirror_match() -> None:
    ms = matches(rungs(()), "strong")
    assert ("strong", "strong") not in ms and ms[-1] == ("strong@gostop", "greedy")


def test_a_match_above_a_load_of_two_is_marked_loaded() -> None:
    assert _load([0.4, 1.9]) == "0.4–1.9"
    assert _load([1.5, 2.6, 1.0]) == "1.0–2.6 LOADED"
    assert _load([]) == "–"
