-- How often does a hand end in a nagari (no winner), by ruleset?
SELECT g.ruleset,
       count(*) AS hands_ended,
       count(*) FILTER (WHERE h.outcome = 'nagari') AS nagari,
       round(count(*) FILTER (WHERE h.outcome = 'nagari') / count(*), 4) AS nagari_rate
FROM hands h
JOIN games g USING (game_id)
WHERE h.ended
GROUP BY g.ruleset
ORDER BY g.ruleset;
