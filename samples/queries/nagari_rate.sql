-- How often does a hand end in a nagari (no winner), by ruleset?
SELECT h.ruleset,
       count(*) AS hands_ended,
       count(*) FILTER (WHERE h.outcome = 'nagari') AS nagari,
       round(count(*) FILTER (WHERE h.outcome = 'nagari') / count(*), 4) AS nagari_rate
FROM hands h  -- each hand row carries its game's ruleset and players: no join
WHERE h.ended
GROUP BY h.ruleset
ORDER BY h.ruleset;
