-- What does a hand won by a Stop pay on average, by ruleset and number of players?
-- Chips the rules make due for the hand (every loser's share, instant payments included),
-- over the hands the rules could check (a record kept leniently after a broken rule has
-- no computed payout).
SELECT g.ruleset, g.players,
       count(*) AS stop_hands,
       round(avg(h.chips), 2) AS avg_chips,
       max(h.chips) AS max_chips
FROM hands h
JOIN games g USING (game_id)
WHERE h.outcome = 'stop' AND h.checked
GROUP BY g.ruleset, g.players
ORDER BY g.ruleset, g.players;
