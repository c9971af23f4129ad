-- How often does the dealer (who plays first) win the hand, by ruleset and players?
SELECT g.ruleset, g.players,
       count(*) AS hands_won,
       count(*) FILTER (WHERE h.winner = h.dealer) AS dealer_won,
       round(count(*) FILTER (WHERE h.winner = h.dealer) / count(*), 3) AS dealer_rate
FROM hands h
JOIN games g USING (game_id)
WHERE h.winner IS NOT NULL
GROUP BY g.ruleset, g.players
ORDER BY g.ruleset, g.players;
