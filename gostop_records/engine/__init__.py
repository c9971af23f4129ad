"""The pure rules engine: hand state, turns, scores, settlement, the night's settlement
(``night``). No I/O."""

from .actions import legal_actions
from .game import GameState, HandResult, apply_game, start_game
from .scoring import Score, ScoreLine, points, score
from .settlement import Due, Factor, HandFacts, LoserProof, Proof, go_points, settle
from .state import HandState, Phase
from .table import Table, table_for
from .turn import apply, facts_of, new_hand

__all__ = [
    "Due",
    "Factor",
    "GameState",
    "HandFacts",
    "HandResult",
    "HandState",
    "LoserProof",
    "Phase",
    "Proof",
    "Score",
    "ScoreLine",
    "Table",
    "apply",
    "apply_game",
    "facts_of",
    "go_points",
    "legal_actions",
    "new_hand",
    "points",
    "score",
    "settle",
    "start_game",
    "table_for",
]
