-- What are the most common kinds of capture, counted in cards and in captures?
-- (pair, stack, ppuk_taken, own_ppuk, ttadak, jjok, bomb, bonus, ...)
-- capture_tallies counts each hand's captures rows by kind: a few rows per hand, not one
-- per card.
SELECT capture_kind,
       sum(cards)::BIGINT AS cards,
       sum(captures)::BIGINT AS captures,
       round(100.0 * sum(cards)::BIGINT / sum(sum(cards)::BIGINT) OVER (), 2) AS pct_of_cards
FROM capture_tallies
GROUP BY capture_kind
ORDER BY cards DESC, capture_kind;
