"""The sample queries (samples/queries/*.sql) run and give the answers the logs hold.

Each expected answer is computed here in Python straight from the events (and, for the
payout multipliers, from the engine's payout proof), never by running SQL, so a query that
joins the wrong way or counts the wrong rows fails. The corpus is one fixture.
"""

from __future__ import annotations

import math
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import pytest
from store_support import ROOT, every_preset, games, write_games

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log
from gostop_records.projector import project
from gostop_records.store import Store

QUERIES = sorted((ROOT / "samples" / "queries").glob("*.sql"))


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The logs the sample queries are checked on.

    Simulated games of every preset with fixed seeds, and one game whose recorded payment
    differs from the computed one. ``GOSTOP_QUERY_CORPUS=samples`` (or any folder of logs)
    checks the queries on those logs instead: every expected answer is computed from
    whatever the folder holds.
    """
    chosen = os.environ.get("GOSTOP_QUERY_CORPUS")
    if chosen:
        return (ROOT / chosen).resolve()
    folder = tmp_path_factory.mktemp("corpus")
    logs = every_preset(count=6, hands=3, seed=200)
    disputed = games("matgo", 2, count=1, hands=2, seed=900)[0]
    write_games(folder, [*logs, _overpaid(disputed)], per_file=5)
    return folder


def _overpaid(game: list[E.Envelope]) -> list[E.Envelope]:
    """The game with its first recorded payment doubled ("I paid 24, it should be 12")."""
    out = list(game)
    k = next(i for i, e in enumerate(out) if type(e.event) is E.PaymentRecorded)
    ev = out[k].event
    out[k] = msgspec.structs.replace(out[k], event=msgspec.structs.replace(ev, chips=2 * ev.chips))
    return log.seal(out)


# --- the corpus as the queries should see it ---------------------------------------------


@dataclass
class Hand:
    game_id: str
    hand: int
    ruleset: str
    players: int
    events: list[E.Envelope] = field(default_factory=list)
    dealer: int | None = None
    outcome: str | None = None
    winner: int | None = None

    def of(self, kind: type) -> Iterator[Any]:
        return (e.event for e in self.events if type(e.event) is kind)


@dataclass
class Corpus:
    games: dict[str, list[E.Envelope]]
    hands: dict[tuple[str, int], Hand]
    #: Hands the rules could follow to their end (not a lenient record after a broken rule).
    checked: set[tuple[str, int]]


def _live(events: list[E.Envelope]) -> list[E.Envelope]:
    """The events a retraction did not undo (only the latest input can be retracted)."""
    void: set[int] = set()
    inputs: list[int] = []
    for env in events:
        ev = env.event
        if type(ev) is E.EntryRetracted:
            if inputs and inputs[-1] == ev.seq:
                void.update(range(ev.seq, env.seq + 1))
                inputs.pop()
        elif type(ev) is not E.GameStarted and E.is_input(ev):
            if type(ev) is E.HandStarted:
                inputs.clear()
            inputs.append(env.seq)
    return [e for e in events if e.seq not in void]


@pytest.fixture(scope="module")
def imported(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[str]]:
    """The corpus in a store (leniently: a record of a table that broke a rule is data too),
    and the games the import refused (a tampered log), which the answers leave out too."""
    path = tmp_path_factory.mktemp("store") / "q.duckdb"
    with Store(path) as st:
        report = st.import_paths([corpus_dir], strict=False)
    assert not report.conflicts
    assert all(p.rule == "hash_chain" for p in report.rejected), report.rejected
    return path, {p.game_id for p in report.rejected if p.game_id}


@pytest.fixture(scope="module")
def store(imported: tuple[Path, set[str]]) -> Iterator[Store]:
    with Store(imported[0], read_only=True) as st:
        yield st


@pytest.fixture(scope="module")
def corpus(corpus_dir: Path, imported: tuple[Path, set[str]]) -> Corpus:
    by_game: dict[str, list[E.Envelope]] = defaultdict(list)
    for path in sorted(corpus_dir.rglob("*")):
        if path.suffix in (".jsonl", ".ndjson", ".msgpack", ".mpk"):
            for env in log.read_log(path):
                if env.game_id not in imported[1]:
                    by_game[env.game_id].append(env)
    hands: dict[tuple[str, int], Hand] = {}
    for gid, events in by_game.items():
        started = events[0].event
        assert type(started) is E.GameStarted
        for env in _live(events):
            if env.hand is None:
                continue
            h = hands.setdefault(
                (gid, env.hand),
                Hand(gid, env.hand, started.ruleset["name"], len(started.players)),
            )
            h.events.append(env)
            if type(env.event) is E.HandStarted:
                h.dealer = env.event.dealer
            elif type(env.event) is E.HandEnded:
                h.outcome, h.winner = env.event.outcome, env.event.winner
    checked = set()
    for gid, events in by_game.items():
        game = project(events, strict=False).game
        assert game is not None
        checked.update((gid, r.hand) for r in game.results if r.outcome != "unchecked")
    return Corpus(dict(by_game), hands, checked)


# --- the expected answers ------------------------------------------------------------------


def _rate(a: int, b: int) -> float | None:
    return a / b if b else None


def second_go_payoff(c: Corpus, _: Store) -> list[tuple[Any, ...]]:
    calls: Counter[int] = Counter()
    paid: Counter[int] = Counter()
    for h in c.hands.values():
        for ev in h.of(E.GoCalled):
            if ev.count == 2:
                calls[ev.score] += 1
                paid[ev.score] += h.outcome == "stop" and h.winner == ev.seat
    assert calls, "the corpus has no second Go"
    return [(s, calls[s], paid[s], paid[s] / calls[s]) for s in sorted(calls)]


def ppuk_by_month(c: Corpus, _: Store) -> list[tuple[Any, ...]]:
    made = Counter(ev.month for h in c.hands.values() for ev in h.of(E.PpukMade))
    assert made
    return [(m, made[m], 100.0 * made[m] / len(c.hands)) for m in range(1, 13)]


def _pi_bak_hands(c: Corpus) -> set[tuple[str, int]]:
    """Hands won by a Stop where a loser paid pi-bak, from the engine's payout proof."""
    out = set()
    for gid, events in c.games.items():
        game = project(events, strict=False).game
        assert game is not None
        for r in game.results:
            proof = r.proof() if r.outcome == "stop" else None
            if proof and any(
                f.rule == "pi_bak" and f.applies for lp in proof.losers for f in lp.factors
            ):
                out.add((gid, r.hand))
    return out


def specials_before_pi_bak(c: Corpus, st: Store) -> list[tuple[Any, ...]]:
    pi_bak = _pi_bak_hands(c)
    # a sweep is read from the layout, which the events give only through a replay:
    # take that one flag from the turns table
    sweeps = Counter(
        (g, h, s) for g, h, s in st.query("SELECT game_id, hand, seat FROM turns WHERE sseul").rows
    )
    having: Counter[str] = Counter()
    with_pi: Counter[str] = Counter()
    for key, h in c.hands.items():
        if h.outcome != "stop" or key not in c.checked:
            continue
        w = h.winner
        made = {
            "ppuk": any(ev.seat == w for ev in h.of(E.PpukMade)),
            "jjok": any(ev.seat == w and ev.kind == "jjok" for ev in h.of(E.CardsCaptured)),
            "ttadak": any(ev.seat == w and ev.kind == "ttadak" for ev in h.of(E.CardsCaptured)),
            "sseul": sweeps[(h.game_id, h.hand, w)] > 0,
            "bomb": any(ev.seat == w for ev in h.of(E.BombPlayed)),
            "shake": any(ev.seat == w for ev in h.of(E.Shaken)),
        }
        for name, yes in made.items():
            if yes:
                having[name] += 1
                with_pi[name] += key in pi_bak
    assert pi_bak and sum(with_pi.values())
    names = sorted(["ppuk", "jjok", "ttadak", "sseul", "bomb", "shake"])
    return [(n, having[n], with_pi[n], _rate(with_pi[n], having[n])) for n in names]


def _chips_due(h: Hand) -> int:
    return sum(ev.chips for ev in h.of(E.PaymentDue))


def payout_by_ruleset(c: Corpus, _: Store) -> list[tuple[Any, ...]]:
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for key, h in c.hands.items():
        if h.outcome == "stop" and key in c.checked:
            groups[(h.ruleset, h.players)].append(_chips_due(h))
    return [(r, p, len(v), sum(v) / len(v), max(v)) for (r, p), v in sorted(groups.items())]


def nagari_rate(c: Corpus, _: Store) -> list[tuple[Any, ...]]:
    ended: Counter[str] = Counter()
    nagari: Counter[str] = Counter()
    for h in c.hands.values():
        if h.outcome is not None:
            ended[h.ruleset] += 1
            nagari[h.ruleset] += h.outcome == "nagari"
    return [(r, ended[r], nagari[r], nagari[r] / ended[r]) for r in sorted(ended)]


def dealer_wins(c: Corpus, _: Store) -> list[tuple[Any, ...]]:
    won: Counter[tuple[str, int]] = Counter()
    dealer: Counter[tuple[str, int]] = Counter()
    for h in c.hands.values():
        if h.winner is not None:
            won[(h.ruleset, h.players)] += 1
            dealer[(h.ruleset, h.players)] += h.winner == h.dealer
    return [
        (r, p, won[(r, p)], dealer[(r, p)], dealer[(r, p)] / won[(r, p)]) for r, p in sorted(won)
    ]


def capture_kinds(c: Corpus, _: Store) -> list[tuple[Any, ...]]:
    cards: Counter[str] = Counter()
    captures: Counter[str] = Counter()
    for h in c.hands.values():
        for ev in h.of(E.CardsCaptured):
            cards[ev.kind] += len(ev.cards)
            captures[ev.kind] += 1
        for _ev in h.of(E.BonusCardTaken):
            cards["bonus"] += 1
            captures["bonus"] += 1
    total = sum(cards.values())
    rows = [(k, cards[k], captures[k], 100.0 * cards[k] / total) for k in cards]
    return sorted(rows, key=lambda r: (-r[1], r[0]))


def junk_by_reason(c: Corpus, _: Store) -> list[tuple[Any, ...]]:
    cards: Counter[str] = Counter()
    double: Counter[str] = Counter()
    bonus: Counter[str] = Counter()
    hands: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for key, h in c.hands.items():
        for ev in h.of(E.JunkTransferred):
            kind = C.card(ev.card).kind
            cards[ev.reason] += 1
            double[ev.reason] += kind is C.Kind.DOUBLE_JUNK
            bonus[ev.reason] += kind is C.Kind.BONUS
            hands[ev.reason].add(key)
    rows = [(r, cards[r], double[r], bonus[r], len(hands[r])) for r in cards]
    return sorted(rows, key=lambda r: (-r[1], r[0]))


def disputed_payments(c: Corpus, _: Store) -> list[tuple[Any, ...]]:
    rows = []
    for (gid, hand), h in sorted(c.hands.items()):
        recorded: Counter[tuple[int, int]] = Counter()
        due: Counter[tuple[int, int]] = Counter()
        for ev in h.of(E.PaymentRecorded):
            recorded[(ev.payer, ev.payee)] += ev.chips
        for ev in h.of(E.PaymentDue):
            due[(ev.payer, ev.payee)] += ev.chips
        if not recorded:
            continue
        for pair in sorted(set(recorded) | set(due)):
            if recorded[pair] != due[pair]:
                rows.append(
                    (gid, hand, *pair, due[pair], recorded[pair], recorded[pair] - due[pair])
                )
    assert rows, "the corpus has no disputed payment"
    return sorted(rows, key=lambda r: (-abs(r[6]), r[0], r[1], r[2]))


def _disputes_view(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The columns of disputed_payments.sql that the events alone can tell."""
    return [(r[0], r[1], r[2], r[4], r[6], r[7], r[8]) for r in rows]


Expected = Callable[[Corpus, Store], list[tuple[Any, ...]]]
#: query file stem -> (expected answer, decimals the query rounds its ratios to, projection)
EXPECTED: dict[str, tuple[Expected, int, Callable[[list[tuple[Any, ...]]], Any] | None]] = {
    "second_go_payoff": (second_go_payoff, 3, None),
    "ppuk_by_month": (ppuk_by_month, 2, None),
    "specials_before_pi_bak": (specials_before_pi_bak, 3, None),
    "payout_by_ruleset": (payout_by_ruleset, 2, None),
    "nagari_rate": (nagari_rate, 4, None),
    "dealer_wins": (dealer_wins, 3, None),
    "capture_kinds": (capture_kinds, 2, None),
    "junk_by_reason": (junk_by_reason, 0, None),
    "disputed_payments": (disputed_payments, 0, _disputes_view),
}


def _same(got: Any, want: Any, digits: int) -> bool:
    if isinstance(want, float) or isinstance(got, float):
        if got is None or want is None:
            return got is want
        return math.isclose(float(got), want, abs_tol=0.5 * 10.0**-digits + 1e-9)
    return bool(got == want)


def test_there_are_enough_queries_and_each_has_its_answer() -> None:
    assert len(QUERIES) >= 8
    assert {q.stem for q in QUERIES} == set(EXPECTED)


@pytest.mark.parametrize("path", QUERIES, ids=lambda p: p.stem)
def test_sample_query(path: Path, corpus: Corpus, store: Store) -> None:
    text = path.read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert first.startswith("-- ") and first.rstrip().endswith("?"), "state the question"
    expect, digits, view = EXPECTED[path.stem]
    result = store.query(text)
    got = view(result.rows) if view else result.rows
    want = expect(corpus, store)
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want, strict=True):
        assert len(g) == len(w) and all(_same(a, b, digits) for a, b in zip(g, w, strict=True)), (
            g,
            w,
        )
