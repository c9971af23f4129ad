-- How often does a second Go pay off, by the score at which it was called?
-- A second Go pays off when the player who called it goes on to win the hand with a Stop:
-- decisions.won_by_stop says so on the Go's own row, so no join with hands is needed.
SELECT score AS score_at_call,
       count(*) AS second_gos,
       count(*) FILTER (WHERE won_by_stop) AS paid_off,
       round(count(*) FILTER (WHERE won_by_stop) / count(*), 3) AS payoff_rate
FROM decisions
WHERE kind = 'go' AND go_count = 2
GROUP BY score
ORDER BY score;
