-- How often does the dealer (who plays first) win the hand, by ruleset and players?
SELECT h.ruleset, h.players,
       count(*) AS hands_won,
       count(*) FILTER (WHERE h.winner = h.dealer) AS dealer_won,
       round(count(*) FILTER (WHERE h.winner = h.dealer) / count(*), 3) AS dealer_rate
FROM hands h  -- each hand row carries its game's ruleset and players: no join
WHERE h.winner IS NOT NULL
GROUP BY h.ruleset, h.players
ORDER BY h.ruleset, h.players;
