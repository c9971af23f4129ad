"""The demo: the product's main job on an embedded default, in a fresh folder.

It simulates a corpus of every preset into a DuckDB store (and a JSONL copy), picks a hand to
replay, builds a disputed hand (a table that forgot a multiplier) and audits it, and answers
a few questions in SQL. The library part returns what it made; ``gostop demo`` prints it.
Deterministic: the same arguments give the same corpus, the same dispute and the same
answers.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import msgspec

from . import events as E
from . import log as L
from .audit import audit_game
from .audit.model import GameAudit
from .engine.rulebook import PI_BAK
from .errors import GostopError
from .projector import project
from .rules import PRESETS
from .sim.selfplay import GameSpec, play_game, simulate

__all__ = ["DEMO_MARKER", "QUESTIONS", "DemoResult", "run_demo"]

DEMO_MARKER = ".gostop-demo"

#: (preset, players, games, hands per game) of the demo corpus.
CORPUS = (
    ("matgo", 2, 8, 10),
    ("gostop3", 3, 6, 10),
    ("gamerules", 2, 4, 10),
    ("gamerules", 3, 4, 10),
    ("cardavia", 2, 60, 1),
)

#: The questions the demo asks the store, in SQL over the projection tables.
QUESTIONS: tuple[tuple[str, str], ...] = (
    (
        "How do hands end, by ruleset?",
        """SELECT ruleset, players, count(*) AS hands,
       round(avg(CASE WHEN outcome = 'stop' THEN 1 ELSE 0 END) * 100, 1) AS stop_pct,
       round(avg(CASE WHEN outcome = 'nagari' THEN 1 ELSE 0 END) * 100, 1) AS nagari_pct,
       round(avg(CASE WHEN outcome = 'instant' THEN 1 ELSE 0 END) * 100, 1) AS instant_pct
FROM hands GROUP BY ruleset, players ORDER BY ruleset, players""",
    ),
    (
        "What does a won hand pay on average, and how often is it doubled?",
        """SELECT h.ruleset, h.players, count(*) AS payments,
       round(avg(p.chips), 1) AS avg_chips, max(p.chips) AS max_chips,
       round(avg(CASE WHEN p.pi_bak THEN 1 ELSE 0 END) * 100, 1) AS pi_bak_pct,
       round(avg(CASE WHEN p.gwang_bak THEN 1 ELSE 0 END) * 100, 1) AS gwang_bak_pct
FROM payouts p JOIN hands h USING (game_id, hand)
WHERE p.reason = 'stop'
GROUP BY h.ruleset, h.players ORDER BY h.ruleset, h.players""",
    ),
    (
        "In which months do ppuk stacks form most often?",
        """SELECT played_month AS month, count(*) AS ppuk
FROM turns WHERE ppuk GROUP BY played_month ORDER BY ppuk DESC, month LIMIT 5""",
    ),
)


@dataclass(slots=True)
class Answer:
    question: str
    sql: str
    columns: tuple[str, ...]
    rows: list[tuple[object, ...]]


@dataclass(frozen=True, slots=True)
class Replay:
    """The point the demo replays to: the end of ``hand`` (its ``seq``) of a game in a log."""

    log: Path
    game: str
    hand: int
    seq: int


@dataclass(frozen=True, slots=True)
class Dispute:
    """The disputed payment the demo audits: its log, what happened at the table, the audit."""

    log: Path
    story: str
    audit: GameAudit


@dataclass(frozen=True, slots=True)
class DemoResult:
    """What the demo made and found, for the command line to show: the store and the
    corpus it holds (with its counts), the replay, the dispute and the answers."""

    folder: Path
    db: Path
    corpus: Path
    games: int
    hands: int
    events: int
    replay: Replay
    dispute: Dispute
    answers: list[Answer]


def fresh_folder(folder: Path) -> Path:
    """The folder, emptied if it holds an earlier demo; a new name if it holds anything else."""
    if folder.exists():
        if (folder / DEMO_MARKER).exists():
            shutil.rmtree(folder)
        elif any(folder.iterdir()):
            k = 2
            while (folder.parent / f"{folder.name}-{k}").exists():
                k += 1
            folder = folder.parent / f"{folder.name}-{k}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / DEMO_MARKER).write_text("made by gostop demo; safe to delete\n", encoding="utf-8")
    return folder


def _dispute(folder: Path) -> tuple[Path, str]:
    """A matgo hand won with pi-bak, paid as if the table had forgotten the pi-bak."""
    for seed in range(1, 500):
        envs = play_game(
            GameSpec(
                PRESETS["matgo"], 2, 1, seed, ("greedy", "random"), game_id=f"demo-dispute-{seed}"
            )
        )
        game = project(envs).game
        if game is None or not game.results:
            continue
        result = game.results[0]
        proof = result.proof()
        if proof is None:
            continue
        loser = proof.losers[0]
        applied = [f for f in loser.factors if f.applies]
        if [f.rule for f in applied] != [PI_BAK.id]:
            continue
        paid = loser.pays_chips // 2
        out: list[E.Envelope] = []
        for env in envs:
            ev = env.event
            if type(ev) is E.PaymentRecorded:
                ev = msgspec.structs.replace(
                    ev, chips=paid, note=f"the loser paid without {PI_BAK.name}"
                )
                env = msgspec.structs.replace(env, event=ev)
            out.append(env)
        path = folder / "dispute.jsonl"
        L.write_jsonl(path, L.seal(out))
        story = (
            f"Seat {proof.winner} won hand 1 of {envs[0].game_id} and was paid "
            f"{paid} chips; the rules say {loser.pays_chips}."
        )
        return path, story
    raise GostopError(f"the demo found no hand won with {PI_BAK.name} alone in 500 seeds")


def run_demo(
    folder: Path,
    *,
    progress: Callable[[str], None] | None = None,
) -> DemoResult:
    """Run the demo in ``folder`` (made fresh); see the module docstring."""
    from .store import Store

    say = progress or (lambda _msg: None)
    folder = fresh_folder(folder)
    db, corpus = folder / "gostop.duckdb", folder / "corpus.jsonl"

    say("simulating a corpus of every preset")
    logs: list[list[E.Envelope]] = []
    for k, (name, players, games, hands) in enumerate(CORPUS):
        logs.extend(
            simulate(
                PRESETS[name], players, games, hands, seed=100 * k + 1, bots=("greedy", "random")
            )
        )
    with open(corpus, "wb") as f:
        for envs in logs:
            L.write_jsonl(f, envs)

    say("importing it into DuckDB")
    with Store(db) as store:
        report = store.import_envelopes((e for envs in logs for e in envs), source="demo")
        if report.rejected:
            first = report.rejected[0]
            raise GostopError(f"the demo corpus was rejected: {first}")

        say("choosing a hand to replay")
        for envs in logs:
            if envs[0].game_id.startswith("sim-matgo"):
                game = envs
                break
        else:  # pragma: no cover - the corpus always holds matgo games
            game = logs[0]
        replay_log = folder / "replay.jsonl"
        L.write_jsonl(replay_log, game)
        ended = [e for e in game if type(e.event) is E.HandEnded and e.hand == 1]
        replay = Replay(replay_log, game[0].game_id, 1, ended[0].seq if ended else game[-1].seq)

        say("auditing a disputed payment")
        dispute_log, story = _dispute(folder)
        dispute = Dispute(dispute_log, story, audit_game(L.read_log(dispute_log)))

        say("asking the store a few questions")
        answers = []
        for question, sql in QUESTIONS:
            q = store.query(sql)
            answers.append(Answer(question, sql, q.columns, q.rows))
    return DemoResult(
        folder,
        db,
        corpus,
        games=len(logs),
        hands=sum(1 for envs in logs for e in envs if type(e.event) is E.HandStarted),
        events=sum(len(envs) for envs in logs),
        replay=replay,
        dispute=dispute,
        answers=answers,
    )
