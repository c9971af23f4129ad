-- What are the most common kinds of capture, counted in cards and in captures?
-- (pair, stack, ppuk_taken, own_ppuk, ttadak, jjok, bomb, bonus, ...)
SELECT capture_kind,
       count(*) AS cards,
       count(*) FILTER (WHERE position = 1) AS captures,
       round(100.0 * count(*) / sum(count(*)) OVER (), 2) AS pct_of_cards
FROM captures
GROUP BY capture_kind
ORDER BY cards DESC, capture_kind;
