-- How often does a second Go pay off, by the score at which it was called?
-- A second Go pays off when the player who called it goes on to win the hand with a Stop.
SELECT d.score AS score_at_call,
       count(*) AS second_gos,
       count(*) FILTER (WHERE h.outcome = 'stop' AND h.winner = d.seat) AS paid_off,
       round(count(*) FILTER (WHERE h.outcome = 'stop' AND h.winner = d.seat) / count(*), 3)
           AS payoff_rate
FROM decisions d
JOIN hands h USING (game_id, hand)
WHERE d.kind = 'go' AND d.go_count = 2
GROUP BY d.score
ORDER BY d.score;
