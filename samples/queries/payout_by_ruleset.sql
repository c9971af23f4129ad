-- What does a hand won by a Stop pay on average, by ruleset and number of players?
-- Chips the rules make due for the hand (every loser's share, instant payments included),
-- over the hands the rules could check (a record kept leniently after a broken rule has
-- no computed payout).
SELECT h.ruleset, h.players,
       count(*) AS stop_hands,
       round(avg(h.chips), 2) AS avg_chips,
       max(h.chips) AS max_chips
FROM hands h  -- each hand row carries its game's ruleset and players: no join
WHERE h.outcome = 'stop' AND h.checked
GROUP BY h.ruleset, h.players
ORDER BY h.ruleset, h.players;
