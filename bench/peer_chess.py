"""The peer: python-chess parsing and replaying PGN games, in moves per second.

A well-known, mature Python library that does the same kind of work as our replay (parse a
text record of a game, replay it move by move on a board that checks legality) gives an
honest yardstick. The games are random legal games generated with a seeded ``random.Random``
(their content does not matter, only that they are legal and of realistic length), exported
to PGN, then parsed and replayed with ``chess.pgn.read_game`` and ``Board.push``.
"""

from __future__ import annotations

import io
import random
import time
from dataclasses import dataclass

__all__ = ["PeerResult", "make_pgn", "replay_pgn"]


@dataclass(frozen=True, slots=True)
class PeerResult:
    games: int
    moves: int
    seconds: float

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds if self.seconds else 0.0


def make_pgn(games: int, seed: int = 1, max_plies: int = 160) -> str:
    """Random legal games as one PGN text."""
    import chess
    import chess.pgn

    rng = random.Random(seed)
    out = io.StringIO()
    for g in range(games):
        board = chess.Board()
        for _ in range(max_plies):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over(claim_draw=False):
                break
            board.push(rng.choice(moves))
        game = chess.pgn.Game.from_board(board)
        game.headers["Event"] = f"bench {g}"
        print(game, file=out, end="\n\n")
    return out.getvalue()


def replay_pgn(pgn: str) -> PeerResult:
    """Parse every game of a PGN text and replay its moves on a board (CPU time)."""
    import chess.pgn

    start = time.process_time()
    stream = io.StringIO(pgn)
    games = moves = 0
    while True:
        game = chess.pgn.read_game(stream)
        if game is None:
            break
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
            moves += 1
        games += 1
    return PeerResult(games, moves, time.process_time() - start)
